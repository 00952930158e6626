"""The sha256 of a model file, read from what is already known where possible.

A saved voice records the sha256 of the speech tokenizer that made its tokens, so using it checks
that file's sha256 against the loaded model's. The tokenizer is 0.5–1 GB; hashing it takes seconds
of disk and CPU, and used to happen on the first Speak. Where the answer comes from, in order:

1. the install manifest (:func:`cosycore.manifest.recorded_sha256`): every model Cosy Studio
   downloads has one, written with the file's size and mtime, so a file unchanged since it was
   installed is never read;
2. this user's checksum cache (``checksums.json`` in the cache folder: ``$COSY_STUDIO_HOME/cache``,
   else the platform's user cache folder): a folder the user brought has no manifest, so the
   first hash of a large file is remembered there with its size, mtime and inode, for the next
   start and the next process (each CLI run is one);
3. hashing the file (:func:`compute_sha256`), which the callers do only when the digest is needed:
   when a voice is made, or when a saved voice that records a tokenizer hash is used, never at
   load time and never on a background thread (on a 2-core machine a hash running beside a
   synthesis slows it far more than it saves; platform notes).

The cache holds only files of at least :data:`CACHE_MIN_BYTES` (smaller ones hash in a moment) and
at most :data:`CACHE_MAX_ENTRIES` of them, the most recently hashed. It is a convenience: an
unreadable cache is ignored, one that cannot be written is logged, and neither stops a load.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from .atomic_write import write_atomic
from .errors import StorageError
from .manifest import recorded_sha256
from .paths import HOME_ENV as HOME_ENV  # re-exported: the cache follows $COSY_STUDIO_HOME
from .paths import user_cache_dir
from .safety import UnsafeFileError, read_json_file

logger = logging.getLogger(__name__)

CACHE_NAME = "checksums.json"
CACHE_SCHEMA = 1
CACHE_MIN_BYTES = 32 << 20  # smaller files are hashed again each time (well under a second)
CACHE_MAX_ENTRIES = 32
HASH_CHUNK = 1 << 20

_cache_lock = threading.Lock()  # one read-modify-write of the cache file at a time in this process


def file_sha256(path: Path | str, chunk: int = HASH_CHUNK) -> str:
    """Hex sha256 of a file, read in chunks (memory stays at one chunk)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def cache_path() -> Path:
    """Where the checksum cache lives (the file may not exist yet)."""
    return user_cache_dir() / CACHE_NAME


def _identity(st: os.stat_result) -> dict[str, int]:
    return {"size": int(st.st_size), "mtime_ns": int(st.st_mtime_ns), "ino": int(st.st_ino)}


def _read_cache(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = read_json_file(path, 64 << 20)  # capped in size and depth
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, UnsafeFileError) as e:
        logger.info("ignoring the checksum cache %s (%s)", path, e)
        return {}
    files = data.get("files") if isinstance(data, dict) and data.get("schema") == CACHE_SCHEMA else None
    return {str(k): v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}


def cached_sha256(path: Path | str) -> str | None:
    """The cached sha256 of ``path`` when the file's size, mtime and inode are those it was hashed with."""
    path = Path(path)
    try:
        st = path.stat()
        key = str(path.resolve())
    except OSError:
        return None
    if st.st_size < CACHE_MIN_BYTES:
        return None
    with _cache_lock:
        entry = _read_cache(cache_path()).get(key)
    if entry is None or {k: entry.get(k) for k in ("size", "mtime_ns", "ino")} != _identity(st):
        return None
    digest = entry.get("sha256")
    return digest if isinstance(digest, str) and len(digest) == 64 else None


def _hashed_at(entry: dict[str, Any]) -> int:
    value = entry.get("hashed_at")
    return value if isinstance(value, int) else 0


def _remember(path: Path, st: os.stat_result, digest: str) -> None:
    key = str(path.resolve())
    target = cache_path()
    with _cache_lock:
        files = _read_cache(target)
        files.pop(key, None)
        files[key] = {**_identity(st), "sha256": digest, "hashed_at": int(time.time())}
        newest = sorted(files.items(), key=lambda kv: _hashed_at(kv[1]))[-CACHE_MAX_ENTRIES:]  # stable: ties keep order
        data = {"schema": CACHE_SCHEMA, "files": dict(newest)}
        try:
            write_atomic(target, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
        except StorageError as e:
            logger.info("the checksum of %s is not remembered: %s", path.name, e)


def known_sha256(path: Path | str) -> str | None:
    """The sha256 of ``path`` from its install manifest or the checksum cache; None when neither knows it.

    Stats the file and reads small JSON files; never reads ``path`` itself.
    """
    return recorded_sha256(path) or cached_sha256(path)


def compute_sha256(path: Path | str) -> str:
    """Hash ``path`` and, for a large file that did not change while it was read, remember the digest."""
    path = Path(path)
    before = path.stat()
    digest = file_sha256(path)
    if before.st_size >= CACHE_MIN_BYTES:
        with contextlib.suppress(OSError):
            if _identity(path.stat()) == _identity(before):
                _remember(path, before, digest)
    return digest
