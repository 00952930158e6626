"""A take: the audio of one Speak (or one script), built up chunk by chunk, and what it was made with.

Its folder on disk, the one take format, is :mod:`cosycore.studio.take_folder`; the app keeps its takes
in a list (:class:`app.takes.take.TakeList`) whose store saves each take as it is made.
"""

from __future__ import annotations

import enum
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .script_take import ScriptChunk, ScriptInfo

if TYPE_CHECKING:
    from ..request import AudioChunk

AUDIO_NAME = "audio.f32"  # the file a take's audio is first written to (cosycore.studio.take_folder)

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
                 instruction: str = "", model: str = "", quality: str = "") -> None:
        self.request_id = request_id
        # A stable identity on disk: sortable by creation time, unique within the store.
        self.uid = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
        self.number = 0  # shown to the user ("Take 3"); given by the TakeList
        self.name = ""  # given by the user (Rename); "" shows the start of the text
        self.text = text
        self.mode = mode
        self.instruction = instruction if mode == "instruct" else ""  # as given to the engine (instruct only)
        self.voice_name = voice_name
        self.model = model  # the model's title and folder name
        self.quality = quality
        self.seed = seed
        self.speed = speed
        self.recovered = False  # restored from an unfinished take (the app was killed while it was made)
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
        self._load: Callable[[], np.ndarray] | None = None  # reads a restored take's audio on first use
        self.script: ScriptInfo | None = None  # a dialogue script's take: its script, cast and segments
        self.audio_file = AUDIO_NAME  # the file in the take's folder that holds its audio (a new one per version)
        self.previous_version: dict | None = None  # the take before its last line or sentence regeneration (Undo)
        self.edit: dict | None = None  # trim, fades, loudness (app.takes.edit.TakeEdit), applied to the original
        self.original: dict | None = None  # the unedited audio's file, length, seams and sentences (while edited)
        # Sentences regenerated (app.controllers.sentence_regen): index -> {"seed", "mode", "instruction"}
        self.sentence_settings: dict[int, dict[str, Any]] = {}

    @classmethod
    def restored(cls, *, uid: str, number: int, text: str, mode: str, voice_name: str, sample_rate: int,
                 state: TakeState, samples: int, seams: list[int], spans: list[SentenceSpan],
                 load: Callable[[], np.ndarray], **fields) -> Take:
        """A take read back from the store; its audio (``samples`` long) is read by ``load`` when first needed."""
        take = cls(0, text, mode=mode, voice_name=voice_name, sample_rate=sample_rate)
        take.uid = uid
        take.number = number
        take.state = state
        for key, value in fields.items():
            if not hasattr(take, key):
                raise AttributeError(key)
            setattr(take, key, value)
        take._samples = samples
        take._starts = [0.0] + [s / sample_rate for s in seams]
        take._spans = {s.index: s for s in spans}
        take._load = load
        return take

    # -- building --------------------------------------------------------------------------
    def add_chunk(self, chunk: AudioChunk) -> None:
        if self.state is not TakeState.STREAMING:
            raise RuntimeError(f"take {self.number} is {self.state.value}; it takes no more audio")
        self.sample_rate = chunk.sample_rate
        start = self._samples / self.sample_rate
        if isinstance(chunk, ScriptChunk) and chunk.script is not None and self.script is not None:
            self.script.mark(chunk.script, self._samples, chunk.samples.shape[0])
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

    def replace_audio(self, audio: np.ndarray, seams: list[int], spans: list[SentenceSpan]) -> None:
        """Another version of a finished take's audio (a script line regenerated, or that undone)."""
        audio = np.array(audio, dtype=np.float32, copy=True).reshape(-1)
        audio.setflags(write=False)
        self._chunks = [audio]
        self._samples = audio.shape[0]
        self._starts = [0.0] + [s / self.sample_rate for s in seams if 0 < s < self._samples]
        self._spans = {s.index: s for s in spans}
        self._audio = audio
        self._load = None

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
        return len(self._starts)

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
            if self._load is not None:
                audio = np.asarray(self._load(), dtype=np.float32)[: self._samples]
                audio = np.concatenate([audio, np.zeros(self._samples - audio.shape[0], np.float32)])
            else:
                audio = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.float32)
            audio.setflags(write=False)
            self._audio = audio
        return self._audio

    def sentences(self) -> list[SentenceSpan]:
        return [self._spans[k] for k in sorted(self._spans)]

    @property
    def rtf(self) -> float | None:
        return self.wall_seconds / self.duration if self.duration > 0 and self.wall_seconds > 0 else None

    def seam_samples(self) -> list[int]:
        """Where every chunk but the first starts, in samples."""
        return [round(s * self.sample_rate) for s in self._starts[1:]]

    @property
    def spoken_text(self) -> str:
        """The text as spoken: a script without its comment, pause and dictionary lines."""
        if self.script is None:
            return self.text
        return "\n".join(line for line in self.text.splitlines() if not line.lstrip().startswith(("#", "[")))

    def title(self, limit: int = 40) -> str:
        """The user's name for the take, or the start of its text."""
        text = " ".join((self.name or self.spoken_text).split())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def file_stem(self) -> str:
        """A file name (without suffix) for exports: the take's number and its name or text."""
        return take_file_stem(self.number, self.name or self.spoken_text)


_UNSAFE_FILE_CHARS = "/\\:*?\"<>|\n\r\t"


def take_file_stem(number: int, text: str, limit: int = 48) -> str:
    """``"03 Hello there"``: safe on every desktop file system, at most ``limit`` characters of text."""
    words = "".join(" " if c in _UNSAFE_FILE_CHARS or ord(c) < 32 else c for c in text).split()
    stem = ""
    for word in words:
        candidate = f"{stem} {word}".strip()
        if len(candidate) > limit:
            if not stem:
                stem = word[:limit]
            break
        stem = candidate
    stem = stem.strip(" .")  # Windows refuses names ending in a dot or a space
    return f"{number:02d} {stem}" if stem else f"take-{number:02d}"
