"""The engine thread: the one thread that owns the model and every torch object.

:class:`EngineThread` is a ``QThread`` whose ``run`` loop takes commands from a queue (load a model,
speak, make a voice, quit) and reports back through signals that carry plain values and numpy
arrays only. The GUI never waits on it.

Cancelling: a new Speak or Stop cancels the running synthesis at the next chunk. The GUI thread
raises a flag that the loop checks between chunks and also calls the engine's thread-safe
``cancel()`` so that a long chunk is cut short inside the engine. Queued requests that were
overtaken by a newer Speak are dropped without running. The thread is never terminated: quitting
cancels, lets the loop return and waits for it.

torch and the engine are imported inside this thread, so the window can open before they load.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QObject, QThread, Signal

from cosycore.config import AUTO_QUALITY, QUALITY_MODES
from cosycore.engine.info import EngineInfo
from cosycore.errors import CosyError, SynthesisError
from cosycore.request import AudioChunk, SynthesisRequest
from cosycore.voices import Voice

from .convert_jobs import ConvertJob, LiveJob, convert_chunks, live_chunks
from .engine_messages import SynthesisStats, detached_chunk, readable_error
from .eta import rtf_key
from .script_jobs import RegenJob, ScriptJob, run_regen, script_chunks
from .sentence_jobs import SentenceJob, run_sentence_regen

if TYPE_CHECKING:
    from cosycore.engine import Engine

logger = logging.getLogger(__name__)

# The plain values of app.worker.engine_messages stay importable from here.
__all__ = [
    "QUIT_TIMEOUT_MS",
    "EngineThread",
    "SynthesisStats",
    "readable_error",
]

QUIT_TIMEOUT_MS = 30_000
# Where a load's progress bar stands: the folder check, importing torch and the engine, then the engine's own
# steps (cosycore.engine.load_steps) between LOAD_ENGINE_PERCENT and LOAD_ENGINE_END_PERCENT.
LOAD_CHECK_PERCENT = 2
LOAD_IMPORT_PERCENT = 5
LOAD_ENGINE_PERCENT = 20
LOAD_ENGINE_END_PERCENT = 97
# Engine threads that outlived their window's close (a model load cannot be cancelled): kept alive
# here until they finish, since destroying a running QThread ends the process (EngineThread.shutdown).
_FINISHING: set[EngineThread] = set()


class _LoadAbandonedError(Exception):
    """Raised between the steps of a model load when the engine thread is shutting down."""


@dataclass
class _Job:
    kind: str  # "load", "speak", "voice", "call", "quit"
    job_id: int = 0
    payload: dict[str, Any] = field(default_factory=dict)


def _engine_module() -> ModuleType:
    from cosycore.engine import core  # imported on the engine thread: it pulls in torch

    return core


class EngineThread(QThread):
    """Owns the :class:`cosycore.engine.Engine`; owned by the studio session, quit by the main window when it closes."""

    load_started = Signal(str)  # model folder
    load_progress = Signal(int, str)  # percent, what is happening
    model_loaded = Signal(object)  # cosycore.engine.EngineInfo
    load_failed = Signal(str)  # readable message
    synthesis_started = Signal(int)  # request id
    chunk_ready = Signal(int, object)  # request id, cosycore.engine.AudioChunk (a script's: ScriptChunk)
    synthesis_finished = Signal(object)  # SynthesisStats
    synthesis_cancelled = Signal(object)  # SynthesisStats (what was made before the cancel)
    synthesis_failed = Signal(int, str)  # request id, readable message
    voice_created = Signal(int, object, object)  # job id, Voice, tuple of warnings about the recording
    voice_failed = Signal(int, str)  # job id, readable message
    voice_refreshed = Signal(int, object)  # job id, Voice made again for the loaded model's family
    script_started = Signal(int, object)  # request id, app.worker.script_jobs.ScriptStart (before its first chunk)
    # request id, app.worker.script_jobs.RegenResult (a script line) or app.worker.sentence_jobs.SentenceResult
    line_regenerated = Signal(int, object)
    regen_failed = Signal(int, str)  # request id, readable message (also when stopped)
    text_warm_started = Signal()  # the text warm-up began in the background, after a load
    text_warmed = Signal(float)  # ... and ended (its seconds; -1.0: it failed, and Speak pays the first uses)

    def __init__(self, parent: QObject | None = None, *, torch_threads: int | None = None) -> None:
        """``torch_threads``: CPU threads for synthesis, applied at each model load (None: every core,
        or ``$COSY_THREADS``; see :mod:`cosycore.threads`). Settings › Performance sets it."""
        super().__init__(parent)
        self.torch_threads = torch_threads
        # Measured real-time factor per app.worker.eta.rtf_key (Settings.measured_rtf), for Auto quality; GUI thread.
        self.rtf_lookup: Callable[[str], float | None] | None = None
        self.setObjectName("engine")
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 0
        self._wanted_speak = 0  # id of the newest Speak; older ones are cancelled
        self._running_speak = 0  # id of the synthesis in progress (0: none)
        self._stopped_up_to = 0  # every speak id <= this was stopped
        self._queued_speaks = 0  # speak jobs in the queue, not yet taken by the loop
        self._engine: Engine | None = None  # touched only on this thread
        self._info: EngineInfo | None = None
        self._quitting = threading.Event()  # set by shutdown(): a load in progress stops at its next step

    # -- GUI-thread API ------------------------------------------------------------------------
    def _new_id(self) -> int:
        with self._lock:
            self._next_id += 1
            return self._next_id

    @property
    def model_info(self) -> EngineInfo | None:
        return self._info

    @property
    def busy(self) -> bool:
        """A synthesis is running or queued."""
        with self._lock:
            return self._running_speak != 0 or self._queued_speaks > 0

    def load_model(self, model_dir: Path | str, device: str = "auto", quality: str = "exact") -> int:
        """Load a release folder (replacing any loaded model); reports through the load signals.

        ``quality`` is the engine's load-time quality mode (int8 quantisation and warm-up happen while loading),
        so changing it means loading again. A running synthesis is cancelled first; the load runs
        after it has stopped, on this thread's queue.
        """
        self.stop()
        measured: dict[str, float | None] = {}
        if quality == AUTO_QUALITY and self.rtf_lookup is not None:
            # Auto picks on the engine thread (only it knows the device), from the speeds measured on the CPU.
            measured = {q: self.rtf_lookup(rtf_key(model_dir, "cpu", q)) for q in QUALITY_MODES}
        job = _Job("load", self._new_id(), {"model_dir": str(model_dir), "device": device, "quality": quality,
                                            "measured": measured})
        self._ensure_started()
        self._jobs.put(job)
        return job.job_id

    def speak(self, request: SynthesisRequest) -> int:
        """Queue a take; any synthesis still running is cancelled at its next chunk. Returns its id."""
        return self._queue_speak("speak", request)

    def speak_script(self, job: ScriptJob) -> int:
        """Queue a dialogue script as one take, reported like :meth:`speak`'s."""
        return self._queue_speak("script", job)

    def regenerate_line(self, job: RegenJob) -> int:
        """Queue regenerating a script take's line; cancelled like a take."""
        return self._queue_speak("regen", job)

    def regenerate_sentence(self, job: SentenceJob) -> int:
        """Queue regenerating a sentence of an ordinary take; reported like :meth:`regenerate_line`."""
        return self._queue_speak("sentence", job)

    def convert(self, job: ConvertJob) -> int:
        """Queue a voice conversion (app.worker.convert_jobs) as one take, reported like :meth:`speak`'s."""
        return self._queue_speak("convert", job)

    def convert_live(self, job: LiveJob) -> int:
        """Queue a live conversion: one take that converts the pieces of ``job.feed`` until it is closed."""
        return self._queue_speak("live", job)

    def _queue_speak(self, kind: str,
                     request: SynthesisRequest | ScriptJob | RegenJob | SentenceJob | ConvertJob | LiveJob) -> int:
        request_id = self._new_id()
        with self._lock:
            self._wanted_speak = request_id
            self._queued_speaks += 1
            running = self._running_speak
        if running:
            self._cancel_engine()
        self._ensure_started()
        self._jobs.put(_Job(kind, request_id, {"request": request}))
        return request_id

    def stop(self) -> None:
        """Cancel the running synthesis and everything queued (at the next chunk)."""
        with self._lock:
            self._stopped_up_to = self._next_id
            running = self._running_speak
        if running:
            self._cancel_engine()

    def set_threads(self, threads: int | None) -> None:
        """CPU threads for synthesis (None: automatic); the loaded engine uses them from its next take."""
        self.torch_threads = threads
        engine = self._engine
        if engine is not None:
            from cosycore.threads import default_threads

            engine.threads = threads or default_threads()  # one attribute, read at the start of a request

    def create_voice(self, audio: np.ndarray, sample_rate: int, name: str, transcript: str,
                     language: str = "") -> int:
        """Compute a saved voice's features from a recording; reports through the voice signals."""
        job = _Job("voice", self._new_id(), {"audio": np.asarray(audio, np.float32), "sample_rate": int(sample_rate),
                                             "name": name, "transcript": transcript, "language": language})
        self._ensure_started()
        self._jobs.put(job)
        return job.job_id

    def refresh_voice(self, voice: Voice) -> int:
        """Make a saved voice's features again for the loaded model (a voice of the other family)."""
        job = _Job("refresh", self._new_id(), {"voice": voice})
        self._ensure_started()
        self._jobs.put(job)
        return job.job_id

    def smoke_test(self, folder: Path | str) -> float:
        """Synthesise a few sounds with ``folder``'s model on this thread, blocking the caller until done.

        Called from another worker thread (the Models dialog's verification), never the GUI thread. The
        loaded model is used when ``folder`` is its folder; another folder is loaded here, after the work
        queued before, so torch only ever runs on this thread. Returns seconds of audio; raises on failure.
        """
        done = threading.Event()
        result: dict[str, Any] = {}
        job = _Job("smoke", self._new_id(), {"folder": str(folder), "done": done, "result": result})
        self._ensure_started()
        self._jobs.put(job)
        done.wait()
        if "error" in result:
            raise result["error"]
        return float(result["seconds"])

    def run_on_engine(self, fn: Callable[[Engine | None], None]) -> None:
        """Queue ``fn(engine)`` to run on this thread, in turn with the takes (``engine`` is None while no
        model is loaded). The local speech server sends its requests this way; ``fn`` reports its own
        results and must not raise."""
        self._ensure_started()
        self._jobs.put(_Job("call", self._new_id(), {"fn": fn}))

    def has_waiting_work(self) -> bool:
        """Jobs are queued behind the one running. Thread-safe; a long job that runs in slices (the long-form
        render, :mod:`app.worker.render_runner`) checks it between slices and gives way to takes and other work."""
        return not self._jobs.empty()

    def shutdown(self, timeout_ms: int = QUIT_TIMEOUT_MS) -> bool:
        """Cancel everything, let the loop end and wait for it. True if the thread has finished."""
        if not self.isRunning():
            return True
        self.stop()
        self._quitting.set()  # a model load gives up at its next step
        self._jobs.put(_Job("quit"))
        finished = self.wait(timeout_ms)
        if not finished:
            logger.error("the engine thread did not finish within %d ms", timeout_ms)
            # A call that cannot be cancelled (a model load) is still running. Destroying a running
            # QThread aborts the process, so the thread leaves its parent (the window may be deleted
            # now) and is kept here until it has finished.
            self.setParent(None)
            _FINISHING.add(self)
            self.finished.connect(lambda: _FINISHING.discard(self))
        return bool(finished)

    def _ensure_started(self) -> None:
        if not self.isRunning():
            self.start()

    def _cancel_engine(self) -> None:
        engine = self._engine
        if engine is not None:
            try:
                engine.cancel()  # thread-safe by contract; cuts a long chunk short
            except Exception:  # cancelling must never fail the GUI; the flag check still stops it
                logger.exception("engine.cancel() failed")

    def _is_cancelled(self, request_id: int) -> bool:
        with self._lock:
            return self._is_cancelled_locked(request_id)

    # -- engine thread ---------------------------------------------------------------------------
    def run(self) -> None:
        while True:
            job = self._jobs.get()
            if job.kind == "quit":
                break
            try:
                if job.kind == "load":
                    self._run_load(job)
                elif job.kind in ("speak", "script", "regen", "sentence", "convert", "live"):
                    self._run_speak(job)
                elif job.kind == "voice":
                    self._run_voice(job)
                elif job.kind == "refresh":
                    self._run_refresh(job)
                elif job.kind == "smoke":
                    self._run_smoke(job)
                elif job.kind == "call":
                    job.payload["fn"](self._engine)
            except Exception:  # a bug in a handler must not kill the loop; each handler reports its own errors
                logger.exception("engine job %s failed", job.kind)
        self._engine = None  # weights are freed on the thread that owned them
        logger.info("engine thread finished")

    def _run_load(self, job: _Job) -> None:
        model_dir, device = job.payload["model_dir"], job.payload["device"]
        quality = job.payload.get("quality", "exact")
        self.load_started.emit(model_dir)
        start = time.perf_counter()
        try:
            self.load_progress.emit(LOAD_CHECK_PERCENT, self.tr("Checking the model folder"))
            from cosycore.config import load_model_config

            load_model_config(model_dir)  # fails fast, before torch is imported, on a bad folder
            self.load_progress.emit(LOAD_IMPORT_PERCENT, self.tr("Starting the engine (torch)"))
            core = _engine_module()
            self._check_quitting()
            self._engine = None
            self._info = None
            from cosycore.threads import default_threads

            threads = self.torch_threads or default_threads()
            # The engine reports each step as it begins; the text warm-up runs after the load, in the background.
            engine = core.Engine(model_dir, device=device, quality=quality, threads=threads,
                                 measured_rtfs=job.payload.get("measured"), progress=self._on_load_step,
                                 warm_text=False)
            if not engine.perf.warm_up and engine.model.device.type != "cpu":
                # A model pass pays on GPUs, not on CPUs (README); the engine's own modes did theirs.
                self.load_progress.emit(LOAD_ENGINE_END_PERCENT, self.tr("Warming up"))
                from cosycore.perf import warm_up

                warm_up(engine.model)
        except Exception as e:
            if self._quitting.is_set():  # the window closed meanwhile: nobody waits for this model
                logger.info("loading %s abandoned: the studio is closing", model_dir)
                return
            if not isinstance(e, CosyError):
                logger.exception("loading %s failed", model_dir)
            else:
                logger.warning("loading %s failed: %s", model_dir, e)
            self.load_failed.emit(readable_error(e))
            return
        self._engine = engine
        info = replace(engine.info(), load_seconds=time.perf_counter() - start)
        self._info = info
        self.load_progress.emit(100, self.tr("Ready"))
        logger.info("model ready: %s on %s (%s) in %.1f s", info.family, info.device, info.quality,
                    info.load_seconds)
        self.model_loaded.emit(info)
        self._warm_text(engine)

    def _check_quitting(self) -> None:
        if self._quitting.is_set():
            raise _LoadAbandonedError("the studio is closing")

    def _on_load_step(self, fraction: float, step: str) -> None:
        """The engine's report of a load step (on this thread): a percentage and the step in words. When the
        studio is closing, the load stops here (a step itself cannot be interrupted)."""
        self._check_quitting()
        span = LOAD_ENGINE_END_PERCENT - LOAD_ENGINE_PERCENT
        percent = LOAD_ENGINE_PERCENT + round(span * max(0.0, min(1.0, fraction)))
        words = {
            "llm": self.tr("Loading the speech language model"),
            "flow": self.tr("Loading the flow decoder"),
            "vocoder": self.tr("Loading the vocoder"),
            "warm_up": self.tr("Warming up"),
            "text_tokenizer": self.tr("Loading the text tokenizer"),
            "speech_tokenizer": self.tr("Loading the speech tokenizer"),
            "speaker_encoder": self.tr("Loading the speaker encoder"),
            "ready": self.tr("Finishing"),
        }
        self.load_progress.emit(percent, words.get(step, step))

    def _warm_text(self, engine: Engine) -> None:
        """Start the text and prompt-feature warm-up in the background (:mod:`app.worker.text_warm_up`).

        Seconds of first-use costs (inflect's import, wetext's grammars, librosa's filterbank) that the
        first Speak would otherwise pay; Speak does not wait for it to start, and its own text reading
        waits only for what the warm-up is loading at that moment.
        """
        from .text_warm_up import warm_up_text_in_background

        self.text_warm_started.emit()
        warm_up_text_in_background(engine.cfg.mel, self.text_warmed.emit)

    def _run_speak(self, job: _Job) -> None:
        request_id = job.job_id
        with self._lock:
            self._queued_speaks -= 1
            dropped = self._is_cancelled_locked(request_id)
            if not dropped:
                self._running_speak = request_id
        if dropped:
            if job.kind in ("regen", "sentence"):
                self.regen_failed.emit(request_id, "Stopped before it began; the take is unchanged.")
            else:
                self.synthesis_cancelled.emit(SynthesisStats(request_id, cancelled=True))
            return
        try:
            request = job.payload["request"]
            if job.kind == "regen":
                run_regen(self._engine, request_id, request, done=self.line_regenerated.emit,
                          failed=self.regen_failed.emit)
            elif job.kind == "sentence":
                run_sentence_regen(self._engine, request_id, request, done=self.line_regenerated.emit,
                                   failed=self.regen_failed.emit)
            elif job.kind == "script":
                self._synthesize(request_id, lambda start: self._script_chunks(request_id, request, start))
            elif job.kind == "convert":
                self._synthesize(request_id, lambda start: convert_chunks(self._engine, request, start))
            elif job.kind == "live":
                self._synthesize(request_id, lambda start: live_chunks(self._engine, request, start,
                                                                       lambda: self._is_cancelled(request_id)))
            else:
                self._synthesize(request_id, lambda start: self._speak_chunks(request, start))
        finally:
            with self._lock:
                self._running_speak = 0

    def _is_cancelled_locked(self, request_id: int) -> bool:
        return request_id != self._wanted_speak or request_id <= self._stopped_up_to

    def _script_chunks(self, request_id: int, job: ScriptJob, start: float) -> Generator[AudioChunk, None, None]:
        assert self._engine is not None  # _synthesize checked it
        return script_chunks(self._engine, request_id, job, start, started=self.script_started.emit)

    def _speak_chunks(self, request: SynthesisRequest, start: float) -> Generator[AudioChunk, None, None]:
        assert self._engine is not None
        chunks = self._engine.synthesize(request)
        try:
            for raw in chunks:
                yield detached_chunk(raw, time.perf_counter() - start)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()  # releases the generator's per-request state now, on this thread

    def _synthesize(self, request_id: int,
                    make_chunks: Callable[[float], Generator[AudioChunk, None, None]]) -> None:
        """Run one take: ``make_chunks(start)`` yields its chunks; report them, then how it ended."""
        if self._engine is None:
            self.synthesis_failed.emit(request_id, "No model is loaded yet; choose a model folder first.")
            return
        start = time.perf_counter()
        first: float | None = None
        audio_samples = 0
        rate = 0
        index = 0
        cancelled = False
        self.synthesis_started.emit(request_id)
        try:
            chunks = make_chunks(start)
            try:
                for chunk in chunks:
                    if self._is_cancelled(request_id):
                        cancelled = True
                        break
                    if not np.isfinite(chunk.samples).all():
                        # Never send NaN or infinity to a sound card; say so instead.
                        raise SynthesisError(f"The model produced invalid audio (NaN or infinite samples) in chunk "
                                             f"{chunk.index}. Try another seed; if it persists, the model files "
                                             "may be damaged.")
                    if chunk.samples.size and first is None:
                        first = chunk.timing
                    audio_samples += chunk.samples.size
                    rate = chunk.sample_rate
                    index += 1
                    self.chunk_ready.emit(request_id, chunk)
            finally:
                chunks.close()  # closes the engine's generator now, on this thread
        except Exception as e:
            if isinstance(e, CosyError):
                logger.warning("synthesis %d failed: %s", request_id, e)
            else:
                logger.exception("synthesis %d failed", request_id)
            self._ended(request_id)
            self.synthesis_failed.emit(request_id, readable_error(e))
            return
        cancelled = cancelled or self._is_cancelled(request_id)
        self._ended(request_id)  # not busy any more by the time the GUI hears how it ended
        stats = SynthesisStats(
            request_id=request_id,
            audio_seconds=audio_samples / rate if rate else 0.0,
            wall_seconds=time.perf_counter() - start,
            first_audio_seconds=first,
            chunks=index,
            cancelled=cancelled,
        )
        if cancelled:
            logger.info("synthesis %d cancelled after %d chunks", request_id, index)
            self.synthesis_cancelled.emit(stats)
        else:
            logger.info("synthesis %d: %.2f s of audio in %.2f s", request_id, stats.audio_seconds,
                        stats.wall_seconds)
            self.synthesis_finished.emit(stats)

    def _ended(self, request_id: int) -> None:
        with self._lock:
            if self._running_speak == request_id:
                self._running_speak = 0

    def _run_voice(self, job: _Job) -> None:
        if self._engine is None:
            self.voice_failed.emit(job.job_id, "No model is loaded yet; choose a model folder first.")
            return
        p = job.payload
        try:
            voice = self._engine.create_voice(p["audio"], p["sample_rate"], name=p["name"], transcript=p["transcript"],
                                              language=p["language"])
        except Exception as e:
            if not isinstance(e, CosyError):
                logger.exception("making voice %r failed", p["name"])
            self.voice_failed.emit(job.job_id, readable_error(e))
            return
        self.voice_created.emit(job.job_id, voice, tuple(self._engine.last_warnings))

    def _run_smoke(self, job: _Job) -> None:
        p = job.payload
        try:
            p["result"]["seconds"] = _smoke(self._engine, self._info, p["folder"])
        except BaseException as e:  # handed to the waiting thread, which reports it
            p["result"]["error"] = e
        finally:
            p["done"].set()

    def _run_refresh(self, job: _Job) -> None:
        if self._engine is None:
            self.voice_failed.emit(job.job_id, "No model is loaded yet; choose a model folder first.")
            return
        voice = job.payload["voice"]
        try:
            fresh = _refresh(self._engine, voice)
        except Exception as e:
            if not isinstance(e, CosyError):
                logger.exception("refreshing voice %r failed", voice.name)
            self.voice_failed.emit(job.job_id, readable_error(e))
            return
        self.voice_refreshed.emit(job.job_id, fresh)


def _smoke(engine: Engine | None, info: EngineInfo | None, folder: str) -> float:
    """The model check's short synthesis (:func:`cosycore.hub.verification.smoke_speech`): with the loaded
    engine when ``folder`` is its model, else with an engine loaded here."""
    from cosycore.hub.verification import smoke_speech, synthesis_smoke_test

    if engine is not None and info is not None and Path(info.model_dir).resolve() == Path(folder).resolve():
        audio, _chunks = smoke_speech(engine)
        return float(audio.size / engine.sample_rate)
    return float(synthesis_smoke_test(Path(folder)))


def _refresh(engine: Engine, voice: Voice) -> Voice:
    from cosycore.frontend.prompt import refresh_voice

    fresh = refresh_voice(voice, engine.cfg, engine.speech_tokenizer, engine.speaker_encoder)
    return replace(fresh, notes=voice.notes)
