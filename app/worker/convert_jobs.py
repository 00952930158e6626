"""The engine thread's work for voice conversion: a recording (a file or recorded samples) converted as one
streamed take, and a live conversion that converts the microphone's pieces as they come.

Both run on :class:`app.worker.engine_thread.EngineThread` as jobs queued like a Speak, so Stop and a
new Speak cancel them the same way, and both report the engine's :class:`~cosycore.request.AudioChunk`
objects through the thread's take signals. A live take's chunks are :class:`LiveChunk` objects, whose
:class:`LiveMark` tells when the piece was spoken and when it was ready, from which the GUI measures the
latency (:class:`cosycore.studio.live_convert.LatencyMeter`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cosycore.request import AudioChunk
from cosycore.studio.live_convert import ConvertedPiece, LiveFeed, convert_pieces
from cosycore.voices import Voice

from .engine_messages import detached_chunk


@dataclass(frozen=True, eq=False)
class ConvertJob:
    """Convert ``source`` into the target voice: ``voice``, or (a voice of the other model family) its
    recording ``prompt_audio``."""

    source: Path | np.ndarray  # a file, or recorded samples at sample_rate
    sample_rate: int | None = None
    voice: Voice | None = None
    prompt_audio: np.ndarray | None = None
    prompt_sample_rate: int | None = None
    speed: float = 1.0
    seed: int | None = None
    stream: bool = True
    max_source_seconds: float = 3600.0


@dataclass(frozen=True, eq=False)
class LiveJob:
    """Convert the pieces ``feed`` brings until it is closed, as one take (speed 1: it keeps pace)."""

    feed: LiveFeed
    voice: Voice | None = None
    prompt_audio: np.ndarray | None = None
    prompt_sample_rate: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class LiveMark:
    """What a live take's chunk tells about its piece (for the latency; times are ``time.perf_counter()``)."""

    piece: int
    seconds: float  # the piece's length in the recording
    spoken_at: float
    ready_at: float
    compute_seconds: float
    silent: bool

    def converted(self, samples: np.ndarray) -> ConvertedPiece:
        return ConvertedPiece(self.piece, samples, self.seconds, self.spoken_at, self.ready_at,
                              self.compute_seconds, self.silent)


@dataclass(frozen=True, eq=False)
class LiveChunk(AudioChunk):
    """A live take's chunk: one converted piece, and its times."""

    live: LiveMark | None = None


def convert_chunks(engine: Any, job: ConvertJob, start: float) -> Generator[AudioChunk, None, None]:
    """The chunks of one conversion (engine thread)."""
    source = str(job.source) if isinstance(job.source, Path) else job.source
    chunks = engine.convert(source, job.voice, sample_rate=job.sample_rate, prompt_audio=job.prompt_audio,
                            prompt_sample_rate=job.prompt_sample_rate, speed=job.speed, stream=job.stream,
                            seed=job.seed, max_source_seconds=job.max_source_seconds)
    try:
        for raw in chunks:
            yield detached_chunk(raw, time.perf_counter() - start)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def live_chunks(engine: Any, job: LiveJob, start: float,
                cancelled: Callable[[], bool]) -> Generator[AudioChunk, None, None]:
    """One chunk per piece of a live conversion, until the feed closes or the take is stopped."""
    rate = int(engine.sample_rate)
    position = 0
    converted = convert_pieces(engine, job.feed.pieces(cancelled), voice=job.voice, prompt_audio=job.prompt_audio,
                               prompt_sample_rate=job.prompt_sample_rate, seed=job.seed, cancelled=cancelled)
    for index, piece in enumerate(converted):
        samples = np.ascontiguousarray(piece.samples, dtype=np.float32)
        samples.setflags(write=False)
        mark = LiveMark(piece.index, piece.seconds, piece.spoken_at, piece.ready_at, piece.compute_seconds,
                        piece.silent)
        yield LiveChunk(samples=samples, sample_rate=rate, index=index, is_final=False,
                        timing=time.perf_counter() - start, tokens=(), tokens_so_far=0, sentence_index=piece.index,
                        sentence_text="", sentence_final=True, start_time=position / rate, live=mark)
        position += samples.shape[0]
