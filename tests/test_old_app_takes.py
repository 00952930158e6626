"""Takes the app stored before the take format became one (issue 24 item 3) still open, play, undo and
restore: tests/data/old_app_takes/ was written by that version's store (tests/data/make_old_app_takes.py,
sidecar ``cosy-studio-take`` version 1) and is never changed by the tests: each test opens a copy.
No model and no window are needed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.takes.store import TakeStore
from app.takes.take import TakeState

DATA = Path(__file__).resolve().parent / "data" / "old_app_takes"
SR = 8000


@pytest.fixture
def root(tmp_path: Path) -> Path:
    copy = tmp_path / "takes"
    shutil.copytree(DATA, copy)
    return copy


def _by_number(root: Path) -> dict:
    takes, problems = TakeStore(root).load()
    assert problems == []
    return {t.number: t for t in takes}


def test_the_fixture_is_the_first_sidecar_version() -> None:
    for meta in DATA.glob("*/take.json"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        assert (data["format"], data["version"]) == ("cosy-studio-take", 1)


def test_every_old_take_opens_with_its_settings_and_audio(root: Path) -> None:
    takes = _by_number(root)
    assert sorted(takes) == [1, 2, 3, 4, 5]
    t1 = takes[1]
    assert (t1.name, t1.text, t1.mode, t1.instruction) == ("Greeting", "Hello there. How are you?", "instruct",
                                                           "Speak happily.")
    assert (t1.voice_name, t1.model, t1.quality, t1.seed, t1.sample_rate) == ("Tester", "CosyVoice2 · tiny",
                                                                              "exact", 11, SR)
    assert t1.state is TakeState.DONE and t1.samples == int(1.1 * SR)
    assert t1.seam_samples() == [int(0.5 * SR)]
    assert [s.text for s in t1.sentences()] == ["Hello there.", "How are you?"]
    stored = np.fromfile(DATA / "20251120-100000-aaaaaa" / "audio.f32", dtype="<f4")
    assert np.array_equal(t1.audio(), stored)


def test_a_regenerated_sentence_keeps_its_settings_and_undo(root: Path) -> None:
    store = TakeStore(root)
    takes = {t.number: t for t in store.load()[0]}
    t2 = takes[2]
    assert t2.sentence_settings == {1: {"seed": 99, "mode": "zero_shot", "instruction": ""}}
    assert t2.samples == int(0.9 * SR) and t2.audio_file != "audio.f32"
    assert store.swap_versions(t2)  # Undo: back to the take as first spoken
    assert t2.samples == int(0.8 * SR) and t2.sentence_settings == {}
    assert np.array_equal(t2.audio(), np.fromfile(root / t2.uid / "audio.f32", dtype="<f4"))
    again = {t.number: t for t in TakeStore(root).load()[0]}[2]
    assert again.audio_file == "audio.f32" and again.previous_version is not None


def test_an_edited_take_keeps_its_original(root: Path) -> None:
    store = TakeStore(root)
    t3 = {t.number: t for t in store.load()[0]}[3]
    assert t3.edit is not None and t3.edit["start"] == pytest.approx(0.1)
    assert t3.samples == int(0.7 * SR)
    original, _seams, spans = store.original_audio(t3)
    assert original.shape[0] == SR and [s.text for s in spans] == ["A take to trim."]


def test_an_old_script_take_keeps_its_lines_and_line_undo(root: Path) -> None:
    store = TakeStore(root)
    t4 = {t.number: t for t in store.load()[0]}[4]
    script = t4.script
    assert script is not None and script.base_seed == 5
    assert [(c.name, c.voice, c.instruction) for c in script.cast] == [("Anna", "Anna", ""),
                                                                       ("Ben", "Ben", "Please speak softly.")]
    assert [(i.speaker, i.seed, i.mode) for i in script.lines] == [("Anna", 5, "zero_shot"), ("Ben", 77, "instruct")]
    assert [(s.kind, s.start, s.length, s.spliced) for s in script.segments] == [
        ("line", 0, 4000, False), ("gap", 4000, 2400, False), ("line", 6400, 3600, True)]
    raw = script.raw_segments(t4.audio(), lambda name: store.read_raw(t4, name))
    assert [r.shape[0] for r in raw] == [4000, 2400, 3600] and not raw[1].any()
    assert store.swap_versions(t4)
    assert t4.script is not None and t4.script.line(1).seed == 6 and t4.samples == int(1.2 * SR)


def test_a_take_cut_short_comes_back_with_every_sample_on_disk(root: Path) -> None:
    t5 = _by_number(root)[5]
    assert t5.recovered and t5.state is TakeState.CANCELLED
    assert t5.samples == int(0.5 * SR)  # the chunk its sidecar never recorded too
    assert t5.seam_samples() == [int(0.3 * SR)]


def test_an_old_removed_take_is_in_the_trash_and_restores(root: Path) -> None:
    store = TakeStore(root)
    trashed, problems = store.trashed()
    assert problems == [] and [t.text for t in trashed] == ["Thrown away."]
    store.restore(trashed[0])
    assert 6 in _by_number(root)
