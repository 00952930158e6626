"""First-run screen: choose a model release folder, check it, and show loading progress."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.config import ModelConfig, load_model_config
from cosycore.config.folder import check_model_folder
from cosycore.errors import CosyError

logger = logging.getLogger(__name__)


class ModelScreen(QWidget):
    """Shown until a model is loaded. Validates a chosen folder with cosycore before asking to load it.

    Owned by the main window, which connects :attr:`folder_accepted` to the engine thread.
    """

    folder_accepted = Signal(object)  # ModelConfig of a folder that passed the checks
    download_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self.tr("No model loaded"), self)
        self.title.setObjectName("modelScreenTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.title.font()
        font.setPointSize(font.pointSize() + 6)
        self.title.setFont(font)
        self.hint = QLabel(
            self.tr(
                "Cosy Studio needs a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder.\n"
                "Choose the folder that contains cosyvoice2.yaml or cosyvoice3.yaml."
            ),
            self,
        )
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.choose_button = QPushButton(self.tr("Choose model folder…"), self)
        self.choose_button.setObjectName("chooseModelButton")
        self.choose_button.setToolTip(self.tr("Pick a release folder you already have on disk"))
        self.choose_button.clicked.connect(self.choose_folder)
        self.download_button = QPushButton(self.tr("Download…"), self)
        self.download_button.setObjectName("downloadModelButton")
        self.download_button.setToolTip(self.tr("Download a release from Hugging Face or ModelScope, "
                                                "with progress, resume and verification"))
        self.download_button.clicked.connect(self.download_requested)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("modelError")
        self.error_label.setWordWrap(True)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_label.setStyleSheet("color: #c0392b;")
        self.error_label.hide()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setToolTip(self.tr("Loading the model"))
        self.progress.hide()
        self.progress_label = QLabel(self)
        self.progress_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress_label.hide()

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.choose_button)
        buttons.addWidget(self.download_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addWidget(self.error_label)
        layout.addSpacing(12)
        layout.addWidget(self.progress_label)
        layout.addWidget(self.progress)
        layout.addStretch(3)

    def check_folder(self, path: Path) -> ModelConfig | None:
        """Validate ``path`` with cosycore; show why it is unusable, or emit :attr:`folder_accepted`."""
        try:
            check_model_folder(path)  # every missing file named now, not one after a long load
            cfg = load_model_config(path)
        except CosyError as e:
            logger.warning("model folder rejected: %s", e)
            self.show_error(str(e))
            return None
        self.error_label.hide()
        self.folder_accepted.emit(cfg)
        return cfg

    def show_error(self, message: str) -> None:
        self.progress.hide()
        self.progress_label.hide()
        self.choose_button.setEnabled(True)
        self.error_label.setText(message)
        self.error_label.show()

    def show_progress(self, percent: int, what: str) -> None:
        self.choose_button.setEnabled(False)
        self.error_label.hide()
        self.progress.show()
        self.progress_label.show()
        self.progress.setValue(percent)
        self.progress_label.setText(what)

    def show_loading(self, cfg: ModelConfig) -> None:
        self.title.setText(self.tr("Loading the model…"))
        self.show_progress(0, str(cfg.model_dir))

    def reset(self) -> None:
        self.title.setText(self.tr("No model loaded"))
        self.progress.hide()
        self.progress_label.hide()
        self.choose_button.setEnabled(True)

    def choose_folder(self) -> None:
        """Ask for a folder with the native dialog and check it."""
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a model release folder"))
        if folder:
            self.check_folder(Path(folder))
