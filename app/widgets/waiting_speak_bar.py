"""The bar that shows a Speak waiting for the model: where the load stands, and Cancel."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

__all__ = ["WaitingSpeakBar"]


class WaitingSpeakBar(QWidget):
    """Shown under the controls while a Speak waits for the model to load; hidden otherwise."""

    cancel_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("waitingSpeakBar")
        self.label = QLabel(self)
        self.label.setObjectName("waitingSpeakLabel")
        self.label.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(140)
        self.progress.setToolTip(self.tr("How far the model has loaded"))
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setObjectName("cancelWaitingSpeak")
        self.cancel_button.setToolTip(self.tr("Do not speak when the model is ready (Esc)"))
        self.cancel_button.clicked.connect(self.cancel_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.cancel_button)

    def show_state(self, percent: int, stage: str, seconds_left: float | None) -> None:
        """Where the load stands: its stage, its percentage and, when an earlier load is known, the time left."""
        self.progress.setValue(max(0, min(100, percent)))
        if seconds_left is None:
            text = self.tr("Speaks when the model is ready: {0}, {1} %…").format(stage, percent)
        else:
            text = self.tr("Speaks when the model is ready: {0}, {1} %, about {2} s left…").format(
                stage, percent, max(1, round(seconds_left)))
        self.label.setText(text)
