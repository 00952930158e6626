"""Export a script take: the audio file, and optionally subtitles (SRT, WebVTT) and stems."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from ..takes.export import FORMATS


class ScriptExportDialog(QDialog):
    """Asks where and what to export. Opened by the export controller for a script take."""

    def __init__(self, suggested: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export script take"))
        self.path_edit = QLineEdit(str(suggested), self)
        self.path_edit.setObjectName("scriptExportPath")
        self.path_edit.setMinimumWidth(360)
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._on_browse_clicked)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        self.format_combo = QComboBox(self)
        for key, label in (("wav16", self.tr("WAV, 16-bit PCM")), ("wav_float", self.tr("WAV, 32-bit float")),
                           ("flac", self.tr("FLAC"))):
            self.format_combo.addItem(label, key)
        self.srt_check = QCheckBox(self.tr("Subtitles, SRT (one cue per line, with the speaker's name)"), self)
        self.srt_check.setChecked(True)
        self.vtt_check = QCheckBox(self.tr("Subtitles, WebVTT (the speaker as a voice span)"), self)
        self.stems_check = QCheckBox(self.tr("Stems: one file per speaker, as long as the take, in a folder "
                                             "beside it"), self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Export"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.tr("File:"), row)
        form.addRow(self.tr("Format:"), self.format_combo)
        form.addRow("", self.srt_check)
        form.addRow("", self.vtt_check)
        form.addRow("", self.stems_check)
        form.addRow(buttons)

    def _on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export script take"), self.path_edit.text(),
                                              self.tr("Audio (*.wav *.flac)"))
        if path:
            self.path_edit.setText(path)
            if Path(path).suffix.lower() == ".flac":
                self.format_combo.setCurrentIndex(self.format_combo.findData("flac"))

    @property
    def path(self) -> Path:
        return Path(self.path_edit.text().strip()).expanduser()

    @property
    def fmt(self) -> str:
        key = str(self.format_combo.currentData())
        return key if key in FORMATS else "wav16"
