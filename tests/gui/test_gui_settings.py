"""Typed settings: defaults, round trips through the INI store, the version key and migration."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.settings import SETTINGS_VERSION, AppPaths, Settings


def _store(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)


def _paths(tmp_path: Path) -> AppPaths:
    return AppPaths(data=tmp_path / "d", cache=tmp_path / "c", logs=tmp_path / "l")


def test_defaults_and_version_key(tmp_path: Path) -> None:
    s = Settings(_store(tmp_path), _paths(tmp_path))
    assert s.version == SETTINGS_VERSION
    assert s.model_folder is None
    assert (s.mode, s.speed, s.seed, s.stream, s.language, s.device) == ("zero_shot", 1.0, None, True, "", "auto")
    assert s.paths.voices == tmp_path / "d" / "voices"


def test_values_survive_a_restart(tmp_path: Path) -> None:
    s = Settings(_store(tmp_path), _paths(tmp_path))
    s.model_folder = tmp_path / "model"
    s.mode, s.speed, s.seed, s.stream = "instruct", 1.25, 42, False
    s.language, s.output_device, s.voice_name = "zh_CN", "null", "Anna"
    s.sync()
    again = Settings(_store(tmp_path), _paths(tmp_path))  # INI hands everything back as strings
    assert again.model_folder == tmp_path / "model"
    assert (again.mode, again.speed, again.seed, again.stream) == ("instruct", 1.25, 42, False)
    assert (again.language, again.output_device, again.voice_name) == ("zh_CN", "null", "Anna")
    again.seed = None
    assert again.seed is None


def test_bad_stored_values_fall_back_to_defaults(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.setValue("settings_version", SETTINGS_VERSION)
    store.setValue("synthesis/mode", "shout")
    store.setValue("synthesis/speed", "fast")
    store.setValue("synthesis/stream", "maybe")
    store.setValue("ui/language", "klingon")
    store.setValue("synthesis/seed", "x")
    s = Settings(store, _paths(tmp_path))
    assert (s.mode, s.speed, s.stream, s.language, s.seed) == ("zero_shot", 1.0, True, "", 0)
    store.setValue("synthesis/speed", 9.0)
    assert s.speed == 2.0  # clamped to the slider's range


def test_setters_refuse_unknown_choices(tmp_path: Path) -> None:
    s = Settings(_store(tmp_path), _paths(tmp_path))
    with pytest.raises(ValueError):
        s.mode = "shout"
    with pytest.raises(ValueError):
        s.language = "fr"


def test_unversioned_store_is_migrated(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.setValue("model/folder", "/models/cv2")
    store.setValue("leftover/key", 1)
    store.sync()
    s = Settings(_store(tmp_path), _paths(tmp_path))
    assert s.version == SETTINGS_VERSION
    assert s.model_folder == Path("/models/cv2")  # known keys are kept
    assert "leftover/key" not in _store(tmp_path).allKeys()  # unknown ones are dropped


def test_newer_store_is_read_but_not_rewritten(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.setValue("settings_version", SETTINGS_VERSION + 5)
    store.setValue("future/key", "kept")
    store.setValue("synthesis/mode", "instruct")
    s = Settings(store, _paths(tmp_path))
    assert s.version == SETTINGS_VERSION + 5
    assert s.mode == "instruct"
    assert store.value("future/key") == "kept"


def test_home_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path))
    paths = AppPaths.default()
    assert paths.voices == tmp_path / "data" / "voices"
    assert paths.logs == tmp_path / "logs"
    s = Settings()
    s.mode = "instruct"
    s.sync()
    assert (tmp_path / "settings.ini").is_file()
