"""Regenerating one sentence of an ordinary take, as a user does it: right-click the sentence in the waveform,
Regenerate sentence…, a new seed, Regenerate; Ctrl+G for the sentence at the playhead; Ctrl+Z in the waveform
swaps the versions, Ctrl+Z in the Takes list undoes the newest change; the version comes back after a restart.

The engine is the recorded-chunk test double, its chunks given two sentences; the sentence is spoken again
by a stand-in for the engine, through the app's own engine-thread code (app.worker.sentence_jobs), so the
splice, the layout and the saved versions are the real ones (tests/test_sentence_regen.py speaks a sentence
with the real engine)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import SR, FakeEngine, open_engine_window, open_window
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from app.main_window import MainWindow
from app.takes.take import Take, TakeState
from app.worker.sentence_jobs import SentenceJob, run_sentence_regen
from cosycore.engine import AudioChunk
from cosycore.studio.take_folder import META_NAME
from cosycore.voices import Voice

TEXT = "Hello there. How are you today?"
SENTENCES = ("hello there.", "how are you today?")


class _Speaker:
    """Speaks any sentence as a tone whose pitch and length follow the seed."""

    sample_rate = SR

    def synthesize(self, request):
        n = SR // 2 + (request.seed % 100) * 100
        tone = (0.3 * np.sin(2 * np.pi * (200 + request.seed % 300) * np.arange(n) / SR)).astype(np.float32)
        half = n // 2
        for k, piece in enumerate((tone[:half], tone[half:])):
            yield AudioChunk(piece, SR, k, k == 1, 0.1, (), 0, 0, request.text, k == 1, half * k / SR)


class SentenceEngine(FakeEngine):
    """The recorded-chunk double, which also regenerates sentences (app.worker.sentence_jobs on a stand-in)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sentence_jobs: list[SentenceJob] = []

    def regenerate_sentence(self, job: SentenceJob) -> int:
        self._next += 1
        rid = self._next
        self.sentence_jobs.append(job)
        QTimer.singleShot(20, lambda: run_sentence_regen(_Speaker(), rid, job, done=self.line_regenerated.emit,
                                                          failed=self.regen_failed.emit))
        return rid


def _two_sentences(chunks: list[AudioChunk]) -> list[AudioChunk]:
    assert len(chunks) >= 2
    half = len(chunks) // 2
    return [replace(c, sentence_index=int(k >= half), sentence_text=SENTENCES[int(k >= half)],
                    sentence_final=k in (half - 1, len(chunks) - 1)) for k, c in enumerate(chunks)]


@pytest.fixture
def fake_engine(recorded_chunks: list[AudioChunk], tiny_engine_voice: Voice) -> SentenceEngine:
    return SentenceEngine(_two_sentences(recorded_chunks))


def _speak(qtbot, w: MainWindow) -> Take:
    w.controls.set_mode("cross_lingual")
    w.controls.set_seed(5)
    w.editor.set_text(TEXT)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        qtbot.keyClick(w.editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    take = w.session.takes[-1]
    assert take.state is TakeState.DONE and [s.text for s in take.sentences()] == list(SENTENCES)
    qtbot.waitUntil(lambda: w.session.shown_take is take, timeout=5000)
    return take


def _right_click(qtbot, w: MainWindow, seconds: float) -> None:
    view = w.waveform.plot.viewport()
    x = min(range(view.width()), key=lambda px: abs(w.waveform.time_at(px) - seconds))
    pos = QPoint(x, view.height() // 2)
    QApplication.sendEvent(view, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.mapToGlobal(pos)))


def _samples(take: Take, index: int) -> tuple[int, int]:
    span = take.sentences()[index]
    return round(span.start * take.sample_rate), round(span.end * take.sample_rate)


def _undo_in_waveform(qtbot, w: MainWindow) -> None:
    plot = w.waveform.plot  # what a click on the waveform gives the focus to
    w.activateWindow()  # back from the dialog
    qtbot.waitUntil(w.isActiveWindow, timeout=2000)
    plot.setFocus()
    qtbot.waitUntil(plot.hasFocus, timeout=2000)
    qtbot.keyClick(plot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def test_regenerate_a_sentence_by_right_click_undo_and_restart(qtbot, window: MainWindow, settings,
                                                               fake_engine: SentenceEngine,
                                                               tiny_cv2_model: Path) -> None:
    w = window
    take = _speak(qtbot, w)
    old = take.audio().copy()
    a, b = _samples(take, 1)

    _right_click(qtbot, w, (a + b) / 2 / SR)
    menu = w.sentence_ctl.menu_shown
    assert menu is not None
    action = next(x for x in menu.actions() if x.objectName() == "regenerateSentence")
    assert action.text() == "Regenerate sentence 2…"
    assert not next(x for x in menu.actions() if x.objectName() == "undoRegeneration").isEnabled()
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    dialog = w.sentence_ctl.dialog_shown
    assert dialog is not None and dialog.isVisible() and dialog.index == 1
    assert dialog.seed == 6  # the take's seed + 1: another way of saying it
    dialog.seed_spin.setValue(77)
    with qtbot.waitSignal(w.sentence_ctl.finished, timeout=10_000) as done:
        qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                         Qt.MouseButton.LeftButton)
    assert done.args == [True]

    # The sentence was spoken again as the engine read it, with the take's voice and mode and the new seed.
    request = fake_engine.sentence_jobs[-1].request
    assert (request.text, request.seed, request.mode, request.text_frontend) == (SENTENCES[1], 77, "cross_lingual",
                                                                                  False)
    assert request.voice is not None and request.voice.name == "Tester"
    new = take.audio().copy()
    fade = 240  # 10 ms
    assert np.array_equal(new[:a - fade], old[:a - fade])  # the first sentence is untouched up to the crossfade
    tone = np.concatenate([c.samples for c in _Speaker().synthesize(replace(request))])
    c, d = _samples(take, 1)
    assert (c, d) == (a - fade, new.shape[0]) and np.allclose(new[a:], tone[fade:], atol=1e-6)
    assert take.sentence_settings == {1: {"seed": 77, "mode": "cross_lingual", "instruction": ""}}
    assert take.previous_version is not None and w.sentence_actions.undo.isEnabled()
    assert w.waveform.duration == pytest.approx(new.shape[0] / SR)

    # Ctrl+Z in the waveform: the previous version; again: the new one.
    _undo_in_waveform(qtbot, w)
    assert np.array_equal(take.audio(), old) and take.sentence_settings == {}
    _undo_in_waveform(qtbot, w)
    assert np.array_equal(take.audio(), new)
    # Ctrl+Z in the Takes list undoes the newest change: the regeneration.
    w.takes_view.list.setFocus()
    qtbot.keyClick(w.takes_view.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert np.array_equal(take.audio(), old)
    _undo_in_waveform(qtbot, w)
    assert np.array_equal(take.audio(), new)

    folder = w.session.store.folder(take)
    assert take.audio_file in (folder / META_NAME).read_text(encoding="utf-8")
    w.close()
    again = open_window(qtbot, settings, SentenceEngine(fake_engine.chunks), tiny_cv2_model)
    restored = again.session.takes[-1]
    assert np.array_equal(restored.audio(), new) and restored.sentence_settings[1]["seed"] == 77
    item = again.takes_view.list.item(again.takes_view.list.count() - 1)
    qtbot.mouseClick(again.takes_view.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=again.takes_view.list.visualItemRect(item).center())
    qtbot.waitUntil(lambda: again.session.shown_take is restored, timeout=5000)
    _undo_in_waveform(qtbot, again)
    assert np.array_equal(restored.audio(), old)


def test_ctrl_g_asks_for_the_sentence_at_the_playhead(qtbot, window: MainWindow) -> None:
    w = window
    take = _speak(qtbot, w)
    w.waveform.set_playhead(take.sentences()[0].end / 2)
    qtbot.keyClick(w.waveform.plot, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    dialog = w.sentence_ctl.dialog_shown
    assert dialog is not None and dialog.isVisible() and dialog.index == 0
    assert "seed 5" in dialog.current_label.text()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and take.previous_version is None


def test_an_edited_take_says_to_reset_it_first(qtbot, window: MainWindow) -> None:
    w = window
    take = _speak(qtbot, w)
    from app.takes.edit import TakeEdit

    assert w.take_tools.apply(take, TakeEdit(fade_in=0.05))
    w.sentence_actions.regenerate.trigger()
    assert w.sentence_ctl.dialog_shown is None
    assert "Reset" in w.statusBar().currentMessage()


def test_the_engine_thread_speaks_the_sentence_again(qtbot, settings, library_with_voice, recorded_chunks,
                                                     tiny_cv2_model: Path) -> None:
    """The real engine thread (EngineThread.regenerate_sentence) on the tiny model, for a take made of the
    recorded chunks through the session, as Speak makes one."""
    w = open_engine_window(qtbot, settings, tiny_cv2_model)
    try:
        s = w.session
        take = Take(10_000, TEXT, mode="cross_lingual", voice_name="Tester", sample_rate=SR, seed=5)
        s.begin_take(take)
        for chunk in _two_sentences(recorded_chunks):
            s.add_chunk(take, chunk)
        s.end_take(take, TakeState.DONE)
        old = take.audio().copy()
        a, _b = _samples(take, 1)
        w.sentence_ctl.max_tokens = 12  # the random model speaks to its limit: keep it short
        with qtbot.waitSignal(w.sentence_ctl.finished, timeout=120_000) as done:
            assert w.sentence_ctl.regenerate(take, 0, seed=3) is not None
        assert done.args == [True], w.last_message
        c, d = _samples(take, 0)
        new = take.audio()
        assert c == 0 and take.sentence_settings[0]["seed"] == 3
        assert np.array_equal(new[d + 240:], old[a + 240:])  # the second sentence is kept after the crossfade
        assert not np.array_equal(new[:d], old[:a])
    finally:
        w.close()
