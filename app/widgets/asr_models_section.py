"""The Models dialog's section for speech recognition: the model that writes voice transcripts.

It lists the catalogue's ``asr`` entries (SenseVoice-Small) with the same download row as the voice
models (progress, Cancel, Resume, Discard), and, once installed, **Verify** (hashes and a test
transcription) and **Delete…**. The dialog runs the work; the section only asks for it through
its signals. These models never appear among the voice models, which cannot load them.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from cosycore import hub as dl
from cosycore.hub.catalog import CatalogEntry

from .catalog_row import CatalogRow


class AsrModelsSection(QGroupBox):
    """Speech-recognition models in the Models dialog. Owned by the dialog; GUI thread only."""

    verify_requested = Signal(object)  # InstalledModel
    delete_requested = Signal(object)  # InstalledModel

    def __init__(self, entries: Iterable[CatalogEntry], parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Speech recognition (for transcripts)"), parent)
        self.setObjectName("asrModels")
        note = QLabel(self.tr("Writes a voice's transcript from its recording when you press Transcribe: Chinese, "
                              "English, Japanese, Korean and Cantonese, on this computer."), self)
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        self.rows: dict[str, CatalogRow] = {}
        self.verify_buttons: dict[str, QPushButton] = {}
        self.delete_buttons: dict[str, QPushButton] = {}
        self._installed: dict[str, dl.InstalledModel] = {}
        for entry in entries:
            row = CatalogRow(entry, self)
            verify = QPushButton(self.tr("Verify"), self)
            verify.setObjectName(f"asrVerify_{entry.id}")
            verify.setToolTip(self.tr("Check the files against what was installed and transcribe a test clip"))
            verify.clicked.connect(lambda _=False, i=entry.id: self._on_verify_clicked(i))
            delete = QPushButton(self.tr("Delete…"), self)
            delete.setObjectName(f"asrDelete_{entry.id}")
            delete.setToolTip(self.tr("Delete the speech-recognition model from disk"))
            delete.clicked.connect(lambda _=False, i=entry.id: self._on_delete_clicked(i))
            buttons = QHBoxLayout()
            buttons.addStretch(1)
            buttons.addWidget(verify)
            buttons.addWidget(delete)
            layout.addWidget(row)
            layout.addLayout(buttons)
            self.rows[entry.id] = row
            self.verify_buttons[entry.id] = verify
            self.delete_buttons[entry.id] = delete

    def set_installed(self, models: Iterable[dl.InstalledModel], *, idle: bool) -> None:
        """Enable Verify and Delete… for the entries that are installed (when no task runs)."""
        models = list(models)
        self._installed = {i: m for i, row in self.rows.items() for m in models
                           if m.model_id == i or m.folder.name == row.entry.folder}
        for model_id in self.rows:
            there = model_id in self._installed
            self.verify_buttons[model_id].setVisible(there)
            self.delete_buttons[model_id].setVisible(there)
            self.verify_buttons[model_id].setEnabled(there and idle)
            self.delete_buttons[model_id].setEnabled(there and idle and self._installed[model_id].managed)

    def installed(self, model_id: str) -> dl.InstalledModel | None:
        return self._installed.get(model_id)

    def focus_first(self) -> None:
        """Bring the first entry's button into view and focus (the dialog was opened for it)."""
        row = next(iter(self.rows.values()), None)
        if row is not None:
            row.action.setFocus()

    def _on_verify_clicked(self, model_id: str) -> None:
        model = self._installed.get(model_id)
        if model is not None:
            self.verify_requested.emit(model)

    def _on_delete_clicked(self, model_id: str) -> None:
        model = self._installed.get(model_id)
        if model is not None:
            self.delete_requested.emit(model)
