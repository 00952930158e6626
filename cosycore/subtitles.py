"""Subtitles of a take: one cue per sentence of the text as the user typed it (per clause where a sentence
runs longer than about 7 s), timed from the take's chunks.

The engine speaks *segments*: normalised text ("二零二四年三月五日" for "2024年3月5日"), where short
sentences are merged into one segment. Each chunk says which segment it belongs to
(:attr:`~cosycore.engine.AudioChunk.sentence_index`), so a take knows when every segment started and
ended (:class:`SpokenSegment`). Here the typed sentences are
matched to the segments in order, by the length of their normalised text, and a segment's time is shared
among its typed sentences in proportion to that length. A stopped take's last segment is unfinished: its
sentences are timed at the rate measured on the take so far and the cues end where the audio ends, so
the subtitles cover everything that was spoken.

The files are written here too, for every caller: SubRip (:func:`srt`) and WebVTT (:func:`vtt`), with
the speaker of a script's line (:attr:`Cue.speaker`), and the chapters of a long-form render as a CD
cue sheet and an M3U playlist. Pure Python (the text normaliser has no torch). Used by the app's
export, ``cosycore synth --srt`` and the studio's scripts and long-form renders.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

MAX_CUE_SECONDS = 7.0  # a longer sentence is cut at its clauses
_SENTENCE_RE = re.compile(r"[^\n]+?(?:[。！？!?…]+[”」』\"')）]*|\.(?:\s|$)|$)", re.S)
_CLAUSE_RE = re.compile(r"[^，,；;：:、]+[，,；;：:、]*")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
CJK_CHARS_PER_SECOND = 4.5
OTHER_CHARS_PER_SECOND = 15.0


class Segment(Protocol):
    """Where one spoken segment lies in the audio (the app's ``SentenceSpan`` is one)."""

    @property
    def text(self) -> str: ...

    @property
    def start(self) -> float: ...

    @property
    def end(self) -> float: ...


@dataclass(frozen=True)
class SpokenSegment:
    index: int
    text: str  # as spoken (normalised)
    start: float  # seconds
    end: float


def spoken_segments(chunks: Iterable[tuple[int, str, int, int]]) -> list[SpokenSegment]:
    """Segments from ``(sentence_index, sentence_text, samples, sample_rate)`` of each chunk, in order."""
    out: dict[int, SpokenSegment] = {}
    t = 0.0
    for index, text, samples, rate in chunks:
        end = t + samples / rate
        first = out.get(index)
        out[index] = SpokenSegment(index, text or (first.text if first else ""), first.start if first else t, end)
        t = end
    return [out[k] for k in sorted(out)]


@dataclass(frozen=True)
class Cue:
    """One subtitle: a time span, what is said (as written) and who says it (may be empty)."""

    start: float  # seconds
    end: float  # seconds
    text: str
    speaker: str = ""


def split_sentences(text: str) -> list[str]:
    """The typed text's sentences, as typed (line breaks also end one)."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(m.group(0).strip() for m in _SENTENCE_RE.finditer(line) if m.group(0).strip())
    return out


def split_clauses(sentence: str) -> list[str]:
    parts = [m.group(0).strip() for m in _CLAUSE_RE.finditer(sentence) if m.group(0).strip()]
    return parts or [sentence]


def weight(text: str) -> float:
    """Roughly how long ``text`` (normalised) takes to say, in seconds: only its proportions matter."""
    cjk = len(_CJK_RE.findall(text))
    other = sum(1 for c in text if not c.isspace()) - cjk
    return cjk / CJK_CHARS_PER_SECOND + other / OTHER_CHARS_PER_SECOND + 1e-3


def _default_normalise(text: str) -> str:
    from .frontend.text import normalize_text

    try:
        return normalize_text(text)
    except Exception:  # a sentence the normaliser refuses (only tags, …) keeps its typed form for timing
        return text


def cues(text: str, spans: Sequence[Segment], duration: float, *, complete: bool,
         normalise: Callable[[str], str] = _default_normalise) -> list[Cue]:
    """Cues for a take of ``text`` whose segments were spoken at ``spans`` (``duration`` s of audio in all).

    ``complete`` is False for a take that stopped early: its last segment may be cut short.
    """
    spans = [SpokenSegment(i, s.text, s.start, s.end) for i, s in enumerate(spans) if s.end > s.start]
    typed = split_sentences(text)
    if not spans or not typed:
        return []
    sizes = [weight(normalise(t)) for t in typed]
    seg_sizes = [weight(s.text) if s.text else 0.0 for s in spans]
    if not all(seg_sizes):  # segments without text (streamed input): share the whole time by typed length
        seg_sizes = [sum(sizes)]
        spans = [SpokenSegment(0, "", spans[0].start, spans[-1].end)]
    # Typed sentences to segments, in order: each goes to the segment its middle falls in.
    groups: list[list[int]] = [[] for _ in spans]
    bounds, acc = [], 0.0
    for size in seg_sizes:
        acc += size
        bounds.append(acc)
    total_typed = sum(sizes)
    scale = bounds[-1] / total_typed if complete else 1.0  # a stopped take: later segments never came
    acc = 0.0
    for i, size in enumerate(sizes):
        middle = (acc + size / 2) * scale
        acc += size
        j = next((k for k, b in enumerate(bounds) if middle <= b), None)
        if j is None:
            if complete:
                j = len(spans) - 1
            else:
                break  # not reached before the stop
        groups[j].append(i)
    # Seconds per unit of weight, measured on the segments that finished (for the unfinished one).
    done = spans if complete else spans[:-1]
    rate = (sum(s.end - s.start for s in done) / sum(seg_sizes[: len(done)])) if done else None
    out: list[Cue] = []
    for j, (span, members) in enumerate(zip(spans, groups, strict=True)):
        if not members:
            continue
        member_total = sum(sizes[i] for i in members)
        last_open = not complete and j == len(spans) - 1
        if last_open:
            length = member_total * (rate if rate is not None else 1.0)
            length = max(length, span.end - span.start)
        else:
            length = span.end - span.start
        t = span.start
        for i in members:
            piece = length * sizes[i] / member_total
            out.extend(_sentence_cues(typed[i], t, t + piece, normalise))
            t += piece
    out = [Cue(c.start, min(c.end, duration), c.text) for c in out if c.start < duration - 1e-3]
    return out


def _sentence_cues(sentence: str, start: float, end: float, normalise: Callable[[str], str]) -> list[Cue]:
    if end - start <= MAX_CUE_SECONDS:
        return [Cue(start, end, sentence)]
    clauses = split_clauses(sentence)
    if len(clauses) == 1:
        return [Cue(start, end, sentence)]
    sizes = [weight(normalise(c)) for c in clauses]
    total = sum(sizes)
    out, t = [], start
    for clause, size in zip(clauses, sizes, strict=True):
        piece = (end - start) * size / total
        out.append(Cue(t, t + piece, clause))
        t += piece
    return out


def _clock(seconds: float, sep: str) -> str:
    ms = max(0, round(seconds * 1000))
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


# Terminal escape sequences (CSI ``ESC [ … m``, OSC ``ESC ] … BEL``, two-character ones) in typed text.
_ESCAPE_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x9b[0-?]*[ -/]*[@-~]")
_KEEP_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners shape some scripts' letters


def cue_line(text: str) -> str:
    """A cue's text on one line, without terminal escape sequences, control or bidi-override characters
    (a subtitle file is read by players and, sometimes, printed in a terminal)."""
    text = _ESCAPE_RE.sub("", text)
    text = "".join(" " if c in "\t\n\r\v\f" else c for c in text
                   if not (unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") and c not in _KEEP_FORMAT
                           and c not in "\t\n\r\v\f"))
    return " ".join(text.split())


def srt(cue_list: Iterable[Cue]) -> str:
    """SubRip text, one numbered block per cue; a cue's speaker before its line (``Anna: …``)."""
    blocks = []
    for n, cue in enumerate((c for c in cue_list if c.end > c.start), 1):
        text = cue_line(f"{cue.speaker}: {cue_line(cue.text)}" if cue.speaker else cue.text) or "…"
        blocks.append(f"{n}\n{_clock(cue.start, ',')} --> {_clock(cue.end, ',')}\n{text}\n")
    return "\n".join(blocks)


def _vtt_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def vtt(cue_list: Iterable[Cue]) -> str:
    """WebVTT: ``HH:MM:SS.mmm`` cues; the speaker in a voice span (``<v Anna>…``), which players show."""
    blocks = ["WEBVTT\n"]
    for cue in cue_list:
        text = _vtt_escape(cue_line(cue.text))
        if cue.speaker:
            text = f"<v {_vtt_escape(cue_line(cue.speaker))}>{text}"
        blocks.append(f"{_clock(cue.start, '.')} --> {_clock(cue.end, '.')}\n{text}\n")
    return "\n".join(blocks)


# --------------------------------------------------------------------------------------------
# Chapters of a long-form render: a CD cue sheet and an M3U playlist
# --------------------------------------------------------------------------------------------


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
    return cue_line(text).replace('"', "'")


def cue_sheet(audio_file: str, chapters: Sequence[Chapter], *, title: str = "", performer: str = "") -> str:
    """A CD cue sheet with one track per chapter in ``audio_file`` (WAVE: WAV and FLAC alike)."""
    lines = []
    if performer:
        lines.append(f'PERFORMER "{_cue_quote(performer)}"')
    if title:
        lines.append(f'TITLE "{_cue_quote(title)}"')
    lines.append(f'FILE "{_cue_quote(audio_file)}" WAVE')
    for n, chapter in enumerate(chapters, start=1):
        lines.append(f"  TRACK {n:02d} AUDIO")
        lines.append(f'    TITLE "{_cue_quote(chapter.title) or f"Chapter {n}"}"')
        lines.append(f"    INDEX 01 {_cue_index(0.0 if n == 1 else chapter.start)}")
    return "\n".join(lines) + "\n"


def m3u_playlist(files: Sequence[tuple[str, str, float]]) -> str:
    """An extended M3U playlist of ``(file name, title, seconds)``."""
    lines = ["#EXTM3U"]
    for name, title, seconds in files:
        lines.append(f"#EXTINF:{round(seconds)},{cue_line(title)}")
        lines.append(name)
    return "\n".join(lines) + "\n"
