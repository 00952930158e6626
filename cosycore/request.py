"""One synthesis request and what it yields: :class:`SynthesisRequest`, :class:`AudioChunk`, and
:func:`validate_request`, which checks a request against its mode before anything runs (pure;
raises :class:`~cosycore.errors.InputError` with what to do about it).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias, get_args

import numpy as np

from .config import MAX_SPEED, MIN_SPEED
from .errors import InputError
from .frontend import text_reading as readings
from .frontend.segment_bound import MAX_SEGMENT_TOKENS
from .frontend.text_checks import DEFAULT_MAX_CHARS, check_spoken_text
from .voices import Voice

if TYPE_CHECKING:
    import torch

# No torch at import: a program can build requests and name chunks before it loads the engine (the
# desktop app paints its window first). A torch.Tensor prompt exists only once torch is loaded.
Mode = Literal["zero_shot", "cross_lingual", "instruct"]
MODES: tuple[str, ...] = get_args(Mode)
AudioInput: TypeAlias = "str | os.PathLike | np.ndarray | torch.Tensor"
LANGUAGES = (None, "auto", "zh", "en")
CHARS_PER_SECOND = 15  # rough speaking rate, for the size estimate in the length message


@dataclass(frozen=True, eq=False)
class SynthesisRequest:
    """One synthesis request. Frozen; :func:`validate_request` checks it against its mode."""

    text: str | Iterable[str]  # what to say; an iterable of pieces (e.g. an LLM's reply) selects bistream
    mode: Mode = "zero_shot"  # "zero_shot", "cross_lingual" or "instruct"
    prompt_audio: AudioInput | None = None  # recording of the voice: a file path or a waveform in [-1, 1]
    prompt_sample_rate: int | None = None  # sample rate of a waveform prompt_audio (files carry their own)
    voice: Voice | None = None  # a saved voice instead of prompt_audio: its features are reused as they are
    prompt_text: str | None = None  # transcript of the prompt (zero_shot; a saved voice brings its own)
    instruct_text: str | None = None  # how to speak (instruct mode), e.g. a preset's text
    speed: float = 1.0  # 0.5 (slow) to 2.0 (fast); works while streaming too
    seed: int | None = None  # same seed, same speech tokens; None draws a random seed
    stream: bool = True  # yield audio per hop (about 1, 2, 4 s) instead of once per sentence
    text_frontend: bool = True  # normalise numbers/symbols and split into sentences; False speaks text as is
    language: str | None = None  # "zh" or "en" for the text frontend; None detects it
    text_reading: str | None = None  # "original" or "improved" (frontend.text_reading); None: the engine's
    min_tokens: int | None = None  # advanced: speech tokens per sentence before eos is allowed
    max_tokens: int | None = None  # advanced: most speech tokens per sentence (default 20 x its text tokens)

    @property
    def is_bistream(self) -> bool:
        return not isinstance(self.text, str)


class ChunkTiming:
    """Where a chunk's audio ends, from its ``samples``, ``sample_rate`` and ``start_time``: the part of
    :class:`AudioChunk` that the app's copy of a chunk (``app.worker.engine_messages.Chunk``) shares."""

    samples: np.ndarray
    sample_rate: int
    start_time: float

    @property
    def duration(self) -> float:
        """Seconds of audio in this chunk."""
        return self.samples.shape[0] / self.sample_rate

    @property
    def end_time(self) -> float:
        """Seconds of the request's audio up to the end of this chunk."""
        return self.start_time + self.duration


@dataclass(frozen=True, eq=False)
class AudioChunk(ChunkTiming):
    """One piece of a request's audio, as ``synthesize`` yields it. Plain values only."""

    samples: np.ndarray  # float32 [N], mono, in [-1, 1]
    sample_rate: int  # of samples (24000 for CosyVoice2 / Fun-CosyVoice3)
    index: int  # position of the chunk in the request: 0, 1, 2, …
    is_final: bool  # the request's last chunk (absent if the request was cancelled)
    timing: float  # seconds from the synthesize() call until this chunk was ready
    tokens: tuple[int, ...]  # speech tokens generated since the previous chunk
    tokens_so_far: int  # speech tokens generated in the request up to this chunk
    sentence_index: int  # which text segment the chunk belongs to (0-based)
    sentence_text: str  # that segment as spoken (normalised); "" for streamed text input
    sentence_final: bool  # the last chunk of its segment (for subtitles: the segment ends here)
    start_time: float  # seconds of request audio before this chunk (its start in the utterance)
    warnings: tuple[str, ...] = ()  # on the first chunk: things the user should know (prompt trimmed, …)


def is_waveform(audio: object) -> bool:
    """``audio`` is samples (a numpy array or a torch tensor), not a file path."""
    if isinstance(audio, np.ndarray):
        return True
    torch_module = sys.modules.get("torch")  # a tensor can only exist once torch is imported
    return torch_module is not None and isinstance(audio, torch_module.Tensor)


def too_long(length: int, limit: int, what: str) -> InputError:
    hours = limit / CHARS_PER_SECOND / 3600
    return InputError(
        f"The {what} is {length:,} characters long; one request takes at most {limit:,} (about "
        f"{hours:.1f} hours of speech). Split it into parts of at most {limit:,} characters and "
        "synthesise them one after another, or raise the limit (Engine(max_text_chars=...), "
        "cosycore synth --max-chars) if you really want it as one request."
    )


_SURROGATE_RE = re.compile("[\ud800-\udfff]")
MAX_REQUEST_TOKENS = 20 * MAX_SEGMENT_TOKENS  # min_tokens/max_tokens: what one bounded segment can need
SEED_RANGE = (-(2**63), 2**64 - 1)  # what torch.Generator.manual_seed accepts


def check_utf8(text: str, what: str) -> None:
    """Raise :class:`InputError` if ``text`` holds lone surrogates: bytes that were not valid UTF-8.

    Python decodes undecodable bytes of command-line arguments and standard input (with the
    ``surrogateescape`` handler) to U+DC80..U+DCFF; the tokenizer cannot encode those.
    """
    m = _SURROGATE_RE.search(text)
    if m is not None:
        code = ord(m.group(0))
        byte = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        raise InputError(
            f"The {what} is not valid UTF-8 text ({byte} at character {m.start():,}). Save the text as UTF-8, "
            "or run with a UTF-8 locale (e.g. LANG=C.UTF-8)."
        )


def _check_text_field(text: object, max_chars: int) -> None:
    if isinstance(text, str):
        if len(text) > max_chars:
            raise too_long(len(text), max_chars, "text")
        check_utf8(text, "text")
        check_spoken_text(text, max_chars=max_chars)
    elif isinstance(text, (bytes, bytearray)) or not isinstance(text, Iterable):
        raise InputError(
            f"The text must be a string, or an iterable of strings for streamed input; got {type(text).__name__}."
        )


def _check_prompt_fields(req: SynthesisRequest) -> None:
    if req.voice is not None and req.prompt_audio is not None:
        raise InputError("Give either a prompt recording or a saved voice, not both.")
    if req.voice is None and req.prompt_audio is None:
        raise InputError(
            f"{req.mode} mode needs a voice to imitate: give a short recording of it (prompt audio, "
            "3-10 s of clear speech) or choose a saved voice."
        )
    if is_waveform(req.prompt_audio) and not req.prompt_sample_rate:
        raise InputError("The prompt audio is a waveform without a sample rate; pass prompt_sample_rate too.")


def request_transcript(req: SynthesisRequest) -> str:
    """The transcript of the prompt: the request's own, else the saved voice's ("" if none)."""
    if req.prompt_text is not None and req.prompt_text.strip():
        return req.prompt_text
    return req.voice.transcript if req.voice is not None else ""


def _check_mode_fields(req: SynthesisRequest) -> None:
    has_instruction = bool(req.instruct_text and req.instruct_text.strip())
    has_transcript = bool(req.prompt_text and req.prompt_text.strip())
    if req.mode != "instruct" and has_instruction:
        raise InputError(
            f"An instruction only applies to instruct mode; choose mode 'instruct' or remove the "
            f"instruction (mode is {req.mode!r})."
        )
    if req.mode == "zero_shot" and not request_transcript(req).strip():
        raise InputError(
            "zero_shot mode needs the transcript of the prompt recording: type exactly what is said in "
            "it, or use cross_lingual mode, which needs no transcript."
        )
    if req.mode == "cross_lingual" and has_transcript:
        raise InputError(
            "cross_lingual mode does not use a transcript; remove it, or use zero_shot mode to make use of it."
        )
    if req.mode == "instruct":
        if not has_instruction:
            raise InputError(
                "instruct mode needs an instruction, e.g. 'Please speak very happily.' or an instruct preset."
            )
        if has_transcript:
            raise InputError(
                "instruct mode does not use the prompt's transcript; remove it, or use zero_shot mode."
            )


def _check_number_fields(req: SynthesisRequest) -> None:
    try:
        speed = float(req.speed)
    except (TypeError, ValueError):
        raise InputError(f"The speed must be a number, not {req.speed!r}.") from None
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise InputError(f"The speed must be between {MIN_SPEED} and {MAX_SPEED} (1.0 is normal); got {req.speed}.")
    if req.seed is not None and (isinstance(req.seed, bool) or not isinstance(req.seed, int)):
        raise InputError(f"The seed must be a whole number or None, not {req.seed!r}.")
    if req.seed is not None and not SEED_RANGE[0] <= req.seed <= SEED_RANGE[1]:
        raise InputError(f"The seed must be between {SEED_RANGE[0]} and {SEED_RANGE[1]}; got {req.seed}.")
    for name in ("min_tokens", "max_tokens"):
        value = getattr(req, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or not 0 <= value <= MAX_REQUEST_TOKENS):
            raise InputError(f"{name} must be a whole number from 0 to {MAX_REQUEST_TOKENS} or None, not {value!r}.")
    if req.min_tokens is not None and req.max_tokens is not None and req.min_tokens > req.max_tokens:
        raise InputError(f"min_tokens ({req.min_tokens}) is larger than max_tokens ({req.max_tokens}).")


def validate_request(req: SynthesisRequest, *, max_chars: int = DEFAULT_MAX_CHARS) -> None:
    """Raise :class:`InputError` (with what to do about it) if ``req`` cannot be carried out as given."""
    if req.mode not in MODES:
        raise InputError(f"Unknown mode {req.mode!r}; use one of {', '.join(MODES)}.")
    if req.language not in LANGUAGES:
        raise InputError(f"Unknown language {req.language!r}; use 'zh', 'en' or leave it empty to detect.")
    if req.text_reading is not None:
        readings.check_text_reading(req.text_reading)
    _check_number_fields(req)
    _check_text_field(req.text, max_chars)
    for what, value in (("transcript", req.prompt_text), ("instruction", req.instruct_text)):
        if value is not None and not isinstance(value, str):  # prompt_text=5: typed, not an AttributeError
            raise InputError(f"The {what} must be text (a string), not {type(value).__name__}.")
        if isinstance(value, str):
            check_utf8(value, what)
    _check_prompt_fields(req)
    _check_mode_fields(req)
