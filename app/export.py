"""Writing takes to disk: WAV (16-bit PCM or 32-bit float), FLAC, and SRT subtitles.

Every file is encoded in memory first and then written through :func:`cosycore.voices.write_atomic`
(temporary file beside the target, fsync, rename). A full disk or a read-only folder therefore
raises :class:`~cosycore.errors.StorageError` with the reason, and leaves any existing file as it was.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from cosycore.voices import write_atomic

from .takes import SentenceSpan

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExportFormat:
    key: str
    suffix: str
    subtype: str | None  # soundfile subtype; None for subtitles
    container: str | None  # soundfile format; None for subtitles


FORMATS: dict[str, ExportFormat] = {
    "wav16": ExportFormat("wav16", ".wav", "PCM_16", "WAV"),
    "wav_float": ExportFormat("wav_float", ".wav", "FLOAT", "WAV"),
    "flac": ExportFormat("flac", ".flac", "PCM_24", "FLAC"),
    "srt": ExportFormat("srt", ".srt", None, None),
}


def encode_audio(audio: np.ndarray, sample_rate: int, fmt: str) -> bytes:
    """The bytes of an audio file holding ``audio`` (float32 [N] in [-1, 1])."""
    spec = FORMATS[fmt]
    if spec.container is None:
        raise ValueError(f"{fmt} is not an audio format")
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    if spec.subtype != "FLOAT":
        x = np.clip(x, -1.0, 1.0)  # integer formats wrap around instead of clipping
    buf = io.BytesIO()
    sf.write(buf, x, int(sample_rate), format=spec.container, subtype=spec.subtype)
    return buf.getvalue()


def _srt_time(seconds: float) -> str:
    ms = max(0, round(seconds * 1000))
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def srt_text(spans: Sequence[SentenceSpan]) -> str:
    """SubRip subtitles, one cue per spoken sentence."""
    cues = []
    for n, span in enumerate((s for s in spans if s.end > s.start), 1):
        text = " ".join(span.text.split()) or "…"
        cues.append(f"{n}\n{_srt_time(span.start)} --> {_srt_time(span.end)}\n{text}\n")
    return "\n".join(cues)


def export_take(path: Path, fmt: str, audio: np.ndarray, sample_rate: int,
                sentences: Sequence[SentenceSpan] = ()) -> Path:
    """Write a take (or its subtitles) to ``path`` atomically; raises StorageError on failure."""
    path = Path(path)
    if fmt == "srt":
        data = srt_text(sentences).encode("utf-8")
    else:
        data = encode_audio(audio, sample_rate, fmt)
    write_atomic(path, data)
    logger.info("exported %s (%d bytes) to %s", fmt, len(data), path)
    return path


def format_for_path(path: Path, chosen: str = "wav16") -> str:
    """The format to write: the file name's type wins over the chosen filter (.wav keeps a chosen WAV kind)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".wav":
        return chosen if FORMATS[chosen].suffix == ".wav" else "wav16"
    by_suffix = {spec.suffix: key for key, spec in FORMATS.items() if spec.suffix != ".wav"}
    return by_suffix.get(suffix, chosen)
