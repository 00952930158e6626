"""The text editor: tag highlighting, the tag palette, the character count, the sentence preview."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.widgets.text_editor import TextEditor, find_tags


def _formats(editor: TextEditor) -> list[tuple[int, int, str, bool]]:
    """(start, length, foreground colour, underlined) of each highlighted range of the first line."""
    block = editor.edit.document().firstBlock()
    return [(r.start, r.length, r.format.foreground().color().name(), r.format.fontUnderline())
            for r in block.layout().formats()]


def test_known_tags_are_highlighted(qtbot) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    text = "Well [laughter] that is <strong>very</strong> odd [notatag]."
    editor.set_text(text)
    tag_color = editor.highlighter.tag_format.foreground().color().name()
    spans = {(s, n) for s, n, color, _ in _formats(editor) if color == tag_color}
    assert (text.index("[laughter]"), len("[laughter]")) in spans
    assert (text.index("<strong>"), len("<strong>")) in spans
    assert (text.index("</strong>"), len("</strong>")) in spans
    assert all(text[s:s + n] != "[notatag]" for s, n in spans)
    emphasised = [(s, n) for s, n, _, underlined in _formats(editor) if underlined]
    assert (text.index("very"), len("very")) in emphasised
    assert find_tags(text) == ["[laughter]", "<strong>", "</strong>"]


def test_palette_inserts_at_the_cursor_and_wraps_the_selection(qtbot) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_text("Hello world")
    cursor = editor.edit.textCursor()
    cursor.setPosition(5)
    editor.edit.setTextCursor(cursor)
    qtbot.mouseClick(editor.tag_buttons["[breath]"], Qt.MouseButton.LeftButton)
    assert editor.text() == "Hello[breath] world"
    cursor = editor.edit.textCursor()
    cursor.setPosition(editor.text().index("world"))
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    editor.edit.setTextCursor(cursor)
    editor.tag_buttons["<strong>"].click()
    assert editor.text() == "Hello[breath] <strong>world</strong>"
    menu_tags = [a.text() for a in editor.more_tags.menu().actions()]
    assert "[cough]" in menu_tags and "<laughter>…</laughter>" in menu_tags and "</strong>" not in menu_tags
    editor.more_tags.menu().actions()[menu_tags.index("[cough]")].trigger()
    assert "[cough]" in editor.text()


def test_count_and_sentence_preview(qtbot) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    text = "I have 3 apples and a very long story to tell. " * 12 + "The end is here."
    with qtbot.waitSignal(editor.preview_updated, timeout=30000) as blocker:
        editor.set_text(text)
    sentences = blocker.args[0]
    assert len(sentences) >= 2
    assert any("three" in s for s in sentences)  # normalised: digits written out
    assert editor.preview.count() == len(sentences)
    assert editor.preview.item(0).text().startswith("1. ")
    assert f"{len(text)} character" in editor.count_label.text()
    assert f"{len(sentences)} sentence" in editor.count_label.text()


def test_outdated_previews_are_dropped(qtbot) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_text("First text.")
    editor.refresh_preview_now()
    editor.set_text("Second text here.")
    with qtbot.waitSignal(editor.preview_updated, timeout=30000) as blocker:
        editor.refresh_preview_now()
    assert blocker.args[0] == editor.sentences
    assert "Second" in " ".join(editor.sentences)


def test_japanese_note(qtbot) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_text("こんにちは、元気ですか")
    assert not editor.note_label.isHidden() and "katakana" in editor.note_label.text()
    editor.set_text("Hello")
    assert editor.note_label.isHidden()
