"""Instruct presets: the package data matches the cited sources byte for byte, groups, prompts, combinations."""

from __future__ import annotations

import itertools
import json
import re
from importlib import resources

import pytest

from cosycore.errors import ConfigError, InputError
from cosycore.presets import (
    CATEGORIES,
    InstructPreset,
    can_combine,
    combine,
    find_preset,
    grouped_presets,
    instruct_prompt,
    join_instructions,
    load_instruct_presets,
    parse_presets,
    preset_sources,
)

# Fun-CosyVoice3: cosyvoice/utils/common.py instruct_list of the original (spec llm-frontend-orchestration.md
# §5.9), body of each "You are a helpful assistant. …<|endofprompt|>" entry, in the list's order.
CV3_DIALECTS = [
    *("广东", "东北", "甘肃", "贵州", "河南", "湖北", "湖南", "江西", "闽南"),
    *("宁夏", "山西", "陕西", "山东", "上海", "四川", "天津", "云南"),
]
CV3_TABLE = {
    "dialect": [f"请用{d}话表达。" for d in CV3_DIALECTS],
    "volume": ["Please say a sentence as loudly as possible.", "Please say a sentence in a very soft voice."],
    "speed": ["请用尽可能慢地语速说一句话。", "请用尽可能快地语速说一句话。"],
    "emotion": ["请非常开心地说一句话。", "请非常伤心地说一句话。", "请非常生气地说一句话。"],
    "role": ["我想体验一下小猪佩奇风格，可以吗？", "你可以尝试用机器人的方式解答吗？"],
}

# CosyVoice2: (id, text, verbatim). Verbatim ones are the examples of the CosyVoice 2 paper's instruction
# table (arXiv 2412.10117) and example.py's instruct2 call; the rest put the paper's listed term into the
# wording of that type's example.
CV2_TABLE = [
    ("dialect.cantonese", "请问你能模仿粤语的口音吗？", True),  # paper example
    ("dialect.sichuanese", "用四川话说这句话", True),  # example.py, cosyvoice2_example()
    ("dialect.shanghainese", "请问你能模仿上海话的口音吗？", False),
    ("dialect.zhengzhou", "请问你能模仿郑州话的口音吗？", False),
    ("dialect.changsha", "请问你能模仿长沙话的口音吗？", False),
    ("dialect.tianjin", "请问你能模仿天津话的口音吗？", False),
    ("emotion.happy", "你能用高兴的情感说吗？", True),  # paper example
    ("emotion.sad", "你能用悲伤的情感说吗？", False),
    ("emotion.surprised", "你能用惊讶的情感说吗？", False),
    ("emotion.angry", "你能用愤怒的情感说吗？", False),
    ("emotion.fearful", "你能用恐惧的情感说吗？", False),
    ("emotion.disgusted", "你能用厌恶的情感说吗？", False),
    ("emotion.calm", "你能用冷静的情感说吗？", False),
    ("emotion.serious", "你能用严肃的情感说吗？", False),
    # the paper's rate terms in its emotion example's wording (its "Please speaking very fast." is not grammatical)
    ("speed.fast", "你能用快速的语速说吗？", False),
    ("speed.very_fast", "你能用非常快速的语速说吗？", False),
    ("speed.slow", "你能用慢速的语速说吗？", False),
    ("speed.very_slow", "你能用非常慢速的语速说吗？", False),
    ("role.mysterious", "尝试一下以神秘的角色和我交流。", False),
    ("role.fierce", "尝试一下以凶猛的角色和我交流。", False),
    ("role.curious", "尝试一下以好奇的角色和我交流。", False),
    ("role.elegant", "尝试一下以优雅的角色和我交流。", False),
    ("role.lonely", "尝试一下以孤独的角色和我交流。", False),
    ("role.robot", "尝试一下以机器人的角色和我交流。", True),  # paper example
    ("role.peppa_pig", "尝试一下以小猪佩奇的角色和我交流。", False),
]


def test_cv3_presets_are_the_instruct_list_byte_for_byte() -> None:
    presets = load_instruct_presets("cosyvoice3")
    assert len(presets) == 26
    for category, bodies in CV3_TABLE.items():
        got = [p.text.encode("utf-8") for p in presets if p.category == category]
        assert got == [b.encode("utf-8") for b in bodies], category
    assert all(p.verbatim and p.source == "cv3-instruct-list" for p in presets)


def test_cv2_presets_are_the_paper_set_byte_for_byte() -> None:
    presets = load_instruct_presets("cosyvoice2")
    assert [(p.id, p.text.encode("utf-8"), p.verbatim) for p in presets] == [
        (i, t.encode("utf-8"), v) for i, t, v in CV2_TABLE
    ]
    counts = {c: len(ps) for c, ps in grouped_presets("cosyvoice2")}
    assert counts == {"dialect": 6, "emotion": 8, "speed": 4, "volume": 0, "role": 7}


def test_every_preset_cites_a_source_that_holds_its_verbatim_text() -> None:
    sources = preset_sources()
    for p in load_instruct_presets("cosyvoice2"):
        assert p.source in ("cv2-paper", "cv2-example")
        if p.verbatim:
            assert p.text in sources[p.source], p.id  # the citation quotes the example itself
    raw = json.loads(resources.files("cosycore").joinpath("data/instruct_presets.json").read_text("utf-8"))
    assert "not a confirmed training sentence" in raw["note"]  # the derived CV2 phrasings are flagged


def test_every_preset_is_complete_and_no_gloss_repeats() -> None:
    presets = load_instruct_presets()
    assert all(isinstance(p, InstructPreset) for p in presets)
    for family in ("cosyvoice2", "cosyvoice3"):
        mine = load_instruct_presets(family)
        assert len({p.id for p in mine}) == len(mine)
        assert len({p.gloss for p in mine}) == len(mine), f"{family}: two presets share a gloss"
        assert len({(p.category, p.label) for p in mine}) == len(mine), f"{family}: two presets share a label"
    for p in presets:
        assert p.text and p.gloss and p.label and p.language in ("zh", "en")
        assert p.gloss != p.text, p.id  # the menu never shows "X — X"
        assert "<|" not in p.text and not p.text.startswith("You are")
        assert p.gloss.isascii() and p.label.isascii()
        assert p.category in CATEGORIES


def test_prompts_are_what_the_engine_builds() -> None:
    from cosycore.mode_plan import plan_mode

    sichuan3 = find_preset("dialect.sichuanese", "cosyvoice3")
    assert sichuan3.prompt() == "You are a helpful assistant. 请用四川话表达。<|endofprompt|>"
    sichuan2 = find_preset("dialect.sichuanese", "cosyvoice2")
    assert sichuan2.prompt() == "用四川话说这句话<|endofprompt|>"
    for p in load_instruct_presets():
        assert p.prompt() == plan_mode("instruct", p.family, instruction=p.text).lm_prompt_text  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="family"):
        instruct_prompt("cosyvoice1", "x")
    with pytest.raises(KeyError):
        find_preset("nope", "cosyvoice3")
    with pytest.raises(KeyError):
        find_preset("volume.loud", "cosyvoice2")  # CosyVoice2 documents no volume instruction


def test_combination_order_and_joining() -> None:
    def cv(family: str, *ids: str) -> list[InstructPreset]:
        return [find_preset(i, family) for i in ids]

    # CV3: dialect then emotion then speed then volume, whatever order they were picked in
    got = combine(cv("cosyvoice3", "volume.soft", "emotion.happy", "dialect.cantonese", "speed.slow"))
    assert got == ("请用广东话表达。请非常开心地说一句话。请用尽可能慢地语速说一句话。"
                   "Please say a sentence in a very soft voice.")
    assert combine(cv("cosyvoice3", "volume.loud", "speed.fast")) == (
        "请用尽可能快地语速说一句话。Please say a sentence as loudly as possible.")
    # CV2 (issue 25 item 10): one instruction in one language, one sentence, whatever was picked
    assert combine(cv("cosyvoice2", "emotion.sad", "dialect.sichuanese")) == "请用四川话，用悲伤的情感说这句话。"
    # was 用四川话说这句话。你能用高兴的情感说吗？Please speaking fast.
    assert combine(cv("cosyvoice2", "speed.fast", "emotion.happy", "dialect.sichuanese")) == (
        "请用四川话，用高兴的情感，用快速的语速说这句话。")
    assert combine(cv("cosyvoice2", "speed.very_slow", "dialect.cantonese")) == (
        "请模仿粤语的口音，用非常慢速的语速说这句话。")
    for a, b in itertools.combinations([p for p in load_instruct_presets("cosyvoice2") if p.category != "role"], 2):
        if a.category != b.category:
            joined = combine([a, b])
            assert joined.count("。") == 1 and joined.endswith("说这句话。") and not re.search(r"[A-Za-z?？]", joined)
    # one preset: its text unchanged (no punctuation added)
    assert combine(cv("cosyvoice2", "dialect.sichuanese")) == "用四川话说这句话"
    assert join_instructions(["Speak softly", "请快一点"]) == "Speak softly. 请快一点。"


def test_combinations_that_are_refused() -> None:
    happy, sad = find_preset("emotion.happy", "cosyvoice3"), find_preset("emotion.sad", "cosyvoice3")
    robot = find_preset("role.robot", "cosyvoice3")
    cantonese = find_preset("dialect.cantonese", "cosyvoice3")
    with pytest.raises(InputError, match="one per group"):
        combine([happy, sad])
    with pytest.raises(InputError, match="combines with nothing else"):
        combine([cantonese, robot])
    with pytest.raises(InputError, match="different models"):
        combine([happy, find_preset("dialect.sichuanese", "cosyvoice2")])
    with pytest.raises(InputError, match="at least one"):
        combine([])
    assert combine([robot]) == robot.text
    assert can_combine([cantonese], happy) and not can_combine([happy], sad) and not can_combine([happy], robot)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "'presets' list"),
        ({"sources": {"s": ""}, "presets": [{"id": "x", "family": "cosyvoice3", "category": "mood", "label": "l",
                                               "text": "t", "gloss": "g", "language": "en", "source": "s",
                                               "verbatim": True}]}, "unknown category"),
        ({"sources": {"s": ""}, "presets": [{"id": "x", "family": "cosyvoice9", "category": "speed", "label": "l",
                                               "text": "t", "gloss": "g", "language": "en", "source": "s",
                                               "verbatim": True}]}, "unknown family"),
        ({"sources": {"s": ""}, "presets": [{"id": "x", "family": "cosyvoice3", "category": "speed", "label": "l",
                                               "gloss": "g", "language": "en", "source": "s",
                                               "verbatim": True}]}, "lacks the field 'text'"),
        ({"sources": {}, "presets": [{"id": "x", "family": "cosyvoice3", "category": "speed", "label": "l",
                                        "text": "t", "gloss": "g", "language": "en", "source": "s",
                                        "verbatim": True}]}, "cites source 's'"),
    ],
)
def test_malformed_documents(doc: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_presets(doc)
