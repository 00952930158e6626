"""A horizontal input level meter in dBFS with a falling peak marker."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

FLOOR_DB = -60.0
PEAK_FALL_DB = 0.6  # per update (~30 per second): the peak marker falls 18 dB/s
ZONES = ((-18.0, QColor("#3fae5a")), (-6.0, QColor("#e0b030")), (0.0, QColor("#d1462f")))


def to_db(value: float) -> float:
    return 20.0 * math.log10(value) if value > 0 else -math.inf


class LevelMeter(QWidget):
    """Shows the RMS level as a bar and the recent peak as a line. Fed by the recorder's timer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("levelMeter")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.rms_db = -math.inf
        self.peak_db = -math.inf
        self.setToolTip(self.tr("Microphone level; keep the peaks out of the red"))

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(240, 18)

    def set_block(self, rms: float, peak: float) -> None:
        """Show a new block's RMS and peak (linear, 0..1)."""
        self.rms_db = to_db(rms)
        self.peak_db = max(to_db(peak), self.peak_db - PEAK_FALL_DB)
        self.update()

    def reset(self) -> None:
        self.rms_db = self.peak_db = -math.inf
        self.update()

    @staticmethod
    def _fraction(db: float) -> float:
        if not math.isfinite(db):
            return 0.0
        return min(1.0, max(0.0, (db - FLOOR_DB) / -FLOOR_DB))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        p = QPainter(self)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        p.fillRect(rect, QColor(40, 40, 40))
        width = rect.width()
        level = self._fraction(self.rms_db) * width
        start_db = FLOOR_DB
        for end_db, color in ZONES:
            x0 = self._fraction(start_db) * width
            x1 = min(level, self._fraction(end_db) * width)
            if x1 > x0:
                p.fillRect(QRectF(rect.left() + x0, rect.top(), x1 - x0, rect.height()), color)
            start_db = end_db
        if math.isfinite(self.peak_db):
            x = rect.left() + self._fraction(self.peak_db) * width
            p.setPen(QColor(Qt.GlobalColor.white))
            p.drawLine(int(x), int(rect.top()), int(x), int(rect.bottom()))
        p.end()
