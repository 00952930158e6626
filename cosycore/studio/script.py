"""Dialogue scripts: a plain-text format with a speaker, and optionally an instruction, per line.

The format (UTF-8 text, one item per line)::

    # A comment: the whole line is ignored.
    [lexicon names.csv]
    Anna: Did you hear that?
    Ben (whispering): Quiet. Someone is at the door.
    [pause 800ms]
    Anna (emotion.fearful): Who is it?

    Ben: Nobody. Just the wind.

* ``Name: text`` speaks ``text`` with the voice cast as ``Name``. The name is matched without
  regard to case; a full-width colon ``：`` works too.
* ``Name (instruction): text`` adds an instruction for this line only, e.g. ``(whispering)`` or
  ``(Please speak very slowly.)``. An instruction that is a preset id of the model's family
  (``emotion.happy``; several joined with ``+``) stands for that preset's text. Full-width
  parentheses ``（）`` work too.
* ``[pause 500ms]`` (also ``[pause 1.5s]``, ``[pause 2 s]``) inserts silence of that length
  instead of the usual gap between lines; at most :data:`MAX_PAUSE_SECONDS`.
* A blank line is a paragraph pause (several blank lines count as one; none at the start or end).
* A line whose first non-blank character is ``#`` is a comment.
* ``[lexicon FILE]`` adds a pronunciation dictionary (CSV, see :mod:`cosycore.studio.lexicon`) for
  this script; a relative path is relative to the script's folder.

Every malformed line is reported with its line number (:class:`ScriptError`, which lists all of
them in :attr:`ScriptError.problems`), so an editor can underline each one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..frontend.text_checks import find_control_markers, is_speakable

MAX_NAME_CHARS = 64
MAX_PAUSE_SECONDS = 60.0
MAX_SCRIPT_BYTES = 16 * 1024 * 1024
MAX_LINE_CHARS = 5000
MAX_TOTAL_PAUSE_SECONDS = 3600.0  # every [pause] of a script together (each is at most MAX_PAUSE_SECONDS)
MAX_SCRIPT_LINES = 20_000  # speech lines of one script
MAX_SCRIPT_CHARS = 2_000_000  # characters to speak in one script (about 40 hours)

_PAUSE_RE = re.compile(r"^\[\s*pause\b(?P<body>[^\]]*)\]$", re.IGNORECASE)
_PAUSE_VALUE_RE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>ms|s)\s*$", re.IGNORECASE)
_LEXICON_RE = re.compile(r"^\[\s*lexicon\b(?P<body>[^\]]*)\]$", re.IGNORECASE)
_DIRECTIVE_RE = re.compile(r"^\[\s*(?P<word>[A-Za-z]+)\b[^\]]*\]$")
_SPEECH_RE = re.compile(
    r"^(?P<name>[^:：()（）\[\]]*?)\s*(?:[(（](?P<instr>[^()（）]*)[)）])?\s*[:：]\s?(?P<text>.*)$", re.DOTALL)


@dataclass(frozen=True)
class ScriptProblem:
    """One malformed line: where it is and what to do about it."""

    line: int  # 1-based line number in the script
    message: str  # says what is wrong and how to fix it
    column: int = 1  # 1-based column where the problem starts
    length: int = 0  # characters to underline (0: to the end of the line)

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ScriptError(InputError):
    """A script (or its cast) has malformed lines; :attr:`problems` lists every one, in line order."""

    def __init__(self, problems: list[ScriptProblem], name: str = "") -> None:
        self.problems = sorted(problems, key=lambda p: (p.line, p.column))
        self.name = name
        shown = "\n".join(f"  {p}" for p in self.problems[:20])
        more = f"\n  … and {len(self.problems) - 20} more" if len(self.problems) > 20 else ""
        where = f"{name}: " if name else ""
        count = "a problem" if len(self.problems) == 1 else f"{len(self.problems)} problems"
        super().__init__(f"{where}the script has {count}:\n{shown}{more}")

    @property
    def line(self) -> int:
        """Line number of the first problem."""
        return self.problems[0].line


@dataclass(frozen=True)
class SpeechLine:
    """``Name (instruction): text``."""

    line: int  # 1-based line number
    speaker: str  # as written in the script
    text: str  # what to say (as written; the pronunciation dictionary and normalisation come later)
    instruction: str | None = None  # the line's own instruction, as written

    @property
    def key(self) -> str:
        return speaker_key(self.speaker)


@dataclass(frozen=True)
class Pause:
    """Silence: ``[pause …]`` (``paragraph`` False) or a blank line (``paragraph`` True)."""

    line: int
    seconds: float | None  # None: the paragraph pause of the render settings
    paragraph: bool = False


@dataclass(frozen=True)
class Script:
    """A parsed script: speech lines and pauses in order, plus the dictionaries it names."""

    items: tuple[SpeechLine | Pause, ...]
    lexicon_files: tuple[Path, ...] = ()
    name: str = ""  # file name, for messages

    @property
    def lines(self) -> tuple[SpeechLine, ...]:
        return tuple(i for i in self.items if isinstance(i, SpeechLine))

    def speakers(self) -> list[str]:
        """Speakers in order of first appearance (as first written)."""
        seen: dict[str, str] = {}
        for line in self.lines:
            seen.setdefault(line.key, line.speaker)
        return list(seen.values())


def speaker_key(name: str) -> str:
    """How speaker names are compared: NFC, case-folded, runs of spaces as one."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def _pause_seconds(body: str) -> float | None:
    m = _PAUSE_VALUE_RE.match(body)
    if not m:
        return None
    value = float(m.group("num"))
    return value / 1000.0 if m.group("unit").lower() == "ms" else value


def _check_name(name: str, line_no: int, problems: list[ScriptProblem]) -> bool:
    if not name:
        problems.append(ScriptProblem(line_no, "the speaker's name before the colon is missing; write "
                                      "'Name: what they say'."))
        return False
    if len(name) > MAX_NAME_CHARS:
        problems.append(ScriptProblem(line_no, f"the speaker's name is longer than {MAX_NAME_CHARS} characters; "
                                      "is a colon missing after a short name?", 1, len(name)))
        return False
    if name.startswith("#") or name.startswith("["):
        problems.append(ScriptProblem(line_no, f"{name!r} is not a speaker's name; a comment starts the line "
                                      "with '#', a pause is written '[pause 500ms]'.", 1, len(name)))
        return False
    return True


def _diagnose_speech(raw: str, line_no: int) -> ScriptProblem:
    colon = min((i for i in (raw.find(":"), raw.find("：")) if i >= 0), default=-1)
    if colon < 0:
        return ScriptProblem(line_no, "no speaker: write 'Name: what they say' (or 'Name (instruction): …'); "
                             "a comment starts with '#'.")
    opening = next((i for i, c in enumerate(raw) if c in "(（"), -1)
    if opening >= 0 and not any(c in ")）" for c in raw[opening:]):
        return ScriptProblem(line_no, "the parenthesis after the name is not closed; write "
                             "'Name (instruction): text'.", opening + 1, len(raw) - opening)
    bad = next((i for i, c in enumerate(raw[:colon]) if c in "()（）[]"), 0)
    return ScriptProblem(line_no, "write the instruction in one pair of parentheses between the name and "
                         "the colon, e.g. 'Anna (whispering): …'.", bad + 1, max(1, colon - bad))


def _parse_speech(raw: str, line_no: int, problems: list[ScriptProblem]) -> SpeechLine | None:
    m = _SPEECH_RE.match(raw)
    if m is None:
        problems.append(_diagnose_speech(raw, line_no))
        return None
    name = " ".join(m.group("name").split())
    instruction = m.group("instr")
    text = m.group("text").strip()
    ok = _check_name(name, line_no, problems)
    if instruction is not None:
        instruction = " ".join(instruction.split())
        col = m.start("instr")  # the opening parenthesis, 1-based
        span = m.end("instr") - col + 2
        if not instruction:
            problems.append(ScriptProblem(line_no, "the parentheses are empty; write an instruction in them "
                                          "or remove them.", col, span))
            ok = False
        elif markers := find_control_markers(instruction):
            problems.append(ScriptProblem(line_no, f"the instruction holds the control marker {markers[0]!r}; "
                                          "remove it (it is added for you).", col, span))
            ok = False
    text_col = m.start("text") + 1
    if not text:
        problems.append(ScriptProblem(line_no, f"{name or 'the speaker'} says nothing; write the line after "
                                      "the colon.", len(raw), 1))
        return None
    if not is_speakable(text):
        problems.append(ScriptProblem(line_no, "the line has nothing to speak (only punctuation or symbols); "
                                      "add words.", text_col))
        return None
    if markers := find_control_markers(text):
        problems.append(ScriptProblem(line_no, f"the line holds the control marker {markers[0]!r}; markers are "
                                      "added by the program, remove it.", text_col))
        return None
    return SpeechLine(line_no, name, text, instruction) if ok else None


def _parse_directive(raw: str, line_no: int, base: Path | None, problems: list[ScriptProblem],
                     lexicons: list[Path]) -> Pause | None:
    if m := _PAUSE_RE.match(raw):
        seconds = _pause_seconds(m.group("body"))
        if seconds is None:
            problems.append(ScriptProblem(line_no, f"{raw!r} is not a pause; write it as [pause 500ms] or "
                                          "[pause 1.5s]."))
            return None
        if seconds <= 0 or seconds > MAX_PAUSE_SECONDS:
            problems.append(ScriptProblem(line_no, f"a pause must be longer than 0 and at most "
                                          f"{MAX_PAUSE_SECONDS:g} s; this one is {seconds:g} s."))
            return None
        return Pause(line_no, seconds)
    if m := _LEXICON_RE.match(raw):
        name = m.group("body").strip().strip('"')
        if not name:
            problems.append(ScriptProblem(line_no, "name the dictionary file: [lexicon names.csv]."))
            return None
        path = Path(name).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
        if not path.is_file():
            problems.append(ScriptProblem(line_no, f"the dictionary file '{path}' does not exist; check the "
                                          "name (a relative path starts at the script's folder)."))
            return None
        lexicons.append(path)
        return None
    word = _DIRECTIVE_RE.match(raw)
    what = f"[{word.group('word')} …]" if word else raw
    problems.append(ScriptProblem(line_no, f"{what} is not something a script understands; the bracket lines "
                                  "are [pause 500ms] and [lexicon FILE]. To speak a tag such as [laughter], "
                                  "put it in a speaker's line."))
    return None


def _over_total(item: SpeechLine | Pause, totals: list[float]) -> str | None:
    """Add ``item`` to the script's running totals; why the script is too long, or None."""
    if isinstance(item, Pause):
        totals[0] += item.seconds or 0.0
        if totals[0] > MAX_TOTAL_PAUSE_SECONDS:
            return (f"the pauses of the script add up to more than {MAX_TOTAL_PAUSE_SECONDS / 60:g} minutes; "
                    "shorten them, or split the script into several.")
        return None
    totals[1] += 1
    totals[2] += len(item.text)
    if totals[1] > MAX_SCRIPT_LINES or totals[2] > MAX_SCRIPT_CHARS:
        return (f"the script is longer than {MAX_SCRIPT_LINES:,} lines or {MAX_SCRIPT_CHARS:,} characters to "
                "speak; split it into several scripts.")
    return None


def parse_script(text: str, *, name: str = "", base_dir: Path | str | None = None) -> Script:
    """Parse script text; raise :class:`ScriptError` listing every malformed line.

    ``base_dir`` is where relative ``[lexicon FILE]`` paths start (the script's folder).
    """
    if not isinstance(text, str):
        raise InputError(f"A script must be text, not {type(text).__name__}.")
    base = Path(base_dir) if base_dir is not None else None
    text = unicodedata.normalize("NFC", text.lstrip("\ufeff"))
    problems: list[ScriptProblem] = []
    items: list[SpeechLine | Pause] = []
    lexicons: list[Path] = []
    blank_pending: int | None = None
    totals = [0.0, 0.0, 0.0]  # pause seconds, speech lines, characters to speak
    for line_no, raw_line in enumerate(text.splitlines(), start=1):
        raw = raw_line.strip()
        if not raw:
            if items and blank_pending is None:
                blank_pending = line_no
            continue
        if raw.startswith("#"):
            continue
        if len(raw) > MAX_LINE_CHARS:
            problems.append(ScriptProblem(line_no, f"the line is {len(raw):,} characters long; split it into lines "
                                          f"of at most {MAX_LINE_CHARS:,} (same speaker on each)."))
            continue
        if raw.startswith("["):
            item: SpeechLine | Pause | None = _parse_directive(raw, line_no, base, problems, lexicons)
        else:
            item = _parse_speech(raw, line_no, problems)
        if item is None:
            continue
        if blank_pending is not None:
            if not isinstance(item, Pause):
                items.append(Pause(blank_pending, None, paragraph=True))
            blank_pending = None
        items.append(item)
        total = _over_total(item, totals)
        if total is not None:
            problems.append(ScriptProblem(line_no, total))
            break  # the rest would only add to a total that is already too large
    if problems:
        raise ScriptError(problems, name)
    script = Script(tuple(items), tuple(lexicons), name)
    if not script.lines:
        raise ScriptError([ScriptProblem(1, "the script has no speaker lines; write lines like 'Anna: Hello.'")], name)
    return script


def load_script(path: Path | str) -> Script:
    """Read and parse a UTF-8 script file."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"The script file '{path}' does not exist.")
    if path.stat().st_size > MAX_SCRIPT_BYTES:
        raise InputError(f"'{path.name}' is larger than {MAX_SCRIPT_BYTES // 2**20} MiB; that is not a script.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"'{path.name}' is not UTF-8 text ({e.reason}); save it as UTF-8.") from None
    return parse_script(text, name=path.name, base_dir=path.parent)
