"""Writing takes to disk: WAV (16-bit PCM or 32-bit float), FLAC, MP3, Ogg Vorbis, and SRT subtitles.

MP3 and Ogg Vorbis are encoded by libsndfile (1.1 and later; soundfile's wheels bring 1.2).

Every file is encoded in memory first and then written through :func:`cosycore.voices.write_atomic`
(temporary file beside the target, fsync, rename). A full disk or a read-only folder therefore
raises :class:`~cosycore.errors.StorageError` with the reason, and leaves any existing file as it was.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cosycore import subtitles
from cosycore.studio.take import SentenceSpan, Take
from cosycore.voices import write_atomic

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
    "mp3": ExportFormat("mp3", ".mp3", "MPEG_LAYER_III", "MP3"),
    "ogg": ExportFormat("ogg", ".ogg", "VORBIS", "OGG"),
    "srt": ExportFormat("srt", ".srt", None, None),
}


METADATA_FIELDS = ("title", "artist", "comment", "software", "date")  # soundfile names: RIFF INFO / Vorbis comment
MAX_METADATA_CHARS = 1000  # per field; a longer text is cut with "…" (libsndfile keeps strings in a small buffer)


def take_metadata(take: Take) -> dict[str, str]:
    """What an exported file says about its take: the text (title), the voice (artist), how it was made
    (comment: mode and, for instruct takes, the instruction) and the program."""
    modes = {"zero_shot": "clone", "cross_lingual": "cross-lingual", "instruct": "instruct", "script": "script",
             "convert": "voice conversion"}
    comment = f"Mode: {modes.get(take.mode, take.mode)}"
    if take.mode == "convert":
        comment += f"; source: {take.text}"
    if take.instruction:
        comment += f"; instruction: {take.instruction}"
    if take.seed is not None:
        comment += f"; seed: {take.seed}"
    return {"title": " ".join(take.text.split()), "artist": take.voice_name, "comment": comment,
            "software": "Cosy Studio"}


def _clipped(value: str) -> str:
    return value if len(value) <= MAX_METADATA_CHARS else value[: MAX_METADATA_CHARS - 1] + "…"


def encode_audio(audio: np.ndarray, sample_rate: int, fmt: str, metadata: Mapping[str, str] | None = None) -> bytes:
    """The bytes of an audio file holding ``audio`` (float32 [N] in [-1, 1]) and ``metadata``.

    ``metadata`` keys are soundfile's string fields (:data:`METADATA_FIELDS`): WAV stores them as a
    RIFF LIST/INFO chunk (INAM, IART, ICMT, ISFT, ICRD), FLAC and Ogg as Vorbis comments (TITLE, ARTIST,
    …), MP3 as ID3 tags.
    """
    spec = FORMATS[fmt]
    if spec.container is None:
        raise ValueError(f"{fmt} is not an audio format")
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    if spec.subtype != "FLOAT":
        x = np.clip(x, -1.0, 1.0)  # integer formats wrap around instead of clipping
    import soundfile as sf  # libsndfile is not needed for the window's first frame (issue 25)

    buf = io.BytesIO()
    with sf.SoundFile(buf, "w", int(sample_rate), 1, spec.subtype, format=spec.container) as f:
        for key, value in (metadata or {}).items():
            if key not in METADATA_FIELDS:
                raise ValueError(f"unknown metadata field {key!r}; use one of {METADATA_FIELDS}")
            if value:
                setattr(f, key, _clipped(value))
        f.write(x)
    return buf.getvalue()


def srt_text(spans: Sequence[SentenceSpan]) -> str:
    """SubRip subtitles with one cue per spoken segment, in the engine's (normalised) text."""
    return subtitles.srt([subtitles.Cue(s.start, s.end, s.text) for s in spans])


def export_take(path: Path, fmt: str, audio: np.ndarray, sample_rate: int,
                sentences: Sequence[SentenceSpan] = (), metadata: Mapping[str, str] | None = None, *,
                text: str | None = None, complete: bool = True) -> Path:
    """Write a take (or its subtitles) to ``path`` atomically; raises StorageError on failure.

    ``metadata`` (see :func:`take_metadata`) goes into WAV and FLAC files; subtitles carry none.
    With ``text`` (as typed), subtitles have one cue per typed sentence (:mod:`cosycore.subtitles`);
    ``complete`` is False for a take that stopped early.
    """
    path = Path(path)
    if fmt == "srt":
        if text is None:
            data = srt_text(sentences).encode("utf-8")
        else:
            duration = audio.shape[0] / sample_rate if sample_rate else 0.0
            cues = subtitles.cues(text, sentences, duration, complete=complete)
            data = subtitles.srt(cues).encode("utf-8")
    else:
        data = encode_audio(audio, sample_rate, fmt, metadata)
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
