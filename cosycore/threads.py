"""CPU threading: the OpenMP wait policy, torch's thread counts, and running a stage on its own thread.

Why this module exists. On a CPU, torch splits each operator over its intra-op (OpenMP) threads and
every operator ends at a barrier. With OpenMP's default wait policy a thread that reaches the
barrier first spins there, burning its core, and a thread that lost its core to another program
holds the whole operator up until the scheduler gives it a time slice again. A speech-LM decode
step is hundreds of small operators, so on a machine where another program keeps one core busy,
two spinning torch threads turned a real-time factor of 0.7 into 4 to 43 (README "Performance").

The policy chosen here (measured with ``bench/bench_busy.py``, README "Performance"):

* ``OMP_WAIT_POLICY=PASSIVE``: waiting threads sleep at once instead of spinning. It is read by the
  OpenMP runtime when torch's library loads, so it must be in the environment before ``import
  torch``; :func:`prefer_passive_wait` does that for the CLI and the app (it never overrides a value
  the user set);
* from :data:`OVERLAP_MIN_THREADS` threads on, the speech LM and token2wav (flow + vocoder) run on
  two threads of their own, each with ``threads // 2`` torch threads (:func:`stage_threads`), so
  that a request costs its slower stage instead of the sum of both; below that they take turns on
  every thread, as before;
* :func:`run_ahead` is the hand-over between the two: a bounded queue, no polling, and a stop that
  reaches the producer when the consumer goes away (cancel, an error, or an early close).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable
from typing import Any, Generic, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

# The LM and token2wav overlap from this many threads on: each stage then keeps at least two. On two
# cores a stage on one thread lost more than the overlap won (the int8 LM decodes 1.4-1.6x slower on
# one thread; README "Performance"), so there both run one after the other on every thread.
OVERLAP_MIN_THREADS = 4
WAIT_POLICY_ENV = "OMP_WAIT_POLICY"
PASSIVE = "PASSIVE"
SPINCOUNT_ENV = "GOMP_SPINCOUNT"
THREADS_ENV = "COSY_THREADS"  # overrides the default thread count of the CLI and the app


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS and Windows have no affinity mask here
        return max(1, os.cpu_count() or 1)


def prefer_passive_wait(environ: dict[str, str] | None = None) -> bool:
    """Put ``OMP_WAIT_POLICY=PASSIVE`` in the environment unless the user chose a wait already.

    Call before torch is imported (the OpenMP runtime reads it once, when torch loads). A user's
    ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` (GNU OpenMP's spin-then-sleep count, which takes
    precedence over the policy) is left alone. Returns True if the passive policy will apply: it was
    set here or by the user before torch was imported.
    """
    env = os.environ if environ is None else environ
    if SPINCOUNT_ENV in env and WAIT_POLICY_ENV not in env:
        return False
    env.setdefault(WAIT_POLICY_ENV, PASSIVE)
    if "torch" in sys.modules and environ is None:
        logger.info("torch was imported before the OpenMP wait policy could be chosen; it stays as it was")
        return False
    return env[WAIT_POLICY_ENV].upper() == PASSIVE


def default_threads(environ: dict[str, str] | None = None) -> int:
    """Torch threads for synthesis: ``$COSY_THREADS`` if set to a positive number, else every usable core."""
    env = os.environ if environ is None else environ
    raw = env.get(THREADS_ENV, "").strip()
    if raw:
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if value > 0:
            return value
        logger.warning("%s=%r is not a positive number of threads; using every core", THREADS_ENV, raw)
    return usable_cores()


def stage_threads(threads: int, *, overlap: bool) -> int:
    """Torch threads of each stage: half of ``threads`` each when the LM and token2wav overlap."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    return max(1, threads // 2) if overlap else threads


def set_torch_threads(n: int) -> None:
    """torch's intra-op threads for the calling thread (and the default for threads started later)."""
    import torch

    if n < 1:
        raise ValueError(f"threads must be at least 1, got {n}")
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


# --------------------------------------------------------------------------------------------
# Running an iterator ahead on its own thread
# --------------------------------------------------------------------------------------------


class _Channel(Generic[T]):
    """A bounded hand-over from one producer thread to one consumer. Blocking, no polling."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._capacity = capacity
        self._items: deque[T] = deque()
        self._cond = threading.Condition()
        self._closed = False  # the consumer went away: the producer must stop
        self._ended = False  # the producer has no more items
        self._error: BaseException | None = None

    def put(self, item: T) -> bool:
        """Wait for room and add ``item``; False once the consumer has closed the channel."""
        with self._cond:
            while len(self._items) >= self._capacity and not self._closed:
                self._cond.wait()
            if self._closed:
                return False
            self._items.append(item)
            self._cond.notify_all()
            return True

    def end(self, error: BaseException | None = None) -> None:
        with self._cond:
            self._ended = True
            self._error = error
            self._cond.notify_all()

    def get(self) -> tuple[bool, T | None]:
        """Wait for an item: ``(True, item)``, or ``(False, None)`` when the producer has ended.

        An exception raised by the producer is raised here, after the items it made before it.
        """
        with self._cond:
            while not self._items and not self._ended:
                self._cond.wait()
            if self._items:
                item = self._items.popleft()
                self._cond.notify_all()
                return True, item
            if self._error is not None:
                raise self._error
            return False, None

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._items.clear()
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed


def run_ahead(make: Callable[[], Iterable[T]], *, capacity: int = 256, name: str = "cosy-producer",
              context: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
              done: threading.Event | None = None) -> Generator[T, None, None]:
    """Iterate ``make()`` on a thread of its own, up to ``capacity`` items ahead of the caller.

    Returns a generator for the caller's thread. The producer runs inside ``context()`` (for
    example torch's inference mode and its thread count, which are per thread). An exception in the
    producer is raised to the caller after the items made before it. When the caller stops early
    (``close()``, an exception, garbage collection), the producer is told to stop at its next item,
    its iterator is closed on its own thread, and the call waits for it to finish, so nothing it
    holds outlives the request. ``done`` is set when the producer has made its last item (or failed),
    possibly while the caller still has items to take.
    """
    channel: _Channel[T] = _Channel(capacity)

    def produce() -> None:
        error: BaseException | None = None
        try:
            with context() if context is not None else contextlib.nullcontext():
                source = iter(make())
                try:
                    for item in source:
                        if not channel.put(item):
                            break
                finally:
                    close = getattr(source, "close", None)
                    if close is not None:
                        close()
        except BaseException as e:  # handed to the consumer, which raises it
            error = e
        finally:
            channel.end(error)
            if done is not None:
                done.set()

    def consume() -> Generator[T, None, None]:
        worker = threading.Thread(target=produce, name=name, daemon=True)
        worker.start()
        try:
            while True:
                ok, item = channel.get()
                if not ok:
                    return
                yield item  # type: ignore[misc]
        finally:
            channel.close()
            worker.join()

    return consume()
