"""Convert mode (issue 26) with the real engine on the tiny CosyVoice2 model and the null ALSA device: a file
converted into the chosen voice as a take that plays, grows in the waveform, exports and comes back after a
restart; bad sources refused with what to do; live conversion from a fake microphone, with its latency
shown; the headphones refusal; the microphone picker (kept, and used by that refusal); converting after the
recording when live cannot keep up."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import SR, open_engine_window, played_samples, speechlike
from PySide6.QtCore import QSettings, Qt

from app.audio.playback import AudioDevice, PlayState
from app.controllers.convert import ConvertController
from app.main_window import MainWindow
from app.takes.take import TakeState
from app.widgets.convert_panel import ConvertPanel
from app.worker.convert_jobs import LiveChunk
from cosycore.request import AudioChunk

# the real engine thread, its tiny model loaded once for the module (tests/gui/conftest.py)
pytestmark = [pytest.mark.usefixtures("engine_per_module"), pytest.mark.real_engine]

MIC_RATE = 48000


class FakeMic:
    """A microphone that delivers ``signal`` in real time from start() on (what a device would hand over)."""

    def __init__(self, signal: np.ndarray, name: str = "Fake microphone") -> None:
        self.signal = signal
        self.sample_rate = MIC_RATE
        self.device_name = name
        self.active = False
        self._t0 = 0.0
        self._pos = 0

    def start(self) -> str:
        self.active, self._t0, self._pos = True, time.perf_counter(), 0
        return ""

    def read(self) -> tuple[np.ndarray, float]:
        now = time.perf_counter()
        end = min(self.signal.shape[0], int((now - self._t0) * self.sample_rate))
        block, self._pos = self.signal[self._pos:end], max(self._pos, end)
        return block, now

    def stop(self) -> None:
        self.active = False


def _convert_mode(qtbot, w: MainWindow) -> None:
    qtbot.mouseClick(w.controls.mode_buttons["convert"], Qt.MouseButton.LeftButton)
    assert w.controls.mode == "convert"
    assert w.convert_panel.isVisible() and not w.editor.isVisible()
    assert w.controls.speak_button.text() == "Convert"
    assert w.convert_panel.target_label.text() == "Tester"


def test_convert_a_file_play_export_and_restart(qtbot, window: MainWindow, settings, tiny_cv2_model: Path,
                                                null_audio: Path, tmp_path: Path) -> None:
    w = window
    _convert_mode(qtbot, w)
    source = tmp_path / "me.wav"
    sf.write(source, speechlike(2.5, sr=22050, seed=4), 22050)
    assert w.convert_ctl.set_source_file(source)
    assert "me.wav" in w.convert_panel.source_label.text()
    chunks: list[AudioChunk] = []
    durations: list[float] = []

    def on_chunk(_rid: int, chunk: AudioChunk) -> None:
        chunks.append(chunk)
        durations.append(w.waveform.duration)

    w.session.engine.chunk_ready.connect(on_chunk)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=120_000):
        qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
    take = w.session.takes[-1]
    assert take.mode == "convert" and take.state is TakeState.DONE
    assert take.text == "me.wav" and take.voice_name == "Tester"
    assert take.chunk_count == len(chunks) >= 2  # streamed
    assert durations == pytest.approx(list(np.cumsum([c.samples.shape[0] for c in chunks]) / SR))
    assert take.duration == pytest.approx(2.5, abs=0.1)  # the source's timing
    audio = np.concatenate([c.samples for c in chunks])
    assert np.array_equal(take.audio(), audio)
    label = w.takes_view.label(take)
    assert "Convert" in label and "me.wav → Tester" in label
    assert "Source: me.wav" in w.takes_view.tooltip(take)
    if w.session.player.state is not PlayState.STOPPED:
        with qtbot.waitSignal(w.session.player.playback_finished, timeout=60_000):
            pass
    played = played_samples(null_audio)
    assert np.array_equal(played[played != 0], audio[audio != 0])  # every sample reached the device

    assert w.export_ctl.export(take, tmp_path / "out.wav", "wav_float")
    data, rate = sf.read(tmp_path / "out.wav", dtype="float32")
    assert rate == SR and np.array_equal(data, audio)

    w.close()
    again = open_engine_window(qtbot, settings, tiny_cv2_model)
    restored = again.session.takes[-1]
    assert restored.mode == "convert" and restored.text == "me.wav" and restored.voice_name == "Tester"
    assert restored.state is TakeState.DONE and np.array_equal(restored.audio(), audio)
    assert again.controls.mode == "convert"  # the mode is kept too
    again.close()


def test_bad_sources_say_what_to_do(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    _convert_mode(qtbot, w)
    corrupt = tmp_path / "broken.wav"
    corrupt.write_bytes(b"RIFF\x00\x00\x00\x00WAVEnot really audio at all" * 4)
    assert not w.convert_ctl.set_source_file(corrupt)
    title, text = w.last_message
    assert title == "Cannot use this recording" and "broken.wav" in text
    phone = tmp_path / "phone.wav"
    sf.write(phone, speechlike(2.0, sr=8000), 8000)
    assert not w.convert_ctl.set_source_file(phone)
    assert "16 kHz or higher" in w.last_message[1]
    w.convert_ctl.max_source_seconds = 2.0
    long = tmp_path / "long.wav"
    sf.write(long, speechlike(3.0, sr=16000), 16000)
    assert not w.convert_ctl.set_source_file(long)
    assert "Cut the recording into parts" in w.last_message[1]
    assert w.convert_ctl.source is None and not len(w.session.takes)

    w.convert_ctl.set_source_audio(np.zeros(2 * 24000, np.float32), 24000, "quiet")
    with qtbot.waitSignal(w.session.engine.synthesis_failed, timeout=60_000):
        w.speaking_ctl.speak()
    title, text = w.last_message
    assert title == "Cannot convert" and "silent" in text and "speech in it" in text
    assert not len(w.session.takes)  # nothing half made is kept


def test_a_voice_of_the_other_family_is_converted_from_its_recording(qtbot, window: MainWindow) -> None:
    w = window
    w.session.library.add(replace(w.session.library.get("Tester"), name="Other", family="cosyvoice3"))
    w.voice_panel.reload(select="Other")
    w.controls.set_mode("convert")
    assert w.convert_panel.target_label.text() == "Other"
    w.convert_ctl.set_source_audio(speechlike(1.5, seed=2), SR, "clip")
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=120_000):
        w.speaking_ctl.speak()
    assert w.session.takes[-1].voice_name == "Other" and w.session.takes[-1].state is TakeState.DONE
    qtbot.waitUntil(lambda: w.session.library.get("Other").family == "cosyvoice2", timeout=60_000)  # made again, saved


def test_live_from_a_microphone_shows_latency_and_keeps_the_take(qtbot, window: MainWindow,
                                                                 null_audio: Path) -> None:
    w = window
    _convert_mode(qtbot, w)
    signal = speechlike(4.0, sr=MIC_RATE, seed=5)
    w.convert_ctl.microphone = lambda _name: FakeMic(signal)
    live: list[AudioChunk] = []
    w.session.engine.chunk_ready.connect(lambda _rid, c: live.append(c) if isinstance(c, LiveChunk) else None)
    qtbot.mouseClick(w.convert_panel.live_button, Qt.MouseButton.LeftButton)
    assert w.convert_ctl.live and w.convert_panel.live_button.text() == "Stop live"
    take = w.session.takes[-1]
    assert take.mode == "convert" and take.text.startswith("Live") and take.state is TakeState.STREAMING
    qtbot.waitUntil(lambda: len(live) >= 2, timeout=60_000)  # converted while "speaking"
    assert w.convert_panel.stats_label.text().startswith("Latency ")
    assert "RTF" in w.convert_panel.stats_label.text()
    qtbot.waitUntil(lambda: w.convert_ctl._recorded_samples >= signal.shape[0], timeout=30_000)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=60_000):
        qtbot.mouseClick(w.convert_panel.live_button, Qt.MouseButton.LeftButton)
    assert not w.convert_ctl.live and take.state is TakeState.DONE
    assert take.duration == pytest.approx(4.0, abs=0.05)  # every piece, at the speaker's pace
    meter = w.convert_ctl.meter
    assert meter is not None and meter.pieces == len(live) and all(lat > 0 for lat in meter.latencies)
    # The recording is kept as the source, ready for an ordinary Convert.
    assert isinstance(w.convert_ctl.source, np.ndarray) and w.convert_ctl.source.shape[0] == signal.shape[0]


def test_live_refuses_the_same_device_without_headphones(qtbot, window: MainWindow, settings) -> None:
    w = window
    _convert_mode(qtbot, w)
    assert w.session.player.device is not None
    w.convert_ctl.microphone = lambda _name: FakeMic(speechlike(3.0, sr=MIC_RATE), name=w.session.player.device.name)
    assert not w.convert_panel.headphones_check.isChecked()
    qtbot.mouseClick(w.convert_panel.live_button, Qt.MouseButton.LeftButton)
    title, text = w.last_message
    assert title == "Headphones needed" and "I use headphones" in text
    assert not w.convert_ctl.live and not w.convert_panel.live_button.isChecked() and not len(w.session.takes)
    w.convert_panel.headphones_check.setChecked(True)
    assert settings.headphones
    qtbot.mouseClick(w.convert_panel.live_button, Qt.MouseButton.LeftButton)
    assert w.convert_ctl.live
    w.convert_ctl.stop()
    qtbot.waitUntil(lambda: w.session.takes[-1].state is not TakeState.STREAMING, timeout=60_000)


def test_falling_behind_offers_to_convert_after_the_recording(qtbot, window: MainWindow) -> None:
    w = window
    _convert_mode(qtbot, w)
    signal = speechlike(3.0, sr=MIC_RATE, seed=6)
    w.convert_ctl.microphone = lambda _name: FakeMic(signal)
    assert w.convert_ctl.start_live()
    live_take = w.session.takes[-1]
    qtbot.waitUntil(lambda: w.convert_ctl.meter is not None and w.convert_ctl.meter.pieces >= 1, timeout=60_000)
    w.convert_panel.show_behind(1.7)  # what the meter shows on a slow machine
    assert "slower than you speak" in w.convert_panel.behind_label.text()
    qtbot.mouseClick(w.convert_panel.convert_after_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: live_take.state is TakeState.CANCELLED, timeout=60_000)  # kept with what it had
    assert w.convert_ctl.live  # still recording
    qtbot.waitUntil(lambda: w.convert_ctl._recorded_samples >= signal.shape[0], timeout=30_000)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=120_000):
        qtbot.mouseClick(w.convert_panel.live_button, Qt.MouseButton.LeftButton)
    after = w.session.takes[-1]
    assert after is not live_take and after.mode == "convert" and after.state is TakeState.DONE
    assert after.text.startswith("Recording of 3.0 s") and after.duration == pytest.approx(3.0, abs=0.1)


def test_the_microphone_picker_is_kept_and_used_by_the_headphones_check(qtbot, window: MainWindow, settings,
                                                                        tmp_path: Path) -> None:
    w = window
    _convert_mode(qtbot, w)
    out = w.session.player.device
    assert out is not None
    ctl, panel, combo = w.convert_ctl, w.convert_panel, w.convert_panel.mic_combo
    assert combo.isVisible() and panel.microphone == "" and combo.currentText() == "System default"
    ctl.input_devices = lambda: [AudioDevice(7, "USB microphone", "ALSA", 1, 48000.0),
                                 AudioDevice(8, out.name, "ALSA", 2, 48000.0)]
    asked: list[str] = []

    def microphone(name: str) -> FakeMic:
        asked.append(name)
        return FakeMic(speechlike(3.0, sr=MIC_RATE), name=name)

    ctl.microphone = microphone
    combo.showPopup()  # opening the list reads the devices found now
    combo.hidePopup()
    assert [combo.itemData(i) for i in range(combo.count())] == ["", "USB microphone", out.name]
    combo.setCurrentIndex(combo.findData(out.name))  # the output's own device
    assert settings.input_device == out.name
    assert not panel.headphones_check.isChecked()
    assert not ctl.start_live()
    title, text = w.last_message
    assert title == "Headphones needed" and "Microphone list" in text and asked == [out.name]
    assert not ctl.live and not len(w.session.takes)

    combo.setCurrentIndex(combo.findData("USB microphone"))  # another device: no echo, so it starts
    assert ctl.start_live() and asked[-1] == "USB microphone"
    assert not combo.isEnabled()  # not while listening
    ctl.stop()
    qtbot.waitUntil(lambda: w.session.takes[-1].state is not TakeState.STREAMING, timeout=60_000)
    assert combo.isEnabled()
    # Kept in the settings file; a new panel shows it (without listing devices), and a microphone that is
    # gone stays chosen, marked as not found, until another is picked.
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    assert store.value("audio/input") == "USB microphone"
    again = ConvertController(w.session, panel=ConvertPanel(), controls=w.controls, voices=w.voices_ctl,
                              input_devices=lambda: [])
    again.show_saved_microphone()
    assert again.panel.microphone == "USB microphone"
    again.refresh_microphones()
    assert again.panel.microphone == "USB microphone"
    assert again.panel.mic_combo.currentText() == "USB microphone (not found)"
