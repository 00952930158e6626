"""What a script take keeps besides its audio: the script, the cast, each line's seed and instruction,
and where every segment lies in the audio.

A script take is spoken as segments laid end to end (:mod:`cosycore.studio.render`): one per speech
line and one per silence between lines. :class:`ScriptInfo` records them as the chunks arrive (each
chunk carries a :class:`ScriptMark`), is saved in the take's manifest (:mod:`cosycore.studio.take_folder`), and
is what the waveform's speaker marks, the subtitle cues, the stems and regenerate-a-line are made from.

The samples of a segment: silence is zeros; a line never regenerated is its span of the take's audio,
exactly (lines are always separated by silence, so no crossfade ever touches a line that was not
regenerated); a regenerated line's own samples are kept in a file of its own (:attr:`SegmentMark.raw_file`),
because the take's audio holds it faded in and out at its seams.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..request import AudioChunk
from ..subtitles import Cue
from .script import speaker_key

SILENCE_KINDS = ("gap", "pause", "paragraph")


@dataclass(frozen=True)
class ScriptMark:
    """What a chunk of a script take belongs to (carried by a :class:`ScriptChunk`)."""

    segment: int  # index of the take's segment
    kind: str  # "line", "gap", "pause" or "paragraph"
    line_index: int | None  # speech line (0-based among the script's speech lines); None for silence
    speaker: str | None  # the cast name; None for silence
    segment_final: bool  # the segment's last chunk


@dataclass(frozen=True, eq=False)
class ScriptChunk(AudioChunk):
    """A chunk of a script take: the engine's :class:`~cosycore.request.AudioChunk` and where it belongs."""

    script: ScriptMark | None = None


@dataclass(frozen=True)
class CastEntry:
    """One speaker of a cast: the name as written in the script, the saved voice's name ("" for none)
    and the default instruction ("" for none); in a take made by the command line also a copy of the
    voice in the take's folder (``file``, ``voices/NN.cosyvoice``) and its sha256."""

    name: str
    voice: str = ""
    instruction: str = ""
    file: str = ""
    sha256: str = ""

    def to_json(self) -> dict[str, str]:
        out = {"name": self.name, "voice": self.voice, "instruction": self.instruction}
        if self.file:
            out.update(file=self.file, sha256=self.sha256)
        return out

    @classmethod
    def from_json(cls, raw: object) -> CastEntry | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"].strip():
            return None
        voice, instruction = raw.get("voice", ""), raw.get("instruction", "")
        file, sha256 = raw.get("file", ""), raw.get("sha256", "")
        return cls(raw["name"].strip(), voice if isinstance(voice, str) else "",
                   instruction if isinstance(instruction, str) else "", file if isinstance(file, str) else "",
                   sha256 if isinstance(sha256, str) else "")


@dataclass(frozen=True)
class LineInfo:
    """One speech line as it was (last) spoken."""

    index: int  # among the script's speech lines, 0-based
    line: int  # line number in the script, 1-based
    speaker: str  # the cast name
    voice: str  # the saved voice's name
    text: str  # the line as written
    mode: str  # "zero_shot", "cross_lingual" or "instruct"
    instruction: str  # the instruction sent ("" for none)
    seed: int
    spoken: str = ""  # the text as spoken (pronunciation dictionary applied); "" where not recorded
    written_instruction: str = ""  # the instruction written on the script line ("" for none)

    def to_json(self) -> dict[str, Any]:
        out = {"index": self.index, "line": self.line, "speaker": self.speaker, "voice": self.voice,
               "text": self.text, "mode": self.mode, "instruction": self.instruction, "seed": self.seed}
        if self.spoken:
            out.update(spoken=self.spoken, written_instruction=self.written_instruction)
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> LineInfo:
        return cls(int(raw["index"]), int(raw["line"]), str(raw["speaker"]), str(raw.get("voice", "")),
                   str(raw["text"]), str(raw["mode"]), str(raw.get("instruction", "")), int(raw["seed"]),
                   str(raw.get("spoken", "")), str(raw.get("written_instruction", "")))


@dataclass(frozen=True)
class SegmentMark:
    """Where one segment lies in the take's audio."""

    kind: str  # "line" or a silence ("gap", "pause", "paragraph")
    start: int  # first sample in the take
    length: int  # samples
    line_index: int | None = None  # for lines
    spliced: bool = False  # regenerated: its seams are crossfaded
    raw_file: str = ""  # a regenerated line's own samples (a file in the take's folder)

    @property
    def end(self) -> int:
        return self.start + self.length

    def to_json(self) -> list[Any]:
        return [self.kind, self.start, self.length, self.line_index, self.spliced, self.raw_file]

    @classmethod
    def from_json(cls, raw: list[Any]) -> SegmentMark:
        kind, start, length, line_index, spliced, raw_file = raw
        if kind != "line" and kind not in SILENCE_KINDS:
            raise ValueError(f"unknown segment kind {kind!r}")
        return cls(str(kind), int(start), int(length), None if line_index is None else int(line_index),
                   bool(spliced), str(raw_file))


@dataclass(frozen=True)
class RenderValues:
    """The render settings the take was made with (plain values of :class:`cosycore.studio.render.RenderSettings`)."""

    line_gap: float = 0.3
    paragraph_pause: float = 0.9
    speed: float = 1.0
    stream: bool = True
    crossfade: float = 0.01
    max_tokens: int | None = None
    min_tokens: int | None = None
    language: str | None = None
    text_frontend: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"line_gap": self.line_gap, "paragraph_pause": self.paragraph_pause, "speed": self.speed,
                "stream": self.stream, "crossfade": self.crossfade, "max_tokens": self.max_tokens,
                "min_tokens": self.min_tokens, "language": self.language, "text_frontend": self.text_frontend}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> RenderValues:
        max_tokens, min_tokens, language = raw.get("max_tokens"), raw.get("min_tokens"), raw.get("language")
        return cls(float(raw.get("line_gap", 0.3)), float(raw.get("paragraph_pause", 0.9)),
                   float(raw.get("speed", 1.0)), bool(raw.get("stream", True)), float(raw.get("crossfade", 0.01)),
                   None if max_tokens is None else int(max_tokens), None if min_tokens is None else int(min_tokens),
                   None if language is None else str(language), bool(raw.get("text_frontend", True)))


@dataclass
class ScriptInfo:
    """The script side of a take. Owned by its :class:`cosycore.studio.take.Take`."""

    text: str  # the script as written
    base_dir: str  # where relative [lexicon FILE] paths start
    cast: list[CastEntry]
    render: RenderValues = field(default_factory=RenderValues)
    base_seed: int = 0
    lines: list[LineInfo] = field(default_factory=list)
    segments: list[SegmentMark] = field(default_factory=list)
    # Recorded by the command line (cosycore.studio.take_file), which regenerates a line in a later process
    # with nothing but the take folder: the model family, release folder and text reading the take was made
    # with, the script file's name, the files written from the take (TakeOutputs as JSON) and a count of
    # regenerations (a later command checks it to tell whether another one changed the take meanwhile).
    family: str = ""
    model_name: str = ""
    text_reading: str = ""
    script_name: str = ""
    outputs: dict[str, Any] | None = None
    revision: int = 0
    _streaming_segment: int = field(default=-1, repr=False, compare=False)  # the render segment last marked

    # -- while the take is made ----------------------------------------------------------------
    def mark(self, mark: ScriptMark, start: int, length: int) -> None:
        """A chunk of ``length`` samples starting at sample ``start`` of the take arrived."""
        if self.segments and mark.segment == self._streaming_segment:
            last = self.segments[-1]
            self.segments[-1] = replace(last, length=start + length - last.start)
        else:
            self.segments.append(SegmentMark(mark.kind, start, length, mark.line_index))
            self._streaming_segment = mark.segment

    # -- reading -------------------------------------------------------------------------------
    def line(self, index: int) -> LineInfo:
        for info in self.lines:
            if info.index == index:
                return info
        raise KeyError(index)

    def spoken_lines(self) -> list[LineInfo]:
        """The lines that are in the audio (a stopped take holds only the first ones)."""
        present = {s.line_index for s in self.segments if s.kind == "line"}
        return [info for info in self.lines if info.index in present]

    def segment_of(self, line_index: int) -> int:
        for k, seg in enumerate(self.segments):
            if seg.kind == "line" and seg.line_index == line_index:
                return k
        raise KeyError(line_index)

    def line_at(self, sample: int) -> LineInfo | None:
        """The line spoken at ``sample`` of the take (None in a silence)."""
        for seg in self.segments:
            if seg.kind == "line" and seg.line_index is not None and seg.start <= sample < seg.end:
                return self.line(seg.line_index)
        return None

    def speakers(self) -> list[str]:
        """Speakers in order of first appearance."""
        seen: dict[str, str] = {}
        for info in self.lines:
            seen.setdefault(speaker_key(info.speaker), info.speaker)
        return list(seen.values())

    def line_marks(self) -> list[tuple[int, int, LineInfo]]:
        """``(start, end, line)`` in samples of every spoken line in the audio."""
        return [(seg.start, seg.end, self.line(seg.line_index)) for seg in self.segments
                if seg.kind == "line" and seg.line_index is not None]

    def cues(self, sample_rate: int) -> list[Cue]:
        """One subtitle cue per spoken line: its span, the speaker and the line as written."""
        return [Cue(a / sample_rate, b / sample_rate, info.text, info.speaker) for a, b, info in self.line_marks()]

    def stems(self, audio: np.ndarray) -> dict[str, np.ndarray]:
        """One track per speaker, as long as ``audio``, holding the speaker's lines and silence elsewhere.

        Equal to :meth:`cosycore.studio.render.ScriptTake.stems`: a line's span of the take holds only that
        line (faded at a regenerated line's seams), since every line is surrounded by silence."""
        stems: dict[str, np.ndarray] = {}
        for name in self.speakers():
            track = np.zeros(audio.shape[0], dtype=np.float32)
            for a, b, info in self.line_marks():
                if speaker_key(info.speaker) == speaker_key(name):
                    track[a:b] = audio[a:b]
            stems[name] = track
        return stems

    def raw_segments(self, audio: np.ndarray, read_raw: Callable[[str], np.ndarray]) -> list[np.ndarray]:
        """Every segment's own samples (see the module's description); ``read_raw`` reads a regenerated line's file."""
        out = []
        for seg in self.segments:
            if seg.kind != "line":
                out.append(np.zeros(seg.length, dtype=np.float32))
            elif seg.raw_file:
                raw = np.asarray(read_raw(seg.raw_file), dtype=np.float32)
                if raw.shape[0] != seg.length:
                    raise ValueError(f"{seg.raw_file} holds {raw.shape[0]} samples, the take expects {seg.length}")
                out.append(raw)
            else:
                out.append(np.array(audio[seg.start:seg.end], dtype=np.float32))
        return out

    def raw_files(self) -> set[str]:
        return {s.raw_file for s in self.segments if s.raw_file}

    # -- after regenerating a line -------------------------------------------------------------
    def regenerated(self, line_index: int, layout: Iterable[tuple[int, int]], spliced: Iterable[bool],
                    raw_file: str, seed: int, mode: str, instruction: str) -> ScriptInfo:
        """A copy with the segments at their new places and the line's new seed, mode and instruction."""
        k = self.segment_of(line_index)
        segments = []
        for j, (old, (start, length), was_spliced) in enumerate(zip(self.segments, layout, spliced)):
            segments.append(replace(old, start=int(start), length=int(length), spliced=bool(was_spliced),
                                    raw_file=raw_file if j == k else old.raw_file))
        lines = [replace(info, seed=int(seed), mode=mode, instruction=instruction) if info.index == line_index
                 else info for info in self.lines]
        return replace(self, lines=lines, segments=segments, cast=list(self.cast))

    # -- saving --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out = {"text": self.text, "base_dir": self.base_dir, "cast": [c.to_json() for c in self.cast],
               "render": self.render.to_json(), "base_seed": self.base_seed,
               "lines": [i.to_json() for i in self.lines], "segments": [s.to_json() for s in self.segments]}
        if self.family:
            out["made_by"] = {"family": self.family, "model_name": self.model_name, "text_reading": self.text_reading,
                              "script_name": self.script_name, "outputs": self.outputs, "revision": self.revision}
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ScriptInfo:
        cast = [c for c in (CastEntry.from_json(r) for r in raw.get("cast", [])) if c is not None]
        made = raw.get("made_by") or {}
        if not isinstance(made, dict) or not isinstance(made.get("outputs"), (dict, type(None))):
            raise ValueError("its script's 'made_by' has the wrong type")
        return cls(str(raw["text"]), str(raw.get("base_dir", "")), cast, RenderValues.from_json(raw.get("render", {})),
                   int(raw.get("base_seed", 0)), [LineInfo.from_json(r) for r in raw.get("lines", [])],
                   [SegmentMark.from_json(r) for r in raw.get("segments", [])], str(made.get("family", "")),
                   str(made.get("model_name", "")), str(made.get("text_reading", "")),
                   str(made.get("script_name", "")), made.get("outputs"), int(made.get("revision", 0)))
