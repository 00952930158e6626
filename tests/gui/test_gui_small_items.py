"""Issue 25's smaller items: the typed sentence count, each mode with its own text (kept across a restart),
the mode saved at once, a first window that fits the screen, and the server URL shown whole."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.controllers.server import LocalServerDialog
from app.main_window import MainWindow


def test_five_typed_sentences_are_five(qtbot, window: MainWindow) -> None:
    window.editor.set_text("One. Two! Three? Four. Five.")
    assert "5 sentence" in window.editor.count_label.text()
    qtbot.waitUntil(lambda: bool(window.editor.sentences), timeout=20_000)
    label = window.editor.count_label.text()
    assert "5 sentence" in label
    parts = len(window.editor.sentences)
    assert parts == 5 or f"spoken in {parts} part" in label  # the engine's pieces, said as such


def test_each_mode_keeps_its_text_and_the_mode_is_saved_at_once(qtbot, window: MainWindow, settings,
                                                               recorded_chunks, tiny_cv2_model: Path) -> None:
    from conftest import FakeEngine, open_window

    w = window
    w.controls.set_mode("zero_shot")
    w.editor.set_text("Clone text.")
    w.controls.set_mode("script")
    assert w.editor.text() == ""
    assert settings.mode == "script"  # saved now, not at quit
    w.editor.set_text("Anna: Hello there.")
    w.controls.set_mode("zero_shot")
    assert w.editor.text() == "Clone text."
    w.controls.set_mode("script")
    assert w.editor.text() == "Anna: Hello there."
    w.close()

    again = open_window(qtbot, settings, FakeEngine(recorded_chunks), tiny_cv2_model)
    assert again.controls.mode == "script" and again.editor.text() == "Anna: Hello there."
    again.controls.set_mode("zero_shot")
    assert again.editor.text() == "Clone text."


def test_first_window_fits_the_screen(qtbot, settings, fake_engine, library_with_voice, tiny_cv2_model) -> None:
    from conftest import open_window

    w = open_window(qtbot, settings, fake_engine, tiny_cv2_model, size=None)
    free = QApplication.primaryScreen().availableGeometry()
    assert w.width() <= max(free.width(), w.minimumSizeHint().width())
    assert w.height() <= max(free.height(), w.minimumSizeHint().height())
    if free.width() >= 1024 and free.height() >= 768:
        assert w.width() <= free.width() and w.height() <= free.height()


def test_server_url_is_shown_whole(qtbot, window: MainWindow) -> None:
    dialog = LocalServerDialog(window.server, window)
    qtbot.addWidget(dialog)
    dialog.show()
    url = dialog.url
    assert url.text().startswith("http://") and url.width() >= url.fontMetrics().horizontalAdvance(url.text())
