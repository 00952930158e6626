"""Where Cosy Studio keeps the user's files: one definition for the app and the command line.

The data folder holds saved voices (``voices/``), the app-wide pronunciation dictionary
(``lexicon.csv``), the app's takes (``takes/``) and downloaded models (``models/``). It is
``$COSY_STUDIO_HOME/data`` when the app's portable home is set, else the platform's user data folder
for "Cosy Studio" (platformdirs): ``~/.local/share/Cosy Studio`` on Linux,
``~/Library/Application Support/Cosy Studio`` on macOS, ``%LOCALAPPDATA%\\CosyStudio\\Cosy Studio`` on
Windows. The cache and log folders follow the same rule (``$COSY_STUDIO_HOME/cache`` and ``/logs``).

Nothing here creates a folder; the callers create what they write into.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Cosy Studio"  # the platform folders' names (and the app's QSettings names)
APP_AUTHOR = "CosyStudio"  # used by platformdirs on Windows only
HOME_ENV = "COSY_STUDIO_HOME"  # a portable home: data/, cache/ and logs/ inside it
MODELS_ENV = "COSY_STUDIO_MODELS"  # overrides the models folder (portable installs, tests)
LEGACY_DIR_NAME = "CosyStudio"  # the command line's data folder name before it shared the app's (cosycore.paths.legacy)


def studio_home() -> Path | None:
    """``$COSY_STUDIO_HOME`` (the app's portable home), or None when it is not set."""
    home = os.environ.get(HOME_ENV, "").strip()
    return Path(home).expanduser() if home else None


def user_data_dir() -> Path:
    """The folder the user's voices, dictionary, takes and models live in (see the module docstring)."""
    home = studio_home()
    if home is not None:
        return home / "data"
    return platform_data_dir()


def default_models_dir() -> Path:
    """Where models are installed unless the user picks another folder.

    ``$COSY_STUDIO_MODELS``, else ``models/`` in :func:`user_data_dir` (``$COSY_STUDIO_HOME/data/models``
    or the platform's folder, beside the voices). Nothing is created here.
    """
    explicit = os.environ.get(MODELS_ENV)
    if explicit:
        return Path(explicit)
    return user_data_dir() / "models"


def user_cache_dir() -> Path:
    """Files that can be made again (the checksum cache): ``$COSY_STUDIO_HOME/cache`` or the platform's."""
    home = studio_home()
    if home is not None:
        return home / "cache"
    return platformdirs.user_cache_path(APP_NAME, APP_AUTHOR)


def user_log_dir() -> Path:
    """The app's log files: ``$COSY_STUDIO_HOME/logs`` or the platform's log folder."""
    home = studio_home()
    if home is not None:
        return home / "logs"
    return platformdirs.user_log_path(APP_NAME, APP_AUTHOR)


def platform_data_dir() -> Path:
    """The platform's user data folder for Cosy Studio, ignoring ``$COSY_STUDIO_HOME``."""
    return platformdirs.user_data_path(APP_NAME, APP_AUTHOR)


def legacy_data_dir() -> Path:
    """Where the command line kept voices and the dictionary before it shared the app's folder.

    ``~/.local/share/CosyStudio`` on Linux, ``~/Library/Application Support/CosyStudio`` on macOS,
    ``%LOCALAPPDATA%\\CosyStudio`` on Windows (which holds the new folder inside it).
    """
    return platformdirs.user_data_path(LEGACY_DIR_NAME, appauthor=False)
