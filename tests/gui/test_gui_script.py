"""Script mode in the editor and the cast table, with the engine thread's test double (no synthesis):
syntax colours, every problem underlined with its message as the tooltip (parse errors, a speaker
without a voice, an instruction the family cannot take, a voice of the other family), the cast
table following the script, and the cast and the mode kept across a restart."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtGui import QTextCharFormat

from app.main_window import MainWindow
from app.widgets.script_highlight import speaker_color
from cosycore.studio.script_take import CastEntry

SCRIPT = """# A test script
Anna: Hello there.
Zed: Who is it?
[pause 2x]
Anna (volume.loud): Nobody at all.
"""


def _underlines(w: MainWindow, line: int) -> list[tuple[int, int]]:
    """(start, length) of the red wavy underlines on line ``line`` (1-based) as the editor lays them out."""
    block = w.editor.edit.document().findBlockByNumber(line - 1)
    wave = QTextCharFormat.UnderlineStyle.WaveUnderline
    return [(r.start, r.length) for r in block.layout().formats() if r.format.underlineStyle() == wave]


def _colour_at(w: MainWindow, line: int, column: int) -> str:
    block = w.editor.edit.document().findBlockByNumber(line - 1)
    for r in block.layout().formats():
        if r.start <= column < r.start + r.length and r.format.hasProperty(QTextCharFormat.Property.ForegroundBrush):
            return r.format.foreground().color().name()
    return ""


def _script_mode(qtbot, w: MainWindow, text: str) -> None:
    w.controls.set_mode("script")
    assert not w.cast_table.isHidden() and w.controls.instruct_row.isHidden()
    assert w.editor.preview_box.isHidden()  # a script is not one text to split
    w.editor.set_text(text)
    w.script_ctl.check()  # (typing checks it a moment after the last key)


def test_problems_are_underlined_with_their_message(qtbot, window: MainWindow) -> None:
    w = window
    _script_mode(qtbot, w, SCRIPT)
    # Speakers are added to the cast as they appear, without a voice (none is called Anna or Zed).
    assert w.cast_table.names() == ["Anna", "Zed"]
    w.cast_table.set_voice("Anna", "Tester")
    problems = w.script_ctl.check()
    by_line = {p.line: p.message for p in problems}
    assert set(by_line) == {3, 4, 5}
    assert "No voice is cast for Zed" in by_line[3]  # an unknown speaker: not in the cast
    assert "pause" in by_line[4]  # a parse error
    assert "volume.loud" in by_line[5] and "CosyVoice2" in by_line[5]  # the family has no such preset
    assert _underlines(w, 3) == [(0, len("Zed"))]
    assert _underlines(w, 4) == [(0, len("[pause 2x]"))]
    assert _underlines(w, 5) and not _underlines(w, 2)
    assert any("No voice is cast for Zed" in tip for tip in w.editor.tooltips_at(2, 1))
    assert w.editor.tooltips_at(1, 1) == []
    assert w.cast_table.status.text().startswith("3 problem")
    # Speakers in their colours (the same as their marks on the waveform), comments grey.
    assert _colour_at(w, 2, 0) == speaker_color(0).name() and _colour_at(w, 3, 0) == speaker_color(1).name()
    assert _colour_at(w, 1, 2) == w.script_ctl.spans.comment_format.foreground().color().name()

    # Fixing the script clears the underlines, after typing stops.
    w.cast_table.set_voice("Zed", "Tester")
    w.editor.set_text(SCRIPT.replace("[pause 2x]", "[pause 2s]").replace("volume.loud", "emotion.happy"))
    qtbot.waitUntil(lambda: not w.script_ctl.problems, timeout=5000)
    assert not any(_underlines(w, n) for n in range(1, 6))
    assert "3 line" in w.cast_table.status.text() and "ready to speak" in w.cast_table.status.text()
    assert w.script_ctl.script is not None and len(w.script_ctl.cast) == 2

    # Other modes show their own text (issue 25: each mode keeps its text), with no script formats.
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Anna: a line of plain text.\nZed: another one.")
    assert w.cast_table.isHidden() and _colour_at(w, 2, 0) != speaker_color(0).name()
    assert not w.editor.preview_box.isHidden()


def test_a_voice_of_the_other_family_is_flagged_and_underlined(qtbot, window: MainWindow, tiny_engine_voice) -> None:
    w = window
    w.session.library.add(replace(tiny_engine_voice, name="Fox3", family="cosyvoice3"))
    _script_mode(qtbot, w, "Anna: Hello there.\nAnna: Again.\n")
    w.script_ctl._refresh_voices(force=True)
    combo = w.cast_table.table.cellWidget(0, 1)
    flagged = combo.itemText(combo.findData("Fox3"))
    assert flagged.startswith("⚠") and "Fun-CosyVoice3" in combo.itemData(combo.findData("Fox3"), 3)  # tooltip role
    w.cast_table.set_voice("Anna", "Fox3")
    problems = w.script_ctl.check()
    assert [p.line for p in problems] == [1] and "Fun-CosyVoice3" in problems[0].message
    assert _underlines(w, 1) == [(0, len("Anna"))]


def test_speak_with_problems_is_refused_with_the_list(qtbot, window: MainWindow) -> None:
    w = window
    _script_mode(qtbot, w, "Anna: Hello.\nnot a line\n")
    assert w.speaking_ctl.speak() is None
    assert w.last_message is not None and "line 1" in w.last_message[1] and "line 2" in w.last_message[1]
    assert len(w.session.takes) == 0 and not w.session.engine.requests


def test_cast_table_follows_the_script(qtbot, window: MainWindow) -> None:
    w = window
    _script_mode(qtbot, w, "Ben: One.\nTester: Two.\n")
    # A speaker named like a saved voice gets that voice.
    assert w.cast_table.entries() == [CastEntry("Ben", "", ""), CastEntry("Tester", "Tester", "")]
    w.cast_table.set_instruction("Ben", "Please speak slowly.")
    w.editor.set_text("Tester: Two.\nCleo: Three.\n")
    w.script_ctl.check()
    # Ben left the script but holds a choice: kept (greyed, after the script's speakers) until removed.
    assert w.cast_table.names() == ["Tester", "Cleo", "Ben"]
    assert not w.cast_table.in_script("Ben")
    assert w.cast_table.remove("Ben") and w.cast_table.names() == ["Tester", "Cleo"]
    assert not w.cast_table.remove("Cleo")  # still in the script
    # A row without any choice goes with its speaker.
    w.editor.set_text("Tester: Two.\n")
    w.script_ctl.check()
    assert w.cast_table.names() == ["Tester"]


def test_cast_and_mode_survive_a_restart(qtbot, window: MainWindow, settings, recorded_chunks,
                                         tiny_cv2_model: Path) -> None:
    from conftest import FakeEngine, open_window

    w = window
    _script_mode(qtbot, w, "Anna: Hello.\nBen (whispering): Quiet.\n")
    w.cast_table.set_voice("Anna", "Tester")
    w.cast_table.set_instruction("Ben", "emotion.sad")
    w.close()

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert again.controls.mode == "script" and not again.cast_table.isHidden()
    assert again.editor.text() == "Anna: Hello.\nBen (whispering): Quiet.\n"
    assert again.cast_table.entries() == [CastEntry("Anna", "Tester", ""), CastEntry("Ben", "", "emotion.sad")]
    problems = again.script_ctl.check()
    assert [p.line for p in problems] == [2]  # Ben still has no voice


def test_hovering_an_underline_shows_its_message(qtbot, window: MainWindow) -> None:
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    w = window
    _script_mode(qtbot, w, "Anna: Hello.\nZed: Who?\n")
    edit = w.editor.edit
    block = edit.document().findBlockByNumber(1)
    cursor = edit.textCursor()
    cursor.setPosition(block.position() + 1)
    rect = edit.cursorRect(cursor)
    pos = QPoint(rect.right() + 2, rect.center().y())  # over "e" of "Zed"
    QApplication.sendEvent(edit.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos, edit.viewport().mapToGlobal(pos)))
    qtbot.waitUntil(QToolTip.isVisible, timeout=3000)
    assert "No voice is cast for Zed" in QToolTip.text()
    QToolTip.hideText()


def test_waveform_marks_and_context_menu(qtbot) -> None:
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    from app.widgets.waveform import Mark, WaveformView

    view = WaveformView()
    qtbot.addWidget(view)
    view.resize(600, 200)
    view.show()
    view.set_audio(np.zeros(48000, np.float32), 24000)
    marks = [Mark(0.1, 0.8, "Anna", "#1f77b4"), Mark(1.0, 1.9, "Ben", "#2ca02c")]
    view.set_marks(marks)
    qtbot.waitUntil(lambda: view.drawn_marks() == marks, timeout=3000)
    view.set_marks(marks[:1])
    qtbot.waitUntil(lambda: view.drawn_marks() == marks[:1], timeout=3000)
    viewport = view.plot.viewport()
    with qtbot.waitSignal(view.context_menu_requested, timeout=3000) as blocker:
        pos = QPoint(viewport.width() // 2, viewport.height() // 2)
        QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                                                           viewport.mapToGlobal(pos)))
    assert 0.5 < blocker.args[0] < 1.5
    view.set_audio(np.zeros(100, np.float32), 24000)  # another take: its marks are its own
    assert view.marks == []


def test_regenerate_dialog_values(qtbot) -> None:
    from app.widgets.regenerate_dialog import Piece, RegenerateDialog, line_pieces
    from cosycore.studio.script_take import LineInfo

    lines = [LineInfo(0, 1, "Anna", "Tester", "Hello.", "zero_shot", "", 5),
             LineInfo(1, 2, "Ben", "Owl", "Hi.", "instruct", "Please speak softly.", 6)]
    dialog = RegenerateDialog(line_pieces(lines), "cosyvoice2", "line", 1)
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "Regenerate a line" and dialog.piece_combo.currentText() == "2. Ben: Hi."
    assert dialog.index == 1 and dialog.seed == 7 and dialog.instruction() == (True, None)
    dialog.piece_combo.setCurrentIndex(0)
    assert dialog.seed == 6
    dialog.instruction_combo.setCurrentIndex(1)
    assert dialog.instruction() == (False, None)
    dialog.instruction_combo.setCurrentText("emotion.sad")
    assert dialog.instruction() == (False, "emotion.sad")
    # the same dialog for a sentence: the piece's name in its texts, a random seed kept when none is known
    sentences = RegenerateDialog([Piece(0, "One.", None, ""), Piece(1, "Two.", 3, "")], "", "sentence", 0)
    qtbot.addWidget(sentences)
    assert sentences.windowTitle() == "Regenerate a sentence" and sentences.piece_combo.currentText() == "1. One."
    assert "a random seed" in sentences.current_label.text() and sentences.instruction_combo.count() == 2
    sentences.piece_combo.setCurrentIndex(1)
    assert sentences.seed == 4 and "seed 3" in sentences.current_label.text()


def test_export_plan_names_the_files(tmp_path: Path) -> None:
    from app.takes.script_export import plan_export

    plan = plan_export(tmp_path / "play", "flac", ["Anna", "anna ", "Ben"], srt=True, vtt=False, stems=True)
    assert plan.audio == tmp_path / "play.flac" and plan.srt == tmp_path / "play.srt" and plan.vtt is None
    assert [p.name for p in plan.stems.values()] == ["anna.flac", "anna-2.flac", "ben.flac"]
    assert {p.parent for p in plan.stems.values()} == {tmp_path / "play stems"}


def test_dictionary_lines_are_checked(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.script_ctl.base_dir = tmp_path
    (tmp_path / "broken.csv").write_text("not,a header\nx,y\n", encoding="utf-8")
    (tmp_path / "tokens.csv").write_text("term,replacement\nJilin,[j][í][l][ín]\n", encoding="utf-8")
    _script_mode(qtbot, w, "[lexicon missing.csv]\nTester: Hello.\n")
    problems = w.script_ctl.check()
    assert [p.line for p in problems] == [1] and "missing.csv" in problems[0].message
    assert _underlines(w, 1) == [(0, len("[lexicon missing.csv]"))]
    w.editor.set_text("[lexicon broken.csv]\nTester: Hello.\n")
    problems = w.script_ctl.check()
    assert [p.line for p in problems] == [1] and "term,replacement" in problems[0].message
    # Pinyin tokens are refused for CosyVoice2, on the line that would speak them.
    w.editor.set_text("[lexicon tokens.csv]\nTester: Hello.\nTester: Jilin is far.\n")
    problems = w.script_ctl.check()
    assert 3 in [p.line for p in problems]


def test_speaker_names_are_not_under_the_hud(qtbot, window: MainWindow) -> None:
    import pyqtgraph as pg
    from PySide6.QtCore import QPoint

    from app.widgets.waveform import Mark

    w = window
    view = w.waveform
    view.set_audio(np.zeros(24000 * 10, np.float32), 24000)
    view.set_marks([Mark(0.0, 6.0, "Anna", "#1f77b4"), Mark(6.0, 10.0, "Ben", "#2ca02c")])  # Ben under the HUD
    w.hud.show_values("playing", 2.0, 3, 0)
    w.hud.show()
    w.playback_ctl.place_hud()
    qtbot.waitUntil(lambda: len(view.drawn_marks()) == 2, timeout=3000)
    qtbot.wait(50)
    offset = view.plot.mapTo(view, QPoint(0, 0))
    labels = [i for i in view.plot.getPlotItem().items
              if isinstance(i, pg.TextItem) and i.toPlainText() in ("Anna", "Ben")]
    assert len(labels) == 2
    for label in labels:
        shown = view.plot.mapFromScene(label.mapRectToScene(label.boundingRect())).boundingRect().translated(offset)
        assert view.rect().contains(shown), label.toPlainText()  # on the waveform…
        assert not shown.intersects(w.hud.geometry()), label.toPlainText()  # …and readable
