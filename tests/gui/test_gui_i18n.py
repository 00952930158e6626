"""Translations: Qt .ts/.qm files for English and Simplified Chinese, chosen from the locale or the setting."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QLocale

from app.config.resources import translations_dir
from app.main import install_translators
from app.widgets.recorder import check_recording
from app.widgets.synthesis_controls import SynthesisControls
from app.widgets.text_editor import TextEditor


@pytest.fixture
def translated(qapp):
    installed: list = []

    def install(language: str) -> list:
        installed.extend(install_translators(qapp, language))
        return installed

    yield install
    for t in installed:
        qapp.removeTranslator(t)


def test_every_chinese_string_is_translated() -> None:
    ts = ET.parse(translations_dir() / "cosy_studio_zh_CN.ts").getroot()
    messages = list(ts.iter("message"))
    assert len(messages) > 150
    unfinished = [m.find("source").text for m in messages if m.find("translation").get("type") == "unfinished"]
    assert unfinished == [], "translate these in Qt Linguist (pyside6-linguist), then run resources/i18n/update.sh"
    for name in ("cosy_studio_zh_CN.qm", "cosy_studio_en.qm"):
        assert (translations_dir() / name).stat().st_size > 0


def test_chinese_interface(qtbot, translated) -> None:
    assert any("cosy_studio_zh_CN" in t.filePath() for t in translated("zh_CN"))
    controls = SynthesisControls()
    qtbot.addWidget(controls)
    assert controls.speak_button.text() == "朗读"
    assert controls.mode_buttons["cross_lingual"].text() == "跨语种"
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_text("你好")
    assert editor.count_label.text() == "2 个字符 · 1 句"
    problems, _ = check_recording(np.zeros(24000, np.float32), 24000)
    assert any("录音长" in p for p in problems)  # module-level messages are translated too


def test_english_plurals_and_the_setting_override(qtbot, translated, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("zh_CN")))
    translated("en")  # the setting wins over a Chinese system locale
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_text("a")
    assert editor.count_label.text() == "1 character · 1 sentence"
    editor.set_text("ab")
    assert editor.count_label.text() == "2 characters · 1 sentence"
    assert QCoreApplication.translate("SynthesisControls", "Speak") == "Speak"


def test_system_locale_is_followed(qtbot, translated, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QLocale, "system", staticmethod(lambda: QLocale("zh_CN")))
    translated("")
    assert QCoreApplication.translate("SynthesisControls", "Speak") == "朗读"


@pytest.mark.parametrize("language", ["fr_FR", "C"])
def test_unknown_locale_falls_back_to_english(qtbot, translated, language: str) -> None:
    files = [Path(t.filePath()).name for t in translated(language)]
    assert "cosy_studio_en.qm" in files and not any("zh_CN" in f for f in files)
    assert QCoreApplication.translate("SynthesisControls", "Speak") == "Speak"
    editor = TextEditor()
    qtbot.addWidget(editor)
    editor.set_text("ab")
    assert editor.count_label.text() == "2 characters · 1 sentence"  # the plural forms come from the English file


def test_all_sources_are_in_the_translation_files() -> None:
    """A string added to the code without running resources/i18n/update.sh shows up here."""
    import ast

    repo = Path(__file__).resolve().parents[2]
    ts = ET.parse(translations_dir() / "cosy_studio_zh_CN.ts").getroot()
    known = {m.find("source").text for m in ts.iter("message")}
    ours = sorted((repo / "app").rglob("*.py"))
    assert any(p.name == "models_dialog.py" for p in ours)
    missing = []
    for path in ours:
        rel = path.relative_to(repo).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tr":
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and arg.value not in known:
                    missing.append((rel, arg.value))
    assert missing == [], "run resources/i18n/update.sh, then translate the new strings in Qt Linguist"
