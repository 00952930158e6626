"""The engine with the LM on its own thread (cosycore.threads): the same numbers, cancel still works."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

import cosycore.engine.core as engine_module
from cosycore.engine import Engine, SynthesisRequest
from cosycore.errors import CosyError
from cosycore.voices import Voice

pytestmark = pytest.mark.usefixtures("single_thread")

TEXT = ("The first sentence is here and it talks about the weather for quite a while today. "
        "A second one follows, and it is about the lazy dog that sleeps in the sun all day. ") * 3  # 3 segments


@pytest.fixture(scope="module")
def clip(espeak_wav: Path) -> tuple[np.ndarray, int]:
    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    return audio, sr


def _overlapping(engine: Engine, on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "OVERLAP_MIN_THREADS", 2)  # one torch thread per stage on the tiny models
    monkeypatch.setattr(engine, "threads", 2 if on else 1)
    monkeypatch.setattr(engine, "perf", replace(engine.perf, overlap=on))
    assert engine.overlaps is on


def _lm_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "cosy-lm"]


@pytest.mark.parametrize("fixture", ["cv2_engine", "cv3_engine"])
@pytest.mark.parametrize("stream", [True, False])
def test_overlap_gives_the_same_chunks(request, clip, fixture: str, stream: bool,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    engine: Engine = request.getfixturevalue(fixture)
    audio, sr = clip
    voice = engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")
    req = SynthesisRequest(TEXT, mode="zero_shot", voice=voice, seed=5, stream=stream, min_tokens=40, max_tokens=60)
    _overlapping(engine, False, monkeypatch)
    plain = list(engine.synthesize(req))
    _overlapping(engine, True, monkeypatch)
    overlapped = list(engine.synthesize(req))
    assert len(plain) == len(overlapped) >= 3
    assert plain[-1].sentence_index == 2
    for a, b in zip(plain, overlapped, strict=True):
        assert a.tokens == b.tokens and a.sentence_index == b.sentence_index and a.is_final == b.is_final
        # Until its first audio the overlapped request runs token2wav on both threads (FirstAudioGate),
        # the plain one on one: the same numbers up to float summation order.
        assert a.samples.shape == b.samples.shape
        np.testing.assert_allclose(a.samples, b.samples, rtol=0, atol=1e-4)
    assert not _lm_threads()


def test_cancel_from_another_thread_with_overlap(cv2_engine: Engine, clip, monkeypatch: pytest.MonkeyPatch) -> None:
    audio, sr = clip
    voice: Voice = cv2_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")
    _overlapping(cv2_engine, True, monkeypatch)
    req = SynthesisRequest(TEXT, mode="zero_shot", voice=voice, seed=3, stream=True, min_tokens=100, max_tokens=100)
    chunks = cv2_engine.synthesize(req)
    first = next(chunks)
    worker = threading.Thread(target=cv2_engine.cancel)
    worker.start()
    worker.join()
    assert not first.is_final and list(chunks) == []
    assert not _lm_threads()
    done = list(cv2_engine.synthesize(replace(req, text="Good.", min_tokens=None, max_tokens=12)))
    assert done and done[-1].is_final


def test_leaving_early_stops_the_lm_thread(cv2_engine: Engine, clip, monkeypatch: pytest.MonkeyPatch) -> None:
    audio, sr = clip
    voice = cv2_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")
    _overlapping(cv2_engine, True, monkeypatch)
    req = SynthesisRequest(TEXT, mode="zero_shot", voice=voice, seed=3, stream=True, min_tokens=60, max_tokens=60)
    chunks = cv2_engine.synthesize(req)
    next(chunks)
    chunks.close()
    assert not _lm_threads()


def test_an_lm_error_reaches_the_caller(cv2_engine: Engine, clip, monkeypatch: pytest.MonkeyPatch) -> None:
    audio, sr = clip
    voice = cv2_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")
    _overlapping(cv2_engine, True, monkeypatch)
    real = cv2_engine.model.llm.generate

    def failing(*args, **kwargs):
        yield from list(real(*args, **kwargs))[:30]
        raise RuntimeError("LM broke")

    monkeypatch.setattr(cv2_engine.model.llm, "generate", failing)
    req = SynthesisRequest("Hello there.", mode="zero_shot", voice=voice, seed=3, stream=True, min_tokens=60,
                           max_tokens=60)
    with pytest.raises(CosyError) as raised:  # the engine's boundary types every error
        list(cv2_engine.synthesize(req))
    cause = raised.value.__cause__
    assert isinstance(cause, RuntimeError) and str(cause) == "LM broke"
    assert not _lm_threads()


def test_overlap_starts_at_two_threads_for_a_float_lm_and_four_for_int8(cv2_engine: Engine,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A float32 LM overlaps from two threads on (one each on two cores, after the first audio); an
    int8 LM, which decodes much slower on one thread, from four."""
    monkeypatch.setattr(cv2_engine, "perf", replace(cv2_engine.perf, overlap=True))
    assert cv2_engine.model.llm.quantization is None
    for threads, overlaps in ((1, False), (2, True), (3, True), (4, True), (8, True)):
        monkeypatch.setattr(cv2_engine, "threads", threads)
        assert cv2_engine.overlaps is overlaps
    monkeypatch.setattr(cv2_engine.model.llm, "quantization", "int8")
    for threads, overlaps in ((1, False), (2, False), (3, False), (4, True), (8, True)):
        monkeypatch.setattr(cv2_engine, "threads", threads)
        assert cv2_engine.overlaps is overlaps
    monkeypatch.setattr(cv2_engine, "perf", replace(cv2_engine.perf, overlap=False))
    assert not cv2_engine.overlaps
