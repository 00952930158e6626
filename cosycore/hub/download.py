"""Model downloads and the models folder: plan, fetch with resume, verify, switch into place.

A download is always an explicit call (:func:`download_model`); importing this module or building
any of its objects touches no network. The steps:

1. **Plan** (:func:`plan_download`): ask the hub for the repository's file listing at one commit,
   with sizes and hashes (Hugging Face: ``HfApi.model_info(files_metadata=True)``, which gives the
   LFS sha256 of the weights and the git blob id of small files; ModelScope: its file listing with
   sha256), and match it against the catalogue entry (:mod:`cosycore.hub.catalog`). Every URL points
   at that commit, so a repository that changes during a download cannot mix two versions.
2. **Stage**: files are written to ``<models>/.staging/<id>/<path>.part`` and renamed to
   ``<path>`` once their size and hash check out. A staging state file remembers which hub file
   each staged file belongs to, so an interrupted download (a dropped connection, a cancel, a
   crash or a restart) continues from the bytes already on disk with an HTTP ``Range`` request.
3. **Check** free disk space before the first byte (hub sizes against ``shutil.disk_usage``), and
   turn a full disk while writing into :class:`InsufficientSpaceError` (the staged bytes are kept).
4. **Install**: write a manifest (``.cosy-manifest.json``: every file's size and sha256), check
   that the staged folder parses as the expected family, then rename the staging folder to
   ``<models>/<folder>`` in one step. A half-downloaded folder therefore never appears where a
   model folder is expected.

Why the bytes are fetched here rather than with ``hf_hub_download``: recent ``huggingface_hub``
releases delete a partial file when a download is interrupted, and offer neither a cancel hook nor
a way to keep partial files in a folder of ours. The hub API, the URL scheme, authentication
headers and ``HF_ENDPOINT`` still come from ``huggingface_hub``; the transfer is a plain HTTP GET
with ``Range`` (the same requests ``hf_hub_download`` makes). ModelScope is optional: its package
is imported only when that source is chosen.

Installed models are listed with :func:`list_installed`, re-checked with :func:`verify` (optionally
with a load-and-synthesise smoke test) and deleted with :func:`remove`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import http.client
import json
import logging
import os
import shutil
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Literal, Protocol

from ..config import Family, detect_family, load_model_config
from ..errors import (
    CosyError,
    DownloadBusyError,
    DownloadCancelledError,
    DownloadError,
    HubUnreachableError,
    InsufficientSpaceError,
    IntegrityError,
    ModelLoadError,
    ModelNotFoundError,
    RepoNotFoundError,
    SourceUnavailableError,
    StorageError,
    WrongModelFamilyError,
)
from ..voices import write_atomic
from .catalog import SOURCE_TITLES, CatalogEntry, Source, get_entry, required_files_for

logger = logging.getLogger(__name__)

APP_NAME = "Cosy Studio"  # the same names as app/settings.py, so the app and the CLI share one folder
APP_AUTHOR = "CosyStudio"
MODELS_ENV = "COSY_STUDIO_MODELS"  # overrides the models folder (portable installs, tests)
HOME_ENV = "COSY_STUDIO_HOME"  # the app's own override: models then live in $COSY_STUDIO_HOME/data/models
STAGING_DIR = ".staging"
MANIFEST_NAME = ".cosy-manifest.json"
STATE_NAME = ".cosy-download.json"
PART_SUFFIX = ".part"
MANIFEST_SCHEMA = 1
DEFAULT_HF_ENDPOINT = "https://huggingface.co"
DEFAULT_REVISION: dict[str, str] = {"huggingface": "main", "modelscope": "master"}
CHUNK_BYTES = 1 << 20  # one read from the socket, one write to disk
HASH_BLOCK = 4 << 20
SPACE_MARGIN = 64 << 20  # kept free beyond the download itself (the manifest, the file system's own needs)
META_TIMEOUT = 30.0  # seconds for the listing request
READ_TIMEOUT = 60.0  # seconds without a byte before a connection counts as dropped
RETRY_DELAYS = (0.5, 2.0, 5.0, 10.0)  # waits before re-connecting after a dropped connection or a 5xx
PROGRESS_INTERVAL = 0.1  # seconds between progress callbacks while bytes flow ...
MIN_PROGRESS_INTERVAL = 0.02  # ... or this often when another 1/1000 of the download arrived
SPEED_WINDOW = 5.0  # seconds of transfer the speed is averaged over

Phase = Literal["planning", "downloading", "verifying", "installing", "done"]
ProgressCallback = Callable[["DownloadProgress"], None]
SmokeTest = Callable[[Path], object]


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


def format_bytes(n: float) -> str:
    """``1536`` -> ``"1.5 KB"`` (decimal units, as disks and hubs count)."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if abs(value) < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"  # pragma: no cover - the loop always returns


def format_duration(seconds: float | None) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``; ``None`` -> ``"--:--"``."""
    if seconds is None or seconds != seconds or seconds < 0:
        return "--:--"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def default_models_dir() -> Path:
    """Where models are installed unless the user picks another folder.

    ``$COSY_STUDIO_MODELS``, else ``$COSY_STUDIO_HOME/data/models``, else ``models/`` in the
    platform's user data folder (the folder the app keeps its voices in). Nothing is created here.
    """
    explicit = os.environ.get(MODELS_ENV)
    if explicit:
        return Path(explicit)
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home) / "data" / "models"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, APP_AUTHOR)) / "models"


def hf_endpoint(endpoint: str | None = None) -> str:
    """The Hugging Face endpoint: the argument, else ``$HF_ENDPOINT`` (a mirror), else huggingface.co.

    Read at call time: ``huggingface_hub`` reads ``HF_ENDPOINT`` once at import, which would miss a
    mirror chosen later in the same process.
    """
    return (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_HF_ENDPOINT).rstrip("/")


def _offline_requested() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _transport_errors() -> tuple[type[BaseException], ...]:
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


def _reason(e: BaseException) -> str:
    if isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError):
        return str(e.reason)
    text = str(e).strip()
    return text or type(e).__name__


def _unreachable(where: str, e: BaseException) -> HubUnreachableError:
    return HubUnreachableError(
        f"Could not reach {where} ({_reason(e)}). Check the internet connection (and proxy settings); "
        "set HF_ENDPOINT to a mirror or choose the other download source; or, if you already have the "
        "model on disk, use a folder you already have (\"Use a folder I already have…\" in the Models "
        "dialog, or --model PATH)."
    )


def _storage_error(path: Path, e: OSError, staging: Path) -> DownloadError:
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


def _folder_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(root) / name).stat().st_size
    return total


def _sha256_file(path: Path, *, on_bytes: Callable[[int], None] | None = None,
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


# --------------------------------------------------------------------------------------------
# Value objects
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DownloadProgress:
    """Where a download (or a verification) stands; handed to the progress callback.

    Byte counts include what was already on disk when a download resumed; the speed and the time
    left count only bytes moved in this session.
    """

    model_id: str  # catalogue id, or the folder name when verifying a folder of one's own
    phase: Phase  # planning, downloading, verifying, installing or done
    file: str = ""  # path (in the installed folder) of the file being worked on
    file_index: int = 0  # 0-based position of that file
    file_count: int = 0  # files in the plan
    file_done: int = 0  # bytes of the current file on disk so far
    file_total: int | None = None  # size of the current file, when the hub published it
    done_bytes: int = 0  # bytes of the whole plan on disk so far
    total_bytes: int = 0  # bytes of the whole plan
    speed_bps: float = 0.0  # bytes per second over the last few seconds; 0 before anything moved
    eta_seconds: float | None = None  # time left at that speed; None while unknown

    @property
    def fraction(self) -> float:
        return min(1.0, self.done_bytes / self.total_bytes) if self.total_bytes > 0 else 0.0

    @property
    def file_fraction(self) -> float:
        return min(1.0, self.file_done / self.file_total) if self.file_total else 0.0

    def describe(self) -> str:
        """One line for a status bar: ``llm.pt (3/9) · 1.2 of 3.1 GB · 11.5 MB/s · 2:45 left``."""
        if self.phase == "planning":
            return "Asking the hub for the file list…"
        if self.phase == "installing":
            return "Installing…"
        if self.phase == "done":
            return f"Done: {format_bytes(self.total_bytes)}"
        verb = "Checking" if self.phase == "verifying" else "Downloading"
        parts = [f"{verb} {self.file} ({self.file_index + 1}/{self.file_count})" if self.file else verb,
                 f"{format_bytes(self.done_bytes)} of {format_bytes(self.total_bytes)}"]
        if self.speed_bps > 0:
            parts.append(f"{format_bytes(self.speed_bps)}/s")
        if self.eta_seconds is not None:
            parts.append(f"{format_duration(self.eta_seconds)} left")
        return " · ".join(parts)


@dataclass(frozen=True)
class RemoteFile:
    """One file of a repository at one commit, as the hub describes it."""

    path: str  # path in the repository
    size: int | None  # bytes; None when the hub did not say
    sha256: str | None  # content sha256 (Hugging Face LFS files, ModelScope files)
    git_sha1: str | None  # git blob id of the content (Hugging Face files kept in git, not LFS)
    url: str  # where to GET it, pinned to the commit


@dataclass(frozen=True)
class RemoteSnapshot:
    """A repository's listing at one commit."""

    source: Source
    repo_id: str
    revision: str  # commit id when the hub gave one, else the branch that was asked for
    files: tuple[RemoteFile, ...]


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


@dataclass(frozen=True)
class ManifestFile:
    path: str  # "/"-separated, relative to the model folder
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """What was installed, written into the folder at install time and re-checked by :func:`verify`."""

    model_id: str
    name: str
    family: Family
    source: str
    repo_id: str
    revision: str
    installed_at: str  # ISO 8601, UTC
    files: tuple[ManifestFile, ...]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": MANIFEST_SCHEMA, "model_id": self.model_id, "name": self.name, "family": self.family,
            "source": self.source, "repo_id": self.repo_id, "revision": self.revision,
            "installed_at": self.installed_at,
            "files": [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in self.files],
        }


@dataclass(frozen=True)
class InstalledModel:
    """A model folder on disk: one Cosy Studio installed, or one the user brought."""

    folder: Path
    name: str  # catalogue name, or the folder name
    family: Family
    size_bytes: int  # everything in the folder
    model_id: str | None = None  # catalogue id, when installed by Cosy Studio
    source: str | None = None  # "huggingface" or "modelscope", when installed by Cosy Studio
    revision: str | None = None  # hub commit it was installed from
    managed: bool = False  # has a manifest (installed by Cosy Studio), so verify can check hashes


@dataclass(frozen=True)
class PartialDownload:
    """A download that stopped before it finished; :func:`download_model` continues it."""

    model_id: str
    staging_dir: Path
    bytes_staged: int


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify`."""

    folder: Path
    family: Family | None  # None when the folder's yaml could not be read
    managed: bool  # a manifest was found, so sizes (and hashes) were compared with install time
    files_checked: int
    bytes_checked: int
    hashed: bool  # sha256 was recomputed (not just sizes)
    problems: tuple[str, ...]  # one readable sentence each; empty when all is well
    smoke_seconds: float | None = None  # seconds the test synthesis took; None when not run

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.problems:
            return f"{len(self.problems)} problem(s) in {self.folder}: " + " ".join(self.problems)
        how = "sizes and sha256" if self.hashed else "sizes"
        what = (f"{self.files_checked} files ({format_bytes(self.bytes_checked)}) match the install manifest "
                f"({how})" if self.managed else "the folder has every file the model needs (no install manifest, "
                "so hashes could not be compared)")
        smoke = f"; a test synthesis ran in {self.smoke_seconds:.1f} s" if self.smoke_seconds is not None else ""
        return f"OK: {what}{smoke}."


# --------------------------------------------------------------------------------------------
# Hubs
# --------------------------------------------------------------------------------------------


class Hub(Protocol):
    """A place models can be downloaded from."""

    @property
    def source(self) -> Source: ...

    @property
    def title(self) -> str: ...

    def snapshot(self, repo_id: str, revision: str | None = None) -> RemoteSnapshot:
        """The repository's files at ``revision`` (the default branch when None). Network I/O."""
        ...

    def headers(self) -> dict[str, str]:
        """Headers to send with every file request."""
        ...


@dataclass(frozen=True)
class HuggingFaceHub:
    """The Hugging Face Hub or a mirror of it (``endpoint`` or ``$HF_ENDPOINT``), via ``huggingface_hub``."""

    endpoint: str | None = None  # None: $HF_ENDPOINT, else https://huggingface.co
    token: str | None = None  # None: huggingface_hub's own (HF_TOKEN or a stored login), if any

    @property
    def source(self) -> Source:
        return "huggingface"

    @property
    def title(self) -> str:
        url = hf_endpoint(self.endpoint)
        return "Hugging Face" if url == DEFAULT_HF_ENDPOINT else f"the Hugging Face mirror {url}"

    def snapshot(self, repo_id: str, revision: str | None = None) -> RemoteSnapshot:
        if _offline_requested():
            raise HubUnreachableError(
                "HF_HUB_OFFLINE is set, so nothing can be downloaded. Unset it to download, or use a folder "
                "you already have (\"Use a folder I already have…\" in the Models dialog, or --model PATH)."
            )
        from huggingface_hub import HfApi, hf_hub_url
        from huggingface_hub.utils import (
            GatedRepoError,
            HfHubHTTPError,
            OfflineModeIsEnabled,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )

        endpoint = hf_endpoint(self.endpoint)
        rev = revision or DEFAULT_REVISION["huggingface"]
        try:
            info = HfApi(endpoint=endpoint, token=self.token).model_info(
                repo_id, revision=rev, files_metadata=True, timeout=META_TIMEOUT)
        except GatedRepoError as e:
            raise RepoNotFoundError(
                f"{repo_id} on {self.title} needs you to accept its terms and log in "
                "(`hf auth login`, or set HF_TOKEN). Or use a folder you already have."
            ) from e
        except RevisionNotFoundError as e:
            raise RepoNotFoundError(
                f"{repo_id} on {self.title} has no revision {rev!r}; check the revision name.") from e
        except RepositoryNotFoundError as e:
            raise RepoNotFoundError(
                f"{self.title} has no model {repo_id} (or it is private). Check the name, log in if it is "
                "private, or choose the other download source."
            ) from e
        except OfflineModeIsEnabled as e:
            raise _unreachable(self.title, e) from e
        except HfHubHTTPError as e:
            status = getattr(getattr(e, "response", None), "status_code", None)
            if status is not None and int(status) >= 500:
                raise _unreachable(f"{self.title} (it answered HTTP {status})", e) from e
            raise RepoNotFoundError(f"{self.title} refused the file list of {repo_id}: {e}") from e
        except _transport_errors() as e:
            raise _unreachable(self.title, e) from e
        commit = info.sha or rev
        files: list[RemoteFile] = []
        for s in info.siblings or ():
            lfs = s.lfs
            files.append(RemoteFile(
                path=s.rfilename,
                size=int(lfs.size) if lfs is not None else (int(s.size) if s.size is not None else None),
                sha256=str(lfs.sha256).lower() if lfs is not None else None,
                git_sha1=None if lfs is not None or not s.blob_id else str(s.blob_id).lower(),
                url=hf_hub_url(repo_id, s.rfilename, revision=commit, endpoint=endpoint),
            ))
        logger.info("%s %s@%s: %d files", self.title, repo_id, commit, len(files))
        return RemoteSnapshot("huggingface", repo_id, commit, tuple(files))

    def headers(self) -> dict[str, str]:
        from huggingface_hub.utils import build_hf_headers

        headers = dict(build_hf_headers(token=self.token, library_name="cosy-studio"))
        headers["Accept-Encoding"] = "identity"  # sizes and Range offsets refer to the raw bytes
        return headers


@dataclass(frozen=True)
class ModelScopeHub:
    """ModelScope, through the optional ``modelscope`` package (``pip install 'cosy-studio[modelscope]'``).

    Its endpoint comes from the package's own settings (``MODELSCOPE_DOMAIN``).
    """

    @property
    def source(self) -> Source:
        return "modelscope"

    @property
    def title(self) -> str:
        return "ModelScope"

    def snapshot(self, repo_id: str, revision: str | None = None) -> RemoteSnapshot:
        try:
            from modelscope.hub import errors as ms_errors
            from modelscope.hub.api import HubApi
            from modelscope.hub.file_download import get_file_download_url
        except ImportError as e:
            raise SourceUnavailableError(
                "Downloading from ModelScope needs the modelscope package: pip install 'cosy-studio[modelscope]'. "
                "Or choose Hugging Face (HF_ENDPOINT can point at a mirror)."
            ) from e
        not_found: type[BaseException] = getattr(ms_errors, "NotExistError", LookupError)
        rev = revision or DEFAULT_REVISION["modelscope"]
        try:
            listing = HubApi().get_model_files(model_id=repo_id, revision=rev, recursive=True)
        except not_found as e:
            raise RepoNotFoundError(f"ModelScope has no model {repo_id} at {rev!r}: {e}") from e
        except _transport_errors() as e:
            raise _unreachable("ModelScope", e) from e
        files = tuple(
            RemoteFile(
                path=str(f["Path"]),
                size=int(f["Size"]) if f.get("Size") is not None else None,
                sha256=str(f["Sha256"]).lower() if f.get("Sha256") else None,
                git_sha1=None,
                url=get_file_download_url(repo_id, str(f["Path"]), rev),
            )
            for f in listing if f.get("Type", "blob") != "tree"
        )
        return RemoteSnapshot("modelscope", repo_id, rev, files)

    def headers(self) -> dict[str, str]:
        return {"User-Agent": "cosy-studio", "Accept-Encoding": "identity"}


def make_hub(source: Source = "huggingface", *, endpoint: str | None = None, token: str | None = None) -> Hub:
    """The hub for ``source``. Builds an object only; no network."""
    if source == "huggingface":
        return HuggingFaceHub(endpoint=endpoint, token=token)
    if source == "modelscope":
        if endpoint:
            raise DownloadError("A custom endpoint applies to Hugging Face only; for ModelScope set MODELSCOPE_DOMAIN.")
        return ModelScopeHub()
    raise DownloadError(f"Unknown download source {source!r}; choose one of: {', '.join(SOURCE_TITLES)}.")


# --------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------


def _entry(model: str | CatalogEntry) -> CatalogEntry:
    return model if isinstance(model, CatalogEntry) else get_entry(model)


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
        planned.append(PlannedFile(cf.path, remote, cf.approx_bytes))
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
    entry = _entry(model)
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


# --------------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------------


class _Reporter:
    """Turns byte counts into throttled :class:`DownloadProgress` callbacks with speed and ETA."""

    def __init__(self, model_id: str, callback: ProgressCallback | None, total: int, count: int,
                 phase: Phase = "downloading") -> None:
        self.model_id = model_id
        self.callback = callback
        self.total = total
        self.count = count
        self.phase: Phase = phase
        self.done = 0
        self.file = ""
        self.index = 0
        self.file_done = 0
        self.file_total: int | None = None
        self.moved = 0  # bytes transferred in this session (not resumed ones)
        self.samples: deque[tuple[float, int]] = deque()
        self.last_emit = 0.0
        self.emitted_done = 0  # done bytes at the last callback

    def speed(self) -> float:
        if len(self.samples) < 2:
            return 0.0
        (t0, b0), (t1, b1) = self.samples[0], self.samples[-1]
        return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0

    def snapshot(self) -> DownloadProgress:
        speed = self.speed()
        remaining = max(0, self.total - self.done)
        eta = remaining / speed if speed > 0 else (0.0 if remaining == 0 else None)
        return DownloadProgress(self.model_id, self.phase, self.file, self.index, self.count, self.file_done,
                                self.file_total, self.done, self.total, speed, eta)

    def emit(self, force: bool = False) -> None:
        # At most every PROGRESS_INTERVAL, and sooner once another 1/1000 of the total arrived, so
        # that what is shown when the transfer stalls is never more than a step behind.
        if self.callback is None:
            return
        now = time.monotonic()
        since = now - self.last_emit
        step = max(self.total // 1000, 1 << 18)
        if not force and since < PROGRESS_INTERVAL and (since < MIN_PROGRESS_INTERVAL or
                                                         self.done - self.emitted_done < step):
            return
        self.last_emit = now
        self.emitted_done = self.done
        self.callback(self.snapshot())

    def start_file(self, index: int, path: str, total: int | None) -> None:
        self.index, self.file, self.file_total, self.file_done = index, path, total, 0
        self.emit(force=True)

    def resumed(self, nbytes: int) -> None:
        """Bytes found on disk (not transferred now): they count as done but not towards the speed."""
        self.done += nbytes
        self.file_done += nbytes

    def set_file_done(self, nbytes: int) -> None:
        """The current file has ``nbytes`` on disk (after resuming, or 0 when it starts over)."""
        self.done += nbytes - self.file_done
        self.file_done = nbytes

    def moved_bytes(self, nbytes: int) -> None:
        self.done += nbytes
        self.file_done += nbytes
        self.moved += nbytes
        now = time.monotonic()
        self.samples.append((now, self.moved))
        while len(self.samples) > 2 and now - self.samples[0][0] > SPEED_WINDOW:
            self.samples.popleft()
        self.emit()

    def set_phase(self, phase: Phase) -> None:
        self.phase = phase
        self.file = ""
        self.emit(force=True)


# --------------------------------------------------------------------------------------------
# Transfer
# --------------------------------------------------------------------------------------------


class _StripAuthOnHostChange(urllib.request.HTTPRedirectHandler):
    """Follow redirects, but never send the hub token on to another host (the hubs redirect to CDNs)."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage, newurl: str) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            old_host = urllib.parse.urlsplit(req.full_url).netloc
            new_host = urllib.parse.urlsplit(new.full_url).netloc
            if old_host != new_host:
                new.remove_header("Authorization")
        return new


def _ssl_context() -> ssl.SSLContext:
    # A frozen app may not find the system's CA store; certifi's bundle (a huggingface_hub
    # dependency) works the same everywhere.
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.HTTPSHandler(context=_ssl_context()), _StripAuthOnHostChange())


def _open_part(path: Path) -> IO[bytes]:
    """Open a staged ``.part`` file for appending (a seam the tests use to fill the disk)."""
    return open(path, "ab")


class _Digests:
    """sha256 of a file's content, and its git blob id when the hub gave one to compare with."""

    def __init__(self, remote: RemoteFile) -> None:
        self.remote = remote
        self.reset()

    def reset(self) -> None:
        self.count = 0  # bytes hashed so far
        self.sha256 = hashlib.sha256()
        self.git: Any = None
        if self.remote.git_sha1 is not None and self.remote.size is not None:
            self.git = hashlib.sha1(f"blob {self.remote.size}\0".encode(), usedforsecurity=False)

    def update(self, data: bytes) -> None:
        self.count += len(data)
        self.sha256.update(data)
        if self.git is not None:
            self.git.update(data)

    def update_from_file(self, path: Path, nbytes: int) -> None:
        with open(path, "rb") as fh:
            left = nbytes
            while left > 0:
                block = fh.read(min(HASH_BLOCK, left))
                if not block:
                    break
                self.update(block)
                left -= len(block)


class _Fetcher:
    """Downloads one planned file into its ``.part`` file, resuming and retrying; checks size and hash."""

    def __init__(self, plan: DownloadPlan, reporter: _Reporter, cancel: threading.Event) -> None:
        self.plan = plan
        self.reporter = reporter
        self.cancel = cancel
        self.headers = dict(plan.headers)
        self.opener = _opener()

    def cancelled_error(self, f: PlannedFile) -> DownloadCancelledError:
        return DownloadCancelledError(
            f"Download of {self.plan.entry.name} cancelled during {f.path}. "
            f"{format_bytes(self.reporter.done)} are kept in {self.plan.staging_dir}; downloading it again resumes "
            "from there."
        )

    def _request(self, url: str, offset: int) -> Any:
        headers = dict(self.headers)
        if offset > 0:
            headers["Range"] = f"bytes={offset}-"
        return self.opener.open(urllib.request.Request(url, headers=headers), timeout=READ_TIMEOUT)

    def _sync(self, f: PlannedFile, part: Path, digests: _Digests) -> int:
        """Bytes of ``part`` on disk; brings the running hashes and the progress in line with them."""
        size = part.stat().st_size if part.exists() else 0
        if f.remote.size is not None and size > f.remote.size:
            part.unlink()
            size = 0
        if digests.count != size:
            digests.reset()
            if size:
                logger.info("resuming %s at byte %d of %s", f.path, size, f.remote.size)
                digests.update_from_file(part, size)
        self.reporter.set_file_done(size)
        return size

    def fetch(self, f: PlannedFile, part: Path) -> str:
        """Fill ``part`` with the file's bytes and return their sha256 (raises on any mismatch).

        Bytes already in ``part`` are kept and the rest is requested with ``Range``. A dropped
        connection or a 5xx answer is retried after a pause, from wherever the file got to.
        """
        expected = f.remote.size
        digests = _Digests(f.remote)
        self.reporter.start_file(self.reporter.index, f.path, expected)
        failures = 0
        while True:
            offset = self._sync(f, part, digests)
            if expected is not None and offset == expected:
                break
            if self.cancel.is_set():
                raise self.cancelled_error(f)
            try:
                self._transfer(f, part, offset, digests)
                if expected is None:
                    break
                got = part.stat().st_size if part.exists() else 0
                if got < expected:  # the response ended early without an error
                    raise http.client.IncompleteRead(b"", expected - got)
            except urllib.error.HTTPError as e:
                e.close()
                if e.code == 416 and offset > 0:  # our offset is past the end: the part is stale
                    logger.warning("%s: the server refused to resume at byte %d; starting over", f.path, offset)
                    part.unlink(missing_ok=True)
                    failures += 1
                    self._wait_before_retry(f, failures, e)
                elif e.code in (401, 403, 404):
                    raise RepoNotFoundError(
                        f"{f.remote.url} answered HTTP {e.code} ({e.reason}). The repository may have changed or "
                        "need a login; try again later, try the other download source, or use a folder you "
                        "already have."
                    ) from e
                elif e.code < 500 and e.code != 429:
                    raise DownloadError(f"Downloading {f.path} failed: HTTP {e.code} {e.reason}.") from e
                else:
                    failures += 1
                    self._wait_before_retry(f, failures, e)
            except DownloadError:
                raise
            except _transport_errors() as e:
                failures += 1
                self._wait_before_retry(f, failures, e)
        self._check(f, part, self._sync(f, part, digests), digests)
        return digests.sha256.hexdigest()

    def _wait_before_retry(self, f: PlannedFile, failures: int, e: BaseException) -> None:
        if failures > len(RETRY_DELAYS):
            host = urllib.parse.urlsplit(f.remote.url).netloc
            raise HubUnreachableError(
                f"Lost the connection to {host} while downloading {f.path} ({_reason(e)}), {failures} times in a "
                f"row. What was downloaded so far is kept in {self.plan.staging_dir}; resume when the connection is "
                "back, try the other download source, or use a folder you already have."
            ) from e
        delay = RETRY_DELAYS[failures - 1]
        logger.warning("%s: %s; retrying in %.1f s", f.path, _reason(e), delay)
        if self.cancel.wait(delay):
            raise self.cancelled_error(f)

    def _transfer(self, f: PlannedFile, part: Path, offset: int, digests: _Digests) -> None:
        """One GET from ``offset`` to the end of the response, appended to ``part``."""
        with contextlib.closing(self._request(f.remote.url, offset)) as resp:
            status = getattr(resp, "status", 200)
            if offset > 0 and status == 200:
                logger.warning("%s: the server ignored the Range request; starting over", f.path)
                part.unlink(missing_ok=True)
                digests.reset()
                self.reporter.set_file_done(0)
            elif status == 206:
                start = _content_range_start(resp.headers.get("Content-Range"))
                if start != offset:
                    raise DownloadError(
                        f"{f.path}: asked to resume at byte {offset}, the server answered from byte {start}. "
                        "Try again; if it repeats, try the other download source."
                    )
            try:
                fh = _open_part(part)
            except OSError as e:
                raise _storage_error(part, e, self.plan.staging_dir) from e
            with fh:
                while True:
                    if self.cancel.is_set():
                        raise self.cancelled_error(f)
                    chunk = resp.read1(CHUNK_BYTES)  # whatever has arrived, so progress never waits for a full chunk
                    if not chunk:
                        break
                    try:
                        fh.write(chunk)
                    except OSError as e:
                        raise _storage_error(part, e, self.plan.staging_dir) from e
                    digests.update(chunk)
                    self.reporter.moved_bytes(len(chunk))
                try:
                    fh.flush()
                    os.fsync(fh.fileno())
                except OSError as e:
                    raise _storage_error(part, e, self.plan.staging_dir) from e

    def _check(self, f: PlannedFile, part: Path, offset: int, digests: _Digests) -> None:
        r = f.remote
        problem = None
        if r.size is not None and offset != r.size:
            problem = f"it has {offset} bytes, the hub says {r.size}"
        elif r.sha256 is not None and digests.sha256.hexdigest() != r.sha256:
            problem = f"its sha256 is {digests.sha256.hexdigest()}, the hub published {r.sha256}"
        elif digests.git is not None and r.git_sha1 is not None and digests.git.hexdigest() != r.git_sha1:
            problem = f"its git blob id is {digests.git.hexdigest()}, the hub published {r.git_sha1}"
        if problem is not None:
            part.unlink(missing_ok=True)
            raise IntegrityError(
                f"{f.path} arrived corrupted: {problem}. The bad copy was deleted; download again to fetch it anew. "
                "If it keeps happening, a proxy or mirror is altering the file: try the other download source."
            )


def _content_range_start(value: str | None) -> int | None:
    # "bytes 100-999/1000" -> 100
    if not value or not value.startswith("bytes "):
        return None
    try:
        return int(value[6:].split("-", 1)[0])
    except ValueError:
        return None


# --------------------------------------------------------------------------------------------
# Staging
# --------------------------------------------------------------------------------------------


class _StagingLock:
    """An exclusive lock on one model's staging folder, released when the process ends in any way."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        self.fh: IO[bytes] | None = None

    def __enter__(self) -> _StagingLock:
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


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        logger.warning("ignoring unreadable %s: %s", path, e)
        return None
    return data if isinstance(data, dict) else None


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    try:
        write_atomic(path, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
    except StorageError as e:
        raise DownloadError(f"{e} Free up space or choose another models folder, then resume the download.") from e


def _reconcile_staging(plan: DownloadPlan) -> dict[str, bool]:
    """Keep the staged bytes that still belong to this plan, delete the rest.

    Returns ``{path: complete}`` for every planned file that has bytes on disk.
    """
    staging = plan.staging_dir
    state = _read_json(staging / STATE_NAME) or {}
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


def _record_state(plan: DownloadPlan, sha256: Mapping[str, str]) -> None:
    revision = plan.snapshot.revision
    _write_json(plan.staging_dir / STATE_NAME, {
        "model_id": plan.entry.id, "source": plan.snapshot.source, "repo_id": plan.snapshot.repo_id,
        "revision": revision, "files": {f.path: f.identity(revision) for f in plan.files},
        "sha256": dict(sha256),
    })


def _switch_into_place(staging: Path, final: Path, replace_existing: bool) -> None:
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


def install(plan: DownloadPlan, *, progress: ProgressCallback | None = None,
            cancel: threading.Event | None = None, replace_existing: bool = False) -> InstalledModel:
    """Download (or resume) ``plan`` into its staging folder, verify it and switch it into place."""
    entry = plan.entry
    cancel = cancel or threading.Event()
    staging = plan.staging_dir
    with _StagingLock(plan.models_dir / STAGING_DIR / f"{entry.id}.lock", entry.name):
        try:
            staging.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _storage_error(staging / "x", e, staging) from e
        kept = _reconcile_staging(plan)
        state = _read_json(staging / STATE_NAME) or {}
        old_sha = state.get("sha256", {}) if isinstance(state.get("sha256"), dict) else {}
        sha256: dict[str, str] = {p: str(old_sha[p]) for p, complete in kept.items() if complete and p in old_sha}
        _record_state(plan, sha256)
        have = 0
        for f in plan.files:
            if kept.get(f.path) is True:
                have += f.expected_bytes
            elif kept.get(f.path) is False:
                have += (staging / (f.path + PART_SUFFIX)).stat().st_size
        check_disk_space(staging, max(0, plan.total_bytes - have), f"Downloading {entry.name}")

        reporter = _Reporter(entry.id, progress, plan.total_bytes, len(plan.files))
        fetcher = _Fetcher(plan, reporter, cancel)
        for index, f in enumerate(plan.files):
            done = staging / f.path
            reporter.index = index
            if kept.get(f.path) is True and f.path in sha256:
                reporter.start_file(index, f.path, f.remote.size)
                reporter.resumed(f.expected_bytes)
                continue
            if cancel.is_set():
                raise fetcher.cancelled_error(f)
            part = staging / (f.path + PART_SUFFIX)
            try:
                part.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise _storage_error(part, e, staging) from e
            if done.exists():  # complete but its hash was not recorded: check it once more
                done.replace(part)
            sha256[f.path] = fetcher.fetch(f, part)
            os.replace(part, done)
            _record_state(plan, sha256)
            logger.info("%s: %s ok (%s)", entry.id, f.path, format_bytes(done.stat().st_size))

        reporter.set_phase("installing")
        if cancel.is_set():
            raise DownloadCancelledError(f"Download of {entry.name} cancelled before it was installed; "
                                         f"the files are kept in {staging}.")
        try:
            cfg = load_model_config(staging)
        except CosyError as e:
            raise DownloadError(f"The downloaded files do not form a usable {entry.name} folder: {e} "
                                f"They are kept in {staging}; report this, or use a folder you already have.") from e
        if cfg.family != entry.family:
            raise DownloadError(f"{entry.name} should be a {entry.family} release but the download is a {cfg.family} "
                                f"one; the catalogue and the repository disagree. The files are kept in {staging}.")
        manifest = Manifest(
            model_id=entry.id, name=entry.name, family=entry.family, source=plan.snapshot.source,
            repo_id=plan.snapshot.repo_id, revision=plan.snapshot.revision,
            installed_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            files=tuple(ManifestFile(f.path, (staging / f.path).stat().st_size, sha256[f.path]) for f in plan.files),
        )
        _write_json(staging / MANIFEST_NAME, manifest.to_json())
        (staging / STATE_NAME).unlink(missing_ok=True)
        _switch_into_place(staging, plan.final_dir, replace_existing)
        reporter.set_phase("done")
    with contextlib.suppress(OSError):
        staging.parent.rmdir()  # .staging, when nothing else is staged
    logger.info("installed %s into %s", entry.name, plan.final_dir)
    return describe_folder(plan.final_dir)


def download_model(model: str | CatalogEntry, models_dir: Path | str | None = None, *,
                   source: Source = "huggingface", endpoint: str | None = None, token: str | None = None,
                   revision: str | None = None, progress: ProgressCallback | None = None,
                   cancel: threading.Event | None = None, force: bool = False,
                   hub: Hub | None = None) -> InstalledModel:
    """Download and install a catalogue model; resumes a download that was interrupted before.

    ``progress`` is called (on this thread) with a :class:`DownloadProgress` about ten times a
    second while bytes flow. Setting ``cancel`` from any thread stops the download within one
    chunk; the bytes so far stay staged for the next call. An already installed model is returned
    as it is unless ``force`` (which downloads it again and swaps it in only when complete).
    Raises :class:`~cosycore.errors.DownloadError` subclasses with messages meant for people.
    """
    entry = _entry(model)
    folder = Path(models_dir) if models_dir is not None else default_models_dir()
    final = folder / entry.folder
    if final.exists() and not force:
        try:
            manifest = read_manifest(final)
        except IntegrityError:
            manifest = None
        if manifest is not None and manifest.model_id == entry.id:
            logger.info("%s is already installed in %s", entry.name, final)
            return describe_folder(final)
        raise DownloadError(
            f"{final} already exists and was not installed by Cosy Studio. To use it as it is, choose it with "
            "\"Use a folder I already have\" (or --model); otherwise move it away, or choose another models folder."
        )
    if progress is not None:
        progress(DownloadProgress(entry.id, "planning"))
    plan = plan_download(entry, folder, source=source, endpoint=endpoint, token=token, revision=revision, hub=hub)
    return install(plan, progress=progress, cancel=cancel, replace_existing=force)


# --------------------------------------------------------------------------------------------
# The models folder
# --------------------------------------------------------------------------------------------


def read_manifest(folder: Path | str) -> Manifest | None:
    """The install manifest of ``folder``; None when it has none (a folder the user brought)."""
    path = Path(folder) / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != MANIFEST_SCHEMA:
            raise ValueError(f"unknown schema {data.get('schema')!r}")
        return Manifest(
            model_id=str(data["model_id"]), name=str(data["name"]), family=data["family"],
            source=str(data["source"]), repo_id=str(data["repo_id"]), revision=str(data["revision"]),
            installed_at=str(data["installed_at"]),
            files=tuple(ManifestFile(str(f["path"]), int(f["size"]), str(f["sha256"])) for f in data["files"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise IntegrityError(
            f"The install manifest {path} is unreadable ({e}). Download the model again, or delete the manifest "
            "to keep the folder as one of your own."
        ) from e


def describe_folder(folder: Path | str) -> InstalledModel:
    """What a model folder is; raises a :class:`ModelLoadError` subclass when it is not one."""
    folder = Path(folder)
    family, _yaml = detect_family(folder)
    try:
        manifest = read_manifest(folder)
    except IntegrityError as e:
        logger.warning("%s", e)
        manifest = None
    if manifest is None:
        return InstalledModel(folder, folder.name, family, _folder_bytes(folder))
    return InstalledModel(folder, manifest.name, family, _folder_bytes(folder), model_id=manifest.model_id,
                          source=manifest.source, revision=manifest.revision, managed=True)


def list_installed(models_dir: Path | str | None = None, extra_folders: Iterable[Path | str] = ()) -> tuple[
        InstalledModel, ...]:
    """Model folders directly inside ``models_dir`` (default :func:`default_models_dir`), then ``extra_folders``.

    Staging, hidden and non-model folders are skipped; so are extra folders that no longer hold a model.
    """
    root = Path(models_dir) if models_dir is not None else default_models_dir()
    found: list[InstalledModel] = []
    seen: set[Path] = set()
    children = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in [*(c for c in children if not c.name.startswith(".")), *(Path(p) for p in extra_folders)]:
        key = folder.resolve()
        if key in seen:
            continue
        seen.add(key)
        try:
            found.append(describe_folder(folder))
        except ModelLoadError as e:
            logger.debug("not a model folder: %s (%s)", folder, e)
    return tuple(found)


def list_partial(models_dir: Path | str | None = None) -> tuple[PartialDownload, ...]:
    """Downloads that stopped before they finished (their staged bytes are kept for resuming)."""
    root = (Path(models_dir) if models_dir is not None else default_models_dir()) / STAGING_DIR
    if not root.is_dir():
        return ()
    return tuple(PartialDownload(d.name, d, _folder_bytes(d)) for d in sorted(root.iterdir()) if d.is_dir())


def discard_partial(model_id: str, models_dir: Path | str | None = None) -> None:
    """Delete the staged bytes of an unfinished download of ``model_id``."""
    root = (Path(models_dir) if models_dir is not None else default_models_dir()) / STAGING_DIR
    with _StagingLock(root / f"{model_id}.lock", model_id):
        shutil.rmtree(root / model_id, ignore_errors=True)
    with contextlib.suppress(OSError):
        root.rmdir()


def remove(folder: Path | str) -> None:
    """Delete a model folder. Refuses folders that are not model folders.

    The folder is first renamed to a hidden name, so an interrupted delete never leaves a
    half-deleted folder that looks like a model.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelNotFoundError(f"{folder} does not exist (already removed?).")
    if not (folder / MANIFEST_NAME).exists():
        try:
            detect_family(folder)
        except WrongModelFamilyError as e:
            raise DownloadError(f"Not deleting {folder}: it is not a model folder ({e})") from e
    trash = folder.with_name(f".cosy-removing-{folder.name}-{uuid.uuid4().hex[:8]}")
    try:
        os.rename(folder, trash)
    except OSError as e:
        raise DownloadError(f"Could not delete {folder} ({e.strerror or e}); close programs using it and "
                            "check that you may change its parent folder.") from e
    failures: list[str] = []

    def note(_fn: object, path: str, exc: object) -> None:
        failures.append(f"{path}: {exc[1] if isinstance(exc, tuple) else exc}")

    if sys.version_info >= (3, 12):
        shutil.rmtree(trash, onexc=note)
    else:
        shutil.rmtree(trash, onerror=note)
    if failures:
        raise DownloadError(f"{folder} was taken out of use but some files could not be deleted "
                            f"({failures[0]}); delete {trash} by hand.")
    logger.info("removed %s", folder)


# --------------------------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------------------------


def synthesis_smoke_test(folder: Path, *, device: str = "cpu", tokens: int = 6) -> float:
    """Load ``folder`` with :class:`~cosycore.model.CosyModel` and synthesise a few speech tokens.

    Uses fixed text ids and a random speaker embedding (no prompt audio is needed). Returns the
    seconds of audio made; raises when loading fails or the audio is empty or not finite.
    """
    import numpy as np
    import torch

    from ..lm.token_ids import ENDOFPROMPT_ID
    from ..model import CosyModel, SynthesisKnobs

    model = CosyModel.load(folder, device=device)
    generator = torch.Generator().manual_seed(0)
    embedding = torch.randn(model.cfg.flow.spk_embed_dim, generator=generator)
    knobs = SynthesisKnobs(stream=False, seed=0, min_len=tokens, max_len=tokens)
    text_ids = [9707, 11, 1879, 13]  # a few ordinary Qwen2 text ids
    # Fun-CosyVoice3 requires <|endofprompt|> in front of what it speaks
    prompt_ids = [ENDOFPROMPT_ID] if model.cfg.family == "cosyvoice3" else None
    pieces = list(model.tts(text_ids, prompt_text_ids=prompt_ids, embedding=embedding, knobs=knobs))
    audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    if audio.size == 0 or not np.isfinite(audio).all():
        raise ModelLoadError(f"{folder} loaded but produced no usable audio ({audio.size} samples).")
    return float(audio.size / model.sample_rate)


def verify(folder: Path | str, *, hashes: bool = True, smoke_test: SmokeTest | None = None,
           progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> VerifyReport:
    """Re-check a model folder against its install manifest (sizes, and sha256 when ``hashes``).

    A folder without a manifest (one the user brought) is checked for the files its family needs.
    ``smoke_test`` (for example :func:`synthesis_smoke_test`, or a function that builds the engine)
    is called with the folder when every file checks out; whatever it raises becomes a problem.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelNotFoundError(f"{folder} does not exist; choose an existing model folder.")
    problems: list[str] = []
    family: Family | None = None
    try:
        family = load_model_config(folder).family
    except CosyError as e:
        problems.append(str(e))
    manifest: Manifest | None = None
    try:
        manifest = read_manifest(folder)
    except IntegrityError as e:
        problems.append(str(e))
    files_checked = bytes_checked = 0
    if manifest is not None:
        if family is not None and manifest.family != family:
            problems.append(f"The manifest says {manifest.family} but the folder holds a {family} model.")
        reporter = _Reporter(folder.name, progress, manifest.total_bytes, len(manifest.files), phase="verifying")
        for index, mf in enumerate(manifest.files):
            path = folder / mf.path
            reporter.start_file(index, mf.path, mf.size)
            if not path.is_file():
                problems.append(f"{mf.path} is missing.")
                continue
            size = path.stat().st_size
            if size != mf.size:
                problems.append(f"{mf.path} has {size} bytes; it had {mf.size} when installed.")
                continue
            if hashes:
                digest = _sha256_file(path, on_bytes=reporter.moved_bytes, cancel=cancel)
                if digest != mf.sha256:
                    problems.append(f"{mf.path} has changed since it was installed (sha256 {digest[:12]}…, "
                                    f"expected {mf.sha256[:12]}…).")
            else:
                reporter.resumed(size)
            files_checked += 1
            bytes_checked += size
        reporter.set_phase("done")
    elif family is not None:
        for rel in required_files_for(family):
            path = folder / rel
            if not path.is_file() or path.stat().st_size == 0:
                problems.append(f"{rel} is missing or empty.")
            else:
                files_checked += 1
                bytes_checked += path.stat().st_size
    if problems:
        problems.append("Download the model again (or replace the damaged files) before using it.")
    smoke_seconds: float | None = None
    if smoke_test is not None and not problems:
        start = time.perf_counter()
        try:
            smoke_test(folder)
        except Exception as e:  # any failure of the caller's test is a finding to report, not a crash
            logger.exception("smoke test failed for %s", folder)
            problems.append(f"The model files are intact but a test synthesis failed: {e}")
        else:
            smoke_seconds = time.perf_counter() - start
    return VerifyReport(folder, family, manifest is not None, files_checked, bytes_checked,
                        hashes and manifest is not None, tuple(problems), smoke_seconds)
