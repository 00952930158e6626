"""Voices you can edit (issue 14, problems 2 and 9): transcripts, language and notes saved into the voice
file; the recorder starts clean; clip checks at once with precise messages (an 8 kHz file refused when
chosen, a long clip's selection and its transcript, no transcript, the engine's error in the dialog);
a voice of the other model family made again once and saved; no torch on the GUI thread for the checks."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import SR, speechlike
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from app.audio import clip_checks
from app.main_window import MainWindow
from app.widgets.voice_panel import VoiceEditor
from cosycore.voices import load_voice

REPO = Path(__file__).resolve().parents[2]


def test_a_typed_transcript_is_saved_into_the_voice(qtbot, window: MainWindow, settings, recorded_chunks,
                                                    tiny_cv2_model: Path) -> None:
    from conftest import FakeEngine

    w = window
    w.voice_panel.transcript_edit.setText("The words really spoken.")
    w.voice_panel.transcript_edit.editingFinished.emit()  # leaving the field
    assert w.session.library.get("Tester").transcript == "The words really spoken."
    w.close()
    again = MainWindow(settings, model_dir=tiny_cv2_model, engine=FakeEngine(recorded_chunks))
    qtbot.addWidget(again)
    assert again.voice_panel.transcript == "The words really spoken."


def test_edit_transcript_language_and_notes(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    before = w.session.library.get("Tester")

    def fill(dialog: VoiceEditor) -> QDialog.DialogCode:
        assert dialog.transcript_edit.toPlainText() == before.transcript
        dialog.transcript_edit.setPlainText("Hello,   this is\nmy voice.")
        dialog.language_combo.setCurrentText("en")
        dialog.notes_edit.setPlainText("Recorded in the kitchen.")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(VoiceEditor, "exec", fill)
    w.voice_panel.edit_button.click()
    after = load_voice(w.session.library.list()[0].path)
    assert (after.transcript, after.language, after.notes) == ("Hello, this is my voice.", "en",
                                                             "Recorded in the kitchen.")
    assert np.array_equal(after.speech_tokens, before.speech_tokens) and after.created_at == before.created_at
    assert w.voice_panel.voice.notes == "Recorded in the kitchen." and "Saved the changes" in \
        w.statusBar().currentMessage()


def test_the_recorder_starts_clean(qtbot, window: MainWindow, null_audio) -> None:
    w = window
    rec = w.voices_ctl.open_recorder(speechlike(6.0), SR)
    rec.name_edit.setText("First")
    rec.transcript_edit.setText("First words.")
    rec.close()
    rec = w.voices_ctl.open_recorder()
    assert rec.name_edit.text() == "" and rec.transcript_edit.text() == "" and rec.trimmed().size == 0
    assert not rec.save_button.isEnabled()


def test_an_8_khz_file_is_refused_when_chosen(qtbot, window: MainWindow, tmp_path: Path) -> None:
    sf.write(tmp_path / "phone.wav", speechlike(5.0, sr=8000), 8000)
    assert not window.voices_ctl.voice_from_file(tmp_path / "phone.wav")
    assert "8000 Hz" in window.last_message[1] and "16 kHz" in window.last_message[1]
    assert window.voices_ctl.recorder is None or not window.voices_ctl.recorder.isVisible()


def test_a_long_clip_says_what_the_transcript_must_cover(qtbot, window: MainWindow) -> None:
    rec = window.voices_ctl.open_recorder(speechlike(60.0), SR)
    assert rec.problems == [] and rec.trimmed().shape[0] <= 30 * SR
    text = rec.messages.text()
    assert "60.0 s long" in text and "the transcript must cover exactly that part" in text
    rec.set_trim(10.0, 20.0)  # speech left out on both sides
    assert "leaves out some of the speech" in rec.messages.text() or "60.0 s long" in rec.messages.text()


def test_a_short_selection_says_which_part(qtbot, window: MainWindow) -> None:
    rec = window.voices_ctl.open_recorder(speechlike(12.0), SR)
    rec.transcript_edit.setText("Words.")
    rec.set_trim(2.0, 8.0)
    assert "(2.0–8.0 s) leaves out some of the speech" in rec.messages.text()


def test_the_engines_error_shows_in_the_recorder(qtbot, window: MainWindow) -> None:
    w = window
    rec = w.voices_ctl.open_recorder(speechlike(6.0), SR)
    rec.name_edit.setText("Broken")
    rec.set_saving(True)
    w.session.engine.voice_failed.emit(99, "The recording has no speech the tokenizer can use.")
    assert "no speech the tokenizer can use" in rec.messages.text() and "Making" not in rec.messages.text()
    assert rec.save_button.isEnabled()


def test_a_voice_of_the_other_family_is_made_again_once_and_saved(qtbot, window: MainWindow) -> None:
    w = window
    w.session.engine.family = "cosyvoice3"
    w.session.engine.load_model(w.session.model_info.model_dir)
    qtbot.waitUntil(lambda: w.session.model_info is not None and w.session.model_info.family == "cosyvoice3",
                    timeout=5000)
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Hello.")
    assert w.speaking_ctl.build_request().voice is None  # this take re-extracts from the audio
    w.speaking_ctl.build_request()
    assert w.session.engine.refreshed == ["Tester"]  # asked once
    qtbot.waitUntil(lambda: w.session.library.get("Tester").family == "cosyvoice3", timeout=5000)
    assert w.speaking_ctl.build_request().voice is not None and w.session.engine.refreshed == ["Tester"]


def test_clip_thresholds_match_the_engine() -> None:
    from cosycore.frontend import features, prompt

    assert clip_checks.MIN_SAMPLE_RATE == prompt.MIN_SAMPLE_RATE
    assert clip_checks.MAX_SECONDS == prompt.MAX_SECONDS
    assert clip_checks.CLIPPED_WARN_FRACTION == prompt.CLIPPED_WARN_FRACTION
    assert clip_checks.QUIET_WARN_DBFS == prompt.QUIET_WARN_DBFS
    assert clip_checks.CLIP_LEVEL == features.CLIP_LEVEL and clip_checks.SILENCE_DBFS == features.SILENCE_DBFS
    x = speechlike(5.0)
    stats = clip_checks.clip_stats(x, SR)
    engine = features.analyse_audio(x, SR)
    assert stats.rms_dbfs == pytest.approx(engine.rms_dbfs) and stats.clipped_fraction == engine.clipped_fraction


def test_the_recorder_needs_neither_torch_nor_librosa() -> None:
    code = ("import sys; from PySide6.QtWidgets import QApplication; app = QApplication([]);"
            "import numpy as np; from app.widgets.recorder import Recorder, check_recording;"
            "check_recording(np.ones(48000 * 4, np.float32) * 0.1, 48000);"
            "print(sorted(m for m in ('torch', 'librosa') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_typed_transcript_survives_switching_voices(qtbot, window: MainWindow) -> None:
    """Problem 2: a transcript typed into the main window, then another voice chosen with the mouse and
    the first one chosen again: the typed words are there, and in the voice file."""
    w = window
    w.session.library.add(replace(w.session.library.get("Tester"), name="Other", transcript="Other words."))
    panel = w.voice_panel
    panel.reload(select="Tester")
    qtbot.waitActive(w)
    edit = panel.transcript_edit
    qtbot.mouseClick(edit, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(edit.hasFocus, timeout=5000)
    qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(edit, "Words typed in the main window.")

    def click(name: str) -> None:
        items = [panel.list.item(i) for i in range(panel.list.count())]
        item = next(it for it in items if it.text().startswith(name + " "))
        qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton,
                         pos=panel.list.visualItemRect(item).center())
        qtbot.waitUntil(lambda: panel.voice is not None and panel.voice.name == name, timeout=5000)

    click("Other")
    assert panel.transcript == "Other words."
    click("Tester")
    assert panel.transcript == "Words typed in the main window."
    assert w.session.library.get("Tester").transcript == "Words typed in the main window."
    assert w.session.library.get("Other").transcript == "Other words."
