"""Writing a script take: the one audio file, subtitles with the speakers' names (SRT, WebVTT) and,
optionally, one file per speaker ("stems"), each as long as the take and silent where the others speak.

Every file is encoded in memory and written through :func:`cosycore.voices.write_atomic` (temporary
file, fsync, rename), as :mod:`app.takes.export` does; a failure raises
:class:`~cosycore.errors.StorageError` and leaves existing files as they were.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cosycore import subtitles
from cosycore.errors import StorageError
from cosycore.subtitles import Cue
from cosycore.voices import voice_file_stem, write_atomic

from .export import FORMATS, encode_audio

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScriptExportPlan:
    """The files one export writes."""

    audio: Path
    srt: Path | None
    vtt: Path | None
    stems: dict[str, Path]  # speaker -> file

    def paths(self) -> list[Path]:
        return [p for p in (self.audio, self.srt, self.vtt, *self.stems.values()) if p is not None]


def stems_folder(audio: Path) -> Path:
    return audio.with_name(f"{audio.stem} stems")


def plan_export(audio: Path, fmt: str, speakers: Sequence[str], *, srt: bool, vtt: bool,
                stems: bool) -> ScriptExportPlan:
    """Where everything goes: ``NAME.srt`` and ``NAME.vtt`` beside ``NAME.wav``, the stems in ``NAME stems/``
    named after the speakers (as ``cosycore synth --stems`` names them)."""
    suffix = FORMATS[fmt].suffix
    if audio.suffix.lower() != suffix:
        audio = audio.with_name(audio.name + suffix)
    files: dict[str, Path] = {}
    if stems:
        taken: set[str] = set()
        for speaker in speakers:
            stem = voice_file_stem(speaker)
            name, n = stem, 2
            while name.casefold() in taken:
                name, n = f"{stem}-{n}", n + 1
            taken.add(name.casefold())
            files[speaker] = stems_folder(audio) / f"{name}{suffix}"
    return ScriptExportPlan(audio, audio.with_suffix(".srt") if srt else None,
                            audio.with_suffix(".vtt") if vtt else None, files)


def write_script_export(plan: ScriptExportPlan, fmt: str, audio: np.ndarray, sample_rate: int,
                        cues: Sequence[Cue], stems: Mapping[str, np.ndarray],
                        metadata: Mapping[str, str]) -> list[Path]:
    """Write the files of ``plan``; returns them. Called on the export worker thread."""
    written = []
    write_atomic(plan.audio, encode_audio(audio, sample_rate, fmt, metadata))
    written.append(plan.audio)
    if plan.srt is not None:
        write_atomic(plan.srt, subtitles.srt(cues).encode("utf-8"))
        written.append(plan.srt)
    if plan.vtt is not None:
        write_atomic(plan.vtt, subtitles.vtt(cues).encode("utf-8"))
        written.append(plan.vtt)
    for speaker, path in plan.stems.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StorageError(f"could not make the folder {path.parent}: {e.strerror or e}.") from e
        stem_metadata = {**metadata, "artist": speaker}
        write_atomic(path, encode_audio(stems[speaker], sample_rate, fmt, stem_metadata))
        written.append(path)
    logger.info("exported a script take: %s", ", ".join(str(p) for p in written))
    return written
