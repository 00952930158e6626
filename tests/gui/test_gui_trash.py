"""Removed takes are never lost (issue 25, item 4): Ctrl+Z in the Takes list puts a removed take back,
removed takes stay in a trash across restarts, Takes › Trash restores them, and only the user empties it
(after confirming)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from app.main_window import MainWindow
from app.takes.take import Take
from cosycore.studio.take import AUDIO_NAME


def _make_take(qtbot, w: MainWindow, text: str) -> Take:
    w.controls.set_mode("cross_lingual")
    w.editor.set_text(text)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    return w.session.takes[-1]


def _focus_take(qtbot, w: MainWindow, row: int) -> None:
    w.activateWindow()
    view = w.takes_view.list
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    rect = view.visualItemRect(view.item(row))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # the user clicks the take
    assert [view.row(i) for i in view.selectedItems()] == [row]


def _trash_action(w: MainWindow):
    return next(a for a in w.takes_menu.actions() if a.objectName() == "trashAction")


def test_delete_then_ctrl_z_in_the_takes_list_puts_the_take_back(qtbot, window: MainWindow, settings) -> None:
    w = window
    one = _make_take(qtbot, w, "One.")
    two = _make_take(qtbot, w, "Two.")
    _focus_take(qtbot, w, 0)
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Delete)
    assert list(w.session.takes) == [two]
    trash = settings.paths.data / "takes" / ".trash"
    assert (trash / one.uid / AUDIO_NAME).is_file()
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert list(w.session.takes) == [one, two]
    assert (settings.paths.data / "takes" / one.uid / AUDIO_NAME).is_file() and not (trash / one.uid).exists()


def test_trash_survives_a_restart_restores_and_empties_only_when_confirmed(
        qtbot, window: MainWindow, settings, recorded_chunks, tiny_cv2_model: Path) -> None:
    from conftest import FakeEngine, open_window

    w = window
    one = _make_take(qtbot, w, "Keep me.")
    _make_take(qtbot, w, "Second.")
    audio = one.audio().copy()
    _focus_take(qtbot, w, 0)
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Delete)
    w.close()

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert [t.text for t in again.session.takes] == ["Second."]
    assert (settings.paths.data / "takes" / ".trash" / one.uid).is_dir()  # not deleted at start
    _trash_action(again).trigger()
    dialog = again.trash_ctl.dialog
    assert dialog is not None and dialog.isVisible() and dialog.list.count() == 1
    assert "Keep me." in dialog.list.item(0).text()
    dialog.list.item(0).setSelected(True)
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    restored = next(t for t in again.session.takes if t.uid == one.uid)
    assert restored.number == 1 and np.array_equal(restored.audio(), audio)
    assert dialog.list.count() == 0 and not dialog.empty_button.isEnabled()

    # Removed again: Empty trash asks; Cancel keeps the take, Delete deletes it, and Undo cannot resurrect it.
    _focus_take(qtbot, again, 0)
    qtbot.keyClick(again.takes_view.list, Qt.Key.Key_Delete)
    _trash_action(again).trigger()
    assert dialog.list.count() == 1
    qtbot.mouseClick(dialog.empty_button, Qt.MouseButton.LeftButton)
    box = dialog.confirm
    assert isinstance(box, QMessageBox) and box.isVisible()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.confirm is None, timeout=2000)
    assert (settings.paths.data / "takes" / ".trash" / one.uid).is_dir() and dialog.list.count() == 1
    qtbot.mouseClick(dialog.empty_button, Qt.MouseButton.LeftButton)
    box = dialog.confirm
    assert box is not None
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not (settings.paths.data / "takes" / ".trash" / one.uid).exists(), timeout=2000)
    assert dialog.list.count() == 0
    again.takes_ctl.undo_remove()
    assert [t.text for t in again.session.takes] == ["Second."]
    QApplication.processEvents()


def test_a_restored_take_whose_number_is_taken_gets_the_next(qtbot, window: MainWindow) -> None:
    w = window
    one = _make_take(qtbot, w, "First.")
    w.takes_ctl.remove_takes([one])
    w.takes_ctl._undo.clear()  # as after a restart: only the trash has it
    two = _make_take(qtbot, w, "Takes number one again.")
    assert two.number == 1
    dialog = w.trash_ctl.open_dialog()
    dialog.list.item(0).setSelected(True)
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    back = next(t for t in w.session.takes if t.uid == one.uid)
    assert back.number == 2 and [t.number for t in w.session.takes] == [1, 2]


def test_the_status_bar_undo_sits_beside_its_message(qtbot, window: MainWindow) -> None:
    w = window
    w.resize(1200, 800)
    _make_take(qtbot, w, "One.")
    _make_take(qtbot, w, "Two.")
    _focus_take(qtbot, w, 0)
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Delete)
    bar = w.statusBar()
    message = bar.currentMessage()
    undo = bar.findChild(QPushButton, "undoRemoveButton")
    assert "Removed take 1" in message and undo is not None and undo.isVisible()
    # The message is painted from the bar's left edge: the button starts after its last letter.
    assert undo.geometry().left() > bar.fontMetrics().horizontalAdvance(message) + 4
    qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    assert [t.text for t in w.session.takes] == ["One.", "Two."]
