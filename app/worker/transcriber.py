"""Speech recognition for voice transcripts, run on the engine thread.

:class:`Transcriber` queues each transcription on the :class:`~app.worker.engine_thread.EngineThread`
(:meth:`~app.worker.engine_thread.EngineThread.run_on_engine`), so it runs in turn with the takes and
never on the GUI thread. The SenseVoice recognizer (:mod:`cosycore.asr`) is loaded there on first
use and kept for the next one; it is loaded again only when its folder changes. Results come back
through queued signals carrying plain values.

Nothing here decides *whether* to transcribe: the widgets offer Transcribe only for a voice or a
recording without a transcript, and what comes back is saved into the voice, so a take never runs
speech recognition.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from cosycore.asr import MODEL_FILES, TOKENS_FILE, SenseVoice, Transcript
from cosycore.errors import AsrAudioError, AsrModelMissingError, CosyError

from .engine_thread import EngineThread, readable_error

logger = logging.getLogger(__name__)


class Transcriber(QObject):
    """Transcribes clips on the engine thread. Owned by the voices controller; its API is for the GUI thread."""

    started = Signal(str)  # key of the job
    finished = Signal(str, object)  # key, cosycore.asr.Transcript
    failed = Signal(str, str, bool)  # key, readable message, True when the recognizer is not installed
    _reported = Signal(str, object, str, bool)  # from the engine thread: key, Transcript or None, message, missing

    def __init__(self, engine: EngineThread, models_dir: Callable[[], Path], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self._models_dir = models_dir
        self._pending: set[str] = set()
        self._recognizer: SenseVoice | None = None  # touched on the engine thread only
        self._recognizer_folder: Path | None = None
        self.runs = 0  # transcriptions that ran (read on the GUI thread after `finished`/`failed`)
        self.last_thread: int | None = None  # the thread the last one ran on
        self._reported.connect(self._on_reported)

    @property
    def folder(self) -> Path:
        """Where the recognizer is (or would be) installed: ``sensevoice-small`` in the app's models folder."""
        from cosycore.hub import asr_model_folder  # the hub's HTTP modules are not needed for the first frame

        return asr_model_folder(self._models_dir())

    def installed(self) -> bool:
        """The recognizer's files are there (their contents are checked when it loads)."""
        folder = self.folder
        return (folder / TOKENS_FILE).is_file() and any((folder / name).is_file() for name in MODEL_FILES)

    def busy(self, key: str | None = None) -> bool:
        return bool(self._pending) if key is None else key in self._pending

    def transcribe(self, key: str, samples: np.ndarray, sample_rate: int) -> bool:
        """Queue the transcription of ``samples`` under ``key``; False when that key is already running."""
        if key in self._pending:
            return False
        self._pending.add(key)
        audio = np.array(samples, dtype=np.float32, copy=True)  # the GUI may change its copy meanwhile
        folder = self.folder

        def job(_engine: object) -> None:
            self._run(key, audio, int(sample_rate), folder)

        self.started.emit(key)
        self._engine.run_on_engine(job)
        return True

    # -- engine thread ----------------------------------------------------------------------------
    def _run(self, key: str, audio: np.ndarray, rate: int, folder: Path) -> None:
        self.last_thread = threading.get_ident()
        try:
            if self._recognizer is None or self._recognizer_folder != folder:
                self._recognizer = None  # a model of another folder is dropped before the next loads
                self._recognizer = SenseVoice.load(folder)
                self._recognizer_folder = folder
            result = self._recognizer.transcribe(audio, rate, what="the recording")
            if not result.text:
                raise AsrAudioError("No speech was recognised in the recording. Type the transcript instead, or "
                                    "use Cross-lingual mode, which needs none.")
        except CosyError as e:
            logger.info("transcription %s failed: %s", key, e)
            self._reported.emit(key, None, str(e), isinstance(e, AsrModelMissingError))
        except Exception as e:  # the thread boundary: report, never let it pass silently
            logger.exception("transcription %s failed", key)
            self._reported.emit(key, None, readable_error(e), False)
        else:
            self._reported.emit(key, result, "", False)

    # -- back on the GUI thread -------------------------------------------------------------------
    def _on_reported(self, key: str, result: Transcript | None, message: str, missing: bool) -> None:
        self._pending.discard(key)
        self.runs += 1
        if result is None:
            self.failed.emit(key, message, missing)
        else:
            self.finished.emit(key, result)
