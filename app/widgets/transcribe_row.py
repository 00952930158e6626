"""A **Transcribe** button with its status line, offered beside a transcript field that has no words yet.

Used by the voice panel, the voice editor and the recorder. The owner tells the row where the audio
comes from (:meth:`TranscribeRow.set_source`) and receives the words through
:attr:`TranscribeRow.transcribed`, to put them in its field for editing and save them. While the
engine thread works the button is disabled and says so; errors are shown in the row itself. When
the speech-recognition model is not installed, the row says so and offers **Get the model…**
(:attr:`TranscribeRow.models_requested`), which opens the Models dialog on it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from cosycore.asr import Transcript

    from ..worker.transcriber import Transcriber

# (samples, sample rate, tag) of the clip to transcribe, or None when there is none; the tag comes back
# with the words (e.g. the name of the voice the clip belongs to).
Source = Callable[[], "tuple[np.ndarray, int, Any] | None"]
_KEYS = itertools.count(1)


class TranscribeRow(QWidget):
    """The button and its line. Owned by the widget whose transcript it fills; GUI thread only."""

    transcribed = Signal(str, str, object)  # text, language ("" when unknown), the source's tag
    models_requested = Signal()  # open the Models dialog on the speech-recognition model

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._transcriber: Transcriber | None = None
        self._source: Source | None = None
        self._key = ""  # the job this row started and waits for
        self._tag: Any = None
        self.button = QPushButton(self.tr("Transcribe"), self)
        self.button.setObjectName("transcribeButton")
        self.button.setToolTip(self.tr("Write the transcript from the recording with speech recognition "
                                       "(SenseVoice, on this computer); check the words afterwards"))
        self.button.clicked.connect(self._on_button_clicked)
        self.get_model_button = QPushButton(self.tr("Get the model…"), self)
        self.get_model_button.setObjectName("getAsrModelButton")
        self.get_model_button.setToolTip(self.tr("Open Models… on the speech-recognition model (about 240 MB)"))
        self.get_model_button.clicked.connect(self.models_requested)
        self.get_model_button.hide()
        self.status = QLabel(self)
        self.status.setObjectName("transcribeStatus")
        self.status.setWordWrap(True)
        self.status.hide()
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.button)
        buttons.addWidget(self.get_model_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

    # -- set-up -------------------------------------------------------------------------------
    def attach(self, transcriber: Transcriber | None) -> None:
        """Use ``transcriber`` (None: no speech recognition; the button stays disabled)."""
        if self._transcriber is not None:
            for signal, slot in self._connections():
                signal.disconnect(slot)
        self._transcriber = transcriber
        if transcriber is not None:
            for signal, slot in self._connections():
                signal.connect(slot)
        self._update()

    def _connections(self) -> list[tuple[Any, Any]]:
        t = self._transcriber
        assert t is not None
        return [(t.started, self._on_transcriber_started), (t.finished, self._on_transcriber_finished),
                (t.failed, self._on_transcriber_failed)]

    def set_source(self, source: Source | None) -> None:
        self._source = source
        self._update()

    def reset(self) -> None:
        """Forget the last message (a new voice or clip); a running job still reports to :attr:`transcribed`."""
        self._show("")
        self.get_model_button.hide()

    @property
    def busy(self) -> bool:
        return bool(self._key) and self._transcriber is not None and self._transcriber.busy(self._key)

    # -- actions ------------------------------------------------------------------------------
    def transcribe(self) -> bool:
        """What the button does: start a transcription of the source's clip. False when nothing started."""
        t = self._transcriber
        if t is None or self._source is None or self.busy:
            return False
        if not t.installed():
            self._show(self.tr("The speech-recognition model (SenseVoice-Small, about 240 MB) is not installed. "
                               "Get it in Models…, or type the transcript."), error=True)
            self.get_model_button.show()
            return False
        clip = self._source()
        if clip is None:
            self._show(self.tr("There is no recording to transcribe yet."), error=True)
            return False
        samples, rate, self._tag = clip
        self._key = f"transcribe-{next(_KEYS)}"
        self.get_model_button.hide()
        return t.transcribe(self._key, samples, rate)

    def _on_button_clicked(self) -> None:
        self.transcribe()

    # -- the transcriber's answers --------------------------------------------------------------
    def _on_transcriber_started(self, key: str) -> None:
        if key == self._key:
            self._show(self.tr("Listening to the recording…"))
            self._update()

    def _on_transcriber_finished(self, key: str, result: Transcript) -> None:
        if key != self._key:
            return
        self._key = ""
        language = f" ({result.language})" if result.language else ""
        self._show(self.tr("Transcribed%1. Check the words: they are what Clone mode reads with the "
                           "recording.").replace("%1", language))
        self._update()
        self.transcribed.emit(result.text, result.language, self._tag)

    def _on_transcriber_failed(self, key: str, message: str, missing: bool) -> None:
        if key != self._key:
            return
        self._key = ""
        self._show(message, error=True)
        self.get_model_button.setVisible(missing)
        self._update()

    # -- drawing --------------------------------------------------------------------------------
    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #c0392b;" if error else "")
        self.status.setVisible(bool(text))

    def _update(self) -> None:
        running = self.busy
        self.button.setEnabled(self._transcriber is not None and self._source is not None and not running)
        self.button.setText(self.tr("Transcribing…") if running else self.tr("Transcribe"))
