"""A long-form render on the engine thread, in slices that give way to takes.

The engine thread runs one job at a time, and a book takes hours. So :class:`RenderRunner` never holds
the thread for the whole render: it queues a *slice* (:meth:`EngineThread.run_on_engine`) that renders
segment after segment with :class:`cosycore.studio.longform.LongFormJob` and returns as soon as other
work is waiting (a take, a voice being made, a model load, a request of the local server). The GUI
thread then queues the next slice behind that work. When the user speaks a take, :meth:`make_way`
also stops the segment in progress at once; that segment is made again afterwards with the same seed,
so the file is the same as from an uninterrupted render.

Every slice rebuilds the job from the state file beside the output (the engine's resume), so the runner
never keeps a reference to the engine between slices and a model load in between is noticed: the render
pauses and says so. Pause and Cancel stop the segment in progress (it is redone on resume); the partial
audio and the state file stay, and the render can be resumed, also after a restart.

Signals are emitted on the engine thread and delivered queued; the runner's state lives on the GUI thread.
"""

from __future__ import annotations

import enum
import errno
import logging
import shutil
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from cosycore.errors import InputError, StorageError
from cosycore.studio.cast import resolve_instruction
from cosycore.studio.lexicon import combine, load_app_lexicon, voice_lexicon
from cosycore.studio.longform import (
    CannotResumeError,
    Document,
    LongFormJob,
    LongFormProgress,
    load_document,
    state_path,
)
from cosycore.studio.longform import partial_path as longform_partial_path
from cosycore.voices import Voice

from ..takes.render_records import RenderSpec, render_progress
from .engine_thread import EngineThread, readable_error

if TYPE_CHECKING:
    from cosycore.engine import Engine

logger = logging.getLogger(__name__)

LOW_DISK_BYTES = 16 * 1024 * 1024  # below this much free space a failed write is reported as a full disk


class RenderState(enum.Enum):
    WAITING = "waiting"  # a slice is queued behind other work on the engine thread
    RENDERING = "rendering"  # a slice is running
    PAUSED = "paused"
    CANCELLED = "cancelled"  # stopped by the user; the partial render is kept for later
    FINISHED = "finished"
    FAILED = "failed"  # an error; Resume tries again from the last finished segment
    NEEDS_RESTART = "needs_restart"  # the text, voice or settings changed: only starting over can go on


@dataclass(frozen=True)
class RenderStatus:
    """What the progress panel shows."""

    done: int  # segments finished
    total: int
    percent: float  # of the document's characters
    audio_seconds: float  # of output so far
    elapsed: float  # seconds spent rendering in this session
    eta: float | None  # seconds left at this session's speed; None until a segment has finished


@dataclass(frozen=True)
class _SliceEnd:
    outcome: str  # "done", "stopped", "failed", "mismatch", "model_changed"
    message: str = ""
    seconds: float = 0.0
    files: tuple[Path, ...] = ()
    model_key: tuple[str, ...] = ()
    generation: int = 0  # of the slice that ended


def _disk_full(e: BaseException, folder: Path) -> bool:
    for err in (e, e.__cause__):
        if isinstance(err, OSError) and err.errno == errno.ENOSPC:
            return True
    try:
        return shutil.disk_usage(folder).free < LOW_DISK_BYTES
    except OSError:
        return False


class RenderRunner(QObject):
    """Runs one render spec. Created and owned by the long-form controller (GUI thread)."""

    state_changed = Signal(object)  # RenderState
    status_changed = Signal(object)  # RenderStatus
    finished = Signal(object)  # tuple of the files written
    failed = Signal(str)  # readable message (state FAILED or NEEDS_RESTART)

    _slice_started = Signal(int, int, int, int, float)  # done, total, chars done, chars total, audio s (engine thread)
    _progress = Signal(object)  # LongFormProgress (engine thread)
    _slice_ended = Signal(object)  # _SliceEnd (engine thread)

    def __init__(self, engine_thread: EngineThread, spec: RenderSpec, voice: Voice, *, restart: bool = False,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine_thread = engine_thread
        self.spec = spec
        self.voice = voice
        self.state = RenderState.PAUSED
        self.status: RenderStatus | None = None
        self.message = ""
        self._restart = restart
        self._document: Document | None = None  # parsed once, on the engine thread
        self._model_key: tuple[str, ...] = ()  # the model the render uses (a load in between pauses it)
        self._lock = threading.Lock()
        self._job: LongFormJob | None = None  # the job of the slice running now (engine thread sets it)
        self._stop_wanted = False  # pause or cancel asked for (GUI thread sets it, the slice reads it)
        self._cancel_wanted = False
        self._generation = 0  # of the slice queued last; an older queued slice does nothing
        # Clock of this session's rendering (GUI thread): seconds in finished slices, the start of the
        # running slice, characters made in this session and when the last segment finished.
        self._seconds = 0.0
        self._slice_began: float | None = None
        self._session_chars = 0
        self._chars_seen: int | None = None
        self._last_eta: tuple[float, float] | None = None  # (eta at the last segment, time.monotonic() then)
        self._slice_started.connect(self._on_slice_started)
        self._progress.connect(self._on_progress)
        self._slice_ended.connect(self._on_slice_ended)

    # -- GUI thread ------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.state in (RenderState.WAITING, RenderState.RENDERING)

    @property
    def partial(self) -> Path:
        return longform_partial_path(self.spec.out)

    def start(self) -> None:
        """Queue the next slice (also to resume after a pause or a failure)."""
        if self.active:
            return
        with self._lock:
            self._stop_wanted = False
            self._cancel_wanted = False
        self.message = ""
        self._set_state(RenderState.WAITING)
        self._queue_slice()

    def _queue_slice(self) -> None:
        with self._lock:
            self._generation += 1
            generation = self._generation
        self.engine_thread.run_on_engine(lambda engine: self._run_slice(engine, generation))

    def resume(self) -> None:
        if self.state is RenderState.NEEDS_RESTART:
            return
        if self.message and self.state is RenderState.PAUSED:
            self._model_key = ()  # paused for a new model: go on with the one loaded now
        self.start()

    def restart(self) -> None:
        """Start over (after NEEDS_RESTART): the unfinished render is discarded by the engine, then rendered anew."""
        self._restart = True
        self._document = None
        self._model_key = ()
        self.state = RenderState.PAUSED
        self.start()

    def pause(self) -> None:
        """Stop now; the segment in progress is made again on resume."""
        self._stop(cancel=False)

    def cancel(self) -> None:
        """Stop now and let the render go; its partial audio and state stay for a later resume."""
        self._stop(cancel=True)

    def _stop(self, *, cancel: bool) -> None:
        with self._lock:
            self._stop_wanted = True
            self._cancel_wanted = self._cancel_wanted or cancel
            job = self._job
        if job is not None:
            job.stop()  # cancels the engine: only the render's own segment is running
        if self.state is RenderState.WAITING:
            # Nothing runs yet; the queued slice will see the flag and return without work.
            self._set_state(RenderState.CANCELLED if cancel else RenderState.PAUSED)
        elif not self.active and cancel:
            self._set_state(RenderState.CANCELLED)

    def make_way(self) -> None:
        """A take is asked for: stop the segment in progress now; the render goes on after the take."""
        with self._lock:
            job = self._job
        if job is not None:
            job.stop()

    def elapsed(self) -> float:
        running = time.monotonic() - self._slice_began if self._slice_began is not None else 0.0
        return self._seconds + running

    def eta(self) -> float | None:
        if self._last_eta is None:
            return None
        eta, at = self._last_eta
        return max(0.0, eta - (time.monotonic() - at))

    def refresh_status(self) -> None:
        """Emit the status with the clock read now (the panel calls it every second)."""
        if self.status is not None:
            self.status = RenderStatus(self.status.done, self.status.total, self.status.percent,
                                       self.status.audio_seconds, self.elapsed(), self.eta())
            self.status_changed.emit(self.status)

    def _set_state(self, state: RenderState) -> None:
        if state is not self.state:
            self.state = state
            self.state_changed.emit(state)

    def _on_slice_started(self, done: int, total: int, chars_done: int, chars_total: int, audio: float) -> None:
        self._slice_began = time.monotonic()
        self._chars_seen = chars_done
        if self.state is RenderState.WAITING:
            self._set_state(RenderState.RENDERING)
        if self.status is None:
            percent = 100.0 * chars_done / max(1, chars_total)
            self.status = RenderStatus(done, total, percent, audio, self.elapsed(), None)
        self.refresh_status()

    def _on_progress(self, p: LongFormProgress) -> None:
        if self._chars_seen is not None:
            self._session_chars += max(0, p.chars_done - self._chars_seen)
        self._chars_seen = p.chars_done
        elapsed = self.elapsed()
        left = p.chars_total - p.chars_done
        if self._session_chars > 0:
            self._last_eta = (elapsed / self._session_chars * left, time.monotonic())
        self.status = RenderStatus(p.done, p.total, 100.0 * p.chars_done / max(1, p.chars_total), p.audio_seconds,
                                   elapsed, self.eta())
        self.status_changed.emit(self.status)

    def _on_slice_ended(self, end: _SliceEnd) -> None:
        if self._slice_began is not None:
            self._seconds += end.seconds
            self._slice_began = None
        with self._lock:
            stop, cancel = self._stop_wanted, self._cancel_wanted
            stale = end.generation != self._generation
        if stale:
            return  # stopped and started again before this slice reported: the newer slice goes on
        if end.model_key and not self._model_key:
            self._model_key = end.model_key
        if end.outcome in ("done", "mismatch") or cancel:
            self._document = None  # read again if it is ever needed: the text may be large
        if end.outcome == "done":
            self._restart = False
            self._last_eta = (0.0, time.monotonic())
            self.refresh_status()
            self._set_state(RenderState.FINISHED)
            self.finished.emit(end.files)
        elif end.outcome == "stopped":
            if cancel:
                self._set_state(RenderState.CANCELLED)
            elif stop:
                self._set_state(RenderState.PAUSED)
            else:  # gave way to other work: go on behind it
                self._set_state(RenderState.WAITING)
                self._queue_slice()
        elif end.outcome == "model_changed":
            self.message = end.message
            self._set_state(RenderState.PAUSED)
        else:
            self.message = end.message
            self._set_state(RenderState.NEEDS_RESTART if end.outcome == "mismatch" else RenderState.FAILED)
            self.failed.emit(end.message)
        if end.outcome != "stopped" or stop or cancel:
            self.refresh_status()

    # -- engine thread ---------------------------------------------------------------------------
    def _run_slice(self, engine: Engine | None, generation: int) -> None:
        """One slice: runs on the engine thread; reports through the signals and never raises."""
        began = time.perf_counter()
        with self._lock:
            if generation != self._generation:
                return  # stopped and started again while this slice waited: the newer one goes on
            if self._stop_wanted:
                end: _SliceEnd | None = _SliceEnd("stopped")
            else:
                end = None
        if end is None:
            try:
                end = self._render(engine, began)
            except CannotResumeError as e:
                logger.info("cannot resume %s: %s", self.spec.out, e)
                end = _SliceEnd("mismatch", self._mismatch_message(), time.perf_counter() - began)
            except Exception as e:  # reported in the panel; the partial render stays
                if isinstance(e, (InputError, StorageError)):
                    logger.warning("rendering %s failed: %s", self.spec.out, e)
                else:
                    logger.exception("rendering %s failed", self.spec.out)
                end = _SliceEnd("failed", self._failure_message(e), time.perf_counter() - began)
            finally:
                with self._lock:
                    self._job = None  # no reference to the engine outlives the slice
        self._slice_ended.emit(replace(end, generation=generation))

    def _render(self, engine: Engine | None, began: float) -> _SliceEnd:
        if engine is None:
            raise InputError("No model is loaded. Load one (File › Models…), then press Resume.")
        key = (str(engine.cfg.model_dir), str(engine.model.device), str(engine.quality))
        if self._model_key and key != self._model_key:
            return _SliceEnd("model_changed", self.tr(
                "Paused: another model was loaded. Resume goes on with the model loaded now; the audio made "
                "so far stays as it is."))
        if self._document is None:
            self._document = load_document(self.spec.source)
        document = self._document
        spec = self.spec
        instruction = resolve_instruction(spec.instruction, engine.family) if spec.instruction else ""
        settings = spec.settings(resuming=not self._restart and state_path(spec.out).exists())
        if instruction != spec.instruction:
            settings = replace(settings, instruction=instruction or None)
        lexicon = combine(load_app_lexicon(), voice_lexicon(self.voice))
        job = LongFormJob(engine, document, self.voice, spec.out, settings, lexicon, restart=self._restart,
                          overwrite=spec.overwrite)
        self._restart = False  # the engine has discarded the old render; slices from now on resume
        with self._lock:
            if self._stop_wanted:
                return _SliceEnd("stopped", seconds=time.perf_counter() - began, model_key=key)
            self._job = job
        segments = document.segments
        done = job.state.done
        chars_done = sum(len(s.text) for s in segments[:done])
        audio = sum(job.state.segment_samples) / job.state.sample_rate
        self._slice_started.emit(done, len(segments), chars_done, document.total_chars, audio)
        if self.engine_thread.has_waiting_work() and not job.done:
            return _SliceEnd("stopped", seconds=time.perf_counter() - began, model_key=key)

        def progress(p: LongFormProgress) -> None:
            self._progress.emit(p)
            with self._lock:
                stop = self._stop_wanted
            if stop or self.engine_thread.has_waiting_work():
                job.stop()  # after this finished segment: the next slice goes on from here

        finished = job.run(progress)
        seconds = time.perf_counter() - began
        if not finished:
            return _SliceEnd("stopped", seconds=seconds, model_key=key)
        files = tuple(spec.output_files(len(document.chapter_titles)))
        return _SliceEnd("done", seconds=seconds, files=files, model_key=key)

    def _mismatch_message(self) -> str:
        return self.tr(
            "{0}, the voice, the dictionary or the settings changed since this render began, so it cannot "
            "go on where it stopped. Start over renders the text as it is now (the unfinished audio is "
            "discarded); or put {0} back as it was and press Resume.").format(self.spec.title)

    def _failure_message(self, e: BaseException) -> str:
        folder = self.spec.out.parent
        if _disk_full(e, folder if folder.is_dir() else Path.home()):
            head = self.tr("The disk is full: {0} has no room for the audio. Free some space, then press Resume.") \
                .format(folder)
        else:
            head = readable_error(e)
        progress = render_progress(self.spec)  # the state file says what is safe on disk
        if progress is not None and progress.done:
            kept = self.tr("The {0} finished segments are kept in {1}; Resume goes on from there.").format(
                progress.done, self.partial.name)
            return f"{head}\n{kept}"
        return head
