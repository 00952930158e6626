"""The install manifest of a model folder: its file name, its format, and a reader.

Cosy Studio writes ``.cosy-manifest.json`` into every model folder it installs
(:func:`cosycore.hub.download.install`): the catalogue id, where the files came from, and every
file's size, sha256 and modification time. The hub reads it to list, verify and remove installed
models; the loader reads it to learn the speech tokenizer's sha256 without hashing a 0.5–1 GB file
(:func:`recorded_sha256`). This module only describes and reads the manifest; writing it is the
installer's job. It sits below both (pyproject's import-linter layers), so that the engine's
stages can read it without importing the hub.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .errors import IntegrityError
from .safety import UnsafeFileError, read_json_file

logger = logging.getLogger(__name__)

MANIFEST_NAME = ".cosy-manifest.json"
MANIFEST_SCHEMA = 1
MAX_MANIFEST_BYTES = 16 << 20  # a manifest lists a dozen files in a few kB
# Manifests written before files carried their mtime: a file counts as unchanged when it is not
# newer than the install time, which the manifest stores to the second (truncated), plus this.
INSTALLED_AT_SLACK = timedelta(seconds=2)


@dataclass(frozen=True)
class ManifestFile:
    path: str  # "/"-separated, relative to the model folder
    size: int
    sha256: str  # of the bytes installed (checked against the hub's hash where it published one)
    verified: bool = True  # the hub published a hash (or blob id) and the download matched it
    mtime_ns: int | None = None  # the file's st_mtime_ns when installed; None in older manifests


@dataclass(frozen=True)
class Manifest:
    """What was installed, written into the folder at install time and re-checked by ``hub.verify``."""

    model_id: str
    name: str
    family: str  # a config.Family for a CosyVoice release, "sensevoice" for the speech recognizer
    source: str
    repo_id: str
    revision: str
    installed_at: str  # ISO 8601, UTC
    files: tuple[ManifestFile, ...]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def file(self, path: str) -> ManifestFile | None:
        """The entry for ``path`` ("/"-separated, relative to the folder), if the manifest lists it."""
        return next((f for f in self.files if f.path == path), None)

    def to_json(self) -> dict[str, Any]:
        files = []
        for f in self.files:
            entry: dict[str, Any] = {"path": f.path, "size": f.size, "sha256": f.sha256, "verified": f.verified}
            if f.mtime_ns is not None:
                entry["mtime_ns"] = f.mtime_ns
            files.append(entry)
        return {
            "schema": MANIFEST_SCHEMA, "model_id": self.model_id, "name": self.name, "family": self.family,
            "source": self.source, "repo_id": self.repo_id, "revision": self.revision,
            "installed_at": self.installed_at, "files": files,
        }


def _file_entry(f: dict[str, Any]) -> ManifestFile:
    mtime = f.get("mtime_ns")
    return ManifestFile(str(f["path"]), int(f["size"]), str(f["sha256"]), bool(f.get("verified", True)),
                        int(mtime) if mtime is not None else None)


def read_manifest(folder: Path | str) -> Manifest | None:
    """The install manifest of ``folder``; None when it has none (a folder the user brought).

    Raises :class:`IntegrityError` when the manifest exists but cannot be read.
    """
    path = Path(folder) / MANIFEST_NAME
    if not os.path.lexists(path):
        return None
    try:
        data = read_json_file(path, MAX_MANIFEST_BYTES)  # a regular file, bounded in size and depth
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise ValueError("it is not a manifest object with a list of files")
        if data.get("schema") != MANIFEST_SCHEMA:
            raise ValueError(f"unknown schema {data.get('schema')!r}")
        return Manifest(
            model_id=str(data["model_id"]), name=str(data["name"]), family=data["family"],
            source=str(data["source"]), repo_id=str(data["repo_id"]), revision=str(data["revision"]),
            installed_at=str(data["installed_at"]), files=tuple(_file_entry(f) for f in data["files"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError, OverflowError, UnsafeFileError) as e:
        raise IntegrityError(
            f"The install manifest {path} is unreadable ({e}). Download the model again, or delete the manifest "
            "to keep the folder as one of your own."
        ) from e


def _unchanged_since_install(st: os.stat_result, entry: ManifestFile, installed_at: str) -> bool:
    if st.st_size != entry.size:
        return False
    if entry.mtime_ns is not None:
        return st.st_mtime_ns == entry.mtime_ns
    try:  # an older manifest: the file must be no newer than the install
        installed = datetime.fromisoformat(installed_at)
    except ValueError:
        return False
    if installed.tzinfo is None:
        return False
    return datetime.fromtimestamp(st.st_mtime, installed.tzinfo) <= installed + INSTALLED_AT_SLACK


def recorded_sha256(path: Path | str) -> str | None:
    """The sha256 the install manifest of ``path``'s folder records for it, when it still applies.

    It applies when the manifest lists the file and the file's size and modification time are
    those it had when installed (for manifests that predate recorded mtimes: it is no newer than
    the install). None otherwise: no manifest (a folder the user brought), an unreadable one, a
    file it does not list, or one changed since. Reads the small manifest and stats the file;
    never reads the file itself.
    """
    path = Path(path)
    try:
        manifest = read_manifest(path.parent)
    except IntegrityError as e:
        logger.warning("%s", e)
        return None
    if manifest is None:
        return None
    entry = manifest.file(path.name)
    if entry is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    if not _unchanged_since_install(st, entry, manifest.installed_at):
        logger.info("%s changed since it was installed; its sha256 is computed instead of read from %s",
                    path.name, MANIFEST_NAME)
        return None
    return entry.sha256
