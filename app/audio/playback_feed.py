"""What the audio callback plays from, and how much to buffer first: the player's logic without Qt or a device.

:class:`~app.audio.playback.Player` (Qt, sounddevice) owns one :class:`Feed` per open stream: PortAudio's
callback calls :meth:`Feed.fill`, the GUI thread writes the take's chunks into its ring through a
:class:`PendingQueue`, and :func:`preroll_seconds` sizes the pre-roll from the measured real-time
factor. They live here, with numpy and the standard library only, so that ``bench/bench_playback.py``
can replay measured chunk timelines through the same code on a machine without PySide6 or PortAudio.
"""

from __future__ import annotations

import collections
import threading

import numpy as np

RING_SECONDS = 20.0  # capacity of the ring; longer takes wait in the pending queue
MIN_PREROLL = 0.15  # seconds buffered before playback starts when synthesis outruns playback
DEFAULT_PREROLL = 0.5  # a saved take's start, and the old default before any real-time factor was measured
MAX_PREROLL = 20.0
# The pre-roll is sized for a real-time factor this much slower than the one measured, so that a take
# that runs up to 15 % slower than the running average still plays without a gap (a margin on the need
# itself did not do it: on a GPU, fast mode measured 0.55-0.58 then ran at 0.60-0.65 and stalled).
PREROLL_MARGIN = 1.15
# Before anything is measured for this model, device and mode (the app keeps the figure across
# restarts, so once per machine), the pre-roll is sized for real time: every mode the app would pick
# as live is then covered, instead of the 0.5 s that stalled 0.2-1.2 s in 4 of 6 first takes on a GPU.
UNMEASURED_RTF = 1.0

# Streamed chunk lengths of the release schedule: 25, 50, then 100 speech tokens at 25 tokens per
# second (the first also carries the prompt's padding, which only helps); the last one repeats.
STREAM_CHUNK_SECONDS = (1.0, 2.0, 4.0)


def hop_growth_need(rtf: float, expected_seconds: float) -> float:
    """Pre-roll that the growing chunks of a streamed take need at real-time factor ``rtf``.

    Chunk ``i`` (lengths ``d``, cumulative ``D``) is ready about ``rtf * (D_i - d_1)`` after the first
    one and starts playing ``P + D_(i-1)`` after it, so ``P >= rtf * (D_i - d_1) - D_(i-1)`` for every
    chunk of the take. Below real time the worst chunk is the one after the last doubling: at an RTF
    of 0.9 the third chunk (4 s) is ready 5.4 s after the first, but the first two play for only 3 s.
    """
    need = 0.0
    made = played = 0.0  # D_i - d_1 and D_(i-1)
    i = 0
    while played < expected_seconds:
        d = min(STREAM_CHUNK_SECONDS[min(i, len(STREAM_CHUNK_SECONDS) - 1)], expected_seconds - played)
        if i:
            made += d
            need = max(need, rtf * made - played)
        played += d
        i += 1
    return need


def preroll_seconds(rtf: float | None, expected_seconds: float) -> float:
    """Seconds of audio to buffer before playing so that a take of ``expected_seconds`` plays without gaps.

    Every streamed chunk must be ready before the audio before it has played out
    (:func:`hop_growth_need`): above real time that is the whole shortfall (about ``D * (1 - 1 / rtf)``),
    and because the chunks grow (1, 2, 4 s) even below real time the next chunk can take longer to make
    than the audio before it lasts. The deadlines are sized for ``rtf`` times :data:`PREROLL_MARGIN`;
    below about 0.43 (0.5 / 1.15) nothing is needed beyond the :data:`MIN_PREROLL` jitter margin.
    ``None`` (nothing measured yet) counts as :data:`UNMEASURED_RTF`. The result is a delay after the
    first chunk (see :class:`Feed`).
    """
    if rtf is None or not np.isfinite(rtf) or rtf <= 0:
        rtf = UNMEASURED_RTF
    expected = max(0.0, expected_seconds)
    need = hop_growth_need(rtf * PREROLL_MARGIN, expected)  # above 1 too: it checks every chunk's deadline
    if need <= 0:
        return MIN_PREROLL
    return float(min(MAX_PREROLL, need + MIN_PREROLL))


class RingBuffer:
    """A fixed-capacity float32 FIFO shared by one writer thread and one reader thread.

    The lock is held only for the copies, which are a few thousand samples, so the audio callback
    never waits long.
    """

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self._buf = np.zeros(capacity, dtype=np.float32)
        self._lock = threading.Lock()
        self._read = 0  # total samples read since the last clear
        self._written = 0  # total samples written since the last clear

    @property
    def capacity(self) -> int:
        return self._buf.shape[0]

    @property
    def available(self) -> int:
        with self._lock:
            return self._written - self._read

    @property
    def free(self) -> int:
        return self.capacity - self.available

    def clear(self) -> None:
        with self._lock:
            self._read = self._written = 0

    def write(self, samples: np.ndarray) -> int:
        """Append as many samples as fit; return how many were taken."""
        with self._lock:
            n = min(samples.shape[0], self.capacity - (self._written - self._read))
            if n <= 0:
                return 0
            start = self._written % self.capacity
            first = min(n, self.capacity - start)
            self._buf[start:start + first] = samples[:first]
            if n > first:
                self._buf[: n - first] = samples[first:n]
            self._written += n
            return n

    def read_into(self, out: np.ndarray) -> int:
        """Copy up to ``len(out)`` samples into ``out``; return how many were copied."""
        with self._lock:
            n = min(out.shape[0], self._written - self._read)
            if n <= 0:
                return 0
            start = self._read % self.capacity
            first = min(n, self.capacity - start)
            out[:first] = self._buf[start:start + first]
            if n > first:
                out[first:n] = self._buf[: n - first]
            self._read += n
            return n


class Feed:
    """What the audio callback reads: the ring and a few flags. Shared with PortAudio's thread.

    The first start waits for ``start_delay`` samples of device time after the stream opened (the
    pre-roll as :func:`preroll_seconds` sizes it: a delay after the first chunk, so that every later
    chunk of a growing stream is ready before the audio before it has played out) and for
    ``start_buffer`` buffered samples (the jitter margin). Waiting for the pre-roll as *buffered* audio
    instead can start too early: at an RTF of 0.9 the 2 s chunk arrives 1.8 s after the first one, 3 s
    are buffered at once, and the 4 s chunk then comes 0.6 s after the first two have played. After an
    underrun the feed waits until ``preroll`` samples are buffered again.
    """

    def __init__(self, capacity: int, preroll: int, *, start_delay: int = 0, start_buffer: int | None = None) -> None:
        self.ring = RingBuffer(capacity)
        self.preroll = preroll  # samples to buffer before restarting after an underrun
        self.start_delay = max(0, start_delay)  # device samples since the stream opened before the first start
        self.start_buffer = preroll if start_buffer is None else start_buffer  # samples buffered at the first start
        self.waited = 0  # device samples handed out as silence before the first start
        self.started = False  # pre-roll reached; cleared again by an underrun
        self.end_of_input = False  # no more samples will be written
        self.drained = False  # end of input reached and everything was handed to the device
        self.frames_played = 0  # real samples handed to the device (not silence)
        self.underruns = 0

    @classmethod
    def for_stream(cls, rate: int, preroll: float, ring_seconds: float = RING_SECONDS) -> Feed:
        """The feed of a stream at ``rate`` Hz: a ring of ``ring_seconds``; playback starts ``preroll``
        seconds after the stream opened, less the :data:`MIN_PREROLL` that must be buffered by then."""
        jitter = min(preroll, MIN_PREROLL)
        return cls(int(ring_seconds * rate), max(1, int(preroll * rate)),
                   start_delay=int((preroll - jitter) * rate), start_buffer=max(1, int(jitter * rate)))

    def _may_start(self) -> bool:
        if self.end_of_input:
            return True
        if self.frames_played == 0:  # the first start (an underrun needs played samples): a delay, then a margin
            return self.waited >= self.start_delay and self.ring.available >= self.start_buffer
        return self.ring.available >= self.preroll

    def fill(self, out: np.ndarray) -> bool:
        """Fill ``out`` (mono float32) for the device; return False once the take has played out."""
        if not self.started:
            if self._may_start():
                self.started = True
            else:
                out.fill(0.0)
                if self.frames_played == 0:
                    self.waited += out.shape[0]
                return True
        n = self.ring.read_into(out)
        self.frames_played += n
        if n < out.shape[0]:
            out[n:] = 0.0
            if self.end_of_input and self.ring.available == 0:
                self.drained = True
                return False
            self.underruns += 1
            self.started = False  # wait for the pre-roll again instead of stuttering
        return True


class PendingQueue:
    """The take's samples that have not found room in the ring yet. Owned by the writer (the GUI thread).

    The ring holds :data:`RING_SECONDS`; the rest of a longer take waits here and moves over as the
    callback makes room (:meth:`top_up`). When the input ends while samples still wait, the feed
    learns of the end only once they are all in the ring.
    """

    def __init__(self) -> None:
        self._chunks: collections.deque[np.ndarray] = collections.deque()
        self.samples = 0  # samples waiting here
        self._end = False  # the input has ended; tell the feed once everything is in the ring

    def __bool__(self) -> bool:
        return bool(self._chunks)

    def put(self, samples: np.ndarray) -> None:
        """Queue ``samples`` (1-D float32) behind what already waits."""
        if samples.size:
            self._chunks.append(samples)
            self.samples += samples.size

    def end(self) -> None:
        """No more samples will be put; :meth:`top_up` ends the feed's input once the queue is empty."""
        self._end = True

    def clear(self) -> None:
        self._chunks.clear()
        self.samples = 0
        self._end = False

    def top_up(self, feed: Feed) -> None:
        """Move as much as fits into ``feed``'s ring, in order; end its input when the end has come through."""
        while self._chunks:
            head = self._chunks[0]
            n = feed.ring.write(head)
            self.samples -= n
            if n == head.shape[0]:
                self._chunks.popleft()
            else:
                self._chunks[0] = head[n:]
                break
        if self._end and not self._chunks:
            feed.end_of_input = True
            self._end = False
