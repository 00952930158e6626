"""Text frontend: normalisation, sentence splitting, input checks and instruction prompts.

The rules follow CosyVoice's ``text_normalize`` (spec: llm-frontend-orchestration.md §5.7):

* text holding both ``<|`` and ``|>`` (a prompt with ``<|endofprompt|>``) is passed through whole:
  no normalisation and no splitting;
* text with a CJK ideograph takes the Chinese path: wetext zh (``remove_erhua=False``), then the
  clean-up rules of :func:`_clean_zh`; other text takes the English path: our reading rules
  (:mod:`cosycore.frontend.text_en`), wetext en, then any digit left is spelled out;
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
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal, Protocol

from ..errors import InputError
from . import text_en
from .text_en import spell_out_number, verbalize_english
from .tokenizer import CV3_SPECIAL_TOKENS, ENDOFPROMPT

logger = logging.getLogger(__name__)

Lang = Literal["zh", "en"]

TOKEN_MAX_N = 80
TOKEN_MIN_N = 60
MERGE_LEN = 20
DEFAULT_MAX_CHARS = 200_000
DEFAULT_CHUNK_CHARS = 400
MAX_SEGMENT_TOKENS = 200  # hard bound on the text tokens of one segment (see bound_segments)
MAX_CARRY_CHARS = 4 * DEFAULT_CHUNK_CHARS  # text without sentence marks is released at this length

ZH_MARKS = frozenset("。？！；：、.?!;")
EN_MARKS = frozenset(".?!;:")
COMMA_MARKS = frozenset("，,")
_CLOSERS = frozenset('"”’」』）)》')

_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_DIGIT_RE = re.compile(r"\d")
_MARKER_RE = re.compile(r"<\|[^<>|]*\|>")


class _Encoder(Protocol):
    def encode(self, text: str) -> Sequence[int]: ...


TokenizerLike = _Encoder | Callable[[str], Sequence[int]]

# --------------------------------------------------------------------------------------------
# Tag protection
# --------------------------------------------------------------------------------------------

# Every CosyVoice special token except the <|...|> control markers (those bypass the frontend).
PROTECTED_TAGS: tuple[str, ...] = tuple(t for t in CV3_SPECIAL_TOKENS if not t.startswith("<|"))
PAIRED_TAGS: dict[str, str] = {"<strong>": "</strong>", "<laughter>": "</laughter>"}

_PUA_BASE = 0xE000  # placeholders live in the Private Use Area, which no text normaliser touches
_TAG_TO_CHAR = {tag: chr(_PUA_BASE + i) for i, tag in enumerate(PROTECTED_TAGS)}
_CHAR_TO_TAG = {c: t for t, c in _TAG_TO_CHAR.items()}
_OPEN_TO_CLOSE = {_TAG_TO_CHAR[o]: _TAG_TO_CHAR[c] for o, c in PAIRED_TAGS.items()}
_CLOSE_CHARS = frozenset(_OPEN_TO_CLOSE.values())
_TAG_RE = re.compile("|".join(re.escape(t) for t in sorted(PROTECTED_TAGS, key=len, reverse=True)))
_PLACEHOLDER_RE = re.compile(f"[{chr(_PUA_BASE)}-{chr(_PUA_BASE + len(PROTECTED_TAGS) - 1)}]")
_SPAN_RE = re.compile("|".join(f"{re.escape(o)}.*?{re.escape(c)}" for o, c in PAIRED_TAGS.items()), re.DOTALL)


def protect_tags(text: str) -> str:
    """Replace every known tag by its placeholder character (stray placeholders are dropped first)."""
    text = _PLACEHOLDER_RE.sub("", text)
    return _TAG_RE.sub(lambda m: _TAG_TO_CHAR[m.group(0)], text)


def restore_tags(text: str) -> str:
    return _PLACEHOLDER_RE.sub(lambda m: _CHAR_TO_TAG[m.group(0)], text)


def _is_placeholder(c: str) -> bool:
    return c in _CHAR_TO_TAG


# --------------------------------------------------------------------------------------------
# Language and input checks
# --------------------------------------------------------------------------------------------


def contains_cjk(text: str) -> bool:
    return _CJK_RE.search(text) is not None


def detect_language(text: str) -> Lang:
    """'zh' when the text holds a CJK ideograph, else 'en' (the original's rule)."""
    return "zh" if contains_cjk(text) else "en"


_HIRAGANA_RE = re.compile(r"[\u3040-\u309f]")


def japanese_note(text: str) -> str | None:
    """A note for Japanese input, which Fun-CosyVoice3 reads correctly only as katakana.

    Hiragana is the reliable sign of Japanese (kanji alone cannot be told from Chinese). The
    original's examples require Japanese to be written in katakana; otherwise the model reads the
    kanji as Chinese and skips or garbles the kana.
    """
    if _HIRAGANA_RE.search(text):
        return (
            "This text looks Japanese. Fun-CosyVoice3 reads Japanese only when it is written in "
            "katakana (for example 「コンニチハ」 instead of 「こんにちは」); convert it first."
        )
    return None


def is_markup(text: str) -> bool:
    """Text with ``<|`` and ``|>`` (a CosyVoice prompt) bypasses normalisation and splitting."""
    return "<|" in text and "|>" in text


def is_speakable(text: str) -> bool:
    """True if some character is a letter or a digit (not only punctuation, symbols, emoji, spaces)."""
    return any(unicodedata.category(c)[0] in "LN" for c in text if not _is_placeholder(c))


def check_text(text: str, *, max_chars: int = DEFAULT_MAX_CHARS, what: str = "text") -> str:
    """Raise :class:`InputError` for empty, unspeakable or over-long text; return it NFC-normalised."""
    if not isinstance(text, str):
        raise InputError(f"The {what} must be a string, not {type(text).__name__}.")
    if not text.strip():
        raise InputError(f"The {what} is empty. Type or paste something to speak.")
    if len(text) > max_chars:
        raise InputError(
            f"The {what} is {len(text):,} characters long; the limit is {max_chars:,}. "
            "Split it into several parts and synthesise them one after another, "
            "or raise the limit in the settings if this machine has the memory for it."
        )
    if not is_speakable(text):
        raise InputError(
            f"The {what} has nothing to speak: it holds only punctuation, symbols, emoji or spaces. "
            "Add some words."
        )
    return unicodedata.normalize("NFC", text)


def find_control_markers(text: str) -> list[str]:
    """The ``<|...|>`` markers in ``text`` (also a lone ``<|`` or ``|>`` pair that would act as one)."""
    found = _MARKER_RE.findall(text)
    if not found and is_markup(text):
        found = ["<| … |>"]
    return found


def check_spoken_text(text: str, *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """:func:`check_text` for text meant to be spoken, which must not hold control markers."""
    text = check_text(text, max_chars=max_chars)
    markers = find_control_markers(text)
    if markers:
        first = markers[0]
        where = text.find(first)
        at = f" at character {where + 1}" if where >= 0 else ""
        raise InputError(
            f"The text to speak contains the control marker {first!r}{at}. Markers like "
            f"{ENDOFPROMPT} separate an instruction from the text and are added by the program; "
            "remove it from the text and put any instruction in the instruction field."
        )
    return text


# --------------------------------------------------------------------------------------------
# Instruction prompts (spec §5.9)
# --------------------------------------------------------------------------------------------

CV3_SYSTEM_SENTENCE = "You are a helpful assistant."


def cv3_system_prefix() -> str:
    """The prefix CosyVoice3 expects before a transcript or text: system sentence + marker."""
    return CV3_SYSTEM_SENTENCE + ENDOFPROMPT


def _instruction_body(instruction: str) -> str:
    """The instruction without a trailing marker; a marker anywhere else is an error."""
    if not isinstance(instruction, str):
        raise InputError(f"The instruction must be a string, not {type(instruction).__name__}.")
    body = instruction.strip()
    if body.endswith(ENDOFPROMPT):
        body = body[: -len(ENDOFPROMPT)].rstrip()
    markers = find_control_markers(body)
    if markers:
        raise InputError(
            f"The instruction contains {markers[0]!r} in the wrong place. {ENDOFPROMPT} may only end "
            "the instruction (it is added for you); remove it and any other <|...|> marker."
        )
    return unicodedata.normalize("NFC", body)


def cv3_instruct_prompt(instruction: str) -> str:
    """``"You are a helpful assistant. {instruction}<|endofprompt|>"`` for CosyVoice3 instruct."""
    body = _instruction_body(instruction)
    if body.startswith(CV3_SYSTEM_SENTENCE):
        body = body[len(CV3_SYSTEM_SENTENCE) :].lstrip()
    if not body or not is_speakable(body):
        raise InputError("The instruction is empty. Describe how the text should be spoken.")
    return f"{CV3_SYSTEM_SENTENCE} {body}{ENDOFPROMPT}"


def cv2_instruct_prompt(instruction: str) -> str:
    """``instruction + "<|endofprompt|>"`` for CosyVoice2 instruct (no system sentence)."""
    body = _instruction_body(instruction)
    if not body or not is_speakable(body):
        raise InputError("The instruction is empty. Describe how the text should be spoken.")
    return body + ENDOFPROMPT


# --------------------------------------------------------------------------------------------
# wetext (loaded on first use)
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _wetext_normalizer(lang: Lang) -> Any:
    from wetext import Normalizer

    if lang == "zh":
        return Normalizer(lang="zh", operator="tn", remove_erhua=False)
    return Normalizer(lang="en", operator="tn")


def _wetext_call(text: str, lang: Lang) -> str:
    out = str(_wetext_normalizer(lang).normalize(text))
    if lang == "en" and '\\"' not in text:
        out = out.replace('\\"', '"')  # wetext en escapes double quotes
    return out


def _wetext_words(text: str, lang: Lang) -> str:
    """Fallback when wetext rejects a passage: try each whitespace-separated word alone."""
    parts = re.split(r"(\s+)", text)
    for i, part in enumerate(parts):
        if part and not part.isspace() and _DIGIT_RE.search(part):
            try:
                parts[i] = _wetext_call(part, lang)
            except Exception as e:  # wetext raises AssertionError/RuntimeError on some inputs
                logger.debug("wetext %s left %r as it is: %r", lang, part, e)
    return "".join(parts)


def _wetext_clause(text: str, lang: Lang) -> str:
    core = text.strip()
    if not core or not _DIGIT_RE.search(core):
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    try:
        out = _wetext_call(core, lang)
    except Exception as e:
        logger.debug("wetext %s failed on a clause (%r); retrying word by word", lang, e)
        out = _wetext_words(core, lang)
    return lead + out + trail


# wetext's cost grows with the length of its input, so it only sees the clauses that hold a digit.
_WETEXT_SEPARATOR_RE = re.compile(f"({_PLACEHOLDER_RE.pattern}|\n)")
_CLAUSE_END_RE = re.compile(r"(?<=[，。！？；、!?;])|(?<=[,.])(?=\s)")


def run_wetext(text: str, lang: Lang) -> str:
    """wetext on each clause that holds a digit; placeholders and line breaks are kept out of it."""
    if not _DIGIT_RE.search(text):
        return text
    out: list[str] = []
    for part in _WETEXT_SEPARATOR_RE.split(text):
        if not _DIGIT_RE.search(part):
            out.append(part)
            continue
        out.extend(_wetext_clause(clause, lang) for clause in _CLAUSE_END_RE.split(part))
    return "".join(out)


# --------------------------------------------------------------------------------------------
# Normalising one chunk (placeholders in place)
# --------------------------------------------------------------------------------------------

_ZH_DIGITS = str.maketrans("0123456789０１２３４５６７８９", "零一二三四五六七八九" * 2)


def _ascii_like(c: str | None) -> bool:
    """A non-space ASCII character, or a placeholder (every tag starts and ends in ASCII)."""
    return c is not None and c != " " and (c.isascii() or _is_placeholder(c))


# Close port of CosyVoice (Apache-2.0) utils/frontend_utils.py (replace_blank); see NOTICE.
def replace_blank(text: str) -> str:
    """Drop each space unless both neighbours are non-space ASCII (keeps spaces between English words)."""
    out = []
    for i, c in enumerate(text):
        if c == " ":
            before = text[i - 1] if i > 0 else None
            after = text[i + 1] if i + 1 < len(text) else None
            if not (_ascii_like(before) and _ascii_like(after)):
                continue
        out.append(c)
    return "".join(out)


def _clean_zh(text: str, *, final: bool) -> str:
    text = text.replace("\n", "")
    text = replace_blank(text)
    text = text.replace("²", "平方").replace("³", "立方")
    text = text.replace(".", "。")
    text = text.replace(" - ", "，")
    text = re.sub(r"[（）【】`]", "", text)
    text = text.replace("——", " ")
    if final:
        text = re.sub(r"[，,、]+$", "。", text)
    return text


def _normalize_zh(text: str, *, final: bool) -> str:
    text = run_wetext(text, "zh")
    text = text.translate(_ZH_DIGITS)  # digits wetext could not read: one by one
    return _clean_zh(text, final=final)


def _normalize_en(text: str) -> str:
    text = verbalize_english(text)
    text = run_wetext(text, "en")
    return spell_out_number(text)


def _normalize_piece(text: str, lang: Lang, *, final: bool) -> str:
    """Normalise one chunk of protected text (placeholders in, placeholders out)."""
    if lang == "zh":
        return _normalize_zh(text, final=final)
    return _normalize_en(text)


# --------------------------------------------------------------------------------------------
# Splitting
# --------------------------------------------------------------------------------------------


def _marks(lang: Lang, comma_split: bool) -> frozenset[str]:
    marks = ZH_MARKS if lang == "zh" else EN_MARKS
    return marks | COMMA_MARKS if comma_split else marks


def _ends_with_mark(text: str, marks: frozenset[str]) -> bool:
    stripped = text.rstrip("".join(_CLOSERS | _CLOSE_CHARS))
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
        elif not (c in _CLOSERS or (c in _CLOSE_CHARS and not still_open)):
            break
        j += 1
    return j, still_open


def _mark_pieces(text: str, marks: frozenset[str], *, final: bool, lang: Lang) -> tuple[list[str], str]:
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
        if c in _OPEN_TO_CLOSE and _OPEN_TO_CLOSE[c] in text[i + 1 :]:
            open_spans.append(_OPEN_TO_CLOSE[c])
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


class _SegmentMerger:
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


def _length_fn(lang: Lang, tokenizer: TokenizerLike | None) -> Callable[[str], int]:
    """Length used for splitting, measured on the restored text (tags count in full)."""
    if lang == "zh":
        return lambda s: len(restore_tags(s))
    if tokenizer is None:
        return lambda s: approx_token_count(restore_tags(s))
    encode = tokenizer.encode if hasattr(tokenizer, "encode") else tokenizer
    return lambda s: len(encode(restore_tags(s)))


def _finish_segment(segment: str) -> str | None:
    text = restore_tags(segment)
    return text if is_speakable(text) else None


def _check_lang(lang: str | None, text: str) -> Lang:
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
    lang = _check_lang(lang, text)
    if not text:
        return []
    protected = protect_tags(text)
    if lang == "en" and token_len_fn is not None:
        length: Callable[[str], int] = lambda s: token_len_fn(restore_tags(s))  # noqa: E731
    else:
        length = _length_fn(lang, None)
    pieces, _ = _mark_pieces(protected, _marks(lang, comma_split), final=True, lang=lang)
    merger = _SegmentMerger(length, token_max_n, token_min_n, merge_len)
    out: list[str] = []
    for piece in pieces:
        out.extend(merger.push(piece))
    out.extend(merger.finish())
    return [s for s in map(_finish_segment, out) if s is not None]


# --------------------------------------------------------------------------------------------
# Chunking long text
# --------------------------------------------------------------------------------------------

# A sentence end: marks, then closing quotes/brackets. "." counts only before whitespace.
_CUT_RE = re.compile(r"(?:[。！？；!?;]|\.(?=\s))[。！？；!?;.]*[\"”’」』）)》]*|\n")
_NO_CUT_BEFORE_DOT = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|St|vs|etc|No|e\.g|i\.e|[A-Za-z])\.$")
_SOFT_CUT_RE = re.compile(r"\s+")


def _spans(text: str) -> list[tuple[int, int]]:
    """Disjoint, sorted character spans that must stay in one chunk: tag pairs and single tags."""
    raw = sorted([m.span() for m in _SPAN_RE.finditer(text)] + [m.span() for m in _TAG_RE.finditer(text)])
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


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------


def _iter_normalised_chunks(text: str, lang: Lang, chunk_chars: int) -> Iterator[tuple[str, bool]]:
    """(normalised protected chunk, is_last) for each chunk of already-stripped text."""
    chunks = iter_chunks(text, chunk_chars)
    current = next(chunks, None)
    while current is not None:
        following = next(chunks, None)
        final = following is None
        yield _normalize_piece(protect_tags(current), lang, final=final), final
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
    language = _check_lang(lang, text)
    marks = _marks(language, comma_split)
    merger = _SegmentMerger(_length_fn(language, tokenizer), token_max_n, token_min_n, merge_len)
    carry = ""
    for normalised, final in _iter_normalised_chunks(text, language, chunk_chars):
        pieces, carry = _mark_pieces(carry + normalised, marks, final=final, lang=language)
        if len(carry) > MAX_CARRY_CHARS:  # no sentence mark in sight: release it (bound_segments cuts it)
            pieces.append(carry)
            carry = ""
        for piece in pieces:
            for segment in merger.push(piece):
                if (done := _finish_segment(segment)) is not None:
                    yield done
    for segment in merger.finish():
        if (done := _finish_segment(segment)) is not None:
            yield done


# --------------------------------------------------------------------------------------------
# Bounding segments
# --------------------------------------------------------------------------------------------

_WORD_RE = re.compile(r"\s*\S+\s*|\s+")


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


def normalize(
    text: str,
    lang: str | None = None,
    tokenizer: TokenizerLike | None = None,
    *,
    token_max_n: int = TOKEN_MAX_N,
    token_min_n: int = TOKEN_MIN_N,
    merge_len: int = MERGE_LEN,
    comma_split: bool = False,
) -> list[str]:
    """Normalise and split ``text`` into the segments that are synthesised one by one."""
    return list(
        iter_sentences(
            text,
            lang,
            tokenizer,
            token_max_n=token_max_n,
            token_min_n=token_min_n,
            merge_len=merge_len,
            comma_split=comma_split,
        )
    )


def normalize_text(text: str, lang: str | None = None, *, chunk_chars: int = DEFAULT_CHUNK_CHARS) -> str:
    """Normalised text without splitting (the original's ``split=False``)."""
    text = unicodedata.normalize("NFC", text)
    if is_markup(text):
        return text
    text = text.strip()
    if not text:
        return ""
    language = _check_lang(lang, text)
    return restore_tags("".join(chunk for chunk, _ in _iter_normalised_chunks(text, language, chunk_chars)))


def warm_up() -> None:
    """Load wetext's FSTs and inflect now (seconds) instead of on the first sentence."""
    _wetext_normalizer("zh").normalize("1")
    _wetext_normalizer("en").normalize("1")
    text_en.warm_up()
