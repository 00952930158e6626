"""The original's text normalisation, reproduced: the "original" text reading of exact mode.

This follows CosyVoice's ``CosyVoiceFrontEnd.text_normalize`` with its ``wetext`` backend (the one
it uses when ``ttsfrd`` is not installed) and the helpers of ``cosyvoice/utils/frontend_utils.py``
(spec: llm-frontend-orchestration.md §5.7). Written from a reading of that code (Apache-2.0,
Alibaba Inc.); the steps and their order are the original's:

* text holding both ``<|`` and ``|>`` is returned as it is: no normalisation, no splitting;
* the text is stripped; if it holds a CJK ideograph (``[\\u4e00-\\u9fff]``) it takes the Chinese
  path: ``wetext.Normalizer(remove_erhua=False).normalize`` over the whole text, line breaks
  deleted, :func:`replace_blank`, ``²``/``³`` → 平方/立方, every ``.`` → ``。``, `` - `` → ``，``,
  :func:`remove_bracket`, a trailing run of ``，,、`` → ``。``, then :func:`split_paragraph` by
  characters;
* otherwise the English path: ``wetext.Normalizer().normalize`` over the whole text (its language
  is detected by wetext: a text made only of digits is read by the Chinese grammar, as in the
  original), :func:`spell_out_number`, then :func:`split_paragraph` by Qwen tokens;
* segments made only of punctuation and symbols are dropped; the others keep their spaces (a
  segment after the first usually starts with one, and is tokenised with it).

Where the original would stop with an exception this module goes on, and says so in the log:
wetext rejects some inputs (for example two spaces between words); the text is then read word by
word, each word with the grammar of the path (zh or en). A mark at the very start of the text
followed by a closing quote (the original's ``utts.pop`` on an empty list) keeps the quote as a
piece of its own; a Unicode digit that inflect cannot read ("²" on the English path) is kept.

To keep memory bounded, a text longer than :data:`PIECE_CHARS` characters is cut at sentence ends
into pieces of about that size, and each piece is read as the original reads a whole text
(wetext needs about 550 MB for 15,000 characters in one call). Texts up to that length are read
in one call, exactly as the original does.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from . import text_en
from .chunking import iter_chunks
from .sentence_split import approx_token_count

logger = logging.getLogger(__name__)

Lang = Literal["zh", "en"]

TOKEN_MAX_N = 80
TOKEN_MIN_N = 60
MERGE_LEN = 20
PIECE_CHARS = 2000  # longer texts are read in pieces of about this many characters

ZH_MARKS = ("。", "？", "！", "；", "：", "、", ".", "?", "!", ";")
EN_MARKS = (".", "?", "!", ";", ":")
_QUOTES = ('"', "”")
_CJK_RE = re.compile(r"[\u4e00-\u9fff]+")
_TRAILING_COMMAS_RE = re.compile(r"[，,、]+$")


def contains_chinese(text: str) -> bool:
    return _CJK_RE.search(text) is not None


def is_markup(text: str) -> bool:
    return "<|" in text and "|>" in text


def is_only_punctuation(text: str) -> bool:
    """``^[\\p{P}\\p{S}]*$``: empty, or only punctuation and symbols (a space is neither)."""
    return all(unicodedata.category(c)[0] in "PS" for c in text)


# Close port of CosyVoice (Apache-2.0) cosyvoice/utils/frontend_utils.py replace_blank; see NOTICE.
def replace_blank(text: str) -> str:
    """Keep a space only between two non-space ASCII characters (the original's index rules:
    the character before the first one is the last one)."""
    out = []
    n = len(text)
    for i, c in enumerate(text):
        if c == " ":
            after = text[i + 1] if i + 1 < n else ""
            before = text[i - 1]
            if after.isascii() and after not in ("", " ") and before.isascii() and before != " ":
                out.append(c)
        else:
            out.append(c)
    return "".join(out)


def replace_corner_mark(text: str) -> str:
    return text.replace("²", "平方").replace("³", "立方")


def remove_bracket(text: str) -> str:
    text = text.replace("（", "").replace("）", "").replace("【", "").replace("】", "")
    return text.replace("`", "").replace("——", " ")


# Close port of CosyVoice (Apache-2.0) cosyvoice/utils/frontend_utils.py spell_out_number; see NOTICE.
def spell_out_number(text: str) -> str:
    """Each maximal run of ``str.isdigit()`` characters → ``inflect``'s ``number_to_words`` of it.

    Nothing else changes: "3.14" → "three.fourteen", "B2B" → "BtwoB".
    """
    out: list[str] = []
    start: int | None = None
    for i, c in enumerate(text + "\0"):  # the sentinel flushes a run at the end
        if c.isdigit() and i < len(text):
            if start is None:
                start = i
            continue
        if start is not None:
            out.append(_number_words(text[start:i]))
            start = None
        if i < len(text):
            out.append(c)
    return "".join(out)


def _number_words(digits: str) -> str:
    try:
        return str(text_en.inflect_engine().number_to_words(digits))
    except Exception as e:  # inflect refuses some Unicode digits ("²"); the original would stop here
        logger.warning("inflect cannot read %r (%s); it is kept as written", digits, e)
        return digits


# Close port of CosyVoice (Apache-2.0) cosyvoice/utils/frontend_utils.py split_paragraph; see NOTICE.
def split_paragraph(
    text: str,
    tokenize: Callable[[str], Sequence[int]],
    lang: Lang,
    token_max_n: int = TOKEN_MAX_N,
    token_min_n: int = TOKEN_MIN_N,
    merge_len: int = MERGE_LEN,
    comma_split: bool = False,
) -> list[str]:
    """The original's splitter: cut after every mark, then merge greedily (see the module docstring).

    A run of marks keeps only its first mark ("Really?! OK..." → "Really?", " OK."): the later marks
    find an empty piece and are dropped. A ``"`` or ``”`` right after a mark joins the last piece.
    """
    if not text:
        return []

    def length(s: str) -> int:
        return len(s) if lang == "zh" else len(tokenize(s))

    marks: tuple[str, ...] = ZH_MARKS if lang == "zh" else EN_MARKS
    if comma_split:
        marks = (*marks, "，", ",")
    if text[-1] not in marks:
        text += "。" if lang == "zh" else "."
    st = 0
    utts: list[str] = []
    for i, c in enumerate(text):
        if c not in marks:
            continue
        if i > st:
            utts.append(text[st:i] + c)
        if i + 1 < len(text) and text[i + 1] in _QUOTES:
            if utts:
                utts[-1] += text[i + 1]
            else:  # the original's pop() fails here
                utts.append(text[i + 1])
            st = i + 2
        else:
            st = i + 1
    final: list[str] = []
    cur = ""
    for utt in utts:
        if length(cur + utt) > token_max_n and length(cur) > token_min_n:
            final.append(cur)
            cur = ""
        cur += utt
    if cur:
        if length(cur) < merge_len and final:
            final[-1] += cur
        else:
            final.append(cur)
    return final


# --------------------------------------------------------------------------------------------
# wetext, called as the original calls it
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _normalizer(lang: Lang) -> Any:
    from wetext import Normalizer

    # The original: ZhNormalizer(remove_erhua=False) and EnNormalizer(), both wetext's Normalizer
    # with its default lang="auto", so wetext picks its grammar from the text itself.
    return Normalizer(remove_erhua=False) if lang == "zh" else Normalizer()


def wetext_normalize(text: str, lang: Lang) -> str:
    """The original's wetext call on the whole text; word by word where wetext refuses the text."""
    try:
        return str(_normalizer(lang).normalize(text))
    except Exception as e:  # wetext asserts on some inputs; the original would stop with that error
        logger.warning("wetext cannot read this text as a whole (%s: %s); reading it word by word",
                       type(e).__name__, e)
    parts = re.split(r"(\s+)", text)
    for i, part in enumerate(parts):
        if part and not part.isspace():
            try:
                parts[i] = str(_normalizer(lang).normalize(part, lang=lang))
            except Exception as e:
                logger.debug("wetext left %r as it is: %r", part, e)
    return "".join(parts).strip()


# --------------------------------------------------------------------------------------------
# text_normalize
# --------------------------------------------------------------------------------------------


def _language(text: str, lang: str | None) -> Lang:
    if lang in (None, "", "auto"):
        return "zh" if contains_chinese(text) else "en"
    if lang in ("zh", "en"):
        return lang  # type: ignore[return-value]
    raise ValueError(f"lang must be 'zh', 'en' or None (auto), not {lang!r}")


def _normalise(text: str, lang: Lang) -> str:
    """The original's normalisation of a stripped text, before splitting."""
    if lang == "zh":
        text = wetext_normalize(text, "zh")
        text = text.replace("\n", "")
        text = replace_blank(text)
        text = replace_corner_mark(text)
        text = text.replace(".", "。")
        text = text.replace(" - ", "，")
        text = remove_bracket(text)
        return _TRAILING_COMMAS_RE.sub("。", text)
    return spell_out_number(wetext_normalize(text, "en"))


def _tokenize_fn(tokenizer: Any) -> Callable[[str], Sequence[int]]:
    if tokenizer is None:
        return lambda s: [0] * approx_token_count(s)
    return tokenizer.encode if hasattr(tokenizer, "encode") else tokenizer


# Close port of CosyVoice (Apache-2.0) cosyvoice/cli/frontend.py CosyVoiceFrontEnd.text_normalize (its
# wetext branch); see NOTICE.
def text_normalize(
    text: str,
    tokenizer: Any = None,
    *,
    split: bool = True,
    lang: str | None = None,
) -> list[str] | str:
    """The original's ``text_normalize(text, split)`` for one text (no piece cutting).

    ``tokenizer`` (a :class:`~cosycore.tokenizer.TextTokenizer` or a ``str -> ids`` callable)
    measures English segments; without one a word-count estimate is used. ``lang`` forces the
    Chinese or English path; by default the original's rule (a CJK ideograph → Chinese) decides.
    """
    if is_markup(text) or text == "":
        return [text] if split else text
    text = text.strip()
    language = _language(text, lang)
    text = _normalise(text, language)
    if not split:
        return text
    texts = split_paragraph(text, _tokenize_fn(tokenizer), language)
    return [t for t in texts if not is_only_punctuation(t)]


def iter_sentences(text: str, lang: str | None = None, tokenizer: Any = None, *,
                   piece_chars: int = PIECE_CHARS) -> Iterator[str]:
    """The segments the original synthesises for ``text``, one by one.

    Texts longer than ``piece_chars`` are cut at sentence ends into pieces, each read as a whole
    text (see the module docstring). The language is decided once, on the whole text.
    """
    if is_markup(text):
        yield text
        return
    stripped = text.strip()
    if not stripped:
        return
    language = _language(stripped, lang)
    if len(stripped) <= piece_chars:
        yield from text_normalize(stripped, tokenizer, lang=language)
        return
    for piece in iter_chunks(stripped, piece_chars):
        if piece.strip():
            yield from text_normalize(piece, tokenizer, lang=language)


def normalize(text: str, lang: str | None = None, tokenizer: Any = None) -> list[str]:
    """All segments of :func:`iter_sentences`."""
    return list(iter_sentences(text, lang, tokenizer))


def normalize_text(text: str, lang: str | None = None) -> str:
    """The original's ``text_normalize(text, split=False)`` (used for a zero-shot transcript)."""
    result = text_normalize(text, split=False, lang=lang)
    assert isinstance(result, str)
    return result


def warm_up() -> None:
    """Load wetext's grammars and inflect now instead of on the first sentence."""
    _normalizer("zh").normalize("1")
    _normalizer("en").normalize("1")
    text_en.warm_up()
