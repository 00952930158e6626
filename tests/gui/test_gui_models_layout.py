"""Models, any time, and a window that fits (issue 14, problems 5, 6 and 7): File › Models… with a model
loaded; a broken folder is never offered for use and its error shows inside the dialog; the mirror field
and the reason ModelScope is greyed out; the window fits 1024×768; a quality switch keeps the studio in
view with progress in the status bar and clears the old model's figures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog

from app.main_window import MainWindow
from app.widgets.models_dialog import ModelsDialog
from tests.conftest import copy_release


def test_file_models_opens_with_a_model_loaded(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[ModelsDialog] = []
    monkeypatch.setattr(ModelsDialog, "exec", lambda self: (opened.append(self), QDialog.DialogCode.Rejected)[1])
    action = next(a for a in window.findChildren(QAction) if a.text() == "&Models…")
    assert action.isEnabled() and window.stack.currentWidget() is window.studio
    action.trigger()
    assert len(opened) == 1 and opened[0].endpoint_edit.isVisibleTo(opened[0])


def test_a_partial_folder_is_never_usable_and_says_why_in_the_dialog(qtbot, tmp_path: Path,
                                                                     tiny_cv2_model: Path) -> None:
    models = tmp_path / "models"
    broken = copy_release(tiny_cv2_model, models / "CosyVoice2-0.5B")
    (broken / "flow.pt").unlink()
    dialog = ModelsDialog(models)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.table.rowCount() == 1 and "incomplete" in dialog.table.item(0, 0).text()
    dialog.table.selectRow(0)
    assert not dialog.use_button.isEnabled()
    assert dialog.error_label.isVisibleTo(dialog) and "flow.pt" in dialog.error_label.text()
    chosen: list[Path] = []
    dialog.model_chosen.connect(chosen.append)
    assert not dialog.use_folder(broken) and chosen == []
    assert "flow.pt" in dialog.error_label.text()


def test_mirror_field_is_remembered(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    def type_mirror(self: ModelsDialog) -> QDialog.DialogCode:
        self.endpoint_edit.setText("hf-mirror.example")
        self.endpoint_edit.editingFinished.emit()
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(ModelsDialog, "exec", type_mirror)
    window.models_ctl.open_models_dialog()
    assert window.settings.hub_endpoint == "https://hf-mirror.example"
    seen: list[str | None] = []
    monkeypatch.setattr(ModelsDialog, "exec", lambda self: (seen.append(self.endpoint), 0)[1])
    window.models_ctl.open_models_dialog()
    assert seen == ["https://hf-mirror.example"]


@pytest.mark.skipif(importlib.util.find_spec("modelscope") is not None, reason="modelscope is installed here")
def test_a_greyed_out_source_says_why(qtbot, tmp_path: Path) -> None:
    dialog = ModelsDialog(tmp_path / "models")
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.source_note.isVisibleTo(dialog) and "modelscope package is not installed" in \
        dialog.source_note.text()
    index = dialog.source_combo.findData("modelscope")
    assert "not installed" in dialog.source_combo.itemText(index)


@pytest.mark.parametrize("mode", ["zero_shot", "cross_lingual", "instruct"])
def test_the_window_fits_1024_by_768(qtbot, window: MainWindow, mode: str) -> None:
    w = window
    w.controls.set_family("cosyvoice3")  # the longer preset list
    w.controls.set_mode(mode)
    w.ttfa_label.setText("First audio 12.34 s")
    w.rtf_label.setText("RTF 10.50")
    assert w.minimumSizeHint().width() <= 1000 and w.minimumSizeHint().height() <= 700
    w.resize(1000, 700)  # 1024×768 less a window frame and a panel
    qtbot.waitUntil(lambda: (w.width(), w.height()) == (1000, 700), timeout=2000)


def test_a_quality_switch_keeps_the_studio_and_clears_old_figures(qtbot, window: MainWindow) -> None:
    w = window
    w.ttfa_label.setText("First audio 1.00 s")
    w.rtf_label.setText("RTF 0.50")
    w.controls.set_family("cosyvoice2")
    w.controls.set_mode("instruct")
    w.controls.instruct_edit.setText("Speak slowly.")
    seen = []
    w.session.engine.load_started.connect(lambda _f: seen.append((w.stack.currentWidget() is w.studio,
                                                          w.ttfa_label.text(), w.rtf_label.text(),
                                                          w.models_ctl.progress.isVisible())))
    with qtbot.waitSignal(w.session.engine.model_loaded, timeout=5000):
        w.quality_actions["fast"].trigger()
    assert seen == [(True, "", "", True)]
    assert w.stack.currentWidget() is w.studio and not w.models_ctl.progress.isVisible()
    assert w.controls.instruct_edit.text() == "Speak slowly." and w.controls.mode == "instruct"
