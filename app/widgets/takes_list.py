"""The saved takes: select one to see it, play it, compare two (A/B), export, rename or remove them."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.studio.take import Take, TakeState

from ..takes.take import TakeList


class TakesList(QWidget):
    """A view of a :class:`TakeList`. Owned by the main window, which acts on its requests."""

    take_activated = Signal(object)  # Take to show
    play_requested = Signal(object)  # Take
    export_requested = Signal(object)  # Take
    compare_requested = Signal(object, object)  # Take now playing (A), Take to switch to (B)
    remove_requested = Signal(list)  # Takes to remove (the main window offers Undo)
    rename_requested = Signal(object)  # Take
    clear_requested = Signal()  # remove every take (after asking)
    undo_requested = Signal()  # put back the last removed takes
    stop_requested = Signal()  # stop the take that is playing

    def __init__(self, takes: TakeList, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.takes = takes
        title = QLabel(self.tr("Takes"), self)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.list = QListWidget(self)
        self.list.setObjectName("takesList")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setToolTip(self.tr("Saved takes; select two (Ctrl+click) to compare them. F2 renames, Delete "
                                     "removes, Ctrl+Z puts removed takes back"))
        # Every row two lines high, never wrapped: rows line up, so the selected take is the one seen.
        self.list.setWordWrap(False)
        self.list.setUniformItemSizes(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # elide instead of scrolling
        self.list.currentItemChanged.connect(self._on_list_current_changed)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.list.itemActivated.connect(lambda item: self.play_requested.emit(self._take(item)))

        self.play_button = QPushButton(self.tr("Play"), self)
        self.play_button.setToolTip(self.tr("Play the selected take from the start (Enter)"))
        self.play_button.clicked.connect(self._on_play_clicked)
        self.compare_button = QPushButton(self.tr("A/B"), self)
        self.compare_button.setToolTip(self.tr("Switch playback between the two selected takes at the same moment"))
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.export_button.setToolTip(self.tr("Save the selected take as WAV, FLAC or SRT subtitles (Ctrl+E)"))
        self.export_button.clicked.connect(self._on_export_clicked)
        self.rename_button = QPushButton(self.tr("Rename…"), self)
        self.rename_button.setToolTip(self.tr("Give the selected take a name (F2); exports are named after it"))
        self.rename_button.clicked.connect(self._on_rename_clicked)
        self.remove_button = QPushButton(self.tr("Remove"), self)
        self.remove_button.setToolTip(self.tr("Move the selected takes to the trash (Delete); Ctrl+Z puts them back"))
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.clear_button = QPushButton(self.tr("Clear…"), self)
        self.clear_button.setToolTip(self.tr("Remove every take (to the trash); Undo puts them back"))
        self.clear_button.clicked.connect(self.clear_requested)
        for keys, slot in (("F2", self._on_rename_clicked), (QKeySequence.StandardKey.Delete, self._on_remove_clicked),
                           (QKeySequence.StandardKey.Undo, self.undo_requested)):
            shortcut = QShortcut(QKeySequence(keys), self.list)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

        buttons = QGridLayout()
        for i, b in enumerate((self.play_button, self.compare_button, self.export_button, self.rename_button,
                               self.remove_button, self.clear_button)):
            buttons.addWidget(b, i // 2, i % 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

        self._b_side: Take | None = None  # which of the two compared takes plays now
        self._playing: Take | None = None  # the take being heard (its Play button says Stop)
        takes.take_added.connect(self._on_takes_take_added)
        takes.take_changed.connect(self._on_takes_take_changed)
        takes.take_removed.connect(self._on_takes_take_removed)
        for take in takes:
            self._on_takes_take_added(take)
        self._update_buttons()

    # -- items -----------------------------------------------------------------------------
    @staticmethod
    def _take(item: QListWidgetItem) -> Take:
        return item.data(Qt.ItemDataRole.UserRole)

    def _item(self, take: Take) -> QListWidgetItem | None:
        for i in range(self.list.count()):
            if self._take(self.list.item(i)) is take:
                return self.list.item(i)
        return None

    def mode_name(self, mode: str) -> str:
        modes = {"zero_shot": self.tr("Clone"), "cross_lingual": self.tr("Cross-lingual"),
                 "instruct": self.tr("Instruct"), "script": self.tr("Script"), "convert": self.tr("Convert")}
        return modes.get(mode, mode)

    def label(self, take: Take) -> str:
        """Two lines: number and name (or text); length, mode, voice and state."""
        states = {TakeState.STREAMING: self.tr("making…"), TakeState.CANCELLED: self.tr("stopped"),
                  TakeState.FAILED: self.tr("failed"), TakeState.DONE: ""}
        flags = [s for s in (states[take.state], self.tr("recovered") if take.recovered else "",
                             self.tr("partial export") if take.exported_partial else "") if s]
        parts = [self.tr("{0:.1f} s").format(take.duration), self.mode_name(take.mode)]
        if take.mode == "convert":  # source → target
            parts.append(self.tr("{0} → {1}").format(take.text, take.voice_name or "—"))
        elif take.voice_name:
            parts.append(take.voice_name)
        if take.instruction:
            short = " ".join(take.instruction.split())
            parts.append(short if len(short) <= 32 else short[:31] + "…")
        parts.extend(flags)
        return self.tr("Take {0} · {1}").format(take.number, take.title()) + "\n" + " · ".join(parts)

    def tooltip(self, take: Take) -> str:
        """The whole text, the voice and instruction the take was made with, and how it was made."""
        if take.mode == "convert":
            lines = [self.tr("Source: {0}").format(take.text),
                     self.tr("Target voice: {0}").format(take.voice_name or "—")]
        else:
            lines = [take.text, self.tr("Voice: {0}").format(take.voice_name or "—")]
        if take.instruction:
            lines.append(self.tr("Instruction: {0}").format(take.instruction))
        details = [self.mode_name(take.mode)]
        if take.model:
            details.append(take.model)
        if take.quality:
            details.append(take.quality)
        if take.seed is not None:
            details.append(self.tr("seed {0}").format(take.seed))
        if take.speed != 1.0:
            details.append(self.tr("speed {0:g}x").format(take.speed))
        lines.append(" · ".join(details))
        if take.error:
            lines.append(take.error)
        return "\n".join(lines)

    def _on_takes_take_added(self, take: Take) -> None:
        item = QListWidgetItem(self.label(take))
        item.setData(Qt.ItemDataRole.UserRole, take)
        item.setToolTip(self.tooltip(take))
        self.list.insertItem(self.takes.index(take), item)
        self._update_buttons()

    def _on_takes_take_changed(self, take: Take) -> None:
        item = self._item(take)
        if item is not None:
            item.setText(self.label(take))
            item.setToolTip(self.tooltip(take))
        self._update_buttons()  # a take that finished can be removed

    def _on_takes_take_removed(self, take: Take) -> None:
        item = self._item(take)
        if item is not None:
            self.list.takeItem(self.list.row(item))
        self._update_buttons()

    def select(self, take: Take) -> None:
        item = self._item(take)
        if item is not None and self.list.currentItem() is not item:
            # Keep a multi-selection (A/B) intact when the current take changes within it.
            flag = (QItemSelectionModel.SelectionFlag.NoUpdate if item.isSelected()
                    else QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.list.blockSignals(True)
            self.list.setCurrentItem(item, flag)
            self.list.blockSignals(False)
            self._update_buttons()

    def selected(self) -> list[Take]:
        return [self._take(i) for i in sorted(self.list.selectedItems(), key=self.list.row)]

    # -- buttons ---------------------------------------------------------------------------
    def _update_buttons(self) -> None:
        chosen = self.selected()
        one = len(chosen) >= 1
        self.play_button.setEnabled(one)
        self.export_button.setEnabled(len(chosen) == 1)
        self.rename_button.setEnabled(len(chosen) == 1)
        self.remove_button.setEnabled(one and all(t.state is not TakeState.STREAMING for t in chosen))
        self.clear_button.setEnabled(len(self.takes) > 0)
        self._update_play_button()
        self.compare_button.setEnabled(len(chosen) == 2)

    def _on_list_current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is not None:
            self.take_activated.emit(self._take(current))

    def set_playing(self, take: Take | None) -> None:
        """The take now heard (None: silence); while the selected take plays, Play turns into Stop."""
        self._playing = take
        self._update_play_button()

    def _shows_stop(self) -> bool:
        chosen = self.selected()
        return self._playing is not None and bool(chosen) and chosen[0] is self._playing

    def _update_play_button(self) -> None:
        if self._shows_stop():
            self.play_button.setText(self.tr("Stop"))
            self.play_button.setToolTip(self.tr("Stop playing this take (Esc)"))
        else:
            self.play_button.setText(self.tr("Play"))
            self.play_button.setToolTip(self.tr("Play the selected take from the start (Enter)"))

    def _on_play_clicked(self) -> None:
        if self._shows_stop():
            self.stop_requested.emit()
            return
        chosen = self.selected()
        if chosen:
            self.play_requested.emit(chosen[0])

    def _on_compare_clicked(self) -> None:
        chosen = self.selected()
        if len(chosen) != 2:
            return
        a, b = chosen
        # Each press switches to the other take of the pair.
        if self._b_side is b:
            self._b_side = a
            self.compare_requested.emit(b, a)
        else:
            self._b_side = b
            self.compare_requested.emit(a, b)

    def _on_export_clicked(self) -> None:
        chosen = self.selected()
        if len(chosen) == 1:
            self.export_requested.emit(chosen[0])

    def _on_rename_clicked(self) -> None:
        chosen = self.selected()
        if len(chosen) == 1:
            self.rename_requested.emit(chosen[0])

    def _on_remove_clicked(self) -> None:
        chosen = [t for t in self.selected() if t.state is not TakeState.STREAMING]
        if chosen:
            self.remove_requested.emit(chosen)
