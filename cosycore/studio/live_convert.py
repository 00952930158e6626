"""Live voice conversion from a microphone, without a GUI: cutting the input into pieces, converting them
in turn, joining the results, and measuring how far the converted voice lags behind the speaker.

The app (``app.controllers.convert``) and ``bench/bench_convert.py --live`` share this module:

- :class:`PieceCutter` takes the microphone's blocks as they come and hands out :class:`LivePiece`
  objects of :data:`MIN_PIECE_SECONDS` to :data:`MAX_PIECE_SECONDS`, cut in the quietest 100 ms of
  the newest stretch (a short pause between words when there is one). Each piece carries
  :data:`CONTEXT_SECONDS` of the audio before it, so the speech tokenizer hears the start of its first
  word in context; the converted context is dropped again.
- :class:`LiveFeed` passes the pieces from the thread that records to the thread that converts.
- :func:`convert_pieces` converts each piece with :meth:`cosycore.engine.Engine.convert` (not
  streamed: a piece is short) and yields exactly ``piece seconds`` of converted audio per piece; a
  silent piece becomes silence without running the model. :class:`Stitcher` cross-fades the joins.
- :class:`LatencyMeter` replays the playback queue: a piece plays when it is ready and the piece before
  it has played out, so its *latency* (mouth to ear) is the moment its first sample plays minus the
  moment that sample was spoken, the same for every sample of the piece. The real-time factor is the
  conversion's compute time per second of speech; above about 1 the queue grows without bound and the
  meter says the machine cannot keep up.
- :func:`same_device` tells whether a microphone and an output are one sound card (the app refuses to
  play a live conversion into a room its microphone hears, unless the user wears headphones).
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError

# The engine's limits (cosycore.engine.convert.source; not imported: it pulls in torch, and the app's GUI
# thread imports this module before the engine thread has loaded torch). A test keeps them equal.
MIN_SAMPLE_RATE = 16000
MIN_SOURCE_SECONDS = 0.5
MIN_PIECE_SECONDS = 1.0  # a piece is never cut shorter (except the last): the tokenizer needs context
MAX_PIECE_SECONDS = 2.0  # ... nor longer: the longer a piece, the longer the wait for its first sample
CONTEXT_SECONDS = 0.24  # audio before a piece converted with it and dropped (6 speech tokens)
CROSSFADE_SECONDS = 0.02  # joins between converted pieces
PAUSE_SECONDS = 0.1  # the cut goes in the middle of the quietest 100 ms ...
PAUSE_SEARCH_SECONDS = 0.8  # ... of the newest 0.8 s of a piece
BEHIND_RTF = 1.0  # a recent real-time factor above this: the conversion cannot keep up
BEHIND_BACKLOG_SECONDS = 6.0  # ... or this much converted audio still waiting for its turn to play
RECENT_PIECES = 5  # the real-time factor shown is over this many of the newest pieces


@dataclass(frozen=True, eq=False)
class LivePiece:
    """A stretch of the microphone's input, ready to convert."""

    index: int  # 0, 1, 2, ...
    samples: np.ndarray  # float32 [C + N]: the context, then the new audio
    context: int  # samples of context at the start (already in the piece before)
    sample_rate: int
    start: float  # seconds into the recording of the first new sample
    spoken_at: float  # time.perf_counter() when its first new sample was spoken (captured)
    is_last: bool = False

    @property
    def new_samples(self) -> int:
        return self.samples.shape[0] - self.context

    @property
    def seconds(self) -> float:
        """Length of the new audio (what the piece adds to the recording)."""
        return self.new_samples / self.sample_rate


class PieceCutter:
    """Cuts a live input into pieces (GUI thread or the bench's feeder; not thread-safe)."""

    def __init__(self, sample_rate: int, *, min_seconds: float = MIN_PIECE_SECONDS,
                 max_seconds: float = MAX_PIECE_SECONDS, context_seconds: float = CONTEXT_SECONDS) -> None:
        if sample_rate < MIN_SAMPLE_RATE:
            raise InputError(f"the microphone records at {sample_rate} Hz; live conversion needs at least "
                             f"{MIN_SAMPLE_RATE // 1000} kHz. Choose another microphone or its 48 kHz mode.")
        if not 0 < min_seconds <= max_seconds:
            raise ValueError("need 0 < min_seconds <= max_seconds")
        self.sample_rate = sample_rate
        self.min_samples = round(min_seconds * sample_rate)
        self.max_samples = round(max_seconds * sample_rate)
        self.context_samples = round(context_seconds * sample_rate)
        self._buf = np.zeros(0, np.float32)
        self._context = np.zeros(0, np.float32)
        self._consumed = 0  # samples of the recording handed out in pieces
        self._received = 0  # samples pushed
        self._index = 0
        self._last_time: float | None = None  # when the newest sample arrived

    @property
    def pending_seconds(self) -> float:
        """Input received but not yet in a piece."""
        return self._buf.shape[0] / self.sample_rate

    @property
    def received_seconds(self) -> float:
        return self._received / self.sample_rate

    def push(self, samples: np.ndarray, now: float | None = None) -> list[LivePiece]:
        """Add a block that has just arrived (``now``: when its last sample was captured) and return the
        pieces that are complete."""
        x = np.asarray(samples, dtype=np.float32).reshape(-1)
        self._last_time = time.perf_counter() if now is None else now
        self._received += x.shape[0]
        self._buf = np.concatenate([self._buf, x]) if self._buf.size else x.copy()
        out = []
        while self._buf.shape[0] >= self.max_samples or (
                self._buf.shape[0] >= self.min_samples + self._pause_samples() and self._has_pause()):
            out.append(self._cut(self._find_cut()))
        return out

    def flush(self, now: float | None = None) -> LivePiece | None:
        """The rest of the input as the last piece (None when nothing is left)."""
        if self._buf.shape[0] == 0:
            return None
        return self._cut(self._buf.shape[0], last=True, now=now)

    # -- cutting --------------------------------------------------------------------------------
    def _pause_samples(self) -> int:
        return max(1, round(PAUSE_SECONDS * self.sample_rate))

    def _levels(self, lo: int, hi: int) -> np.ndarray:
        """Mean power of each PAUSE_SECONDS/4 frame of ``buf[lo:hi]``, smoothed over PAUSE_SECONDS."""
        frame = max(1, self._pause_samples() // 4)
        region = self._buf[lo:hi].astype(np.float64)
        n = region.shape[0] // frame
        if n < 4:
            return np.zeros(0)
        energy = (region[: n * frame].reshape(n, frame) ** 2).mean(axis=1)
        return np.convolve(energy, np.ones(4) / 4, mode="valid")

    def _has_pause(self) -> bool:
        """A pause (the newest 100 ms clearly quieter than the loud part) ends the buffer: cut now."""
        tail = self._buf[-self._pause_samples():].astype(np.float64)
        head = self._buf[: -self._pause_samples()].astype(np.float64)
        if head.size == 0:
            return False
        return float(np.mean(tail ** 2)) < 0.01 * float(np.percentile(head ** 2, 95)) + 1e-10

    def _find_cut(self) -> int:
        hi = min(self._buf.shape[0], self.max_samples)
        lo = max(self.min_samples, hi - round(PAUSE_SEARCH_SECONDS * self.sample_rate))
        levels = self._levels(lo, hi)
        if levels.size == 0:
            return hi
        frame = max(1, self._pause_samples() // 4)
        best = int(np.flatnonzero(levels <= levels.min() * (1 + 1e-9) + 1e-20)[-1])
        return min(hi, lo + (best + 2) * frame)

    def _cut(self, n: int, *, last: bool = False, now: float | None = None) -> LivePiece:
        new = self._buf[:n]
        self._buf = self._buf[n:]
        rate = self.sample_rate
        arrived = self._last_time if self._last_time is not None else (time.perf_counter() if now is None else now)
        behind = (self._received - self._consumed) / rate  # first new sample was spoken this long before `arrived`
        piece = LivePiece(self._index, np.concatenate([self._context, new]), self._context.shape[0], rate,
                          self._consumed / rate, arrived - behind, last)
        self._index += 1
        self._consumed += n
        both = np.concatenate([self._context, new])
        self._context = both[max(0, both.shape[0] - self.context_samples):].copy()
        return piece


class Stitcher:
    """Joins converted pieces with a short cross-fade: the newest piece's last :data:`CROSSFADE_SECONDS`
    are held back until the next piece arrives (or :meth:`flush`)."""

    def __init__(self, sample_rate: int, crossfade_seconds: float = CROSSFADE_SECONDS) -> None:
        self.fade = max(0, round(crossfade_seconds * sample_rate))
        self._tail = np.zeros(0, np.float32)

    def add(self, audio: np.ndarray, lead_in: np.ndarray | None = None) -> np.ndarray:
        """``audio``: a piece's converted new audio; ``lead_in``: the converted context just before it (the
        same moment as the held-back tail), cross-faded into that tail. Returns what can play now."""
        x = np.asarray(audio, dtype=np.float32)
        head = self._tail
        if head.size and lead_in is not None and lead_in.shape[0] >= head.shape[0]:
            ramp = np.linspace(0.0, 1.0, head.shape[0], dtype=np.float32)
            head = head * (1.0 - ramp) + lead_in[lead_in.shape[0] - head.shape[0]:] * ramp
        keep = min(self.fade, x.shape[0])
        self._tail = x[x.shape[0] - keep:].copy()
        return np.concatenate([head, x[: x.shape[0] - keep]]).astype(np.float32)

    def flush(self) -> np.ndarray:
        out, self._tail = self._tail, np.zeros(0, np.float32)
        return out


class LiveFeed:
    """Pieces from the recording thread to the converting thread. Thread-safe."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[LivePiece | None] = queue.SimpleQueue()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._waiting = 0.0  # seconds of input queued, not yet taken

    def put(self, piece: LivePiece) -> None:
        if self._closed.is_set():
            return
        with self._lock:
            self._waiting += piece.seconds
        self._queue.put(piece)

    def close(self) -> None:
        """No more pieces: the converter ends after the ones queued."""
        if not self._closed.is_set():
            self._closed.set()
            self._queue.put(None)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def waiting_seconds(self) -> float:
        with self._lock:
            return self._waiting

    def pieces(self, cancelled: Callable[[], bool] = lambda: False, poll: float = 0.05) -> Iterator[LivePiece]:
        """The pieces in order until :meth:`close` (or ``cancelled()``, checked every ``poll`` seconds)."""
        while not cancelled():
            try:
                piece = self._queue.get(timeout=poll)
            except queue.Empty:
                continue
            if piece is None:
                return
            with self._lock:
                self._waiting -= piece.seconds
            yield piece


@dataclass(frozen=True)
class ConvertedPiece:
    """One piece's converted audio and when it was ready."""

    index: int
    samples: np.ndarray  # float32, what plays next (cross-faded; the last piece also holds the held-back tail)
    seconds: float  # the piece's length in the recording
    spoken_at: float  # perf_counter() when its first sample was spoken
    ready_at: float  # perf_counter() when its audio was ready
    compute_seconds: float  # converting it took this long (0 for a silent piece)
    silent: bool


def is_silent_piece(piece: LivePiece) -> bool:
    """The engine's test for silence, on the piece's new audio (called where the engine runs)."""
    from ..frontend.features import analyse_audio

    return analyse_audio(piece.samples[piece.context:], piece.sample_rate).is_silent


def convert_pieces(engine: Any, pieces: Iterator[LivePiece], *, voice: Any = None, prompt_audio: Any = None,
                   prompt_sample_rate: int | None = None, seed: int | None = None,
                   cancelled: Callable[[], bool] = lambda: False) -> Iterator[ConvertedPiece]:
    """Convert live pieces one by one with ``engine.convert`` (target: ``voice`` or ``prompt_audio``).

    Each yields exactly its length of audio at the engine's rate (converted context dropped, a short
    piece padded for the tokenizer and trimmed again), so the converted voice keeps the speaker's timing
    and the latency does not drift. Errors are the engine's (:class:`~cosycore.errors.CosyError`).
    """
    out_rate = int(engine.sample_rate)
    stitcher = Stitcher(out_rate)
    for piece in pieces:
        if cancelled():
            return
        began = time.perf_counter()
        n_out = round(piece.new_samples * out_rate / piece.sample_rate)
        ctx_out = round(piece.context * out_rate / piece.sample_rate)
        silent = is_silent_piece(piece)
        if silent:
            converted = np.zeros(ctx_out + n_out, np.float32)
            compute = 0.0
        else:
            source = piece.samples
            short = round(MIN_SOURCE_SECONDS * piece.sample_rate) + 1 - source.shape[0]
            if short > 0:  # the engine refuses sources under half a second: pad the last piece with silence
                source = np.concatenate([source, np.zeros(short, np.float32)])
            piece_seed = None if seed is None else seed + piece.index
            chunks = engine.convert(source, voice, sample_rate=piece.sample_rate, prompt_audio=prompt_audio,
                                    prompt_sample_rate=prompt_sample_rate, stream=False, seed=piece_seed)
            try:
                parts = [np.asarray(c.samples, dtype=np.float32).reshape(-1) for c in chunks]
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()
            converted = np.concatenate(parts) if parts else np.zeros(0, np.float32)
            want = ctx_out + n_out
            if converted.shape[0] < want:
                converted = np.concatenate([converted, np.zeros(want - converted.shape[0], np.float32)])
            converted = converted[:want]
            compute = time.perf_counter() - began
        audio = stitcher.add(converted[ctx_out:], converted[:ctx_out] if ctx_out else None)
        if piece.is_last:
            audio = np.concatenate([audio, stitcher.flush()])
        yield ConvertedPiece(piece.index, audio, piece.seconds, piece.spoken_at, time.perf_counter(), compute, silent)


class LatencyMeter:
    """Mouth-to-ear latency and real-time factor of a live conversion, from the pieces' times.

    ``output_delay``: what the audio device adds after a sample is handed over (its buffer), in seconds.
    """

    def __init__(self, output_delay: float = 0.0) -> None:
        self.output_delay = output_delay
        self._play_end: float | None = None  # when the audio queued so far has played out
        self.latencies: list[float] = []
        self._recent: deque[tuple[float, float]] = deque(maxlen=RECENT_PIECES)  # (compute s, piece s)
        self.backlog_seconds = 0.0  # converted audio queued behind the piece being played, at the last piece
        self.pieces = 0
        self.silent_pieces = 0

    def add(self, piece: ConvertedPiece) -> float:
        """Account for one converted piece; returns its latency in seconds."""
        ready = piece.ready_at + self.output_delay
        start = ready if self._play_end is None else max(ready, self._play_end)
        self.backlog_seconds = max(0.0, (self._play_end or ready) - ready)
        self._play_end = start + piece.seconds
        latency = start - piece.spoken_at
        self.latencies.append(latency)
        self.pieces += 1
        if piece.silent:
            self.silent_pieces += 1
        else:
            self._recent.append((piece.compute_seconds, piece.seconds))
        return latency

    @property
    def last_latency(self) -> float | None:
        return self.latencies[-1] if self.latencies else None

    def median_latency(self) -> float | None:
        return float(np.median(self.latencies)) if self.latencies else None

    @property
    def rtf(self) -> float | None:
        """Compute seconds per second of speech over the newest pieces that held speech."""
        speech = sum(s for _, s in self._recent)
        return sum(c for c, _ in self._recent) / speech if speech > 0 else None

    @property
    def falling_behind(self) -> bool:
        """The conversion is slower than speech: the latency keeps growing."""
        rtf = self.rtf
        return (rtf is not None and len(self._recent) >= 2 and rtf > BEHIND_RTF) or \
            self.backlog_seconds > BEHIND_BACKLOG_SECONDS


_CARD_RE = re.compile(r"\((?:plug)?hw:(\d+)")


def same_device(input_name: str, output_name: str) -> bool:
    """Whether a microphone and an output device (PortAudio names) are the same device or sound card:
    equal names ("default", "pulse"), or ALSA names on the same card ("... (hw:0,0)" and "... (hw:0,3)")."""
    a, b = input_name.strip(), output_name.strip()
    if not a or not b:
        return False
    if a == b:
        return True
    card_a, card_b = _CARD_RE.search(a), _CARD_RE.search(b)
    return card_a is not None and card_b is not None and card_a.group(1) == card_b.group(1)
