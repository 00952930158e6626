"""The user's own instruct presets ("Save as preset"): a name and an instruction text.

They live in the settings (:attr:`app.config.settings.Settings.user_presets`, one JSON list) and travel
inside exported voice files (:attr:`cosycore.voices.Voice.instruct_presets`). Parsing is lenient
about what it drops (an entry that is not a name/text pair is logged and skipped, so one bad entry
never loses the others) and strict about what it keeps (the text must be an instruction the engine
accepts). GUI-free.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from cosycore.errors import InputError
from cosycore.frontend.text_checks import find_control_markers, is_speakable

logger = logging.getLogger(__name__)

MAX_USER_PRESETS = 200
MAX_NAME_CHARS = 60
MAX_TEXT_CHARS = 500


@dataclass(frozen=True)
class UserPreset:
    """A custom instruction the user saved under a name."""

    name: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "text": self.text}


def make_user_preset(name: str, text: str) -> UserPreset:
    """A checked preset; bad input raises :class:`InputError` with what to change."""
    name = unicodedata.normalize("NFC", " ".join(str(name).split()))
    text = unicodedata.normalize("NFC", str(text).strip())
    if not name:
        raise InputError("A preset needs a name. Type one.")
    if len(name) > MAX_NAME_CHARS:
        raise InputError(f"The preset name is {len(name)} characters long; keep it to {MAX_NAME_CHARS}.")
    if not text or not is_speakable(text):
        raise InputError("The instruction is empty. Type how the text should be spoken, then save it.")
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"The instruction is {len(text)} characters long; keep it to {MAX_TEXT_CHARS}.")
    markers = find_control_markers(text)
    if markers:
        raise InputError(f"The instruction contains {markers[0]!r}; markers like <|endofprompt|> are added by the "
                         "program. Remove it and save again.")
    return UserPreset(name, text)


def parse_user_presets(raw: object) -> list[UserPreset]:
    """The presets in a decoded JSON list; entries that are not valid are skipped (and logged)."""
    if not isinstance(raw, list):
        if raw not in (None, ""):
            logger.warning("user presets: expected a list, found %s; ignoring it", type(raw).__name__)
        return []
    out: list[UserPreset] = []
    for entry in raw:
        if not isinstance(entry, dict):
            logger.warning("user presets: skipping %r (not an object)", entry)
            continue
        try:
            out.append(make_user_preset(entry.get("name", ""), entry.get("text", "")))
        except InputError as e:
            logger.warning("user presets: skipping %r (%s)", entry.get("name"), e)
    return merge_user_presets([], out)


def merge_user_presets(existing: Iterable[UserPreset], incoming: Iterable[UserPreset]) -> list[UserPreset]:
    """``existing`` followed by the ``incoming`` presets it lacks; never drops or overwrites an existing one.

    An incoming preset whose text is already there is skipped; a new text under a name that is taken
    is kept as "name (2)", "name (3)", … Stops at :data:`MAX_USER_PRESETS`.
    """
    out = list(existing)
    for preset in incoming:
        if len(out) >= MAX_USER_PRESETS:
            logger.warning("user presets: more than %d; the rest were not added", MAX_USER_PRESETS)
            break
        if preset in out or any(p.text == preset.text for p in out):
            continue
        names = {p.name for p in out}
        name, n = preset.name, 2
        while name in names:
            name = f"{preset.name} ({n})"
            n += 1
        out.append(UserPreset(name, preset.text))
    return out
