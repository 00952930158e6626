"""File › Open for .txt and .md files, the limits and messages of opening, and the Render to file dialog
(with the engine's test double: nothing here synthesises)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.main_window import MainWindow
from app.takes.render_records import RenderSpec
from app.takes.text_files import EDITOR_MAX_CHARS, looks_like_script, read_text_file
from cosycore.errors import InputError


def test_open_txt_and_md_into_the_editor(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.editor.set_text("My own words.")
    txt = tmp_path / "notes.txt"
    txt.write_bytes("\ufeffFirst line.\r\nSecond line, café.\r\n".encode())  # BOM and Windows line ends
    assert w.longform_ctl.open_file(txt)
    assert w.editor.text() == "First line.\nSecond line, café.\n"
    assert "Opened notes.txt" in w.statusBar().currentMessage()
    w.editor.edit.undo()  # opening is one edit: the text it replaced comes back
    assert w.editor.text() == "My own words."
    md = tmp_path / "book.md"
    md.write_text("# Chapter one\n\nIt was a **dark** night.\n", encoding="utf-8")
    assert w.longform_ctl.open_file(md)
    assert w.editor.text() == md.read_text(encoding="utf-8")  # the Markdown as written; rendering strips markup
    assert w.longform_ctl.open_path == md and w.longform_ctl.open_markdown
    assert w.open_action.shortcut().toString() == "Ctrl+Shift+O"


def test_files_that_cannot_be_opened_are_explained(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.editor.set_text("Keep me.")
    latin1 = tmp_path / "old.txt"
    latin1.write_bytes("Line one\nCaf\xe9 au lait\n".encode("latin-1"))
    assert not w.longform_ctl.open_file(latin1)
    title, text = w.last_message
    assert "old.txt" in title and "not UTF-8" in text and "line 2" in text and "0xE9" in text
    binary = tmp_path / "data.txt"
    binary.write_bytes(b"abc\x00def")
    assert not w.longform_ctl.open_file(binary)
    assert "binary" in w.last_message[1]
    empty = tmp_path / "empty.md"
    empty.write_text(" \n\n", encoding="utf-8")
    assert not w.longform_ctl.open_file(empty)
    assert "empty" in w.last_message[1]
    assert not w.longform_ctl.open_file(tmp_path / "gone.txt")
    assert "does not exist" in w.last_message[1]
    other = tmp_path / "song.wav"
    other.write_bytes(b"RIFF")
    assert not w.longform_ctl.open_file(other)
    assert "not a .txt or .md" in w.last_message[1]
    assert w.editor.text() == "Keep me."  # nothing changed


def test_a_file_too_long_for_the_editor_is_opened_for_rendering(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.editor.set_text("Short text.")
    big = tmp_path / "book.txt"
    paragraph = "This sentence is part of a very long book. " * 40 + "\n\n"
    big.write_text(paragraph * (EDITOR_MAX_CHARS // len(paragraph) + 2), encoding="utf-8")
    assert w.longform_ctl.open_file(big)
    assert w.editor.text() == "Short text."  # not pasted into the editor
    title, text = w.last_message
    assert "opened for rendering" in title and "more than one take can speak" in text
    dialog = w.longform_ctl.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.file_radio.isChecked() and Path(dialog.file_edit.text()) == big
    assert Path(dialog.out_edit.text()) == tmp_path / "book.flac"
    dialog.reject()


def test_read_text_file_limits(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("x" * 50, encoding="utf-8")
    assert read_text_file(path, editor_limit=50).text == "x" * 50
    opened = read_text_file(path, editor_limit=49)
    assert opened.too_long and opened.chars == 50 and opened.markdown
    with pytest.raises(InputError, match="Save it as UTF-8"):
        (tmp_path / "b.txt").write_bytes(b"\xff\xfe")
        read_text_file(tmp_path / "b.txt")
    assert looks_like_script("Anna: Hello.\nBen (softly): Hi.\n")
    assert not looks_like_script("# Title\n\nPlain prose, with a colon: here.\nAnd more.\n")


def test_the_render_dialog_checks_its_fields(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.editor.set_text("Some text to render.\n\n# Part two\n\nMore text.")
    dialog = w.longform_ctl.render_dialog()
    assert dialog.editor_radio.isChecked() and dialog.markdown_check.isChecked()
    assert dialog.voice_combo.currentText() == "Tester"
    dialog.out_edit.setText(str(tmp_path / "out.mp3"))
    assert not dialog.accept_if_valid()
    assert "flac or .wav" in dialog.error_label.text() and dialog.error_label.isVisible()
    dialog.out_edit.setText(str(tmp_path / "missing" / "out.wav"))
    assert not dialog.accept_if_valid() and "does not exist" in dialog.error_label.text()
    dialog.file_radio.setChecked(True)
    dialog.file_edit.setText(str(tmp_path / "nothing.md"))
    dialog.out_edit.setText(str(tmp_path / "out.wav"))
    assert not dialog.accept_if_valid() and "nothing.md does not exist" in dialog.error_label.text()
    dialog.editor_radio.setChecked(True)  # the output follows the source until the user types one
    assert Path(dialog.out_edit.text()).name == "render.flac"
    dialog.out_edit.clear()
    qtbot.keyClicks(dialog.out_edit, str(tmp_path / "out.wav"))
    dialog.file_radio.setChecked(True)
    dialog.editor_radio.setChecked(True)
    choice = dialog.choice()
    assert choice.source is None and choice.markdown and choice.out == tmp_path / "out.wav"
    assert choice.chapters == "cue" and choice.voice == "Tester"
    dialog.reject()


def test_output_files_per_chapter_mode(tmp_path: Path) -> None:
    out = tmp_path / "book.flac"
    cue = RenderSpec(tmp_path / "book.md", out, "V", chapters="cue")
    assert cue.output_files(3) == [out, tmp_path / "book.cue"] and cue.output_files(1) == [out]
    split = RenderSpec(tmp_path / "book.md", out, "V", chapters="split")
    assert split.output_files(2) == [tmp_path / "book-01.flac", tmp_path / "book-02.flac", tmp_path / "book.m3u"]
    (tmp_path / "book-07.flac").write_bytes(b"")
    assert split.existing_outputs() == [tmp_path / "book-07.flac"]


def test_render_records_are_kept_until_the_render_is_gone(tmp_path: Path) -> None:
    from app.takes.render_records import RenderRecord, RenderRecords, render_progress
    from cosycore.studio.longform import partial_path, state_path

    records = RenderRecords(tmp_path / "data")
    out = tmp_path / "book.wav"
    text = records.keep_text("abc", "# Title\n\nText.", markdown=True)
    spec = RenderSpec(text, out, "Tester", chapters="split", seed=7, from_editor=True, max_tokens=12)
    record = RenderRecord("abc", spec)
    records.save(record)
    assert records.load() == []  # nothing was rendered yet (no state beside the output): forgotten
    assert not text.exists() and not (tmp_path / "data" / "renders" / "abc.json").exists()
    records.keep_text("abc", "# Title\n\nText.", markdown=True)
    records.save(record)
    state_path(out).write_text('{"segment_samples": [10, 20], "segments_total": 5}', encoding="utf-8")
    partial_path(out).write_bytes(b"partial")
    assert records.load() == [record]  # read back exactly as saved
    assert render_progress(spec).done == 2 and render_progress(spec).total == 5
    (tmp_path / "data" / "renders" / "broken.json").write_text("{not json", encoding="utf-8")
    assert records.load() == [record]  # an unreadable record is skipped and left alone
    assert (tmp_path / "data" / "renders" / "broken.json").exists()
    records.discard(record)
    assert not partial_path(out).exists() and not state_path(out).exists() and not text.exists()
    assert records.load() == []


def test_a_script_is_offered_to_script_mode(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    script = tmp_path / "play.txt"
    script.write_text("Anna: Hello there.\nBen (softly): Hi Anna.\n", encoding="utf-8")
    assert w.longform_ctl.script_opener == w.script_ctl.open_script  # Script mode registered itself
    questions: list[str] = []
    w.longform_ctl.ask = lambda title, text: questions.append(title) or False
    assert w.longform_ctl.open_file(script) and w.editor.text().startswith("Anna: Hello there.")
    assert questions == ["Open as a script?"] and w.controls.mode != "script"  # no: opened as text
    w.longform_ctl.ask = lambda title, text: questions.append(title) or True
    w.controls.set_mode("script")  # each mode keeps its own text (issue 25): this is Script mode's
    w.editor.set_text("before")
    assert w.longform_ctl.open_file(script)
    assert len(questions) == 2 and w.controls.mode == "script"
    assert w.editor.text() == script.read_text(encoding="utf-8")
    assert w.script_ctl.base_dir == tmp_path  # its [lexicon] paths start beside it
    assert {e.name for e in w.cast_table.entries()} >= {"Anna", "Ben"}  # the cast follows the text
    w.editor.edit.undo()  # one edit: the text it replaced comes back
    assert w.editor.text() == "before"
    prose = tmp_path / "prose.txt"
    prose.write_text("Just a story.\n", encoding="utf-8")
    assert w.longform_ctl.open_file(prose) and len(questions) == 2  # prose is not asked about
