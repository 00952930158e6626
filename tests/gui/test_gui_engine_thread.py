"""The engine thread with the real engine on the tiny CosyVoice2 model: loading, speaking, cancelling,
replacing a take, errors as messages, making voices, and a clean shutdown without terminate()."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import SR, speechlike
from PySide6.QtCore import QThread

from app.worker.engine_thread import EngineThread, SynthesisStats
from app.worker.eta import rtf_key
from cosycore.engine import AudioChunk, EngineInfo, SynthesisRequest
from cosycore.voices import Voice

LONG_TEXT = ("This is the first sentence of a longer text. Here comes a second one, with more words in it. "
             "And a third sentence closes the paragraph for good.")


@pytest.fixture(scope="module")
def engine(qapp, tiny_cv2_model: Path):
    thread = EngineThread(torch_threads=1)
    loaded: list[EngineInfo] = []
    thread.model_loaded.connect(loaded.append)
    thread.load_model(tiny_cv2_model, "cpu")
    from pytestqt.qtbot import QtBot

    QtBot(qapp).waitUntil(lambda: bool(loaded), timeout=120_000)
    thread.info_for_tests = loaded[0]
    yield thread
    assert thread.shutdown()


class Recorder:
    """Collects what the engine thread reports."""

    def __init__(self, thread: EngineThread) -> None:
        self.thread = thread
        self.chunks: dict[int, list[AudioChunk]] = {}
        self.finished: list[SynthesisStats] = []
        self.cancelled: list[SynthesisStats] = []
        self.failed: list[tuple[int, str]] = []
        self._links = [
            (thread.chunk_ready, self._on_chunk),
            (thread.synthesis_finished, self.finished.append),
            (thread.synthesis_cancelled, self.cancelled.append),
            (thread.synthesis_failed, lambda rid, msg: self.failed.append((rid, msg))),
        ]
        for signal, slot in self._links:
            signal.connect(slot)

    def _on_chunk(self, rid: int, chunk: AudioChunk) -> None:
        self.chunks.setdefault(rid, []).append(chunk)

    def done(self, rid: int) -> bool:
        return any(s.request_id == rid for s in self.finished + self.cancelled) or any(r == rid for r, _ in self.failed)

    def close(self) -> None:
        for signal, slot in self._links:
            signal.disconnect(slot)


@pytest.fixture
def rec(engine):
    r = Recorder(engine)
    yield r
    r.close()


def test_model_info(engine) -> None:
    info = engine.info_for_tests
    assert info.family == "cosyvoice2" and info.title == "CosyVoice2"
    assert info.sample_rate == SR and info.device == "cpu"
    assert engine.model_info is info


def test_speak_streams_chunks_then_finishes(qtbot, engine, rec, tiny_engine_voice: Voice) -> None:
    started: list[int] = []
    engine.synthesis_started.connect(started.append)
    rid = engine.speak(SynthesisRequest("Hello there.", mode="cross_lingual", voice=tiny_engine_voice, seed=1))
    qtbot.waitUntil(lambda: rec.done(rid), timeout=120_000)
    engine.synthesis_started.disconnect(started.append)
    assert started == [rid]
    chunks = rec.chunks[rid]
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert chunks[-1].is_final and not any(c.is_final for c in chunks[:-1])
    assert all(c.samples.dtype == np.float32 and not c.samples.flags.writeable for c in chunks)
    stats = rec.finished[-1]
    assert stats.request_id == rid and not stats.cancelled and stats.chunks == len(chunks)
    assert stats.audio_seconds == pytest.approx(sum(c.samples.shape[0] for c in chunks) / SR)
    assert 0 < stats.first_audio_seconds <= stats.wall_seconds and stats.rtf > 0
    assert not engine.busy


def test_same_seed_same_audio(qtbot, engine, rec, tiny_engine_voice: Voice) -> None:
    ids = [engine.speak(SynthesisRequest("Hi there.", mode="cross_lingual", voice=tiny_engine_voice, seed=7))]
    qtbot.waitUntil(lambda: rec.done(ids[0]), timeout=120_000)
    ids.append(engine.speak(SynthesisRequest("Hi there.", mode="cross_lingual", voice=tiny_engine_voice, seed=7)))
    qtbot.waitUntil(lambda: rec.done(ids[1]), timeout=120_000)
    a, b = (np.concatenate([c.samples for c in rec.chunks[i]]) for i in ids)
    assert np.array_equal(a, b)


def test_stop_cancels_mid_stream(qtbot, engine, rec, tiny_engine_voice: Voice) -> None:
    rid = engine.speak(SynthesisRequest(LONG_TEXT, mode="cross_lingual", voice=tiny_engine_voice, seed=2))
    qtbot.waitUntil(lambda: len(rec.chunks.get(rid, [])) >= 1, timeout=120_000)
    engine.stop()
    qtbot.waitUntil(lambda: rec.done(rid), timeout=60_000)
    assert [s.request_id for s in rec.cancelled] == [rid] and not rec.finished
    got = rec.chunks[rid]
    assert not got[-1].is_final
    assert rec.cancelled[0].chunks == len(got) and rec.cancelled[0].cancelled
    assert not engine.busy


def test_speak_again_at_once_replaces_the_take(qtbot, engine, rec, tiny_engine_voice: Voice) -> None:
    first = engine.speak(SynthesisRequest(LONG_TEXT, mode="cross_lingual", voice=tiny_engine_voice, seed=2))
    qtbot.waitUntil(lambda: len(rec.chunks.get(first, [])) >= 1, timeout=120_000)
    second = engine.speak(SynthesisRequest("Quick one.", mode="cross_lingual", voice=tiny_engine_voice, seed=3))
    third = engine.speak(SynthesisRequest("Quick two.", mode="cross_lingual", voice=tiny_engine_voice, seed=4))
    qtbot.waitUntil(lambda: rec.done(third), timeout=120_000)
    assert {s.request_id for s in rec.cancelled} == {first, second}
    assert [s.request_id for s in rec.finished] == [third]
    assert second not in rec.chunks  # overtaken before it started: never ran
    assert rec.chunks[third][-1].is_final


def test_request_errors_come_back_as_messages(qtbot, engine, rec, tiny_engine_voice: Voice) -> None:
    no_transcript = Voice(**{**{k: getattr(tiny_engine_voice, k) for k in (
        "name", "language", "family", "speech_tokenizer_sha256", "audio_24k", "speech_tokens", "embedding",
        "prompt_mel")}, "transcript": ""})
    rid = engine.speak(SynthesisRequest("Hello.", mode="zero_shot", voice=no_transcript))
    qtbot.waitUntil(lambda: rec.done(rid), timeout=60_000)
    assert rec.failed and rec.failed[0][0] == rid
    assert "transcript" in rec.failed[0][1]
    # The engine stays usable.
    ok = engine.speak(SynthesisRequest("Fine.", mode="cross_lingual", voice=tiny_engine_voice, seed=1))
    qtbot.waitUntil(lambda: rec.done(ok), timeout=120_000)
    assert rec.finished[-1].request_id == ok


def test_create_voice_on_the_engine_thread(qtbot, engine) -> None:
    with qtbot.waitSignal(engine.voice_created, timeout=60_000) as blocker:
        job = engine.create_voice(speechlike(5.0, sr=16000, seed=9), 16000, "New voice", "Some words.")
    got_job, voice, warnings = blocker.args
    assert got_job == job and isinstance(voice, Voice)
    assert voice.name == "New voice" and voice.transcript == "Some words." and voice.family == "cosyvoice2"
    assert warnings == ()
    with qtbot.waitSignal(engine.voice_failed, timeout=60_000) as blocker:
        engine.create_voice(np.zeros(SR * 4, np.float32), SR, "Silent", "")
    assert "silent" in blocker.args[1]


def test_bad_folder_fails_readably_and_quit_never_terminates(qtbot, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(self) -> None:
        raise AssertionError("QThread.terminate() must never be called")

    monkeypatch.setattr(QThread, "terminate", forbidden)
    thread = EngineThread(torch_threads=1)
    with qtbot.waitSignal(thread.load_failed, timeout=60_000) as blocker:
        thread.load_model(tmp_path / "nowhere")
    assert "does not exist" in blocker.args[0]
    with qtbot.waitSignal(thread.synthesis_failed, timeout=10_000) as blocker:
        thread.speak(SynthesisRequest("Hello."))
    assert "No model is loaded" in blocker.args[1]
    assert thread.shutdown(10_000)
    assert thread.isFinished()


def test_invalid_audio_never_reaches_the_gui(qtbot, engine, rec, tiny_engine_voice: Voice,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    real = type(engine._engine).synthesize

    def with_a_nan(self, request):
        for i, chunk in enumerate(real(self, request)):
            if i == 1:
                samples = chunk.samples.copy()
                samples[10] = np.nan
                chunk = type(chunk)(**{**chunk.__dict__, "samples": samples})
            yield chunk

    monkeypatch.setattr(type(engine._engine), "synthesize", with_a_nan)
    rid = engine.speak(SynthesisRequest(LONG_TEXT, mode="cross_lingual", voice=tiny_engine_voice, seed=5))
    qtbot.waitUntil(lambda: rec.done(rid), timeout=120_000)
    assert len(rec.chunks[rid]) == 1  # the first chunk only
    assert rec.failed[-1][0] == rid and "invalid audio" in rec.failed[-1][1]


def test_load_in_draft_quality(qtbot, tiny_cv2_model: Path, tiny_engine_voice: Voice) -> None:
    thread = EngineThread(torch_threads=1)
    steps: list[str] = []
    percents: list[int] = []
    thread.load_progress.connect(lambda percent, what: (steps.append(what), percents.append(percent)))
    warmed: list[float] = []
    thread.text_warmed.connect(warmed.append)
    try:
        with qtbot.waitSignal(thread.model_loaded, timeout=120_000) as blocker:
            thread.load_model(tiny_cv2_model, "cpu", quality="draft")
        info = blocker.args[0]
        assert info.quality == "draft" and info.device == "cpu"
        perf = thread._engine.perf
        assert (perf.llm_quant, perf.flow.n_steps, perf.flow.cfg_rate) == ("int8", 4, 0.0)
        # The engine's own steps, in order, with rising percentages; no model pass on a CPU (issue 25 item 2).
        assert steps == ["Checking the model folder", "Starting the engine (torch)",
                         "Loading the speech language model", "Loading the flow decoder", "Loading the vocoder",
                         "Loading the text tokenizer",
                         "Loading the speech tokenizer", "Loading the speaker encoder", "Finishing", "Ready"]
        assert percents == sorted(percents) and len(set(percents)) == len(percents) and percents[-1] == 100
        # Speak right away, the text warm-up possibly still running in the background: it works all the same.
        with qtbot.waitSignal(thread.synthesis_finished, timeout=120_000) as blocker:
            thread.speak(SynthesisRequest("Hello there, it is 10:30.", mode="cross_lingual", voice=tiny_engine_voice,
                                          seed=1))
        assert blocker.args[0].audio_seconds > 0
        qtbot.waitUntil(lambda: bool(warmed), timeout=120_000)
        assert warmed[0] >= 0.0  # the warm-up ran to its end
    finally:
        assert thread.shutdown()


def test_auto_quality_chooses_from_the_measured_speeds(qtbot, tiny_cv2_model: Path) -> None:
    thread = EngineThread(torch_threads=1)
    measured = {rtf_key(tiny_cv2_model, "cpu", "exact"): 0.4}  # exact measured live on this CPU
    thread.rtf_lookup = measured.get
    try:
        with qtbot.waitSignal(thread.model_loaded, timeout=120_000) as blocker:
            thread.load_model(tiny_cv2_model, "cpu", quality="auto")
        info = blocker.args[0]
        assert (info.quality, info.requested_quality) == ("exact", "auto")
        assert thread._engine.threads == 1 and thread._engine.info().requested_quality == "auto"
        thread.set_threads(2)  # Settings > Performance: the loaded engine takes it from its next take
        assert thread._engine.threads == 2 and thread.torch_threads == 2
    finally:
        assert thread.shutdown()
