"""Transcribe (issue 15, part 3): the button in the voice panel, the voice editor and the recorder.

The tiny SenseVoice model runs through sherpa-onnx for real, off the GUI thread; its words are
random. Checked: the busy state, the words filling the field and saved into the voice (marked as
recognised), transcribe-once (later takes never run the recognizer), the missing model offering
the Models dialog on it, and errors shown in place.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SR, speechlike

from app.main_window import MainWindow
from app.widgets.models_dialog import ModelsDialog
from app.widgets.voice_panel import VoiceEditor
from app.worker.engine_thread import EngineThread
from app.worker.transcriber import Transcriber
from cosycore.asr import SenseVoice
from cosycore.voices import Voice

WAIT_MS = 60_000


def install_recognizer(settings, tiny_sensevoice: Path) -> Path:
    folder = settings.paths.data / "models" / "SenseVoice-Small"
    shutil.copytree(tiny_sensevoice, folder)
    return folder


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the recognizer's transcriptions (the real ones still run)."""
    calls: list[int] = []
    real = SenseVoice.transcribe

    def transcribe(self, samples, sample_rate, *, what: str = "the clip"):
        calls.append(threading.get_ident())
        return real(self, samples, sample_rate, what=what)

    monkeypatch.setattr(SenseVoice, "transcribe", transcribe)
    return calls


@pytest.fixture
def library_with_voice(library_with_voice, settings, tiny_engine_voice: Voice):
    """The conftest's library with a voice "Quiet" that has no transcript, chosen in the settings."""
    library_with_voice.add(replace(tiny_engine_voice, name="Quiet", transcript=""))
    settings.voice_name = "Quiet"
    return library_with_voice


@pytest.fixture
def window(window: MainWindow) -> MainWindow:
    """The conftest's window, showing the voice without a transcript."""
    assert window.voice_panel.voice.name == "Quiet"
    return window


def test_transcriber_runs_on_the_engine_thread(qtbot, tmp_path: Path, tiny_sensevoice: Path, counted) -> None:
    shutil.copytree(tiny_sensevoice, tmp_path / "models" / "SenseVoice-Small")
    engine = EngineThread()
    transcriber = Transcriber(engine, lambda: tmp_path / "models")
    try:
        assert transcriber.installed()
        with qtbot.waitSignal(transcriber.finished, timeout=WAIT_MS) as done:
            assert transcriber.transcribe("one", speechlike(2.0), SR)
            assert not transcriber.transcribe("one", speechlike(2.0), SR)  # the same job is not queued twice
        key, result = done.args
        assert key == "one" and result.text and result.language == "en"
        assert counted == [transcriber.last_thread] and counted[0] != threading.get_ident()
    finally:
        assert engine.shutdown()


def test_transcribe_fills_the_voice_and_takes_never_run_it_again(qtbot, window: MainWindow, settings,
                                                                 tiny_sensevoice: Path, counted) -> None:
    install_recognizer(settings, tiny_sensevoice)
    panel = window.voice_panel
    row = panel.transcribe_row
    assert row.isVisible() and row.button.isEnabled() and panel.transcript == ""
    row.button.click()
    assert not row.button.isEnabled() and row.button.text() == "Transcribing…"  # busy while it works
    qtbot.waitUntil(lambda: window.session.library.get("Quiet").transcript != "", timeout=WAIT_MS)
    saved = window.session.library.get("Quiet")
    assert saved.transcript_source == "asr" and saved.language == "en"
    qtbot.waitUntil(lambda: panel.transcript == saved.transcript, timeout=5000)  # shown for editing
    assert not row.isVisible() and "Saved the transcript" in window.statusBar().currentMessage()
    assert len(counted) == 1 and counted[0] != threading.get_ident()  # off the GUI thread

    window.controls.set_mode("zero_shot")
    window.editor.set_text("Hello there.")
    for _take in range(2):
        request = window.speaking_ctl.build_request()
        assert request is not None and request.voice.transcript == saved.transcript
        window.speaking_ctl.speak_request(request)
        qtbot.waitUntil(lambda: not window.session.engine.busy, timeout=WAIT_MS)
    assert len(counted) == 1  # the takes read the transcript from the voice file: no second recognition

    panel.transcript_edit.setText("Corrected words.")
    panel.transcript_edit.editingFinished.emit()
    corrected = window.session.library.get("Quiet")
    assert (corrected.transcript, corrected.transcript_source) == ("Corrected words.", "typed")


def test_without_the_model_transcribe_offers_the_models_dialog(qtbot, window: MainWindow,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    row = window.voice_panel.transcribe_row
    assert not row.transcribe()
    assert "not installed" in row.status.text() and row.get_model_button.isVisible()
    opened: list[ModelsDialog] = []
    monkeypatch.setattr(ModelsDialog, "exec", lambda self: opened.append(self) or 0)
    row.get_model_button.click()
    (dialog,) = opened
    assert dialog.asr_section.rows["sensevoice-small"].action.text() == "Download"
    assert "speech-recognition model" in dialog.status_label.text()


def test_a_damaged_model_is_said_in_place(qtbot, window: MainWindow, settings, tiny_sensevoice: Path) -> None:
    folder = install_recognizer(settings, tiny_sensevoice)
    (folder / "tokens.txt").write_text("<unk> 0\n", encoding="utf-8")
    row = window.voice_panel.transcribe_row
    row.button.click()
    qtbot.waitUntil(lambda: "damaged" in row.status.text(), timeout=WAIT_MS)
    assert "Download it again" in row.status.text() and row.button.isEnabled()
    assert window.session.library.get("Quiet").transcript == ""  # nothing was written


def test_the_voice_editor_transcribes_into_its_field(qtbot, window: MainWindow, settings,
                                                     tiny_sensevoice: Path, counted) -> None:
    install_recognizer(settings, tiny_sensevoice)
    voice = window.voice_panel.voice
    editor = VoiceEditor(voice, window, window.voices_ctl.transcriber)
    qtbot.addWidget(editor)
    assert not editor.transcribe_row.isHidden()
    editor.transcribe_row.button.click()
    qtbot.waitUntil(lambda: editor.transcript_edit.toPlainText() != "", timeout=WAIT_MS)
    values = editor.values()
    assert values["transcript_source"] == "asr" and values["language"] == "en"
    editor.transcript_edit.setPlainText("My own words.")
    assert "transcript_source" not in editor.values()  # edited: saved as typed
    typed = VoiceEditor(window.session.library.get("Tester"), window, window.voices_ctl.transcriber)
    qtbot.addWidget(typed)
    assert typed.transcribe_row.isHidden()  # a voice with a transcript is not offered Transcribe


def test_the_recorder_transcribes_the_clip_before_saving(qtbot, window: MainWindow, settings,
                                                         tiny_sensevoice: Path, null_audio, counted) -> None:
    install_recognizer(settings, tiny_sensevoice)
    recorder = window.voices_ctl.open_recorder(speechlike(5.0), SR)
    assert recorder.transcribe_row.isVisible()
    recorder.name_edit.setText("Fresh")
    recorder.transcribe_row.button.click()
    qtbot.waitUntil(lambda: recorder.transcript_edit.text() != "", timeout=WAIT_MS)
    words = recorder.transcript_edit.text()
    recorder.save_button.click()
    qtbot.waitUntil(lambda: "Fresh" in window.session.library, timeout=WAIT_MS)
    fresh = window.session.library.get("Fresh")
    assert (fresh.transcript, fresh.transcript_source) == (words, "asr") and len(counted) == 1
