"""Planning a download: which files to fetch from which commit, where they go, and whether they fit."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import (
    InsufficientSpaceError,
    IntegrityError,
    RepoNotFoundError,
)
from .catalog import SOURCE_TITLES, CatalogEntry, Source, get_entry
from .common import SPACE_MARGIN, STAGING_DIR, UNLISTED_MARGIN, default_models_dir
from .hubs import Hub, RemoteFile, RemoteSnapshot, make_hub
from .progress import format_bytes


@dataclass(frozen=True)
class PlannedFile:
    """A file to install: where it goes and what the hub says it is."""

    path: str  # path inside the installed folder
    remote: RemoteFile
    approx_bytes: int  # the catalogue's guess, used when the hub gave no size

    @property
    def expected_bytes(self) -> int:
        return self.remote.size if self.remote.size is not None else self.approx_bytes

    def identity(self, revision: str) -> dict[str, Any]:
        """What the staged bytes of this file belong to; a change means they must be fetched again.

        With a hash the commit does not matter (a new commit that leaves a file alone keeps it);
        without one the commit is all that tells two versions apart.
        """
        r = self.remote
        ident: dict[str, Any] = {"source_path": r.path, "size": r.size, "sha256": r.sha256, "git_sha1": r.git_sha1}
        if r.sha256 is None and r.git_sha1 is None:
            ident["revision"] = revision
        return ident


def byte_cap(f: PlannedFile) -> int:
    """The most bytes ``f`` may have: its listed size, else the catalogue's guess plus a margin.

    A body past the cap is an error (a server that lies about sizes, or one whose body never ends),
    so a download can neither fill the disk nor refetch the same file forever.
    """
    if f.remote.size is not None:
        return f.remote.size
    return f.approx_bytes * 5 // 4 + UNLISTED_MARGIN


@dataclass(frozen=True)
class DownloadPlan:
    """Everything needed to install one catalogue entry from one hub snapshot."""

    entry: CatalogEntry
    snapshot: RemoteSnapshot
    files: tuple[PlannedFile, ...]
    models_dir: Path
    headers: tuple[tuple[str, str], ...] = ()  # HTTP headers for the file requests (user agent, token)

    @property
    def final_dir(self) -> Path:
        return self.models_dir / self.entry.folder

    @property
    def staging_dir(self) -> Path:
        return self.models_dir / STAGING_DIR / self.entry.id

    @property
    def total_bytes(self) -> int:
        return sum(f.expected_bytes for f in self.files)


def catalog_entry(model: str | CatalogEntry) -> CatalogEntry:
    return model if isinstance(model, CatalogEntry) else get_entry(model)


def _pinned(entry: CatalogEntry, snapshot: RemoteSnapshot, expected: str | None, remote: RemoteFile) -> RemoteFile:
    """``remote`` carrying the catalogue's sha256 when the snapshot is the commit the catalogue pinned.

    The hub's own hash must then agree with it; a file the hub lists with a git blob id only (small
    files kept in git) gets a sha256 to be checked against as well.
    """
    if expected is None or entry.revision is None or snapshot.revision != entry.revision:
        return remote
    if remote.sha256 is not None and remote.sha256 != expected:
        raise IntegrityError(
            f"{snapshot.repo_id} lists {remote.path} with sha256 {remote.sha256[:12]}… at revision "
            f"{snapshot.revision[:12]}, but Cosy Studio knows that file as {expected[:12]}…. Nothing was downloaded; "
            "try the other download source or another mirror, and report this if it persists."
        )
    return replace(remote, sha256=expected)


def plan_from_snapshot(entry: CatalogEntry, snapshot: RemoteSnapshot, models_dir: Path,
                       headers: Mapping[str, str] | None = None) -> DownloadPlan:
    """Match the catalogue's files against a hub listing; a missing required file is a :class:`RepoNotFoundError`."""
    by_path = {f.path: f for f in snapshot.files}
    planned: list[PlannedFile] = []
    missing: list[str] = []
    for cf in entry.files:
        remote = by_path.get(cf.source_path)
        if remote is None:
            if not cf.optional:
                missing.append(cf.source_path)
            continue
        planned.append(PlannedFile(cf.path, _pinned(entry, snapshot, cf.sha256, remote), cf.approx_bytes))
    if missing:
        title = SOURCE_TITLES.get(snapshot.source, snapshot.source)
        raise RepoNotFoundError(
            f"{snapshot.repo_id} on {title} (revision {snapshot.revision[:12]}) does not have "
            f"{', '.join(missing)}, which {entry.name} needs. The release may have changed: update Cosy Studio, "
            "try the other download source, or use a folder you already have."
        )
    return DownloadPlan(entry, snapshot, tuple(planned), Path(models_dir), tuple((headers or {}).items()))


def plan_download(model: str | CatalogEntry, models_dir: Path | str | None = None, *,
                  source: Source = "huggingface", endpoint: str | None = None, token: str | None = None,
                  revision: str | None = None, hub: Hub | None = None) -> DownloadPlan:
    """Ask the hub what to download for ``model`` (network I/O: one listing request)."""
    entry = catalog_entry(model)
    hub = hub or make_hub(source, endpoint=endpoint, token=token)
    snapshot = hub.snapshot(entry.repo_id(hub.source), revision)
    folder = Path(models_dir) if models_dir is not None else default_models_dir()
    return plan_from_snapshot(entry, snapshot, folder, hub.headers())


def check_disk_space(folder: Path, needed: int, what: str) -> None:
    """Raise :class:`InsufficientSpaceError` unless ``folder``'s disk has ``needed`` bytes (plus a margin) free."""
    probe = Path(folder)
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    want = needed + SPACE_MARGIN
    if free < want:
        raise InsufficientSpaceError(
            f"{what} needs {format_bytes(want)} of free space in {folder}, but only {format_bytes(free)} is free "
            f"there. Free up at least {format_bytes(want - free)}, or choose a models folder on another disk."
        )
