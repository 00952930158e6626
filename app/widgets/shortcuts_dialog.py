"""Help › Keyboard shortcuts: every menu command with keys, and the keys that have no menu command."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


def menu_shortcuts(bar: QMenuBar) -> list[tuple[str, str]]:
    """(keys, command) of every menu action with keys, in menu order ("File › Open…")."""
    rows: list[tuple[str, str]] = []

    def walk(actions: list[QAction], path: str) -> None:
        for action in actions:
            text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
            menu = action.menu()
            if isinstance(menu, QMenu):
                walk(menu.actions(), f"{path}{text} › ")
            elif not action.shortcut().isEmpty():
                keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())
                rows.append((keys, path + text))

    walk(bar.actions(), "")
    return rows


class ShortcutsDialog(QDialog):
    """A two-column table: keys and what they do (the keys of no menu command first, then the menus')."""

    def __init__(self, bar: QMenuBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        rows = self.other_shortcuts() + menu_shortcuts(bar)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.table = QTableWidget(len(rows), 2, self)
        self.table.setHorizontalHeaderLabels([self.tr("Keys"), self.tr("Does")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for i, (keys, does) in enumerate(rows):
            self.table.setItem(i, 0, QTableWidgetItem(keys))
            self.table.setItem(i, 1, QTableWidgetItem(does))
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 520)

    def other_shortcuts(self) -> list[tuple[str, str]]:
        return [
            ("Ctrl+Enter", self.tr("Speak")),
            ("Esc", self.tr("Stop making and playing")),
            (self.tr("Space"), self.tr("Play or pause the shown take (in the Takes list or the waveform)")),
            (self.tr("Left, Right"), self.tr("Seek 5 s back or on (in the Takes list or the waveform)")),
            (self.tr("Enter"), self.tr("Play the selected take (Takes list)")),
            ("F2", self.tr("Rename the selected take (Takes list)")),
            (self.tr("Delete"), self.tr("Move the selected takes to the trash (Takes list)")),
            ("Ctrl+Z", self.tr("Undo the last removal or regeneration (Takes list); the shown take's previous "
                               "version (waveform)")),
            ("Tab, Shift+Tab", self.tr("Next or previous field, in the order of the layout")),
        ]
