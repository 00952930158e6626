"""Studio on the tiny CosyVoice2 model: a script rendered as one take, regenerate a line, stems and
cues, ``synth --script`` end to end, and long-form resume."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main
from cosycore.studio.cast import Cast, CastMember
from cosycore.studio.longform import (
    CannotResumeError,
    LongFormJob,
    LongFormSettings,
    parse_document,
    partial_path,
    state_path,
)
from cosycore.studio.render import RenderSettings, ScriptRender, regenerate_line
from cosycore.studio.script import parse_script
from cosycore.voices import VoiceLibrary

pytestmark = pytest.mark.usefixtures("single_thread", "no_app_lexicon")


SCRIPT = "Anna: Hello there.\nBen (Please speak softly.): Hi Anna.\n\nAnna: Bye now.\n"
FAST = {"min_tokens": 10, "max_tokens": 12}


def _render(engine, script_voices, seed: int = 5) -> ScriptRender:
    anna, ben = script_voices
    cast = Cast([CastMember("Anna", anna), CastMember("Ben", ben)])
    return ScriptRender(engine, parse_script(SCRIPT), cast, RenderSettings(seed=seed, **FAST))


def test_a_script_streams_as_one_take(cv2_engine, script_voices) -> None:
    render = _render(cv2_engine, script_voices)
    chunks = list(render.chunks())
    assert chunks[-1].is_final and sum(c.is_final for c in chunks) == 1
    speakers = [c.speaker for c in chunks if c.line_index is not None]
    lines = [c.line_index for c in chunks if c.line_index is not None]
    assert lines == sorted(lines) and set(lines) == {0, 1, 2}
    assert {i: s for i, s in zip(lines, speakers)} == {0: "Anna", 1: "Ben", 2: "Anna"}
    assert [p.mode for p in render.plans] == ["zero_shot", "instruct", "zero_shot"]
    # start times run without gaps or overlaps across lines and silences
    position = 0.0
    for c in chunks:
        assert c.start_time == pytest.approx(position, abs=1e-9)
        position += c.duration
    take = _render(cv2_engine, script_voices).take()
    audio = take.audio()
    assert np.array_equal(audio, np.concatenate([c.samples for c in chunks]))  # same seed, same take
    kinds = [s.kind for s in take.segments]
    assert kinds == ["line", "gap", "line", "paragraph", "line"]
    assert [s.seed for s in take.segments if s.kind == "line"] == [5, 6, 7]
    sr = take.sample_rate
    gap = take.segments[1].samples
    assert gap.shape[0] == round(0.3 * sr) and not gap.any()
    assert take.segments[3].samples.shape[0] == round(0.9 * sr)


def test_dictionaries_reach_the_lines(cv2_engine, script_voices, tmp_path: Path) -> None:
    from cosycore.studio.lexicon import Lexicon, LexiconEntry, with_voice_lexicon

    (tmp_path / "lx.csv").write_text("term,replacement\nAnna,Ana\nnow,naow\n", encoding="utf-8")
    script = parse_script("[lexicon lx.csv]\n" + SCRIPT, base_dir=tmp_path)
    anna = with_voice_lexicon(script_voices[0], Lexicon((LexiconEntry("Hello", "Hullo"), LexiconEntry("now", "noo"))))
    cast = Cast([CastMember("Anna", anna), CastMember("Ben", script_voices[1])])
    app = Lexicon((LexiconEntry("there", "thair"),))
    render = ScriptRender(cv2_engine, script, cast, RenderSettings(**FAST),
                          Lexicon((LexiconEntry("Bye", "Goodbye"),)), app_lexicon=app)
    # app, then Anna's voice, then the script's file, then the extra dictionary
    assert [p.text for p in render.plans] == ["Hullo thair.", "Hi Ana.", "Goodbye naow."]


def test_stems_sum_to_the_take_and_cues_follow_the_layout(cv2_engine, script_voices) -> None:
    take = _render(cv2_engine, script_voices).take()
    stems = take.stems()
    assert set(stems) == {"Anna", "Ben"}
    audio = take.audio()
    for stem in stems.values():
        assert stem.shape == audio.shape
    np.testing.assert_allclose(stems["Anna"] + stems["Ben"], audio, atol=1e-7)
    cues = take.cues()
    assert [(c.speaker, c.text) for c in cues] == [("Anna", "Hello there."), ("Ben", "Hi Anna."), ("Anna", "Bye now.")]
    spans = take.layout()
    sr = take.sample_rate
    assert cues[1].start == spans[2][0] / sr and cues[1].end == (spans[2][0] + spans[2][1]) / sr
    # Ben's stem is silent outside his cue
    ben = stems["Ben"]
    assert not ben[: spans[2][0]].any() and not ben[spans[2][0] + spans[2][1]:].any()


def test_regenerate_one_line(cv2_engine, script_voices) -> None:
    take = _render(cv2_engine, script_voices).take()
    new = regenerate_line(cv2_engine, take, 1, seed=99, instruction="Please speak very happily.")
    assert take.segments[2].seed == 6 and not take.segments[2].spliced  # the old take is unchanged
    seg = new.segments[2]
    assert seg.spliced and seg.seed == 99 and seg.plan.instruction == "Please speak very happily."
    assert not np.array_equal(seg.samples, take.segments[2].samples)
    for k in (0, 1, 3, 4):  # every other segment is kept sample for sample
        assert new.segments[k].samples is take.segments[k].samples
    fade = round(0.01 * new.sample_rate)
    old_spans, spans = take.layout(), new.layout()
    assert spans[2][0] == old_spans[2][0] - fade  # crossfaded into the gap before it
    assert new.num_samples == sum(s.samples.shape[0] for s in new.segments) - 2 * fade
    audio = new.audio()
    start = spans[0][1] + spans[1][1] - fade
    np.testing.assert_array_equal(audio[: spans[0][1]], take.audio()[: spans[0][1]])  # before the splice: same
    # the new line sits where the layout says (past its fade-in), the stems still sum to the take
    inner = slice(start + fade, start + seg.samples.shape[0] - fade)
    np.testing.assert_allclose(audio[inner], seg.samples[fade:-fade], atol=1e-7)
    stems = new.stems()
    np.testing.assert_allclose(stems["Anna"] + stems["Ben"], audio, atol=1e-6)
    assert new.cues()[1].start == spans[2][0] / new.sample_rate
    # the same seed and instruction again: the very same audio (regeneration is reproducible)
    again = regenerate_line(cv2_engine, take, 1, seed=99, instruction="Please speak very happily.")
    assert np.array_equal(again.segments[2].samples, seg.samples)
    # dropping the instruction: the voice has no transcript, so cross_lingual
    plain = regenerate_line(cv2_engine, take, 1, instruction=None)
    assert plain.segments[2].plan.mode == "cross_lingual" and plain.segments[2].seed == 7


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, CliIO(io.StringIO(""), out, io.BytesIO(), err))
    return code, out.getvalue(), err.getvalue()


def test_synth_script_cli(tiny_cv2_model: Path, script_voices, tmp_path: Path) -> None:
    lib = VoiceLibrary(tmp_path / "voices")
    for v in script_voices:
        lib.add(v)
    script = tmp_path / "play.txt"
    (tmp_path / "lx.csv").write_text("term,replacement\nAnna,Ana\n", encoding="utf-8")
    script.write_text("[lexicon lx.csv]\n" + SCRIPT, encoding="utf-8")
    out, srt = tmp_path / "play.wav", tmp_path / "play.srt"
    base = ["synth", "--model", str(tiny_cv2_model), "--device", "cpu", "--voices-dir", str(tmp_path / "voices"),
            "--script", str(script), "--out", str(out), "--seed", "5", "--min-tokens", "10", "--max-tokens", "12"]
    code, _, err = _run([*base, "--cast", "Anna=Anna", "--cast", "Ben=Ben", "--srt", str(srt), "--vtt",
                         "--stems", str(tmp_path / "stems")])
    assert code == 0, err
    audio, _ = sf.read(str(out), dtype="float32")
    anna, _ = sf.read(str(tmp_path / "stems" / "anna.wav"), dtype="float32")
    ben, _ = sf.read(str(tmp_path / "stems" / "ben.wav"), dtype="float32")
    assert audio.shape == anna.shape == ben.shape and np.abs(audio).max() > 1e-3
    np.testing.assert_allclose(anna + ben, audio, atol=2 / 32768)  # 16-bit rounding of each file
    text = srt.read_text(encoding="utf-8")
    assert text.startswith("1\n00:00:00,000 --> ") and "Ben: Hi Anna." in text and "3\n" in text
    assert "<v Ben>Hi Anna." in (tmp_path / "play.vtt").read_text(encoding="utf-8")
    # an unknown speaker: a line-numbered message, nothing written, before the model loads
    out2 = tmp_path / "none.wav"
    code, _, err = _run([*base[:-8], "--script", str(script), "--out", str(out2), "--cast", "Anna=Anna"])
    assert code == 2 and "line 3: 'Ben' is not in the cast" in err and not out2.exists()
    assert not list(tmp_path.glob(".none.wav*"))


def test_long_form_resumes_after_a_stop(cv2_engine, script_voices, tmp_path: Path) -> None:
    anna = script_voices[0]
    doc = parse_document("# One\n\nFirst part.\n\nSecond part.\n\n# Two\n\nThird part.\n\nFourth part.\n",
                         markdown=True)
    settings = LongFormSettings(seed=3, chapters="cue", **FAST)
    full_out = tmp_path / "full.wav"
    assert LongFormJob(cv2_engine, doc, anna, full_out, settings).run()
    reference, _ = sf.read(str(full_out), dtype="float32")
    assert not partial_path(full_out).exists() and not state_path(full_out).exists()
    cue = full_out.with_suffix(".cue").read_text(encoding="utf-8")
    assert cue.count("TRACK") == 2 and 'TITLE "Two"' in cue

    out = tmp_path / "book.wav"
    job = LongFormJob(cv2_engine, doc, anna, out, settings)
    seen: list[int] = []

    def stop_after_three(p) -> None:
        seen.append(p.done)
        assert p.eta is not None and p.total == 6
        if p.done == 3:
            job.stop()

    assert job.run(stop_after_three) is False
    state = json.loads(state_path(out).read_text(encoding="utf-8"))
    assert len(state["segment_samples"]) == 3 and partial_path(out).exists() and not out.exists()
    with sf.SoundFile(str(partial_path(out)), "r+") as f:  # a crash mid-segment leaves extra samples
        f.seek(0, sf.SEEK_END)
        f.write(np.full(5000, 0.5, np.float32))
    with pytest.raises(Exception, match="uses seed 3, not 4"):
        LongFormJob(cv2_engine, doc, anna, out, LongFormSettings(seed=4, chapters="cue", **FAST))
    # a new process: a new job object reads the state and goes on from segment 4
    resumed = LongFormJob(cv2_engine, doc, anna, out, settings)
    assert resumed.state.done == 3
    progress: list[int] = []
    assert resumed.run(lambda p: progress.append(p.done))
    assert progress == [4, 5, 6]
    audio, _ = sf.read(str(out), dtype="float32")
    np.testing.assert_array_equal(audio, reference)  # the same file as one uninterrupted run
    assert out.with_suffix(".cue").read_text(encoding="utf-8") == cue.replace("full.wav", "book.wav")
    # other text on an unfinished render is refused; nothing is overwritten without asking
    unfinished = LongFormJob(cv2_engine, doc, anna, tmp_path / "x.wav", settings)
    assert unfinished.run(lambda p: unfinished.stop()) is False
    other = parse_document("Something else.", markdown=False)
    with pytest.raises(CannotResumeError, match="unfinished render of another text"):
        LongFormJob(cv2_engine, other, anna, tmp_path / "x.wav", settings)
    with pytest.raises(Exception, match="exists already"):
        LongFormJob(cv2_engine, doc, anna, out, settings)


@pytest.mark.parametrize("state", ["[" * 100_000 + "]" * 100_000, "[]", '{"version": 1e999}', "/dev/zero"])
def test_a_damaged_render_state(cv2_engine, script_voices, tmp_path: Path, state: str) -> None:
    """100k-deep JSON, a list, a number too large, a link to /dev/zero: "cannot resume", typed, with the
    way out (--restart), never "unexpected failure (RecursionError)"."""
    doc = parse_document("First part.\n", markdown=False)
    out = tmp_path / "book.wav"
    if state == "/dev/zero":
        state_path(out).symlink_to("/dev/zero")
    else:
        state_path(out).write_text(state, encoding="utf-8")
    with pytest.raises(CannotResumeError, match=r"is damaged.*--restart"):
        LongFormJob(cv2_engine, doc, script_voices[0], out, LongFormSettings(seed=3, **FAST))
