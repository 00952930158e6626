"""The studio while a model loads (issue 25 item 2): text, takes, playback and export work; a Speak waits in
line with the load's stage and percentage, speaks when the model is ready, and can be cancelled; closing
while a model loads and starting again is safe."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import FakeEngine, played_offset, played_samples
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from app.audio.playback import PlayState
from app.config.settings import Settings
from app.main_window import MainWindow


class HeldLoadEngine(FakeEngine):
    """The engine's test double whose model load lasts until :meth:`finish_load` (or :meth:`fail_load`)."""

    def load_model(self, model_dir, device: str = "auto", quality: str = "exact") -> int:
        self.stop()
        self._next += 1
        self.loads.append((str(model_dir), device, quality))
        self.load_started.emit(str(model_dir))
        self.load_progress.emit(20, "Loading the speech language model")
        return self._next

    def finish_load(self) -> None:
        from conftest import engine_info

        model_dir, _device, quality = self.loads[-1]
        self.model_info = engine_info(model_dir, self.family, quality=quality)
        self.load_progress.emit(100, "Ready")
        self.model_loaded.emit(self.model_info)

    def fail_load(self, message: str) -> None:
        self.load_failed.emit(message)


@pytest.fixture
def held(fake_engine: FakeEngine) -> HeldLoadEngine:
    return HeldLoadEngine(fake_engine.chunks, voice_factory=fake_engine.voice_factory)


def _restart_loading(qtbot, settings: Settings, engine: HeldLoadEngine) -> MainWindow:
    """A window started on the last session's model (settings.model_folder), its load held."""
    w = MainWindow(settings, engine=engine)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    assert w.session.model_loading  # from the start: a Speak pressed before the load begins waits too
    qtbot.waitUntil(lambda: bool(engine.loads), timeout=5000)  # the load starts after the first paint
    return w


def _earlier_take(qtbot, window: MainWindow) -> None:
    """One take made in a first session, which then closes."""
    window.controls.set_mode("cross_lingual")
    window.editor.set_text("Hello there. How are you today?")
    with qtbot.waitSignal(window.session.engine.synthesis_finished, timeout=10_000):
        window.speaking_ctl.speak()
    window.session.player.stop()
    window.close()


def test_the_studio_works_while_the_model_loads(qtbot, window: MainWindow, settings: Settings,
                                                held: HeldLoadEngine, null_audio: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    _earlier_take(qtbot, window)
    w = _restart_loading(qtbot, settings, held)
    # The studio, not the loading screen; the progress in the status bar, with its stage and percentage.
    assert w.stack.currentWidget() is w.studio and w.session.model_info is None
    assert w.models_ctl.progress.isVisible() and w.models_ctl.progress.value() == 20
    assert "Loading the speech language model (20 %)" in w.statusBar().currentMessage()
    assert w.voice_panel.voice is not None  # the voices are there
    # Typing.
    w.editor.edit.setFocus()
    w.editor.set_text("")
    qtbot.keyClicks(w.editor.edit, "Typed while loading.")
    assert w.editor.text() == "Typed while loading."
    # Playing the earlier take (restored from the first session).
    take = w.session.takes[0]
    w.takes_view.list.setCurrentRow(0)
    with qtbot.waitSignal(w.session.player.playback_finished, timeout=20_000):
        qtbot.mouseClick(w.takes_view.play_button, Qt.MouseButton.LeftButton)
    played = played_samples(null_audio)
    audio = take.audio()
    start = played_offset(played, audio)
    assert np.array_equal(played[start:start + audio.shape[0]], audio)
    # Exporting it (Ctrl+E).
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "early.wav"), ""))
    with qtbot.waitSignal(w.export_ctl.finished, timeout=10_000):
        qtbot.keyClick(w, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert sf.info(tmp_path / "early.wav").frames == audio.shape[0]
    assert held.requests == []  # nothing asked of the engine meanwhile
    held.finish_load()
    qtbot.waitUntil(lambda: w.session.model_info is not None, timeout=5000)
    assert not w.models_ctl.progress.isVisible() and not w.session.model_loading


def test_speak_while_loading_waits_and_speaks_when_ready(qtbot, window: MainWindow, settings: Settings,
                                                         held: HeldLoadEngine) -> None:
    _earlier_take(qtbot, window)
    settings.set_load_seconds(settings.model_folder, 30.0)  # the last load of this folder took 30 s
    w = _restart_loading(qtbot, settings, held)
    w.editor.set_text("")
    qtbot.keyClicks(w.editor.edit, "Speak me when you can.")
    qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
    bar = w.waiting_bar
    assert bar.isVisible() and w.controls.stop_button.isEnabled() and held.requests == []
    text = bar.label.text()
    assert "Speaks when the model is ready" in text and "20 %" in text and "s left" in text, text
    held.load_progress.emit(60, "Loading the flow decoder")
    assert "Loading the flow decoder, 60 %" in bar.label.text() and bar.progress.value() == 60
    before = len(w.session.takes)
    held.finish_load()
    qtbot.waitUntil(lambda: len(held.requests) == 1, timeout=5000)
    assert held.requests[0].text == "Speak me when you can."
    assert not bar.isVisible() and not w.session.speak_waiting
    qtbot.waitUntil(lambda: len(w.session.takes) == before + 1 and w.session.takes[-1].chunk_count > 0, timeout=5000)
    w.speaking_ctl.stop()


def test_the_waiting_speak_can_be_cancelled(qtbot, window: MainWindow, settings: Settings,
                                            held: HeldLoadEngine) -> None:
    _earlier_take(qtbot, window)
    w = _restart_loading(qtbot, settings, held)
    w.editor.set_text("Not now.")
    qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
    assert w.waiting_bar.isVisible()
    qtbot.mouseClick(w.waiting_bar.cancel_button, Qt.MouseButton.LeftButton)
    assert not w.waiting_bar.isVisible() and not w.controls.stop_button.isEnabled()
    assert "cancelled" in w.statusBar().currentMessage()
    # Esc cancels it too.
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Enter: Speak
    assert w.waiting_bar.isVisible()
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Escape)
    assert not w.waiting_bar.isVisible()
    held.finish_load()
    qtbot.waitUntil(lambda: w.session.model_info is not None, timeout=5000)
    qtbot.wait(50)
    assert held.requests == []


def test_a_failed_load_drops_the_waiting_speak_and_says_so(qtbot, window: MainWindow, settings: Settings,
                                                           held: HeldLoadEngine) -> None:
    _earlier_take(qtbot, window)
    w = _restart_loading(qtbot, settings, held)
    w.editor.set_text("Never spoken.")
    qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
    held.fail_load("llm.pt is damaged")
    assert not w.waiting_bar.isVisible() and not w.session.speak_waiting
    assert w.stack.currentWidget() is w.model_screen and "damaged" in w.model_screen.error_label.text()


def test_speak_says_why_it_cannot_yet(qtbot, settings: Settings, held: HeldLoadEngine) -> None:
    w = MainWindow(settings, engine=held)  # no model chosen yet
    qtbot.addWidget(w)
    w.show()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=2000)
    qtbot.keyClick(w.model_screen.choose_button, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert w.last_message is not None and w.last_message[0] == "No model"
    assert "Choose model folder" in w.last_message[1]
    assert not w.waiting_bar.isVisible()


def test_empty_text_does_not_wait(qtbot, window: MainWindow, settings: Settings, held: HeldLoadEngine) -> None:
    _earlier_take(qtbot, window)
    w = _restart_loading(qtbot, settings, held)
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("")
    qtbot.mouseClick(w.controls.speak_button, Qt.MouseButton.LeftButton)
    assert not w.waiting_bar.isVisible() and "Type some text" in w.statusBar().currentMessage()


def test_restart_while_a_model_loads(qtbot, settings: Settings, tiny_cv2_model: Path,
                                     monkeypatch: pytest.MonkeyPatch, held: HeldLoadEngine) -> None:
    """Closing while the real engine thread loads stops the load at its next step; the window closes without
    waiting for the rest, saves once, and a studio started again loads the same model."""
    import app.worker.engine_thread as engine_thread
    from app.worker.engine_thread import EngineThread

    real_module = engine_thread._engine_module
    importing = threading.Event()
    gate = threading.Event()

    def slow_import():  # importing torch and the engine, held until the window has been closed
        importing.set()
        gate.wait(30)
        return real_module()

    monkeypatch.setattr(engine_thread, "_engine_module", slow_import)
    settings.model_folder = tiny_cv2_model
    settings.sync()
    engine = EngineThread()
    first = MainWindow(settings, engine=engine)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(importing.is_set, timeout=10_000)
    assert first.stack.currentWidget() is first.studio  # usable while it loads
    first.controls.set_mode("instruct")
    loaded: list[object] = []
    engine.model_loaded.connect(loaded.append)
    first.close()  # the import is still running: the window hides and closes when the thread ends
    assert not first.isVisible() and engine.isRunning() and settings.mode == "instruct"
    settings.mode = "cross_lingual"  # as a studio started again meanwhile: the first does not save over it
    gate.set()
    qtbot.waitUntil(lambda: not engine.isRunning(), timeout=60_000)
    qtbot.wait(50)
    assert loaded == []  # the load stopped at its first step: no model was made for a closed window
    second = _restart_loading(qtbot, settings, held)
    assert held.loads[-1][0] == str(tiny_cv2_model) and second.stack.currentWidget() is second.studio
    held.finish_load()
    qtbot.waitUntil(lambda: second.session.model_info is not None, timeout=5000)
    assert settings.mode == "cross_lingual" and second.session.player.state is PlayState.STOPPED
