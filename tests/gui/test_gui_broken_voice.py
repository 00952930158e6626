"""Issue 12 item 6 in the app: a broken file in the voices folder never stops the app from starting;
it is listed as broken, with the reason as its tooltip, and cannot be chosen."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from PySide6.QtCore import Qt

from app.main_window import MainWindow


def _broken_files(folder: Path) -> None:
    (folder / "junk.cosyvoice").write_bytes(b"not a zip at all")
    with zipfile.ZipFile(folder / "infinity.cosyvoice", "w") as zf:  # the probe's sample_rate: Infinity
        zf.writestr("voice.json", '{"format": "cosy-studio-voice", "format_version": 1, "sample_rate": Infinity}')
    with zipfile.ZipFile(folder / "nested.cosyvoice", "w") as zf:  # deeply nested JSON
        zf.writestr("voice.json", "[" * 100_000 + "]" * 100_000)
    (folder / "huge.cosyvoice").write_text(json.dumps({"not": "a voice"}))


def test_app_starts_with_broken_voice_files(qtbot, settings, fake_engine, library_with_voice,
                                            tiny_cv2_model: Path) -> None:
    _broken_files(library_with_voice.root)
    w = MainWindow(settings, model_dir=tiny_cv2_model, engine=fake_engine)
    qtbot.addWidget(w)
    w.show()
    panel = w.voice_panel
    assert panel.names() == ["Tester"] and panel.voice is not None and panel.voice.name == "Tester"
    broken = dict(panel.broken_files())
    assert sorted(Path(p).name for p in broken) == ["huge.cosyvoice", "infinity.cosyvoice", "junk.cosyvoice",
                                                     "nested.cosyvoice"]
    assert all("damaged" in reason or "not a Cosy Studio voice file" in reason for reason in broken.values())
    row = next(i for i in range(panel.list.count()) if "junk.cosyvoice" in panel.list.item(i).text())
    item = panel.list.item(row)
    assert "(broken)" in item.text() and not item.flags() & Qt.ItemFlag.ItemIsSelectable
    panel.select("Tester")  # selecting by name skips the broken rows
    assert panel.voice.name == "Tester"
