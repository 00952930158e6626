"""Subtitles (issue 14, problem 8): one cue per typed sentence (per clause past ~7 s), in the text as typed,
timed from the spoken segments; a stopped take's cues cover everything spoken; ``synth --srt``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from cosycore.subtitles import Cue, SpokenSegment, cues, split_sentences, spoken_segments, srt


def _identity(text: str) -> str:
    return text


def test_typed_sentences() -> None:
    assert split_sentences("2024年3月5日，天气很好。我们去公园吧！好吗？") == [
        "2024年3月5日，天气很好。", "我们去公园吧！", "好吗？"]
    assert split_sentences("Hello there. It costs $5.50 today!\nNew line") == [
        "Hello there.", "It costs $5.50 today!", "New line"]


def test_one_cue_per_typed_sentence_in_the_typed_text() -> None:
    text = "2024年3月5日，天气很好。我们去公园吧！"
    # The engine merged both into one normalised segment of 4 s.
    seg = [SpokenSegment(0, "二零二四年三月五日，天气很好。我们去公园吧！", 0.0, 4.0)]
    out = cues(text, seg, 4.0, complete=True)
    assert [c.text for c in out] == ["2024年3月5日，天气很好。", "我们去公园吧！"]
    assert out[0].start == 0.0 and out[-1].end == pytest.approx(4.0)
    assert out[0].end == pytest.approx(out[1].start) and 2.0 < out[0].end < 3.5  # the longer sentence first


def test_segments_give_the_timings() -> None:
    text = "One. Two words here. Three!"
    segs = [SpokenSegment(0, "One. Two words here.", 0.0, 3.0), SpokenSegment(1, "Three!", 3.5, 5.0)]
    out = cues(text, segs, 5.0, complete=True, normalise=_identity)
    assert [c.text for c in out] == ["One.", "Two words here.", "Three!"]
    assert (out[2].start, out[2].end) == (3.5, 5.0) and out[1].end == pytest.approx(3.0)


def test_a_long_sentence_is_cut_at_its_clauses() -> None:
    text = "这是一个很长的句子，它有好几个分句，每一个分句都要单独显示，这样字幕才好读。"
    out = cues(text, [SpokenSegment(0, text, 0.0, 16.0)], 16.0, complete=True, normalise=_identity)
    assert len(out) == 4 and all(c.end - c.start <= 7.0 for c in out)
    assert "".join(c.text for c in out) == text


def test_a_stopped_take_covers_everything_spoken() -> None:
    text = "First sentence is here. Second one follows now. Third never comes."
    # Stopped 1 s into the second segment (which holds the second sentence).
    segs = [SpokenSegment(0, "First sentence is here.", 0.0, 2.0),
            SpokenSegment(1, "Second one follows now.", 2.0, 3.0)]
    out = cues(text, segs, 3.0, complete=False, normalise=_identity)
    assert [c.text for c in out] == ["First sentence is here.", "Second one follows now."]
    assert out[-1].end == pytest.approx(3.0)  # up to the end of the audio, not dropped


def test_srt_format_and_segments_from_chunks() -> None:
    segs = spoken_segments([(0, "A.", 24000, 24000), (0, "A.", 12000, 24000), (1, "B.", 24000, 24000)])
    assert segs == [SpokenSegment(0, "A.", 0.0, 1.5), SpokenSegment(1, "B.", 1.5, 2.5)]
    assert srt([Cue(0.0, 1.25, "Hello  there."), Cue(1.25, 3661.5, "Bye.")]) == (
        "1\n00:00:00,000 --> 00:00:01,250\nHello there.\n\n2\n00:00:01,250 --> 01:01:01,500\nBye.\n")


@pytest.mark.usefixtures("single_thread")
def test_cli_synth_writes_subtitles(tiny_cv2_model: Path, tmp_path: Path) -> None:
    from cosycore.__main__ import CliIO, main

    class _Stdin(io.StringIO):
        def isatty(self) -> bool:
            return False

    out, subs = tmp_path / "out.wav", tmp_path / "out.srt"
    err = io.StringIO()
    code = main(["synth", "--model", str(tiny_cv2_model), "--device", "cpu", "--mode", "instruct",
                 "--instruct", "Please speak very happily.", "--text", "Hello there. It is 5 o'clock.",
                 "--seed", "1", "--min-tokens", "20", "--max-tokens", "20", "--out", str(out), "--srt", str(subs),
                 "--prompt-wav", str(_prompt(tmp_path))],
                CliIO(_Stdin(""), io.StringIO(), io.BytesIO(), err))
    assert code == 0, err.getvalue()
    text = subs.read_text(encoding="utf-8")
    assert re.findall(r"^\d+$", text, re.M) == ["1", "2"]
    assert "Hello there." in text and "It is 5 o'clock." in text  # as typed, not "five"


def _prompt(tmp_path: Path) -> Path:
    import numpy as np
    import soundfile as sf

    t = np.arange(int(3.0 * 16000)) / 16000
    path = tmp_path / "prompt.wav"
    sf.write(path, (0.3 * np.sin(2 * np.pi * 150 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t))).astype("float32"),
             16000)
    return path


def test_text_with_raw_esc_sequences() -> None:
    """Terminal escapes, bidi overrides and NUL in the typed text never reach a subtitle file."""
    from cosycore.subtitles import vtt

    text = "Hi \x1b[31mred\x1b[0m \x1b]0;pwned\x07there\u202e\x00."
    for out in (srt([Cue(0.0, 1.0, text)]), srt([Cue(0.0, 1.0, text, "A\x1b[2J")]),
                vtt([Cue(0.0, 1.0, text, "A")])):
        assert "\x1b" not in out and "\u202e" not in out and "\x00" not in out and "pwned" not in out
        assert "Hi red there." in out
