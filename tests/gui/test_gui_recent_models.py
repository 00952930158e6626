"""Models (issue 25, item 7, the app's side): every folder loaded is remembered, File › Recent models
switches to one with one click, and the Models dialog lists the folders the user loaded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.main_window import MainWindow
from app.widgets.models_dialog import ModelsDialog


def test_recent_models_menu_switches_with_one_click(qtbot, window: MainWindow, tiny_cv2_model: Path,
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = window
    s = w.session
    assert s.settings.recent_models == [tiny_cv2_model]
    other = tmp_path / "second-model"
    shutil.copytree(tiny_cv2_model, other, symlinks=True)
    assert w.models_ctl.try_model_dir(other)
    qtbot.waitUntil(lambda: s.model_info is not None and Path(s.model_info.model_dir) == other, timeout=5000)
    assert s.settings.recent_models == [other, tiny_cv2_model]

    menu = w.recent_models_ctl.menu
    menu.aboutToShow.emit()
    actions = menu.actions()
    assert [a.toolTip() for a in actions] == [str(other), str(tiny_cv2_model)]
    assert actions[0].isChecked() and not actions[1].isChecked()
    actions[1].trigger()  # one click: back to the first model
    qtbot.waitUntil(lambda: s.model_info is not None and Path(s.model_info.model_dir) == tiny_cv2_model,
                    timeout=5000)
    assert s.engine.loads[-1][0] == str(tiny_cv2_model)
    assert s.settings.recent_models == [tiny_cv2_model, other]

    # The Models dialog lists both (neither is in the app's own models folder).
    shown: list[ModelsDialog] = []
    monkeypatch.setattr(ModelsDialog, "exec", lambda self: shown.append(self) or 0)
    w.models_ctl.open_models_dialog()
    folders = {m.folder for m in shown[0].installed()}
    assert {tiny_cv2_model, other} <= folders
    shutil.rmtree(other)
    menu.aboutToShow.emit()
    assert not menu.actions()[1].isEnabled() and "missing" in menu.actions()[1].text()
