"""Projects (issue 25, item 3), through keys and clicks: a take made, Save as (Ctrl+Shift+S), quit, the
project reopened from File › Open recent with each mode's text, the script, the cast, the instruction and
the takes back; an existing session opens as Untitled with nothing lost; leaving a modified project asks
Save / Don't save / Cancel; a newer, damaged or missing project and a missing voice are told, not crashed on."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import ARMED_QUESTIONS
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QProgressDialog,
    QPushButton,
)

import app.controllers.projects as projects_module
import app.project
from app.main_window import MainWindow
from app.project import PROJECT_VERSION, load_project
from app.takes.take import Take

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def _make_take(qtbot, w: MainWindow, text: str, mode: str = "cross_lingual") -> Take:
    w.controls.set_mode(mode)
    w.editor.set_text(text)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    return w.session.takes[-1]


def _keys(qtbot, w: MainWindow, key: Qt.Key, modifiers=CTRL) -> None:
    w.activateWindow()
    qtbot.waitActive(w)
    qtbot.keyClick(w.editor.edit, key, modifiers)


def _choose_save_path(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))


def _answer(qtbot, button: QMessageBox.StandardButton, seen: list[str]) -> None:
    """Click ``button`` of the next message box (once it is shown), noting its text."""
    ARMED_QUESTIONS.append(1)
    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        seen.append(box.text())
        qtbot.mouseClick(box.button(button), Qt.MouseButton.LeftButton)
    QTimer.singleShot(0, click)


def _modified(w: MainWindow) -> bool:
    w.projects_ctl.check_modified()
    return w.isWindowModified()


def test_save_as_quit_and_reopen_from_recent(qtbot, window: MainWindow, settings, recorded_chunks,
                                             tiny_cv2_model: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import FakeEngine, open_window

    w = window
    assert w.windowTitle().startswith("Untitled") and not w.isWindowModified()
    take = _make_take(qtbot, w, "A take for the book.")
    w.controls.set_mode("zero_shot")
    w.editor.set_text("Clone text.")
    w.controls.set_mode("script")
    w.editor.set_text("Anna: Hello there.\nBen: Hi Anna.")
    qtbot.waitUntil(lambda: "Anna" in w.cast_table.names(), timeout=3000)
    w.cast_table.set_voice("Anna", "Tester")
    w.controls.instruct_edit.setText("Speak warmly.")
    cast = [e.to_json() for e in w.cast_table.entries()]

    _choose_save_path(monkeypatch, tmp_path / "My Book")
    _keys(qtbot, w, Qt.Key.Key_S, CTRL | SHIFT)
    path = tmp_path / "My Book" / "My Book.cosyproj"
    qtbot.waitUntil(path.exists, timeout=3000)
    assert w.windowTitle().startswith("My Book") and not _modified(w)
    copied = tmp_path / "My Book" / "takes" / take.uid
    assert np.array_equal(np.fromfile(copied / "audio.f32", dtype="<f4"), take.audio())
    assert (settings.paths.data / "takes" / take.uid / "audio.f32").exists()  # the original stays
    assert [t.text for t in w.session.takes] == ["A take for the book."]
    saved = load_project(path)
    assert saved.voices and saved.voices[0].name == "Tester" and len(saved.voices[0].sha256) == 64

    w.editor.set_text("Anna: Hello there, again.\nBen: Hi Anna.")
    assert _modified(w)
    _keys(qtbot, w, Qt.Key.Key_S)  # Ctrl+S
    assert not _modified(w)
    assert load_project(path).state.texts["script"].startswith("Anna: Hello there, again.")

    w.project_menu.close_action.trigger()  # back to Untitled, as it was left
    assert w.windowTitle().startswith("Untitled") and w.editor.text() == "Anna: Hello there.\nBen: Hi Anna."
    assert [t.uid for t in w.session.takes] == [take.uid]
    _keys(qtbot, w, Qt.Key.Key_Q)
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=5000)

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert again.windowTitle().startswith("Untitled")
    recent = again.project_menu.recent_menu
    recent.aboutToShow.emit()
    entry = next(a for a in recent.actions() if a.text().startswith("My Book"))
    assert entry.isEnabled()
    entry.trigger()
    assert again.windowTitle().startswith("My Book") and not _modified(again)
    assert again.controls.mode == "script"
    assert again.editor.text() == "Anna: Hello there, again.\nBen: Hi Anna."
    assert [e.to_json() for e in again.cast_table.entries()] == cast
    assert again.controls.instruct_edit.text() == "Speak warmly."
    again.controls.set_mode("zero_shot")
    assert again.editor.text() == "Clone text."
    again.controls.set_mode("cross_lingual")
    assert again.editor.text() == "A take for the book."
    assert [(t.uid, t.text) for t in again.session.takes] == [(take.uid, "A take for the book.")]
    assert np.array_equal(again.session.takes[0].audio(), take.audio())
    # A take made now is written into the project's folder.
    new = _make_take(qtbot, again, "Made in the project.")
    assert (tmp_path / "My Book" / "takes" / new.uid / "take.json").exists()
    assert not (settings.paths.data / "takes" / new.uid).exists()
    again.editor.set_text("A take for the book.")
    again.controls.set_mode("script")  # the texts as saved; the new take is still unsaved work
    again.controls.instruct_edit.setText("Speak warmly.")
    qtbot.waitUntil(lambda: "Anna" in again.cast_table.names(), timeout=3000)
    assert _modified(again)
    assert again.projects_ctl.save() and not _modified(again)


def test_an_existing_session_opens_as_untitled_with_nothing_lost(qtbot, settings, fake_engine, library_with_voice,
                                                                 tiny_cv2_model: Path) -> None:
    from conftest import open_window

    data = settings.paths.data
    data.mkdir(parents=True, exist_ok=True)
    # Exactly what the app wrote before projects existed.
    (data / "session.json").write_text(json.dumps({"text": "Instruct text.", "instruction": "Calm.", "cast": []}),
                                       encoding="utf-8")
    (data / "mode_texts.json").write_text(json.dumps({"version": 1, "mode": "instruct",
                                                      "texts": {"zero_shot": "Clone text."}}), encoding="utf-8")
    settings.mode = "instruct"
    settings.sync()
    w = open_window(qtbot, settings, fake_engine, tiny_cv2_model)
    assert w.windowTitle().startswith("Untitled") and not w.isWindowModified()
    assert w.editor.text() == "Instruct text." and w.controls.instruct_edit.text() == "Calm."
    w.controls.set_mode("zero_shot")
    assert w.editor.text() == "Clone text."
    assert not w.project_menu.close_action.isEnabled()


def test_leaving_a_modified_project_asks(qtbot, window: MainWindow, settings, recorded_chunks, tiny_cv2_model: Path,
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import FakeEngine, open_window

    w = window
    w.controls.set_mode("instruct")
    w.editor.set_text("Saved words.")
    _choose_save_path(monkeypatch, tmp_path / "Asks")
    assert w.projects_ctl.save_as()
    w.editor.set_text("Unsaved words.")
    qtbot.waitUntil(lambda: w.isWindowModified(), timeout=3000)

    seen: list[str] = []
    _answer(qtbot, QMessageBox.StandardButton.Cancel, seen)
    w.close()
    assert seen and "Asks" in seen[0]
    assert w.isVisible() and w.editor.text() == "Unsaved words."  # Cancel: still open, nothing changed

    _answer(qtbot, QMessageBox.StandardButton.Discard, seen)
    w.close()
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=5000)

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert again.windowTitle().startswith("Asks")  # the project open at quit comes back
    assert again.editor.text() == "Saved words." and not _modified(again)  # Don't save: as saved

    # Save from the question, while opening another project (Ctrl+O).
    other = tmp_path / "Other" / "Other.cosyproj"
    again.projects_ctl.save_to(other)  # a second project to open
    again.editor.set_text("Other's words.")
    assert again.projects_ctl.save()
    assert again.projects_ctl.open(tmp_path / "Asks" / "Asks.cosyproj")
    again.editor.set_text("Words saved on the way.")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(other), ""))
    _answer(qtbot, QMessageBox.StandardButton.Save, seen)
    _keys(qtbot, again, Qt.Key.Key_O)
    qtbot.waitUntil(lambda: again.windowTitle().startswith("Other"), timeout=3000)
    assert load_project(tmp_path / "Asks" / "Asks.cosyproj").state.texts["instruct"] == "Words saved on the way."
    assert again.editor.text() == "Other's words."


def test_a_crash_keeps_the_unsaved_work_of_a_project(qtbot, window: MainWindow, settings, recorded_chunks,
                                                     tiny_cv2_model: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import FakeEngine, open_window

    w = window
    _choose_save_path(monkeypatch, tmp_path / "Crash")
    assert w.projects_ctl.save_as()
    w.editor.set_text("Typed, never saved.")
    path = w.autosave_ctl.path
    qtbot.waitUntil(lambda: path.exists() and "never saved" in path.read_text(encoding="utf-8"), timeout=3000)
    # A crash: the window never closes, so nothing asks and nothing is saved on the way out.
    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert again.windowTitle().startswith("Crash") and _modified(again)
    assert again.editor.text() == "Typed, never saved."
    assert again.projects_ctl.save() and not _modified(again)


def test_problems_are_told_and_nothing_changes(qtbot, window: MainWindow, settings, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    w.editor.set_text("Untitled work.")
    newer = tmp_path / "Newer.cosyproj"
    newer.write_text(json.dumps({"format": "cosy-studio-project", "version": PROJECT_VERSION + 1}), encoding="utf-8")
    before = newer.read_bytes()
    assert not w.projects_ctl.open(newer)
    assert w.last_message is not None and "Update Cosy Studio" in w.last_message[1]
    assert newer.read_bytes() == before and w.editor.text() == "Untitled work."

    damaged = tmp_path / "Damaged.cosyproj"
    damaged.write_text('{"format": "cosy-studio-project", "vers', encoding="utf-8")
    assert not w.projects_ctl.open(damaged)
    assert "left as it is" in w.last_message[1] and damaged.read_text(encoding="utf-8").endswith('"vers')
    assert w.windowTitle().startswith("Untitled") and w.editor.text() == "Untitled work."

    # Save as into a folder that holds someone else's files: refused, nothing written.
    (tmp_path / "Taken").mkdir()
    (tmp_path / "Taken" / "notes.txt").write_text("mine", encoding="utf-8")
    _choose_save_path(monkeypatch, tmp_path / "Taken")
    assert not w.projects_ctl.save_as()
    assert "never writes over" in w.last_message[1]
    assert sorted(p.name for p in (tmp_path / "Taken").iterdir()) == ["notes.txt"]

    # A project whose voice this machine lacks says which; a recent project that is gone is greyed.
    _choose_save_path(monkeypatch, tmp_path / "Voices")
    assert w.projects_ctl.save_as()
    path = tmp_path / "Voices" / "Voices.cosyproj"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["voices"] = [{"name": "Narrator", "file": "Narrator.cosyvoice", "sha256": ""}]
    path.write_text(json.dumps(raw), encoding="utf-8")
    w.project_menu.close_action.trigger()
    assert w.projects_ctl.open(path)
    assert "Narrator" in w.last_message[1] and "not in your voice library" in w.last_message[1]
    w.project_menu.close_action.trigger()
    path.rename(tmp_path / "Voices" / "Moved.cosyproj")
    recent = w.project_menu.recent_menu
    recent.aboutToShow.emit()
    entry = next(a for a in recent.actions() if a.text().startswith("Voices"))
    assert not entry.isEnabled() and "not found" in entry.text()
    assert not w.projects_ctl.open_recent(path)
    assert "not there any more" in w.last_message[1]
    assert path not in settings.recent_projects


def test_new_project_starts_empty_and_close_brings_untitled_back(qtbot, window: MainWindow, settings, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    take = _make_take(qtbot, w, "An Untitled take.")
    _choose_save_path(monkeypatch, tmp_path / "Fresh.cosyproj")
    _keys(qtbot, w, Qt.Key.Key_N)  # Ctrl+N
    qtbot.waitUntil(lambda: w.windowTitle().startswith("Fresh"), timeout=3000)
    assert (tmp_path / "Fresh" / "Fresh.cosyproj").is_file() and (tmp_path / "Fresh" / "takes").is_dir()
    assert len(w.session.takes) == 0 and w.takes_view.list.count() == 0 and w.editor.text() == ""
    assert w.session.store.root == tmp_path / "Fresh" / "takes"
    w.takes_ctl.undo_remove()  # nothing of Untitled's can be put back into this project
    assert len(w.session.takes) == 0
    w.project_menu.close_action.trigger()
    assert w.windowTitle().startswith("Untitled") and [t.uid for t in w.session.takes] == [take.uid]
    assert w.editor.text() == "An Untitled take." and w.session.store.root == settings.paths.data / "takes"


def test_a_take_made_removed_or_renamed_marks_the_project(qtbot, window: MainWindow, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    _choose_save_path(monkeypatch, tmp_path / "Marks")
    assert w.projects_ctl.save_as() and not _modified(w)
    take = _make_take(qtbot, w, "A take made in the project.")
    qtbot.waitUntil(w.isWindowModified, timeout=3000)  # the mark follows by itself, as the user sees it
    assert w.windowTitle().startswith("Marks")
    _keys(qtbot, w, Qt.Key.Key_S)  # Ctrl+S lists the take in the project file
    assert not _modified(w)
    path = tmp_path / "Marks" / "Marks.cosyproj"
    assert [t.uid for t in load_project(path).takes] == [take.uid]

    w.takes_ctl.remove_takes([take])
    qtbot.waitUntil(w.isWindowModified, timeout=3000)
    w.takes_ctl.undo_remove()  # back as it was saved: nothing unsaved
    qtbot.waitUntil(lambda: not w.isWindowModified(), timeout=3000)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Best take", True))
    w.takes_ctl.rename_dialog(take)
    qtbot.waitUntil(w.isWindowModified, timeout=3000)
    _keys(qtbot, w, Qt.Key.Key_S)
    assert [t.name for t in load_project(path).takes] == ["Best take"] and not _modified(w)

    # Opening the project shows no mark for takes its file does not list yet (they are in its folder).
    second = _make_take(qtbot, w, "Made, then the project was left without saving.")
    _answer(qtbot, QMessageBox.StandardButton.Discard, [])
    w.project_menu.close_action.trigger()
    assert w.projects_ctl.open(path) and not _modified(w)
    assert [t.uid for t in w.session.takes] == [take.uid, second.uid]


def test_save_as_copies_the_takes_off_the_gui_thread_and_cancel_undoes_it(
        qtbot, window: MainWindow, settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    take = _make_take(qtbot, w, "A take to copy.")
    monkeypatch.setattr(app.project, "COPY_BLOCK", 1024)  # many blocks, so a Cancel lands in the middle
    real = projects_module.copy_folders
    threads: list[threading.Thread] = []
    gate = threading.Event()

    def held_copy(pairs, progress, cancelled) -> None:
        threads.append(threading.current_thread())

        def slow(done: int, total: int) -> None:
            progress(done, total)
            gate.wait(10)  # the copy waits for the test to reach the dialog

        real(pairs, slow, cancelled)

    monkeypatch.setattr(projects_module, "copy_folders", held_copy)
    seen: list[str] = []

    def cancel() -> None:  # the user clicks Cancel in the progress dialog
        dialog = w.findChild(QProgressDialog, "backgroundWorkProgress")
        if dialog is None or not dialog.isVisible():
            QTimer.singleShot(20, cancel)
            return
        seen.append(dialog.labelText())
        assert w.isVisible()  # the window stays painted behind it
        qtbot.mouseClick(dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)
        gate.set()

    QTimer.singleShot(0, cancel)
    _choose_save_path(monkeypatch, tmp_path / "Cancelled")
    assert not w.projects_ctl.save_as()
    assert threads and threads[0] is not threading.main_thread()
    assert seen and "Copying the takes" in seen[0]
    assert not (tmp_path / "Cancelled").exists()  # what it made is gone
    assert "cancelled" in w.statusBar().currentMessage()
    assert w.windowTitle().startswith("Untitled") and [t.uid for t in w.session.takes] == [take.uid]
    assert (settings.paths.data / "takes" / take.uid / "audio.f32").is_file()  # the original stays

    gate.set()  # no hold now: the copy runs to its end, again off the GUI thread
    _choose_save_path(monkeypatch, tmp_path / "Copied")
    assert w.projects_ctl.save_as() and len(threads) == 2 and threads[1] is not threading.main_thread()
    copied = tmp_path / "Copied" / "takes" / take.uid / "audio.f32"
    assert np.array_equal(np.fromfile(copied, dtype="<f4"), take.audio())
    assert w.windowTitle().startswith("Copied")
    # The copy is in view and chosen in the list, as the take was before (not an empty list selection
    # under the old take's waveform).
    shown = w.session.shown_take
    assert shown is not None and shown.uid == take.uid and w.takes_view.selected() == [shown]
    assert w.waveform.duration == pytest.approx(take.duration, abs=0.01)
    _choose_save_path(monkeypatch, tmp_path / "Empty")
    assert w.projects_ctl.new_project()
    assert w.session.shown_take is None and w.waveform.duration == 0.0  # nothing of the old project in view
