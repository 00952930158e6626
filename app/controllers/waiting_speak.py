"""A Speak pressed while the model loads: it waits in line and speaks as soon as the model is ready.

The studio stays usable while a model loads (text, voices, takes, playback and export need no
model). A Speak pressed meanwhile is kept, one at a time, with the load's stage, percentage and the
time left (from the last load of the same folder) in :class:`~app.widgets.waiting_speak_bar.WaitingSpeakBar`.
When the model is ready it speaks the fields as they are then; Cancel, Stop or Esc drop it, and so
does a failed load (said in the status bar).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from ..session import StudioSession
from ..widgets.waiting_speak_bar import WaitingSpeakBar

__all__ = ["WaitingSpeak"]

TICK_MS = 1000  # the time left counts down once a second


class WaitingSpeak(QObject):
    """Holds the Speak that waits for the model. Built by the main window from the session and the bar."""

    def __init__(self, session: StudioSession, *, bar: WaitingSpeakBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bar = bar
        self._speak: Callable[[], object] | None = None
        self._folder = ""
        self._started = time.monotonic()
        self._percent = 0
        self._stage = ""
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._show)
        bar.hide()

    def wire(self) -> None:
        e = self.session.engine
        e.load_started.connect(self._on_load_started)
        e.load_progress.connect(self._on_load_progress)
        e.load_failed.connect(self._on_load_failed)
        self.session.model_changed.connect(self._on_model_changed)
        self.bar.cancel_clicked.connect(self.cancel)

    @property
    def waiting(self) -> bool:
        return self._speak is not None

    def wait(self, speak: Callable[[], object]) -> None:
        """Call ``speak()`` when the model is ready (a Speak already waiting is replaced by this one)."""
        self._speak = speak
        self.session.set_speak_waiting(True)
        self._show()
        self.bar.show()
        self._tick.start()
        self.session.show_status(self.tr("Speak waits for the model; it starts by itself when the model is ready."),
                                 5000)

    def cancel(self) -> bool:
        """Drop the waiting Speak (Cancel, Stop, Esc). True if one was waiting."""
        if self._speak is None:
            return False
        self._end()
        self.session.show_status(self.tr("The waiting Speak was cancelled."), 5000)
        return True

    def seconds_left(self) -> float | None:
        """The time the load may still take, from the last load of the same folder (None: never measured)."""
        last = self.session.settings.load_seconds(self._folder) if self._folder else None
        if last is None:
            return None
        return max(0.0, last - (time.monotonic() - self._started))

    def _end(self) -> None:
        self._speak = None
        self._tick.stop()
        self.bar.hide()
        self.session.set_speak_waiting(False)

    def _show(self) -> None:
        stage = self._stage or self.tr("Starting")
        self.bar.show_state(self._percent, stage, self.seconds_left())

    def _on_load_started(self, folder: str) -> None:
        self._folder = str(Path(folder))
        self._started = time.monotonic()
        self._percent, self._stage = 0, ""
        if self.waiting:
            self._show()

    def _on_load_progress(self, percent: int, stage: str) -> None:
        self._percent, self._stage = percent, stage
        if self.waiting:
            self._show()

    def _on_load_failed(self, _message: str) -> None:
        if self.waiting:
            self._end()
            self.session.show_status(self.tr("The model did not load, so the waiting Speak was cancelled."), 8000)

    def _on_model_changed(self, info: object) -> None:
        if info is None or self._speak is None:
            return
        speak = self._speak
        self._end()
        # After the rest of the studio has followed the new model (family, presets, the preview).
        QTimer.singleShot(0, speak)
