"""One voice-conversion request: :class:`ConversionRequest` and :func:`validate_conversion` (pure; raises
:class:`~cosycore.errors.InputError` with what to do)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ...errors import InputError
from ...frontend.audio_file import AudioSource
from ...speed import MAX_SPEED, MIN_SPEED
from ...voices import Voice
from .source import MAX_SOURCE_SECONDS

SourceInput = AudioSource | np.ndarray | torch.Tensor
SEED_RANGE = (-(2**63), 2**64 - 1)  # what torch.Generator.manual_seed accepts


@dataclass(frozen=True, eq=False)
class ConversionRequest:
    """Say it in another voice: the source's words, timing and intonation, in the target voice. Frozen."""

    source: SourceInput  # the recording to convert: a file path or binary file, or a waveform in [-1, 1]
    voice: Voice | None = None  # the target: a saved voice (its features are used as they are)
    sample_rate: int | None = None  # of a waveform source (files carry their own); at least 16 kHz
    prompt_audio: SourceInput | None = None  # the target as a recording instead of a saved voice (3-10 s)
    prompt_sample_rate: int | None = None  # of a waveform prompt_audio
    speed: float = 1.0  # 0.5 (slower) to 2.0 (faster) than the source
    stream: bool = True  # yield audio per hop (about 1, 2, 4 s of it) instead of once per piece
    seed: int | None = None  # the vocoder's noise (CosyVoice2); None draws one
    max_source_seconds: float = MAX_SOURCE_SECONDS  # longer sources are refused


def validate_conversion(req: ConversionRequest) -> None:
    """Raise :class:`InputError` if ``req`` cannot be carried out as given (fields only; the audio is
    checked by :func:`cosycore.engine.convert.source.probe_source`)."""
    if req.voice is not None and req.prompt_audio is not None:
        raise InputError("Give either a target voice or a target recording (prompt audio), not both.")
    if req.voice is None and req.prompt_audio is None:
        raise InputError("Voice conversion needs a target voice: choose a saved voice or give a 3-10 s "
                         "recording of it (prompt audio).")
    if req.voice is not None and not isinstance(req.voice, Voice):
        raise InputError(f"The target voice must be a Voice, not {type(req.voice).__name__}; load it from "
                         "the voice library first.")
    if isinstance(req.prompt_audio, (np.ndarray, torch.Tensor)) and not req.prompt_sample_rate:
        raise InputError("The target recording is a waveform without a sample rate; pass prompt_sample_rate too.")
    try:
        speed = float(req.speed)
    except (TypeError, ValueError):
        raise InputError(f"The speed must be a number, not {req.speed!r}.") from None
    if not MIN_SPEED <= speed <= MAX_SPEED or math.isnan(speed):
        raise InputError(f"The speed must be between {MIN_SPEED} and {MAX_SPEED} (1.0 keeps the source's pace); "
                         f"got {req.speed}.")
    if req.seed is not None and (isinstance(req.seed, bool) or not isinstance(req.seed, int)
                                 or not SEED_RANGE[0] <= req.seed <= SEED_RANGE[1]):
        raise InputError(f"The seed must be a whole number from {SEED_RANGE[0]} to {SEED_RANGE[1]} or None, "
                         f"not {req.seed!r}.")
    if not isinstance(req.stream, bool):
        raise InputError(f"stream must be True or False, not {req.stream!r}.")
    if not (isinstance(req.max_source_seconds, (int, float)) and req.max_source_seconds > 0):
        raise InputError(f"max_source_seconds must be a positive number, not {req.max_source_seconds!r}.")
