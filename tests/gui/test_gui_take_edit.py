"""Edit and export (issue 25, item 6): trim and fades from the original audio, which is kept (reset brings it
back, also after a restart); loudness normalisation to -16 LUFS; MP3 and Ogg Vorbis export; export of every
take at once, never replacing a file unasked; a take stopped on purpose exports whole, not "partial"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import SR, speechlike
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from app.main_window import MainWindow
from app.takes import edit as take_edit
from app.takes.take import SentenceSpan, Take, TakeState


def _make_take(qtbot, w: MainWindow, text: str = "Hello there. How are you today?") -> Take:
    w.controls.set_mode("cross_lingual")
    w.editor.set_text(text)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    return w.session.takes[-1]


def test_trim_fade_and_spans() -> None:
    audio = np.ones(SR * 2, np.float32) * 0.5
    spans = [SentenceSpan(0, "a", 0.0, 1.0), SentenceSpan(1, "b", 1.0, 2.0)]
    edit = take_edit.TakeEdit(start=0.5, end=1.5, fade_in=0.1, fade_out=0.1)
    y, seams, new_spans = take_edit.apply(edit, audio, SR, [SR], spans)
    assert y.shape[0] == SR and seams == [SR // 2]
    assert y[0] == 0.0 and y[-1] == 0.0 and y[SR // 2] == pytest.approx(0.5)
    assert [(s.start, s.end) for s in new_spans] == [(0.0, 0.5), (0.5, 1.0)]
    with pytest.raises(take_edit.EditError, match="keeps nothing"):
        take_edit.apply(take_edit.TakeEdit(start=1.9, end=1.0), audio, SR, [], [])


def test_normalise_reaches_minus_16_lufs_and_keeps_peaks_down() -> None:
    quiet = speechlike(3.0, level=0.05)
    out = take_edit.normalise(quiet, SR)
    assert take_edit.loudness(out, SR) == pytest.approx(take_edit.TARGET_LUFS, abs=0.1)
    loud_peaky = speechlike(3.0, level=0.05)
    loud_peaky[100] = 1.0  # one click: the gain stops at the peak ceiling
    out = take_edit.normalise(loud_peaky, SR)
    assert np.max(np.abs(out)) <= 10 ** (take_edit.PEAK_CEILING_DB / 20) + 1e-6
    assert np.array_equal(take_edit.normalise(np.zeros(SR, np.float32), SR), np.zeros(SR, np.float32))
    with pytest.raises(take_edit.EditError, match="shorter"):
        take_edit.loudness(np.zeros(100, np.float32), SR)


def test_edit_dialog_trims_keeps_the_original_and_resets_after_a_restart(
        qtbot, window: MainWindow, settings, recorded_chunks, tiny_cv2_model: Path) -> None:
    from conftest import FakeEngine, open_window

    w = window
    take = _make_take(qtbot, w)
    original = take.audio().copy()
    w.activateWindow()
    w.takes_view.list.setFocus()
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    dialog = w.take_tools.edit_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.start_box.setValue(0.1)
    dialog.end_box.setValue(round(take.duration - 0.1, 2))
    dialog.fade_in_box.setValue(0.05)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert take.duration == pytest.approx(original.shape[0] / SR - 0.2, abs=0.02)
    start = round(0.1 * SR)
    assert take.audio()[0] == 0.0  # faded in
    assert np.array_equal(take.audio()[SR // 10: SR // 5], original[start + SR // 10: start + SR // 5])
    assert w.session.shown_take is take and w.waveform is not None
    w.close()

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    back = again.session.takes[-1]
    assert back.duration == pytest.approx(take.duration) and back.edit is not None
    dialog = again.take_tools.open_edit_dialog(back)
    assert dialog is not None and dialog.start_box.value() == pytest.approx(0.1)
    qtbot.mouseClick(dialog.reset_button, Qt.MouseButton.LeftButton)
    assert np.array_equal(back.audio(), original) and back.edit is None
    folder = settings.paths.data / "takes" / back.uid
    assert sorted(p.name for p in folder.glob("*.f32")) == ["audio.f32"]  # the edited version's file is gone


def test_normalise_in_the_dialog(qtbot, window: MainWindow) -> None:
    take = _make_take(qtbot, window)
    dialog = window.take_tools.open_edit_dialog(take)
    assert dialog is not None
    qtbot.mouseClick(dialog.normalise_check, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert take_edit.loudness(take.audio(), SR) == pytest.approx(-16.0, abs=0.2) or \
        np.max(np.abs(take.audio())) == pytest.approx(10 ** (take_edit.PEAK_CEILING_DB / 20), rel=1e-3)
    assert "LUFS" in dialog.loudness_label.text()


@pytest.mark.parametrize("fmt, container", [("mp3", "MP3"), ("ogg", "OGG")])
def test_mp3_and_ogg_export(qtbot, window: MainWindow, tmp_path: Path, fmt: str, container: str) -> None:
    take = _make_take(qtbot, window)
    path = tmp_path / f"take.{fmt}"
    assert window.export_ctl.export(take, path, fmt)
    info = sf.info(path)
    assert info.format == container and info.samplerate == SR
    assert abs(info.frames - take.samples) < SR // 10
    assert sf.SoundFile(path).title.startswith("Hello there")


def test_export_all_takes_writes_each_and_replaces_nothing_unasked(qtbot, window: MainWindow, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    _make_take(qtbot, w, "First one.")
    _make_take(qtbot, w, "Second one.")
    w.activateWindow()
    qtbot.keyClick(w, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = w.take_tools.export_dialog
    assert dialog is not None and dialog.isVisible()
    out = tmp_path / "all"
    dialog.folder_edit.setText(str(out))
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("ogg"))
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    with qtbot.waitSignal(w.take_tools.export_all_finished, timeout=10_000) as done:
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert sorted(p.name for p in out.iterdir()) == ["01 First one.ogg", "02 Second one.ogg"]
    assert [p.name for p in done.args[0]] == ["01 First one.ogg", "02 Second one.ogg"]
    before = (out / "01 First one.ogg").read_bytes()
    (out / "01 First one.ogg").write_bytes(b"mine")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    dialog = w.take_tools.open_export_all_dialog()
    assert dialog is not None
    dialog.folder_edit.setText(str(out))
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("ogg"))
    with qtbot.waitSignal(w.take_tools.export_all_finished, timeout=10_000) as done:
        dialog.accept()
    assert done.args[0] == [] and (out / "01 First one.ogg").read_bytes() == b"mine"
    assert before != b"mine"


def test_a_take_stopped_on_purpose_exports_whole_not_partial(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.session.engine.interval_ms = 200
    w.editor.set_text("Hello there. How are you today?")
    w.speaking_ctl.speak()
    take = w.session.takes[-1]
    qtbot.waitUntil(lambda: take.chunk_count >= 2, timeout=5000)
    with qtbot.waitSignal(w.session.engine.synthesis_cancelled, timeout=5000):
        qtbot.keyClick(w, Qt.Key.Key_Escape)
    assert take.state is TakeState.CANCELLED
    assert w.export_ctl.export(take, tmp_path / "stopped.wav")
    assert not take.exported_partial and "partial" not in w.takes_view.list.item(0).text()
    assert "partial" not in w.statusBar().currentMessage()
