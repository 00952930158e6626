"""Chunking long text: consecutive chunks of a few hundred characters cut at sentence ends, never
inside a tag, so that a long text is normalised piece by piece (:func:`iter_chunks`)."""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Iterator

from .tags import SPAN_RE, TAG_RE

DEFAULT_CHUNK_CHARS = 400

# A sentence end: marks, then closing quotes/brackets. "." counts only before whitespace.
_CUT_RE = re.compile(r"(?:[。！？；!?;]|\.(?=\s))[。！？；!?;.]*[\"”’」』）)》]*|\n")
_NO_CUT_BEFORE_DOT = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|St|vs|etc|No|e\.g|i\.e|[A-Za-z])\.$")
_SOFT_CUT_RE = re.compile(r"\s+")


def _spans(text: str) -> list[tuple[int, int]]:
    """Disjoint, sorted character spans that must stay in one chunk: tag pairs and single tags."""
    raw = sorted([m.span() for m in SPAN_RE.finditer(text)] + [m.span() for m in TAG_RE.finditer(text)])
    merged: list[tuple[int, int]] = []
    for s, e in raw:
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _inside(pos: int, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The span that strictly contains ``pos`` (cutting there would split it), if any."""
    k = bisect.bisect_right(spans, (pos, sys.maxsize)) - 1
    if k >= 0 and spans[k][0] < pos < spans[k][1]:
        return spans[k]
    return None


def _good_cut(text: str, end: int, spans: list[tuple[int, int]]) -> bool:
    if _inside(end, spans) is not None:
        return False
    if text[end - 1] == ".":
        return _NO_CUT_BEFORE_DOT.search(text, max(0, end - 8), end) is None
    return True


def _find_cut(text: str, start: int, chunk_chars: int, spans: list[tuple[int, int]]) -> int:
    target, limit = start + chunk_chars, min(len(text), start + 4 * chunk_chars)
    for m in _CUT_RE.finditer(text, target, limit):
        end = m.start() if m.group(0) == "\n" else m.end()
        if end > start and _good_cut(text, end, spans):
            return end
    for m in _SOFT_CUT_RE.finditer(text, target, limit):  # no sentence end: cut at a space
        if _inside(m.start(), spans) is None:
            return m.start()
    cut = limit
    span = _inside(cut, spans)
    return span[1] if span is not None else cut


def iter_chunks(text: str, chunk_chars: int = DEFAULT_CHUNK_CHARS) -> Iterator[str]:
    """Cut ``text`` into consecutive chunks of about ``chunk_chars`` at sentence ends, never inside a tag."""
    spans = _spans(text) if "<" in text or "[" in text else []
    pos = 0
    while pos < len(text):
        if len(text) - pos <= chunk_chars:
            yield text[pos:]
            return
        cut = _find_cut(text, pos, chunk_chars, spans)
        yield text[pos:cut]
        pos = cut

