"""Work that is kept (issue 14, problems 1 and 10): takes, the editor text and the instruction are saved
as they are made and come back at the next start; a killed app loses at most the unfinished tail of a
take; takes can be renamed, removed with undo and cleared; the storage limit warns and never deletes;
the Takes list numbers without gaps and shows voice and mode; export names come from the take."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from app.main_window import MainWindow
from app.takes.store import TakeStore
from app.takes.take import Take, TakeList, TakeState, take_file_stem
from app.widgets.takes_list import TakesList
from cosycore.engine import AudioChunk
from cosycore.studio.take import AUDIO_NAME
from cosycore.studio.take_folder import META_NAME

REPO = Path(__file__).resolve().parents[2]


def _make_take(qtbot, w: MainWindow, text: str = "Hello there.", mode: str = "cross_lingual") -> Take:
    w.controls.set_mode(mode)
    w.editor.set_text(text)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    return w.session.takes[-1]


def test_restart_restores_takes_text_and_instruction(qtbot, window: MainWindow, settings, recorded_chunks,
                                                    tiny_cv2_model: Path) -> None:
    from conftest import FakeEngine, open_window

    w = window
    first = _make_take(qtbot, w, "First take.")
    w.controls.instruct_edit.setText("Please speak very happily.")
    second = _make_take(qtbot, w, "Second take, happily.", mode="instruct")
    w.session.takes.rename(second, "Happy one")
    w.editor.set_text("Text I was still writing")
    audio = [first.audio().copy(), second.audio().copy()]
    w.close()
    assert json.loads((settings.paths.data / "takes" / first.uid / META_NAME).read_text(encoding="utf-8"))["state"] \
        == "done"

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    takes = list(again.session.takes)
    assert [t.number for t in takes] == [1, 2]
    assert [t.text for t in takes] == ["First take.", "Second take, happily."]
    assert np.array_equal(takes[0].audio(), audio[0]) and np.array_equal(takes[1].audio(), audio[1])
    assert takes[1].name == "Happy one" and takes[1].instruction == "Please speak very happily."
    assert takes[1].mode == "instruct" and takes[1].voice_name == "Tester"
    # the quality the take was made in (Auto, the default, resolves to a mode before the take)
    assert takes[1].quality == second.quality and second.quality in ("exact", "fast", "draft")
    assert "CosyVoice2" in takes[1].model
    assert takes[0].state is TakeState.DONE and takes[0].seams == pytest.approx(first.seams)
    assert [s.text for s in takes[0].sentences()] == [s.text for s in first.sentences()]
    qtbot.waitUntil(lambda: again.session.shown_take is takes[-1], timeout=2000)  # the newest take, ready to play
    assert again.takes_view.selected() == [takes[-1]] and again.takes_view.play_button.isEnabled()
    assert again.editor.text() == "Text I was still writing"
    assert again.controls.instruct_edit.text() == "Please speak very happily."
    label = again.takes_view.list.item(1).text()
    assert "Take 2 · Happy one" in label and "Instruct" in label and "Tester" in label
    assert "Please speak very happily." in again.takes_view.list.item(1).toolTip()
    # A new take follows on from the restored numbers.
    assert _make_take(qtbot, again, "Third.").number == 3


def test_text_is_saved_while_typing(qtbot, window: MainWindow, settings) -> None:
    window.editor.set_text("Typed, never quit.")
    path = settings.paths.data / "session.json"
    qtbot.waitUntil(lambda: path.exists() and "never quit" in path.read_text(encoding="utf-8"), timeout=3000)


def test_remove_undo_clear_and_numbers_without_gaps(qtbot, window: MainWindow, settings,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    one = _make_take(qtbot, w, "One.")
    # A take stopped before its first chunk is dropped and leaves no gap in the numbers.
    w.session.engine.interval_ms = 5000
    w.controls.set_mode("cross_lingual")
    w.speaking_ctl.speak()
    with qtbot.waitSignal(w.session.engine.synthesis_cancelled, timeout=5000):
        w.speaking_ctl.stop()
    w.session.engine.interval_ms = 20
    two = _make_take(qtbot, w, "Two.")
    assert (one.number, two.number) == (1, 2)

    view = w.takes_view
    view.list.clearSelection()
    view.list.item(0).setSelected(True)
    view.remove_button.click()
    assert list(w.session.takes) == [two]
    assert not (settings.paths.data / "takes" / one.uid).exists()
    assert "Removed take 1" in w.statusBar().currentMessage()
    undo = w.statusBar().findChild(type(view.remove_button), "undoRemoveButton")
    assert undo is not None and undo.isVisible()
    undo.click()
    assert list(w.session.takes) == [one, two] and view.list.item(0).text().startswith("Take 1")
    assert (settings.paths.data / "takes" / one.uid / AUDIO_NAME).exists()

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    view.clear_button.click()
    assert len(w.session.takes) == 0 and view.list.count() == 0
    w.takes_ctl.undo_remove()
    assert list(w.session.takes) == [one, two]

    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("  My   best take ", True))
    view.list.clearSelection()
    view.list.item(1).setSelected(True)
    view.rename_button.click()
    assert two.name == "My best take" and "My best take" in view.list.item(1).text()


def test_export_name_comes_from_the_take(qtbot, window: MainWindow, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    take = _make_take(qtbot, window, "Hello there: how are you?")
    window.settings.last_export_folder = tmp_path
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (asked.append(a[2]), ("", ""))[1])
    window.export_ctl.export_dialog(take)
    assert Path(asked[0]).name == "01 Hello there how are you.wav"
    window.session.takes.rename(take, "Intro")
    window.export_ctl.export_dialog(take)
    assert Path(asked[1]).name == "01 Intro.wav"
    assert take_file_stem(7, "") == "take-07" and take_file_stem(2, "a/b\\c") == "02 a b c"


def test_storage_limit_warns_and_deletes_nothing(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    monkeypatch.setattr(type(w.takes_ctl), "storage_limit_bytes", lambda self: 1)
    take = _make_take(qtbot, w)
    assert w.last_message is not None and "storage limit" in w.last_message[0]
    assert "Nothing is deleted" in w.last_message[1]
    assert list(w.session.takes) == [take] and w.session.store.size_bytes() > 1


def _chunk(samples: np.ndarray, index: int, sentence: int = 0) -> AudioChunk:
    samples = samples.astype(np.float32)
    return AudioChunk(samples=samples, sample_rate=24000, index=index, is_final=False, timing=0.1, tokens=(),
                      tokens_so_far=0, sentence_index=sentence, sentence_text=f"Sentence {sentence}.",
                      sentence_final=False, start_time=0.0)


def test_a_chunk_the_sidecar_missed_is_recovered(tmp_path: Path) -> None:
    takes = TakeList()
    store = TakeStore(tmp_path)
    store.attach(takes, lambda take, e: pytest.fail(str(e)))
    take = Take(1, "Hello.", mode="zero_shot", voice_name="Tester", sample_rate=24000)
    takes.add(take)
    takes.add_chunk(take, _chunk(np.full(2400, 0.25), 0))
    # Killed after the audio of the next chunk reached the file (and half a sample more), before the sidecar.
    with open(tmp_path / take.uid / AUDIO_NAME, "ab") as fh:
        fh.write(np.full(1200, -0.5, "<f4").tobytes() + b"\x00\x01")
    store.close()
    restored, problems = TakeStore(tmp_path).load()
    assert problems == [] and len(restored) == 1
    back = restored[0]
    assert back.state is TakeState.CANCELLED and back.recovered and back.samples == 3600
    assert np.array_equal(back.audio(), np.r_[np.full(2400, 0.25), np.full(1200, -0.5)].astype(np.float32))
    assert back.seams == pytest.approx([0.1]) and back.sentences()[-1].end == pytest.approx(0.15)
    assert json.loads((tmp_path / take.uid / META_NAME).read_text(encoding="utf-8"))["state"] == "cancelled"


_KILLED_WRITER = textwrap.dedent("""
    import sys, time
    import numpy as np
    from PySide6.QtCore import QCoreApplication
    from cosycore.engine import AudioChunk
    from app.takes.store import TakeStore
    from app.takes.take import Take, TakeList

    app = QCoreApplication([])
    takes = TakeList()
    TakeStore(sys.argv[1]).attach(takes, lambda take, e: print("FAILED", e, flush=True))
    take = Take(1, "Killed while speaking.", mode="cross_lingual", voice_name="Tester", sample_rate=24000)
    takes.add(take)
    for i in range(3):
        samples = np.full(4800, 0.1 * (i + 1), np.float32)
        takes.add_chunk(take, AudioChunk(samples, 24000, i, False, 0.1, (), 0, i, f"Sentence {i}.", True, 0.0))
    print("3 chunks", flush=True)
    time.sleep(60)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_kill_9_during_a_take_loses_only_its_tail(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(tmp_path / "takes")], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "3 chunks"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    restored, problems = TakeStore(tmp_path / "takes").load()
    assert problems == [] and len(restored) == 1
    take = restored[0]
    assert take.recovered and take.state is TakeState.CANCELLED and take.text == "Killed while speaking."
    assert take.samples == 3 * 4800 and take.chunk_count == 3
    assert np.allclose(take.audio()[-4800:], 0.3) and [s.text for s in take.sentences()][-1] == "Sentence 2."


def test_takes_rows_line_up_whatever_their_text(qtbot, window: MainWindow) -> None:
    """Problem 10: rows never wrap unevenly (the selected row is the take that gets exported)."""
    w = window
    _make_take(qtbot, w, "Short.")
    _make_take(qtbot, w, "A much longer take, whose text goes on and on and on. " * 6 + "\nWith a line break in it.")
    _make_take(qtbot, w, "Mid length take text here.")
    w.resize(w.minimumSizeHint().width(), 700)  # the narrowest window: long rows are cut, not wrapped
    view = w.takes_view.list
    qtbot.waitUntil(lambda: view.visualItemRect(view.item(2)).height() > 0, timeout=5000)
    rows = [view.item(i) for i in range(view.count())]
    assert len({view.visualItemRect(r).height() for r in rows}) == 1
    assert all(r.text().count("\n") == 1 for r in rows)  # title line and details line, always
    assert rows[1].text().split("\n")[0].endswith("…")
    assert not view.horizontalScrollBar().isVisible()


def test_ctrl_q_keeps_the_takes_and_the_text(qtbot, window: MainWindow, settings, recorded_chunks,
                                             tiny_cv2_model: Path) -> None:
    """Problem 1 by keyboard: Ctrl+Q (the Quit shortcut) closes the window and loses nothing."""
    from conftest import FakeEngine, open_window

    w = window
    take = _make_take(qtbot, w, "Made before quitting.")
    w.editor.set_text("Still writing when I quit")
    qtbot.waitActive(w)
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=5000)
    assert w.session.engine.shut_down
    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert [t.text for t in again.session.takes] == ["Made before quitting."] and again.session.takes[0].uid == take.uid
    assert again.editor.text() == "Still writing when I quit"


def _saved_take(root: Path) -> Path:
    takes = TakeList()
    store = TakeStore(root)
    store.attach(takes, lambda take, e: pytest.fail(str(e)))
    take = Take(1, "Hello.", mode="zero_shot", voice_name="Tester", sample_rate=24000)
    takes.add(take)
    takes.add_chunk(take, _chunk(np.full(2400, 0.25), 0))
    store.close()
    return root / take.uid


@pytest.mark.parametrize("sidecar", [
    b"[]", b"[" * 100_000 + b"]" * 100_000, "samples", "script", b"\xff\xfe not utf-8", b"{\"format\": 1e999}",
    "sample_rate", "uid",
])
def test_a_damaged_take_json_is_listed_and_left_as_it_is(tmp_path: Path, sidecar: bytes | str) -> None:
    """``[]``, 100k-deep JSON, ``"samples": 1e999``, ``"script": [1,2]``, …: the store opens, lists the
    take as a problem and keeps its folder as it was (the app starts whatever its data folder holds)."""
    folder = _saved_take(tmp_path)
    meta = json.loads((folder / META_NAME).read_text(encoding="utf-8"))
    if isinstance(sidecar, str):
        meta[sidecar] = {"samples": 1e999, "script": [1, 2], "sample_rate": 0, "uid": "../../x"}[sidecar]
        data = json.dumps(meta).replace("Infinity", "1e999").encode()
    else:
        data = sidecar
    (folder / META_NAME).write_bytes(data)
    before = sorted(p.name for p in folder.iterdir())
    restored, problems = TakeStore(tmp_path).load()
    assert restored == [] and len(problems) == 1 and folder.name in problems[0]
    assert sorted(p.name for p in folder.iterdir()) == before and (folder / META_NAME).read_bytes() == data


def test_a_take_json_that_links_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    folder = _saved_take(tmp_path)
    (folder / META_NAME).unlink()
    (folder / META_NAME).symlink_to("/dev/zero")
    restored, problems = TakeStore(tmp_path).load()
    assert restored == [] and "regular file" in problems[0]


def test_an_empty_streaming_take_with_my_notes_txt_keeps_the_notes(tmp_path: Path) -> None:
    """A take cut short before any audio, in whose folder the user put ``my-notes.txt``: only the
    store's own files go, the folder and the notes stay."""
    takes = TakeList()
    store = TakeStore(tmp_path)
    store.attach(takes, lambda take, e: pytest.fail(str(e)))
    take = Take(1, "Hello.", mode="zero_shot", voice_name="Tester", sample_rate=24000)
    takes.add(take)
    store.close()
    folder = tmp_path / take.uid
    (folder / "my-notes.txt").write_text("keep me", encoding="utf-8")
    restored, problems = TakeStore(tmp_path).load()
    assert restored == [] and len(problems) == 1
    assert (folder / "my-notes.txt").read_text(encoding="utf-8") == "keep me"
    plain = TakeList()
    other = TakeStore(tmp_path / "b")
    other.attach(plain, lambda take, e: pytest.fail(str(e)))
    empty = Take(2, "Hi.", mode="zero_shot", voice_name="Tester", sample_rate=24000)
    plain.add(empty)
    other.close()
    assert TakeStore(tmp_path / "b").load() == ([], []) and not (tmp_path / "b" / empty.uid).exists()


def test_a_take_folder_that_is_a_link_out_of_the_store_is_not_used(tmp_path: Path) -> None:
    folder = _saved_take(tmp_path / "elsewhere")
    (tmp_path / "takes").mkdir()
    (tmp_path / "takes" / folder.name).symlink_to(folder)
    assert TakeStore(tmp_path / "takes").load() == ([], [])


def test_ctrl_z_in_the_takes_list_asks_to_undo_a_removal(qtbot) -> None:
    """The list's Undo key reaches the controller (it once handed QShortcut the signal as a slot)."""
    view = TakesList(TakeList())
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=2000)
    view.list.setFocus()
    with qtbot.waitSignal(view.undo_requested, timeout=2000):
        qtbot.keyClick(view.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def test_a_dropped_take_folder_of_the_cli_is_added_as_a_copy(qtbot, window: MainWindow, settings) -> None:
    """tests/data/old_script_take was written by 'cosycore synth --script'; dropped on the window, its take
    folder becomes the next take (written anew in the one take format), and comes back after a restart."""
    from cosycore.studio.take_file import load_take

    w = window
    folder = Path(__file__).resolve().parents[1] / "data" / "old_script_take" / "play.wav.take"
    before = len(w.session.takes)
    w.drops.handle(folder)
    take = w.session.takes[-1]
    assert len(w.session.takes) == before + 1 and take.script is not None and take.mode == "script"
    assert np.array_equal(take.audio(), load_take(folder).take.audio())
    assert "play.wav.take" in w.statusBar().currentMessage()
    assert TakeStore(settings.paths.data / "takes").load()[0][-1].uid == take.uid
