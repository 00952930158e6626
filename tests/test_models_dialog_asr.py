"""The Models dialog's speech-recognition section against a fake hub on 127.0.0.1: download with
progress, verify with a test transcription, delete; a recognizer put in place by hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QMessageBox

from app.widgets.models_dialog import PROGRESS_STEPS, ModelsDialog
from cosycore.hub import transfer
from cosycore.testing.fake_hub import FakeHub, FakeRepo
from tests.conftest import click, serving

SV = "sensevoice-small"
SV_REPO = "csukuangfj/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17"
WAIT_MS = 30_000


@pytest.fixture
def hub(tiny_sensevoice: Path, monkeypatch: pytest.MonkeyPatch):
    """The fake hub serving the SenseVoice repository (with the float model.onnx, never fetched)."""
    monkeypatch.setattr(transfer, "RETRY_DELAYS", (0.01,))
    with serving(FakeRepo.from_folder(SV_REPO, tiny_sensevoice, {"model.onnx": b"\0" * 5000})) as server:
        yield server


@pytest.fixture
def dialog(open_models_dialog, hub: FakeHub) -> ModelsDialog:
    return open_models_dialog(hub.url)


def test_download_verify_and_delete_the_recognizer(qtbot, dialog: ModelsDialog, hub: FakeHub,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    section = dialog.asr_section
    row = section.rows[SV]
    assert dialog.rows[SV] is row and row.action.text() == "Download" and "239.5 MB" in row.status.text()
    assert not section.verify_buttons[SV].isVisible() and hub.log == []
    with qtbot.waitSignal(dialog.download_finished, timeout=WAIT_MS) as finished:
        click(qtbot, row.action)
        assert row.action.text() == "Cancel" and not dialog.rows["cosyvoice2-0.5b"].action.isEnabled()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=WAIT_MS)
    model = finished.args[0]
    assert model.kind == "asr" and (model.folder / "model.int8.onnx").is_file()
    assert not any(r.path.endswith("/model.onnx") for r in hub.log)  # the float model is not fetched
    assert row.action.text() == "Installed" and row.progress.value() == PROGRESS_STEPS
    assert dialog.table.rowCount() == 0  # never among the voice models: they cannot load it

    with qtbot.waitSignal(dialog.verify_finished, timeout=WAIT_MS) as verified:
        click(qtbot, section.verify_buttons[SV])
    report = verified.args[0]
    assert report.ok and report.kind == "asr" and report.smoke_seconds is not None
    assert "test transcription ran" in dialog.status_label.text()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=WAIT_MS)

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    click(qtbot, section.delete_buttons[SV])
    assert not model.folder.exists() and row.action.text() == "Download"


def test_a_recognizer_put_in_place_by_hand_counts_as_installed(qtbot, hub: FakeHub, tmp_path: Path, open_models_dialog,
                                                               tiny_sensevoice: Path) -> None:
    shutil.copytree(tiny_sensevoice, tmp_path / "models" / "SenseVoice-Small")
    dlg = open_models_dialog(hub.url)
    section = dlg.asr_section
    assert section.rows[SV].action.text() == "Installed" and not section.rows[SV].action.isEnabled()
    assert section.verify_buttons[SV].isEnabled()
    assert not section.delete_buttons[SV].isEnabled()  # not downloaded by Cosy Studio: never deleted by it
    dlg.show_asr()
    assert dlg.status_label.text() == ""  # nothing to ask for: it is there
