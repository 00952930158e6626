"""Takes › Export all takes…: a folder and a format; every finished take is written there, named after it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class ExportAllDialog(QDialog):
    """Asks where and in which format; :attr:`folder` and :attr:`fmt` once accepted."""

    def __init__(self, count: int, folder: Path, fmt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportAllDialog")
        self.setWindowTitle(self.tr("Export all takes"))
        self.folder_edit = QLineEdit(str(folder), self)
        self.folder_edit.setObjectName("exportAllFolder")
        self.folder_edit.setMinimumWidth(320)
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._on_browse_clicked)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        self.format_box = QComboBox(self)
        self.format_box.setObjectName("exportAllFormat")
        for key, label in (("wav16", self.tr("WAV, 16-bit PCM")), ("wav_float", self.tr("WAV, 32-bit float")),
                           ("flac", self.tr("FLAC")), ("mp3", self.tr("MP3")), ("ogg", self.tr("Ogg Vorbis"))):
            self.format_box.addItem(label, key)
        index = self.format_box.findData(fmt)
        self.format_box.setCurrentIndex(max(0, index))
        form = QFormLayout()
        form.addRow(self.tr("Folder:"), row)
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
        return Path(self.folder_edit.text().strip()).expanduser()

    @property
    def fmt(self) -> str:
        return str(self.format_box.currentData())

    def _on_browse_clicked(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Export all takes to"), self.folder_edit.text())
        if chosen:
            self.folder_edit.setText(chosen)
