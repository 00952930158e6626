"""Normalising one chunk of protected text (placeholders in place): wetext on the clauses that hold
a digit (loaded on first use), then the Chinese clean-up rules, or the English reading rules
(:mod:`cosycore.frontend.text_en`) and spelling out any digit left."""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

from .tags import PLACEHOLDER_RE, is_placeholder
from .text_checks import Lang
from .text_en import spell_out_number, verbalize_english

logger = logging.getLogger(__name__)

_DIGIT_RE = re.compile(r"\d")


@functools.lru_cache(maxsize=2)
def wetext_normalizer(lang: Lang) -> Any:
    from wetext import Normalizer

    if lang == "zh":
        return Normalizer(lang="zh", operator="tn", remove_erhua=False)
    return Normalizer(lang="en", operator="tn")


def _wetext_call(text: str, lang: Lang) -> str:
    out = str(wetext_normalizer(lang).normalize(text))
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
_WETEXT_SEPARATOR_RE = re.compile(f"({PLACEHOLDER_RE.pattern}|\n)")
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



_ZH_DIGITS = str.maketrans("0123456789０１２３４５６７８９", "零一二三四五六七八九" * 2)


def _ascii_like(c: str | None) -> bool:
    """A non-space ASCII character, or a placeholder (every tag starts and ends in ASCII)."""
    return c is not None and c != " " and (c.isascii() or is_placeholder(c))


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


def normalize_piece(text: str, lang: Lang, *, final: bool) -> str:
    """Normalise one chunk of protected text (placeholders in, placeholders out)."""
    if lang == "zh":
        return _normalize_zh(text, final=final)
    return _normalize_en(text)

