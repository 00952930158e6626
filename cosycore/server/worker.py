"""The speech server's one way to the engine: a bounded queue of jobs run on the engine's own thread.

The engine is never touched by the server's event loop. An :class:`EngineHost` runs functions on
the thread that owns the engine, one after another; two hosts exist:

* :class:`ThreadEngineHost` here, for ``cosycore serve``: a plain thread that holds the engine;
* ``app.controllers.server``'s host, which queues to the desktop app's engine thread (so the server
  speaks with the model the app has loaded and never loads a second one; the app's own takes and
  the server's requests take turns).

:class:`SpeechWorker` admits at most ``1 + max_waiting`` requests (one running, the rest waiting);
past that :meth:`SpeechWorker.submit` raises :class:`QueueFullError` with a Retry-After estimate. Each
admitted request gets a :class:`Ticket`, through which the event loop receives the audio chunks as
the engine makes them (:class:`Audio`, then :class:`Done`, or :class:`Failed`/:class:`Cancelled`).
:meth:`Ticket.cancel` (any thread: the client went away) drops a waiting request, or stops a running
one inside the engine at its next token (``Engine.cancel``); the engine is ready for the next job.
"""

from __future__ import annotations

import asyncio
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..voices import Voice

logger = logging.getLogger(__name__)

Job = Callable[[Any], None]  # called on the engine's thread with the engine (None while no model is loaded)


@dataclass(frozen=True)
class ModelFacts:
    """What the server tells clients about the loaded model."""

    id: str  # the name /v1/models lists, e.g. "CosyVoice2-0.5B" (the release folder's name)
    family: str  # "cosyvoice2" or "cosyvoice3"
    sample_rate: int


class EngineHost(Protocol):
    """Something that owns an engine on one thread and runs jobs there, in order."""

    def submit(self, job: Job) -> None:
        """Queue ``job``; it is called on the engine's thread as ``job(engine)`` (``None``: no model)."""

    def model_facts(self) -> ModelFacts | None:
        """The loaded model, or None; callable from any thread."""


@dataclass(frozen=True)
class SpeechJob:
    """What to synthesise, in plain values (the engine request is built on the engine's thread)."""

    text: str
    voice: Voice
    mode: str  # "zero_shot", "cross_lingual" or "instruct"
    instructions: str = ""
    speed: float = 1.0
    seed: int | None = None
    stream: bool = True  # streaming hops (first audio early) or whole sentences (the offline path)


@dataclass(frozen=True, eq=False)
class ConversionJob:
    """A voice conversion (POST /v1/audio/conversions): the uploaded recording, spoken in ``voice``."""

    source: bytes  # the uploaded file, checked by cosycore.server.conversions.check_source
    voice: Voice
    speed: float = 1.0
    seed: int | None = None
    stream: bool = True
    max_source_seconds: float = 3600.0


@dataclass(frozen=True, eq=False)
class Audio:
    samples: np.ndarray  # float32 [N], a copy owned by the event
    sample_rate: int


@dataclass(frozen=True)
class Done:
    sample_rate: int
    input_tokens: int  # text tokens of the input
    output_tokens: int  # speech tokens made


@dataclass(frozen=True)
class Failed:
    error: BaseException


@dataclass(frozen=True)
class Cancelled:
    pass


Event = Audio | Done | Failed | Cancelled


class QueueFullError(Exception):
    """Every place in the queue is taken; try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int, capacity: int) -> None:
        super().__init__(f"The speech queue is full ({capacity} requests); try again in {retry_after} s.")
        self.retry_after = retry_after
        self.capacity = capacity


class NoModelError(Exception):
    """The host has no model loaded."""


class Ticket:
    """One admitted request: its events arrive on the event loop it was submitted from."""

    def __init__(self, worker: SpeechWorker, job: SpeechJob | ConversionJob, loop: asyncio.AbstractEventLoop) -> None:
        self.job = job
        self._worker = worker
        self._loop = loop
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._cancelled = threading.Event()
        self.started = threading.Event()  # set when the engine's thread takes the job
        self.finished = threading.Event()  # set after the last event was sent
        self._ended = False  # the engine's thread has sent the final event (Done, Failed or Cancelled)

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Drop the request (waiting) or stop it inside the engine (running). Any thread; idempotent."""
        if self._ended or self.finished.is_set() or self._cancelled.is_set():
            return
        self._cancelled.set()
        if not self.started.is_set():
            self._emit(Cancelled())  # answer now; the engine's thread skips the job when it comes to it
            self._worker._drop_waiting(self)  # and its queue slot is free for the next request at once
        self._worker._cancel_running(self)

    async def next_event(self) -> Event:
        return await self._events.get()

    def _emit(self, event: Event) -> None:
        """Engine thread: hand ``event`` to the event loop (a closed loop cancels the request)."""
        if not isinstance(event, Audio):
            self._ended = True  # a cancel from now on has nothing left to stop
        try:
            self._loop.call_soon_threadsafe(self._events.put_nowait, event)
        except RuntimeError:  # the loop is closed: nobody listens any more
            self._cancelled.set()


@dataclass
class WorkerStats:
    """Counters for /health and the app's status line."""

    running: int = 0
    waiting: int = 0
    capacity: int = 0
    served: int = 0
    cancelled: int = 0
    failed: int = 0


@dataclass
class _Running:
    ticket: Ticket
    engine: Any


class SpeechWorker:
    """Admits requests into a bounded queue and runs them, one at a time, through an :class:`EngineHost`."""

    def __init__(self, host: EngineHost, *, max_waiting: int = 4, first_estimate: float = 10.0) -> None:
        if max_waiting < 0:
            raise ValueError("max_waiting must be >= 0")
        self.host = host
        self.capacity = 1 + int(max_waiting)
        self._lock = threading.Lock()
        self._pending: set[Ticket] = set()  # admitted and not finished (running or waiting)
        self._running: _Running | None = None
        self._seconds = first_estimate  # smoothed wall time of a request, for Retry-After
        self._stats = WorkerStats(capacity=self.capacity)
        self._closed = False
        # Tests: called on the engine's thread after each chunk is handed out ("chunk") and before the
        # end is ("done"); holding it holds the engine inside the request.
        self.synthesis_hook: Callable[[Ticket, str], None] | None = None

    # -- event loop side ---------------------------------------------------------------------
    def submit(self, job: SpeechJob | ConversionJob, loop: asyncio.AbstractEventLoop | None = None) -> Ticket:
        """Admit ``job`` (raises :class:`QueueFullError`) and queue it on the engine's thread."""
        loop = loop or asyncio.get_running_loop()
        ticket = Ticket(self, job, loop)
        with self._lock:
            if self._closed:
                raise QueueFullError(5, self.capacity)
            if len(self._pending) >= self.capacity:
                raise QueueFullError(self._retry_after_locked(), self.capacity)
            self._pending.add(ticket)
        self.host.submit(lambda engine: self._run(ticket, engine))
        return ticket

    def stats(self) -> WorkerStats:
        with self._lock:
            s = WorkerStats(**vars(self._stats))
            s.running = 1 if self._running is not None else 0
            s.waiting = len(self._pending) - s.running
            return s

    def tickets(self) -> list[Ticket]:
        """The admitted requests (running or waiting), in no particular order."""
        with self._lock:
            return list(self._pending)

    def close(self) -> None:
        """Refuse new requests and cancel every admitted one (the server is stopping)."""
        with self._lock:
            self._closed = True
            pending = list(self._pending)
        for ticket in pending:
            ticket.cancel()

    def _retry_after_locked(self) -> int:
        return max(1, min(300, math.ceil(self._seconds * len(self._pending))))

    def _drop_waiting(self, ticket: Ticket) -> None:
        """A waiting request was cancelled (its client left): free its slot now, not when its turn comes."""
        with self._lock:
            running = self._running
            if ticket in self._pending and (running is None or running.ticket is not ticket):
                self._pending.discard(ticket)
                self._stats.cancelled += 1

    def _cancel_running(self, ticket: Ticket) -> None:
        with self._lock:  # held while cancelling, so the engine cannot move on to another request meanwhile
            running = self._running
            if running is not None and running.ticket is ticket and running.engine is not None:
                try:
                    running.engine.cancel()  # thread-safe; stops at the next token or chunk
                except Exception:  # cancelling must never fail the caller; the flag check still stops it
                    logger.exception("engine.cancel() failed")

    # -- engine thread ------------------------------------------------------------------------
    def _run(self, ticket: Ticket, engine: Any) -> None:
        with self._lock:
            skip = ticket.cancelled
            if not skip:
                self._running = _Running(ticket, engine)
        start = time.monotonic()
        outcome = "cancelled"
        try:
            ticket.started.set()
            if skip:
                ticket._emit(Cancelled())
            else:
                outcome = self._synthesize(ticket, engine)
        except Exception as e:  # reported to the client; the engine stays usable
            outcome = "failed"
            logger.info("speech request failed: %s", e, exc_info=not _is_expected(e))
            ticket._emit(Failed(e))
        finally:
            with self._lock:
                self._running = None
                counted = ticket in self._pending  # a waiting request dropped by its cancel is counted there
                self._pending.discard(ticket)
                stats = self._stats
                if not counted:
                    pass
                elif outcome == "done":
                    stats.served += 1
                    self._seconds = 0.7 * self._seconds + 0.3 * (time.monotonic() - start)
                elif outcome == "failed":
                    stats.failed += 1
                else:
                    stats.cancelled += 1
            ticket.finished.set()

    def _hook(self, ticket: Ticket, step: str) -> None:
        if self.synthesis_hook is not None:
            self.synthesis_hook(ticket, step)

    def _synthesize(self, ticket: Ticket, engine: Any) -> str:
        if engine is None:
            raise NoModelError("No model is loaded; load one in the app (or start cosycore serve with --model).")
        from ..engine import SynthesisRequest  # the engine's thread has torch loaded already

        job = ticket.job
        if isinstance(job, ConversionJob):
            import io

            chunks = engine.convert(io.BytesIO(job.source), job.voice, speed=job.speed, seed=job.seed,
                                    stream=job.stream, max_source_seconds=job.max_source_seconds)
            input_tokens = 0  # the source's speech tokens are counted as output tokens
        else:
            request = SynthesisRequest(
                job.text, mode=job.mode,  # type: ignore[arg-type]  # checked by validate_request
                voice=job.voice, instruct_text=job.instructions or None, speed=job.speed, seed=job.seed,
                stream=job.stream,
            )
            input_tokens = len(engine.tokenizer.encode(job.text))
            chunks = engine.synthesize(request)
        output_tokens = 0
        try:
            for chunk in chunks:
                if ticket.cancelled:
                    break
                output_tokens = int(chunk.tokens_so_far)
                if chunk.samples.size:
                    samples = np.array(chunk.samples, dtype=np.float32, copy=True).reshape(-1)
                    if not np.isfinite(samples).all():
                        raise FloatingPointError("the model produced invalid audio (NaN or infinite samples)")
                    ticket._emit(Audio(samples, int(chunk.sample_rate)))
                    self._hook(ticket, "chunk")
        finally:
            chunks.close()  # frees the request's state now, on this thread
        if ticket.cancelled:
            ticket._emit(Cancelled())
            return "cancelled"
        self._hook(ticket, "done")  # before the client can see the end
        ticket._emit(Done(int(engine.sample_rate), input_tokens, output_tokens))
        return "done"


def _is_expected(e: BaseException) -> bool:
    from ..errors import CosyError

    return isinstance(e, (CosyError, NoModelError))


@dataclass
class ThreadEngineHost:
    """``cosycore serve``'s engine owner: one thread that holds the engine and runs jobs in order."""

    engine: Any
    facts: ModelFacts
    torch_threads: int | None = None
    _jobs: queue.Queue[Job | None] = field(default_factory=queue.Queue)
    _thread: threading.Thread | None = None

    def start(self) -> ThreadEngineHost:
        self._thread = threading.Thread(target=self._loop, name="engine", daemon=True)
        self._thread.start()
        return self

    def submit(self, job: Job) -> None:
        self._jobs.put(job)

    def model_facts(self) -> ModelFacts | None:
        return self.facts

    def close(self, timeout: float = 30.0) -> bool:
        """Let the queued jobs finish (cancel them first through the worker), then end the thread."""
        self._jobs.put(None)
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def _loop(self) -> None:
        if self.torch_threads:
            import torch

            torch.set_num_threads(self.torch_threads)
        while True:
            job = self._jobs.get()
            if job is None:
                break
            try:
                job(self.engine)
            except Exception:  # a job reports its own errors; this keeps the loop alive regardless
                logger.exception("engine job failed")
