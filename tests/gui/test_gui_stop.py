"""A Stop that stops (issue 14, problems 3 and 4): Stop is enabled while anything plays or is being made,
a playing take's Play button turns into Stop, and closing during a synthesis ends the engine thread
cleanly; a call that ignores cancel never gets its running QThread destroyed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.audio.playback import PlayState
from app.main_window import CLOSE_WAIT_MS, MainWindow
from app.takes.take import TakeState
from app.worker.engine_thread import EngineThread
from cosycore.engine import SynthesisRequest


def test_stop_is_enabled_while_a_finished_take_plays(qtbot, window: MainWindow, null_audio) -> None:
    w = window
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Hello there.")
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    take = w.session.takes[-1]
    if w.session.player.state is not PlayState.STOPPED:
        with qtbot.waitSignal(w.session.player.playback_finished, timeout=20_000):
            pass
    assert not w.controls.stop_button.isEnabled()
    view = w.takes_view
    view.list.setCurrentRow(0)
    assert view.play_button.text() == "Play"
    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    assert w.session.player.state in (PlayState.PLAYING, PlayState.BUFFERING)
    assert w.controls.stop_button.isEnabled()  # the take is finished, but it is being heard
    assert view.play_button.text() == "Stop"
    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)  # Play turned into Stop
    assert w.session.player.state is PlayState.STOPPED
    assert view.play_button.text() == "Play" and not w.controls.stop_button.isEnabled()
    assert take.state.value == "done" and len(w.session.takes) == 1

    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    assert w.controls.stop_button.isEnabled()
    qtbot.mouseClick(w.controls.stop_button, Qt.MouseButton.LeftButton)  # the main Stop silences it too
    assert w.session.player.state is PlayState.STOPPED and not w.controls.stop_button.isEnabled()

    # Another take than the one last streamed: its button turns into Stop too.
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    w.session.player.stop()
    view.list.setCurrentRow(0)
    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    assert w.session.playing_take is take and view.play_button.text() == "Stop"
    w.session.player.stop()


def test_the_take_being_made_shows_stop_from_its_first_chunk(qtbot, window: MainWindow, null_audio) -> None:
    """Problem 3 while a take streams: from the first chunk it is being heard (or buffered to be), so
    its row's Play says Stop, like the main Stop, until it has played out."""
    w = window
    w.session.engine.interval_ms = 300
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Hello there.")
    w.speaking_ctl.speak()
    take = w.session.takes[-1]
    qtbot.waitUntil(lambda: take.chunk_count >= 1, timeout=10_000)
    assert w.takes_view.selected() == [take]
    assert w.session.player.state in (PlayState.BUFFERING, PlayState.PLAYING) and w.controls.stop_button.isEnabled()
    assert w.takes_view.play_button.text() == "Stop"
    qtbot.mouseClick(w.takes_view.play_button, Qt.MouseButton.LeftButton)  # stops the sound, not the take
    assert w.session.player.state is PlayState.STOPPED and w.takes_view.play_button.text() == "Play"
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=20_000):
        pass
    assert take.state is TakeState.DONE


class _SlowEngine:
    """Stands in for cosycore's Engine inside a real EngineThread: one long call that checks cancel
    (or ignores it), as a flow call does between its steps."""

    def __init__(self, *, honours_cancel: bool, seconds: float) -> None:
        self.honours_cancel = honours_cancel
        self.seconds = seconds
        self.cancelled = threading.Event()
        self.started = threading.Event()
        self.ended = threading.Event()
        self.last_warnings = ()

    def cancel(self) -> None:
        self.cancelled.set()

    def synthesize(self, request):
        self.started.set()
        end = time.monotonic() + self.seconds
        try:
            while time.monotonic() < end:
                if self.honours_cancel and self.cancelled.is_set():
                    return
                time.sleep(0.005)
        finally:
            self.ended.set()
        yield from ()


def _thread_with(engine: _SlowEngine) -> EngineThread:
    thread = EngineThread()
    thread._engine = engine  # the loop hands its jobs to this object
    return thread


def test_closing_during_synthesis_ends_the_engine_thread(qtbot, settings, library_with_voice) -> None:
    slow = _SlowEngine(honours_cancel=True, seconds=60.0)
    thread = _thread_with(slow)
    w = MainWindow(settings, engine=thread)
    qtbot.addWidget(w)
    w.show()
    thread.speak(SynthesisRequest("A very long text.", mode="cross_lingual"))
    assert slow.started.wait(30)
    w.close()
    assert slow.cancelled.is_set() and slow.ended.is_set()
    assert thread.isFinished() and not w.isVisible()


def test_a_call_that_ignores_cancel_is_waited_for_not_destroyed(qtbot, settings, library_with_voice) -> None:
    slow = _SlowEngine(honours_cancel=False, seconds=CLOSE_WAIT_MS / 1000 + 1.5)
    thread = _thread_with(slow)
    w = MainWindow(settings, engine=thread)
    qtbot.addWidget(w)
    w.show()
    thread.speak(SynthesisRequest("A very long text.", mode="cross_lingual"))
    assert slow.started.wait(30)
    w.close()
    assert not w.isVisible() and thread.isRunning()  # hidden; the thread lives on, owned by the window
    qtbot.waitUntil(thread.isFinished, timeout=30_000)
    assert slow.ended.is_set()
    assert w.close()  # now the close goes through


def test_the_models_dialogs_test_synthesis_runs_on_the_engine_thread(qtbot, tiny_cv2_model: Path) -> None:
    """One owner for torch: the verification's test synthesis is a job of the engine thread."""
    thread = EngineThread(torch_threads=1)
    loaded = []
    thread.model_loaded.connect(loaded.append)
    thread.load_model(tiny_cv2_model, "cpu")
    qtbot.waitUntil(lambda: bool(loaded), timeout=120_000)
    ran_on = []
    original = thread._run_smoke

    def spy(job) -> None:
        ran_on.append(threading.current_thread().name)
        original(job)

    thread._run_smoke = spy
    seconds: list[float] = []
    worker = threading.Thread(target=lambda: seconds.append(thread.smoke_test(tiny_cv2_model)))
    worker.start()
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=120_000)
    assert seconds and seconds[0] > 0
    assert ran_on and ran_on[0] != worker.name and ran_on[0] != threading.main_thread().name
    with pytest.raises(Exception, match=r"does not exist|not a"):
        thread.smoke_test(tiny_cv2_model.parent / "no-such-model")
    assert thread.shutdown()


LONG_TEXT = ("This is the first sentence of a longer text. Here comes a second one, with more words in it. "
             "And a third sentence closes the paragraph for good.")


@pytest.mark.usefixtures("null_audio")
def test_esc_inside_a_flow_call_stops_the_engine_and_the_window_says_so(qtbot, engine_window: MainWindow,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Problem 4 with the real engine: Esc while the flow is inside its Euler loop. No further Euler
    step runs, the engine goes idle, and neither the take nor the status bar still says it is being made."""
    w = engine_window
    thread = w.session.engine
    estimator = thread._engine.model.flow.decoder.estimator
    forward = estimator.forward
    calls: list[int] = []
    armed, inside, release = threading.Event(), threading.Event(), threading.Event()

    def held(*args, **kwargs):  # runs on the engine thread: holds one Euler step until Esc was pressed
        calls.append(1)
        if armed.is_set() and not inside.is_set():
            inside.set()
            release.wait(60)
        return forward(*args, **kwargs)

    monkeypatch.setattr(estimator, "forward", held)
    w.controls.set_mode("cross_lingual")
    w.editor.set_text(LONG_TEXT)

    # 1. Inside the first flow call, before any audio: the empty take goes, and the status bar says so.
    armed.set()
    w.speaking_ctl.speak()
    qtbot.waitUntil(inside.is_set, timeout=120_000)
    assert "Speaking take 1" in w.statusBar().currentMessage()
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Escape)
    steps = len(calls)
    with qtbot.waitSignal(thread.synthesis_cancelled, timeout=60_000):
        release.set()
    qtbot.waitUntil(lambda: not thread.busy, timeout=10_000)
    assert len(calls) == steps  # the Euler loop stopped: no step after the one Esc landed in
    assert len(w.session.takes) == 0 and not w.controls.stop_button.isEnabled()
    assert "Stopped before any audio" in w.statusBar().currentMessage()

    # 2. Inside a later flow call, with audio already made: the take is kept as stopped.
    armed.clear()
    inside.clear()
    release.clear()
    w.speaking_ctl.speak()
    qtbot.waitUntil(lambda: len(w.session.takes) == 1 and w.session.takes[0].chunk_count >= 1, timeout=120_000)
    take = w.session.takes[0]
    assert take.number == 1 and "making…" in w.takes_view.list.item(0).text()
    armed.set()
    qtbot.waitUntil(inside.is_set, timeout=120_000)
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Escape)
    steps = len(calls)
    with qtbot.waitSignal(thread.synthesis_cancelled, timeout=60_000):
        release.set()
    qtbot.waitUntil(lambda: not thread.busy, timeout=10_000)
    assert len(calls) == steps
    assert take.state is TakeState.CANCELLED and take.chunk_count >= 1
    row = w.takes_view.list.item(0).text()
    assert "making…" not in row and "stopped" in row
    assert "Speaking" not in w.statusBar().currentMessage() and "Stopped take 1" in w.statusBar().currentMessage()
    assert not w.controls.stop_button.isEnabled()
