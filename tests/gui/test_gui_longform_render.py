"""Long-form rendering in the app, with the real engine thread on the tiny CosyVoice2 model: a render in the
background (while a take is spoken) writes the file and the cue sheet; Pause and Resume; Cancel, a restart of
the window and the offered resume give the same audio as an uninterrupted render; a changed text asks to
start over; a missing voice and a full disk are reported in the panel and nothing made is lost."""

from __future__ import annotations

import errno
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import open_engine_window, torch_threads
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.takes.render_records import RenderRecords
from app.takes.take import TakeState
from app.widgets.render_dialog import RenderChoice
from app.widgets.render_panel import PanelMode
from app.worker.render_runner import RenderState
from cosycore.studio.longform import LongFormJob, LongFormSettings, load_document, partial_path, state_path
from cosycore.voices import Voice

# the real engine thread, its tiny model loaded once for the module (tests/gui/conftest.py)
pytestmark = [pytest.mark.usefixtures("engine_per_module"), pytest.mark.real_engine]

SEED = 3
FAST = {"min_tokens": 10, "max_tokens": 12}  # a few tokens per segment keep the tiny model quick
BOOK = ("# One\n\nFirst part of the book.\n\nSecond part, a little longer.\n\nThird part.\n\n"
        "# Two\n\nFourth part.\n\nFifth part of it.\n\nSixth and last part.\n")
SEGMENTS = 8  # six paragraphs and two headings
WAIT_MS = 180_000


@pytest.fixture(autouse=True)
def _no_app_lexicon(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COSY_LEXICON", str(tmp_path / "no-app-lexicon.csv"))


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "books" / "book.md"
    path.parent.mkdir()
    path.write_text(BOOK, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(tiny_cv2_model: Path, tiny_engine_voice: Voice, tmp_path_factory: pytest.TempPathFactory):
    """The book rendered in one go by the engine itself (no app): (audio, cue sheet text)."""
    from cosycore.engine import Engine

    folder = tmp_path_factory.mktemp("reference")
    (folder / "book.md").write_text(BOOK, encoding="utf-8")
    out = folder / "book.wav"
    with torch_threads(1):
        engine = Engine(tiny_cv2_model, device="cpu", threads=1)
        job = LongFormJob(engine, load_document(folder / "book.md"), tiny_engine_voice, out,
                          LongFormSettings(seed=SEED, chapters="cue", **FAST))
        assert job.run()
    audio, _ = sf.read(str(out), dtype="float32")
    return audio, out.with_suffix(".cue").read_text(encoding="utf-8")


@pytest.fixture
def settings(settings):
    settings.quality = "exact"  # as the reference render
    return settings


def _ready(w: MainWindow) -> MainWindow:
    w.controls.set_seed(SEED)
    w.longform_ctl.ask = lambda title, text: True  # every question is answered yes
    return w


def _window(qtbot, settings, model: Path) -> MainWindow:
    return _ready(open_engine_window(qtbot, settings, model))


@pytest.fixture
def window(window: MainWindow) -> MainWindow:
    """The conftest's window on the real engine, with the reference's seed, answering every question yes."""
    return _ready(window)


PCM16_STEP = 1 / 32768


def assert_same_audio(audio: np.ndarray, reference: np.ndarray) -> None:
    """The same samples as the reference, up to one 16-bit step: the reference is made on the test's thread,
    the app's render on the engine thread, and float rounding there differs in the last bits, which turns a
    few samples of the 16-bit partial WAV one step up or down. A redone or missing segment would differ by far
    more (or in length)."""
    assert audio.shape == reference.shape
    np.testing.assert_allclose(audio, reference, rtol=0, atol=PCM16_STEP * 1.001)


def _render(w: MainWindow, source: Path | None, out: Path, chapters: str = "cue"):
    choice = RenderChoice(source=source, markdown=True, voice="Tester", out=out, chapters=chapters,
                          instruction="", speed=1.0)
    runner = w.longform_ctl.start_render(choice, **FAST)
    assert runner is not None
    return runner


def _done(w: MainWindow) -> int:
    runner = w.longform_ctl.runner
    return runner.status.done if runner is not None and runner.status is not None else 0


def test_render_in_the_background_while_a_take_is_spoken(qtbot, window: MainWindow, book: Path, reference,
                                                         null_audio: Path) -> None:
    w = window
    out = book.with_suffix(".wav")
    runner = _render(w, book, out)
    states: list[RenderState] = []
    runner.state_changed.connect(states.append)
    panel = w.render_panel
    assert panel.isVisible() and panel.mode is PanelMode.RUNNING
    qtbot.waitUntil(lambda: _done(w) >= 1, timeout=WAIT_MS)
    details = panel.details_label.text()
    assert re.search(r"^\d/8 segments · \d+ % · 0:0\d of audio · elapsed \d:\d\d · \d+:\d\d left$", details), details
    # The app stays usable: a take is spoken now; the render gives way and goes on after it.
    w.editor.set_text("Hello there.")
    assert runner.state is RenderState.RENDERING
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=WAIT_MS):
        qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
        assert runner.state is RenderState.RENDERING  # until the engine thread reports that it gave way
    assert w.session.takes[-1].state is TakeState.DONE
    assert RenderState.WAITING in states  # it gave way to the take ...
    qtbot.waitUntil(lambda: runner.state is RenderState.FINISHED, timeout=WAIT_MS)
    assert panel.mode is PanelMode.FINISHED and "book.wav" in panel.message_label.text()
    assert "8/8 segments" in panel.details_label.text() and "100 %" in panel.details_label.text()
    assert states[-2:] == [RenderState.RENDERING, RenderState.FINISHED]  # ... and went on by itself
    audio, _ = sf.read(str(out), dtype="float32")
    assert_same_audio(audio, reference[0])  # as if the take had not come in between
    assert out.with_suffix(".cue").read_text(encoding="utf-8") == reference[1]
    assert not partial_path(out).exists() and not state_path(out).exists()
    assert RenderRecords(w.settings.paths.data).load() == []  # nothing left to resume
    assert not list((w.settings.paths.data / "renders").glob("*"))


def test_pause_then_resume(qtbot, window: MainWindow, book: Path, reference) -> None:
    w = window
    out = book.with_suffix(".wav")
    runner = _render(w, book, out)
    qtbot.waitUntil(lambda: _done(w) >= 2, timeout=WAIT_MS)
    qtbot.mouseClick(w.render_panel.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: runner.state is RenderState.PAUSED, timeout=WAIT_MS)
    assert w.render_panel.mode is PanelMode.PAUSED and w.render_panel.resume_button.isVisible()
    done = len(_state(out)["segment_samples"])
    assert 2 <= done < SEGMENTS and partial_path(out).exists() and not out.exists()
    qtbot.wait(300)
    assert len(_state(out)["segment_samples"]) == done  # nothing happens while paused
    qtbot.mouseClick(w.render_panel.resume_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: runner.state is RenderState.FINISHED, timeout=WAIT_MS)
    audio, _ = sf.read(str(out), dtype="float32")
    assert_same_audio(audio, reference[0])


def _state(out: Path) -> dict:
    import json

    return json.loads(state_path(out).read_text(encoding="utf-8"))


def test_cancel_restart_the_app_and_resume(qtbot, settings, tiny_cv2_model: Path, library_with_voice, book: Path,
                                          reference) -> None:
    w = _window(qtbot, settings, tiny_cv2_model)
    out = book.with_suffix(".wav")
    w.editor.set_text(BOOK)  # the editor's text is rendered from a copy kept in the data folder
    runner = _render(w, None, out)
    qtbot.waitUntil(lambda: _done(w) >= 2, timeout=WAIT_MS)
    qtbot.mouseClick(w.render_panel.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: runner.state is RenderState.CANCELLED, timeout=WAIT_MS)
    assert not w.render_panel.isVisible() and "Unfinished renders" in w.statusBar().currentMessage()
    done = len(_state(out)["segment_samples"])
    w.editor.set_text("Something else entirely.")  # the render does not depend on the editor any more
    w.close()
    assert partial_path(out).exists() and not out.exists()

    again = _window(qtbot, settings, tiny_cv2_model)  # a new start on the same data folder
    try:
        panel = again.render_panel
        qtbot.waitUntil(lambda: panel.isVisible(), timeout=10_000)
        assert panel.mode is PanelMode.OFFER
        assert panel.title_label.text() == f"Resume rendering book.wav — {done}/{SEGMENTS} segments done"
        again.unfinished_menu.aboutToShow.emit()
        assert [a.text() for a in again.unfinished_menu.actions()] == [panel.title_label.text()]
        qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
        resumed = again.longform_ctl.runner
        assert resumed is not None
        qtbot.waitUntil(lambda: resumed.state is RenderState.FINISHED, timeout=WAIT_MS)
        audio, _ = sf.read(str(out), dtype="float32")
        assert_same_audio(audio, reference[0])  # the same audio as an uninterrupted render
        assert RenderRecords(settings.paths.data).load() == []
        assert not list((settings.paths.data / "renders").glob("*"))  # the copy of the text is gone too
    finally:
        again.close()


def test_a_changed_text_offers_to_start_over(qtbot, settings, tiny_cv2_model: Path, library_with_voice,
                                             book: Path) -> None:
    w = _window(qtbot, settings, tiny_cv2_model)
    out = book.with_suffix(".flac")
    runner = _render(w, book, out, chapters="split")
    qtbot.waitUntil(lambda: _done(w) >= 1, timeout=WAIT_MS)
    w.close()  # closing pauses the render; it is offered at the next start
    assert state_path(out).exists()
    book.write_text(BOOK.replace("Fourth part.", "A new fourth part."), encoding="utf-8")

    again = _window(qtbot, settings, tiny_cv2_model)
    try:
        panel = again.render_panel
        qtbot.waitUntil(lambda: panel.mode is PanelMode.OFFER and panel.isVisible(), timeout=10_000)
        qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
        runner = again.longform_ctl.runner
        qtbot.waitUntil(lambda: runner.state is RenderState.NEEDS_RESTART, timeout=WAIT_MS)
        assert panel.mode is PanelMode.NEEDS_RESTART and panel.restart_button.isVisible()
        assert "book.md, the voice, the dictionary or the settings changed" in panel.message_label.text()
        assert partial_path(out).exists()  # nothing is discarded before the user says so
        qtbot.mouseClick(panel.restart_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: runner.state is RenderState.FINISHED, timeout=WAIT_MS)
        files = [book.with_name(n) for n in ("book-01.flac", "book-02.flac", "book.m3u")]
        assert all(p.exists() for p in files)
        assert "book-02.flac" in panel.message_label.text()
        assert all(sf.info(str(p)).frames > 0 for p in files[:2]) and not partial_path(out).exists()
        playlist = files[2].read_text(encoding="utf-8")
        assert "book-01.flac" in playlist and "book-02.flac" in playlist
    finally:
        again.close()


def test_errors_are_shown_in_the_panel_and_nothing_is_lost(qtbot, window: MainWindow, book: Path, reference,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    out = book.with_suffix(".wav")
    real_write = sf.SoundFile.write
    calls = {"n": 0}

    def write_until_the_disk_is_full(self, data):
        calls["n"] += 1
        if calls["n"] > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, data)

    monkeypatch.setattr(sf.SoundFile, "write", write_until_the_disk_is_full)
    runner = _render(w, book, out)
    qtbot.waitUntil(lambda: runner.state is RenderState.FAILED, timeout=WAIT_MS)
    panel = w.render_panel
    assert panel.mode is PanelMode.FAILED and panel.resume_button.isVisible()
    message = panel.message_label.text()
    assert "The disk is full" in message and "Free some space, then press Resume" in message
    assert "The 2 finished segments are kept in .book.partial.wav" in message
    assert len(_state(out)["segment_samples"]) == 2
    monkeypatch.setattr(sf.SoundFile, "write", real_write)  # space was freed

    # The voice was deleted meanwhile: said in the panel; Resume works once it is back.
    voice_file = next(w.settings.paths.voices.glob("*.cosyvoice"))
    kept = voice_file.read_bytes()
    voice_file.unlink()
    w.voice_panel.reload()
    qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
    assert panel.mode is PanelMode.FAILED
    assert "The voice 'Tester' is not in the voice library any more" in panel.message_label.text()
    assert "the 2 finished segments are kept" in panel.message_label.text()
    voice_file.write_bytes(kept)
    # The text file was moved away meanwhile: said in the panel too.
    moved = book.with_name("moved.md")
    book.rename(moved)
    qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
    assert panel.mode is PanelMode.FAILED and "book.md is not there any more" in panel.message_label.text()
    moved.rename(book)
    qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
    runner = w.longform_ctl.runner
    qtbot.waitUntil(lambda: runner.state is RenderState.FINISHED, timeout=WAIT_MS)
    audio, _ = sf.read(str(out), dtype="float32")
    assert_same_audio(audio, reference[0])


def test_a_model_loaded_meanwhile_pauses_the_render(qtbot, window: MainWindow, book: Path) -> None:
    w = window
    out = book.with_suffix(".wav")
    runner = _render(w, book, out, chapters="none")
    qtbot.waitUntil(lambda: _done(w) >= 1, timeout=WAIT_MS)
    w.models_ctl.choose_quality("draft")  # loads the model again, in another quality mode
    qtbot.waitUntil(lambda: runner.state is RenderState.PAUSED, timeout=WAIT_MS)
    assert w.session.model_info.quality == "draft"
    assert "another model was loaded" in w.render_panel.message_label.text()
    qtbot.mouseClick(w.render_panel.resume_button, Qt.MouseButton.LeftButton)  # goes on with the new one
    qtbot.waitUntil(lambda: runner.state is RenderState.FINISHED, timeout=WAIT_MS)
    assert sf.info(str(out)).frames > 0 and not out.with_suffix(".cue").exists()


def test_projects_do_not_switch_while_a_render_runs(qtbot, window: MainWindow, book: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QApplication, QFileDialog

    from app.project import Project, ProjectState, save_project

    w = window
    other = Project(path=tmp_path / "Other" / "Other.cosyproj", state=ProjectState(texts={"zero_shot": "Other."}))
    save_project(other)
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: asked.append("open") or (str(other.path), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: asked.append("save") or ("", ""))
    runner = _render(w, book, book.with_suffix(".wav"))
    qtbot.waitUntil(lambda: _done(w) >= 1, timeout=WAIT_MS)
    assert w.longform_ctl.rendering
    w.activateWindow()
    qtbot.waitActive(w)
    errors: list[str] = []
    w.session.error_shown.connect(lambda title, text: errors.append(text))
    for key in (Qt.Key.Key_O, Qt.Key.Key_N):  # Open project…, New project…
        qtbot.keyClick(w.editor.edit, key, Qt.KeyboardModifier.ControlModifier)
        assert len(errors) == 1 and "being rendered" in errors.pop(), key
        box = QApplication.activeModalWidget()
        assert box is not None and "being rendered" in box.text()
        box.close()  # the user reads it and closes it
    assert not w.projects_ctl.open(other.path) and "Pause or cancel it" in errors.pop()
    assert not w.projects_ctl.save_as() and errors
    assert asked == [] and w.windowTitle().startswith("Untitled")  # refused before any file was chosen
    qtbot.mouseClick(w.render_panel.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: runner.state is RenderState.PAUSED, timeout=WAIT_MS)
    assert w.projects_ctl.open(other.path) and w.windowTitle().startswith("Other")  # a paused render lets go
