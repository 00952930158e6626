"""Typed access to the app's persistent settings and file locations.

:class:`Settings` is the only code that touches :class:`QSettings` keys. Each setting is a typed
property with a default, so a missing, stale or hand-edited value can never reach the rest of the
app as the wrong type. The store carries a ``settings_version`` key; :meth:`Settings.migrate` brings
older stores up to :data:`SETTINGS_VERSION` once, when the settings are opened.

File locations (saved voices, logs, cache) come from :mod:`cosycore.paths`, the one definition the
command line uses too (``platformdirs``, redirected for tests or portable installs with the
``COSY_STUDIO_HOME`` environment variable).
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from cosycore.config import AUTO_QUALITY, MAX_SPEED, MIN_SPEED, QUALITY_CHOICES, TEXT_READINGS
from cosycore.paths import (
    APP_AUTHOR,
    APP_NAME,
    default_models_dir,
    ensure_legacy_moved,
    studio_home,
    user_cache_dir,
    user_data_dir,
    user_log_dir,
)
from cosycore.studio.lexicon import app_lexicon_path
from cosycore.voices import default_voices_dir

from .user_presets import UserPreset, parse_user_presets

logger = logging.getLogger(__name__)

SETTINGS_VERSION = 1
MODES = ("zero_shot", "cross_lingual", "instruct", "script", "convert")
LANGUAGES = ("", "en", "zh_CN")  # "" follows the system locale
SPEED_RANGE = (MIN_SPEED, MAX_SPEED)  # the engine's (cosycore.config.choices)
QUALITIES = QUALITY_CHOICES  # auto and the engine's quality modes
DEFAULT_TAKES_LIMIT_MB = 2048  # saved takes beyond this are warned about (never deleted)
TAKES_LIMIT_RANGE_MB = (50, 1024 * 1024)
READINGS = ("", *TEXT_READINGS)  # "" follows the quality mode (exact: original, else improved)
SERVER_PORT = 8000  # default port of Settings › Local server
MAX_THREADS = 256  # Settings › Performance offers 1 .. the machine's cores; larger stored values are ignored
MAX_MEASURED_RTFS = 32  # model/device/quality combinations whose real-time factor is remembered


@dataclass(frozen=True)
class AppPaths:
    """Folders the app writes to. Created on first use, never at import time."""

    data: Path  # takes, models and (unless voices_dir says otherwise) saved voices live in here
    cache: Path
    logs: Path
    lexicon_file: Path | None = None  # the app-wide pronunciation dictionary; None: data / "lexicon.csv"
    voices_dir: Path | None = None  # the voice library; None: data / "voices"
    models_dir: Path | None = None  # where the Models dialog installs; None: data / "models"

    @property
    def voices(self) -> Path:
        """The voice library folder (``cosycore voice list`` reads the same one)."""
        return self.voices_dir or self.data / "voices"

    @property
    def models(self) -> Path:
        """Where models are downloaded to (``cosycore models`` uses the same folder)."""
        return self.models_dir or self.data / "models"

    @property
    def lexicon(self) -> Path:
        """The app-wide pronunciation dictionary (a CSV file; ``cosycore`` commands read the same one)."""
        return self.lexicon_file or self.data / "lexicon.csv"

    @classmethod
    def default(cls) -> AppPaths:
        """The folders the command line uses too ($COSY_VOICES_DIR, $COSY_LEXICON, $COSY_STUDIO_HOME,
        else the platform's). Resolving the voices and the dictionary moves any left in the command
        line's old folder into the shared one, once (cosycore.paths.legacy)."""
        ensure_legacy_moved()  # also when $COSY_VOICES_DIR and $COSY_LEXICON both point elsewhere
        return cls(data=user_data_dir(), cache=user_cache_dir(), logs=user_log_dir(),
                   lexicon_file=app_lexicon_path(), voices_dir=default_voices_dir(),
                   models_dir=default_models_dir())


def _as_bool(value: object, default: bool) -> bool:
    # INI-backed QSettings hands booleans back as the strings "true"/"false".
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.lower() in ("true", "1", "yes"):
            return True
        if value.lower() in ("false", "0", "no"):
            return False
    if isinstance(value, int):
        return bool(value)
    return default


def _as_int(value: object, default: int) -> int:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return default


def _as_float(value: object, default: float) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


KNOWN_KEYS = frozenset({
    "settings_version", "model/folder", "model/device", "model/quality", "perf/rtf", "perf/threads",
    "ui/language", "ui/geometry", "ui/export_folder",
    "synthesis/mode", "synthesis/speed", "synthesis/seed", "synthesis/stream", "synthesis/voice",
    "synthesis/user_presets", "synthesis/user_presets_unreadable",
    "synthesis/text_reading",
    "audio/output", "audio/input", "takes/limit_mb", "models/endpoint",
    "server/port", "server/api_key",
})


def _to_v1(store: QSettings) -> None:
    """Unversioned stores predate typed settings: keep the keys this version reads, drop the rest."""
    for key in store.allKeys():
        if key not in KNOWN_KEYS:
            store.remove(key)


# (version reached, step) in order; a new storage change appends a step here and bumps SETTINGS_VERSION.
_MIGRATIONS = ((1, _to_v1),)


MAX_RECENT_MODELS = 10
MAX_RECENT_PROJECTS = 10


class Settings:
    """The app's settings, one typed property per key. Owned by the application object.

    Pass a ``QSettings`` (for example an INI file in a temporary folder) to keep tests away from
    the user's real settings.
    """

    def __init__(self, store: QSettings | None = None, paths: AppPaths | None = None) -> None:
        if store is None:
            home = studio_home()
            if home is not None:
                store = QSettings(str(home / "settings.ini"), QSettings.Format.IniFormat)
            else:
                store = QSettings(APP_AUTHOR, APP_NAME)
        self._s = store
        self.paths = paths or AppPaths.default()
        self.migrate()

    # -- versioning ------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return _as_int(self._s.value("settings_version"), 0)

    def migrate(self) -> None:
        """Bring a store written by an older version up to date, one step at a time."""
        version = self.version
        if version > SETTINGS_VERSION:
            logger.warning("settings were written by a newer Cosy Studio (version %d); reading what is known",
                           version)
            return
        for target, step in _MIGRATIONS:
            if version < target:
                step(self._s)
                logger.info("settings migrated from version %d to %d", version, target)
                version = target
        self._s.setValue("settings_version", SETTINGS_VERSION)
        self._s.sync()

    def sync(self) -> None:
        self._s.sync()

    # -- model -----------------------------------------------------------------------------
    @property
    def model_folder(self) -> Path | None:
        raw = self._s.value("model/folder")
        return Path(str(raw)) if raw else None

    @model_folder.setter
    def model_folder(self, folder: Path | None) -> None:
        if folder is None:
            self._s.remove("model/folder")
        else:
            self._s.setValue("model/folder", str(Path(folder)))

    @property
    def recent_models(self) -> list[Path]:
        """Model folders loaded before, the most recent first (File › Recent models, the Models dialog)."""
        try:
            raw = json.loads(str(self._s.value("model/recent", "[]") or "[]"))
        except ValueError:
            return []
        return [Path(p) for p in raw if isinstance(p, str) and p][:MAX_RECENT_MODELS] if isinstance(raw, list) else []

    @recent_models.setter
    def recent_models(self, folders: list[Path]) -> None:
        unique = list(dict.fromkeys(str(Path(f)) for f in folders))[:MAX_RECENT_MODELS]
        self._s.setValue("model/recent", json.dumps(unique, ensure_ascii=False))

    def add_recent_model(self, folder: Path) -> None:
        self.recent_models = [Path(folder), *self.recent_models]

    @property
    def project(self) -> Path | None:
        """The project file open when the app last ran (None: the Untitled project)."""
        value = str(self._s.value("project/current", "") or "")
        return Path(value) if value else None

    @project.setter
    def project(self, path: Path | None) -> None:
        self._s.setValue("project/current", str(Path(path)) if path is not None else "")

    @property
    def recent_projects(self) -> list[Path]:
        """Project files opened or saved before, the most recent first (File › Open recent)."""
        try:
            raw = json.loads(str(self._s.value("project/recent", "[]") or "[]"))
        except ValueError:
            return []
        return [Path(p) for p in raw if isinstance(p, str) and p][:MAX_RECENT_PROJECTS] if isinstance(raw, list) else []

    @recent_projects.setter
    def recent_projects(self, paths: list[Path]) -> None:
        unique = list(dict.fromkeys(str(Path(p)) for p in paths))[:MAX_RECENT_PROJECTS]
        self._s.setValue("project/recent", json.dumps(unique, ensure_ascii=False))

    @property
    def device(self) -> str:
        """Torch device for the engine: "auto", "cpu", "cuda", …"""
        return str(self._s.value("model/device", "auto") or "auto")

    @device.setter
    def device(self, value: str) -> None:
        self._s.setValue("model/device", value)

    @property
    def quality(self) -> str:
        """The engine's quality mode, applied when a model loads: "auto" (the default), "exact", "fast" or "draft"."""
        value = str(self._s.value("model/quality", AUTO_QUALITY) or AUTO_QUALITY)
        return value if value in QUALITIES else AUTO_QUALITY

    @quality.setter
    def quality(self, value: str) -> None:
        if value not in QUALITIES:
            raise ValueError(f"quality must be one of {QUALITIES}, got {value!r}")
        self._s.setValue("model/quality", value)

    @property
    def text_reading(self) -> str:
        """How the text is read: "original", "improved" or "" (the quality mode's default)."""
        value = str(self._s.value("synthesis/text_reading", "") or "")
        return value if value in READINGS else ""

    @text_reading.setter
    def text_reading(self, value: str) -> None:
        if value not in READINGS:
            raise ValueError(f"text reading must be one of {READINGS}, got {value!r}")
        self._s.setValue("synthesis/text_reading", value)

    @property
    def threads(self) -> int:
        """CPU threads for synthesis, applied when a model loads; 0 = automatic (every core)."""
        value = _as_int(self._s.value("perf/threads", 0), 0)
        return value if 0 <= value <= MAX_THREADS else 0

    @threads.setter
    def threads(self, value: int) -> None:
        if not 0 <= int(value) <= MAX_THREADS:
            raise ValueError(f"threads must be between 0 (automatic) and {MAX_THREADS}, got {value!r}")
        self._s.setValue("perf/threads", int(value))

    # -- measured speed ----------------------------------------------------------------------
    @property
    def measured_rtfs(self) -> dict[str, float]:
        """Measured real-time factor per key of :func:`app.worker.eta.rtf_key`, oldest first.

        Stored as one JSON object; entries that are not positive finite numbers are dropped.
        """
        try:
            raw = json.loads(str(self._s.value("perf/rtf", "{}") or "{}"))
        except ValueError:
            return {}
        if not isinstance(raw, dict):
            return {}
        out: dict[str, float] = {}
        for key, value in raw.items():
            rtf = _as_float(value, math.nan)
            if isinstance(key, str) and math.isfinite(rtf) and rtf > 0:
                out[key] = rtf
        return out

    def measured_rtf(self, key: str) -> float | None:
        return self.measured_rtfs.get(key)

    def set_measured_rtf(self, key: str, rtf: float) -> None:
        """Remember ``rtf`` for ``key``; the least recently updated keys beyond MAX_MEASURED_RTFS are forgotten."""
        if not (math.isfinite(rtf) and rtf > 0):
            raise ValueError(f"a real-time factor must be finite and positive, got {rtf!r}")
        rtfs = self.measured_rtfs
        rtfs.pop(key, None)
        rtfs[key] = float(rtf)  # the newest last
        kept = dict(list(rtfs.items())[-MAX_MEASURED_RTFS:])
        self._s.setValue("perf/rtf", json.dumps(kept, ensure_ascii=False))

    def load_seconds(self, folder: Path | str) -> float | None:
        """How long the last load of the model in ``folder`` took (for the queued Speak's estimate)."""
        try:
            raw = json.loads(str(self._s.value("perf/load_seconds", "{}") or "{}"))
            value = float(raw[str(Path(folder))])
        except (TypeError, ValueError, KeyError):  # never measured, or not a number
            return None
        return value if math.isfinite(value) and value > 0 else None

    def set_load_seconds(self, folder: Path | str, seconds: float) -> None:
        """Remember a load's seconds for ``folder`` (the newest MAX_MEASURED_RTFS folders are kept)."""
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"load seconds must be finite and positive, got {seconds!r}")
        try:
            raw = json.loads(str(self._s.value("perf/load_seconds", "{}") or "{}"))
        except ValueError:
            raw = {}
        kept = {k: v for k, v in raw.items() if k != str(Path(folder))} if isinstance(raw, dict) else {}
        kept[str(Path(folder))] = round(float(seconds), 2)
        self._s.setValue("perf/load_seconds", json.dumps(dict(list(kept.items())[-MAX_MEASURED_RTFS:]),
                                                         ensure_ascii=False))

    # -- interface -------------------------------------------------------------------------
    @property
    def language(self) -> str:
        """Interface language override: "" follows the system, else "en" or "zh_CN"."""
        value = str(self._s.value("ui/language", "") or "")
        return value if value in LANGUAGES else ""

    @language.setter
    def language(self, value: str) -> None:
        if value not in LANGUAGES:
            raise ValueError(f"language must be one of {LANGUAGES}, got {value!r}")
        self._s.setValue("ui/language", value)

    @property
    def window_geometry(self) -> QByteArray | None:
        value = self._s.value("ui/geometry")
        return value if isinstance(value, QByteArray) else None

    @window_geometry.setter
    def window_geometry(self, value: QByteArray) -> None:
        self._s.setValue("ui/geometry", value)

    @property
    def last_export_folder(self) -> Path | None:
        raw = self._s.value("ui/export_folder")
        return Path(str(raw)) if raw else None

    @last_export_folder.setter
    def last_export_folder(self, folder: Path) -> None:
        self._s.setValue("ui/export_folder", str(folder))

    # -- synthesis -------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        value = str(self._s.value("synthesis/mode", "zero_shot"))
        return value if value in MODES else "zero_shot"

    @mode.setter
    def mode(self, value: str) -> None:
        if value not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {value!r}")
        self._s.setValue("synthesis/mode", value)

    @property
    def speed(self) -> float:
        lo, hi = SPEED_RANGE
        return min(hi, max(lo, _as_float(self._s.value("synthesis/speed"), 1.0)))

    @speed.setter
    def speed(self, value: float) -> None:
        self._s.setValue("synthesis/speed", float(value))

    @property
    def seed(self) -> int | None:
        """Fixed seed, or None for a fresh random seed per take."""
        raw = self._s.value("synthesis/seed")
        if raw is None or raw == "":
            return None
        return _as_int(raw, 0)

    @seed.setter
    def seed(self, value: int | None) -> None:
        if value is None:
            self._s.remove("synthesis/seed")
        else:
            self._s.setValue("synthesis/seed", int(value))

    @property
    def stream(self) -> bool:
        return _as_bool(self._s.value("synthesis/stream"), True)

    @stream.setter
    def stream(self, value: bool) -> None:
        self._s.setValue("synthesis/stream", bool(value))

    @property
    def voice_name(self) -> str:
        return str(self._s.value("synthesis/voice", "") or "")

    @voice_name.setter
    def voice_name(self, value: str) -> None:
        self._s.setValue("synthesis/voice", value)

    @property
    def user_presets(self) -> list[UserPreset]:
        """The user's saved instructions ("Save as preset"), oldest first; unreadable entries are skipped."""
        raw = self._s.value("synthesis/user_presets", "[]") or "[]"
        try:
            data = json.loads(str(raw))
        except ValueError:
            logger.warning("the saved user presets are not valid JSON; showing none (the next save sets them "
                           "aside under synthesis/user_presets_unreadable)")
            return []
        return parse_user_presets(data)

    @user_presets.setter
    def user_presets(self, presets: list[UserPreset]) -> None:
        raw = self._s.value("synthesis/user_presets")
        if raw:
            try:
                json.loads(str(raw))
            except ValueError:  # never overwrite what we could not read: set it aside first
                self._s.setValue("synthesis/user_presets_unreadable", str(raw))
        self._s.setValue("synthesis/user_presets",
                         json.dumps([p.to_json() for p in presets], ensure_ascii=False))

    @property
    def hub_endpoint(self) -> str:
        """A Hugging Face mirror for downloads ("" for huggingface.co), typed in the Models dialog."""
        return str(self._s.value("models/endpoint", "") or "")

    @hub_endpoint.setter
    def hub_endpoint(self, value: str) -> None:
        self._s.setValue("models/endpoint", value)

    # -- saved takes -------------------------------------------------------------------------
    @property
    def takes_limit_mb(self) -> int:
        """Above this many MiB of saved takes the app warns; it never deletes a take by itself."""
        lo, hi = TAKES_LIMIT_RANGE_MB
        return min(hi, max(lo, _as_int(self._s.value("takes/limit_mb"), DEFAULT_TAKES_LIMIT_MB)))

    @takes_limit_mb.setter
    def takes_limit_mb(self, value: int) -> None:
        self._s.setValue("takes/limit_mb", int(value))

    # -- audio devices -----------------------------------------------------------------------
    @property
    def output_device(self) -> str:
        """Name of the chosen output device; "" means the system default."""
        return str(self._s.value("audio/output", "") or "")

    @output_device.setter
    def output_device(self, name: str) -> None:
        self._s.setValue("audio/output", name)

    @property
    def input_device(self) -> str:
        return str(self._s.value("audio/input", "") or "")

    @input_device.setter
    def input_device(self, name: str) -> None:
        self._s.setValue("audio/input", name)

    @property
    def headphones(self) -> bool:
        """Convert mode's "I use headphones": live conversion may play on the microphone's own device."""
        return _as_bool(self._s.value("audio/headphones", False), False)

    @headphones.setter
    def headphones(self, on: bool) -> None:
        self._s.setValue("audio/headphones", bool(on))

    # -- local speech server -------------------------------------------------------------------
    @property
    def server_port(self) -> int:
        """TCP port of Settings › Local server (on 127.0.0.1)."""
        port = _as_int(self._s.value("server/port", SERVER_PORT), SERVER_PORT)
        return port if 1 <= port <= 65535 else SERVER_PORT

    @server_port.setter
    def server_port(self, port: int) -> None:
        self._s.setValue("server/port", int(port))

    @property
    def server_api_key(self) -> str:
        """The key clients must send to the local server ("": none). Stored like the other settings."""
        return str(self._s.value("server/api_key", "") or "")

    @server_api_key.setter
    def server_api_key(self, key: str) -> None:
        self._s.setValue("server/api_key", key)
