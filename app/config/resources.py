"""The one way the app finds its bundled files (icons, translations), wherever it runs from.

Three layouts are supported, tried in this order:

* frozen (PyInstaller): the spec copies ``resources/`` to the bundle root, ``sys._MEIPASS``;
* from source or an editable install: ``resources/`` beside the ``app`` package;
* installed: ``<prefix>/share/cosy-studio/resources`` (the wheel's data files).

``COSY_STUDIO_RESOURCES`` overrides all three (packagers, tests).
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from pathlib import Path

logger = logging.getLogger(__name__)

RESOURCES_ENV = "COSY_STUDIO_RESOURCES"
_MARKER = "icons"  # a folder every complete resources tree holds


def _candidates() -> list[Path]:
    found: list[Path] = []
    override = os.environ.get(RESOURCES_ENV)
    if override:
        found.append(Path(override))
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        found.append(Path(bundle) / "resources")
    found.append(Path(__file__).resolve().parents[2] / "resources")  # app/config/resources.py -> the checkout
    found.append(Path(sys.prefix) / "share" / "cosy-studio" / "resources")
    return found


@functools.lru_cache(maxsize=1)
def resource_root() -> Path:
    """The folder that holds the app's resources."""
    candidates = _candidates()
    for folder in candidates:
        if (folder / _MARKER).is_dir():
            return folder
    raise FileNotFoundError(
        "Cosy Studio cannot find its resources folder; looked in " + ", ".join(str(c) for c in candidates)
        + ". Reinstall the app, or point COSY_STUDIO_RESOURCES at the folder."
    )


def resource_path(*parts: str) -> Path:
    """Path of a bundled file, e.g. ``resource_path("icons", "app.svg")``; raises if it is missing."""
    path = resource_root().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"the bundled resource {'/'.join(parts)} is missing from {resource_root()}")
    return path


def translations_dir() -> Path:
    return resource_root() / "i18n"


def icon(name: str):  # -> QIcon; Qt is imported here so that this module stays importable without a display
    from PySide6.QtGui import QIcon

    try:
        return QIcon(str(resource_path("icons", name)))
    except FileNotFoundError:
        logger.warning("icon %s is missing; using none", name)
        return QIcon()
