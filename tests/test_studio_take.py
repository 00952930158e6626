"""Script takes on disk (cosycore.studio.take_file) and ``cosycore regenerate`` / ``take`` on the tiny
CosyVoice2 model: a saved take loads back sample for sample, regenerating a line changes only that
line's samples (outside its crossfaded seams), undo swaps back, a damaged or hostile take folder is a
typed error, and the CLI never replaces a file the take did not write."""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main
from cosycore.errors import InputError
from cosycore.studio import take_file
from cosycore.studio.cast import Cast, CastMember
from cosycore.studio.render import RenderSettings, ScriptRender, ScriptTake, regenerate_line
from cosycore.studio.script import parse_script
from cosycore.studio.take_file import (
    TakeFileError,
    TakeModel,
    TakeOutputs,
    TakeWriter,
    file_sha256,
    load_take,
    save_take,
    undo_take,
    update_take,
)
from cosycore.studio.take_manifest import TakeRecord
from cosycore.subtitles import srt
from cosycore.voices import VoiceLibrary

pytestmark = pytest.mark.usefixtures("single_thread", "no_app_lexicon")

SCRIPT = "Anna: Hello there.\nBen (Please speak softly.): Hi Anna.\n\n# a comment\nAnna: Bye now.\n"
FAST = {"min_tokens": 10, "max_tokens": 12}
MODEL = TakeModel("cosyvoice2", "tiny", "exact", "original")


def _render(engine, script_voices) -> ScriptRender:
    cast = Cast([CastMember("Anna", script_voices[0]), CastMember("Ben", script_voices[1])])
    return ScriptRender(engine, parse_script(SCRIPT), cast, RenderSettings(seed=5, **FAST))


@pytest.fixture(scope="module")
def render_take(cv2_engine, script_voices) -> tuple[ScriptTake, Cast]:
    render = _render(cv2_engine, script_voices)
    return render.take(), render.cast


@pytest.fixture(scope="module")
def saved(render_take, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved take folder (copy it before changing it)."""
    take, cast = render_take
    folder = tmp_path_factory.mktemp("saved") / "play.wav.take"
    save_take(TakeRecord(take, cast, MODEL, SCRIPT, "play.txt"), folder)
    return folder


def _same_plans(a: ScriptTake, b: ScriptTake) -> None:
    assert [s.kind for s in a.segments] == [s.kind for s in b.segments]
    for x, y in zip(a.segments, b.segments):
        assert (x.seed, x.spliced, x.samples.shape) == (y.seed, y.spliced, y.samples.shape)
        if x.plan is None:
            assert y.plan is None and not np.asarray(y.samples).any()
            continue
        assert y.plan is not None
        assert (x.plan.index, x.plan.line, x.plan.mode, x.plan.instruction, x.plan.text, x.plan.member.name) == (
            y.plan.index, y.plan.line, y.plan.mode, y.plan.instruction, y.plan.text, y.plan.member.name)
        assert x.plan.member.voice == y.plan.member.voice and x.plan.member.instruction == y.plan.member.instruction


def test_a_saved_take_loads_back_sample_for_sample(render_take, saved: Path) -> None:
    take, _ = render_take
    record = load_take(saved)
    _same_plans(take, record.take)
    for x, y in zip(take.segments, record.take.segments):
        assert np.array_equal(x.samples, y.samples)
        if y.plan is not None:
            assert isinstance(y.samples, np.memmap)  # the audio stays on disk until it is used
    assert (record.take.sample_rate, record.take.settings, record.take.base_seed) == (
        take.sample_rate, take.settings, take.base_seed)
    assert record.model == MODEL and record.script_text == SCRIPT and record.script_name == "play.txt"
    assert np.array_equal(record.take.audio(), take.audio())
    # written out one segment at a time: the same samples as the whole take, and the same stems
    assert np.array_equal(np.concatenate(list(record.take.blocks())), take.audio())
    anna = {k for k, s in enumerate(take.segments) if s.speaker == "Anna"}
    assert np.array_equal(np.concatenate(list(record.take.blocks(anna))), take.stems()["Anna"])
    # lines are numbered as in the script file (the comment and the blank line count)
    assert record.script_lines == [1, 2, 5] and record.line_index(5) == 2
    with pytest.raises(InputError, match=r"line 3 of the script is not a spoken line.*lines 1, 2, 5"):
        record.line_index(3)


def test_the_writer_streams_the_same_take_and_leaves_nothing_when_stopped(cv2_engine, script_voices, render_take,
                                                                          tmp_path: Path) -> None:
    render = _render(cv2_engine, script_voices)
    folder = tmp_path / "play.wav.take"
    writer = TakeWriter(folder, render, MODEL, SCRIPT, "play.txt")
    for chunk in render.chunks(keep_audio=False):
        writer.add(chunk)
    writer.commit(TakeOutputs())
    assert np.array_equal(load_take(folder).take.audio(), render_take[0].audio())  # the same seed, the same take
    # stopped midway: no take folder, no temporary folder
    render = _render(cv2_engine, script_voices)
    other = tmp_path / "other.wav.take"
    writer = TakeWriter(other, render, MODEL, SCRIPT)
    for chunk in render.chunks(keep_audio=False):
        writer.add(chunk)
        if chunk.segment_final:
            break
    with pytest.raises(InputError, match="not rendered to the end"):
        writer.commit(TakeOutputs())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["play.wav.take"]


def test_regenerating_changes_only_that_line_and_undo_swaps_back(cv2_engine, render_take, saved: Path,
                                                                 tmp_path: Path) -> None:
    take, _ = render_take
    folder = tmp_path / "play.wav.take"
    shutil.copytree(saved, folder)
    record = load_take(folder)
    new = regenerate_line(cv2_engine, record.take, 1, seed=99)
    update_take(record, new, TakeOutputs())
    again = load_take(folder)
    line = again.take.segments[2]
    assert line.seed == 99 and line.spliced and not np.array_equal(line.samples, take.segments[2].samples)
    old_audio, new_audio = take.audio(), again.take.audio()
    assert np.array_equal(new_audio, new.audio())
    fade = round(take.settings.crossfade * take.sample_rate)
    old_spans, spans = take.layout(), again.take.layout()
    # everything before the new line's fade-in and after its fade-out is the old take, sample for sample
    assert spans[2][0] == old_spans[2][0] - fade
    assert np.array_equal(new_audio[: spans[2][0]], old_audio[: spans[2][0]])
    assert np.array_equal(new_audio[spans[3][0] + fade:], old_audio[old_spans[3][0] + fade:])
    assert new_audio.shape[0] - old_audio.shape[0] == line.samples.shape[0] - take.segments[2].samples.shape[0] \
        - 2 * fade
    # the state before is kept: loading it gives the old take
    assert np.array_equal(load_take(folder, previous=True).take.audio(), old_audio)
    # a second regeneration: files that no manifest names any more are removed, the others stay
    second = regenerate_line(cv2_engine, again.take, 0)
    update_take(again, second, TakeOutputs())
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    assert names[-1] == "take.json" and "audio.f32" not in names  # the take as first rendered is gone
    assert [n.split("-")[0] for n in names[:-1]] == ["audio", "audio", "line", "line"]  # current and previous
    # undo goes back one step (a second undo redoes), and a stale record cannot overwrite a newer state
    assert load_take(folder).take.segments[0].seed == 6
    with pytest.raises(TakeFileError, match="changed by another command"):
        update_take(again, second, TakeOutputs())
    assert undo_take(folder).take.segments[0].seed == 5
    assert np.array_equal(load_take(folder).take.audio(), new_audio)
    assert undo_take(folder).take.segments[0].seed == 6


# --------------------------------------------------------------------------------------------
# Damaged and hostile take folders
# --------------------------------------------------------------------------------------------


def _edit_manifest(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / "take.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data), encoding="utf-8")
    return apply


def _set(path: list, value: object) -> Callable[[Path], None]:
    """Set a value of take.json; "LINE" stands for the first line's entry."""
    def change(data: dict) -> None:
        node = data
        for key in path[:-1]:
            node = node["script"]["lines"][0] if key == "LINE" else node[key]
        node[path[-1]] = value
    return _edit_manifest(change)


def _audio(folder: Path) -> Path:
    return folder / json.loads((folder / "take.json").read_text(encoding="utf-8"))["audio_file"]


def _nan_sample(folder: Path) -> None:
    audio = np.fromfile(_audio(folder), dtype="<f4")
    audio[3] = np.nan
    audio.tofile(_audio(folder))


def _symlink_audio(folder: Path) -> None:
    path = _audio(folder)
    target = folder.parent / "elsewhere.f32"
    shutil.move(path, target)
    os.symlink(target, path)


def _truncate(folder: Path) -> None:
    path = _audio(folder)
    path.write_bytes(path.read_bytes()[:2000])


def _made_in_the_app(data: dict) -> None:
    del data["script"]["made_by"]


DAMAGE = {
    "no manifest": (lambda f: (f / "take.json").unlink(), "has no take.json"),
    "not json": (lambda f: (f / "take.json").write_text("{nope", encoding="utf-8"), "is not valid JSON"),
    "nested json": (lambda f: (f / "take.json").write_text("[" * 100_000, encoding="utf-8"), "is not valid JSON"),
    "another format": (_set(["format"], "something-else"), "not a Cosy Studio script take"),
    "a newer version": (_set(["version"], 99), "newer version of Cosy Studio"),
    "sizes differ": (_edit_manifest(lambda d: d["script"]["segments"][0].__setitem__(2, 1000)), "add up to"),
    "path leaves the folder": (_set(["audio_file"], "../../elsewhere.f32"), "not a take file's name"),
    "subtitles outside": (_set(["script", "made_by", "outputs", "srt"], {"path": "../x.srt", "sha256": "0" * 64}),
                          "not a .srt file beside"),
    "audio missing": (lambda f: _audio(f).unlink(), "is missing"),
    "audio is a link": (_symlink_audio, "not a regular file"),
    "audio truncated": (_truncate, "outside the audio"),
    "NaN samples": (_nan_sample, "NaN or infinite"),
    "instruct without instruction": (_set(["LINE", "mode"], "instruct"), "goes with instruct mode"),
    "seed out of range": (_set(["LINE", "seed"], -1), "mode, instruction or seed"),
    "negative crossfade": (_set(["script", "render", "crossfade"], -1.0), "crossfade must be between"),
    "voice replaced": (lambda f: shutil.copyfile(f / "voices/01.cosyvoice", f / "voices/00.cosyvoice"),
                       "not the voice the take recorded"),
    "voice outside": (_edit_manifest(lambda d: d["script"]["cast"][0].update(file="../x.cosyvoice")),
                      "not a name this format uses"),
    "unknown speaker": (_set(["LINE", "speaker"], "Zed"), "not in the cast"),
    "made in the app": (_edit_manifest(_made_in_the_app), "made in the app"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_take_folder_is_a_typed_error(case: str, saved: Path, tmp_path: Path) -> None:
    folder = tmp_path / "play.wav.take"
    shutil.copytree(saved, folder)
    damage, message = DAMAGE[case]
    damage(folder)
    with pytest.raises(TakeFileError, match=message) as info:
        load_take(folder)
    assert isinstance(info.value, InputError)


def test_counts_and_sizes_are_bounded(saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "play.wav.take"
    shutil.copytree(saved, folder)
    monkeypatch.setattr(take_file, "MAX_SEGMENTS", 4)  # the take has 5
    with pytest.raises(TakeFileError, match="number of segments is out of range"):
        load_take(folder)
    monkeypatch.undo()
    monkeypatch.setattr(take_file, "MAX_MANIFEST_BYTES", 100)
    with pytest.raises(TakeFileError, match=r"take\.json cannot be read"):
        load_take(folder)
    monkeypatch.undo()
    with pytest.raises(TakeFileError, match="not named like a take folder"):
        load_take(shutil.copytree(folder, tmp_path / "renamed"))
    with pytest.raises(TakeFileError, match="no earlier state"):
        load_take(folder, previous=True)


def test_a_take_folder_is_replaced_only_when_it_holds_nothing_else(render_take, saved: Path, tmp_path: Path) -> None:
    take, cast = render_take
    record = TakeRecord(take, cast, MODEL, SCRIPT)
    folder = tmp_path / "play.wav.take"
    shutil.copytree(saved, folder)
    with pytest.raises(TakeFileError, match="exists already"):
        save_take(record, folder)
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(TakeFileError, match=r"holds files Cosy Studio did not put there \(notes.txt\)"):
        save_take(record, folder, replace_existing=True)
    (folder / "notes.txt").unlink()
    save_take(record, folder, replace_existing=True)
    other = tmp_path / "other.wav.take"
    other.mkdir()
    (other / "x.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(TakeFileError, match="is not a take folder"):
        save_take(record, other, replace_existing=True)
    assert (other / "x.txt").read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.wav.take", "play.wav.take"]


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, CliIO(io.StringIO(""), out, io.BytesIO(), err))
    return code, out.getvalue(), err.getvalue()


def _pcm(path: Path) -> np.ndarray:
    return sf.read(str(path), dtype="int16")[0]


@pytest.mark.slow
def test_regenerate_cli(tiny_cv2_model: Path, script_voices, tmp_path: Path) -> None:
    lib = VoiceLibrary(tmp_path / "voices")
    for v in script_voices:
        lib.add(v)
    script = tmp_path / "play.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    out = tmp_path / "out" / "play.wav"
    model = ["--model", str(tiny_cv2_model), "--device", "cpu"]
    code, _, err = _run(["synth", *model, "--voices-dir", str(tmp_path / "voices"), "--script", str(script),
                         "--cast", "Anna=Anna", "--cast", "Ben=Ben", "--out", str(out), "--seed", "5",
                         "--min-tokens", "10", "--max-tokens", "12", "--srt", str(out.with_suffix(".srt")),
                         "--vtt", "--stems", str(tmp_path / "out" / "stems")])
    assert code == 0, err
    folder = out.parent / "play.wav.take"
    first = load_take(folder)
    assert first.outputs.audio_sha256 == file_sha256(out)
    assert first.outputs.srt is not None and first.outputs.srt.path == "play.srt"
    assert [(n, f.path) for n, f in first.outputs.stems] == [("Anna", "stems/anna.wav"), ("Ben", "stems/ben.wav")]
    code, listing, err = _run(["take", "lines", str(out)])
    assert code == 0, err
    assert listing.splitlines()[2].split()[:3] == ["2", "Ben", "6"] and "(Please speak softly.) Hi Anna." in listing

    before = _pcm(out)
    regen = ["regenerate", *model, "--take", str(out)]
    code, _, err = _run([*regen, "--line", "2", "--seed", "99", "--instruct", "Please speak very happily."])
    assert code == 0, err
    assert "line 2 (Ben) spoken again with seed 99" in err and "play.prev.wav" in err
    assert np.array_equal(_pcm(out.parent / "play.prev.wav"), before)  # the previous version, kept
    record = load_take(folder)
    line = record.take.segments[2]
    assert line.seed == 99 and line.plan.instruction == "Please speak very happily." and line.spliced
    after = _pcm(out)
    spans = record.take.layout()
    fade = round(record.take.settings.crossfade * record.take.sample_rate)
    old_end = first.take.layout()[3][0]
    assert np.array_equal(after[: spans[2][0]], before[: spans[2][0]])  # untouched before the seam
    assert np.array_equal(after[spans[3][0] + fade:], before[old_end + fade:])  # and after it
    assert not np.array_equal(after[spans[2][0]: spans[3][0]], before[spans[2][0]: spans[3][0]])  # the new line
    # the subtitles and stems the take wrote follow the new audio; the take records them again
    assert out.with_suffix(".srt").read_text(encoding="utf-8") == srt(record.take.cues())
    anna, ben = (sf.read(str(tmp_path / "out" / "stems" / n), dtype="float32")[0] for n in ("anna.wav", "ben.wav"))
    np.testing.assert_allclose(anna + ben, sf.read(str(out), dtype="float32")[0], atol=2 / 32768)
    assert record.outputs.audio_sha256 == file_sha256(out)
    assert record.outputs.vtt is not None and record.outputs.vtt.sha256 == file_sha256(out.with_suffix(".vtt"))

    # a file changed by hand is never replaced without --overwrite; a changed subtitle file is left alone
    out.with_suffix(".srt").write_text("my own subtitles\n", encoding="utf-8")
    sf.write(str(out), np.zeros(100, np.float32), 24000)
    manifest = (folder / "take.json").read_bytes()
    code, _, err = _run([*regen, "--line", "5"])
    assert code == 2 and "is not the audio this take wrote" in err and "--overwrite" in err
    assert (folder / "take.json").read_bytes() == manifest and _pcm(out).shape == (100,)
    code, _, err = _run([*regen, "--line", "5", "--overwrite"])
    assert code == 0, err
    assert "play.srt was changed since the take wrote it; it is left as it is" in err
    assert out.with_suffix(".srt").read_text(encoding="utf-8") == "my own subtitles\n"
    assert load_take(folder).take.segments[4].seed == 8
    # undo swaps the audio and the take back (a second undo would redo)
    code, _, err = _run(["take", "undo", str(out)])
    assert code == 0, err
    assert _pcm(out).shape == (100,) and load_take(folder).take.segments[4].seed == 7
    sf.write(str(out), np.zeros(50, np.float32), 24000)  # edited by hand again
    code, _, err = _run(["take", "undo", str(out)])
    assert code == 2 and "is not the audio this take wrote" in err
    code, _, err = _run(["take", "undo", str(out), "--overwrite"])
    assert code == 0, err
    assert load_take(folder).take.segments[4].seed == 8
    assert _pcm(out.parent / "play.prev.wav").shape == (50,)  # the edited file is kept, not lost

    # to another file: the take and its audio stay as they are
    new = tmp_path / "out" / "new.wav"
    untouched = out.read_bytes()
    code, _, err = _run([*regen, "--line", "1", "--out", str(new), "--srt"])
    assert code == 0, err
    assert out.read_bytes() == untouched and new.with_suffix(".srt").is_file()
    copy = load_take(tmp_path / "out" / "new.wav.take")
    assert copy.take.segments[0].seed == 6 and copy.outputs.audio_sha256 == file_sha256(new)
    assert copy.outputs.stems == () and copy.outputs.srt is not None and copy.outputs.srt.path == "new.srt"
    code, _, err = _run([*regen, "--line", "1", "--out", str(new)])
    assert code == 2 and "new.wav' exists and is not the audio this take wrote" in err

    # bad requests: said before the model loads
    code, _, err = _run([*regen, "--line", "3"])
    assert code == 2 and "spoken lines are on lines 1, 2, 5" in err
    code, _, err = _run(["regenerate", *model, "--take", str(tmp_path / "none.wav"), "--line", "1"])
    assert code == 2 and "there is no take folder" in err
    sf.write(str(tmp_path / "out" / "stems" / "anna.wav"), np.zeros(10, np.float32), 24000)  # edited by hand
    code, _, err = _run([*regen, "--line", "2", "--stems", str(tmp_path / "out" / "stems")])
    assert code == 2 and "anna.wav' exists and is not the stem of Anna this take wrote" in err
