"""Takes: the audio of one Speak, built up chunk by chunk, and the session's list of them."""

from __future__ import annotations

import enum
import itertools
import time
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, Signal

from .engine_thread import Chunk


class TakeState(enum.Enum):
    STREAMING = "streaming"  # chunks are still arriving
    DONE = "done"  # every chunk arrived
    CANCELLED = "cancelled"  # stopped early; holds what came before
    FAILED = "failed"  # the engine reported an error; holds what came before


@dataclass(frozen=True)
class SentenceSpan:
    """Where one spoken sentence lies in a take (for subtitles)."""

    index: int
    text: str
    start: float  # seconds
    end: float  # seconds


class Take:
    """One take: settings it was made with, its chunks and its state. Owned by a :class:`TakeList`."""

    def __init__(self, request_id: int, text: str, *, mode: str, voice_name: str, sample_rate: int,
                 seed: int | None = None, speed: float = 1.0, expected_seconds: float = 0.0,
                 instruction: str = "") -> None:
        self.request_id = request_id
        self.number = 0  # shown to the user ("Take 3"); given by the TakeList
        self.text = text
        self.mode = mode
        self.instruction = instruction if mode == "instruct" else ""  # as given to the engine (instruct only)
        self.voice_name = voice_name
        self.seed = seed
        self.speed = speed
        self.expected_seconds = expected_seconds  # rough length estimate from the text
        self.sample_rate = sample_rate
        self.created = time.time()
        self.state = TakeState.STREAMING
        self.exported_partial = False  # exported while incomplete
        self.error = ""
        self.first_audio_seconds: float | None = None
        self.wall_seconds = 0.0
        self._chunks: list[np.ndarray] = []
        self._starts: list[float] = []
        self._spans: dict[int, SentenceSpan] = {}
        self._samples = 0
        self._audio: np.ndarray | None = None  # concatenation cache

    # -- building --------------------------------------------------------------------------
    def add_chunk(self, chunk: Chunk) -> None:
        if self.state is not TakeState.STREAMING:
            raise RuntimeError(f"take {self.number} is {self.state.value}; it takes no more audio")
        self.sample_rate = chunk.sample_rate
        start = self._samples / self.sample_rate
        self._chunks.append(chunk.samples)
        self._starts.append(start)
        self._samples += chunk.samples.shape[0]
        end = self._samples / self.sample_rate
        span = self._spans.get(chunk.sentence_index)
        self._spans[chunk.sentence_index] = SentenceSpan(
            chunk.sentence_index, chunk.sentence_text or (span.text if span else ""),
            span.start if span else start, end,
        )
        self._audio = None

    def finish(self, state: TakeState, *, wall_seconds: float = 0.0, first_audio: float | None = None,
               error: str = "") -> None:
        self.state = state
        self.wall_seconds = wall_seconds
        self.first_audio_seconds = first_audio
        self.error = error

    # -- reading ---------------------------------------------------------------------------
    @property
    def complete(self) -> bool:
        return self.state is TakeState.DONE

    @property
    def chunk_count(self) -> int:
        return len(self._chunks)

    @property
    def samples(self) -> int:
        return self._samples

    @property
    def duration(self) -> float:
        return self._samples / self.sample_rate if self.sample_rate else 0.0

    @property
    def seams(self) -> list[float]:
        """Start times of every chunk but the first."""
        return self._starts[1:]

    def audio(self) -> np.ndarray:
        """The take's samples so far (float32 [N]); a read-only array."""
        if self._audio is None or self._audio.shape[0] != self._samples:
            audio = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.float32)
            audio.setflags(write=False)
            self._audio = audio
        return self._audio

    def sentences(self) -> list[SentenceSpan]:
        return [self._spans[k] for k in sorted(self._spans)]

    @property
    def rtf(self) -> float | None:
        return self.wall_seconds / self.duration if self.duration > 0 and self.wall_seconds > 0 else None

    def title(self) -> str:
        text = " ".join(self.text.split())
        return text if len(text) <= 40 else text[:39] + "…"


class TakeList(QObject):
    """The takes of this session, newest last. Owned by the main window."""

    take_added = Signal(object)  # Take
    take_changed = Signal(object)  # Take (state, partial flag)
    take_removed = Signal(object)  # Take

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._takes: list[Take] = []
        self._numbers = itertools.count(1)

    def __len__(self) -> int:
        return len(self._takes)

    def __iter__(self):
        return iter(list(self._takes))

    def __getitem__(self, i: int) -> Take:
        return self._takes[i]

    def add(self, take: Take) -> None:
        take.number = next(self._numbers)
        self._takes.append(take)
        self.take_added.emit(take)

    def changed(self, take: Take) -> None:
        self.take_changed.emit(take)

    def remove(self, take: Take) -> None:
        self._takes.remove(take)
        self.take_removed.emit(take)

    def by_request(self, request_id: int) -> Take | None:
        return next((t for t in reversed(self._takes) if t.request_id == request_id), None)
