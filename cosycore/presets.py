"""Ready-made instructions per model family, in groups (dialect, emotion, speed, volume, role play).

The table is package data (``data/instruct_presets.json``); every entry names the family it is for,
its group, the exact instruction text in its original language, a short English label, an English
gloss, the source it was taken from and whether the text appears there word for word:

* Fun-CosyVoice3: the 26 ``instruct_list`` sentences of the original's cosyvoice/utils/common.py
  (spec §5.9), all verbatim.
* CosyVoice2: the instruction types listed in the CosyVoice 2 paper (arXiv 2412.10117, table of
  instruction examples) and the original's example.py. Only the paper's examples and example.py's
  ``用四川话说这句话`` are verbatim; the other entries put the paper's own term into the wording of
  the paper's example for that type. The JSON's ``note`` says so, and each entry's ``verbatim``
  flag tells which is which.

``text`` is the instruction body only. :func:`instruct_prompt` wraps it the way the family expects
(Fun-CosyVoice3: ``"You are a helpful assistant. " + body + "<|endofprompt|>"``; CosyVoice2:
``body + "<|endofprompt|>"``), using the same functions the engine uses, so what it returns is
exactly the prompt text the LM receives.

Combining (:func:`combine`) is our rule, not the original's: neither model documents combined
instructions. At most one preset per group, joined in the order dialect, emotion, speed, volume
(a dialect first, then how to feel, how fast, how loud); a role-play preset stands alone, because
a role sets the whole manner of speaking. CosyVoice2's presets combine into one Chinese sentence
built from their ``clause`` s (``请用四川话，用高兴的情感，用快速的语速说这句话。``), so a combination
reads as one instruction in one language; Fun-CosyVoice3's are its instruction sentences in a row.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, get_args

from .errors import ConfigError, InputError
from .frontend.instruct_prompts import cv2_instruct_prompt, cv3_instruct_prompt

logger = logging.getLogger(__name__)

Category = Literal["dialect", "emotion", "speed", "volume", "role"]
CATEGORIES: tuple[str, ...] = get_args(Category)  # also the order of the groups in menus and listings
GROUP_TITLES = {"dialect": "Dialect", "emotion": "Emotion", "speed": "Speed", "volume": "Volume",
                "role": "Role play"}
COMBINE_ORDER: tuple[str, ...] = ("dialect", "emotion", "speed", "volume")  # "role" stands alone
FAMILIES = ("cosyvoice2", "cosyvoice3")
PRESETS_RESOURCE = "data/instruct_presets.json"
_SENTENCE_END = "。！？.!?"


@dataclass(frozen=True)
class InstructPreset:
    """One ready-made instruction of one model family."""

    id: str  # stable key within the family, e.g. "dialect.sichuanese"
    family: str  # "cosyvoice2" or "cosyvoice3"
    category: Category  # the group it belongs to
    label: str  # short English name for menus, e.g. "Sichuanese"
    text: str  # instruction body in its original language, without system sentence or marker
    gloss: str  # English meaning of ``text`` (never the same as ``text``)
    language: str  # language of ``text``: "zh" or "en"
    source: str  # key into :func:`preset_sources`
    verbatim: bool  # ``text`` appears word for word in the source
    clause: str = ""  # CosyVoice2: how it reads inside a combined instruction (see combine)

    def prompt(self) -> str:
        """The full instruct string for this preset's family (system sentence and marker added)."""
        return instruct_prompt(self.family, self.text)


def instruct_prompt(family: str, instruction: str) -> str:
    """Exactly the LM prompt text of an instruct request: the engine's own wrapping for ``family``."""
    if family == "cosyvoice3":
        return cv3_instruct_prompt(instruction)
    if family == "cosyvoice2":
        return cv2_instruct_prompt(instruction)
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
    sources = data.get("sources", {})
    presets: list[InstructPreset] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: every preset must be an object, found {type(entry).__name__}")
        category = _field(entry, "category", where)
        family = _field(entry, "family", where)
        if category not in CATEGORIES:
            raise ConfigError(f"{where}: preset {entry.get('id')!r} has unknown category {category!r}")
        if family not in FAMILIES:
            raise ConfigError(f"{where}: preset {entry.get('id')!r} names unknown family {family!r}")
        source = str(_field(entry, "source", where))
        if source not in sources:
            raise ConfigError(f"{where}: preset {entry.get('id')!r} cites source {source!r}, which 'sources' lacks")
        presets.append(
            InstructPreset(
                id=str(_field(entry, "id", where)),
                family=family,
                category=category,
                label=str(_field(entry, "label", where)),
                text=str(_field(entry, "text", where)),
                gloss=str(_field(entry, "gloss", where)),
                language=str(_field(entry, "language", where)),
                source=source,
                verbatim=bool(_field(entry, "verbatim", where)),
                clause=str(entry.get("clause", "")),
            )
        )
    keys = [(p.family, p.id) for p in presets]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"{where}: preset ids must be unique within a family")
    return presets


@functools.lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    raw = resources.files("cosycore").joinpath(PRESETS_RESOURCE).read_text(encoding="utf-8")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{PRESETS_RESOURCE} in the cosycore package is not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{PRESETS_RESOURCE} must hold an object with a 'presets' list")
    return data


@functools.lru_cache(maxsize=1)
def _load() -> tuple[InstructPreset, ...]:
    return tuple(parse_presets(_document()))


def preset_sources() -> dict[str, str]:
    """Source key -> citation (paper table, file of the original)."""
    return dict(_document().get("sources", {}))


def load_instruct_presets(family: str | None = None) -> list[InstructPreset]:
    """All presets, or those of ``family``, in the table's order."""
    presets = _load()
    if family is None:
        return list(presets)
    return [p for p in presets if p.family == family]


def grouped_presets(family: str) -> list[tuple[str, list[InstructPreset]]]:
    """``(category, presets)`` for every group in :data:`CATEGORIES` order; a group may be empty."""
    presets = load_instruct_presets(family)
    return [(c, [p for p in presets if p.category == c]) for c in CATEGORIES]


def find_preset(preset_id: str, family: str) -> InstructPreset:
    for preset in _load():
        if preset.id == preset_id and preset.family == family:
            return preset
    raise KeyError(f"no {family} instruct preset with id {preset_id!r}")


def _as_sentence(body: str) -> str:
    body = body.strip()
    if not body or body[-1] in _SENTENCE_END:
        return body
    return body + ("." if body[-1].isascii() else "。")


def join_instructions(bodies: Iterable[str]) -> str:
    """Several instruction bodies as one: each ends as a sentence; a space follows Latin punctuation."""
    out = ""
    parts = [b.strip() for b in bodies if b and b.strip()]
    if len(parts) == 1:
        return parts[0]  # a single instruction stays exactly as written
    for part in parts:
        sentence = _as_sentence(part)
        if out and out[-1].isascii():
            out += " "
        out += sentence
    return out


def combine(presets: Sequence[InstructPreset]) -> str:
    """The instruction body of several presets chosen together (see the module docstring for the rule).

    One preset gives its text unchanged. Several must share a family, come from different groups
    and not include a role play; they are joined in :data:`COMBINE_ORDER` whatever order they came in.
    """
    if not presets:
        raise InputError("Choose at least one preset.")
    families = {p.family for p in presets}
    if len(families) > 1:
        raise InputError(f"These presets are for different models ({', '.join(sorted(families))}); "
                         "choose presets of the loaded model only.")
    if len(presets) == 1:
        return presets[0].text
    by_group: dict[str, InstructPreset] = {}
    for p in presets:
        if p.category == "role":
            raise InputError(f"The role play '{p.label}' sets the whole manner of speaking and combines with "
                             "nothing else; choose it alone.")
        if p.category in by_group:
            raise InputError(f"'{by_group[p.category].label}' and '{p.label}' are both {GROUP_TITLES[p.category]} "
                             "presets; choose one per group.")
        by_group[p.category] = p
    chosen = [by_group[c] for c in COMBINE_ORDER if c in by_group]
    if all(p.clause for p in chosen):
        return "请" + "，".join(p.clause for p in chosen) + "说这句话。"
    return join_instructions(p.text for p in chosen)


def can_combine(chosen: Sequence[InstructPreset], extra: InstructPreset) -> bool:
    """Whether ``extra`` may join ``chosen`` under :func:`combine`'s rule."""
    try:
        combine([*chosen, extra])
    except InputError:
        return False
    return True
