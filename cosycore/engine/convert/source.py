"""The source of a voice conversion: a recording of any length, read in bounded memory and cut at pauses.

The speech tokenizer takes at most 30 s (the original asserts it), so a source longer than that is cut
into pieces of at most :data:`MAX_PIECE_SECONDS`, each converted on its own. A cut goes where the
source is quietest in the last :data:`SEARCH_SECONDS` of a full piece (a pause between words), on
the speech-token grid (40 ms) where the rate allows, so the pieces' lengths add up to the source's.

A file is decoded in blocks and mixed to mono block by block (:func:`cosycore.frontend.audio_file.audio_blocks`,
the reader of prompts too): at most one piece plus the next piece's first block is held, whatever the file's
length, so an hour-long, 6-channel 192 kHz file needs no more memory than a 30 s one. A source of at
most 30 s is one piece holding the whole recording, read as the original's ``load_wav`` reads it
(float32, mean over channels), so exact mode sees the samples the original sees.

:func:`probe_source` checks what can be checked without decoding (the file exists, is audio, its
rate and its length; an array's shape and values) and raises :class:`~cosycore.errors.InputError`
with what to do; :func:`iter_pieces` yields the :class:`SourcePiece` objects.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass

import numpy as np
import torch

from ...errors import InputError
from ...frontend.audio_file import MAX_CHANNELS, MAX_SAMPLE_RATE, AudioSource, audio_blocks, probe_audio
from ...frontend.features import analyse_audio
from ...frontend.prompt import mono_array

logger = logging.getLogger(__name__)

MIN_SAMPLE_RATE = 16000  # the speech tokenizer's rate; the original's load_wav refuses lower rates
MAX_PIECE_SECONDS = 30.0  # the speech tokenizer's limit per call
SEARCH_SECONDS = 10.0  # a cut is looked for in the last 10 s of a full piece: pieces are 20-30 s
MIN_SOURCE_SECONDS = 0.5  # shorter is no speech to convert
MAX_SOURCE_SECONDS = 3600.0  # default limit of one conversion (Engine.convert's max_source_seconds)
TOKEN_SECONDS = 0.04  # one speech token (25 Hz): cuts fall on this grid where the rate allows
_FRAME_SECONDS = 0.01  # level analysis frame when looking for a pause
_PAUSE_SECONDS = 0.2  # a pause is the quietest 200 ms


@dataclass(frozen=True, eq=False)
class SourcePiece:
    """One piece of the source, converted on its own."""

    samples: np.ndarray  # float32 [N], mono, at sample_rate
    sample_rate: int  # the source's own rate
    index: int  # 0, 1, 2, ...
    start: float  # seconds into the source where this piece starts
    is_last: bool  # no piece follows

    @property
    def duration(self) -> float:
        return self.samples.shape[0] / self.sample_rate


@dataclass(frozen=True)
class SourceInfo:
    """What :func:`probe_source` learnt before decoding."""

    name: str  # for messages
    sample_rate: int
    seconds: float | None  # length, when known before decoding (arrays, most file formats)


def _name(source: object) -> str:
    if isinstance(source, (str, os.PathLike)):
        return f"'{os.fspath(source)}'"
    return f"'{getattr(source, 'name', 'the source recording')}'"


def check_rate(sr: int, name: str) -> None:
    if not isinstance(sr, (int, np.integer)) or isinstance(sr, bool):
        raise InputError(f"the sample rate of {name} must be a whole number of Hz, not {sr!r}.")
    if sr < MIN_SAMPLE_RATE:
        raise InputError(
            f"{name} is sampled at {sr} Hz; voice conversion needs at least {MIN_SAMPLE_RATE // 1000} kHz "
            "(telephone-quality audio cannot be converted). Record or export it at 16 kHz or higher."
        )
    if sr > MAX_SAMPLE_RATE:
        raise InputError(f"{name} claims a sample rate of {sr} Hz, which no recording has; re-export it.")


def check_length(seconds: float, name: str, max_seconds: float) -> None:
    if seconds < MIN_SOURCE_SECONDS:
        raise InputError(
            f"{name} is only {seconds:.2f} s long; record at least {MIN_SOURCE_SECONDS:g} s of speech to convert."
        )
    if seconds > max_seconds:
        raise InputError(
            f"{name} is {seconds / 60:.1f} minutes long; one conversion takes at most {max_seconds / 60:g} "
            "minutes. Cut the recording into parts and convert them one after another."
        )


def probe_source(source: AudioSource | np.ndarray | torch.Tensor, sr: int | None, *,
                 max_seconds: float = MAX_SOURCE_SECONDS) -> SourceInfo:
    """Check a source without decoding it: raises :class:`InputError` for a missing, empty, truncated or
    non-audio file, a rate below 16 kHz, a length under :data:`MIN_SOURCE_SECONDS` or over ``max_seconds``,
    and for arrays without a rate or with NaN samples."""
    if isinstance(source, (np.ndarray, torch.Tensor)):
        if not sr:
            raise InputError("The source recording is a waveform without a sample rate; pass its sample rate too.")
        check_rate(sr, "the source recording")
        wav = mono_array(source, "the source recording")
        bad = int(np.count_nonzero(~np.isfinite(wav)))
        if bad:
            raise InputError(f"the source recording has {bad} NaN or infinite samples; re-record or re-export it.")
        seconds = wav.shape[0] / sr
        check_length(seconds, "the source recording", max_seconds)
        return SourceInfo("the source recording", int(sr), seconds)
    if isinstance(source, (bytes, bytearray)):
        raise InputError("Pass the source recording as a file path, a binary file object or a waveform, not bytes.")
    name, rate, channels, frames = probe_audio(source)  # missing, empty, truncated WAV, not audio
    if not 0 < channels <= MAX_CHANNELS:
        raise InputError(f"'{name}' has {channels} channels; export it as mono or stereo.")
    check_rate(rate, f"'{name}'")
    seconds = frames / rate if frames > 0 else None
    if seconds is not None:
        check_length(seconds, f"'{name}'", max_seconds)
    return SourceInfo(f"'{name}'", rate, seconds)


# --------------------------------------------------------------------------------------------
# Decoding in blocks
# --------------------------------------------------------------------------------------------


def _array_blocks(wav: np.ndarray, sr: int) -> Iterator[np.ndarray]:
    step = int(MAX_PIECE_SECONDS * sr)
    for start in range(0, wav.shape[0], step):
        yield wav[start : start + step]


# --------------------------------------------------------------------------------------------
# Cutting at pauses
# --------------------------------------------------------------------------------------------


def token_grid(sr: int) -> int:
    """Samples per speech token at ``sr`` (cuts fall on multiples of it), or 1 where that is no whole number."""
    step = sr * TOKEN_SECONDS
    return round(step) if abs(step - round(step)) < 1e-9 else 1


def find_cut(wav: np.ndarray, sr: int, *, search_seconds: float = SEARCH_SECONDS) -> int:
    """Where to end a piece that starts at ``wav[0]`` and may take all of ``wav``: the middle of the
    quietest :data:`_PAUSE_SECONDS` within its last ``search_seconds``, on the token grid (the latest
    such place when several are equally quiet: digital silence)."""
    frame = max(1, int(_FRAME_SECONDS * sr))
    lo = max(frame, wav.shape[0] - int(search_seconds * sr))
    region = wav[lo : wav.shape[0] // frame * frame].astype(np.float64)
    n_frames = region.shape[0] // frame
    if n_frames < 1:
        return wav.shape[0]
    energy = (region[: n_frames * frame].reshape(n_frames, frame) ** 2).mean(axis=1)  # [F]
    width = max(1, min(n_frames, int(_PAUSE_SECONDS / _FRAME_SECONDS)))
    smooth = np.convolve(energy, np.ones(width) / width, mode="valid")  # [F - width + 1]
    best = int(np.flatnonzero(smooth <= smooth.min() * (1 + 1e-9) + 1e-20)[-1])
    cut = lo + (best + width // 2) * frame
    grid = token_grid(sr)
    cut = max(grid, cut // grid * grid)
    return min(cut, wav.shape[0])


def iter_pieces(source: AudioSource | np.ndarray | torch.Tensor, info: SourceInfo, *,
                max_seconds: float = MAX_SOURCE_SECONDS,
                piece_seconds: float = MAX_PIECE_SECONDS) -> Generator[SourcePiece, None, None]:
    """The source's pieces in order, each at most ``piece_seconds`` (the tokenizer's 30 s), cut at pauses.

    Holds at most one piece and one decoded block (plus the piece handed out). Raises :class:`InputError`
    for NaN samples, a file that turns out corrupt or longer than ``max_seconds`` while decoding (its
    header did not tell), and a file shorter than :data:`MIN_SOURCE_SECONDS`.
    """
    sr = info.sample_rate
    if isinstance(source, (np.ndarray, torch.Tensor)):
        blocks = _array_blocks(mono_array(source, "the source recording"), sr)
    else:
        blocks = audio_blocks(source, max_seconds)
    limit = int(piece_seconds * sr)
    buf = np.zeros(0, np.float32)
    start = 0  # samples of the source before buf
    index = 0
    pending: SourcePiece | None = None
    for block in blocks:
        if not np.isfinite(block).all():
            bad = int(np.count_nonzero(~np.isfinite(block)))
            raise InputError(f"{info.name} has {bad} NaN or infinite samples; re-export it.")
        buf = np.concatenate([buf, block]) if buf.size else block
        if (start + buf.shape[0]) / sr > max_seconds + 1.0 / sr:
            check_length((start + buf.shape[0]) / sr, info.name, max_seconds)
        while buf.shape[0] > limit:
            cut = find_cut(buf[:limit], sr, search_seconds=min(SEARCH_SECONDS, piece_seconds / 2))
            if pending is not None:
                yield pending
            pending = SourcePiece(np.array(buf[:cut]), sr, index, start / sr, False)
            index += 1
            start += cut
            buf = buf[cut:]
    total = (start + buf.shape[0]) / sr
    if info.seconds is None:
        check_length(total, info.name, max_seconds)
    if buf.shape[0]:
        if pending is not None:
            yield pending
        pending = SourcePiece(np.array(buf), sr, index, start / sr, True)
    if pending is not None:
        yield SourcePiece(pending.samples, sr, pending.index, pending.start, True)


def is_silent(piece: SourcePiece) -> bool:
    return analyse_audio(piece.samples, piece.sample_rate).is_silent


def level_warnings(piece: SourcePiece) -> tuple[str, ...]:
    """Things to tell the user about the level of a (first) piece: clipped or very quiet."""
    stats = analyse_audio(piece.samples, piece.sample_rate)
    if stats.clipped_fraction >= 1e-3:
        return (f"The source recording is clipped ({stats.clipped_fraction:.1%} of the samples are at full scale); "
                "the converted speech may sound distorted.",)
    if stats.rms_dbfs < -40.0:
        return (f"The source recording is very quiet ({stats.rms_dbfs:.0f} dBFS); noise may be converted too.",)
    return ()
