"""The app starts offscreen and says no model is loaded; a bad folder gets cosycore's message."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QMessageBox

from app.main_window import MainWindow


def test_window_without_model(qtbot) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert w.status_label.text() == "No model loaded"
    assert w.choose_button.isEnabled()


def test_bad_folder_shows_message(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    w = MainWindow()
    qtbot.addWidget(w)
    assert not w.try_model_dir(tmp_path / "missing")
    assert shown and "does not exist" in shown[0]


def test_good_folder_is_accepted(qtbot, cv2_dir: Path) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.model_chosen, timeout=5000) as sig:
        assert w.try_model_dir(cv2_dir)
    assert sig.args[0].family == "cosyvoice2"
    assert "CosyVoice2" in w.status_label.text()
