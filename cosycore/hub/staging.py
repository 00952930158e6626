"""The staging folder: its lock, its state file, reconciling it with a plan, and the final switch into place."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from ..errors import (
    DownloadBusyError,
    DownloadError,
    StorageError,
)
from ..safety import UnsafeFileError, read_json_file
from ..voices import write_atomic
from .common import PART_SUFFIX, STATE_NAME
from .plan import DownloadPlan

logger = logging.getLogger(__name__)


class StagingLock:
    """An exclusive lock on one model's staging folder, released when the process ends in any way."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        self.fh: IO[bytes] | None = None

    def __enter__(self) -> StagingLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+b")
        try:
            if sys.platform == "win32":
                import msvcrt

                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            fh.close()
            raise DownloadBusyError(
                f"{self.what} is already being downloaded into {self.path.parent.parent} (by this or another "
                "Cosy Studio window or command). Wait for it to finish, or cancel it there."
            ) from e
        self.fh = fh
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None
        with contextlib.suppress(OSError):
            self.path.unlink()


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = read_json_file(path, 16 << 20)  # capped in size and depth
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnsafeFileError) as e:
        logger.warning("ignoring unreadable %s: %s", path, e)
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    try:
        write_atomic(path, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
    except StorageError as e:
        raise DownloadError(f"{e} Free up space or choose another models folder, then resume the download.") from e


def reconcile_staging(plan: DownloadPlan) -> dict[str, bool]:
    """Keep the staged bytes that still belong to this plan, delete the rest.

    Returns ``{path: complete}`` for every planned file that has bytes on disk.
    """
    staging = plan.staging_dir
    state = read_json(staging / STATE_NAME) or {}
    recorded = state.get("files", {}) if isinstance(state.get("files"), dict) else {}
    revision = plan.snapshot.revision
    kept: dict[str, bool] = {}
    wanted: set[Path] = set()
    for f in plan.files:
        done, part = staging / f.path, staging / (f.path + PART_SUFFIX)
        wanted.update((done, part))
        if recorded.get(f.path) != f.identity(revision) or state.get("source") != plan.snapshot.source:
            for p in (done, part):
                if p.exists():
                    logger.info("discarding staged %s: the hub's copy changed", p.name)
                    p.unlink()
            continue
        if done.exists() and f.remote.size is not None and done.stat().st_size != f.remote.size:
            done.unlink()
        if done.exists():
            kept[f.path] = True
            part.unlink(missing_ok=True)
        elif part.exists():
            kept[f.path] = False
    for p in sorted(staging.rglob("*"), reverse=True):  # files before their folders
        if p.is_file() and p not in wanted and p.name != STATE_NAME:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    return kept


def record_state(plan: DownloadPlan, sha256: Mapping[str, str]) -> None:
    revision = plan.snapshot.revision
    write_json(plan.staging_dir / STATE_NAME, {
        "model_id": plan.entry.id, "source": plan.snapshot.source, "repo_id": plan.snapshot.repo_id,
        "revision": revision, "files": {f.path: f.identity(revision) for f in plan.files},
        "sha256": dict(sha256),
    })


def switch_into_place(staging: Path, final: Path, replace_existing: bool) -> None:
    """Rename the finished staging folder to its final name; an old folder is swapped out first."""
    old: Path | None = None
    if final.exists():
        if not replace_existing:
            raise DownloadError(f"{final} appeared while downloading; move it away and download again.")
        old = final.with_name(f".cosy-replaced-{final.name}-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(final, old)
        except OSError as e:
            raise DownloadError(f"Could not move the old {final} aside ({e.strerror or e}); close programs "
                                "using it and try again.") from e
    try:
        os.rename(staging, final)
    except OSError as e:
        if old is not None:
            with contextlib.suppress(OSError):
                os.rename(old, final)
        raise DownloadError(f"Could not move the finished download from {staging} to {final} ({e.strerror or e}). "
                            "The files are complete in the staging folder; try again.") from e
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
