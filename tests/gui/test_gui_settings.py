"""Typed settings: defaults, round trips through the INI store, the version key and migration, the quality
mode and the measured real-time factors."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.config.settings import MAX_MEASURED_RTFS, QUALITIES, READINGS, SETTINGS_VERSION, AppPaths, Settings


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


def test_quality_round_trips_and_matches_the_engine(tmp_path: Path) -> None:
    from cosycore.perf import QUALITY_MODES

    assert ("auto", *QUALITY_MODES) == QUALITIES
    s = Settings(_store(tmp_path), _paths(tmp_path))
    assert s.quality == "auto"  # the default: exact on a GPU, the best live mode on a CPU
    s.quality = "draft"
    s.sync()
    assert Settings(_store(tmp_path), _paths(tmp_path)).quality == "draft"
    with pytest.raises(ValueError):
        s.quality = "turbo"
    store = _store(tmp_path)
    store.setValue("model/quality", "turbo")  # hand-edited
    assert Settings(store, _paths(tmp_path)).quality == "auto"


def test_threads_round_trip(tmp_path: Path) -> None:
    s = Settings(_store(tmp_path), _paths(tmp_path))
    assert s.threads == 0  # automatic
    s.threads = 1
    s.sync()
    assert Settings(_store(tmp_path), _paths(tmp_path)).threads == 1
    with pytest.raises(ValueError):
        s.threads = -1
    store = _store(tmp_path)
    store.setValue("perf/threads", "many")  # hand-edited
    assert Settings(store, _paths(tmp_path)).threads == 0


def test_text_reading_round_trips(tmp_path: Path) -> None:
    from cosycore.config import TEXT_READINGS

    assert ("", *TEXT_READINGS) == READINGS
    s = Settings(_store(tmp_path), _paths(tmp_path))
    assert s.text_reading == ""  # follows the quality mode
    s.text_reading = "improved"
    s.sync()
    assert Settings(_store(tmp_path), _paths(tmp_path)).text_reading == "improved"
    with pytest.raises(ValueError):
        s.text_reading = "fancy"
    store = _store(tmp_path)
    store.setValue("synthesis/text_reading", "fancy")  # hand-edited
    assert Settings(store, _paths(tmp_path)).text_reading == ""


def test_measured_rtfs_round_trip_and_stay_bounded(tmp_path: Path) -> None:
    s = Settings(_store(tmp_path), _paths(tmp_path))
    assert s.measured_rtfs == {} and s.measured_rtf("m|cpu|exact") is None
    s.set_measured_rtf("/models/cv2|cpu|exact", 2.5)
    s.set_measured_rtf("/models/模型, v2|cuda:0|fast", 0.125)  # commas and CJK survive the INI file
    s.sync()
    again = Settings(_store(tmp_path), _paths(tmp_path))
    assert again.measured_rtfs == {"/models/cv2|cpu|exact": 2.5, "/models/模型, v2|cuda:0|fast": 0.125}
    with pytest.raises(ValueError):
        again.set_measured_rtf("x", float("nan"))
    for i in range(MAX_MEASURED_RTFS + 5):
        again.set_measured_rtf(f"m{i}|cpu|exact", 1.0 + i)
    again.set_measured_rtf("m0|cpu|exact", 9.0)  # updating moves a key to the newest end
    kept = again.measured_rtfs
    assert len(kept) == MAX_MEASURED_RTFS
    assert list(kept)[-1] == "m0|cpu|exact" and kept["m0|cpu|exact"] == 9.0
    assert "m1|cpu|exact" not in kept and "/models/cv2|cpu|exact" not in kept


def test_bad_measured_rtfs_are_ignored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.setValue("perf/rtf", "{not json")
    s = Settings(store, _paths(tmp_path))
    assert s.measured_rtfs == {}
    store.setValue("perf/rtf", '{"a": 1.5, "b": -1, "c": "x", "d": null, "e": 1e999}')
    assert s.measured_rtfs == {"a": 1.5}
    store.setValue("perf/rtf", "[1, 2]")
    assert s.measured_rtfs == {}
