"""Export a script take: the audio file, and optionally subtitles (SRT, WebVTT) and stems."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QWidget

from ..takes.export import FORMATS
from .export_rows import PathRow, format_combo


class ScriptExportDialog(QDialog):
    """Asks where and what to export. Opened by the export controller for a script take."""

    def __init__(self, suggested: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export script take"))
        self.path_row = PathRow(suggested, self._browse, self, min_width=360)
        self.path_edit = self.path_row.edit
        self.path_edit.setObjectName("scriptExportPath")
        self.format_combo = format_combo(self, ("wav16", "wav_float", "flac"))
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
        form.addRow(self.tr("File:"), self.path_row)
        form.addRow(self.tr("Format:"), self.format_combo)
        form.addRow("", self.srt_check)
        form.addRow("", self.vtt_check)
        form.addRow("", self.stems_check)
        form.addRow(buttons)

    def _browse(self, text: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export script take"), text,
                                              self.tr("Audio (*.wav *.flac)"))
        if path and Path(path).suffix.lower() == ".flac":
            self.format_combo.setCurrentIndex(self.format_combo.findData("flac"))
        return path

    @property
    def path(self) -> Path:
        return self.path_row.path

    @property
    def fmt(self) -> str:
        key = str(self.format_combo.currentData())
        return key if key in FORMATS else "wav16"
