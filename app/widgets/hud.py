"""A small live read-out over the waveform: playback state, buffered seconds, chunks, underruns, time left."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ..worker.eta import minutes_seconds


class LiveHud(QFrame):
    """Shows how far synthesis is ahead of playback and how long the take should still take.

    The main window refreshes it from its timer while a take is being made.
    """

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
        self.eta_label = QLabel(self)
        self.eta_label.setObjectName("hudEta")
        self.eta_label.setToolTip(self.tr("Estimated from the real-time factor measured on earlier takes with this "
                                          "model, device and quality"))
        self.eta_label.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label)
        layout.addWidget(self.eta_label)
        self.setToolTip(self.tr("Buffered: audio made but not yet played"))
        self.show_values("", 0.0, 0, 0)

    def show_values(self, state: str, buffered: float, chunks: int, underruns: int) -> None:
        self.label.setText(
            self.tr("{0}  buffered {1:.1f} s  chunks {2}  underruns {3}").format(state, buffered, chunks, underruns)
        )
        self.adjustSize()

    def show_eta(self, seconds: float | None) -> None:
        """Show the time left in the take being made; None: no real-time factor has been measured yet."""
        if seconds is None:
            text = self.tr("first take: no estimate yet")
        else:
            minutes, secs = minutes_seconds(seconds)
            if minutes == 0 and secs == 0:
                text = self.tr("almost done")
            elif minutes == 0:
                text = self.tr("about {0} s left").format(secs)
            else:
                text = self.tr("about {0} min {1:02d} s left").format(minutes, secs)
        self.eta_label.setText(text)
        self.eta_label.show()
        self.adjustSize()

    def clear_eta(self) -> None:
        """No take is being made: hide the estimate."""
        self.eta_label.clear()
        self.eta_label.hide()
        self.adjustSize()

    def text(self) -> str:
        return self.label.text()

    def eta_text(self) -> str:
        """The estimate as shown, "" when hidden."""
        return self.eta_label.text() if not self.eta_label.isHidden() else ""
