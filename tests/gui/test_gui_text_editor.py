"""The text editor: tag highlighting, the tag palette, the character count, the sentence preview."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.widgets.text_editor import TextEditor, find_tags
from cosycore.frontend.segment_bound import MAX_SEGMENT_TOKENS


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
    assert f"spoken in {len(sentences)} part" in editor.count_label.text()  # typed sentences, then parts


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


def _previewed(qtbot, editor: TextEditor, text: str) -> list[str]:
    with qtbot.waitSignal(editor.preview_updated, timeout=60000) as blocker:
        editor.set_text(text)
    return blocker.args[0]


@pytest.mark.parametrize("reading", ["original", "improved"])
def test_the_preview_is_what_the_engine_speaks_past_the_segment_bound(qtbot, cv2_engine, reading: str) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_model(str(cv2_engine.cfg.qwen_dir), cv2_engine.cfg.family)
    editor.set_text_reading(reading)
    text = "word " * 600 + "The end."  # no sentence mark for 600 tokens: the bound cuts it
    spoken = list(cv2_engine.spoken_sentences(text, reading=reading))
    assert len(spoken) > 2 and max(len(cv2_engine.tokenizer.encode(s)) for s in spoken) <= MAX_SEGMENT_TOKENS
    assert _previewed(qtbot, editor, text) == spoken


def test_the_preview_of_a_cosyvoice3_cross_lingual_text_is_one_segment(qtbot, cv3_engine) -> None:
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_model(str(cv3_engine.cfg.qwen_dir), cv3_engine.cfg.family)
    editor.set_text_reading("original")
    editor.set_mode("cross_lingual")
    text = " ".join(["The quick brown fox jumps over the lazy dog by the river, again and again."] * 5)
    spoken = list(cv3_engine.spoken_sentences(text, reading="original", mode="cross_lingual"))
    assert spoken == [text]  # the original passes a cross-lingual Fun-CosyVoice3 text through whole
    assert _previewed(qtbot, editor, text) == spoken
    editor.set_mode("zero_shot")  # the same text in another mode is split as usual
    with qtbot.waitSignal(editor.preview_updated, timeout=60000) as blocker:
        editor.refresh_preview_now()
    assert blocker.args[0] == list(cv3_engine.spoken_sentences(text, reading="original", mode="zero_shot"))
    assert len(blocker.args[0]) > 1
