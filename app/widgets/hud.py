"""A small live read-out over the waveform: playback state, buffered seconds, chunks, underruns."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget


class LiveHud(QFrame):
    """Shows how far synthesis is ahead of playback. The main window refreshes it from its timer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("liveHud")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setStyleSheet(
            "#liveHud { background: rgba(30, 30, 30, 170); border-radius: 6px; }"
            "#liveHud QLabel { color: #f0f0f0; font-family: monospace; }"
        )
        self.label = QLabel(self)
        self.label.setObjectName("hudText")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label)
        self.setToolTip(self.tr("Buffered: audio made but not yet played"))
        self.show_values("", 0.0, 0, 0)

    def show_values(self, state: str, buffered: float, chunks: int, underruns: int) -> None:
        self.label.setText(
            self.tr("{0}  buffered {1:.1f} s  chunks {2}  underruns {3}").format(state, buffered, chunks, underruns)
        )
        self.adjustSize()

    def text(self) -> str:
        return self.label.text()
