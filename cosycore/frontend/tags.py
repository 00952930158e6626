"""Tag protection: the tags the model understands (``[laughter]``, ``<strong>…</strong>``, pinyin,
ARPAbet) are swapped for private-use placeholder characters before any normalisation rule runs and
swapped back at the end, so no rule can alter them and no split can fall inside a tag pair."""

from __future__ import annotations

import re

from .tokenizer import CV3_SPECIAL_TOKENS

# Every CosyVoice special token except the <|...|> control markers (those bypass the frontend).
PROTECTED_TAGS: tuple[str, ...] = tuple(t for t in CV3_SPECIAL_TOKENS if not t.startswith("<|"))
PAIRED_TAGS: dict[str, str] = {"<strong>": "</strong>", "<laughter>": "</laughter>"}

_PUA_BASE = 0xE000  # placeholders live in the Private Use Area, which no text normaliser touches
_TAG_TO_CHAR = {tag: chr(_PUA_BASE + i) for i, tag in enumerate(PROTECTED_TAGS)}
_CHAR_TO_TAG = {c: t for t, c in _TAG_TO_CHAR.items()}
OPEN_TO_CLOSE = {_TAG_TO_CHAR[o]: _TAG_TO_CHAR[c] for o, c in PAIRED_TAGS.items()}
CLOSE_CHARS = frozenset(OPEN_TO_CLOSE.values())
TAG_RE = re.compile("|".join(re.escape(t) for t in sorted(PROTECTED_TAGS, key=len, reverse=True)))
PLACEHOLDER_RE = re.compile(f"[{chr(_PUA_BASE)}-{chr(_PUA_BASE + len(PROTECTED_TAGS) - 1)}]")
SPAN_RE = re.compile("|".join(f"{re.escape(o)}.*?{re.escape(c)}" for o, c in PAIRED_TAGS.items()), re.DOTALL)


def protect_tags(text: str) -> str:
    """Replace every known tag by its placeholder character (stray placeholders are dropped first)."""
    text = PLACEHOLDER_RE.sub("", text)
    return TAG_RE.sub(lambda m: _TAG_TO_CHAR[m.group(0)], text)


def restore_tags(text: str) -> str:
    return PLACEHOLDER_RE.sub(lambda m: _CHAR_TO_TAG[m.group(0)], text)


def is_placeholder(c: str) -> bool:
    return c in _CHAR_TO_TAG
