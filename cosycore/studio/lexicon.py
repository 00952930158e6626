"""Pronunciation dictionary: terms replaced by respellings or pronunciation tokens before normalisation.

An entry maps a *term* (``Nguyen``, ``Cosy Studio``, ``吉林``) to its *replacement*:

* a respelling in ordinary letters or characters (``Win``, ``Cozy Studio``): works with every family;
* Fun-CosyVoice3 pronunciation tokens: pinyin initials and tone-marked finals (``[j][ǐ][l][ín]``)
  or CMU ARPAbet phones (``[N][UW1][Y][EH0][N]``). These are special tokens of CosyVoice3's text
  tokenizer; CosyVoice2's tokenizer has none of them (it would read the brackets out as text), so
  for CosyVoice2 a replacement must be a respelling, and :meth:`Lexicon.check` refuses the rest.

Matching: every entry is tried at each position of the text, the longest term first (so
``New York City`` wins over ``New York``); the text is scanned once and replacements are never
scanned again. ``whole_word`` (default on) keeps a term from matching inside a longer word: the
character before and after the match must not be a letter or digit. Chinese and Japanese are
written without spaces, so a term edge that is a CJK character is not checked. ``case_sensitive``
(default off) matches the letters exactly as written.

Dictionaries combine: the app's (:func:`app_lexicon_path`), then a voice's (stored in its
``.cosyvoice`` file, :func:`voice_lexicon`), then a script's or the command line's
(:func:`combine`); for the same term (compared as it is matched) the later one wins.

CSV files have a header row that starts ``term,replacement``; the optional columns ``whole_word``
and ``case_sensitive`` take ``yes/no/true/false/1/0`` (empty: the default), and further columns
are ignored.

The dictionary is applied to the raw text, before the engine's text normalisation
(:func:`apply` / :meth:`Lexicon.apply`), so replacements are normalised like typed text and
pronunciation tokens pass through the normaliser untouched (they are protected tags).
"""

from __future__ import annotations

import csv
import io
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import InputError
from ..frontend.tags import PROTECTED_TAGS
from ..frontend.text_checks import find_control_markers
from ..frontend.tokenizer import ARPABET_PHONES, PINYIN_PHONES
from ..paths import ensure_legacy_moved, user_data_dir
from ..safety import UnsafeFileError, read_regular_file
from ..voices import Voice, write_atomic

CSV_HEADER = ("term", "replacement", "whole_word", "case_sensitive")
APP_LEXICON_ENV = "COSY_LEXICON"  # overrides the app-wide dictionary's path (CLI, app, tests)
MAX_TERM_CHARS = 200
MAX_ENTRIES = 100_000
MAX_CSV_BYTES = 16 * 1024 * 1024
_TRUE = {"1", "yes", "y", "true", "t", "on"}
_FALSE = {"0", "no", "n", "false", "f", "off"}
_PRONUNCIATION_TOKENS = frozenset(f"[{p}]" for p in (*ARPABET_PHONES, *PINYIN_PHONES))
_KNOWN_TAGS = frozenset(PROTECTED_TAGS)
_BRACKET_RE = re.compile(r"\[[^\[\]\s]{1,40}\]")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# A letter or digit of any script except the CJK ones (written without spaces): what may not touch
# a whole-word match.
_WORD_CHAR = f"[^\\W_{_CJK}]"


class LexiconError(InputError):
    """A dictionary entry or file is not usable (the message names the entry or the line)."""


def _is_cjk(c: str) -> bool:
    return bool(re.match(f"[{_CJK}]", c))


@dataclass(frozen=True)
class LexiconEntry:
    """One term and what to say instead."""

    term: str
    replacement: str
    whole_word: bool = True
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        term = unicodedata.normalize("NFC", str(self.term)).strip()
        replacement = unicodedata.normalize("NFC", str(self.replacement)).strip()
        if not term:
            raise LexiconError("A dictionary entry needs a term (the word as it is written).")
        if len(term) > MAX_TERM_CHARS:
            raise LexiconError(f"The term {term[:40]!r}… is longer than {MAX_TERM_CHARS} characters; shorten it.")
        if not replacement:
            raise LexiconError(f"The term {term!r} has no replacement; type how it should be said.")
        if len(replacement) > 4 * MAX_TERM_CHARS:
            raise LexiconError(f"The replacement of {term!r} is too long; keep it under {4 * MAX_TERM_CHARS} "
                               "characters.")
        markers = find_control_markers(term + " " + replacement)
        if markers:
            raise LexiconError(f"The entry {term!r} holds the control marker {markers[0]!r}; remove it.")
        object.__setattr__(self, "term", term)
        object.__setattr__(self, "replacement", replacement)

    @property
    def key(self) -> str:
        """What identifies the entry: the term, case-folded unless the entry is case-sensitive."""
        return self.term if self.case_sensitive else self.term.casefold()

    def pattern(self) -> str:
        body = re.escape(self.term)
        if not self.case_sensitive:
            body = f"(?i:{body})"
        if self.whole_word:
            if not _is_cjk(self.term[0]):
                body = f"(?<!{_WORD_CHAR})" + body
            if not _is_cjk(self.term[-1]):
                body = body + f"(?!{_WORD_CHAR})"
        return body


def replacement_tokens(replacement: str) -> list[str]:
    """The ``[...]`` tokens in a replacement, in order."""
    return _BRACKET_RE.findall(replacement)


def token_problem(text: str, family: str, *, strict: bool = True) -> str | None:
    """Why ``family`` cannot speak the ``[...]`` tokens in ``text`` (a sentence starting with a
    verb: "uses …"), or None. ``strict`` also refuses brackets that are no token of the family
    (they would be read out as text)."""
    title = "CosyVoice2" if family == "cosyvoice2" else "Fun-CosyVoice3"
    for token in replacement_tokens(text):
        if token in _PRONUNCIATION_TOKENS:
            if family == "cosyvoice2":
                return (f"uses the pronunciation token {token}; CosyVoice2 has no pinyin or ARPAbet tokens "
                        "(it would read the brackets out). Use a respelling for CosyVoice2: how the word "
                        "sounds, in ordinary letters or characters.")
            continue
        if token in _KNOWN_TAGS or not strict:
            continue
        return (f"holds {token}, which is not a {title} token (pinyin tokens are an initial or a "
                "tone-marked final such as [j][ǐ]; ARPAbet tokens are upper-case phones such as [N][UW1]). "
                "Fix the token or use a respelling.")
    return None


def family_problem(entry: LexiconEntry, family: str) -> str | None:
    """Why ``family`` cannot take ``entry``'s replacement, or None when it can."""
    why = token_problem(entry.replacement, family)
    return None if why is None else f"the replacement of {entry.term!r} {why}"


@dataclass(frozen=True)
class Lexicon:
    """An ordered set of entries, at most one per term (see :attr:`LexiconEntry.key`)."""

    entries: tuple[LexiconEntry, ...] = ()
    name: str = field(default="", compare=False)  # where it came from, for messages ("app", a file name, …)
    _regex: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    _order: tuple[LexiconEntry, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.entries) > MAX_ENTRIES:
            raise LexiconError(f"The dictionary has {len(self.entries):,} entries; at most {MAX_ENTRIES:,} "
                               "are supported.")
        seen: dict[str, LexiconEntry] = {}
        for entry in self.entries:
            seen[entry.key] = entry  # a later entry for the same term wins
        object.__setattr__(self, "entries", tuple(seen.values()))
        if seen:
            ordered = sorted(seen.values(), key=lambda e: -len(e.term))  # longest first; stable otherwise
            object.__setattr__(self, "_order", tuple(ordered))
            regex = re.compile("|".join(f"({e.pattern()})" for e in ordered))
            object.__setattr__(self, "_regex", regex)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[LexiconEntry]:
        return iter(self.entries)

    def merged(self, *others: Lexicon) -> Lexicon:
        """This dictionary with ``others`` laid over it in order (later entries win for the same term)."""
        entries = list(self.entries)
        for other in others:
            entries.extend(other.entries)
        return Lexicon(tuple(entries), name=self.name)

    def with_entry(self, entry: LexiconEntry, family: str | None = None) -> Lexicon:
        """A copy with ``entry`` added (replacing the one for the same term); refused if ``family`` cannot take it."""
        if family is not None and (why := family_problem(entry, family)):
            raise LexiconError(why[0].upper() + why[1:])
        return Lexicon((*self.entries, entry), name=self.name)

    def problems(self, family: str) -> list[str]:
        """Every entry ``family`` cannot take, as messages."""
        return [why for e in self.entries if (why := family_problem(e, family))]

    def check(self, family: str) -> None:
        """Raise :class:`LexiconError` if any entry's replacement is not usable with ``family``."""
        problems = self.problems(family)
        if problems:
            where = f" in {self.name}" if self.name else ""
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise LexiconError(f"A dictionary entry{where} cannot be used: {problems[0]}{more}")

    def matches(self, text: str) -> list[tuple[int, int, LexiconEntry]]:
        """``(start, end, entry)`` of every replacement :meth:`apply` makes in ``text`` (for highlighting)."""
        if self._regex is None:
            return []
        order = self._order
        text = unicodedata.normalize("NFC", text)
        return [(m.start(), m.end(), order[m.lastindex - 1]) for m in self._regex.finditer(text)
                if m.lastindex is not None]

    def apply(self, text: str) -> str:
        """``text`` with every term replaced (longest first, one pass). NFC-normalises the text."""
        text = unicodedata.normalize("NFC", text)
        if self._regex is None:
            return text
        order = self._order
        return self._regex.sub(lambda m: order[(m.lastindex or 1) - 1].replacement, text)


def apply(text: str, lexicon: Lexicon | None) -> str:
    return text if lexicon is None else lexicon.apply(text)


def voice_lexicon(voice: Voice) -> Lexicon | None:
    """The dictionary stored in a voice file (None when it has none)."""
    if not voice.lexicon:
        return None
    try:
        entries = tuple(LexiconEntry(t, r, whole_word=w, case_sensitive=c) for t, r, w, c in voice.lexicon)
    except LexiconError as e:
        raise LexiconError(f"the dictionary of the voice {voice.name!r} has a bad entry: {e}") from None
    return Lexicon(entries, name=f"the voice {voice.name!r}")


def with_voice_lexicon(voice: Voice, lexicon: Lexicon | None) -> Voice:
    """A copy of ``voice`` carrying ``lexicon`` (None or empty: none); save it to keep it in the file."""
    entries = tuple((e.term, e.replacement, e.whole_word, e.case_sensitive) for e in lexicon or ())
    return replace(voice, lexicon=entries)


def combine(*layers: Lexicon | None) -> Lexicon | None:
    """Dictionaries laid over each other in order (app, voice, script: later wins); None if all are None."""
    present = [lx for lx in layers if lx is not None]
    if not present:
        return None
    first, *rest = present
    return first.merged(*rest) if rest else first


def app_lexicon_path() -> Path:
    """The app-wide dictionary: ``$COSY_LEXICON``, else ``lexicon.csv`` in the user data folder the app
    and the command line share (:func:`cosycore.paths.user_data_dir`: ``$COSY_STUDIO_HOME/data`` or the
    platform's ``Cosy Studio`` folder). The app edits this file.

    The first call in a process moves a dictionary left in the command line's old folder into it.
    """
    env = os.environ.get(APP_LEXICON_ENV)
    if env:
        return Path(env)
    ensure_legacy_moved()
    return user_data_dir() / "lexicon.csv"


def load_app_lexicon() -> Lexicon | None:
    """The app-wide dictionary, or None when there is no such file."""
    path = app_lexicon_path()
    return load_csv(path) if path.exists() else None  # a device or FIFO there is an error, not ignored


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------


def _flag(value: str | None, default: bool, column: str, line: int, where: str) -> bool:
    text = (value or "").strip().lower()
    if not text:
        return default
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise LexiconError(f"{where}, line {line}: {column} is {value!r}; write yes or no (or leave it empty).")


def parse_csv(text: str, *, name: str = "the dictionary") -> Lexicon:
    """A :class:`Lexicon` from CSV text whose header row starts ``term,replacement``."""
    text = text.lstrip("\ufeff")
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows, None)
        if header is None or [h.strip().lower() for h in header[:2]] != ["term", "replacement"]:
            # the row itself is not shown: the file may be any readable file ([lexicon /etc/shadow])
            raise LexiconError(f"{name} is not a pronunciation dictionary: its first row must start "
                               "'term,replacement'. Add that header row, or name the right file.")
        columns = [h.strip().lower() for h in header]
        entries: list[LexiconEntry] = []
        for row in rows:
            line = rows.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) < 2:
                raise LexiconError(f"{name}, line {line}: a term without a replacement; write term,replacement.")
            cells = dict(zip(columns, row))
            try:
                entry = LexiconEntry(
                    row[0], row[1],
                    whole_word=_flag(cells.get("whole_word"), True, "whole_word", line, name),
                    case_sensitive=_flag(cells.get("case_sensitive"), False, "case_sensitive", line, name),
                )
            except LexiconError as e:
                if str(e).startswith(name):
                    raise
                raise LexiconError(f"{name}, line {line}: {e}") from None
            entries.append(entry)
    except csv.Error as e:
        raise LexiconError(f"{name}, line {rows.line_num}: not valid CSV ({e}). Check the quotes.") from None
    return Lexicon(tuple(entries), name=name)


def to_csv(lexicon: Lexicon | Iterable[LexiconEntry]) -> str:
    """CSV text with the header ``term,replacement,whole_word,case_sensitive`` (read back by :func:`parse_csv`)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for e in lexicon:
        writer.writerow([e.term, e.replacement, "yes" if e.whole_word else "no", "yes" if e.case_sensitive else "no"])
    return out.getvalue()


def load_csv(path: Path | str) -> Lexicon:
    """Read a dictionary file (UTF-8 CSV)."""
    path = Path(path)
    try:
        data = read_regular_file(path, MAX_CSV_BYTES)
    except FileNotFoundError:
        raise LexiconError(f"The dictionary file '{path}' does not exist.") from None
    except UnsafeFileError as e:
        raise LexiconError(f"The dictionary file '{path}' cannot be used: {str(e).replace(str(path), 'it')}; "
                           f"a dictionary is a UTF-8 CSV file of at most {MAX_CSV_BYTES // 2**20} MiB.") from None
    except OSError as e:
        raise LexiconError(f"The dictionary file '{path}' cannot be read: {e.strerror or e}.") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LexiconError(f"'{path.name}' is not UTF-8 text ({e.reason}); save it as UTF-8 CSV.") from None
    return parse_csv(text, name=path.name)


def save_csv(path: Path | str, lexicon: Lexicon | Sequence[LexiconEntry]) -> Path:
    """Write a dictionary file atomically (temp file + rename)."""
    path = Path(path)
    write_atomic(path, to_csv(lexicon).encode("utf-8"))
    return path


def load_many(paths: Iterable[Path | str]) -> Lexicon | None:
    """Several dictionary files merged in order (later wins); None when there are none."""
    lexicons = [load_csv(p) for p in paths]
    if not lexicons:
        return None
    first, *rest = lexicons
    return first.merged(*rest)
