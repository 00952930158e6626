"""Sentence splitting: cut normalised text after each run of sentence marks (never inside a tag
pair) and merge the pieces greedily into segments of 60-80 units (characters for Chinese, tokens for
English), a short tail glued onto the segment before it (:func:`split_paragraph`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from .tags import CLOSE_CHARS, OPEN_TO_CLOSE, protect_tags, restore_tags
from .text_checks import Lang, detect_language, is_speakable

TOKEN_MAX_N = 80
TOKEN_MIN_N = 60
MERGE_LEN = 20

ZH_MARKS = frozenset("。？！；：、.?!;")
EN_MARKS = frozenset(".?!;:")
COMMA_MARKS = frozenset("，,")
_CLOSERS = frozenset('"”’」』）)》')


class _Encoder(Protocol):
    def encode(self, text: str) -> Sequence[int]: ...


TokenizerLike = _Encoder | Callable[[str], Sequence[int]]


def split_marks(lang: Lang, comma_split: bool) -> frozenset[str]:
    marks = ZH_MARKS if lang == "zh" else EN_MARKS
    return marks | COMMA_MARKS if comma_split else marks


def _ends_with_mark(text: str, marks: frozenset[str]) -> bool:
    stripped = text.rstrip("".join(_CLOSERS | CLOSE_CHARS))
    return bool(stripped) and stripped[-1] in marks


def _end_of_sentence(
    text: str, i: int, marks: frozenset[str], open_spans: list[str]
) -> tuple[int, list[str]]:
    """From the mark at ``i``: skip the run of marks, then closing quotes and closing tags.

    Returns where the sentence would end and the tag pairs still open there.
    """
    n = len(text)
    j = i + 1
    while j < n and text[j] in marks:
        j += 1
    still_open = list(open_spans)
    while j < n:
        c = text[j]
        if still_open and c == still_open[-1]:
            still_open.pop()
        elif not (c in _CLOSERS or (c in CLOSE_CHARS and not still_open)):
            break
        j += 1
    return j, still_open


def mark_pieces(text: str, marks: frozenset[str], *, final: bool, lang: Lang) -> tuple[list[str], str]:
    """Cut ``text`` after each run of sentence marks (plus closing quotes/tags).

    Marks inside a ``<strong>…</strong>`` or ``<laughter>…</laughter>`` span do not cut. Returns the
    complete pieces and the unfinished rest; with ``final`` the rest is ended with a mark.
    """
    if final and text and not _ends_with_mark(text, marks):
        text += "。" if lang == "zh" else "."
    pieces: list[str] = []
    open_spans: list[str] = []  # closing placeholders still expected, innermost last
    st = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in OPEN_TO_CLOSE and OPEN_TO_CLOSE[c] in text[i + 1 :]:
            open_spans.append(OPEN_TO_CLOSE[c])
        elif open_spans and c == open_spans[-1]:
            open_spans.pop()
        elif c in marks:
            j, still_open = _end_of_sentence(text, i, marks, open_spans)
            if not still_open:  # the marks end a sentence outside any tag pair
                if i > st:
                    pieces.append(text[st:j])
                elif pieces:
                    pieces[-1] += text[st:j]
                open_spans = []
                st = i = j
                continue
        i += 1
    rest = text[st:]
    if final and rest:
        pieces.append(rest)
        rest = ""
    return pieces, rest


class SegmentMerger:
    """Greedy merge of pieces into segments; holds back the last segment for the short-tail rule."""

    def __init__(self, length: Callable[[str], int], max_n: int, min_n: int, merge_len: int) -> None:
        self._length = length
        self._max_n, self._min_n, self._merge_len = max_n, min_n, merge_len
        self._cur = ""
        self._pending: str | None = None

    def push(self, piece: str) -> Iterator[str]:
        if (
            self._cur
            and self._length(self._cur + piece) > self._max_n
            and self._length(self._cur) > self._min_n
        ):
            yield from self._flush()
        self._cur += piece

    def _flush(self) -> Iterator[str]:
        if self._pending is not None:
            yield self._pending
        self._pending, self._cur = self._cur, ""

    def finish(self) -> Iterator[str]:
        if self._cur:
            if self._pending is not None and self._length(self._cur) < self._merge_len:
                self._pending += self._cur
                self._cur = ""
            else:
                yield from self._flush()
        if self._pending is not None:
            yield self._pending
            self._pending = None


def approx_token_count(text: str) -> int:
    """Rough Qwen token count when no tokenizer is at hand: words, single digits and symbol runs."""
    return len(re.findall(r"[^\W\d_]+|\d|[^\w\s]+", text))


def length_fn(lang: Lang, tokenizer: TokenizerLike | None) -> Callable[[str], int]:
    """Length used for splitting, measured on the restored text (tags count in full)."""
    if lang == "zh":
        return lambda s: len(restore_tags(s))
    if tokenizer is None:
        return lambda s: approx_token_count(restore_tags(s))
    encode = tokenizer.encode if hasattr(tokenizer, "encode") else tokenizer
    return lambda s: len(encode(restore_tags(s)))


def finish_segment(segment: str) -> str | None:
    text = restore_tags(segment)
    return text if is_speakable(text) else None


def check_lang(lang: str | None, text: str) -> Lang:
    if lang in (None, "auto"):
        return detect_language(text)
    if lang in ("zh", "en"):
        return lang  # type: ignore[return-value]
    raise ValueError(f"lang must be 'zh', 'en' or None (auto), not {lang!r}")


# Close port of CosyVoice (Apache-2.0) utils/frontend_utils.py (split_paragraph); see NOTICE.
def split_paragraph(
    text: str,
    lang: Lang,
    token_len_fn: Callable[[str], int] | None = None,
    token_max_n: int = TOKEN_MAX_N,
    token_min_n: int = TOKEN_MIN_N,
    merge_len: int = MERGE_LEN,
    comma_split: bool = False,
) -> list[str]:
    """Split already-normalised text into segments (see the module docstring for the rules).

    Length is characters for ``zh`` and ``token_len_fn`` (tokens) for ``en``; without a function
    English length is :func:`approx_token_count`.
    """
    lang = check_lang(lang, text)
    if not text:
        return []
    protected = protect_tags(text)
    if lang == "en" and token_len_fn is not None:
        length: Callable[[str], int] = lambda s: token_len_fn(restore_tags(s))  # noqa: E731
    else:
        length = length_fn(lang, None)
    pieces, _ = mark_pieces(protected, split_marks(lang, comma_split), final=True, lang=lang)
    merger = SegmentMerger(length, token_max_n, token_min_n, merge_len)
    out: list[str] = []
    for piece in pieces:
        out.extend(merger.push(piece))
    out.extend(merger.finish())
    return [s for s in map(finish_segment, out) if s is not None]

