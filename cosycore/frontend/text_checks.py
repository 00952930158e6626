"""Language detection and the checks every text to speak passes: not empty, something to say,
within the length limit, no control markers."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from ..errors import InputError
from .tags import is_placeholder
from .tokenizer import ENDOFPROMPT

Lang = Literal["zh", "en"]

DEFAULT_MAX_CHARS = 200_000

_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_MARKER_RE = re.compile(r"<\|[^<>|]*\|>")


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
    return any(unicodedata.category(c)[0] in "LN" for c in text if not is_placeholder(c))


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
