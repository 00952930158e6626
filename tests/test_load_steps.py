"""The engine's load steps and their share of the progress bar (cosycore.engine.load_steps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosycore.engine.load_steps import LOAD_STEPS, STEP_OVERHEAD_BYTES, LoadSteps, step_bytes


def test_steps_report_rising_fractions_weighted_by_bytes() -> None:
    seen: list[tuple[float, str]] = []
    sizes = {"llm": 9 * STEP_OVERHEAD_BYTES, "flow": STEP_OVERHEAD_BYTES}
    steps = LoadSteps(lambda fraction, step: seen.append((fraction, step)), sizes, skip=("warm_up",))
    for step in LOAD_STEPS:
        steps.begin(step)  # a skipped step reports nothing
    steps.ready()
    names = [s for _, s in seen]
    assert names == [s for s in LOAD_STEPS if s != "warm_up"] + ["ready"]
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and fractions == sorted(fractions)
    # the LM weighs 10 units, the flow 2, the other four steps 1 each: 16 in all
    assert fractions[1] == pytest.approx(10 / 16) and fractions[2] == pytest.approx(12 / 16)
    with pytest.raises(ValueError, match="unknown load step"):
        steps.fraction_before("warm_up")


def test_step_bytes_reads_the_folder_and_tolerates_missing_files(tmp_path: Path) -> None:
    (tmp_path / "llm.pt").write_bytes(b"x" * 100)
    qwen = tmp_path / "CosyVoice-BlankEN"
    qwen.mkdir()
    (qwen / "vocab.json").write_bytes(b"y" * 7)
    (qwen / "merges.txt").write_bytes(b"z" * 3)
    sizes = step_bytes(tmp_path, "speech_tokenizer_v2.onnx", qwen)
    assert sizes["llm"] == 100 and sizes["text_tokenizer"] == 10 and sizes["flow"] == 0
    assert LoadSteps(None, sizes).fraction_before("llm") == 0.0  # no callback: nothing is called
