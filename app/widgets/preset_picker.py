"""The grouped instruct-preset list with search: a popup under the "Presets" button.

Two levels: the groups (Dialect, Emotion, Speed, Volume, Role play, Custom) and their presets, each
with a check box. Which boxes may be on together is decided by :func:`toggle_selection`; the picker
only shows the selection it is given and reports clicks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cosycore.presets import CATEGORIES, InstructPreset

from ..config.preset_names import preset_label
from ..config.user_presets import UserPreset

USER_PREFIX = "user:"
KEY_ROLE = Qt.ItemDataRole.UserRole


def builtin_key(preset: InstructPreset) -> str:
    return f"preset:{preset.id}"


def user_key(preset: UserPreset) -> str:
    return USER_PREFIX + preset.name


@dataclass(frozen=True)
class Choice:
    """One entry of the picker: a built-in preset or a user preset."""

    key: str
    group: str  # a category of cosycore.presets, or "custom"
    label: str  # shown name (translated for built-ins)
    text: str
    tip: str


def toggle_selection(selected: Sequence[Choice], clicked: Choice) -> list[Choice]:
    """The selection after a click on ``clicked``; mirrors :func:`cosycore.presets.combine`'s rule.

    A click on a chosen entry removes it. A role play or a custom preset replaces everything (it
    stands alone); any other preset replaces the one of its own group and drops a role or custom one.
    """
    if any(c.key == clicked.key for c in selected):
        return [c for c in selected if c.key != clicked.key]
    if clicked.group in ("role", "custom"):
        return [clicked]
    kept = [c for c in selected if c.group not in ("role", "custom", clicked.group)]
    return [*kept, clicked]


class PresetPicker(QFrame):
    """Popup with a search field over a two-level preset list. Owned by :class:`SynthesisControls`."""

    clicked = Signal(object)  # Choice
    delete_requested = Signal(str)  # user preset name

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("presetPicker")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.search = QLineEdit(self)
        self.search.setObjectName("presetSearch")
        self.search.setPlaceholderText(self.tr("Search presets (name, text or meaning)"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.apply_filter)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("presetTree")
        self.tree.setColumnCount(2)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._on_tree_item_clicked)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_tree_context_menu)
        self.hint = QLabel(self.tr("One per group: a dialect, an emotion, a speed and a volume combine in that "
                                   "order. A role play or a custom preset stands alone."), self)
        self.hint.setWordWrap(True)
        self.hint.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.hint)
        self.resize(580, 600)
        self.search.installEventFilter(self)
        self.tree.installEventFilter(self)
        self._groups: dict[str, QTreeWidgetItem] = {}
        self._choices: dict[str, Choice] = {}

    def group_title(self, group: str) -> str:
        titles = {"dialect": self.tr("Dialect"), "emotion": self.tr("Emotion"), "speed": self.tr("Speed"),
                  "volume": self.tr("Volume"), "role": self.tr("Role play"), "custom": self.tr("Custom")}
        return titles[group]

    def set_choices(self, choices: Sequence[Choice], selected: Sequence[str]) -> None:
        """Rebuild the list: every group in order, its entries, the check marks of ``selected`` keys."""
        self.tree.clear()
        self._groups.clear()
        self._choices = {c.key: c for c in choices}
        bold = QFont(self.font())
        bold.setBold(True)
        for group in (*CATEGORIES, "custom"):
            head = QTreeWidgetItem(self.tree, [self.group_title(group)])
            head.setFont(0, bold)
            head.setFlags(Qt.ItemFlag.ItemIsEnabled)
            head.setFirstColumnSpanned(True)
            self._groups[group] = head
            members = [c for c in choices if c.group == group]
            for choice in members:
                item = QTreeWidgetItem(head, [choice.label, choice.text])
                item.setData(0, KEY_ROLE, choice.key)
                item.setToolTip(0, choice.tip)
                item.setToolTip(1, choice.tip)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                item.setCheckState(0, Qt.CheckState.Checked if choice.key in selected else Qt.CheckState.Unchecked)
            if not members:
                empty = (self.tr("Use “Save as preset” to keep an instruction you typed") if group == "custom"
                         else self.tr("None documented for this model"))
                note = QTreeWidgetItem(head, [empty])
                note.setFlags(Qt.ItemFlag.NoItemFlags)
                note.setFirstColumnSpanned(True)
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)
        self.apply_filter(self.search.text())

    def set_selected(self, selected: Sequence[str]) -> None:
        """Update the check marks only (the list, its scroll position and current entry stay)."""
        for key in self._choices:
            item = self.item_for(key)
            if item is not None:
                item.setCheckState(0, Qt.CheckState.Checked if key in selected else Qt.CheckState.Unchecked)

    def choice_keys(self) -> list[str]:
        return list(self._choices)

    def item_for(self, key: str) -> QTreeWidgetItem | None:
        for head in self._groups.values():
            for i in range(head.childCount()):
                child = head.child(i)
                if child is not None and child.data(0, KEY_ROLE) == key:
                    return child
        return None

    def visible_keys(self) -> list[str]:
        return [k for k in self._choices if (item := self.item_for(k)) is not None and not item.isHidden()]

    def apply_filter(self, text: str) -> None:
        """Show the entries whose name, text, meaning or id contain ``text`` (case-insensitive)."""
        needle = text.strip().casefold()
        for head in self._groups.values():
            shown = 0
            for i in range(head.childCount()):
                item = head.child(i)
                if item is None:
                    continue
                key = item.data(0, KEY_ROLE)
                choice = self._choices.get(key) if key else None
                if choice is None:  # the "none documented" note
                    item.setHidden(bool(needle))
                    continue
                hay = " ".join((choice.label, choice.text, choice.tip, choice.key)).casefold()
                hit = not needle or needle in hay
                item.setHidden(not hit)
                shown += hit
            head.setHidden(bool(needle) and shown == 0)

    def popup_below(self, anchor: QWidget, row: QWidget | None = None) -> None:
        """Open at ``anchor``'s left edge, under ``row`` (default: the anchor), so the row stays visible."""
        self.search.clear()
        row = row or anchor
        x = anchor.mapToGlobal(QPoint(0, 0)).x()
        y = row.mapToGlobal(QPoint(0, row.height())).y()
        self.move(x, y)
        self.show()
        self.search.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        """Keyboard: Down from the search goes to the list, Enter in the search picks a single match,
        Space or Enter in the list toggles the current entry."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self.search and key == Qt.Key.Key_Down:
                first = next((item for k in self.visible_keys() if (item := self.item_for(k)) is not None), None)
                if first is not None:
                    self.tree.setFocus()
                    self.tree.setCurrentItem(first)
                return first is not None
            if watched is self.search and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                visible = self.visible_keys()
                if len(visible) == 1:
                    self.clicked.emit(self._choices[visible[0]])
                return True
            if watched is self.tree and key in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                item = self.tree.currentItem()
                if item is not None:
                    self._on_tree_item_clicked(item, 0)
                return True
        return super().eventFilter(watched, event)

    def _on_tree_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        key = item.data(0, KEY_ROLE)
        if key in self._choices:
            self.clicked.emit(self._choices[key])

    def _on_tree_context_menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        key = item.data(0, KEY_ROLE) if item is not None else None
        if not key or not str(key).startswith(USER_PREFIX):
            return
        menu = QMenu(self)
        delete = menu.addAction(self.tr("Delete this preset"))
        if menu.exec(self.tree.viewport().mapToGlobal(pos)) is delete:
            self.delete_requested.emit(str(key)[len(USER_PREFIX):])


def builtin_choice(preset: InstructPreset, source_title: str) -> Choice:
    """The picker entry of a built-in preset (label translated, meaning and source as tooltip)."""
    return Choice(builtin_key(preset), preset.category, preset_label(preset.label), preset.text,
                  f"{preset.gloss}\n{source_title}")


def user_choice(preset: UserPreset) -> Choice:
    return Choice(user_key(preset), "custom", preset.name, preset.text, preset.text)
