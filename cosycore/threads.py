"""CPU threading: the OpenMP wait policy, torch's thread counts, and running a stage on its own thread.

Why this module exists. On a CPU, torch splits each operator over its intra-op (OpenMP) threads and
every operator ends at a barrier. With OpenMP's default wait policy a thread that reaches the
barrier first spins there, burning its core, and a thread that lost its core to another program
holds the whole operator up until the scheduler gives it a time slice again. A speech-LM decode
step is hundreds of small operators, so on a machine where another program keeps one core busy,
two spinning torch threads turned a real-time factor of 0.7 into 4 to 43 (docs/performance.md).

The policy chosen here (measured with ``bench/bench_compare.py``, docs/performance.md):

* :func:`choose_wait_policy`, before ``import torch`` (the OpenMP runtime reads its settings once,
  when torch's library loads): on Linux OpenMP's own spin-then-sleep wait with a
  :class:`CoreGovernor` beside each request (below); elsewhere ``OMP_WAIT_POLICY=PASSIVE``
  (:func:`prefer_passive_wait`: waiting threads sleep at once). A value the user set is never
  overridden;
* from :data:`OVERLAP_MIN_THREADS` threads on (:data:`FLOAT_LM_OVERLAP_MIN_THREADS` for a float32
  LM, whose decode is bound by memory), the speech LM and token2wav (flow + vocoder) run on
  two threads of their own, each with ``threads // 2`` torch threads (:func:`stage_threads`), so
  that a request costs its slower stage instead of the sum of both; until the first audio they
  take turns on every thread (:class:`FirstAudioGate`), and token2wav takes every thread once the
  LM has finished; on one thread they always take turns;
* :func:`run_ahead` is the hand-over between the two: a bounded queue, no polling, and a stop that
  reaches the producer when the consumer goes away (cancel, an error, or an early close).

Since issue 28 the passive policy is the fallback, not the rule. It bought the busy case by losing a
third of the quiet speed: a sleeping thread takes tens of microseconds to wake, and a decode step
has hundreds of barriers. Where this process can see what the rest of the machine does (Linux's
``/proc/stat``), :func:`choose_wait_policy` leaves OpenMP's own spin-then-sleep wait in place, and a
:class:`CoreGovernor` runs beside each request: every few tenths of a second it measures how many
of this process's cores other programs keep busy, and gives torch only the cores that are left (one
thread on two cores with a competitor: no operator barrier is then shared with a descheduled
thread). Quiet machines spin; busy ones never wait on a barrier. ``COSY_THREAD_GOVERNOR=0``, or a
user's own ``OMP_WAIT_POLICY`` / ``GOMP_SPINCOUNT``, keeps the earlier behaviour.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any, Generic, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

# The LM and token2wav overlap from this many threads on: each stage then keeps at least two. On two
# cores a stage on one thread loses what the overlap wins for the int8 LM (it decodes 1.4-1.6x slower
# on one thread; docs/performance.md), so there both take turns on every thread; the float32 LM
# decodes as fast on one thread as on two (its matrix-vector products are bound by memory), so it
# overlaps from FLOAT_LM_OVERLAP_MIN_THREADS on, with a FirstAudioGate keeping the first audio as
# early as without the overlap.
OVERLAP_MIN_THREADS = 4
FLOAT_LM_OVERLAP_MIN_THREADS = 2
WAIT_POLICY_ENV = "OMP_WAIT_POLICY"
PASSIVE = "PASSIVE"
SPINCOUNT_ENV = "GOMP_SPINCOUNT"
THREADS_ENV = "COSY_THREADS"  # overrides the default thread count of the CLI and the app
GOVERNOR_ENV = "COSY_THREAD_GOVERNOR"  # "0": no governor, the passive wait instead (choose_wait_policy)
PROC_STAT = "/proc/stat"


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


def choose_wait_policy(environ: dict[str, str] | None = None) -> str:
    """Choose how waiting OpenMP threads behave; call before torch is imported. Returns the choice:

    * ``"user"``: the user set ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``; nothing is changed (and
      no governor runs, :func:`governor_enabled`);
    * ``"governed"``: OpenMP's own spin-then-sleep wait is kept and the engine runs a
      :class:`CoreGovernor` beside each request (Linux, where ``/proc/stat`` shows the other programs);
    * ``"passive"``: ``OMP_WAIT_POLICY=PASSIVE`` (:func:`prefer_passive_wait`) where the governor cannot
      see the machine, or ``COSY_THREAD_GOVERNOR=0``.
    """
    env = os.environ if environ is None else environ
    if WAIT_POLICY_ENV in env or SPINCOUNT_ENV in env:
        return "user"
    if env.get(GOVERNOR_ENV, "").strip() != "0" and cpu_times_readable():
        return "governed"
    prefer_passive_wait(environ)
    return "passive"


def governor_enabled(environ: dict[str, str] | None = None) -> bool:
    """Whether requests run with a :class:`CoreGovernor`: the OpenMP wait is not passive (a passive
    wait handles competing programs by itself), it was not turned off, and ``/proc/stat`` is readable."""
    env = os.environ if environ is None else environ
    if env.get(GOVERNOR_ENV, "").strip() == "0" or env.get(WAIT_POLICY_ENV, "").upper() == PASSIVE:
        return False
    return cpu_times_readable()


def cpu_times_readable() -> bool:
    try:
        return read_cpu_times() is not None
    except OSError:
        return False


def read_cpu_times(cpus: frozenset[int] | None = None) -> tuple[float, float] | None:
    """(busy seconds of ``cpus`` since boot, CPU seconds of this process), or None without /proc/stat.

    Busy is user + system + irq + softirq + steal of the per-CPU lines of ``cpus`` (default: this
    process's affinity set), so programs on cores this process may not use are not counted; "nice"
    time (programs at a lower priority) only when this process is niced too.
    """
    if not os.path.exists(PROC_STAT):
        return None
    wanted = cpus if cpus is not None else _affinity()
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    # Programs at a lower priority than this one ("nice" time) yield their cores to it within a time
    # slice, so they are not competitors; unless this process runs niced itself, where its own time
    # is counted there.
    niced = os.nice(0) > 0 if hasattr(os, "nice") else True
    busy = 0
    seen = False
    with open(PROC_STAT, encoding="ascii", errors="replace") as f:
        for line in f:
            if not line.startswith("cpu") or line.startswith("cpu "):
                continue
            name, *fields = line.split()
            if not name[3:].isdigit() or (wanted is not None and int(name[3:]) not in wanted):
                continue
            v = [int(x) for x in fields[:8]] + [0] * max(0, 8 - len(fields))
            busy += v[0] + v[2] + v[5] + v[6] + v[7]  # user system (idle iowait) irq softirq steal
            if niced:
                busy += v[1]
            seen = True
    if not seen:
        return None
    t = os.times()
    return busy / hz, t.user + t.system


def _affinity() -> frozenset[int] | None:
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


class CoreGovernor:
    """Gives torch the cores that other programs leave free, measured while a request runs.

    :meth:`tick` is cheap (a clock read); every ``interval`` seconds it reads the CPU times
    (:func:`read_cpu_times`) and estimates the cores other programs held since the last reading: the
    busy time of this process's cores minus this process's own CPU time. Torch then gets
    ``round(cores - others)`` threads, at least 1 and at most ``threads``. With OpenMP's spinning
    wait, two threads on two idle cores are the fastest layout; with a competitor on one core, a
    single thread never waits at a barrier for a partner that lost its core (README "Performance").
    The caller restores its own thread count when the request ends.
    """

    def __init__(self, threads: int, *, cores: int | None = None, interval: float = 0.3,
                 sample: Callable[[], tuple[float, float] | None] = read_cpu_times,
                 clock: Callable[[], float] = time.monotonic,
                 apply: Callable[[int], None] | None = None) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.max_threads = threads
        self.cores = cores if cores is not None else usable_cores()
        self.interval = interval
        self._sample, self._clock = sample, clock
        self._apply = apply if apply is not None else set_torch_threads
        self.current = threads
        self.others = 0.0  # cores other programs held in the last interval
        self.changes = 0
        self._t = clock()
        self._last = sample()

    def tick(self) -> int:
        """Re-measure if an interval has passed and set torch's threads; returns the threads in effect."""
        now = self._clock()
        dt = now - self._t
        if dt < self.interval:
            return self.current
        reading = self._sample()
        if reading is None or self._last is None:
            self._t, self._last = now, reading
            return self.current
        busy = reading[0] - self._last[0]
        own = reading[1] - self._last[1]
        self._t, self._last = now, reading
        self.others = max(0.0, (busy - own) / dt)
        want = max(1, min(self.max_threads, math.floor(self.cores - self.others + 0.5)))
        if want != self.current:
            logger.debug("other programs hold %.2f of %d cores: %d torch threads", self.others, self.cores, want)
            self._apply(want)
            self.current = want
            self.changes += 1
        return self.current

    def follow(self, items: Iterable[T]) -> Iterator[T]:
        """``items``, with a :meth:`tick` before each one (e.g. every speech token of a request)."""
        for item in items:
            self.tick()
            yield item


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


class FirstAudioGate:
    """Lockstep until a request's first audio, then the overlap (:func:`run_ahead`'s two stages).

    On a two-core machine the overlap (the LM on one core, token2wav on the other) shortens a
    request, but running the first flow call on one thread instead of two delays the first audio.
    So until :meth:`open` the producer (the LM) decodes a token only when the consumer asks for one
    (:meth:`want_token`), and both use ``lead_threads``: the stages take turns on every thread, as
    without the overlap. From :meth:`open` (the consumer has its first audio) on, each stage runs
    freely on ``stage_threads`` threads. :meth:`close` releases a waiting producer for good.
    """

    def __init__(self, lead_threads: int, stage_threads: int) -> None:
        self.lead_threads = lead_threads
        self.stage_threads = stage_threads
        self._credits = threading.Semaphore(0)
        self._open = threading.Event()
        self._producer_threads = lead_threads  # what the producer's context set
        self.producer_done = threading.Event()  # the LM has made its last token (run_ahead's ``done``)

    @property
    def is_open(self) -> bool:
        return self._open.is_set()

    def before_decode(self) -> None:
        """Producer thread, before each token: wait for the consumer's turn, and follow the thread
        count of the phase (``lead_threads`` before :meth:`open`, ``stage_threads`` after)."""
        if not self._open.is_set():
            self._credits.acquire()
        want = self.stage_threads if self._open.is_set() else self.lead_threads
        if want != self._producer_threads:
            set_torch_threads(want)
            self._producer_threads = want

    def set_lead(self, threads: int) -> None:
        """Consumer thread, before :meth:`open`: both stages take ``threads`` from now on (a
        :class:`CoreGovernor`'s ``apply``: fewer threads while other programs hold cores)."""
        if not self._open.is_set():
            self.lead_threads = threads
            set_torch_threads(threads)

    def want_token(self) -> None:
        """Consumer thread, each time it asks for the next token."""
        if not self._open.is_set():
            self._credits.release()

    def open(self) -> None:
        """Consumer thread, after its first audio: both stages from now on run freely."""
        if not self._open.is_set():
            if not self.producer_done.is_set():  # else the consumer keeps every thread for the rest
                set_torch_threads(self.stage_threads)
            self.close()

    def close(self) -> None:
        """Release the producer for good (also when the request ends or is cancelled)."""
        self._open.set()
        self._credits.release()
