"""Issue 12 item 16 in the app: a model whose files had no published hash is shown as unverified in
the Models dialog, never silently as verified."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.widgets.models_dialog import ModelsDialog
from cosycore import hub as dl
from cosycore.testing.fake_hub import FakeHub, FakeRepo


@pytest.mark.parametrize("hashes", [False, True], ids=["listing_without_hashes", "listing_with_hashes"])
def test_models_dialog_marks_unverified_models(qtbot, cv2_repo: FakeRepo, tmp_path: Path, hashes: bool) -> None:
    with FakeHub(max_requests=100, max_seconds=60) as hub:
        hub.add_repo(cv2_repo)
        hub.no_hashes = not hashes
        dl.download_model("cosyvoice2-0.5b", tmp_path / "models", endpoint=hub.url)
    dialog = ModelsDialog(tmp_path / "models", endpoint="http://127.0.0.1:9")
    qtbot.addWidget(dialog)
    name = dialog.table.item(0, 0)
    assert ("(unverified)" in name.text()) is (not hashes)
    assert ("No published hash for" in name.toolTip()) is (not hashes)
