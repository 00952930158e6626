"""A take folder written by an earlier version of the code still opens (issue 24 item 3: whatever format
takes move to, old ``NAME.wav.take`` folders must keep opening).

tests/data/old_script_take/ was written by ``cosycore synth --script`` (tests/data/make_old_script_take.py,
format ``cosy-studio-script-take`` version 1) and is never rewritten by the tests: each test reads a copy.
No model is loaded here."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main
from cosycore.studio.take_file import load_take
from cosycore.studio.take_storage import file_sha256

DATA = Path(__file__).resolve().parent / "data" / "old_script_take"
SCRIPT = "Anna: Hello there.\nBen (Please speak softly.): Hi Anna.\n"


@pytest.fixture
def old_take(tmp_path: Path) -> Path:
    copy = tmp_path / "old"
    shutil.copytree(DATA, copy)
    return copy / "play.wav"


def test_the_fixture_is_the_first_format_version() -> None:
    manifest = json.loads((DATA / "play.wav.take" / "take.json").read_text(encoding="utf-8"))
    assert (manifest["format"], manifest["format_version"]) == ("cosy-studio-script-take", 1)


def test_an_old_take_folder_opens_with_its_lines_voices_and_audio(old_take: Path) -> None:
    record = load_take(old_take.parent / "play.wav.take")
    take = record.take
    assert record.script_text == SCRIPT and record.script_name == "play.txt"
    assert (record.model.family, take.sample_rate, take.base_seed) == ("cosyvoice2", 24000, 5)
    assert [s.kind for s in take.segments] == ["line", "gap", "line"]
    lines = [s for s in take.segments if s.plan is not None]
    assert [(s.plan.member.name, s.seed, s.plan.mode) for s in lines] == [("Anna", 5, "zero_shot"),
                                                                          ("Ben", 6, "instruct")]
    assert lines[1].plan.instruction == "Please speak softly."
    assert [s.plan.member.voice.name for s in lines] == ["Anna", "Ben"]
    # the audio file beside it is the one the take recorded, and the take's samples are in it
    assert record.outputs.audio_sha256 == file_sha256(old_take)
    written, rate = sf.read(str(old_take), dtype="float32")
    assert rate == 24000 and written.shape[0] == take.num_samples
    np.testing.assert_allclose(written, take.audio(), atol=1 / 32768 + 1e-6)


def test_the_cli_lists_an_old_takes_lines(old_take: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["take", "lines", str(old_take)], CliIO(io.StringIO(""), out, io.BytesIO(), err))
    assert code == 0, err.getvalue()
    rows = out.getvalue().splitlines()
    assert any(r.split()[:3] == ["1", "Anna", "5"] for r in rows)
    assert any("(Please speak softly.) Hi Anna." in r for r in rows)
