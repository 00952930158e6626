"""The rows the export dialogs share (Takes › Export all takes…, Export script take): a path with its
Browse… button, and the audio format."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QPushButton, QWidget


def format_labels() -> dict[str, str]:
    """Every export format (:data:`app.takes.export.FORMATS`'s keys) as the dialogs name it."""
    return {"wav16": QCoreApplication.translate("ExportRows", "WAV, 16-bit PCM"),
            "wav_float": QCoreApplication.translate("ExportRows", "WAV, 32-bit float"),
            "flac": QCoreApplication.translate("ExportRows", "FLAC"),
            "mp3": QCoreApplication.translate("ExportRows", "MP3"),
            "ogg": QCoreApplication.translate("ExportRows", "Ogg Vorbis")}


def format_combo(parent: QWidget, keys: Sequence[str], current: str = "") -> QComboBox:
    """A choice of the formats ``keys`` (the item data is the key), ``current`` chosen (else the first)."""
    box = QComboBox(parent)
    labels = format_labels()
    for key in keys:
        box.addItem(labels[key], key)
    box.setCurrentIndex(max(0, box.findData(current)))
    return box


class PathRow(QWidget):
    """A path to type, and a Browse… button that asks ``browse`` (given the text, returning the path chosen
    or "" for none)."""

    def __init__(self, path: Path, browse: Callable[[str], str], parent: QWidget | None = None, *,
                 min_width: int = 320) -> None:
        super().__init__(parent)
        self.edit = QLineEdit(str(path), self)
        self.edit.setMinimumWidth(min_width)
        button = QPushButton(self.tr("Browse…"), self)
        button.clicked.connect(lambda: self._on_browse_clicked(browse))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(button)

    @property
    def path(self) -> Path:
        return Path(self.edit.text().strip()).expanduser()

    def _on_browse_clicked(self, browse: Callable[[str], str]) -> None:
        chosen = browse(self.edit.text())
        if chosen:
            self.edit.setText(chosen)
