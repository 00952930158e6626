"""The voice panel (library on disk: add, rename, delete, import, export, transcript, waveform) and
the recorder (microphone on the null device, checks, 3-30 s limits, trimming, saving a voice)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import MIC, MIC_RATE, SR, mic_input, speechlike
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox

from app.audio.playback import Player
from app.main_window import MainWindow
from app.widgets.recorder import MAX_SECONDS, Recorder, check_recording, speech_span
from app.widgets.voice_panel import VoicePanel
from cosycore.voices import VoiceLibrary, load_voice


@pytest.fixture
def panel(qtbot, library_with_voice: VoiceLibrary) -> VoicePanel:
    p = VoicePanel(library_with_voice)
    qtbot.addWidget(p)
    p.show()
    return p


def test_panel_shows_the_library(qtbot, panel: VoicePanel, tiny_engine_voice) -> None:
    assert panel.names() == ["Tester"]
    assert panel.voice == tiny_engine_voice
    assert panel.transcript == "Hello, this is my test voice."
    assert panel.waveform.duration == pytest.approx(tiny_engine_voice.duration)
    assert "4.0 s" in panel.list.item(0).text() and "CV2" in panel.list.item(0).text()


def test_add_rename_delete(qtbot, panel: VoicePanel, tiny_engine_voice, monkeypatch: pytest.MonkeyPatch) -> None:
    changes = []
    panel.voice_changed.connect(changes.append)
    info = panel.add_voice(tiny_engine_voice.renamed("Anna"))
    assert panel.names() == ["Anna", "Tester"] and panel.voice.name == "Anna" and info.path.is_file()
    assert changes[-1].name == "Anna"
    assert panel.add_voice(tiny_engine_voice).name == "Tester (2)"  # names stay unique
    panel.select("Anna")
    assert panel.rename_current("Bob")
    assert panel.names() == ["Bob", "Tester", "Tester (2)"] and panel.voice.name == "Bob"
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    assert not panel.rename_current("Tester")  # taken by another voice
    assert shown and "already exists" in shown[0]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    panel.delete_button.click()
    assert panel.names() == ["Tester", "Tester (2)"] and not (panel.library.root / "bob.cosyvoice").exists()


def test_export_and_import(qtbot, panel: VoicePanel, tmp_path: Path, tiny_engine_voice,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert panel.export_to(tmp_path / "shared")
    exported = tmp_path / "shared.cosyvoice"
    assert load_voice(exported) == tiny_engine_voice
    panel.delete_current()
    assert panel.names() == [] and panel.voice is None and not panel.export_button.isEnabled()
    assert panel.import_files([exported])[0].name == "Tester"
    assert panel.voice == tiny_engine_voice
    broken = tmp_path / "broken.cosyvoice"
    broken.write_bytes(b"not a zip")
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    assert panel.import_files([broken]) == []
    assert shown and "broken.cosyvoice" in shown[0]


def test_listen_requests_playback(qtbot, panel: VoicePanel, tiny_engine_voice) -> None:
    with qtbot.waitSignal(panel.play_requested) as blocker:
        qtbot.mouseClick(panel.play_button, Qt.MouseButton.LeftButton)
    assert np.array_equal(blocker.args[0], tiny_engine_voice.audio_24k) and blocker.args[1] == SR


def test_recording_checks() -> None:
    assert check_recording(speechlike(5.0), SR) == ([], [])
    problems, _ = check_recording(speechlike(2.0), SR)
    assert any("at least 3 s" in p for p in problems)
    problems, _ = check_recording(np.zeros(SR * 5, np.float32), SR)
    assert any("silent" in p for p in problems)
    _, warnings = check_recording(speechlike(5.0, level=0.01), SR)
    assert any("low" in w for w in warnings)
    loud = np.clip(speechlike(5.0, level=3.0), -1, 1)
    _, warnings = check_recording(loud, SR)
    assert any("clipped" in w for w in warnings)


@pytest.fixture
def recorder(qtbot, settings, null_audio) -> Recorder:
    r = Recorder(Player(), settings)
    qtbot.addWidget(r)
    r.show()
    return r


def test_record_on_the_null_device(qtbot, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # The levels the meter showed while recording: its timer sees whichever blocks have arrived, and the
    # speech-like microphone has pauses, so the last block alone may be quiet; the loudest must not be.
    shown: list[float] = []
    set_block = recorder.meter.set_block

    def record_level(rms: float, peak: float) -> None:
        set_block(rms, peak)
        shown.append(recorder.meter.rms_db)

    monkeypatch.setattr(recorder.meter, "set_block", record_level)
    assert recorder.has_microphone and recorder.mic_combo.count() >= 1
    assert recorder.start_recording()
    assert recorder.recording and recorder.record_button.text() == "Stop"
    assert not recorder.save_button.isEnabled()
    # The null device has no clock: it delivers blocks as fast as they are read, so the 30 s limit
    # is reached within moments and the recording stops by itself.
    with qtbot.waitSignal(recorder.recording_finished, timeout=20_000):
        pass
    assert not recorder.recording and recorder.sample_rate == MIC_RATE
    mic = np.fromfile(MIC, dtype=np.float32)
    assert np.array_equal(recorder.trimmed(), mic[: int(MAX_SECONDS * MIC_RATE)])  # exactly what the mic gave
    assert recorder.settings.input_device == recorder.mic_combo.currentData()
    assert recorder.problems == [] and recorder.save_button.isEnabled()
    assert shown and max(shown) > -30  # the speech-like mic: about -22 dBFS RMS overall, -15 in syllables


def test_silent_microphone_is_refused(qtbot, recorder: Recorder) -> None:
    mic_input(np.zeros(int(MAX_SECONDS * MIC_RATE) + MIC_RATE, np.float32))
    assert recorder.start_recording()
    with qtbot.waitSignal(recorder.recording_finished, timeout=20_000):
        pass
    assert any("silent" in p for p in recorder.problems)
    assert "silent" in recorder.messages.text() and not recorder.save_button.isEnabled()


def test_stop_early_is_too_short(qtbot, recorder: Recorder) -> None:
    # The null device's microphone has no clock and may deliver seconds of the file at once: a 1 s
    # clip (the silence around it is trimmed) keeps the recording short however fast it arrives.
    mic_input(speechlike(1.0, sr=MIC_RATE))
    assert recorder.start_recording()
    recorder.stop_recording()
    assert any("at least 3 s" in p for p in recorder.problems)


def test_the_default_trim_drops_leading_and_trailing_silence(qtbot, recorder: Recorder) -> None:
    rate = 48000
    speech = speechlike(4.0, sr=rate)
    audio = np.concatenate([np.zeros(rate, np.float32), speech, np.zeros(20 * rate, np.float32)])
    assert speech_span(audio, rate) == pytest.approx((1.0 - 0.2, 5.0 + 0.2), abs=0.03)
    recorder.set_audio(audio, rate)
    lo, hi = recorder.region.getRegion()
    assert (lo, hi) == pytest.approx((0.8, 5.2), abs=0.03)
    assert recorder.problems == [] and "4.4 s" in recorder.time_label.text()
    # Nothing but silence, or speech everywhere: the full length stays selected.
    assert speech_span(np.zeros(5 * rate, np.float32), rate) == (0.0, 5.0)
    assert speech_span(speech, rate) == (0.0, 4.0)
    # Longer speech than a voice may hold: the trim starts at the speech and stops at the limit.
    long = np.concatenate([np.zeros(2 * rate, np.float32), speechlike(40.0, sr=rate)])
    recorder.set_audio(long, rate)
    lo, hi = recorder.region.getRegion()
    assert lo == pytest.approx(1.8, abs=0.03) and hi - lo == pytest.approx(MAX_SECONDS)


def test_trim_play_and_save(qtbot, recorder: Recorder, null_audio) -> None:
    audio = speechlike(12.0, sr=48000)
    recorder.set_audio(audio, 48000)
    assert recorder.problems == [] and "No transcript" in recorder.messages.text()  # a warning; saving is allowed
    assert recorder.save_button.isEnabled()
    qtbot.keyClicks(recorder.transcript_edit, "Words.")
    assert "looks good" in recorder.messages.text()
    recorder.transcript_edit.clear()
    recorder.set_trim(2.0, 4.0)  # 2 s: too short
    assert not recorder.save_button.isEnabled() and "at least 3 s" in recorder.messages.text()
    recorder.set_trim(2.0, 8.0)
    assert recorder.save_button.isEnabled()
    assert np.array_equal(recorder.trimmed(), audio[96000:384000])
    assert "6.0 s" in recorder.time_label.text()
    with qtbot.waitSignal(recorder.player.playback_finished, timeout=20_000):
        qtbot.mouseClick(recorder.play_button, Qt.MouseButton.LeftButton)
    recorder.save_button.click()
    assert "name" in recorder.messages.text()  # a name is required
    recorder.name_edit.setText("Trimmed")
    recorder.transcript_edit.setText("Words.")
    with qtbot.waitSignal(recorder.save_requested) as blocker:
        recorder.save_button.click()
    saved, rate, name, transcript = blocker.args
    assert np.array_equal(saved, audio[96000:384000]) and rate == 48000
    assert (name, transcript) == ("Trimmed", "Words.")


def test_no_microphone(qtbot, settings, no_audio_device) -> None:
    r = Recorder(Player(), settings)
    qtbot.addWidget(r)
    assert not r.has_microphone and not r.record_button.isEnabled()
    assert not r.start_recording()
    r.set_audio(speechlike(5.0), SR)  # a file still works
    assert r.save_button.isEnabled() and not r.play_button.isEnabled()  # nothing to play it on


def test_saving_a_recording_adds_a_voice(qtbot, settings, fake_engine, library_with_voice, null_audio,
                                         tiny_cv2_model: Path) -> None:
    w = MainWindow(settings, model_dir=tiny_cv2_model, engine=fake_engine)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.session.model_info is not None, timeout=5000)
    rec = w.voices_ctl.open_recorder(speechlike(6.0), SR)
    assert rec.isVisible()
    rec.name_edit.setText("From the mic")
    rec.transcript_edit.setText("What I said.")
    rec.save_button.click()
    qtbot.waitUntil(lambda: "From the mic" in w.voice_panel.names(), timeout=5000)
    assert w.voice_panel.voice.name == "From the mic" and w.voice_panel.transcript == "What I said."
    assert "Saved as" in rec.messages.text()
    assert (settings.paths.voices / "from_the_mic.cosyvoice").is_file()


def test_the_menu_and_its_shortcut_open_an_empty_recorder(qtbot, settings, fake_engine, library_with_voice, null_audio,
                                                          tiny_cv2_model: Path) -> None:
    """Voice > Record a voice… (Ctrl+R): the action's `checked` flag must not reach the recorder as audio."""
    w = MainWindow(settings, model_dir=tiny_cv2_model, engine=fake_engine)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.session.model_info is not None, timeout=5000)
    action = next(a for a in w.findChildren(QAction) if a.shortcut() == QKeySequence("Ctrl+R"))
    action.trigger()
    rec = w.findChild(Recorder)
    assert rec is not None and rec.isVisible()
    assert not rec.save_button.isEnabled()  # nothing recorded yet
    rec.close()
    w.voice_panel.record_button.click()
    assert rec.isVisible()


def test_voice_from_a_file_opens_the_recorder(qtbot, settings, fake_engine, library_with_voice, tmp_path: Path,
                                              tiny_cv2_model: Path) -> None:
    import soundfile as sf

    w = MainWindow(settings, model_dir=tiny_cv2_model, engine=fake_engine)
    qtbot.addWidget(w)
    stereo = np.stack([speechlike(5.0, sr=22050), speechlike(5.0, sr=22050, seed=1)], axis=1)
    sf.write(tmp_path / "anna.wav", stereo, 22050)
    assert w.voices_ctl.voice_from_file(tmp_path / "anna.wav")
    rec = w.voices_ctl.recorder
    assert rec.name_edit.text() == "anna" and rec.sample_rate == 22050
    assert rec.trimmed().shape[0] == stereo.shape[0]
    (tmp_path / "bad.wav").write_bytes(b"RIFF nonsense")
    assert not w.voices_ctl.voice_from_file(tmp_path / "bad.wav")
    assert "bad.wav" in w.last_message[0]
