"""The voice library: saved voices on disk, the chosen voice, its transcript and its waveform.

Voices are ``.cosyvoice`` files in the app's data folder, managed by :class:`cosycore.voices.VoiceLibrary`.
Making a voice from a recording needs the model (speech tokenizer and speaker encoder), so the panel
asks for it through :attr:`VoicePanel.record_requested` / :attr:`VoicePanel.file_requested` and the
main window hands the result back with :meth:`VoicePanel.add_voice`. A voice without a transcript
gets a **Transcribe** button (:class:`~app.widgets.transcribe_row.TranscribeRow`) once the main
window has given the panel its :class:`~app.worker.transcriber.Transcriber`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.errors import CosyError
from cosycore.voices import VOICE_SUFFIX, Voice, VoiceInfo, VoiceLibrary, load_voice, save_voice

from .transcribe_row import TranscribeRow
from .waveform import WaveformView

if TYPE_CHECKING:
    from ..worker.transcriber import Transcriber

logger = logging.getLogger(__name__)

FAMILY_SHORT = {"cosyvoice2": "CV2", "cosyvoice3": "CV3"}
LANGUAGES = ("", "zh", "en", "ja", "ko", "yue", "de", "es", "fr", "it", "ru")  # offered; any code may be typed


def guess_language(text: str) -> str:
    """A language code for a transcript by its script (kana: ja, hangul: ko, CJK: zh, Latin letters: en); ""
    when the text says nothing."""
    if any("\u3040" <= c <= "\u30ff" for c in text):
        return "ja"
    if any("\uac00" <= c <= "\ud7af" for c in text):
        return "ko"
    if any("\u4e00" <= c <= "\u9fff" for c in text):
        return "zh"
    return "en" if any("a" <= c.lower() <= "z" for c in text) else ""


class VoiceEditor(QDialog):
    """Edit a saved voice's transcript, language and notes (a missing transcript can be transcribed)."""

    def __init__(self, voice: Voice, parent: QWidget | None = None, transcriber: Transcriber | None = None) -> None:
        super().__init__(parent)
        self._recognised = ""  # the words speech recognition gave, to tell them from typed ones on Save
        self.setWindowTitle(self.tr("Edit voice “{0}”").format(voice.name))
        self.transcript_edit = QPlainTextEdit(voice.transcript, self)
        self.transcript_edit.setObjectName("voiceTranscriptEdit")
        self.transcript_edit.setToolTip(self.tr("Exactly what is said in the voice's recording (Clone mode reads "
                                                "it with the recording)"))
        self.transcript_edit.setTabChangesFocus(True)
        self.language_combo = QComboBox(self)
        self.language_combo.setEditable(True)
        self.language_combo.addItems(LANGUAGES)
        # A voice saved without a language shows the one its transcript is written in (saved with Save).
        self.language_combo.setCurrentText(voice.language or guess_language(voice.transcript))
        line = self.language_combo.lineEdit()
        if line is not None:
            line.setPlaceholderText(self.tr("not known yet, e.g. en, zh"))
        self.language_combo.setToolTip(self.tr("The language spoken in the recording, e.g. zh, en, ja"))
        self.tags_edit = QLineEdit(", ".join(voice.tags), self)
        self.tags_edit.setObjectName("voiceTagsEdit")
        self.tags_edit.setPlaceholderText(self.tr("e.g. calm, narrator, female"))
        self.tags_edit.setToolTip(self.tr("Words to find the voice by in the library's search, separated by commas"))
        self.notes_edit = QPlainTextEdit(voice.notes, self)
        self.notes_edit.setObjectName("voiceNotesEdit")
        self.notes_edit.setToolTip(self.tr("Anything worth remembering about this voice"))
        self.notes_edit.setTabChangesFocus(True)
        self.transcribe_row = TranscribeRow(self)
        self.transcribe_row.attach(transcriber)
        self.transcribe_row.set_source(lambda: (voice.audio_24k, int(voice.sample_rate), voice.name))
        self.transcribe_row.transcribed.connect(self._on_transcribe_row_transcribed)
        self.transcribe_row.setVisible(transcriber is not None and not voice.transcript)
        self.models_requested = self.transcribe_row.models_requested
        form = QFormLayout()
        form.addRow(self.tr("Transcript:"), self.transcript_edit)
        form.addRow("", self.transcribe_row)
        form.addRow(self.tr("Language:"), self.language_combo)
        form.addRow(self.tr("Tags:"), self.tags_edit)
        form.addRow(self.tr("Notes:"), self.notes_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(460, 320)

    def _on_transcribe_row_transcribed(self, text: str, language: str, _tag: object) -> None:
        if self.transcript_edit.toPlainText().strip():
            return  # words typed meanwhile are the user's: never replaced
        self._recognised = text
        self.transcript_edit.setPlainText(text)
        if language and not self.language_combo.currentText().strip():
            self.language_combo.setCurrentText(language)

    def values(self) -> dict[str, str]:
        transcript = " ".join(self.transcript_edit.toPlainText().split())
        values = {"transcript": transcript, "language": self.language_combo.currentText().strip(),
                  "notes": self.notes_edit.toPlainText().strip(), "tags": self.tags_edit.text()}
        if transcript and transcript == self._recognised:
            values["transcript_source"] = "asr"
        return values


class VoicePanel(QWidget):
    """Lists the saved voices and holds the current one. Owned by the main window; GUI thread only."""

    voice_changed = Signal(object)  # Voice or None
    record_requested = Signal()  # open the recorder
    file_requested = Signal()  # make a voice from an audio file
    play_requested = Signal(object, int)  # samples, sample rate: audition the current voice
    presets_imported = Signal(list)  # [(name, text)]: user instruct presets that came with imported voices
    message = Signal(str)  # a note for the status bar
    asr_models_requested = Signal()  # Transcribe needs the speech-recognition model: open Models… on it
    lexicon_requested = Signal()  # edit the current voice's own pronunciation dictionary

    def __init__(self, library: VoiceLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The user's instruct presets as (name, text) pairs, written into every exported voice file.
        self.presets_for_export: Callable[[], list[tuple[str, str]]] = list
        self.library = library
        self._voice: Voice | None = None
        self._family = ""
        self._transcriber: Transcriber | None = None
        self._transcript_visible = True

        title = QLabel(self.tr("Voices"), self)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.list = QListWidget(self)
        self.list.setObjectName("voiceList")
        self.list.setToolTip(self.tr("Saved voices; the selected one speaks the text"))
        self.list.currentItemChanged.connect(self._on_list_current_changed)
        self.search_edit = QLineEdit(self)
        self.search_edit.setObjectName("voiceSearch")
        self.search_edit.setPlaceholderText(self.tr("Search voices and tags…"))
        self.search_edit.setToolTip(self.tr("Shows the voices whose name, tags, language, transcript or notes "
                                            "hold every word typed"))
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.textChanged.connect(self._apply_search)
        self.legend = QLabel(self.tr("Olive: made for the other model family; re-made from its recording when used."),
                             self)
        self.legend.setObjectName("voiceLegend")
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet("color: #808000;")  # Qt.darkYellow, the colour of those voices
        self.legend.hide()

        self.record_button = QPushButton(self.tr("Record…"), self)
        self.record_button.setToolTip(self.tr("Record a new voice with the microphone (3-30 s)"))
        self.record_button.clicked.connect(self.record_requested)
        self.file_button = QPushButton(self.tr("From file…"), self)
        self.file_button.setToolTip(self.tr("Make a new voice from an audio file"))
        self.file_button.clicked.connect(self.file_requested)
        self.import_button = QPushButton(self.tr("Import…"), self)
        self.import_button.setToolTip(self.tr("Add a saved voice (.cosyvoice file) to the library"))
        self.import_button.clicked.connect(self._on_import_clicked)
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.export_button.setToolTip(self.tr("Save the selected voice as a .cosyvoice file to share"))
        self.export_button.clicked.connect(self._on_export_clicked)
        self.rename_button = QPushButton(self.tr("Rename…"), self)
        self.rename_button.setToolTip(self.tr("Give the selected voice another name"))
        self.rename_button.clicked.connect(self._on_rename_clicked)
        self.delete_button = QPushButton(self.tr("Delete"), self)
        self.delete_button.setToolTip(self.tr("Delete the selected voice from the library"))
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self.edit_button = QPushButton(self.tr("Edit…"), self)
        self.edit_button.setToolTip(self.tr("Edit the selected voice's transcript, language and notes"))
        self.edit_button.clicked.connect(self._on_edit_clicked)
        self.lexicon_button = QPushButton(self.tr("Dictionary…"), self)
        self.lexicon_button.setToolTip(self.tr("The selected voice's own pronunciation dictionary (saved in the "
                                               "voice file; it goes with the voice when exported)"))
        self.lexicon_button.clicked.connect(self.lexicon_requested)

        self.transcript_label = QLabel(self.tr("Transcript:"), self)
        self.transcript_edit = QLineEdit(self)
        self.transcript_edit.setObjectName("transcriptEdit")
        self.transcript_edit.setPlaceholderText(self.tr("Exactly what is said in the voice's recording"))
        self.transcript_edit.setToolTip(self.tr("Clone mode reads the recording together with its transcript; "
                                                "it must match what is said. Saved into the voice when you "
                                                "leave the field"))
        self.transcript_edit.editingFinished.connect(self.commit_transcript)
        self.transcript_label.setBuddy(self.transcript_edit)
        self.transcribe_row = TranscribeRow(self)
        self.transcribe_row.set_source(self._voice_clip)
        self.transcribe_row.transcribed.connect(self._on_transcribe_row_transcribed)
        self.transcribe_row.models_requested.connect(self.asr_models_requested)
        self.transcribe_row.hide()
        self.info_label = QLabel(self)
        self.info_label.setObjectName("voiceInfo")
        self.info_label.setWordWrap(True)
        self.waveform = WaveformView(self, show_axis=False)
        self.waveform.setObjectName("voiceWaveform")
        self.waveform.setToolTip(self.tr("The selected voice's recording"))
        self.waveform.setFixedHeight(70)
        self.play_button = QPushButton(self.tr("Listen"), self)
        self.play_button.setToolTip(self.tr("Play the selected voice's recording"))
        self.play_button.clicked.connect(self._on_play_clicked)

        make_row = QHBoxLayout()
        make_row.addWidget(self.record_button)
        make_row.addWidget(self.file_button)
        manage_row = QGridLayout()
        for i, b in enumerate((self.edit_button, self.rename_button, self.delete_button, self.import_button,
                               self.export_button, self.lexicon_button)):
            manage_row.addWidget(b, i // 3, i % 3)
        listen_row = QHBoxLayout()
        listen_row.addWidget(self.info_label, 1)
        listen_row.addWidget(self.play_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.search_edit)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.legend)
        layout.addLayout(make_row)
        layout.addLayout(manage_row)
        layout.addWidget(self.waveform)
        layout.addLayout(listen_row)
        layout.addWidget(self.transcript_label)
        layout.addWidget(self.transcript_edit)
        layout.addWidget(self.transcribe_row)
        self.reload()

    # -- state -----------------------------------------------------------------------------
    @property
    def voice(self) -> Voice | None:
        return self._voice

    @property
    def transcript(self) -> str:
        return self.transcript_edit.text().strip()

    def set_family(self, family: str) -> None:
        """Mark voices made for another model family than the loaded one."""
        self._family = family
        self.reload(select=self._voice.name if self._voice else None)

    def set_transcript_visible(self, visible: bool) -> None:
        self._transcript_visible = visible
        self.transcript_label.setVisible(visible)
        self.transcript_edit.setVisible(visible)
        self._update_transcribe_row()

    def set_transcriber(self, transcriber: Transcriber | None) -> None:
        """Offer Transcribe for voices without a transcript, with ``transcriber`` (None: never)."""
        self._transcriber = transcriber
        self.transcribe_row.attach(transcriber)
        self._update_transcribe_row()

    def _update_transcribe_row(self) -> None:
        voice = self._voice
        wanted = (self._transcriber is not None and self._transcript_visible and voice is not None
                  and not voice.transcript)
        self.transcribe_row.setVisible(wanted or self.transcribe_row.busy)

    def _voice_clip(self) -> tuple[Any, int, str] | None:
        voice = self._voice
        return None if voice is None else (voice.audio_24k, int(voice.sample_rate), voice.name)

    def _on_transcribe_row_transcribed(self, text: str, language: str, name: str) -> None:
        """Save the words into the voice they were recognised from (it may no longer be the current one)."""
        try:
            voice = self.library.get(name)
            if voice.transcript:  # typed while the recording was being transcribed: the user's words stay
                self.message.emit(self.tr("Kept the transcript of “{0}” that was typed meanwhile.").format(name))
                return
            info = self.library.update(name, transcript=text, transcript_source="asr",
                                       language=None if voice.language else language)
        except CosyError as e:
            self._error(self.tr("Cannot save the voice"), e)
            return
        current = self._voice.name if self._voice is not None else info.name
        self.reload(select=current)
        self.message.emit(self.tr("Saved the transcript of “{0}”; correct it in the field if a word is wrong.")
                          .format(info.name))

    def _selected_info(self) -> VoiceInfo | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def reload(self, select: str | None = None) -> None:
        """Re-read the library folder; keep (or make) ``select`` the current voice."""
        scan = self.library.scan()
        infos = list(scan.voices)
        self.list.blockSignals(True)
        self.list.clear()
        for info in infos:
            tag = FAMILY_SHORT.get(info.family, info.family)
            item = QListWidgetItem(self.tr("{0}  ({1:.1f} s, {2})").format(info.name, info.duration, tag))
            item.setData(Qt.ItemDataRole.UserRole, info)
            tip = info.transcript or self.tr("(no transcript: Clone mode needs one; Edit… adds it)")
            if info.tags:
                tip += "\n" + self.tr("Tags: {0}").format(", ".join(info.tags))
            if self._family and info.family != self._family:
                item.setForeground(Qt.GlobalColor.darkYellow)
                tip += "\n" + self.tr("Made for another model; it is re-made from its recording when used.")
            item.setToolTip(tip)
            self.list.addItem(item)
        for bad in scan.broken:  # shown, not selectable; the reason is the tooltip
            item = QListWidgetItem(self.tr("{0}  (broken)").format(bad.path.name))
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            item.setForeground(Qt.GlobalColor.darkRed)
            item.setToolTip(bad.reason)
            item.setData(Qt.ItemDataRole.UserRole + 1, str(bad.path))
            self.list.addItem(item)
        self.list.blockSignals(False)
        self.legend.setVisible(bool(self._family) and any(info.family != self._family for info in infos))
        self._apply_search()
        row = next((i for i, info in enumerate(infos) if select and info.name.casefold() == select.casefold()), None)
        if row is None and infos:
            row = 0
        if row is None:
            self._show_voice(None)
        else:
            self.list.setCurrentRow(row)
            self._on_list_current_changed(self.list.currentItem(), None)
        self._update_buttons()

    def _apply_search(self) -> None:
        """Hide the voices that do not match the search box (broken files stay listed)."""
        query = self.search_edit.text()
        for i in range(self.list.count()):
            item = self.list.item(i)
            info = item.data(Qt.ItemDataRole.UserRole)
            item.setHidden(info is not None and not info.matches(query))

    def shown_names(self) -> list[str]:
        """The voices the search leaves in view."""
        return [info.name for i in range(self.list.count())
                if not (item := self.list.item(i)).isHidden()
                and (info := item.data(Qt.ItemDataRole.UserRole)) is not None]

    def names(self) -> list[str]:
        return [info.name for i in range(self.list.count())
                if (info := self.list.item(i).data(Qt.ItemDataRole.UserRole)) is not None]

    def broken_files(self) -> list[tuple[str, str]]:
        """(file path, reason) of each voice file listed as broken."""
        return [(item.data(Qt.ItemDataRole.UserRole + 1), item.toolTip()) for i in range(self.list.count())
                if (item := self.list.item(i)).data(Qt.ItemDataRole.UserRole + 1) is not None]

    def select(self, name: str) -> None:
        for i in range(self.list.count()):
            info = self.list.item(i).data(Qt.ItemDataRole.UserRole)
            if info is not None and info.name.casefold() == name.casefold():
                self.list.setCurrentRow(i)
                return
        raise KeyError(name)

    def add_voice(self, voice: Voice) -> VoiceInfo:
        """Store a newly made voice and make it current. Raises StorageError/InputError."""
        info = self.library.add(voice)
        self.reload(select=info.name)
        return info

    # -- slots -----------------------------------------------------------------------------
    def _on_list_current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is None:
            self._show_voice(None)
            return
        info: VoiceInfo | None = current.data(Qt.ItemDataRole.UserRole)
        if info is None:  # a broken file
            self._show_voice(None)
            return
        try:
            voice = load_voice(info.path)
        except CosyError as e:
            logger.warning("cannot open voice %s: %s", info.path, e)
            self._show_voice(None)
            self.info_label.setText(str(e))
            return
        self._show_voice(voice)

    def _show_voice(self, voice: Voice | None) -> None:
        self._voice = voice
        if voice is None:
            self.waveform.clear()
            self.info_label.setText(self.tr("No voice yet: record one or make one from a file."))
            self.transcript_edit.clear()
        else:
            self.waveform.set_audio(voice.audio_24k, voice.sample_rate)
            self.transcript_edit.setText(voice.transcript)
            self.transcript_edit.setCursorPosition(0)  # show the beginning of a long transcript
            parts = [self.tr("{0:.1f} s").format(voice.duration)]
            if voice.language:
                parts.append(self.tr("language {0}").format(voice.language))
            parts.append(FAMILY_SHORT.get(voice.family, voice.family))
            self.info_label.setText(" · ".join(parts))
            self.info_label.setToolTip(voice.notes)
        if voice is None or voice.transcript or not self.transcribe_row.busy:
            self.transcribe_row.reset()
        self._update_transcribe_row()
        self._update_buttons()
        self.voice_changed.emit(voice)

    def _update_buttons(self) -> None:
        has = self._voice is not None
        for b in (self.export_button, self.rename_button, self.delete_button, self.play_button, self.edit_button,
                  self.lexicon_button):
            b.setEnabled(has)

    def _on_play_clicked(self) -> None:
        if self._voice is not None:
            self.play_requested.emit(self._voice.audio_24k, self._voice.sample_rate)

    def _error(self, title: str, e: Exception) -> None:
        QMessageBox.warning(self, title, str(e))

    def _on_import_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, self.tr("Import voices"), "",
                                                self.tr("Cosy Studio voices (*{0})").format(VOICE_SUFFIX))
        self.import_files([Path(p) for p in paths])

    def import_files(self, paths: list[Path]) -> list[VoiceInfo]:
        added = []
        presets: list[tuple[str, str]] = []
        for path in paths:
            try:
                voice = load_voice(path)
                added.append(self.library.add(voice))
            except CosyError as e:
                self._error(self.tr("Cannot import {0}").format(path.name), e)
                continue
            presets.extend(voice.instruct_presets)
        if presets:
            self.presets_imported.emit(presets)
        if added:
            self.reload(select=added[-1].name)
        return added

    def _on_export_clicked(self) -> None:
        if self._voice is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export voice"), f"{self._voice.name}{VOICE_SUFFIX}",
                                              self.tr("Cosy Studio voices (*{0})").format(VOICE_SUFFIX))
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> bool:
        if self._voice is None:
            return False
        if path.suffix != VOICE_SUFFIX:
            path = path.with_name(path.name + VOICE_SUFFIX)
        try:
            save_voice(path, replace(self._voice, instruct_presets=tuple(self.presets_for_export())))
        except CosyError as e:
            self._error(self.tr("Cannot export the voice"), e)
            return False
        return True

    def _on_rename_clicked(self) -> None:
        if self._voice is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename voice"), self.tr("New name:"), text=self._voice.name)
        if ok and name.strip():
            self.rename_current(name)

    def rename_current(self, name: str) -> bool:
        if self._voice is None:
            return False
        try:
            info = self.library.rename(self._voice.name, name)
        except CosyError as e:
            self._error(self.tr("Cannot rename the voice"), e)
            return False
        self.reload(select=info.name)
        return True

    def commit_transcript(self) -> bool:
        """Save a transcript typed into the field into the voice file (it is kept across voices and restarts)."""
        voice = self._voice
        text = self.transcript
        if voice is None or not text or text == voice.transcript:  # clearing it is done in Edit…, not by accident
            return False
        return self.update_current(transcript=text)

    def update_current(self, **fields: str) -> bool:
        """Save changed transcript/language/notes/tags into the current voice and show it again."""
        if self._voice is None:
            return False
        try:
            info = self.library.update(self._voice.name, **fields)
        except CosyError as e:
            self._error(self.tr("Cannot save the voice"), e)
            return False
        self.reload(select=info.name)
        self.message.emit(self.tr("Saved the changes to the voice “{0}”.").format(info.name))
        return True

    def _on_edit_clicked(self) -> None:
        if self._voice is None:
            return
        self.commit_transcript()
        dialog = VoiceEditor(self._voice, self, self._transcriber)
        dialog.models_requested.connect(self.asr_models_requested)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.update_current(**dialog.values())

    def _on_delete_clicked(self) -> None:
        if self._voice is None:
            return
        question = self.tr("Delete the voice “{0}”? This cannot be undone.").format(self._voice.name)
        answer = QMessageBox.question(self, self.tr("Delete voice"), question)
        if answer == QMessageBox.StandardButton.Yes:
            self.delete_current()

    def delete_current(self) -> bool:
        if self._voice is None:
            return False
        try:
            self.library.remove(self._voice.name)
        except CosyError as e:
            self._error(self.tr("Cannot delete the voice"), e)
            return False
        self.reload()
        return True
