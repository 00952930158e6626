"""The two readings of the text frontend, and which one a request gets.

* ``"original"``: CosyVoice's own ``text_normalize`` (:mod:`cosycore.frontend.text_original`): the text ids
  of a request are the original's. The default in exact mode.
* ``"improved"``: the project's reading (:mod:`cosycore.frontend.text`, :mod:`cosycore.frontend.text_en`): money,
  dates, units and abbreviations read in full, wetext per clause, runs of marks kept, tags
  protected. The default in the fast and draft modes. README "Text reading" lists every difference.

The original skips normalisation and splitting for any text holding ``<|`` and ``|>``. Its
Fun-CosyVoice3 requests carry ``You are a helpful assistant.<|endofprompt|>`` in the zero-shot
transcript and in the cross-lingual text, so in the original reading those two are used as they
are, leading and trailing spaces included (the original returns such text before it strips
anything). The engine adds that prefix itself. Such a cross-lingual text reaches the LM whole up to
:data:`PASS_THROUGH_SEGMENT_TOKENS` text tokens (the original takes any length in one call; that
bound keeps memory finite), where other segments are bounded at
:data:`~cosycore.frontend.segment_bound.MAX_SEGMENT_TOKENS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..config import TEXT_READINGS, Family, TextReading
from ..errors import InputError
from . import text as improved
from . import text_original as original
from .chunking import iter_chunks
from .segment_bound import MAX_SEGMENT_TOKENS


def default_text_reading(exact: bool) -> TextReading:
    """``"original"`` for exact mode, ``"improved"`` otherwise."""
    return "original" if exact else "improved"


def check_text_reading(value: object) -> TextReading:
    if value not in TEXT_READINGS:
        raise InputError(f"Unknown text reading {value!r}; use 'original' or 'improved'.")
    return value  # type: ignore[return-value]


# The original's own cross-lingual examples reach 348 text ids in one call; a pass-through text is
# cut only past this many (at most 20 speech tokens a text id: about 7 minutes of speech, a KV cache
# of about 250 MB on Qwen2-0.5B).
PASS_THROUGH_SEGMENT_TOKENS = 512


def segment_token_bound(reading: TextReading, family: Family, mode: str, *, text_frontend: bool = True) -> int:
    """The most text tokens one segment of such a request may hold (see the module docstring)."""
    if reading == "original" and text_frontend and _passes_through(family, mode) and mode == "cross_lingual":
        return PASS_THROUGH_SEGMENT_TOKENS
    return MAX_SEGMENT_TOKENS


def _passes_through(family: Family, mode: str) -> bool:
    """Whether the original sees this text with its ``<|endofprompt|>`` prefix, and so leaves it alone."""
    return family == "cosyvoice3" and mode in ("zero_shot", "cross_lingual")


def sentences(reading: TextReading, text: str, *, language: str | None, tokenizer: Any,
              family: Family, mode: str) -> Iterator[str]:
    """The segments of the text to speak, each synthesised on its own."""
    if reading == "improved":
        return improved.iter_sentences(text, language, tokenizer)
    if _passes_through(family, mode) and mode == "cross_lingual":
        return _as_is(text)
    return original.iter_sentences(text, language, tokenizer)


def _as_is(text: str) -> Iterator[str]:
    """The whole text as one segment, spaces kept (pieces of ``PIECE_CHARS`` beyond that, to bound
    memory)."""
    if len(text) <= original.PIECE_CHARS:
        yield text
        return
    for piece in iter_chunks(text.strip(), original.PIECE_CHARS):
        if piece.strip():
            yield piece.strip()


def transcript(reading: TextReading, text: str, *, family: Family) -> str:
    """A zero-shot transcript (already checked) as the LM reads it (the original's ``split=False``)."""
    if reading == "improved":
        return improved.normalize_text(text)
    if _passes_through(family, "zero_shot"):
        return text
    return original.normalize_text(text)
