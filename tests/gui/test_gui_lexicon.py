"""Pronunciation dictionaries in the app: the editor (rows, undo, CSV import and export, a malformed file,
entries refused for CosyVoice2, the Test field against ``cosycore text``), the app-wide file and a voice's
own entries (saved into the voice file), the terms underlined in the text editor with their tooltip, and
takes that apply the dictionaries (the request, the sentence preview, the real engine thread)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent, QTextCharFormat
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit, QToolTip

from app.main_window import MainWindow
from app.widgets.lexicon_dialog import LexiconDialog
from app.worker.engine_thread import EngineThread
from cosycore.engine import EngineInfo, SynthesisRequest
from cosycore.studio.lexicon import Lexicon, LexiconEntry, load_csv, save_csv, voice_lexicon
from cosycore.voices import Voice, VoiceLibrary, load_voice

CSV = "term,replacement,whole_word,case_sensitive\nNguyen,Win,yes,no\nSQL,sequel,yes,yes\n"


@pytest.fixture(autouse=True)
def _no_user_lexicon(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``cosycore text`` in these tests never reads the user's own app-wide dictionary."""
    monkeypatch.setenv("COSY_LEXICON", str(tmp_path / "cli-app-lexicon.csv"))


def _edit_cell(qtbot, dialog: LexiconDialog, row: int, column: int, text: str) -> None:
    """Type ``text`` into a cell as a user does: open its editor, type, Enter."""
    table = dialog.table
    if table.state() != QAbstractItemView.State.EditingState:  # Add opens the new term's editor itself
        table.setCurrentCell(row, column)
        table.editItem(table.item(row, column))
    assert (table.currentRow(), table.currentColumn()) == (row, column)
    editors = [e for e in table.viewport().findChildren(QLineEdit) if e.isVisible()]
    assert len(editors) == 1
    editor = editors[0]
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.item(row, column).text() == text, timeout=5000)


def _open_app_dialog(qtbot, w: MainWindow) -> LexiconDialog:
    w.lexicon_action.trigger()  # Tools › Pronunciation dictionary…
    dialog = w.lexicon_ctl.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    return dialog


# --------------------------------------------------------------------------------------------
# The editor
# --------------------------------------------------------------------------------------------


def test_editor_rows_undo_and_csv_round_trip(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    path = w.settings.paths.lexicon
    assert not path.exists()
    dialog = _open_app_dialog(qtbot, w)
    assert dialog.table.rowCount() == 0 and not dialog.modified
    dialog.activateWindow()
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    assert dialog.table.rowCount() == 1
    _edit_cell(qtbot, dialog, 0, 0, "Nguyen")
    _edit_cell(qtbot, dialog, 0, 1, "Win")
    dialog.add_entry("SQL", "sequel")
    dialog.table.item(1, 3).setCheckState(Qt.CheckState.Checked)  # case sensitive
    dialog.add_entry("Cosy Studio", "Cozy Studio")
    assert dialog.rows() == [("Nguyen", "Win", True, False), ("SQL", "sequel", True, True),
                             ("Cosy Studio", "Cozy Studio", True, False)]
    assert dialog.modified and dialog.flagged_rows() == []

    dialog.table.selectRow(2)
    assert dialog.remove_selected() == 1
    assert dialog.table.rowCount() == 2 and "Removed 1" in dialog.status_label.text()
    assert dialog.undo_button.isEnabled()
    qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)  # the removed entry comes back
    assert dialog.rows()[2] == ("Cosy Studio", "Cozy Studio", True, False)

    exported = tmp_path / "exported.csv"
    assert dialog.export_file(exported)
    assert exported.read_text(encoding="utf-8").splitlines()[0] == "term,replacement,whole_word,case_sensitive"
    assert [(e.term, e.replacement, e.whole_word, e.case_sensitive) for e in load_csv(exported)] == dialog.rows()

    assert dialog.save()  # written atomically into the app dictionary file
    qtbot.waitUntil(lambda: w.lexicon_ctl.dialog is None, timeout=5000)
    assert load_csv(path) == load_csv(exported)

    # The file read back by a new dialog; an import merges (same term replaced) or replaces.
    dialog = _open_app_dialog(qtbot, w)
    assert [r[0] for r in dialog.rows()] == ["Nguyen", "SQL", "Cosy Studio"]
    other = tmp_path / "other.csv"
    other.write_text("term,replacement\nnguyen,Nwin\n吉林,Jilin\n", encoding="utf-8")
    assert dialog.import_file(other)
    assert dialog.rows() == [("nguyen", "Nwin", True, False), ("SQL", "sequel", True, True),
                             ("Cosy Studio", "Cozy Studio", True, False), ("吉林", "Jilin", True, False)]
    assert "1 replaced" in dialog.status_label.text()
    assert dialog.undo()  # the import taken back
    assert [r[0] for r in dialog.rows()] == ["Nguyen", "SQL", "Cosy Studio"]
    assert dialog.import_file(exported, replace=True)
    assert dialog.rows() == [(e.term, e.replacement, e.whole_word, e.case_sensitive) for e in load_csv(exported)]
    assert not dialog.modified
    dialog.reject()  # nothing changed: closes without asking


def test_malformed_csv_is_shown_with_its_line_and_changes_nothing(qtbot, window: MainWindow, tmp_path: Path) -> None:
    dialog = _open_app_dialog(qtbot, window)
    dialog.add_entry("Nguyen", "Win")
    bad = tmp_path / "bad.csv"
    bad.write_text("term,replacement,whole_word\nSQL,sequel,yes\nNguyen,Win,perhaps\n", encoding="utf-8")
    assert not dialog.import_file(bad)
    title, text = dialog.last_message
    assert "bad.csv" in title
    assert "line 3" in text and "whole_word" in text and "'perhaps'" in text
    assert dialog.rows() == [("Nguyen", "Win", True, False)]
    no_header = tmp_path / "words.csv"
    no_header.write_text("Nguyen,Win\n", encoding="utf-8")
    assert not dialog.import_file(no_header)
    assert "term,replacement" in dialog.last_message[1]
    assert not dialog.undo_button.isEnabled()  # a failed import left nothing to undo


def test_pinyin_tokens_are_flagged_and_refused_for_cosyvoice2(qtbot, window: MainWindow) -> None:
    w = window
    assert w.session.model_info.family == "cosyvoice2"
    dialog = _open_app_dialog(qtbot, w)
    dialog.add_entry("Nguyen", "Win")
    dialog.add_entry("吉林", "[j][í][l][ín]")
    assert dialog.flagged_rows() == [1]
    tip = dialog.table.item(1, 1).toolTip()
    assert "[j]" in tip and "CosyVoice2" in tip
    assert dialog.table.item(1, 0).background().color().alpha() > 0
    assert dialog.table.item(0, 0).background().style() == Qt.BrushStyle.NoBrush
    assert dialog.problem_label.isVisibleTo(dialog) and "Row 2" in dialog.problem_label.text()
    assert not dialog.save()  # refused, with Lexicon.check's message
    expected = Lexicon((LexiconEntry("Nguyen", "Win"), LexiconEntry("吉林", "[j][í][l][ín]")),
                       name="the app dictionary")
    with pytest.raises(Exception) as refused:
        expected.check("cosyvoice2")
    assert dialog.last_message == ("The dictionary was not saved", str(refused.value))
    assert dialog.isVisible() and not w.settings.paths.lexicon.exists()
    dialog.table.item(1, 1).setText("Jilin")  # a respelling is fine
    assert dialog.flagged_rows() == [] and not dialog.problem_label.isVisibleTo(dialog)
    assert dialog.save()
    assert [e.replacement for e in load_csv(w.settings.paths.lexicon)] == ["Win", "Jilin"]


def test_test_field_prints_what_cosycore_text_prints(qtbot, window: MainWindow, tiny_cv2_model: Path,
                                                     tmp_path: Path) -> None:
    from cosycore.__main__ import CliIO, main

    w = window
    w.controls.set_mode("zero_shot")
    dialog = _open_app_dialog(qtbot, w)
    csv = tmp_path / "names.csv"
    csv.write_text(CSV, encoding="utf-8")
    assert dialog.import_file(csv)
    text = "Dr. Nguyen paid $5 for SQL. Then he went home to read about sql."
    dialog.test_edit.setText(text)
    dialog.refresh_test_now()
    qtbot.waitUntil(lambda: dialog.test_result is not None and dialog.test_output.count() > 0, timeout=60000)
    result = dialog.test_result
    assert result.error == ""
    out, err = io.StringIO(), io.StringIO()
    argv = ["text", "--model", str(tiny_cv2_model), "--lexicon", str(csv), "--text-reading", w.editor.text_reading,
            "--mode", "zero_shot", text]
    assert main(argv, CliIO(io.StringIO(""), out, io.BytesIO(), err)) == 0
    assert list(result.sentences) == out.getvalue().splitlines()
    printed = [line for line in err.getvalue().splitlines() if line.startswith("dictionary:")]
    assert [f"dictionary: {m!r} -> {r!r}" for m, r in result.matches] == printed
    assert result.matches == (("Nguyen", "Win"), ("SQL", "sequel"))  # case-sensitive SQL: not 'sql'
    shown = [dialog.test_output.item(i).text() for i in range(dialog.test_output.count())]
    assert shown[:2] == ["dictionary: Nguyen → Win", "dictionary: SQL → sequel"]
    assert shown[2].startswith("1. ") and "Win" in shown[2]
    # An entry the family cannot take: the test says why, as `cosycore text` does.
    dialog.add_entry("吉林", "[j][í][l][ín]")
    dialog.refresh_test_now()
    qtbot.waitUntil(lambda: bool(dialog.test_result.error), timeout=30000)
    assert "CosyVoice2 has no pinyin" in dialog.test_result.error
    dialog.done(0)


# --------------------------------------------------------------------------------------------
# The text editor
# --------------------------------------------------------------------------------------------


def _term_ranges(w: MainWindow) -> list[tuple[int, int]]:
    block = w.editor.edit.document().firstBlock()
    return [(r.start, r.length) for r in block.layout().formats()
            if r.format.underlineStyle() == QTextCharFormat.UnderlineStyle.DotLine]


def test_terms_are_underlined_with_a_tooltip(qtbot, window: MainWindow) -> None:
    w = window
    save_csv(w.settings.paths.lexicon, Lexicon((LexiconEntry("Nguyen", "Win"), LexiconEntry("SQL", "sequel"))))
    w.lexicon_ctl.refresh()
    text = "Dr. Nguyen knows SQL, not Nguyenfoo."
    w.editor.set_text(text)
    start = text.index("Nguyen")
    qtbot.waitUntil(lambda: (start, 6) in _term_ranges(w), timeout=5000)
    assert (text.index("SQL"), 3) in _term_ranges(w)
    assert len(_term_ranges(w)) == 2  # whole word: not inside "Nguyenfoo"
    colours = [r.format.underlineColor().name() for r in w.editor.edit.document().firstBlock().layout().formats()
               if r.format.underlineStyle() == QTextCharFormat.UnderlineStyle.DotLine]
    assert colours == ["#b35900", "#b35900"]
    assert w.editor.tooltips_at(0, start + 2) == ["Nguyen → Win (dictionary: app)"]
    assert w.editor.tooltips_at(0, 0) == []

    # The tooltip the user sees when the mouse rests on the term.
    edit = w.editor.edit
    cursor = edit.textCursor()
    cursor.setPosition(start + 3)
    point = edit.cursorRect(cursor).center() + QPoint(2, 0)
    event = QHelpEvent(QEvent.Type.ToolTip, point, edit.viewport().mapToGlobal(point))
    QApplication.sendEvent(edit.viewport(), event)
    qtbot.waitUntil(lambda: QToolTip.text() == "Nguyen → Win (dictionary: app)", timeout=5000)
    QToolTip.hideText()

    # The voice's own entry wins for the same term, and says so.
    w.lexicon_ctl.save_voice_lexicon("Tester", Lexicon((LexiconEntry("nguyen", "Nwin"),)))
    qtbot.waitUntil(lambda: w.editor.tooltips_at(0, start + 2) == ["nguyen → Nwin (dictionary: voice Tester)"],
                    timeout=5000)


# --------------------------------------------------------------------------------------------
# Takes and voices
# --------------------------------------------------------------------------------------------


def test_a_take_applies_the_app_and_voice_dictionaries(qtbot, window: MainWindow, fake_engine) -> None:
    w = window
    save_csv(w.settings.paths.lexicon, Lexicon((LexiconEntry("Nguyen", "Win"), LexiconEntry("SQL", "sequel"))))
    w.lexicon_ctl.save_voice_lexicon("Tester", Lexicon((LexiconEntry("SQL", "squeal"),)))  # wins over the app's
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Nguyen likes SQL.")
    w.editor.refresh_preview_now()
    qtbot.waitUntil(lambda: w.editor.preview.count() == 1 and "Win" in w.editor.preview.item(0).text(),
                    timeout=60000)
    assert "squeal" in w.editor.preview.item(0).text() and "Nguyen" not in w.editor.preview.item(0).text()
    rid = w.speaking_ctl.speak()
    assert rid is not None
    request = fake_engine.requests[-1]
    assert request.text == "Win likes squeal."  # the engine gets this ...
    assert w.session.current_take.text == "Nguyen likes SQL."  # ... the take keeps the text as typed

    # Changed on disk by another program (the CLI shares the file): the next take reads it again.
    save_csv(w.settings.paths.lexicon, Lexicon((LexiconEntry("Nguyen", "Nuyen"),)))
    assert w.speaking_ctl.build_request().text == "Nuyen likes squeal."

    # An unreadable app dictionary: the take is refused with the line, the file is kept.
    w.settings.paths.lexicon.write_text("term,replacement\nNguyen\n", encoding="utf-8")
    assert w.speaking_ctl.build_request() is None
    title, text = w.last_message
    assert title == "Pronunciation dictionary" and "line 2" in text
    dialog = _open_app_dialog(qtbot, w)
    assert dialog.note_label.isVisibleTo(dialog) and "line 2" in dialog.note_label.text()
    dialog.add_entry("Nguyen", "Win")
    assert dialog.save()
    kept = w.settings.paths.lexicon.with_name("lexicon (unreadable).csv")
    assert kept.read_text(encoding="utf-8") == "term,replacement\nNguyen\n"
    assert w.speaking_ctl.build_request().text == "Win likes squeal."

    # A voice entry the loaded family cannot take refuses the take, naming the voice.
    w.lexicon_ctl.save_voice_lexicon("Tester", Lexicon((LexiconEntry("SQL", "[S][IY1]"),)))
    assert w.speaking_ctl.build_request() is None
    assert "the voice 'Tester'" in w.last_message[1] and "CosyVoice2" in w.last_message[1]


def test_voice_dictionary_is_saved_in_the_voice_file(qtbot, window: MainWindow, settings, fake_engine,
                                                     tiny_cv2_model: Path) -> None:
    w = window
    qtbot.mouseClick(w.voice_panel.lexicon_button, Qt.MouseButton.LeftButton)
    dialog = w.lexicon_ctl.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    assert "Tester" in dialog.windowTitle() and dialog.rows() == []
    dialog.add_entry("Nguyen", "Win")
    dialog.add_entry("SQL", "sequel")
    dialog.table.item(1, 2).setCheckState(Qt.CheckState.Unchecked)  # not whole word
    assert dialog.save()
    path = next(info.path for info in w.session.library.list() if info.name == "Tester")
    stored = load_voice(path)
    assert stored.lexicon == (("Nguyen", "Win", True, False), ("SQL", "sequel", False, False))
    assert w.voice_panel.voice.lexicon == stored.lexicon
    # Everything else in the voice is as it was.
    assert stored.transcript == "Hello, this is my test voice." and stored.name == "Tester"

    # A restart: the entries come back from the file, in the editor and in the takes.
    w.close()
    again = MainWindow(settings, model_dir=tiny_cv2_model, engine=type(fake_engine)(fake_engine.chunks))
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: again.session.model_info is not None, timeout=5000)
    assert voice_lexicon(VoiceLibrary(settings.paths.voices).get("Tester")) == Lexicon(
        (LexiconEntry("Nguyen", "Win"), LexiconEntry("SQL", "sequel", whole_word=False)))
    again.controls.set_mode("cross_lingual")
    again.editor.set_text("Nguyen uses MySQL.")
    assert again.speaking_ctl.build_request().text == "Win uses Mysequel."
    again.voice_panel.lexicon_button.click()
    qtbot.waitUntil(lambda: again.lexicon_ctl.dialog is not None and again.lexicon_ctl.dialog.isVisible(),
                    timeout=5000)
    assert [r[0] for r in again.lexicon_ctl.dialog.rows()] == ["Nguyen", "SQL"]
    again.lexicon_ctl.dialog.done(0)


def test_the_engine_thread_speaks_the_replacement(qtbot, tiny_cv2_model: Path, tiny_engine_voice: Voice) -> None:
    """The real engine on the tiny model: the spoken segments hold the replacement, not the term."""
    thread = EngineThread(torch_threads=1)
    loaded: list[EngineInfo] = []
    thread.model_loaded.connect(loaded.append)
    thread.load_model(tiny_cv2_model, "cpu")
    try:
        qtbot.waitUntil(lambda: bool(loaded), timeout=120_000)
        chunks, done = [], []
        thread.chunk_ready.connect(lambda _rid, chunk: chunks.append(chunk))
        thread.synthesis_finished.connect(done.append)
        thread.synthesis_failed.connect(lambda _rid, msg: done.append(msg))
        lexicon = Lexicon((LexiconEntry("Nguyen", "Winfield"),))
        thread.speak(SynthesisRequest(lexicon.apply("Hello Nguyen."), mode="cross_lingual", voice=tiny_engine_voice,
                                      seed=1, max_tokens=30))
        qtbot.waitUntil(lambda: bool(done), timeout=120_000)
        assert not isinstance(done[0], str), done[0]
        spoken = {c.sentence_text for c in chunks}
        assert any("Winfield" in s for s in spoken) and not any("Nguyen" in s for s in spoken)
    finally:
        assert thread.shutdown()


def test_the_app_edits_the_dictionary_the_command_line_reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from app.config.settings import AppPaths
    from cosycore.studio.lexicon import app_lexicon_path

    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COSY_LEXICON")
    assert AppPaths.default().lexicon == app_lexicon_path() == tmp_path / "home" / "data" / "lexicon.csv"
    monkeypatch.setenv("COSY_LEXICON", str(tmp_path / "mine.csv"))
    assert AppPaths.default().lexicon == tmp_path / "mine.csv"
    monkeypatch.delenv("COSY_STUDIO_HOME")
    assert AppPaths.default().lexicon == tmp_path / "mine.csv"
    # Paths made without one (tests, portable layouts) keep it beside the voices.
    paths = AppPaths(data=tmp_path / "d", cache=tmp_path / "c", logs=tmp_path / "l")
    assert paths.lexicon == tmp_path / "d" / "lexicon.csv"


def test_an_invalid_voice_entry_is_shown_flagged_not_dropped(qtbot, window: MainWindow) -> None:
    from dataclasses import replace

    w = window
    voice = w.session.library.get("Tester")
    w.session.library.replace(replace(voice, lexicon=(("Nguyen", "Win", True, False), ("SQL", "   ", True, False))))
    w.voice_panel.reload(select="Tester")
    w.controls.set_mode("cross_lingual")
    w.editor.set_text("Nguyen likes SQL.")
    assert w.speaking_ctl.build_request() is None and "'Tester'" in w.last_message[1]  # the take says which voice
    dialog = w.lexicon_ctl.edit_voice_lexicon()
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    assert dialog.note_label.isVisibleTo(dialog) and "Tester" in dialog.note_label.text()
    assert [r[0] for r in dialog.rows()] == ["Nguyen", "SQL"] and dialog.flagged_rows() == [1]
    assert not dialog.save() and "Row 2" in dialog.last_message[1]
    dialog.table.item(1, 1).setText("sequel")
    assert dialog.save()
    assert w.session.library.get("Tester").lexicon == (("Nguyen", "Win", True, False), ("SQL", "sequel", True, False))
