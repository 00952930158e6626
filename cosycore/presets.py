"""Ready-made instructions (dialect, emotion, speed, volume, role) read from package data.

The texts are those the models were trained with (CosyVoice3's ``instruct_list``, spec §5.9), in
their original language, with an English gloss for the user interface. ``text`` is the instruction
body only; :meth:`InstructPreset.prompt` wraps it the way the chosen model family expects.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, get_args

from .errors import ConfigError
from .text import cv2_instruct_prompt, cv3_instruct_prompt

logger = logging.getLogger(__name__)

Category = Literal["dialect", "emotion", "speed", "volume", "role"]
CATEGORIES: tuple[str, ...] = get_args(Category)
FAMILIES = ("cosyvoice2", "cosyvoice3")
PRESETS_RESOURCE = "data/instruct_presets.json"


@dataclass(frozen=True)
class InstructPreset:
    """One ready-made instruction."""

    id: str  # stable key, e.g. "dialect.sichuanese"
    category: Category  # what the instruction controls
    text: str  # instruction body in its original language, without system sentence or marker
    gloss: str  # English meaning, for the user interface
    language: str  # language of ``text``: "zh" or "en"
    families: tuple[str, ...]  # model families trained with this wording

    def applies_to(self, family: str) -> bool:
        return family in self.families

    def prompt(self, family: str) -> str:
        """The full instruct string for ``family`` (system sentence and ``<|endofprompt|>`` added)."""
        if family == "cosyvoice3":
            return cv3_instruct_prompt(self.text)
        if family == "cosyvoice2":
            return cv2_instruct_prompt(self.text)
        raise ValueError(f"unknown model family {family!r}; expected one of {FAMILIES}")


def _field(entry: dict[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise ConfigError(f"{where}: preset {entry.get('id', '?')!r} lacks the field {key!r}")
    return entry[key]


def parse_presets(data: Any, where: str = PRESETS_RESOURCE) -> list[InstructPreset]:
    """Check and convert the JSON document; a malformed entry is a :class:`ConfigError`."""
    entries = data.get("presets") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ConfigError(f"{where} must hold an object with a 'presets' list")
    presets: list[InstructPreset] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: every preset must be an object, found {type(entry).__name__}")
        category = _field(entry, "category", where)
        families = tuple(_field(entry, "families", where))
        if category not in CATEGORIES:
            raise ConfigError(f"{where}: preset {entry.get('id')!r} has unknown category {category!r}")
        if not families or any(f not in FAMILIES for f in families):
            raise ConfigError(f"{where}: preset {entry.get('id')!r} names unknown families {families}")
        presets.append(
            InstructPreset(
                id=str(_field(entry, "id", where)),
                category=category,
                text=str(_field(entry, "text", where)),
                gloss=str(_field(entry, "gloss", where)),
                language=str(_field(entry, "language", where)),
                families=families,
            )
        )
    ids = [p.id for p in presets]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{where}: preset ids must be unique")
    return presets


@functools.lru_cache(maxsize=1)
def _load() -> tuple[InstructPreset, ...]:
    raw = resources.files("cosycore").joinpath(PRESETS_RESOURCE).read_text(encoding="utf-8")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{PRESETS_RESOURCE} in the cosycore package is not valid JSON ({e})") from e
    return tuple(parse_presets(data))


def load_instruct_presets(family: str | None = None) -> list[InstructPreset]:
    """All presets, or those trained for ``family``, in the file's order."""
    presets = _load()
    if family is None:
        return list(presets)
    return [p for p in presets if p.applies_to(family)]


def find_preset(preset_id: str) -> InstructPreset:
    for preset in _load():
        if preset.id == preset_id:
            return preset
    raise KeyError(f"no instruct preset with id {preset_id!r}")
