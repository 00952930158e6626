"""Keyboard and drag and drop (issue 25, item 8): Space plays and pauses, the arrows seek, Help lists the
shortcuts, Tab follows the layout, Enter in the recorder's fields saves and Tab reaches Save; a dropped
audio file offers "Make a voice", a dropped text file opens (no file:// link in the text)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import soundfile as sf
from conftest import SR, speechlike
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from app.audio.playback import PlayState
from app.controllers.transport import SEEK_SECONDS
from app.main_window import MainWindow
from app.takes.take import Take


def _make_take(qtbot, w: MainWindow, text: str = "Hello there. How are you today?") -> Take:
    w.controls.set_mode("cross_lingual")
    w.editor.set_text(text)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    return w.session.takes[-1]


def test_space_plays_and_pauses_and_the_arrows_seek(qtbot, window: MainWindow, null_audio) -> None:
    w = window
    take = _make_take(qtbot, w)
    w.speaking_ctl.stop()
    qtbot.waitUntil(lambda: w.session.player.state is PlayState.STOPPED, timeout=3000)
    w.activateWindow()
    w.takes_view.list.setFocus()
    qtbot.waitUntil(w.takes_view.list.hasFocus, timeout=2000)
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Space)
    assert w.session.playing_take is take and w.session.player.state is not PlayState.STOPPED
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Space)  # pause: stopped, the place kept
    assert w.session.player.state is PlayState.STOPPED and w.transport.paused_at is not None
    w.transport.paused_at = (take, 0.0)
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Right)
    expected = min(SEEK_SECONDS, take.duration - 0.01)
    assert w.transport.position() == expected and w.session.player.state is PlayState.STOPPED
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Left)
    assert w.transport.position() == 0.0
    # In the text editor Space is a space: nothing plays.
    w.editor.edit.setFocus()
    qtbot.waitUntil(w.editor.edit.hasFocus, timeout=2000)
    before = w.editor.text()
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Space)
    assert w.editor.text().count(" ") == before.count(" ") + 1 and w.session.player.state is PlayState.STOPPED


def test_help_lists_the_shortcuts(qtbot, window: MainWindow) -> None:
    action = next(a for a in window.findChildren(type(window.export_action)) if a.objectName() == "shortcutsAction")
    action.trigger()
    from app.widgets.shortcuts_dialog import ShortcutsDialog

    dialog = next(d for d in window.findChildren(ShortcutsDialog) if d.isVisible())
    rows = {dialog.table.item(i, 1).text(): dialog.table.item(i, 0).text() for i in range(dialog.table.rowCount())}
    assert rows["Takes › Edit take…"] == "Ctrl+T"
    assert rows["File › Export take…"] == "Ctrl+E"
    assert any(keys == "Space" for keys in rows.values())


def test_tab_order_follows_the_layout(qtbot, window: MainWindow) -> None:
    w = window
    qtbot.waitUntil(lambda: len(w.order_tabs()) > 5, timeout=2000)
    chain = w.order_tabs()
    panes = [w.voice_panel, w.controls.parentWidget(), w.takes_view]

    def pane(widget) -> int:
        return next(i for i, p in enumerate(panes) if p.isAncestorOf(widget))

    assert [pane(x) for x in chain] == sorted(pane(x) for x in chain)
    for a, b in itertools.pairwise(chain):
        if pane(a) == pane(b):
            ya = a.mapTo(panes[pane(a)], QPoint(0, a.height() // 2)).y()
            yb = b.mapTo(panes[pane(b)], QPoint(0, b.height() // 2)).y()
            assert yb >= ya - 14, (a.objectName() or type(a).__name__, b.objectName() or type(b).__name__)
    # Tab really goes that way: from the text to the next stop of the chain.
    i = chain.index(w.editor.edit)
    w.activateWindow()
    w.editor.edit.setFocus()
    qtbot.waitUntil(w.editor.edit.hasFocus, timeout=2000)
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Tab)
    expected = next(x for x in chain[i + 1:] if x.isVisible() and x.isEnabled())
    assert QApplication.focusWidget() in (expected, expected.focusProxy())
    assert pane(w.takes_view.list) == 2 and chain.index(w.takes_view.list) > i


def test_enter_in_the_recorders_name_saves_and_tab_reaches_save(qtbot, window: MainWindow, null_audio) -> None:
    rec = window.voices_ctl.open_recorder(speechlike(4.0), SR)
    qtbot.waitUntil(lambda: rec.save_button.isEnabled(), timeout=3000)
    rec.activateWindow()
    rec.transcript_edit.setFocus()
    qtbot.waitUntil(rec.transcript_edit.hasFocus, timeout=2000)
    qtbot.keyClick(rec.transcript_edit, Qt.Key.Key_Tab)
    assert rec.save_button.hasFocus()
    rec.name_edit.setFocus()
    qtbot.keyClicks(rec.name_edit, "Anna")
    with qtbot.waitSignal(rec.save_requested, timeout=2000) as saved:
        qtbot.keyClick(rec.name_edit, Qt.Key.Key_Return)
    assert saved.args[2] == "Anna"


def _drop(widget, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    pos = widget.rect().center()
    enter = QDragEnterEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos.toPointF(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, drop)


def test_a_dropped_text_file_opens_and_no_link_is_inserted(qtbot, window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "story.txt"
    path.write_text("Once upon a time. The end.", encoding="utf-8")
    window.editor.set_text("old")
    _drop(window.editor.edit.viewport(), path)
    assert window.editor.text() == "Once upon a time. The end."
    assert "file://" not in window.editor.text()


def test_a_dropped_audio_file_offers_make_a_voice(qtbot, window: MainWindow, tmp_path: Path, null_audio) -> None:
    path = tmp_path / "anna.wav"
    sf.write(path, speechlike(4.0), SR)
    before = window.editor.text()
    _drop(window.editor.edit.viewport(), path)
    assert window.editor.text() == before
    box = window.drops.offer
    assert isinstance(box, QMessageBox) and box.isVisible() and "anna.wav" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.voices_ctl.recorder is not None and window.voices_ctl.recorder.isVisible(),
                    timeout=3000)
    assert window.voices_ctl.recorder.name_edit.text() == "anna"
    assert np.asarray(window.voices_ctl.recorder.trimmed()).size > 0
    # Dropped on the window itself (the takes list, the voice panel), the same.
    _drop(window.takes_view.list.viewport(), path)
    assert window.drops.offer is not None
    qtbot.mouseClick(window.drops.offer.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
