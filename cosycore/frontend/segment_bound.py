"""Bounding what one text costs: runs of marks are shortened before the text is read
(:func:`shorten_mark_runs`), and every segment reaches the speech LM with at most
:data:`MAX_SEGMENT_TOKENS` text tokens, however the text is written (:func:`bound_segments`)."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator

from .sentence_split import TokenizerLike
from .text_checks import is_speakable

logger = logging.getLogger(__name__)

MAX_SEGMENT_TOKENS = 200  # hard bound on the text tokens of one segment (see bound_segments)
MAX_MARK_RUN = 30  # longest run of marks (punctuation, symbols, combining marks) read as written

# A run of characters that are neither word characters nor spaces: punctuation, symbols, emoji and
# combining marks, mixed or not ("!!!", "?!?!", "-----", a letter's stack of accents).
_MARK_RUN_RE = re.compile(rf"[^\w\s]{{{MAX_MARK_RUN + 1},}}")

_WORD_RE = re.compile(r"\s*\S+\s*|\s+")


def shorten_mark_runs(text: str, max_run: int = MAX_MARK_RUN) -> str:
    """``text`` with every run of more than ``max_run`` marks cut to its first ``max_run``.

    A run of marks says nothing more past a few of them (the original's splitter keeps only the
    first mark of a run anyway), but wetext and the regular expressions of the reading rules pay
    for every one: ``"Hi" + "!" * 100_000`` took minutes. ``max_run`` is the Stream-Safe Text
    Format's bound on combining marks (Unicode UAX #15: at most 30 non-starters in a row), so a
    letter keeps every accent a real script stacks on it. Text with runs this short is unchanged.
    """
    if max_run < 1:
        raise ValueError(f"max_run must be positive, not {max_run}")
    pattern = _MARK_RUN_RE if max_run == MAX_MARK_RUN else re.compile(rf"[^\w\s]{{{max_run + 1},}}")
    if pattern.search(text) is None:
        return text
    runs = 0

    def cut(m: re.Match[str]) -> str:
        nonlocal runs
        runs += 1
        return m.group(0)[:max_run]

    shortened = pattern.sub(cut, text)
    logger.info("shortened %d run(s) of more than %d marks (%d characters left out)",
                runs, max_run, len(text) - len(shortened))
    return shortened


def _utf8_cut(text: str, max_bytes: int) -> int:
    """The longest prefix of ``text`` with at most ``max_bytes`` UTF-8 bytes (≥ 1 character), not
    ending between a character and its combining marks when that can be avoided."""
    size = cut = 0
    for cut, c in enumerate(text):  # noqa: B007 - cut is used after the loop
        size += len(c.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            break
    else:
        return len(text)
    cut = max(cut, 1)
    back = cut
    while back > 1 and unicodedata.combining(text[back]):
        back -= 1
    return back if back > 1 or not unicodedata.combining(text[back]) else cut


def _byte_slices(text: str, max_bytes: int) -> Iterator[str]:
    while text:
        cut = _utf8_cut(text, max_bytes)
        yield text[:cut]
        text = text[cut:]


def _cut_long_segment(segment: str, count: Callable[[str], int], max_tokens: int) -> Iterator[str]:
    """Cut one over-long segment at word boundaries, and a word longer than the bound at characters.

    Every piece yielded has at most ``max_tokens`` tokens by construction: words are packed while
    the packed text measures within the bound, and a piece that still measures over it is cut into
    slices of at most ``max_tokens`` UTF-8 bytes. A byte-level BPE tokenizer (Qwen2's) never makes
    more tokens than the text has bytes, and the slices are measured again anyway.
    """
    cur = ""
    for word in _WORD_RE.findall(segment):
        if cur and count(cur + word) <= max_tokens:
            cur += word
            continue
        if cur:
            yield cur
        cur = word
        if count(cur) > max_tokens:
            slices = list(_byte_slices(cur, max_tokens))
            for piece in slices[:-1]:
                yield from _split_until_bounded(piece, count, max_tokens)
            cur = slices[-1]
            if count(cur) > max_tokens:
                yield from _split_until_bounded(cur, count, max_tokens)
                cur = ""
    if cur:
        yield cur


def _split_until_bounded(piece: str, count: Callable[[str], int], max_tokens: int) -> Iterator[str]:
    """``piece`` itself, or halves of it, until every part measures within the bound."""
    if len(piece) <= 1 or count(piece) <= max_tokens:
        yield piece
        return
    mid = len(piece) // 2
    yield from _split_until_bounded(piece[:mid], count, max_tokens)
    yield from _split_until_bounded(piece[mid:], count, max_tokens)


def bound_segments(segments: Iterable[str], tokenizer: TokenizerLike | None = None, *,
                   max_tokens: int = MAX_SEGMENT_TOKENS) -> Iterator[str]:
    """Pass segments through, cutting any longer than ``max_tokens`` text tokens into shorter ones.

    Applied after sentence splitting, so text without sentence marks (a 100,000-letter word,
    base64, thousands of combining marks, ``!`` repeated) still reaches the speech LM in segments of
    bounded length: the LM's prompt, KV cache and output (at most 20 speech tokens per text token)
    are then bounded per segment, and memory stays flat however the text is written. Without a
    tokenizer, UTF-8 bytes are counted (never fewer than a byte-level BPE's tokens). Ordinary
    sentences (60-80 units) are never touched.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be positive, not {max_tokens}")
    if tokenizer is None:
        def count(s: str) -> int:
            return len(s.encode("utf-8", "surrogatepass"))
    else:
        encode = tokenizer.encode if hasattr(tokenizer, "encode") else tokenizer

        def count(s: str) -> int:
            return len(encode(s))
    for segment in segments:
        if len(segment) * 4 <= max_tokens or count(segment) <= max_tokens:  # 4 bytes a character at most
            yield segment
            continue
        logger.info("cutting a segment of %d characters without sentence marks", len(segment))
        for piece in _cut_long_segment(segment, count, max_tokens):
            if piece.strip() and is_speakable(piece):
                yield piece.strip()

