"""End to end with the real engine on the tiny CosyVoice2 model and the null ALSA device:
type text → Speak → chunks arrive → the waveform grows → the samples reach the audio device →
export → the file holds exactly the take. Also: Esc mid-stream, Speak again at once, no audio device."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import SR, open_engine_window, played_offset, played_samples
from PySide6.QtCore import Qt

from app.audio.playback import PlayState
from app.main_window import MainWindow
from app.takes.take import TakeState
from cosycore.engine import AudioChunk

# the real engine thread, its tiny model loaded once for the module (tests/gui/conftest.py)
pytestmark = [pytest.mark.usefixtures("engine_per_module"), pytest.mark.real_engine]

LONG_TEXT = ("This is the first sentence of a longer text. Here comes a second one, with more words in it. "
             "And a third sentence closes the paragraph for good.")


def _type(qtbot, w: MainWindow, text: str) -> None:
    w.editor.edit.setFocus()
    qtbot.keyClicks(w.editor.edit, text)
    assert w.editor.text() == text


def test_type_speak_play_export(qtbot, window: MainWindow, null_audio: Path, tmp_path: Path) -> None:
    w = window
    assert w.stack.currentWidget() is w.studio  # the model is loaded: the studio is shown
    assert w.controls.mode == "zero_shot" and w.voice_panel.voice.name == "Tester"
    assert w.voice_panel.transcript == "Hello, this is my test voice."
    _type(qtbot, w, "Hello there. How are you? This take is long enough to arrive in several chunks.")
    chunks: list[AudioChunk] = []
    durations: list[float] = []

    def on_chunk(rid: int, chunk: AudioChunk) -> None:
        chunks.append(chunk)
        durations.append(w.waveform.duration)  # read after the window's own slot ran

    w.session.engine.chunk_ready.connect(on_chunk)
    redraws = w.waveform.redraw_count
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=120_000):
        qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.controls.stop_button.isEnabled(), timeout=5000)
    take = w.session.takes[-1]
    assert take.state is TakeState.DONE and take.chunk_count == len(chunks) >= 2
    ends = np.cumsum([c.samples.shape[0] for c in chunks]) / SR
    assert durations == pytest.approx(list(ends))  # the waveform grew with every chunk
    qtbot.waitUntil(lambda: w.waveform.redraw_count > redraws, timeout=2000)
    assert w.waveform.seams == pytest.approx(list(ends[:-1]))
    assert w.waveform.is_finished
    audio = np.concatenate([c.samples for c in chunks])
    assert np.array_equal(take.audio(), audio)
    assert "First audio" in w.ttfa_label.text() and "RTF" in w.rtf_label.text()

    if w.session.player.state is not PlayState.STOPPED:
        with qtbot.waitSignal(w.session.player.playback_finished, timeout=60_000):
            pass
    played = played_samples(null_audio)
    start = played_offset(played, audio)
    assert start >= 1024  # PortAudio's prefill of silence comes first
    assert not np.any(played[:start])
    # Every sample made reached the device, in order. The null device has no clock and plays faster
    # than the engine makes audio, so while streaming it underruns: each underrun is silence, counted.
    assert np.array_equal(played[played != 0], audio[audio != 0])
    gaps = np.count_nonzero(np.diff((played[start:] == 0).astype(np.int8)) == 1)
    assert gaps <= w.session.player.underruns + 1  # the +1 is the silence after the take

    # Replaying the finished take fits in the ring: bit-exact and contiguous.
    with qtbot.waitSignal(w.session.player.playback_finished, timeout=60_000):
        assert w.playback_ctl.play_take(take)
    played = played_samples(null_audio)
    start = played_offset(played, audio)
    assert np.array_equal(played[start:start + audio.shape[0]], audio)

    assert w.export_ctl.export(take, tmp_path / "take.wav", "wav_float")
    data, rate = sf.read(tmp_path / "take.wav", dtype="float32")
    info = sf.info(tmp_path / "take.wav")
    assert rate == SR and info.subtype == "FLOAT" and np.array_equal(data, audio)
    assert w.export_ctl.export(take, tmp_path / "take16", "wav16")
    data16, _ = sf.read(tmp_path / "take16.wav", dtype="float32")
    assert sf.info(tmp_path / "take16.wav").subtype == "PCM_16"
    assert np.max(np.abs(data16 - np.clip(audio, -1, 1))) <= 1.0 / 32767
    assert w.export_ctl.export(take, tmp_path / "take.srt", "srt")
    srt = (tmp_path / "take.srt").read_text(encoding="utf-8")
    assert srt.startswith("1\n00:00:00,000 --> ") and "Hello" in srt
    assert not take.exported_partial


def test_escape_cancels_mid_stream(qtbot, window: MainWindow, null_audio: Path) -> None:
    w = window
    w.controls.set_mode("cross_lingual")
    _type(qtbot, w, LONG_TEXT)
    got: list[AudioChunk] = []
    w.session.engine.chunk_ready.connect(lambda rid, c: got.append(c))
    w.speaking_ctl.speak()
    qtbot.waitUntil(lambda: len(got) >= 1, timeout=120_000)
    with qtbot.waitSignal(w.session.engine.synthesis_cancelled, timeout=60_000):
        qtbot.keyClick(w.editor.edit, Qt.Key.Key_Escape)
    take = w.session.takes[-1]
    assert take.state is TakeState.CANCELLED and take.chunk_count == len(got)
    assert not got[-1].is_final
    assert w.session.player.state is PlayState.STOPPED and not w.controls.stop_button.isEnabled()
    assert w.waveform.is_finished and w.waveform.duration == pytest.approx(take.duration)


def test_speak_again_at_once(qtbot, window: MainWindow, null_audio: Path) -> None:
    w = window
    w.controls.set_mode("cross_lingual")
    _type(qtbot, w, LONG_TEXT)
    first = w.speaking_ctl.speak()
    w.editor.set_text("Second take.")
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=120_000) as blocker:
        second = w.speaking_ctl.speak()
    assert blocker.args[0].request_id == second != first
    qtbot.waitUntil(lambda: w.session.takes.by_request(first) is None or w.session.takes.by_request(first).state is
                    TakeState.CANCELLED, timeout=30_000)
    latest = w.session.takes[-1]
    assert latest.request_id == second and latest.state is TakeState.DONE and latest.text == "Second take."
    if w.session.player.state is not PlayState.STOPPED:
        with qtbot.waitSignal(w.session.player.playback_finished, timeout=60_000):
            pass
    played = played_samples(null_audio)
    audio = latest.audio()
    assert np.array_equal(played[played != 0], audio[audio != 0])  # only the second take was played


def test_no_audio_device_still_speaks_and_exports(qtbot, no_audio_device, settings, tiny_cv2_model: Path,
                                                  library_with_voice, tmp_path: Path) -> None:
    w = open_engine_window(qtbot, settings, tiny_cv2_model)
    assert w.session.player.state is PlayState.NO_DEVICE
    assert "No audio device" in w.audio_label.text()
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Nobody hears this.")
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=120_000):
        w.speaking_ctl.speak()
    take = w.session.takes[-1]
    assert take.state is TakeState.DONE and take.samples > 0
    assert w.last_message is None  # no error dialog: silence is not an error
    assert "no audio" in w.hud.text()
    assert w.export_ctl.export(take, tmp_path / "quiet.flac", "flac")
    data, rate = sf.read(tmp_path / "quiet.flac", dtype="float32")
    assert rate == SR and np.max(np.abs(data - take.audio())) < 1e-6 * 2 ** 8
    w.close()
