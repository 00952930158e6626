"""The long-form render's progress panel, below the waveform: progress, ETA, Pause/Resume/Cancel, errors."""

from __future__ import annotations

import enum
import math
from pathlib import Path

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

PROGRESS_STEPS = 1000


class PanelMode(enum.Enum):
    OFFER = "offer"  # an unfinished render from an earlier session can be resumed
    RUNNING = "running"  # rendering, or waiting for its turn on the engine
    PAUSED = "paused"
    FAILED = "failed"
    NEEDS_RESTART = "needs_restart"
    FINISHED = "finished"


def clock(seconds: float | None) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a duration; ``--:--`` when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "--:--"
    s = int(max(0.0, seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class RenderPanel(QFrame):
    """Shows one render; its buttons are signals the long-form controller handles. Built by the main window."""

    pause_clicked = Signal()
    resume_clicked = Signal()
    cancel_clicked = Signal()
    restart_clicked = Signal()
    discard_clicked = Signal()
    open_folder_clicked = Signal()
    close_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("renderPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title_label = QLabel(self)
        self.title_label.setObjectName("renderTitle")
        self.title_label.setStyleSheet("font-weight: bold;")
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(10)
        self.details_label = QLabel(self)
        self.details_label.setObjectName("renderDetails")
        self.details_label.setToolTip(self.tr("Segments are paragraphs and headings; the time left is estimated "
                                              "from this session's speed"))
        self.message_label = QLabel(self)
        self.message_label.setObjectName("renderMessage")
        self.message_label.setWordWrap(True)

        self.pause_button = self._button(self.tr("Pause"), self.pause_clicked,
                                         self.tr("Stop now; Resume goes on from the last finished segment"))
        self.resume_button = self._button(self.tr("Resume"), self.resume_clicked,
                                          self.tr("Go on from the last finished segment"))
        self.restart_button = self._button(self.tr("Start over"), self.restart_clicked,
                                           self.tr("Render the text as it is now, from the beginning (the "
                                                   "unfinished audio is discarded)"))
        self.cancel_button = self._button(self.tr("Cancel"), self.cancel_clicked,
                                          self.tr("Stop rendering; the audio made so far is kept, and File › "
                                                  "Unfinished renders resumes it later"))
        self.discard_button = self._button(self.tr("Discard…"), self.discard_clicked,
                                           self.tr("Delete this unfinished render's partial audio"))
        self.open_folder_button = self._button(self.tr("Show folder"), self.open_folder_clicked,
                                               self.tr("Open the folder with the rendered files"))
        self.close_button = self._button(self.tr("Close"), self.close_clicked,
                                         self.tr("Hide this panel (an unfinished render stays in File › "
                                                 "Unfinished renders)"))

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.details_label, 1)
        for b in (self.pause_button, self.resume_button, self.restart_button, self.cancel_button,
                  self.discard_button, self.open_folder_button, self.close_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addWidget(self.title_label)
        layout.addWidget(self.progress_bar)
        layout.addLayout(buttons)
        layout.addWidget(self.message_label)
        self.mode = PanelMode.FINISHED
        self.set_mode(PanelMode.FINISHED)

    def _button(self, text: str, signal: SignalInstance, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.clicked.connect(signal.emit)
        return button

    def set_mode(self, mode: PanelMode, message: str = "", *, error: bool = False) -> None:
        """Which buttons show, and a message under the progress (red for an error)."""
        self.mode = mode
        visible = {
            PanelMode.OFFER: (self.resume_button, self.discard_button, self.close_button),
            PanelMode.RUNNING: (self.pause_button, self.cancel_button),
            PanelMode.PAUSED: (self.resume_button, self.cancel_button),
            PanelMode.FAILED: (self.resume_button, self.discard_button, self.close_button),
            PanelMode.NEEDS_RESTART: (self.restart_button, self.discard_button, self.close_button),
            PanelMode.FINISHED: (self.open_folder_button, self.close_button),
        }[mode]
        for b in (self.pause_button, self.resume_button, self.restart_button, self.cancel_button,
                  self.discard_button, self.open_folder_button, self.close_button):
            b.setVisible(b in visible)
        self.pause_button.setEnabled(True)
        self.message_label.setText(message)
        self.message_label.setVisible(bool(message))
        self.message_label.setStyleSheet("color: #c0392b;" if error else "")

    def set_title(self, text: str) -> None:
        self.title_label.setText(text)

    def show_counts(self, done: int, total: int) -> None:
        """Segments done of total, without timing (an unfinished render offered at start)."""
        self.progress_bar.setValue(round(PROGRESS_STEPS * done / total) if total else 0)
        self.details_label.setText(self.tr("{0}/{1} segments done").format(done, total) if total else "")

    def show_progress(self, done: int, total: int, percent: float, audio_seconds: float, elapsed: float,
                      eta: float | None) -> None:
        self.progress_bar.setValue(round(PROGRESS_STEPS * min(100.0, percent) / 100.0))
        left = clock(eta) if eta is not None else self.tr("estimating…")
        self.details_label.setText(
            self.tr("{0}/{1} segments · {2:.0f} % · {3} of audio · elapsed {4} · {5} left").format(
                done, total, percent, clock(audio_seconds), clock(elapsed), left))

    def show_pausing(self) -> None:
        """Pause was pressed while a segment is being made: it stops at the engine's next check."""
        self.pause_button.setEnabled(False)
        self.message_label.setText(self.tr("Pausing…"))
        self.message_label.setVisible(True)

    def show_files(self, files: list[Path]) -> None:
        names = ", ".join(p.name for p in files)
        self.set_mode(PanelMode.FINISHED, self.tr("Wrote {0} in {1}").format(names, files[0].parent) if files else "")
        self.progress_bar.setValue(PROGRESS_STEPS)
