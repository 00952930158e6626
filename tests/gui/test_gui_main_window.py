"""The main window with a test double of the engine thread that replays a real take's chunks:
mode-dependent fields, request building, streaming into the waveform, HUD and takes list, the
status bar, shortcuts, tooltips and keyboard focus, settings kept across restarts, the quality menu
(which reloads the model) and the time-left estimate from the measured real-time factor."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import engine_info
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
)

from app.audio.playback import PlayState
from app.main_window import MainWindow
from app.takes.take import TakeState, expected_seconds
from app.worker.eta import rtf_key


def _visible(widget) -> bool:
    return not widget.isHidden()


def test_fields_follow_the_mode(qtbot, window: MainWindow) -> None:
    w = window
    assert w.controls.mode == "zero_shot"
    assert _visible(w.voice_panel.transcript_edit) and not _visible(w.controls.instruct_row)
    qtbot.mouseClick(w.controls.mode_buttons["cross_lingual"], Qt.MouseButton.LeftButton)
    assert not _visible(w.voice_panel.transcript_edit) and not _visible(w.controls.instruct_row)
    qtbot.mouseClick(w.controls.mode_buttons["instruct"], Qt.MouseButton.LeftButton)
    assert not _visible(w.voice_panel.transcript_edit) and _visible(w.controls.instruct_row)


def test_presets_fill_the_instruction(qtbot, window: MainWindow) -> None:
    c = window.controls
    assert len(c.preset_ids()) == 25 and "role.peppa_pig" in c.preset_ids()  # the CosyVoice2 presets only
    assert "volume.loud" not in c.preset_ids()
    c.set_family("cosyvoice3")
    assert len(c.preset_ids()) == 26 and "volume.loud" in c.preset_ids()
    c.choose_preset("emotion.happy")
    assert c.instruct_text == "请非常开心地说一句话。"
    c.instruct_edit.setText("Speak like a pirate.")
    assert c.instruct_text == "Speak like a pirate."


def test_request_needs_text_voice_transcript_and_instruction(qtbot, window: MainWindow) -> None:
    w = window
    assert w.speaking_ctl.build_request() is None  # no text: a status-bar hint, no dialog
    assert w.last_message is None
    w.editor.set_text("Hello.")
    w.voice_panel.transcript_edit.clear()
    assert w.speaking_ctl.build_request() is None and "transcript" in w.last_message[1]
    w.controls.set_mode("instruct")
    assert w.editor.text() == ""  # each mode keeps its own text (issue 25)
    w.editor.set_text("Hello.")
    assert w.speaking_ctl.build_request() is None and "instruction" in w.last_message[1]
    w.controls.instruct_edit.setText("Please speak very happily.")
    req = w.speaking_ctl.build_request()
    assert req.mode == "instruct" and req.instruct_text == "Please speak very happily." and req.voice.name == "Tester"
    w.controls.set_mode("zero_shot")
    assert w.editor.text() == "Hello."  # Clone's own text, back
    w.voice_panel.transcript_edit.setText("Hello, this is my test voice.")
    req = w.speaking_ctl.build_request()
    assert req.prompt_text is None and req.voice is not None  # the voice's own transcript is used
    w.voice_panel.transcript_edit.setText("A corrected transcript.")
    req = w.speaking_ctl.build_request()  # a transcript typed for the voice is saved into it (issue 14, problem 2)
    assert req.prompt_text is None and req.voice.transcript == "A corrected transcript."
    assert w.session.library.get("Tester").transcript == "A corrected transcript."
    w.controls.set_speed(1.5)
    w.controls.set_seed(12)
    w.controls.set_stream(False)
    req = w.speaking_ctl.build_request()
    assert (req.speed, req.seed, req.stream) == (1.5, 12, False)


def test_text_reading_menu_goes_into_the_request(qtbot, window: MainWindow) -> None:
    w = window
    w.models_ctl.choose_quality("exact")  # the default is Auto, which picks draft on this CPU until a mode is measured
    qtbot.waitUntil(lambda: w.session.model_info is not None and w.session.model_info.quality == "exact", timeout=10000)
    actions = w.text_reading_actions
    assert list(actions) == ["", "original", "improved"]
    assert actions[""].isChecked() and actions[""].actionGroup().isExclusive()
    assert all(a.toolTip() and a.isCheckable() for a in actions.values())
    assert w.editor.text_reading == "original"  # exact mode: the preview reads as the engine will
    w.controls.set_mode("cross_lingual")  # each mode keeps its own text: the mode first
    w.editor.set_text("It costs $3.50.")
    w.editor.refresh_preview_now()
    qtbot.waitUntil(lambda: w.editor.preview.count() == 1, timeout=60000)
    assert w.editor.preview.item(0).text() == "1. It costs three point five dollars."
    w.controls.set_mode("cross_lingual")
    req = w.speaking_ctl.build_request()
    assert req.text_reading is None  # the engine's own: the quality mode's
    actions["improved"].trigger()  # Settings > Text reading > Improved English reading
    assert w.settings.text_reading == "improved" and actions["improved"].isChecked()
    assert w.editor.text_reading == "improved"
    qtbot.waitUntil(lambda: w.editor.preview.item(0).text() == "1. It costs three dollars and fifty cents.",
                    timeout=60000)  # the first improved reading imports inflect (seconds)
    req = w.speaking_ctl.build_request()
    assert req.text_reading == "improved"
    actions["original"].trigger()
    assert w.speaking_ctl.build_request().text_reading == "original"


def test_voice_of_the_other_family_is_remade_from_its_audio(qtbot, window: MainWindow) -> None:
    w = window
    info = engine_info(w.session.model_info.model_dir, "cosyvoice3")
    w.session.engine.model_info = info
    w.session.set_model_info(info)
    w.editor.set_text("Hello.")
    req = w.speaking_ctl.build_request()
    assert req.voice is None and req.prompt_audio is w.voice_panel.voice.audio_24k
    assert req.prompt_text == "Hello, this is my test voice."


def test_streaming_take_fills_waveform_hud_list_and_status(qtbot, window: MainWindow, recorded_chunks) -> None:
    w = window
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Hello there. How are you today?")
    durations: list[float] = []
    w.session.engine.chunk_ready.connect(lambda rid, c: durations.append(w.waveform.duration))
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        rid = w.speaking_ctl.speak()
        assert w.controls.stop_button.isEnabled() and _visible(w.hud)
        take = w.session.takes[-1]
        assert take.request_id == rid and take.state is TakeState.STREAMING
        assert "making" in w.takes_view.list.item(0).text()
    ends = np.cumsum([c.samples.shape[0] for c in recorded_chunks]) / 24000
    assert durations == pytest.approx(list(ends))
    assert take.state is TakeState.DONE and np.array_equal(take.audio(), np.concatenate(
        [c.samples for c in recorded_chunks]))
    # Made: Stop stays enabled only while the take is still being heard (issue 14, problem 3).
    sounding = w.session.player.state in (PlayState.PLAYING, PlayState.BUFFERING)
    assert w.controls.stop_button.isEnabled() == sounding
    assert f"chunks {len(recorded_chunks)}" in w.hud.text()
    assert "Take 1" in w.takes_view.list.item(0).text() and "making" not in w.takes_view.list.item(0).text()
    assert w.rtf_label.text() == "RTF 0.50" and w.ttfa_label.text().startswith("First audio")
    assert w.session.engine.requests[-1].mode == "cross_lingual"


def test_shortcuts_speak_and_stop(qtbot, window: MainWindow) -> None:
    w = window
    w.session.engine.interval_ms = 200
    w.controls.set_mode("cross_lingual")
    w.editor.edit.setFocus()
    qtbot.keyClicks(w.editor.edit, "Some words")
    qtbot.keyClick(w.editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert len(w.session.engine.requests) == 1 and w.editor.text() == "Some words"  # no newline typed
    qtbot.waitUntil(lambda: w.session.takes[-1].chunk_count >= 1, timeout=5000)
    with qtbot.waitSignal(w.session.engine.synthesis_cancelled, timeout=5000):
        qtbot.keyClick(w.editor.edit, Qt.Key.Key_Escape)
    assert w.session.takes[-1].state is TakeState.CANCELLED
    assert "stopped" in w.takes_view.list.item(0).text()


def test_speak_again_replaces_the_running_take(qtbot, window: MainWindow) -> None:
    w = window
    w.session.engine.interval_ms = 200
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("One.")
    first = w.speaking_ctl.speak()
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        second = w.speaking_ctl.speak()
    assert w.session.takes.by_request(first) is None  # it made no audio: dropped from the list
    assert w.session.takes[-1].request_id == second and len(w.session.takes) == 1


def test_every_control_has_a_tooltip_and_takes_focus(qtbot, window: MainWindow) -> None:
    w = window
    kinds = (QAbstractButton, QComboBox, QLineEdit, QPlainTextEdit, QAbstractSlider, QAbstractSpinBox, QListWidget)
    controls = [c for kind in kinds for c in w.findChildren(kind)
                if c.isVisibleTo(w) and not isinstance(c.parent(), (QAbstractSpinBox, QComboBox))]  # not their parts
    assert len(controls) > 25
    missing = [f"{type(c).__name__} {c.objectName() or getattr(c, 'text', lambda: '')()}" for c in controls
               if not c.toolTip()]
    assert missing == []
    unfocusable = [c for c in controls if c.focusPolicy() == Qt.FocusPolicy.NoFocus]
    assert unfocusable == []


def test_tab_reaches_speak_from_the_text(qtbot, window: MainWindow) -> None:
    w = window
    w.activateWindow()
    w.editor.edit.setFocus()
    seen = []
    for _ in range(40):
        w.focusNextChild()
        seen.append(w.focusWidget())
        if w.focusWidget() is w.controls.speak_button:
            break
    assert w.controls.speak_button in seen
    w.controls.set_mode("cross_lingual")  # each mode has its own text: the mode first
    w.editor.set_text("Keyboard only.")
    qtbot.keyClick(w.controls.speak_button, Qt.Key.Key_Space)
    assert len(w.session.engine.requests) == 1


def test_settings_survive_a_restart(qtbot, settings, fake_engine, library_with_voice, tiny_cv2_model: Path) -> None:
    w = MainWindow(settings, model_dir=tiny_cv2_model, engine=fake_engine)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.session.model_info is not None, timeout=5000)
    w.controls.set_mode("instruct")
    w.controls.set_speed(0.75)
    w.controls.set_seed(99)
    w.controls.set_stream(False)
    w.close()
    assert fake_engine.shut_down
    again = MainWindow(settings, engine=type(fake_engine)(fake_engine.chunks))
    qtbot.addWidget(again)
    c = again.controls
    assert (c.mode, c.speed, c.seed, c.stream) == ("instruct", 0.75, 99, False)
    assert settings.model_folder == tiny_cv2_model
    assert again.voice_panel.voice.name == "Tester"


def test_expected_seconds() -> None:
    assert expected_seconds("a" * 150) == pytest.approx(10.0)
    assert expected_seconds("你好" * 9) == pytest.approx(4.0)
    assert expected_seconds("a" * 150, speed=2.0) == pytest.approx(5.0)


def test_draft_in_the_quality_menu_reloads_the_model(qtbot, window: MainWindow, tiny_cv2_model: Path) -> None:
    w = window
    assert w.session.engine.loads == [(str(tiny_cv2_model), "auto", "auto")]
    assert w.quality_label.text() == "Quality: Auto (Draft)" and w.quality_actions["auto"].isChecked()
    assert all(a.toolTip() and a.isCheckable() for a in w.quality_actions.values())
    assert w.quality_actions["draft"].actionGroup().isExclusive()
    with qtbot.waitSignal(w.session.engine.model_loaded, timeout=5000):
        w.quality_actions["draft"].trigger()  # Settings > Quality > Draft
    assert w.session.engine.loads[-1] == (str(tiny_cv2_model), "auto", "draft")
    assert w.settings.quality == "draft" and w.session.model_info.quality == "draft"
    assert [q for q, a in w.quality_actions.items() if a.isChecked()] == ["draft"]
    assert w.quality_label.text() == "Quality: Draft"
    assert w.model_label.text() == f"CosyVoice2 · {tiny_cv2_model.name}" and w.device_label.text() == "Device: cpu"
    assert w.stack.currentWidget() is w.studio
    w.quality_actions["draft"].trigger()  # the same again: nothing to reload
    assert len(w.session.engine.loads) == 2


def test_auto_quality_follows_the_measured_speed(qtbot, window: MainWindow, tiny_cv2_model: Path) -> None:
    w = window
    w.settings.set_measured_rtf(rtf_key(tiny_cv2_model, "cpu", "exact"), 2.5)  # not live
    w.settings.set_measured_rtf(rtf_key(tiny_cv2_model, "cpu", "fast"), 0.6)  # live: Auto takes it
    with qtbot.waitSignal(w.session.engine.model_loaded, timeout=5000):
        w.quality_actions["exact"].trigger()
    with qtbot.waitSignal(w.session.engine.model_loaded, timeout=5000):
        w.quality_actions["auto"].trigger()
    assert w.session.engine.loads[-1][2] == "auto" and w.session.model_info.quality == "fast"
    assert w.quality_label.text() == "Quality: Auto (Fast)"
    loads = len(w.session.engine.loads)
    w.quality_actions["auto"].trigger()  # the same again: nothing to reload
    assert len(w.session.engine.loads) == loads


def test_performance_menu_sets_the_threads(qtbot, window: MainWindow) -> None:
    w = window
    actions = w.performance_menu.actions
    assert actions[0].isChecked() and actions[0].actionGroup().isExclusive()
    assert all(a.toolTip() for a in actions.values())
    actions[1].trigger()  # Settings > Performance > Threads: 1
    assert w.settings.threads == 1 and w.session.engine.torch_threads == 1 and actions[1].isChecked()
    assert w.session.engine.loads[-1:] == w.session.engine.loads[:1]  # applies from the next take: no reload
    actions[0].trigger()
    assert w.settings.threads == 0 and w.session.engine.torch_threads is None


def test_quality_change_stops_the_running_take_before_reloading(qtbot, window: MainWindow) -> None:
    w = window
    w.session.engine.interval_ms = 200
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Hello there. How are you today?")
    events: list[str] = []
    w.session.engine.synthesis_cancelled.connect(lambda stats: events.append("cancelled"))
    w.session.engine.load_started.connect(lambda folder: events.append("load"))
    w.speaking_ctl.speak()
    qtbot.waitUntil(lambda: w.session.takes[-1].chunk_count >= 1, timeout=5000)
    with qtbot.waitSignal(w.session.engine.model_loaded, timeout=5000):
        w.quality_actions["fast"].trigger()
    assert events[:2] == ["cancelled", "load"]
    assert w.session.takes[-1].state is TakeState.CANCELLED
    assert not w.controls.stop_button.isEnabled() and w.hud.eta_text() == ""
    assert w.session.engine.loads[-1][2] == "fast" and w.quality_label.text() == "Quality: Fast"


def test_time_left_in_the_hud_from_the_measured_rtf(qtbot, window: MainWindow) -> None:
    w = window
    w.session.engine.interval_ms = 150
    w.controls.set_mode("cross_lingual")
    text = "Hello there. How are you today?"  # 31 characters: about 2.07 s of speech
    w.editor.set_text(text)
    key = rtf_key(w.session.model_info.model_dir, "cpu", "draft")  # the mode Auto chose: its speed is what was measured
    assert w.settings.measured_rtf(key) is None

    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
        assert w.hud.eta_text() == "first take: no estimate yet"
    assert w.hud.eta_text() == ""  # cleared when the take ends
    assert w.settings.measured_rtf(key) == pytest.approx(0.5)  # the fake makes audio at RTF 0.5

    w.settings.set_measured_rtf(key, 100.0)  # a slow machine: 2.07 s of speech take about 207 s
    # The fake's chunks come further apart, so the take outlasts a few of the countdown's 1 s ticks even
    # on a loaded machine (its reported RTF stays 0.5: the fake computes it from the audio).
    w.session.engine.interval_ms = 600
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=30_000):
        w.speaking_ctl.speak()
        first = w.hud.eta_text()
        match = re.fullmatch(r"about 3 min (\d\d) s left", first)
        assert match is not None and 25 <= int(match.group(1)) <= 27
        qtbot.waitUntil(lambda: w.hud.eta_text() not in (first, ""), timeout=10_000)  # counts down on the timer
    assert w.hud.eta_text() == ""
    assert w.settings.measured_rtf(key) == pytest.approx(0.5 * 100.0 + 0.5 * 0.5)  # exponential average
    assert expected_seconds(text) * 100.0 == pytest.approx(206.67, abs=0.01)
