"""Takes › Export all takes…: a folder and a format; every finished take is written there, named after it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QLabel, QVBoxLayout, QWidget

from .export_rows import PathRow, format_combo


class ExportAllDialog(QDialog):
    """Asks where and in which format; :attr:`folder` and :attr:`fmt` once accepted."""

    def __init__(self, count: int, folder: Path, fmt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportAllDialog")
        self.setWindowTitle(self.tr("Export all takes"))
        self.folder_row = PathRow(folder, lambda text: QFileDialog.getExistingDirectory(
            self, self.tr("Export all takes to"), text), self)
        self.folder_edit = self.folder_row.edit
        self.folder_edit.setObjectName("exportAllFolder")
        self.format_box = format_combo(self, ("wav16", "wav_float", "flac", "mp3", "ogg"), fmt)
        self.format_box.setObjectName("exportAllFormat")
        form = QFormLayout()
        form.addRow(self.tr("Folder:"), self.folder_row)
        form.addRow(self.tr("Format:"), self.format_box)
        info = QLabel(self.tr("{0} takes, one file each, named after the take. Existing files are not replaced "
                              "unless you say so.").format(count), self)
        info.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Export"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(info)
        layout.addWidget(buttons)

    @property
    def folder(self) -> Path:
        return self.folder_row.path

    @property
    def fmt(self) -> str:
        return str(self.format_box.currentData())
