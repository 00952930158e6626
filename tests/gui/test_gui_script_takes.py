"""Script takes end to end with the real engine on the tiny CosyVoice2 model: Speak in Script mode
streams the lines as one take with each speaker's lines marked on the waveform; the take, its script,
cast, seeds and marks come back after a restart; regenerating a line changes that line only (and Undo
swaps the versions); the export writes the audio, SRT/VTT cues with the speakers and one stem per
speaker; Stop ends a script take like any other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import open_engine_window

from app.main_window import MainWindow
from app.takes.take import Take, TakeState
from app.widgets.script_highlight import speaker_color
from cosycore.engine import AudioChunk
from cosycore.presets import find_preset
from cosycore.studio.take_folder import META_NAME

# the real engine thread, its tiny model loaded once for the module (tests/gui/conftest.py)
pytestmark = [pytest.mark.usefixtures("engine_per_module"), pytest.mark.real_engine]

SCRIPT = "Anna: Hello there.\nBen (emotion.happy): How are you?\n\nAnna: Fine, thanks.\n"
TOKENS = 12  # speech tokens per sentence: short lines, so the tiny model is quick


@pytest.fixture
def library_with_voice(library_with_voice, tiny_engine_voice):
    """The conftest's library ("Tester") with the same voice as "Owl" too."""
    library_with_voice.add(tiny_engine_voice.renamed("Owl"))
    return library_with_voice


def _window(qtbot, settings, model: Path) -> MainWindow:
    w = open_engine_window(qtbot, settings, model)
    w.script_ctl.max_tokens = TOKENS
    return w


@pytest.fixture
def window(window: MainWindow) -> MainWindow:
    """The conftest's window on the real engine, with short lines."""
    window.script_ctl.max_tokens = TOKENS
    return window


def _speak_script(qtbot, w: MainWindow, text: str = SCRIPT, seed: int = 5) -> Take:
    w.controls.set_mode("script")
    w.controls.set_seed(seed)
    w.editor.set_text(text)
    w.script_ctl.check()
    w.cast_table.set_voice("Anna", "Tester")
    w.cast_table.set_voice("Ben", "Owl")
    assert w.script_ctl.check() == []
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=240_000):
        assert w.speaking_ctl.speak() is not None
    take = w.session.takes[-1]
    assert take.state is TakeState.DONE and take.mode == "script"
    return take


def _line_spans(take: Take) -> dict[int, tuple[int, int]]:
    assert take.script is not None
    return {info.index: (a, b) for a, b, info in take.script.line_marks()}


def test_script_take_streams_with_marks_and_comes_back_after_restart(qtbot, window: MainWindow, settings,
                                                                     tiny_cv2_model: Path, null_audio: Path,
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    chunks: list[AudioChunk] = []
    w.session.engine.chunk_ready.connect(lambda rid, c: chunks.append(c))
    take = _speak_script(qtbot, w)
    info = take.script
    assert info is not None
    # Streamed: many chunks, each tagged with its segment; one take holding all of them.
    assert len(chunks) > 4 and all(c.script is not None for c in chunks)
    assert np.array_equal(take.audio(), np.concatenate([c.samples for c in chunks]))
    assert [(i.index, i.speaker, i.voice, i.text) for i in info.lines] == [
        (0, "Anna", "Tester", "Hello there."), (1, "Ben", "Owl", "How are you?"),
        (2, "Anna", "Tester", "Fine, thanks.")]
    assert [i.seed for i in info.lines] == [5, 6, 7] and info.base_seed == 5 and take.seed == 5
    happy = find_preset("emotion.happy", "cosyvoice2").text  # the preset id stands for its text
    assert info.lines[1].mode == "instruct" and info.lines[1].instruction == happy
    assert [s.kind for s in info.segments] == ["line", "gap", "line", "paragraph", "line"]
    assert info.segments[-1].end == take.samples
    assert all(a.end == b.start for a, b in zip(info.segments, info.segments[1:]))
    # Each line is a region in its speaker's colour, labelled with the name.
    sr = take.sample_rate
    expected = [(a / sr, b / sr, i.speaker) for a, b, i in info.line_marks()]
    qtbot.waitUntil(lambda: [(m.start, m.end, m.label) for m in w.waveform.drawn_marks()] == expected, timeout=5000)
    marks = w.waveform.drawn_marks()
    assert marks[0].color == marks[2].color == speaker_color(0).name() and marks[1].color == speaker_color(1).name()
    assert not np.any(take.audio()[info.segments[1].start:info.segments[1].end])  # the gap is silence

    # Export: the audio, cues with the speakers' names, and one stem per speaker of the take's length.
    assert w.export_ctl.export_script(take, tmp_path / "play", "wav_float", srt=True, vtt=True, stems=True)
    audio, rate = sf.read(tmp_path / "play.wav", dtype="float32")
    assert rate == sr and np.array_equal(audio, take.audio())
    srt = (tmp_path / "play.srt").read_text(encoding="utf-8")
    assert "Anna: Hello there." in srt and "Ben: How are you?" in srt and srt.count(" --> ") == 3
    vtt = (tmp_path / "play.vtt").read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT") and "<v Ben>How are you?" in vtt
    anna, _ = sf.read(tmp_path / "play stems" / "anna.wav", dtype="float32")
    ben, _ = sf.read(tmp_path / "play stems" / "ben.wav", dtype="float32")
    assert anna.shape == ben.shape == audio.shape and np.array_equal(anna + ben, audio)
    a, b = _line_spans(take)[1]
    assert np.array_equal(ben[a:b], audio[a:b]) and not np.any(anna[a:b]) and not np.any(ben[:a])

    # The dialog: files that exist are replaced only after asking; the export runs on a worker thread.
    from PySide6.QtWidgets import QMessageBox

    from app.widgets.script_export_dialog import ScriptExportDialog

    asked: list[str] = []
    answer = [QMessageBox.StandardButton.No]

    def exec_dialog(dialog: ScriptExportDialog) -> bool:
        dialog.path_edit.setText(str(tmp_path / "play.wav"))
        dialog.stems_check.setChecked(True)
        return True

    def question(parent, title, text, *args):
        asked.append(text)
        return answer[0]

    monkeypatch.setattr(ScriptExportDialog, "exec", exec_dialog)
    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    (tmp_path / "play.srt").write_text("mine", encoding="utf-8")
    w.export_ctl.script_export_dialog(take)
    assert len(asked) == 1 and "play.srt" in asked[0] and "anna.wav" in asked[0]
    assert (tmp_path / "play.srt").read_text(encoding="utf-8") == "mine"  # not replaced: the answer was No
    answer[0] = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(w.export_ctl.finished, timeout=60_000) as exported:
        w.export_ctl.script_export_dialog(take)
    assert exported.args == [True] and (tmp_path / "play.srt").read_text(encoding="utf-8") == srt
    assert (tmp_path / "play.vtt").read_text(encoding="utf-8") == vtt  # not asked for this time: left as it was

    # Restart: the take, its script, cast, seeds and marks come back from disk.
    original = take.audio().copy()
    w.close()
    again = _window(qtbot, settings, tiny_cv2_model)
    try:
        restored = again.session.takes[-1]
        assert restored.uid == take.uid and restored.script is not None
        assert np.array_equal(restored.audio(), original)
        assert restored.script.to_json() == info.to_json()
        qtbot.waitUntil(lambda: again.session.shown_take is restored, timeout=5000)
        qtbot.waitUntil(lambda: [(m.start, m.end, m.label) for m in again.waveform.drawn_marks()] == expected,
                        timeout=5000)
        assert again.controls.mode == "script"
        assert [(e.name, e.voice) for e in again.cast_table.entries()] == [("Anna", "Tester"), ("Ben", "Owl")]
    finally:
        again.close()


def test_regenerate_a_line_changes_only_that_line_and_undo_swaps(qtbot, window: MainWindow, settings,
                                                                 tiny_cv2_model: Path, null_audio: Path) -> None:
    w = window
    take = _speak_script(qtbot, w)
    old_audio = take.audio().copy()
    old_spans = _line_spans(take)
    old_info = take.script
    assert old_info is not None
    folder = w.session.store.folder(take)

    w.regen_ctl.dialog(take, 1)  # the dialog offers the line and its next seed; Regenerate speaks it
    dialog = w.regen_ctl.dialog_shown
    assert dialog is not None and dialog.isVisible() and dialog.index == 1 and dialog.seed == 7
    dialog.seed_spin.setValue(99)
    with qtbot.waitSignal(w.regen_ctl.finished, timeout=240_000) as done:
        dialog.accept()
    assert done.args == [True]
    info = take.script
    assert info is not None and info is not old_info
    new_audio = take.audio()
    new_spans = _line_spans(take)
    # The other lines are kept sample for sample (they moved if the new line is longer or shorter).
    for k in (0, 2):
        (a, b), (c, d) = old_spans[k], new_spans[k]
        assert np.array_equal(new_audio[c:d], old_audio[a:b])
    # The regenerated line is another one, spoken with the new seed, and crossfaded at its seams.
    (a, b), (c, d) = old_spans[1], new_spans[1]
    assert not (b - a == d - c and np.array_equal(new_audio[c:d], old_audio[a:b]))
    assert info.line(1).seed == 99 and info.line(0).seed == 5
    assert info.segments[2].spliced and not info.segments[0].spliced
    # Outside the lines there is only silence, apart from the fades of the new line into its neighbours.
    silent = np.ones(new_audio.shape[0], bool)
    for a, b in new_spans.values():
        silent[a:b] = False
    assert not np.any(new_audio[silent])
    assert new_audio.shape[0] == info.segments[-1].end
    # Saved as a new version; the previous one is kept for Undo.
    meta = (folder / META_NAME).read_text(encoding="utf-8")
    assert take.audio_file != "audio.f32" and take.audio_file in meta
    assert (folder / take.audio_file).is_file() and (folder / "audio.f32").is_file()
    assert np.array_equal(np.fromfile(folder / take.audio_file, "<f4"), new_audio)
    marks = [(m.start, m.end) for m in w.waveform.marks]
    assert marks == [(a / take.sample_rate, b / take.sample_rate) for a, b in new_spans.values()]

    # Undo puts the previous version back; Undo again the new one.
    regenerated = new_audio.copy()
    assert w.regen_ctl.undo(take)
    assert np.array_equal(take.audio(), old_audio) and take.script.line(1).seed == 6
    assert w.regen_ctl.undo(take)
    assert np.array_equal(take.audio(), regenerated) and take.script.line(1).seed == 99

    # A second regeneration: the version before the first is no longer needed and its file goes.
    with qtbot.waitSignal(w.regen_ctl.finished, timeout=240_000) as done:
        w.regen_ctl.regenerate(take, 0, keep_instruction=False, instruction="Please speak very slowly.")
    assert done.args == [True]
    assert take.script.line(0).mode == "instruct" and take.script.line(0).seed == 6  # 5 + 1: another seed
    assert not (folder / "audio.f32").exists()
    spans = _line_spans(take)
    c, d = spans[1]
    e, f = new_spans[1]
    # line 1's own samples (kept in their file) are unchanged by regenerating line 0
    assert np.array_equal(take.audio()[c:d], regenerated[e:f])
    after = take.audio().copy()
    w.close()
    again = _window(qtbot, settings, tiny_cv2_model)
    try:
        restored = again.session.takes[-1]
        assert np.array_equal(restored.audio(), after) and restored.previous_version is not None
        assert again.regen_ctl.undo(restored) and np.array_equal(restored.audio(), regenerated)
    finally:
        again.close()


def test_stop_ends_a_script_take_with_what_it_holds(qtbot, window: MainWindow, null_audio: Path) -> None:
    w = window
    w.controls.set_mode("script")
    w.editor.set_text("Anna: One line.\nAnna: Another line.\nAnna: A third line.\nAnna: And a fourth.\n")
    w.script_ctl.check()
    w.cast_table.set_voice("Anna", "Tester")
    got: list[AudioChunk] = []
    w.session.engine.chunk_ready.connect(lambda rid, c: got.append(c))
    w.speaking_ctl.speak()
    qtbot.waitUntil(lambda: len(got) >= 1, timeout=120_000)
    with qtbot.waitSignal(w.session.engine.synthesis_cancelled, timeout=120_000):
        w.speaking_ctl.stop()
    take = w.session.takes[-1]
    assert take.state is TakeState.CANCELLED and take.script is not None
    assert take.script.segments and take.script.segments[-1].end == take.samples
    assert len(take.script.spoken_lines()) < 4
