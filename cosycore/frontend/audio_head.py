"""Read only the beginning of an audio file: bounded memory for prompt recordings of any length.

A voice prompt uses at most its first 30 s, so decoding a whole 10-minute, 192 kHz, 6-channel
file (3.6 GB as float32) first and cutting afterwards is wasted memory. :func:`read_audio_head`
decodes in blocks, mixes each block down to mono at once and stops after ``max_seconds`` (plus one
frame, to tell "longer" from "exactly as long"). Peak memory is the mono head (30 s x rate x 4
bytes) plus one block of at most 4 MiB, whatever the file's length or channel count. The checks
of :func:`cosycore.features.load_audio` (missing, empty, truncated WAV, no samples, NaN) still apply.
"""

from __future__ import annotations

import logging
import math
import os
import warnings

import numpy as np
import soundfile as sf

from ..errors import InputError
from .features import AudioSource, checked_source

logger = logging.getLogger(__name__)

MAX_SAMPLE_RATE = 768_000  # beyond any recording format; a header claiming more is damaged
MAX_CHANNELS = 64
BLOCK_BYTES = 4 << 20  # one decoded block, all channels, float32


def _frame_limit(sr: int, max_seconds: float) -> int:
    return math.ceil(max_seconds * sr) + 1


def _read_blocks(fh: sf.SoundFile, limit: int) -> np.ndarray:
    block = max(1, BLOCK_BYTES // (4 * fh.channels))
    parts: list[np.ndarray] = []
    got = 0
    while got < limit:
        data = fh.read(min(block, limit - got), dtype="float32", always_2d=True)  # [n, C]
        if data.shape[0] == 0:
            break
        parts.append(data.mean(axis=1, dtype=np.float32))
        got += data.shape[0]
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def _check_format(sr: int, channels: int, name: str) -> None:
    if not 0 < sr <= MAX_SAMPLE_RATE:
        raise InputError(f"'{name}' claims a sample rate of {sr} Hz; the file is damaged. Re-export it.")
    if not 0 < channels <= MAX_CHANNELS:
        raise InputError(f"'{name}' has {channels} channels; a voice recording has 1 or 2. Export it as mono.")


def _read_with_librosa(path: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """Decoders beyond libsndfile (audioread backends such as ffmpeg), stopped after ``max_seconds``."""
    import librosa

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # librosa warns that audioread is deprecated
        data, sr = librosa.load(path, sr=None, mono=True, dtype=np.float32, duration=max_seconds)
    return np.ascontiguousarray(data.reshape(-1)), int(sr)


def read_audio_head(source: AudioSource, max_seconds: float) -> tuple[np.ndarray, int, float | None]:
    """Decode at most the first ``max_seconds`` (plus one frame) of a file, mixed down to mono.

    Returns ``(samples [N] float32, sample rate, length of the whole file in seconds or None when the
    format does not say)``. Raises :class:`InputError` naming the file when it is missing, empty,
    truncated, not audio, has an absurd rate or channel count, holds no samples or NaN/inf samples.
    """
    source, name = checked_source(source)
    total: float | None = None
    try:
        with sf.SoundFile(source) as fh:
            sr, channels = int(fh.samplerate), int(fh.channels)
            _check_format(sr, channels, name)
            if fh.frames > 0:
                total = fh.frames / sr
            mono = _read_blocks(fh, _frame_limit(sr, max_seconds))
    except sf.SoundFileError as sf_error:
        if not isinstance(source, (str, os.PathLike)):
            raise InputError(
                f"'{name}' could not be decoded as audio ({sf_error}). Use WAV, FLAC, OGG or MP3."
            ) from sf_error
        logger.info("soundfile cannot decode %s (%s); trying librosa/audioread", name, sf_error)
        try:
            mono, sr = _read_with_librosa(os.fspath(source), max_seconds + 1.0)
        except Exception as e:  # audioread raises several unrelated types; all mean "not decodable"
            raise InputError(
                f"'{name}' is not a readable audio file or is corrupt ({sf_error}). Use WAV, FLAC, OGG or MP3."
            ) from e
        _check_format(sr, 1, name)
        mono = mono[: _frame_limit(sr, max_seconds)]
    if mono.shape[0] == 0:
        raise InputError(f"audio file '{name}' contains no samples.")
    bad = int(np.count_nonzero(~np.isfinite(mono)))
    if bad:
        raise InputError(f"audio file '{name}' has {bad} NaN or infinite samples; re-export it.")
    return mono, sr, total
