"""Subtitles and the sentence preview in the app (issue 14, problem 8): SRT cues per typed sentence, a
stopped take's SRT up to the end of its audio, and a preview that splits exactly as the engine does, on
one worker that drops stale requests."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from app.main_window import MainWindow
from app.takes.take import TakeState
from cosycore.config import load_model_config
from cosycore.frontend.text import iter_sentences, normalize_text
from cosycore.frontend.tokenizer import get_text_tokenizer
from cosycore.subtitles import split_sentences

TEXT = "Hello there. How are you today?"  # the text of the recorded chunks


def _cues(path: Path) -> list[tuple[str, str, str]]:
    return re.findall(r"^\d+\n(\S+) --> (\S+)\n(.+)$", path.read_text(encoding="utf-8"), re.M)


def _seconds(stamp: str) -> float:
    h, m, rest = stamp.split(":")
    s, ms = rest.split(",")
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def test_srt_has_a_cue_per_typed_sentence(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.controls.set_mode("cross_lingual")
    w.editor.set_text(TEXT)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    take = w.session.takes[-1]
    assert w.export_ctl.export(take, tmp_path / "subs.srt", "srt")
    cues = _cues(tmp_path / "subs.srt")
    assert [c[2] for c in cues] == ["Hello there.", "How are you today?"]
    assert _seconds(cues[0][0]) == 0.0 and _seconds(cues[-1][1]) == pytest.approx(take.duration, abs=0.002)


def test_a_stopped_takes_srt_covers_what_was_spoken(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.session.engine.interval_ms = 150
    w.controls.set_mode("cross_lingual")
    w.editor.set_text(TEXT)
    w.speaking_ctl.speak()
    take = w.session.takes[-1]
    qtbot.waitUntil(lambda: take.chunk_count >= 2, timeout=5000)
    with qtbot.waitSignal(w.session.engine.synthesis_cancelled, timeout=5000):
        w.speaking_ctl.stop()
    assert take.state is TakeState.CANCELLED
    assert w.export_ctl.export(take, tmp_path / "stopped.srt", "srt")
    cues = _cues(tmp_path / "stopped.srt")
    assert cues and cues[0][2] == "Hello there."
    assert _seconds(cues[-1][1]) == pytest.approx(take.duration, abs=0.002)  # to the end of the audio


def test_the_preview_splits_as_the_engine_does(qtbot, window: MainWindow, tiny_cv2_model: Path) -> None:
    text = ("This sentence has quite a few words in it, so that the token count matters here. "
            "A second one follows it, also long enough to be measured in tokens rather than words. "
            "Short third. And a fourth that closes the paragraph, with a number: 42.")
    cfg = load_model_config(tiny_cv2_model)
    engine_split = list(iter_sentences(text, None, get_text_tokenizer(cfg.qwen_dir, cfg.family)))
    w = window
    w.editor.set_text(text)
    w.editor.refresh_preview_now()
    qtbot.waitUntil(lambda: w.editor.sentences == engine_split, timeout=10_000)
    assert w.editor.preview.count() == len(engine_split)


def test_the_preview_drops_stale_requests(qtbot, window: MainWindow) -> None:
    editor = window.editor
    qtbot.waitUntil(lambda: editor._worker._request is None, timeout=10_000)
    before = editor._worker.splits
    for i in range(30):
        editor.set_text(f"Sentence number {i}. And another one.")
        editor.refresh_preview_now()
    qtbot.waitUntil(lambda: bool(editor.sentences) and editor.sentences[0].startswith("Sentence number twenty nine"),
                    timeout=10_000)
    assert editor._worker.splits - before < 30


def test_srt_keeps_the_typed_numbers_not_the_spoken_words(qtbot, window: MainWindow, tmp_path: Path) -> None:
    """The engine speaks "二零二四年三月五日" for "2024年3月5日"; the subtitles show what was typed."""
    typed = "2024年3月5日，天气很好。我们去公园吧！"
    spoken = [normalize_text(s) for s in split_sentences(typed)]
    assert spoken[0].startswith("二零二四年三月五日")
    chunks = window.session.engine.chunks
    half = (len(chunks) + 1) // 2
    window.session.engine.chunks = [replace(c, sentence_index=int(i >= half), sentence_text=spoken[int(i >= half)])
                            for i, c in enumerate(chunks)]  # the recorded take, as the engine says it
    window.controls.set_mode("cross_lingual")
    window.editor.set_text(typed)
    with qtbot.waitSignal(window.session.engine.synthesis_finished, timeout=10_000):
        window.speaking_ctl.speak()
    assert window.export_ctl.export(window.session.takes[-1], tmp_path / "zh.srt", "srt")
    assert [c[2] for c in _cues(tmp_path / "zh.srt")] == ["2024年3月5日，天气很好。", "我们去公园吧！"]
    assert "二零二四" not in (tmp_path / "zh.srt").read_text(encoding="utf-8")
