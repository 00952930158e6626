"""The voice library (issue 25, item 9 and two smaller items): tags stored in the voice file, a search box,
a legend for voices of the other family, a Language box that is not blank, and Script mode's offer to
re-make a voice made for the other family."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.widgets.voice_panel import VoiceEditor
from cosycore.errors import InputError
from cosycore.voices import VoiceLibrary


def _header(path) -> dict:
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("voice.json"))


def test_tags_are_stored_with_the_voice(tmp_path, tiny_engine_voice) -> None:
    lib = VoiceLibrary(tmp_path)
    info = lib.add(tiny_engine_voice)
    assert "tags" not in _header(info.path)  # a voice without tags is written as before
    info = lib.update(info.name, tags=" Calm, narrator ,calm, Deep   voice")
    assert lib.get(info.name).tags == ("calm", "deep voice", "narrator")
    assert _header(info.path)["tags"] == ["calm", "deep voice", "narrator"]
    listed = lib.list()[0]
    assert listed.tags == ("calm", "deep voice", "narrator")
    assert listed.matches("NARR") and listed.matches("deep calm") and not listed.matches("angry")
    with pytest.raises(InputError, match="at most 32 tags"):
        lib.update(info.name, tags=[f"t{i}" for i in range(40)])
    assert lib.get(info.name).tags == ("calm", "deep voice", "narrator")  # nothing changed


def test_search_box_tags_and_language_in_the_editor(qtbot, window: MainWindow, tiny_engine_voice) -> None:
    w = window
    w.session.library.add(replace(tiny_engine_voice, name="Zoe", transcript="Hello, I am Zoe."))
    panel = w.voice_panel
    panel.reload(select="Tester")
    voice = panel.voice
    assert voice is not None and voice.language == ""
    editor = VoiceEditor(voice, panel)
    assert editor.language_combo.currentText() == "en"  # from the transcript, not blank
    editor.tags_edit.setText("narrator, warm")
    assert panel.update_current(**editor.values())
    saved = w.session.library.get("Tester")
    assert saved.tags == ("narrator", "warm") and saved.language == "en"
    panel.search_edit.setFocus()
    qtbot.keyClicks(panel.search_edit, "narr")
    assert panel.shown_names() == ["Tester"]
    panel.search_edit.clear()
    qtbot.keyClicks(panel.search_edit, "zoe")
    assert panel.shown_names() == ["Zoe"]
    panel.search_edit.clear()
    assert sorted(panel.shown_names()) == ["Tester", "Zoe"]


def test_legend_for_voices_of_the_other_family(qtbot, window: MainWindow, tiny_engine_voice) -> None:
    panel = window.voice_panel
    assert panel.legend.isHidden()
    window.session.library.add(replace(tiny_engine_voice, name="Fox3", family="cosyvoice3"))
    panel.reload()
    assert not panel.legend.isHidden() and "other model family" in panel.legend.text()


def test_script_mode_offers_to_remake_a_voice_of_the_other_family(qtbot, window: MainWindow,
                                                                   tiny_engine_voice) -> None:
    w = window
    w.session.library.add(replace(tiny_engine_voice, name="Fox3", family="cosyvoice3"))
    w.controls.set_mode("script")
    w.editor.set_text("Anna: Hello there.\nAnna: Again.\n")
    w.script_ctl._refresh_voices(force=True)
    w.script_ctl.check()
    w.cast_table.set_voice("Anna", "Fox3")
    assert w.script_ctl.check()  # refused: made for the other family
    button = w.cast_table.remake_button
    assert not button.isHidden() and "1" in button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.session.library.get("Fox3").family == "cosyvoice2", timeout=5000)
    assert w.session.engine.refreshed == ["Fox3"]
    qtbot.waitUntil(lambda: w.script_ctl.check() == [], timeout=5000)
    assert w.cast_table.remake_button.isHidden()
