"""The cast of a dialogue script: one row per speaker, with a saved voice and a default instruction.

Rows appear as speakers are typed in the script (:meth:`CastTable.set_speakers`); a row whose
speaker is no longer in the script stays, greyed, while it holds a choice (nothing chosen is lost
by a typo in a name) and can be removed from its context menu. The voice list offers the saved
voices; a voice made for the other model family is flagged (the script check underlines its lines),
and a voice that has disappeared from the library stays chosen, marked missing. The default
instruction is free text or a preset id of the loaded family (``emotion.happy``), used for the
speaker's lines that have no instruction of their own.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cosycore.config import FAMILY_TITLES
from cosycore.presets import load_instruct_presets
from cosycore.studio.script import speaker_key
from cosycore.studio.script_take import CastEntry
from cosycore.voices import VoiceInfo

NAME_COLUMN, VOICE_COLUMN, INSTRUCTION_COLUMN = range(3)


class CastTable(QWidget):
    """Speaker → voice and default instruction. Owned by the main window's script panel; GUI thread only."""

    changed = Signal()  # a voice or an instruction was chosen, or a row added or removed
    remake_requested = Signal(list)  # names of cast voices made for the other family: make them for this one

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._family = ""
        self._voices: list[VoiceInfo] = []
        self._in_script: set[str] = set()  # speaker keys of the script's speakers
        self._filling = False  # rows are being (re)built: no `changed`
        self.table = QTableWidget(0, 3, self)
        self.table.setObjectName("castTable")
        self.table.setHorizontalHeaderLabels([self.tr("Speaker"), self.tr("Voice"), self.tr("Default instruction")])
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(NAME_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(VOICE_COLUMN, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(INSTRUCTION_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(VOICE_COLUMN, 200)
        self.table.setToolTip(self.tr("Who speaks each name of the script: a saved voice and, optionally, an "
                                      "instruction for the lines that have none of their own"))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_table_context_menu)
        self.placeholder = QLabel(self.tr("Speakers appear here as you write lines like “Anna: Hello.”"), self)
        self.placeholder.setObjectName("castPlaceholder")
        self.placeholder.setStyleSheet("color: #808080;")
        self.status = QLabel(self)
        self.status.setObjectName("scriptStatus")
        self.status.setWordWrap(True)
        self.status.setToolTip(self.tr("The script checked against the cast and the loaded model; problems are "
                                       "underlined in red in the text (hover them for what to do)"))
        self.remake_button = QPushButton(self)
        self.remake_button.setObjectName("remakeVoicesButton")
        self.remake_button.setToolTip(self.tr("Make the cast's voices again from their recordings for the loaded "
                                              "model (each is saved; it takes a few seconds per voice)"))
        self.remake_button.clicked.connect(lambda: self.remake_requested.emit(self.other_family_voices()))
        self.remake_button.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.status)
        layout.addWidget(self.remake_button)
        self.changed.connect(self._update_remake)
        self._update_placeholder()

    # -- values --------------------------------------------------------------------------------
    def names(self) -> list[str]:
        return [self._name(r) for r in range(self.table.rowCount())]

    def entries(self) -> list[CastEntry]:
        return [CastEntry(self._name(r), self._voice_combo(r).currentData() or "",
                          self._instruction_combo(r).currentText().strip())
                for r in range(self.table.rowCount())]

    def entry(self, name: str) -> CastEntry | None:
        row = self._row(name)
        return None if row is None else self.entries()[row]

    def set_entries(self, entries: list[CastEntry]) -> None:
        """Replace every row (the cast restored with the session)."""
        self._filling = True
        try:
            self.table.setRowCount(0)
            seen: set[str] = set()
            for e in entries:
                if speaker_key(e.name) not in seen:
                    seen.add(speaker_key(e.name))
                    self._add_row(e)
        finally:
            self._filling = False
        self._update_rows()
        self.changed.emit()

    def set_voice(self, name: str, voice: str) -> None:
        """Cast ``voice`` (a saved voice's name, "" for none) for the speaker ``name``."""
        row = self._row(name)
        if row is None:
            raise KeyError(name)
        combo = self._voice_combo(row)
        index = combo.findData(voice)
        if index < 0:
            self._add_missing(combo, voice)
            index = combo.findData(voice)
        combo.setCurrentIndex(index)

    def set_instruction(self, name: str, instruction: str) -> None:
        row = self._row(name)
        if row is None:
            raise KeyError(name)
        self._instruction_combo(row).setCurrentText(instruction)

    def set_status(self, text: str, *, problem: bool = False) -> None:
        """The line under the table: a summary of the script, or how many problems it has."""
        self.status.setText(text)
        self.status.setStyleSheet("color: #c0392b;" if problem else "color: #505050;")

    def in_script(self, name: str) -> bool:
        return speaker_key(name) in self._in_script

    # -- what is offered -----------------------------------------------------------------------
    def set_family(self, family: str) -> None:
        """The loaded model's family: its presets are offered, voices of the other family flagged."""
        self._family = family
        self._rebuild_combos()

    def set_voices(self, voices: list[VoiceInfo]) -> None:
        """The saved voices to offer (the library's list); rebuilt only when it changed."""
        if [(v.name, v.family) for v in voices] == [(v.name, v.family) for v in self._voices]:
            return
        self._voices = list(voices)
        self._rebuild_combos()

    def set_speakers(self, names: list[str]) -> None:
        """The speakers of the script, in order: new ones get a row (with the saved voice of the same
        name, if there is one); rows of speakers gone from the script are removed unless they hold a choice."""
        self._in_script = {speaker_key(n) for n in names}
        added = False
        self._filling = True
        try:
            for name in names:
                if self._row(name) is None:
                    same = next((v.name for v in self._voices if v.name.casefold() == name.casefold()), "")
                    self._add_row(CastEntry(name, same))
                    added = True
            removed = False
            for row in reversed(range(self.table.rowCount())):
                entry = self.entries()[row]
                if speaker_key(entry.name) not in self._in_script and not entry.voice and not entry.instruction:
                    self.table.removeRow(row)
                    removed = True
            self._order(names)
        finally:
            self._filling = False
        self._update_rows()
        if added or removed:
            self.changed.emit()

    # -- rows ----------------------------------------------------------------------------------
    def _name(self, row: int) -> str:
        item = self.table.item(row, NAME_COLUMN)
        return item.text() if item is not None else ""

    def _row(self, name: str) -> int | None:
        key = speaker_key(name)
        return next((r for r in range(self.table.rowCount()) if speaker_key(self._name(r)) == key), None)

    def _voice_combo(self, row: int) -> QComboBox:
        return self.table.cellWidget(row, VOICE_COLUMN)  # type: ignore[return-value]

    def _instruction_combo(self, row: int) -> QComboBox:
        return self.table.cellWidget(row, INSTRUCTION_COLUMN)  # type: ignore[return-value]

    def _add_row(self, entry: CastEntry, row: int | None = None) -> None:
        row = self.table.rowCount() if row is None else row
        self.table.insertRow(row)
        item = QTableWidgetItem(entry.name)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        self.table.setItem(row, NAME_COLUMN, item)
        voice = QComboBox(self.table)
        voice.setObjectName("castVoice")
        self._fill_voices(voice, entry.voice)
        voice.currentIndexChanged.connect(self._on_combo_changed)
        self.table.setCellWidget(row, VOICE_COLUMN, voice)
        instruction = QComboBox(self.table)
        instruction.setObjectName("castInstruction")
        instruction.setEditable(True)
        instruction.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        line_edit = instruction.lineEdit()
        if line_edit is not None:  # an editable combo box always has one
            line_edit.setPlaceholderText(self.tr("none (or a preset, or your own words)"))
        self._fill_presets(instruction, entry.instruction)
        instruction.currentTextChanged.connect(self._on_combo_changed)
        self.table.setCellWidget(row, INSTRUCTION_COLUMN, instruction)

    def _order(self, names: list[str]) -> None:
        """Rows in the script's order, rows no longer in the script after them."""
        wanted = [speaker_key(n) for n in names]
        entries = self.entries()
        keys = [speaker_key(e.name) for e in entries]
        rank = {k: i for i, k in enumerate(wanted)}
        ranked = sorted(range(len(entries)), key=lambda r: (rank.get(keys[r], len(wanted)), r))
        if ranked == list(range(len(entries))):
            return
        self.table.setRowCount(0)
        for r in ranked:
            self._add_row(entries[r])

    def _update_rows(self) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, NAME_COLUMN)
            if item is None:
                continue
            present = speaker_key(item.text()) in self._in_script
            item.setForeground(QBrush(QColor("#000000" if present else "#909090")))
            item.setToolTip("" if present else self.tr("Not in the script any more; right-click to remove"))
        self._update_placeholder()

    def _update_placeholder(self) -> None:
        self.placeholder.setVisible(self.table.rowCount() == 0)

    def _fill_voices(self, combo: QComboBox, chosen: str) -> None:
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(self.tr("— choose a voice —"), "")
        for info in self._voices:
            if self._family and info.family != self._family:
                combo.addItem("⚠ " + info.name, info.name)
                combo.setItemData(combo.count() - 1, self.tr(
                    "Made for {0}; the loaded model is {1}. Re-make it for this model with the button under the "
                    "cast, or load the other model.").format(FAMILY_TITLES.get(info.family, info.family),
                                           FAMILY_TITLES.get(self._family, self._family)),
                    Qt.ItemDataRole.ToolTipRole)
            else:
                combo.addItem(info.name, info.name)
        index = combo.findData(chosen)
        if chosen and index < 0:
            self._add_missing(combo, chosen)
            index = combo.findData(chosen)
        combo.setCurrentIndex(max(0, index))
        combo.setToolTip(combo.itemData(combo.currentIndex(), Qt.ItemDataRole.ToolTipRole) or "")
        combo.blockSignals(False)

    def _add_missing(self, combo: QComboBox, voice: str) -> None:
        combo.addItem(self.tr("{0} (missing)").format(voice), voice)
        combo.setItemData(combo.count() - 1, self.tr("There is no saved voice called “{0}” any more; choose "
                                                     "another or make it again.").format(voice),
                          Qt.ItemDataRole.ToolTipRole)

    def _fill_presets(self, combo: QComboBox, text: str) -> None:
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("")
        for preset in load_instruct_presets(self._family) if self._family else []:
            combo.addItem(preset.id)
            combo.setItemData(combo.count() - 1, preset.text, Qt.ItemDataRole.ToolTipRole)
        combo.setCurrentText(text)
        combo.blockSignals(False)

    def _rebuild_combos(self) -> None:
        for entry, row in zip(self.entries(), range(self.table.rowCount())):
            self._fill_voices(self._voice_combo(row), entry.voice)
            self._fill_presets(self._instruction_combo(row), entry.instruction)
        self._update_remake()

    def other_family_voices(self) -> list[str]:
        """The cast's voices (each once) made for another family than the loaded one."""
        families = {v.name: v.family for v in self._voices}
        chosen = dict.fromkeys(e.voice for e in self.entries() if e.voice)
        return [name for name in chosen if self._family and families.get(name, self._family) != self._family]

    def _update_remake(self) -> None:
        names = self.other_family_voices()
        self.remake_button.setText(self.tr("Re-make %n voice(s) for the loaded model", "", len(names)))
        self.remake_button.setVisible(bool(names))

    def _on_combo_changed(self) -> None:
        for row in range(self.table.rowCount()):
            combo = self._voice_combo(row)
            combo.setToolTip(combo.itemData(combo.currentIndex(), Qt.ItemDataRole.ToolTipRole) or "")
        if not self._filling:
            self._update_rows()
            self.changed.emit()

    def _on_table_context_menu(self, pos: QPoint) -> None:
        row = self.table.rowAt(pos.y())
        if row < 0:
            return
        name = self._name(row)
        menu = QMenu(self)
        remove = menu.addAction(self.tr("Remove “{0}” from the cast").format(name))
        remove.setEnabled(not self.in_script(name))
        remove.triggered.connect(lambda: self.remove(name))
        menu.popup(self.table.viewport().mapToGlobal(pos))

    def remove(self, name: str) -> bool:
        """Remove the row of a speaker who is no longer in the script."""
        row = self._row(name)
        if row is None or self.in_script(name):
            return False
        self.table.removeRow(row)
        self._update_placeholder()
        self.changed.emit()
        return True
