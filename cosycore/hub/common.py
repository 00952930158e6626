"""Shared pieces of the download machinery: folder and file names, limits, the models folder, error translation."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import http.client
import logging
import os
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from ..errors import (
    DownloadCancelledError,
    DownloadError,
    HubUnreachableError,
    InsufficientSpaceError,
)

# re-exported: the models folder is defined with the other user folders
from ..paths import HOME_ENV as HOME_ENV
from ..paths import MODELS_ENV as MODELS_ENV
from ..paths import default_models_dir as default_models_dir

logger = logging.getLogger(__name__)


STAGING_DIR = ".staging"
STATE_NAME = ".cosy-download.json"
PART_SUFFIX = ".part"
DEFAULT_HF_ENDPOINT = "https://huggingface.co"
DEFAULT_REVISION: dict[str, str] = {"huggingface": "main", "modelscope": "master"}
CHUNK_BYTES = 1 << 20  # one read from the socket, one write to disk
HASH_BLOCK = 4 << 20
SPACE_MARGIN = 64 << 20  # kept free beyond the download itself (the manifest, the file system's own needs)
META_TIMEOUT = 30.0  # seconds for the listing request
READ_TIMEOUT = 60.0  # seconds without a byte before a connection counts as dropped
RETRY_DELAYS = (0.5, 2.0, 5.0, 10.0)  # waits before re-connecting after a dropped connection or a 5xx
UNLISTED_MARGIN = 64 << 20  # a file the hub lists without a size may exceed the catalogue's guess by 25 % + this
PROGRESS_INTERVAL = 0.1  # seconds between progress callbacks while bytes flow ...
MIN_PROGRESS_INTERVAL = 0.02  # ... or this often when another 1/1000 of the download arrived
SPEED_WINDOW = 5.0  # seconds of transfer the speed is averaged over


def offline_requested() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def transport_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean "the network failed" for the HTTP clients the hub libraries use.

    Looked up in ``sys.modules`` at call time: huggingface_hub 0.x uses requests, 1.x httpx and 2.x
    httpx2, and modelscope uses requests. ``OSError`` covers socket errors and ``urllib``.
    """
    found: list[type[BaseException]] = [OSError, http.client.HTTPException]
    for module_name, names in (("httpx2", ("TransportError",)), ("httpx", ("TransportError",)),
                               ("requests", ("ConnectionError", "Timeout"))):
        module = sys.modules.get(module_name)
        for name in names:
            cls = getattr(module, name, None) if module is not None else None
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.append(cls)
    return tuple(found)


def error_reason(e: BaseException) -> str:
    if isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError):
        return str(e.reason)
    text = str(e).strip()
    return text or type(e).__name__


def unreachable_error(where: str, e: BaseException) -> HubUnreachableError:
    return HubUnreachableError(
        f"Could not reach {where} ({error_reason(e)}). Check the internet connection (and proxy settings); "
        "set HF_ENDPOINT to a mirror or choose the other download source; or, if you already have the "
        "model on disk, use a folder you already have (\"Use a folder I already have…\" in the Models "
        "dialog, or --model PATH)."
    )


def storage_error(path: Path, e: OSError, staging: Path) -> DownloadError:
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return InsufficientSpaceError(
            f"The disk filled up while writing {path.name}. What was downloaded so far is kept in {staging}; "
            "free up space and resume the download, or choose a models folder on another disk."
        )
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return DownloadError(
            f"Cannot write to {path.parent} ({e.strerror or e}). Choose a models folder you can write to."
        )
    return DownloadError(f"Could not write {path}: {e.strerror or e}. Check the disk and resume the download.")


def folder_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(root) / name).stat().st_size
    return total


def sha256_file(path: Path, *, on_bytes: Callable[[int], None] | None = None,
                 cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            if cancel is not None and cancel.is_set():
                raise DownloadCancelledError("Verification cancelled; nothing was changed.")
            block = fh.read(HASH_BLOCK)
            if not block:
                break
            digest.update(block)
            if on_bytes is not None:
                on_bytes(len(block))
    return digest.hexdigest()
