"""Instruct presets: the package data matches the spec's instruct list and builds valid prompts."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from cosycore.errors import ConfigError
from cosycore.presets import InstructPreset, find_preset, load_instruct_presets, parse_presets

DIALECTS = [
    *("广东", "东北", "甘肃", "贵州", "河南", "湖北", "湖南", "江西", "闽南"),
    *("宁夏", "山西", "陕西", "山东", "上海", "四川", "天津", "云南"),
]

# Spec llm-frontend-orchestration.md §5.9, body text of each instruct_list entry.
SPEC_BODIES = {
    "dialect": [f"请用{d}话表达。" for d in DIALECTS],
    "volume": ["Please say a sentence as loudly as possible.", "Please say a sentence in a very soft voice."],
    "speed": ["请用尽可能慢地语速说一句话。", "请用尽可能快地语速说一句话。"],
    "emotion": ["请非常开心地说一句话。", "请非常伤心地说一句话。", "请非常生气地说一句话。"],
    "role": ["我想体验一下小猪佩奇风格，可以吗？", "你可以尝试用机器人的方式解答吗？"],
}


def test_cv3_presets_are_the_instruct_list() -> None:
    presets = load_instruct_presets("cosyvoice3")
    assert len(presets) == 26
    for category, bodies in SPEC_BODIES.items():
        assert [p.text for p in presets if p.category == category] == bodies, category


def test_every_preset_is_complete() -> None:
    presets = load_instruct_presets()
    assert all(isinstance(p, InstructPreset) for p in presets)
    assert len({p.id for p in presets}) == len(presets)
    for p in presets:
        assert p.text and p.gloss and p.language in ("zh", "en") and p.families
        assert "<|" not in p.text and not p.text.startswith("You are")
        assert p.gloss.isascii()


def test_prompts_follow_the_family_convention() -> None:
    sichuan = find_preset("dialect.sichuanese")
    assert sichuan.prompt("cosyvoice3") == "You are a helpful assistant. 请用四川话表达。<|endofprompt|>"
    cv2 = load_instruct_presets("cosyvoice2")
    assert [p.id for p in cv2] == ["dialect.sichuanese.cv2"]
    assert cv2[0].prompt("cosyvoice2") == "用四川话说这句话<|endofprompt|>"
    with pytest.raises(ValueError, match="family"):
        sichuan.prompt("cosyvoice1")
    with pytest.raises(KeyError):
        find_preset("nope")


def test_presets_are_package_data() -> None:
    raw = resources.files("cosycore").joinpath("data/instruct_presets.json").read_text(encoding="utf-8")
    assert len(json.loads(raw)["presets"]) == len(load_instruct_presets())


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "'presets' list"),
        (
            {
                "presets": [
                    {
                        "id": "x",
                        "category": "mood",
                        "text": "t",
                        "gloss": "g",
                        "language": "en",
                        "families": ["cosyvoice3"],
                    }
                ]
            },
            "unknown category",
        ),
        (
            {
                "presets": [
                    {
                        "id": "x",
                        "category": "speed",
                        "text": "t",
                        "gloss": "g",
                        "language": "en",
                        "families": ["cosyvoice9"],
                    }
                ]
            },
            "unknown families",
        ),
        (
            {
                "presets": [
                    {
                        "id": "x",
                        "category": "speed",
                        "gloss": "g",
                        "language": "en",
                        "families": ["cosyvoice3"],
                    }
                ]
            },
            "lacks the field 'text'",
        ),
    ],
)
def test_malformed_documents(doc: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_presets(doc)
