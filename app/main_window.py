"""Main window. Until a model is loaded it explains how to get one."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.config import load_model_config
from cosycore.errors import CosyError

logger = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """Top-level window; owns the model choice shown to the user."""

    model_chosen = Signal(object)  # ModelConfig of a validated release folder

    def __init__(self, model_dir: str | None = None) -> None:
        super().__init__()
        self.setWindowTitle(self.tr("Cosy Studio"))
        self.resize(900, 600)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status_label = QLabel(self.tr("No model loaded"), central)
        self.status_label.setObjectName("statusLabel")
        self.status_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.status_label.font()
        font.setPointSize(font.pointSize() + 6)
        self.status_label.setFont(font)
        self.hint_label = QLabel(
            self.tr(
                "Cosy Studio needs a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder.\n"
                "Download one (for example FunAudioLLM/CosyVoice2-0.5B on Hugging Face),\n"
                "then choose the folder that contains cosyvoice2.yaml or cosyvoice3.yaml."
            ),
            central,
        )
        self.hint_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.choose_button = QPushButton(self.tr("Choose model folder…"), central)
        self.choose_button.setToolTip(self.tr("Pick a release folder you already have on disk"))
        self.choose_button.clicked.connect(self._on_choose_clicked)
        layout.addWidget(self.status_label)
        layout.addWidget(self.hint_label)
        layout.addWidget(self.choose_button, alignment=Qt.AlignmentFlag.AlignCenter)
        self.setCentralWidget(central)
        self.statusBar().showMessage(self.tr("No model loaded"))
        if model_dir:
            self.try_model_dir(Path(model_dir))

    def try_model_dir(self, path: Path) -> bool:
        """Validate a release folder; show cosycore's message if it is not usable."""
        try:
            cfg = load_model_config(path)
        except CosyError as e:
            logger.warning("model folder rejected: %s", e)
            QMessageBox.warning(self, self.tr("Not a usable model folder"), str(e))
            return False
        label = "CosyVoice2" if cfg.family == "cosyvoice2" else "Fun-CosyVoice3"
        self.status_label.setText(self.tr("Model folder: {0} ({1})").format(path.name, label))
        self.statusBar().showMessage(str(path))
        self.model_chosen.emit(cfg)
        return True

    def _on_choose_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a model release folder"))
        if folder:
            self.try_model_dir(Path(folder))
