"""One downloadable model in the Models dialog: name, size, progress bar, status line and buttons."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QPushButton, QWidget

from cosycore import hub as dl
from cosycore.config import FAMILY_TITLES as VOICE_FAMILY_TITLES
from cosycore.hub.catalog import CatalogEntry

FAMILY_TITLES = {**VOICE_FAMILY_TITLES, "sensevoice": "SenseVoice"}
PROGRESS_STEPS = 1000


class CatalogRow(QWidget):
    """A catalogue entry's row; the dialog owns it and redraws it with :meth:`draw` after every change."""

    def __init__(self, entry: CatalogEntry, parent: QWidget) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setObjectName(f"catalogRow_{entry.id}")
        self.title = QLabel(f"<b>{entry.name}</b> — {FAMILY_TITLES.get(entry.family, entry.family)}", self)
        self.title.setToolTip(entry.description)
        self.status = QLabel(self)
        self.status.setObjectName("rowStatus")
        self.progress = QProgressBar(self)
        self.progress.setRange(0, PROGRESS_STEPS)
        self.progress.setTextVisible(True)
        self.progress.setFormat("%p%")
        self.action = QPushButton(self)
        self.action.setObjectName("rowAction")
        self.discard = QPushButton(self.tr("Discard"), self)
        self.discard.setObjectName("rowDiscard")
        self.discard.setToolTip(self.tr("Delete what was downloaded so far"))
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 2, 0, 2)
        grid.addWidget(self.title, 0, 0)
        grid.addWidget(self.action, 0, 1)
        grid.addWidget(self.discard, 0, 2)
        grid.addWidget(self.progress, 1, 0, 1, 3)
        grid.addWidget(self.status, 2, 0, 1, 3)
        grid.setColumnStretch(0, 1)

    def draw(self, *, installed: bool, partial: dl.PartialDownload | None, running: bool, busy: bool,
             models_dir: Path) -> None:
        """Show the entry's state: downloading (``running``), installed, paused with bytes staged, or neither."""
        self.discard.setVisible(partial is not None and not running)
        self.discard.setEnabled(not busy)
        if running:
            self.action.setText(self.tr("Cancel"))
            self.action.setEnabled(True)
            return
        self.action.setEnabled(not busy and not installed)
        if installed:
            self.action.setText(self.tr("Installed"))
            self.progress.setValue(PROGRESS_STEPS)
            self.status.setText(self.tr("Installed in %1").replace("%1", str(models_dir / self.entry.folder)))
        elif partial is not None:
            self.action.setText(self.tr("Resume"))
            total = self.entry.approx_bytes
            self.progress.setValue(min(PROGRESS_STEPS - 1, int(PROGRESS_STEPS * partial.bytes_staged / max(1, total))))
            self.status.setText(self.tr("Paused: %1 downloaded so far").replace(
                "%1", dl.format_bytes(partial.bytes_staged)))
        else:
            self.action.setText(self.tr("Download"))
            self.progress.setValue(0)
            self.status.setText(self.tr("About %1").replace("%1", dl.format_bytes(self.entry.approx_bytes)))
