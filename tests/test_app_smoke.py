"""The app starts offscreen on its model screen; a bad folder gets cosycore's message; a good one loads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings

from app.config.settings import AppPaths, Settings
from app.main_window import MainWindow


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    return Settings(store, AppPaths(tmp_path / "data", tmp_path / "cache", tmp_path / "logs"))


def test_window_without_model(qtbot, settings: Settings) -> None:
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    assert w.stack.currentWidget() is w.model_screen
    assert w.model_screen.title.text() == "No model loaded"
    assert w.model_screen.choose_button.isEnabled()
    assert w.model_screen.download_button.isEnabled()


def test_download_button_opens_the_models_dialog(qtbot, settings: Settings, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch, tiny_cv2_model: Path) -> None:
    from PySide6.QtCore import Qt

    from app.widgets.models_dialog import ModelsDialog

    opened: list[ModelsDialog] = []

    def fake_exec(dialog: ModelsDialog) -> int:
        opened.append(dialog)
        dialog.model_chosen.emit(tiny_cv2_model)  # the user picks a model in the dialog
        return 0

    monkeypatch.setattr(ModelsDialog, "exec", fake_exec)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.mouseClick(w.model_screen.download_button, Qt.MouseButton.LeftButton)
    assert len(opened) == 1
    assert opened[0].models_dir == tmp_path / "data" / "models"
    qtbot.waitUntil(lambda: settings.model_folder == tiny_cv2_model, timeout=10_000)
    # the window loads the chosen model; let it finish so no load runs on into the next test
    qtbot.waitUntil(lambda: w.session.model_info is not None or not w.model_screen.error_label.isHidden(),
                    timeout=120_000)


def test_closing_while_a_model_loads_never_destroys_the_running_thread(qtbot, settings: Settings,
                                                                       tiny_cv2_model: Path) -> None:
    """A model load cannot be cancelled: the window closes within its wait, and the engine thread is
    kept (not destroyed with the window, which would end the process) until the load has finished."""
    import gc

    import app.worker.engine_thread as engine_thread

    w = MainWindow(settings)
    engine = w.session.engine
    gate = threading.Event()
    engine.run_on_engine(lambda _engine: gate.wait())  # a call that does not end at a cancel, like a model load
    qtbot.waitUntil(engine.isRunning, timeout=10_000)
    assert not engine.shutdown(100)
    assert engine in engine_thread._FINISHING and engine.parent() is None
    w.deleteLater()
    del w
    gc.collect()
    qtbot.wait(50)
    gate.set()
    qtbot.waitUntil(lambda: engine not in engine_thread._FINISHING, timeout=30_000)
    assert engine.wait(10_000)


def test_bad_folder_shows_message(qtbot, settings: Settings, tmp_path: Path) -> None:
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    assert not w.models_ctl.try_model_dir(tmp_path / "missing")
    assert w.model_screen.error_label.isVisible()
    assert "does not exist" in w.model_screen.error_label.text()
    assert settings.model_folder is None


def test_good_folder_is_loaded_and_remembered(qtbot, settings: Settings, tiny_cv2_model: Path) -> None:
    w = MainWindow(settings)
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.model_chosen, timeout=5000) as sig:
        assert w.models_ctl.try_model_dir(tiny_cv2_model)
    assert sig.args[0].family == "cosyvoice2"
    assert settings.model_folder == tiny_cv2_model
    qtbot.waitUntil(lambda: w.session.model_info is not None or not w.model_screen.error_label.isHidden(),
                    timeout=120_000)
    assert w.session.model_info is not None and w.session.model_info.family == "cosyvoice2"
    assert w.stack.currentWidget() is w.studio
    assert "CosyVoice2" in w.model_label.text()
    w.close()


def test_incomplete_folder_fails_to_load_with_a_readable_message(qtbot, settings: Settings, cv2_dir: Path) -> None:
    # The conformance folder has the yaml and weights but neither ONNX model nor tokenizer files: the
    # folder check refuses it at once, before any loading, and names every missing file (issue 25 item 7).
    w = MainWindow(settings)
    qtbot.addWidget(w)
    assert not w.models_ctl.try_model_dir(cv2_dir)
    assert w.session.model_info is None and w.stack.currentWidget() is w.model_screen
    text = w.model_screen.error_label.text()
    for missing in ("campplus.onnx", "speech_tokenizer_v2.onnx", "CosyVoice-BlankEN/vocab.json",
                    "CosyVoice-BlankEN/merges.txt"):
        assert f"{missing} is missing" in text
    assert settings.model_folder is None
    w.close()
