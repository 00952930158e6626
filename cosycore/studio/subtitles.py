"""Subtitle cues with speakers (SRT, WebVTT) and chapter cue sheets for rendered scripts and long-form
files. SRT is written by :mod:`cosycore.subtitles` (the engine's own subtitles), with the speaker's name
before each line."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .. import subtitles as base


@dataclass(frozen=True)
class Cue:
    """One subtitle: a time span, who speaks (may be empty) and what is said (as written)."""

    start: float  # seconds
    end: float  # seconds
    text: str
    speaker: str = ""


def _clock(seconds: float, sep: str) -> str:
    ms = max(0, round(seconds * 1000))
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def _one_line(text: str) -> str:
    return base.cue_line(text)  # one line, no escape sequences or control characters


def srt_text(cues: Iterable[Cue]) -> str:
    """SubRip (written by :func:`cosycore.subtitles.srt`, as ``synth --srt``), with the speaker's name
    before each line (``Anna: …``)."""
    return base.srt([base.Cue(c.start, c.end, f"{c.speaker}: {_one_line(c.text)}" if c.speaker else c.text)
                     for c in cues])


def _vtt_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def vtt_text(cues: Iterable[Cue]) -> str:
    """WebVTT: ``HH:MM:SS.mmm`` cues; the speaker in a voice span (``<v Anna>…``), which players show."""
    blocks = ["WEBVTT\n"]
    for cue in cues:
        text = _vtt_escape(_one_line(cue.text))
        if cue.speaker:
            name = _vtt_escape(_one_line(cue.speaker))
            text = f"<v {name}>{text}"
        blocks.append(f"{_clock(cue.start, '.')} --> {_clock(cue.end, '.')}\n{text}\n")
    return "\n".join(blocks)


@dataclass(frozen=True)
class Chapter:
    """A chapter of a long-form render: its title and where it starts."""

    title: str
    start: float  # seconds


def _cue_index(seconds: float) -> str:
    frames = max(0, math.floor(seconds * 75 + 1e-6))  # 75 frames per second; never after the start
    m, rest = divmod(frames, 75 * 60)
    s, f = divmod(rest, 75)
    return f"{m:02d}:{s:02d}:{f:02d}"


def _cue_quote(text: str) -> str:
    return _one_line(text).replace('"', "'")


def cue_sheet(audio_file: str, chapters: Sequence[Chapter], *, title: str = "", performer: str = "") -> str:
    """A CD cue sheet with one track per chapter in ``audio_file`` (WAVE: WAV and FLAC alike)."""
    kind = "WAVE"
    lines = []
    if performer:
        lines.append(f'PERFORMER "{_cue_quote(performer)}"')
    if title:
        lines.append(f'TITLE "{_cue_quote(title)}"')
    lines.append(f'FILE "{_cue_quote(audio_file)}" {kind}')
    for n, chapter in enumerate(chapters, start=1):
        lines.append(f"  TRACK {n:02d} AUDIO")
        lines.append(f'    TITLE "{_cue_quote(chapter.title) or f"Chapter {n}"}"')
        lines.append(f"    INDEX 01 {_cue_index(0.0 if n == 1 else chapter.start)}")
    return "\n".join(lines) + "\n"


def m3u_playlist(files: Sequence[tuple[str, str, float]]) -> str:
    """An extended M3U playlist of ``(file name, title, seconds)``."""
    lines = ["#EXTM3U"]
    for name, title, seconds in files:
        lines.append(f"#EXTINF:{round(seconds)},{_one_line(title)}")
        lines.append(name)
    return "\n".join(lines) + "\n"
