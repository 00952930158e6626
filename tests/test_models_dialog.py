"""The Models dialog against a fake hub on 127.0.0.1: download, cancel/resume, offline, own folders,
verify and delete, driven through its real buttons."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

from app.widgets.models_dialog import PROGRESS_STEPS, ModelsDialog
from cosycore import hub as dl
from cosycore.hub import transfer
from cosycore.testing.fake_hub import FakeHub, FakeRepo
from tests.conftest import CV2_REPO, click

CV2 = "cosyvoice2-0.5b"
WAIT_MS = 30_000


@pytest.fixture(autouse=True)
def one_quick_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transfer, "RETRY_DELAYS", (0.01,))


@pytest.fixture
def dialog(open_models_dialog, hub: FakeHub) -> ModelsDialog:
    return open_models_dialog(hub.url)


def test_nothing_is_fetched_until_download_is_pressed(dialog: ModelsDialog, hub: FakeHub) -> None:
    assert hub.log == []
    assert dialog.table.rowCount() == 0
    assert {r.action.text() for r in dialog.rows.values()} == {"Download"}
    assert dialog.rows[CV2].status.text().startswith("About 3.")


def test_download_shows_progress_and_lists_the_model(qtbot, dialog: ModelsDialog, cv2_repo: FakeRepo) -> None:
    row = dialog.rows[CV2]
    seen: list[dl.DownloadProgress] = []
    with qtbot.waitSignal(dialog.download_finished, timeout=WAIT_MS) as finished:
        click(qtbot, row.action)
        assert dialog.task is not None and row.action.text() == "Cancel"
        assert not dialog.rows["fun-cosyvoice3-0.5b-2512"].action.isEnabled()  # one download at a time
        dialog.task.progressed.connect(seen.append)
    qtbot.waitUntil(lambda: dialog.task is None, timeout=WAIT_MS)
    model = finished.args[0]
    assert model.family == "cosyvoice2" and (model.folder / "llm.pt").read_bytes() == cv2_repo.files["llm.pt"]
    assert seen and seen[-1].phase == "done"
    assert dialog.table.rowCount() == 1
    assert [dialog.table.item(0, c).text() for c in range(3)] == ["CosyVoice2-0.5B", "CosyVoice2", "17.3 MB"]
    assert row.action.text() == "Installed" and not row.action.isEnabled()
    assert row.progress.value() == PROGRESS_STEPS and "is installed" in dialog.status_label.text()
    assert dialog.selected_model() is not None and dialog.selected_model().folder == model.folder


def test_cancel_then_resume(qtbot, dialog: ModelsDialog, hub: FakeHub, cv2_repo: FakeRepo) -> None:
    size = len(cv2_repo.files["llm.pt"])
    hub.hold = {f"{CV2_REPO}/llm.pt": size // 2}
    row = dialog.rows[CV2]
    click(qtbot, row.action)
    qtbot.waitUntil(hub.holding.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "llm.pt" in row.status.text() and row.progress.value() > 0, timeout=WAIT_MS)
    assert row.progress.value() < PROGRESS_STEPS
    with qtbot.waitSignal(dialog.download_failed, timeout=WAIT_MS):
        click(qtbot, row.action)  # Cancel
        hub.release.set()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=WAIT_MS)
    assert row.action.text() == "Resume" and row.discard.isVisible()
    assert "Paused" in row.status.text() and "Resume" in dialog.status_label.text()
    assert dialog.table.rowCount() == 0 and not dialog.error_label.isVisible()

    hub.hold = {}
    before = len(hub.log)
    with qtbot.waitSignal(dialog.download_finished, timeout=WAIT_MS):
        click(qtbot, row.action)  # Resume
    ranges = [r.range for r in hub.log[before:] if r.path.startswith("/lfs/") and r.range]
    assert len(ranges) == 1 and 0 < int(ranges[0].split("=")[1].rstrip("-")) < size  # resumed, not restarted
    qtbot.waitUntil(lambda: dialog.task is None, timeout=WAIT_MS)
    assert dialog.table.rowCount() == 1 and not row.discard.isVisible()


def test_without_network_the_dialog_points_to_own_folders(qtbot, open_models_dialog) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    dlg = open_models_dialog(url)
    with qtbot.waitSignal(dlg.download_failed, timeout=WAIT_MS) as failed:
        click(qtbot, dlg.rows[CV2].action)
    # Advice for a GUI user: the Mirror field and the button, not an environment variable or a flag.
    assert "Use a folder I already have" in failed.args[0] and "Mirror" in failed.args[0]
    assert "HF_ENDPOINT" not in failed.args[0] and "--model" not in failed.args[0]
    qtbot.waitUntil(lambda: dlg.task is None, timeout=WAIT_MS)
    assert dlg.error_label.isVisibleTo(dlg) and "Use a folder I already have" in dlg.error_label.text()
    assert dlg.own_button.isEnabled() and dlg.rows[CV2].action.text() == "Download"


def test_use_a_folder_i_already_have(qtbot, dialog: ModelsDialog, tiny_cv2_model: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path))
    click(qtbot, dialog.own_button)
    assert "is not a CosyVoice2 or Fun-CosyVoice3 release folder" in dialog.error_label.text()

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tiny_cv2_model))
    chosen: list[Path] = []
    remembered: list[tuple[Path, ...]] = []
    dialog.model_chosen.connect(chosen.append)
    dialog.own_folders_changed.connect(remembered.append)
    click(qtbot, dialog.own_button)
    assert chosen == [tiny_cv2_model] and remembered == [(tiny_cv2_model,)]
    assert dialog.own_folders == [tiny_cv2_model] and not dialog.error_label.isVisibleTo(dialog)
    assert dialog.table.item(0, 0).text().endswith("(your folder)")
    assert dialog.delete_button.text() == "Forget"
    click(qtbot, dialog.delete_button)  # forgets it; the files stay
    assert dialog.table.rowCount() == 0 and (tiny_cv2_model / "llm.pt").is_file()


def test_verify_use_and_delete(qtbot, hub: FakeHub, tmp_path: Path, open_models_dialog,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    model = dl.download_model(CV2, tmp_path / "models", endpoint=hub.url)
    smoke_calls: list[Path] = []
    dlg = open_models_dialog(hub.url, smoke_test=smoke_calls.append)
    assert dlg.selected_model() is not None and dlg.delete_button.text() == "Delete…"

    with qtbot.waitSignal(dlg.verify_finished, timeout=WAIT_MS) as done:
        click(qtbot, dlg.verify_button)
    assert done.args[0].ok and dlg.status_label.text().startswith("OK: 10 files") and smoke_calls == []
    qtbot.waitUntil(lambda: dlg.task is None, timeout=WAIT_MS)

    dlg.smoke_box.setChecked(True)
    with qtbot.waitSignal(dlg.verify_finished, timeout=WAIT_MS):
        click(qtbot, dlg.verify_button)
    assert smoke_calls == [model.folder] and "test synthesis" in dlg.status_label.text()
    qtbot.waitUntil(lambda: dlg.task is None, timeout=WAIT_MS)

    (model.folder / "hift.pt").write_bytes(b"damaged")
    with qtbot.waitSignal(dlg.verify_finished, timeout=WAIT_MS) as done:
        click(qtbot, dlg.verify_button)
    assert not done.args[0].ok and "hift.pt has 7 bytes" in dlg.error_label.text()
    qtbot.waitUntil(lambda: dlg.task is None, timeout=WAIT_MS)

    with qtbot.waitSignal(dlg.model_chosen, timeout=WAIT_MS) as chosen:
        click(qtbot, dlg.use_button)
    assert chosen.args[0] == model.folder and dlg.result() == QDialog.DialogCode.Accepted
    dlg.show()

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    click(qtbot, dlg.delete_button)
    assert model.folder.is_dir()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    # the damaged hift.pt no longer matches the install record, so it might be the user's own file and a
    # delete would only forget the folder (tests/test_download.py); once it is gone, the rest is ours
    (model.folder / "hift.pt").unlink()
    with qtbot.waitSignal(dlg.models_changed, timeout=WAIT_MS):
        click(qtbot, dlg.delete_button)
    assert not model.folder.exists() and dlg.table.rowCount() == 0
    assert dlg.rows[CV2].action.text() == "Download"


def test_closing_the_dialog_stops_the_download(qtbot, dialog: ModelsDialog, hub: FakeHub, cv2_repo: FakeRepo,
                                               tmp_path: Path) -> None:
    hub.hold = {f"{CV2_REPO}/llm.pt": len(cv2_repo.files["llm.pt"]) // 2}
    click(qtbot, dialog.rows[CV2].action)
    qtbot.waitUntil(hub.holding.is_set, timeout=WAIT_MS)
    releaser = threading.Timer(0.3, hub.release.set)  # the server lets go while the dialog waits
    releaser.start()
    dialog.reject()
    releaser.join()
    assert dialog.task is None and not dialog.isVisible()
    assert [p.model_id for p in dl.list_partial(tmp_path / "models")] == [CV2]
    assert not (tmp_path / "models" / "CosyVoice2-0.5B").exists()


def test_another_models_folder(qtbot, dialog: ModelsDialog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(other))
    with qtbot.waitSignal(dialog.models_dir_changed, timeout=WAIT_MS) as changed:
        click(qtbot, dialog.change_folder_button)
    assert changed.args[0] == other and dialog.models_dir == other and dialog.folder_label.text() == str(other)
