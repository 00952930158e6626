"""Text frontend: normalisation, sentence splitting, input checks and instruction prompts.

The rules follow CosyVoice's ``text_normalize`` (spec: llm-frontend-orchestration.md §5.7):

* text holding both ``<|`` and ``|>`` (a prompt with ``<|endofprompt|>``) is passed through whole:
  no normalisation and no splitting;
* text with a CJK ideograph takes the Chinese path: wetext zh (``remove_erhua=False``), then the
  clean-up rules of :func:`~cosycore.frontend.text_rules._clean_zh`; other text takes the English
  path: our reading rules (:mod:`cosycore.frontend.text_en`), wetext en, then any digit left is
  spelled out;
* :func:`split_paragraph` cuts at sentence marks and merges the pieces greedily into segments of
  60-80 units (characters for Chinese, tokens for English); a short tail is glued onto the segment
  before it; segments with nothing to say are dropped.

Tags the model understands (``[laughter]``, ``<strong>…</strong>``, pinyin ``[j][ǐ]``, ARPAbet
``[AH0]``) are swapped for private-use placeholder characters before any rule runs and swapped back
at the end, so no rule can alter them and no split can fall inside ``<strong>…</strong>``.

:func:`iter_sentences` works piece by piece: the text is cut into chunks of a few hundred characters
at sentence ends, each chunk is normalised when it is needed, and segments are yielded as soon as
they are final, so the first sentence of a long text is ready before the rest is read.

Differences from the original, on purpose: a run of marks stays together ("Really?!" keeps both
marks, the original keeps only the first), closing quotes and brackets of any kind stay with their
sentence, and segments made only of punctuation, symbols or spaces are all dropped.

The parts live in modules of their own; import their names from there: :mod:`.tags`,
:mod:`.text_checks`, :mod:`.instruct_prompts`, :mod:`.text_rules` (normalising one chunk),
:mod:`.sentence_split`, :mod:`.chunking` and :mod:`.segment_bound`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

from . import text_en
from .chunking import DEFAULT_CHUNK_CHARS, iter_chunks
from .sentence_split import (
    MERGE_LEN,
    TOKEN_MAX_N,
    TOKEN_MIN_N,
    SegmentMerger,
    TokenizerLike,
    check_lang,
    finish_segment,
    length_fn,
    mark_pieces,
    split_marks,
)
from .tags import protect_tags, restore_tags
from .text_checks import Lang, is_markup
from .text_rules import normalize_piece, wetext_normalizer

MAX_CARRY_CHARS = 4 * DEFAULT_CHUNK_CHARS  # text without sentence marks is released at this length


def _iter_normalised_chunks(text: str, lang: Lang, chunk_chars: int) -> Iterator[tuple[str, bool]]:
    """(normalised protected chunk, is_last) for each chunk of already-stripped text."""
    chunks = iter_chunks(text, chunk_chars)
    current = next(chunks, None)
    while current is not None:
        following = next(chunks, None)
        final = following is None
        yield normalize_piece(protect_tags(current), lang, final=final), final
        current = following


def iter_sentences(
    text: str,
    lang: str | None = None,
    tokenizer: TokenizerLike | None = None,
    *,
    token_max_n: int = TOKEN_MAX_N,
    token_min_n: int = TOKEN_MIN_N,
    merge_len: int = MERGE_LEN,
    comma_split: bool = False,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
) -> Iterator[str]:
    """Yield the normalised segments of ``text`` one by one, reading it chunk by chunk.

    ``tokenizer`` (a :class:`~cosycore.frontend.tokenizer.TextTokenizer` or any ``str -> ids`` callable)
    measures English segments in tokens; without it a word-count estimate is used.
    """
    if chunk_chars < 1:
        raise ValueError(f"chunk_chars must be positive, not {chunk_chars}")
    text = unicodedata.normalize("NFC", text)
    if is_markup(text):
        yield text
        return
    text = text.strip()
    if not text:
        return
    language = check_lang(lang, text)
    marks = split_marks(language, comma_split)
    merger = SegmentMerger(length_fn(language, tokenizer), token_max_n, token_min_n, merge_len)
    carry = ""
    for normalised, final in _iter_normalised_chunks(text, language, chunk_chars):
        pieces, carry = mark_pieces(carry + normalised, marks, final=final, lang=language)
        if len(carry) > MAX_CARRY_CHARS:  # no sentence mark in sight: release it (bound_segments cuts it)
            pieces.append(carry)
            carry = ""
        for piece in pieces:
            for segment in merger.push(piece):
                if (done := finish_segment(segment)) is not None:
                    yield done
    for segment in merger.finish():
        if (done := finish_segment(segment)) is not None:
            yield done



def normalize(text: str, lang: str | None = None, tokenizer: TokenizerLike | None = None, **options: Any) -> list[str]:
    """Normalise and split ``text`` into the segments that are synthesised one by one: :func:`iter_sentences`
    as a list (``options``: its keyword options)."""
    return list(iter_sentences(text, lang, tokenizer, **options))


def normalize_text(text: str, lang: str | None = None, *, chunk_chars: int = DEFAULT_CHUNK_CHARS) -> str:
    """Normalised text without splitting (the original's ``split=False``)."""
    text = unicodedata.normalize("NFC", text)
    if is_markup(text):
        return text
    text = text.strip()
    if not text:
        return ""
    language = check_lang(lang, text)
    return restore_tags("".join(chunk for chunk, _ in _iter_normalised_chunks(text, language, chunk_chars)))


def warm_up() -> None:
    """Load wetext's FSTs and inflect now (seconds) instead of on the first sentence."""
    wetext_normalizer("zh").normalize("1")
    wetext_normalizer("en").normalize("1")
    text_en.warm_up()
