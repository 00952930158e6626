"""The :class:`Voice` value object: a prompt recording, its transcript and the features a model
family needs from it, with the bounds every voice keeps (at most 30 s of prompt audio).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import get_args

import numpy as np

from ..config import Family

FORMAT_VERSION = 1
ARRAY_NAMES = ("audio_24k", "speech_tokens", "embedding", "prompt_mel")  # checksum order
EMBEDDING_DIM = 192
MEL_BINS = 80
MAX_VOICE_SECONDS = 30.0  # the recorder's and the prompt extraction's limit
_SECONDS_MARGIN = 1.0  # rounding of 16 kHz/24 kHz lengths and frame counts
TOKEN_RATE = 25  # speech tokens per second (both families)
MEL_RATE = 50  # prompt-mel frames per second at 24 kHz with hop 480
SPEECH_TOKEN_VOCAB = 6561  # 3**8 FSQ codes: the speech tokenizer of both families
SAMPLE_RATES = (16000, 48000)  # the range a stored prompt's rate may have (24000 in practice)
MAX_PROMPT_TOKENS = int((MAX_VOICE_SECONDS + _SECONDS_MARGIN) * TOKEN_RATE)  # 775
MAX_PROMPT_FRAMES = int((MAX_VOICE_SECONDS + _SECONDS_MARGIN) * MEL_RATE)  # 1550
MAX_NAME_CHARS = 64
FAMILIES: tuple[str, ...] = get_args(Family)
EXPECTED_ARRAYS = {  # name -> (dtype, rank)
    "audio_24k": (np.dtype(np.float32), 1),
    "speech_tokens": (np.dtype(np.int32), 1),
    "embedding": (np.dtype(np.float32), 1),
    "prompt_mel": (np.dtype(np.float32), 2),
}


MAX_TAGS = 32
MAX_TAG_CHARS = 40


def clean_tags(tags: object) -> tuple[str, ...]:
    """Tags as stored: from a sequence of strings or one comma-separated string; trimmed, lower-case, one
    space between words, no empty or repeated tags, sorted. Raises ValueError for too many or too long."""
    raw = tags.split(",") if isinstance(tags, str) else list(tags)  # type: ignore[call-overload]
    if not all(isinstance(t, str) for t in raw):
        raise ValueError("tags must be text")
    cleaned = sorted({" ".join(t.split()).casefold() for t in raw} - {""})
    if len(cleaned) > MAX_TAGS:
        raise ValueError(f"a voice has at most {MAX_TAGS} tags, not {len(cleaned)}")
    long = [t for t in cleaned if len(t) > MAX_TAG_CHARS]
    if long:
        raise ValueError(f"a tag is at most {MAX_TAG_CHARS} characters long: {long[0][:60]!r}")
    return tuple(cleaned)


def utc_now() -> str:
    """The current time as ISO 8601 UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _frozen(array: np.ndarray, dtype: np.dtype, rank: int, what: str) -> np.ndarray:
    a = np.array(array, dtype=dtype, copy=True)
    if a.ndim != rank:
        raise ValueError(f"{what} must have rank {rank}, got shape {a.shape}")
    a.setflags(write=False)
    return a


def check_prompt_bounds(samples: int, sample_rate: int, tokens: int, frames: int) -> None:
    """Raise :class:`ValueError` unless the sizes are what a recording of at most 30 s can produce.

    Bounds the memory and work a stored voice can cause: the speech LM's prompt is ``tokens`` long
    and the flow's is ``frames`` long, whatever a file claims. Also refuses a voice with no speech
    tokens, which no mode can use.
    """
    seconds = samples / sample_rate
    if seconds > MAX_VOICE_SECONDS + _SECONDS_MARGIN:
        raise ValueError(f"the prompt audio is {seconds:.1f} s long; a voice holds at most {MAX_VOICE_SECONDS:g} s")
    if tokens < 1:
        raise ValueError("it holds no speech tokens")
    if tokens > min(MAX_PROMPT_TOKENS, int((seconds + _SECONDS_MARGIN) * TOKEN_RATE)):
        raise ValueError(f"it holds {tokens} speech tokens, more than {seconds:.1f} s of audio can produce")
    if frames > min(MAX_PROMPT_FRAMES, int((seconds + _SECONDS_MARGIN) * MEL_RATE)):
        raise ValueError(f"it holds {frames} prompt-mel frames, more than {seconds:.1f} s of audio can produce")


@dataclass(frozen=True, eq=False)
class Voice:
    """A saved voice: prompt audio, its transcript and the features a model family needs from it.

    Arrays are copied, converted to their dtypes and made read-only on construction. Two voices
    compare equal when every field and every array is equal.
    """

    name: str
    transcript: str
    language: str  # e.g. "en", "zh"; "" when unknown
    family: Family  # model family the cached features were made for
    speech_tokenizer_sha256: str  # sha256 of the speech-tokenizer file that made the tokens
    audio_24k: np.ndarray  # float32 [N], mono, 24 kHz
    speech_tokens: np.ndarray  # int32 [P]
    embedding: np.ndarray  # float32 [192]
    prompt_mel: np.ndarray  # float32 [T, 80]
    created_at: str = field(default_factory=utc_now)  # ISO 8601 UTC
    sample_rate: int = 24000  # of audio_24k
    format_version: int = FORMAT_VERSION
    # The user's own instruct presets, (name, instruction text) pairs, carried along when a voice is
    # exported so that they travel with it. Stored in the header only when there are any, so a voice
    # without them is byte for byte what earlier versions wrote; earlier readers ignore the key.
    instruct_presets: tuple[tuple[str, str], ...] = ()
    notes: str = ""  # the user's notes about the voice (stored only when not empty)
    # The voice's own pronunciation dictionary, (term, replacement, whole_word, case_sensitive)
    # entries (cosycore.studio.lexicon reads them); stored in the header only when there are any.
    lexicon: tuple[tuple[str, str, bool, bool], ...] = ()
    # Where the transcript came from: "asr" (speech recognition, not edited since), "typed", or ""
    # (not recorded: voices from before transcription existed). Stored only when not empty.
    transcript_source: str = ""
    # The user's tags for finding the voice in the library ("calm", "narrator"): lower-case words, sorted,
    # each at most MAX_TAG_CHARS long, at most MAX_TAGS of them. Stored only when there are any.
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags", clean_tags(self.tags))
        presets = tuple((str(n), str(t)) for n, t in self.instruct_presets)
        object.__setattr__(self, "instruct_presets", presets)
        lexicon = tuple((str(t), str(r), bool(w), bool(c)) for t, r, w, c in self.lexicon)
        object.__setattr__(self, "lexicon", lexicon)
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a voice needs a non-empty name")
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {self.family!r}")
        for name in ARRAY_NAMES:
            dtype, rank = EXPECTED_ARRAYS[name]
            object.__setattr__(self, name, _frozen(getattr(self, name), dtype, rank, name))
        if self.embedding.shape != (EMBEDDING_DIM,):
            raise ValueError(f"embedding must have shape ({EMBEDDING_DIM},), got {self.embedding.shape}")
        if self.prompt_mel.shape[1] != MEL_BINS:
            raise ValueError(f"prompt_mel must be [T, {MEL_BINS}], got {self.prompt_mel.shape}")
        if self.speech_tokens.size and int(self.speech_tokens.min()) < 0:
            raise ValueError("speech tokens must be non-negative")
        if self.speech_tokens.size and int(self.speech_tokens.max()) >= SPEECH_TOKEN_VOCAB:
            raise ValueError(f"speech tokens must be below {SPEECH_TOKEN_VOCAB} (the speech tokenizer's codes), "
                             f"found {int(self.speech_tokens.max())}")
        if isinstance(self.sample_rate, bool) or not isinstance(self.sample_rate, (int, np.integer)) or not (
                SAMPLE_RATES[0] <= self.sample_rate <= SAMPLE_RATES[1]):
            raise ValueError(f"sample_rate must be a whole number of Hz from {SAMPLE_RATES[0]} to {SAMPLE_RATES[1]}, "
                             f"got {self.sample_rate!r}")
        for name in ("audio_24k", "embedding", "prompt_mel"):
            if not np.isfinite(getattr(self, name)).all():
                raise ValueError(f"{name} holds NaN or infinite values")
        check_prompt_bounds(self.audio_24k.shape[0], int(self.sample_rate), self.speech_tokens.shape[0],
                            self.prompt_mel.shape[0])

    @property
    def duration(self) -> float:
        """Length of the prompt audio in seconds (at most :data:`MAX_VOICE_SECONDS`)."""
        return self.audio_24k.shape[0] / self.sample_rate

    def renamed(self, name: str) -> Voice:
        return replace(self, name=name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Voice):
            return NotImplemented
        scalars = ("name", "transcript", "language", "family", "speech_tokenizer_sha256", "created_at",
                   "sample_rate", "format_version", "instruct_presets", "notes", "lexicon", "transcript_source", "tags")
        return all(getattr(self, k) == getattr(other, k) for k in scalars) and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in ARRAY_NAMES
        )

    __hash__ = None  # type: ignore[assignment]  # mutable-looking contents; not hashable
