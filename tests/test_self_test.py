"""``cosy-studio --self-test`` (app/self_test.py): the whole path on a tiny model, and a broken build."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("onnx")  # the self-test writes its tiny model's ONNX graphs

from app import self_test


def test_self_test_speaks_a_sentence(qapp) -> None:
    played: list[tuple[np.ndarray, int]] = []
    out = io.StringIO()
    code = self_test.run_self_test(out, play=lambda _out, audio, rate: played.append((audio, rate)))
    text = out.getvalue()
    assert code == 0, text
    steps = ["qt", "text", "model", "engine", "speech", "asr"]
    assert [line.split(":")[0] for line in text.splitlines()[:6]] == steps
    assert "asr: tiny SenseVoice via sherpa-onnx" in text
    assert text.rstrip().splitlines()[-1].startswith("self-test OK in")
    (audio, rate), = played
    assert rate == 24000 and audio.dtype == np.float32 and audio.size > rate // 10
    assert np.isfinite(audio).all() and float(np.abs(audio).max()) > 0


def test_a_broken_build_fails_with_the_reason(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_portaudio(_out, _audio, _rate) -> None:
        raise self_test.SelfTestError("the PortAudio library could not be loaded")

    monkeypatch.setattr(self_test, "_synthesise", lambda _out, _folder: (np.zeros(10, np.float32), 24000))
    out = io.StringIO()
    assert self_test.run_self_test(out, play=no_portaudio) == 1
    assert "self-test FAILED: the PortAudio library could not be loaded" in out.getvalue()


def test_a_build_without_sherpa_onnx_fails_at_speech_recognition(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sherpa_onnx")
    monkeypatch.setattr(self_test, "_synthesise", lambda _out, _folder: (np.zeros(10, np.float32), 24000))
    monkeypatch.setitem(sys.modules, "sherpa_onnx", None)  # import sherpa_onnx now raises ImportError
    played: list[int] = []
    out = io.StringIO()
    assert self_test.run_self_test(out, play=lambda _out, _audio, rate: played.append(rate)) == 1
    assert "self-test FAILED: Transcription needs the sherpa-onnx package" in out.getvalue()
    assert "asr:" not in out.getvalue() and played == []


def test_a_build_without_wetext_data_fails_at_text_normalisation(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    # A bundle without the contractions package's json files fails the same way: importing wetext raises.
    from cosycore.frontend import text_original

    monkeypatch.setitem(sys.modules, "wetext", None)  # import wetext now raises ImportError
    text_original._normalizer.cache_clear()  # the normaliser the engine may have built already
    try:
        out = io.StringIO()
        assert self_test.run_self_test(out, play=lambda _out, _audio, _rate: None) == 1
    finally:
        monkeypatch.undo()
        text_original._normalizer.cache_clear()
    assert "self-test FAILED: text normalisation left \"I've got 25 apples.\" as \"I've got 25 apples.\"" \
        in out.getvalue()
    assert "model:" not in out.getvalue()
