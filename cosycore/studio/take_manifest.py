"""``take.json``, the manifest of a take folder (see :mod:`cosycore.studio.take_file` for the folder).

:func:`build_manifest` turns a take and its files into plain data; :func:`parse_manifest` checks such
data field by field (types, ranges, counts, names of files, lengths that must agree with the render
settings) and raises :class:`TakeFileError` for the first thing that is wrong, before any file it
names is opened.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from ..config import QUALITY_CHOICES, TEXT_READINGS
from ..errors import InputError
from ..presets import FAMILIES
from ..voices import utc_now
from .cast import Cast, LinePlan
from .render import SEED_LIMIT, RenderSettings, ScriptTake, Segment
from .script import MAX_NAME_CHARS, MAX_PAUSE_SECONDS, SpeechLine

FORMAT_NAME = "cosy-studio-script-take"
FORMAT_VERSION = 1
MANIFEST = "take.json"
PREVIOUS_MANIFEST = "take.prev.json"
SCRIPT_FILE = "script.txt"
MAX_MANIFEST_BYTES = 64 << 20  # a 16 MiB script's lines, twice (as written and as spoken), and their numbers
MAX_SEGMENTS = 200_000
MAX_CAST = 256
MAX_TEXT_CHARS = 100_000  # one line as spoken (a dictionary can lengthen the 5,000 characters of a script line)
MAX_SEGMENT_SECONDS = 3600  # one spoken line
MAX_TAKE_SECONDS = 48 * 3600
SAMPLE_RATES = (8000, 192000)
MODES = ("zero_shot", "cross_lingual", "instruct")
OUTPUT_SUFFIXES = {"srt": (".srt",), "vtt": (".vtt",), "stem": (".wav", ".flac")}
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
_SETTINGS = {f.name for f in fields(RenderSettings)}


class TakeFileError(InputError):
    """A take folder is missing, damaged, of another format or version, or holds something no take can."""


def damaged(folder: Path, why: str) -> TakeFileError:
    return TakeFileError(f"the take folder '{folder.name}' is damaged or was edited ({why}). Render the script "
                         "again with 'cosycore synth --script' (the audio file beside it is not affected).")


@dataclass(frozen=True)
class TakeModel:
    """The model a take was made with."""

    family: str  # "cosyvoice2" or "cosyvoice3"
    name: str = ""  # the release folder's name, for messages
    quality: str = "exact"  # as asked: exact, fast, draft or auto ("custom": speed options set one by one)
    text_reading: str = "original"  # original or improved


@dataclass(frozen=True)
class OwnedFile:
    """A file written from a take, and its sha256 when it was written."""

    path: str  # relative to the folder that holds the take folder, "/"-separated, never leaving it
    sha256: str


@dataclass(frozen=True)
class TakeOutputs:
    """The files written from a take, so that a later command rewrites its own files and no others."""

    audio_sha256: str | None = None  # the take's audio file (the take folder's name without .take)
    previous_sha256: str | None = None  # its previous version (NAME.prev.wav), kept by the last regeneration
    srt: OwnedFile | None = None
    vtt: OwnedFile | None = None
    stems: tuple[tuple[str, OwnedFile], ...] = ()  # (speaker, file) in cast order


@dataclass(frozen=True)
class CastEntry:
    name: str
    instruction: str | None
    voice: str  # file, relative to the take folder
    sha256: str


@dataclass(frozen=True)
class SegmentFile:
    path: str  # relative to the take folder
    sha256: str
    samples: int


@dataclass
class ParsedManifest:
    """A checked ``take.json``: everything but the audio and the voices."""

    model: TakeModel
    sample_rate: int
    settings: RenderSettings
    base_seed: int
    script_name: str
    script_sha256: str
    cast: list[CastEntry]
    segments: list[dict[str, Any]]  # checked entries
    outputs: TakeOutputs
    created_at: str
    revision: int
    segment_files: dict[int, SegmentFile] = field(default_factory=dict)

    def build_take(self, cast: Cast, audio: Mapping[int, np.ndarray]) -> ScriptTake:
        """The take, with each spoken line's audio from ``audio`` (segment index → samples)."""
        segments = []
        for k, entry in enumerate(self.segments):
            if entry["kind"] != "line":
                silence = np.broadcast_to(np.zeros(1, dtype=np.float32), (entry["samples"],))  # no memory
                segments.append(Segment(entry["kind"], silence))
                continue
            member = cast.get(entry["speaker"])
            if member is None:
                raise TakeFileError(f"the take's line {entry['script_line']} names {entry['speaker']!r}, who is not "
                                    "in its cast (the take folder was edited?).")
            line = SpeechLine(entry["script_line"], entry["speaker"], entry["written_text"],
                              entry["written_instruction"])
            plan = LinePlan(entry["index"], line, member, entry["mode"], entry["instruction"], entry["text"])
            segments.append(Segment("line", audio[k], plan, entry["seed"], entry["spliced"]))
        return ScriptTake(segments, self.sample_rate, self.settings, self.base_seed)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Stored:
    """Where an object of a take (a segment's samples, a voice) is kept on disk."""

    obj: object  # held so that its id() stays unique while the record lives
    path: Path  # absolute
    sha256: str


@dataclass(eq=False)
class TakeRecord:
    """A script take with what it needs to regenerate its lines later: the cast, the model it was made
    with, the script's text and the files written from it. Loaded by :func:`load_take`, written by
    :class:`TakeWriter`, :func:`save_take` and :func:`update_take`."""

    take: ScriptTake
    cast: Cast
    model: TakeModel
    script_text: str
    script_name: str = ""
    outputs: TakeOutputs = field(default_factory=TakeOutputs)
    created_at: str = field(default_factory=utc_now)
    revision: int = 0  # counts regenerations; names the segment files they write
    folder: Path | None = None  # the take folder it was loaded from or saved to
    _stored: dict[int, _Stored] = field(default_factory=dict, repr=False)

    @property
    def script_sha256(self) -> str:
        return hashlib.sha256(self.script_text.encode("utf-8")).hexdigest()

    def stored(self, obj: object) -> _Stored | None:
        entry = self._stored.get(id(obj))
        return entry if entry is not None and entry.obj is obj else None

    def remember(self, obj: object, path: Path, sha256: str) -> None:
        self._stored[id(obj)] = _Stored(obj, path, sha256)

    @property
    def script_lines(self) -> list[int]:
        """The script line number of every spoken line, in take order."""
        return [s.plan.line.line for s in self.take.segments if s.plan is not None]

    def line_index(self, script_line: int) -> int:
        """The spoken line (0-based, as :func:`regenerate_line` takes it) on ``script_line`` of the script."""
        for seg in self.take.segments:
            if seg.plan is not None and seg.plan.line.line == script_line:
                return seg.plan.index
        lines = self.script_lines
        shown = ", ".join(map(str, lines[:30])) + (" …" if len(lines) > 30 else "")
        raise InputError(f"line {script_line} of the script is not a spoken line of this take; the spoken lines "
                         f"are on lines {shown} ('cosycore take lines' lists them).")


def _owned(f: OwnedFile | None) -> dict[str, str] | None:
    return None if f is None else {"path": f.path, "sha256": f.sha256}


def outputs_json(out: TakeOutputs) -> dict[str, Any]:
    """The files written from a take as JSON (:func:`parse_outputs` reads it back)."""
    return {"audio_sha256": out.audio_sha256, "previous_sha256": out.previous_sha256,
            "srt": _owned(out.srt), "vtt": _owned(out.vtt),
            "stems": [{"speaker": name, **(_owned(f) or {})} for name, f in out.stems]}


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


class _Check:
    """Typed access to one JSON object of the manifest; every failure is a :class:`TakeFileError`."""

    def __init__(self, folder: Path, obj: Any, where: str) -> None:
        if not isinstance(obj, dict):
            raise damaged(folder, f"{where} is not a JSON object")
        self.folder, self.obj, self.where = folder, obj, where

    def fail(self, why: str) -> TakeFileError:
        return damaged(self.folder, f"{self.where}: {why}")

    def get(self, key: str) -> Any:
        if key not in self.obj:
            raise self.fail(f"'{key}' is missing")
        return self.obj[key]

    def integer(self, key: str, lo: int, hi: int) -> int:
        v = self.get(key)
        if type(v) is not int or not lo <= v <= hi:
            raise self.fail(f"'{key}' must be a whole number from {lo:,} to {hi:,}, not {v!r:.40}")
        return v

    def boolean(self, key: str) -> bool:
        v = self.get(key)
        if type(v) is not bool:
            raise self.fail(f"'{key}' must be true or false")
        return v

    def text(self, key: str, limit: int, *, empty: bool = True, choices: Sequence[str] | None = None) -> str:
        v = self.get(key)
        if not isinstance(v, str) or len(v) > limit or (not empty and not v.strip()):
            raise self.fail(f"'{key}' must be {'' if empty else 'non-empty '}text of at most {limit:,} characters")
        if choices is not None and v not in choices:
            raise self.fail(f"'{key}' must be one of {', '.join(choices)}, not {v!r:.40}")
        return v

    def opt_text(self, key: str, limit: int) -> str | None:
        return None if self.obj.get(key) is None else self.text(key, limit, empty=False)

    def sha(self, key: str) -> str:
        v = self.get(key)
        if not isinstance(v, str) or not _SHA256_RE.match(v):
            raise self.fail(f"'{key}' is not a sha256 in hex")
        return v

    def opt_sha(self, key: str) -> str | None:
        return None if self.obj.get(key) is None else self.sha(key)

    def entries(self, key: str, lo: int, hi: int) -> list[Any]:
        v = self.get(key)
        if not isinstance(v, list) or not lo <= len(v) <= hi:
            raise self.fail(f"'{key}' must be a list of {lo:,} to {hi:,} entries")
        return v


def _settings(c: _Check) -> RenderSettings:
    raw = c.get("settings")
    s = _Check(c.folder, raw, "settings")
    if set(raw) != _SETTINGS:
        raise s.fail(f"expected the fields {', '.join(sorted(_SETTINGS))}")
    for name in ("line_gap", "paragraph_pause", "crossfade", "speed"):
        v = raw[name]
        if type(v) not in (int, float) or not math.isfinite(v):
            raise s.fail(f"'{name}' must be a number")
    if not 0.5 <= raw["speed"] <= 2.0:
        raise s.fail("'speed' must be from 0.5 to 2.0")
    for name in ("seed", "min_tokens", "max_tokens"):
        if raw[name] is not None:
            s.integer(name, 0, SEED_LIMIT)
    for name in ("stream", "text_frontend"):
        s.boolean(name)
    if raw["language"] is not None:
        s.text("language", 8, choices=("zh", "en"))
    try:
        return RenderSettings(**raw)
    except InputError as e:
        raise s.fail(str(e)) from e


def _output_path(c: _Check, kind: str) -> OwnedFile:
    text = c.text("path", 1000, empty=False)
    p = PurePosixPath(text)
    leaves = "\\" in text or ":" in text or p.is_absolute() or ".." in p.parts
    if leaves or p.suffix.lower() not in OUTPUT_SUFFIXES[kind]:
        raise c.fail(f"{text!r} is not a {'/'.join(OUTPUT_SUFFIXES[kind])} file beside the take folder")
    return OwnedFile(text, c.sha("sha256"))


def _outputs(c: _Check) -> TakeOutputs:
    o = _Check(c.folder, c.get("outputs"), "outputs")
    subs = {}
    for kind in ("srt", "vtt"):
        raw = o.obj.get(kind)
        subs[kind] = None if raw is None else _output_path(_Check(c.folder, raw, f"outputs.{kind}"), kind)
    stems = []
    for i, raw in enumerate(o.entries("stems", 0, MAX_CAST)):
        sc = _Check(c.folder, raw, f"outputs.stems[{i}]")
        stems.append((sc.text("speaker", MAX_NAME_CHARS, empty=False), _output_path(sc, "stem")))
    return TakeOutputs(o.opt_sha("audio_sha256"), o.opt_sha("previous_sha256"), subs["srt"], subs["vtt"],
                       tuple(stems))


def _segment(c: _Check, settings: RenderSettings, sr: int, line_count: int,
             last_line: int) -> dict[str, Any]:
    kind = c.text("kind", 16, choices=("line", "gap", "pause", "paragraph"))
    entry: dict[str, Any] = {"kind": kind, "spliced": c.boolean("spliced")}
    if kind != "line":
        expected = {"gap": settings.line_gap, "paragraph": settings.paragraph_pause}.get(kind)
        if expected is not None:
            entry["samples"] = c.integer("samples", round(expected * sr), round(expected * sr))
        else:
            entry["samples"] = c.integer("samples", 0, round(MAX_PAUSE_SECONDS * sr))
        if entry["spliced"]:
            raise c.fail("only a spoken line can be regenerated")
        return entry
    entry["samples"] = c.integer("samples", 0, MAX_SEGMENT_SECONDS * sr)
    entry["file"] = c.text("file", 100, empty=False)
    entry["sha256"] = c.sha("sha256")
    entry["seed"] = c.integer("seed", 0, SEED_LIMIT)
    entry["index"] = c.integer("index", line_count, line_count)
    entry["script_line"] = c.integer("script_line", last_line + 1, 10**8)
    entry["speaker"] = c.text("speaker", MAX_NAME_CHARS, empty=False)
    entry["written_text"] = c.text("written_text", MAX_TEXT_CHARS, empty=False)
    entry["written_instruction"] = c.opt_text("written_instruction", MAX_TEXT_CHARS)
    entry["mode"] = c.text("mode", 16, choices=MODES)
    entry["instruction"] = c.opt_text("instruction", MAX_TEXT_CHARS)
    entry["text"] = c.text("text", MAX_TEXT_CHARS, empty=False)
    if (entry["mode"] == "instruct") != (entry["instruction"] is not None):
        raise c.fail("an instruction goes with instruct mode, and instruct mode needs one")
    return entry


def parse_outputs(raw: Any, folder: Path) -> TakeOutputs:
    """Check the JSON of :func:`outputs_json` (None: nothing written yet)."""
    return TakeOutputs() if raw is None else _outputs(_Check(folder, {"outputs": raw}, MANIFEST))


def parse_manifest(data: Any, folder: Path) -> ParsedManifest:
    """Check ``take.json``'s data; raise :class:`TakeFileError` for anything a take cannot hold."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise TakeFileError(f"'{folder.name}' is not a Cosy Studio script take (its {MANIFEST} is of another "
                            "format); give the audio file 'synth --script' wrote, or its NAME.wav.take folder.")
    c = _Check(folder, data, MANIFEST)
    version = c.get("format_version")
    if type(version) is int and version > FORMAT_VERSION:
        raise TakeFileError(f"the take folder '{folder.name}' was written by a newer version of Cosy Studio (take "
                            f"format {version}; this one reads up to {FORMAT_VERSION}); update Cosy Studio.")
    c.integer("format_version", 1, FORMAT_VERSION)
    m = _Check(folder, c.get("model"), "model")
    model = TakeModel(m.text("family", 16, choices=FAMILIES), m.text("name", 255),
                      m.text("quality", 16, choices=(*QUALITY_CHOICES, "custom")),
                      m.text("text_reading", 16, choices=TEXT_READINGS))
    sr = c.integer("sample_rate", *SAMPLE_RATES)
    settings = _settings(c)
    script = _Check(folder, c.get("script"), "script")
    script.text("file", 64, choices=(SCRIPT_FILE,))
    cast = []
    for i, raw in enumerate(c.entries("cast", 1, MAX_CAST)):
        e = _Check(folder, raw, f"cast[{i}]")
        cast.append(CastEntry(e.text("name", MAX_NAME_CHARS, empty=False), e.opt_text("instruction", MAX_TEXT_CHARS),
                              e.text("voice", 100, empty=False), e.sha("sha256")))
    segments: list[dict[str, Any]] = []
    files: dict[int, SegmentFile] = {}
    lines, last_line, total = 0, 0, 0
    for k, raw in enumerate(c.entries("segments", 1, MAX_SEGMENTS)):
        entry = _segment(_Check(folder, raw, f"segments[{k}]"), settings, sr, lines, last_line)
        total += entry["samples"]
        if entry["kind"] == "line":
            files[k] = SegmentFile(entry["file"], entry["sha256"], entry["samples"])
            lines, last_line = lines + 1, entry["script_line"]
        segments.append(entry)
    if lines == 0:
        raise c.fail("the take has no spoken line")
    if total > MAX_TAKE_SECONDS * sr:
        raise c.fail(f"its segments add up to more than {MAX_TAKE_SECONDS // 3600} hours")
    return ParsedManifest(
        model=model, sample_rate=sr, settings=settings, base_seed=c.integer("base_seed", 0, SEED_LIMIT),
        script_name=script.text("name", 1000), script_sha256=script.sha("sha256"), cast=cast, segments=segments,
        outputs=_outputs(c), created_at=c.text("created_at", 64), revision=c.integer("revision", 0, 10**9),
        segment_files=files)
