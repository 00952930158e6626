"""A take folder written by an earlier version of the code still opens (issue 24 item 3: whatever format
takes move to, old ``NAME.wav.take`` folders must keep opening). The first change to one writes it anew in the
one take format (cosycore.studio.take_folder), which the app reads too.

tests/data/old_script_take/ was written by ``cosycore synth --script`` (tests/data/make_old_script_take.py,
format ``cosy-studio-script-take`` version 1) and is never rewritten by the tests: each test reads a copy.
No model is loaded here."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main
from cosycore.studio.render import ScriptTake
from cosycore.studio.take_file import TakeFileError, TakeOutputs, load_take, undo_take, update_take
from cosycore.studio.take_folder import read_take
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


def _with_line_replaced(take, index: int, seed: int):
    """``take`` with spoken line ``index`` replaced by other samples (as a regeneration leaves it)."""
    k = take.line_segment(index)
    segments = list(take.segments)
    seg = segments[k]
    segments[k] = replace(seg, samples=np.full(seg.samples.shape[0] + 240, 0.01, dtype=np.float32), seed=seed,
                          spliced=True)
    return ScriptTake(segments, take.sample_rate, take.settings, take.base_seed)


def test_changing_an_old_take_writes_it_anew_in_the_one_format(old_take: Path) -> None:
    folder = old_take.parent / "play.wav.take"
    record = load_take(folder)
    old_audio = np.array(record.take.audio())
    new_take = _with_line_replaced(record.take, 1, seed=42)
    update_take(record, new_take, TakeOutputs())
    manifest = json.loads((folder / "take.json").read_text(encoding="utf-8"))
    assert (manifest["format"], manifest["uid"]) == ("cosy-studio-take", "play.wav.take")
    # the first format's own files are gone; the voices are copied into the one format's place
    assert not (folder / "script.txt").exists() and not (folder / "segments").exists()
    assert sorted(p.name for p in old_take.parent.iterdir()) == ["play.wav", "play.wav.take"]  # nothing left over
    assert sorted(p.name for p in (folder / "voices").iterdir()) == ["00.cosyvoice", "01.cosyvoice"]
    again = load_take(folder)
    assert again.script_text == SCRIPT and again.script_name == "play.txt" and again.revision == 1
    assert np.array_equal(again.take.audio(), new_take.audio())
    assert [s.seed for s in again.take.segments if s.plan is not None] == [5, 42]
    # the state before is the old take, sample for sample, and undo brings it back (a second undo redoes)
    assert np.array_equal(load_take(folder, previous=True).take.audio(), old_audio)
    assert np.array_equal(undo_take(folder).take.audio(), old_audio)
    assert [s.seed for s in undo_take(folder).take.segments if s.plan is not None] == [5, 42]


def test_an_old_take_is_not_rewritten_over_files_someone_put_in_it(old_take: Path) -> None:
    folder = old_take.parent / "play.wav.take"
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    before = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    record = load_take(folder)
    with pytest.raises(TakeFileError, match=r"did not put there \(notes.txt\)"):
        update_take(record, _with_line_replaced(record.take, 0, seed=1), TakeOutputs())
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == before
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert load_take(folder).take.segments[0].seed == 5


def test_a_take_the_cli_wrote_opens_as_the_apps_take(old_take: Path) -> None:
    folder = old_take.parent / "play.wav.take"
    record = load_take(folder)
    update_take(record, _with_line_replaced(record.take, 1, seed=42), TakeOutputs())
    take = read_take(folder)  # what the app's store reads for every take it keeps
    assert take is not None and take.script is not None and take.mode == "script"
    assert [(c.name, c.voice) for c in take.script.cast] == [("Anna", "Anna"), ("Ben", "Ben")]
    assert [(i.speaker, i.seed, i.instruction) for i in take.script.lines] == [
        ("Anna", 5, ""), ("Ben", 42, "Please speak softly.")]
    assert np.array_equal(take.audio(), load_take(folder).take.audio())
    assert [c.text for c in take.script.cues(take.sample_rate)] == ["Hello there.", "Hi Anna."]


def test_a_take_folder_the_cli_wrote_is_added_to_the_apps_store(old_take: Path, tmp_path: Path) -> None:
    from app.takes.store import TakeStore
    from cosycore.errors import StorageError

    folder = old_take.parent / "play.wav.take"
    record = load_take(folder)
    update_take(record, _with_line_replaced(record.take, 1, seed=42), TakeOutputs())
    before = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    store = TakeStore(tmp_path / "takes")
    take = store.import_take(folder, 3)
    assert take.number == 3 and take.uid != "play.wav.take" and take.script is not None
    assert np.array_equal(take.audio(), load_take(folder).take.audio())
    assert {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    takes, problems = store.load()  # it is one of the store's takes now, also after a restart
    assert problems == [] and [(t.number, t.uid) for t in takes] == [(3, take.uid)]
    assert store.swap_versions(takes[0]) and takes[0].script.line(1).seed == 6  # undo the regeneration there
    # a folder of the first format is written anew in the one format on the way in (the folder is only read)
    old = store.import_take(DATA / "play.wav.take", 4)
    assert old.number == 4 and old.script is not None and [i.seed for i in old.script.lines] == [5, 6]
    assert np.array_equal(old.audio(), load_take(DATA / "play.wav.take").take.audio())
    # anything else is refused, and nothing is left in the store
    (tmp_path / "notes.wav.take").mkdir()
    with pytest.raises(StorageError, match="not a take folder Cosy Studio can open"):
        store.import_take(tmp_path / "notes.wav.take", 5)
    assert sorted(p.name for p in store.root.iterdir()) == sorted([take.uid, old.uid])
