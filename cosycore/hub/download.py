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
4. **Install**: write a manifest (``.cosy-manifest.json``, :mod:`cosycore.manifest`: every file's
   size, sha256 and mtime), check that the staged folder parses as the expected family, then rename
   the staging folder to ``<models>/<folder>`` in one step. A half-downloaded folder therefore
   never appears where a model folder is expected.

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
import logging
import os
import threading
from datetime import datetime, timezone
from pathlib import Path

from ..config import load_model_config
from ..errors import (
    CosyError,
    DownloadCancelledError,
    DownloadError,
    IntegrityError,
)
from ..manifest import MANIFEST_NAME, Manifest, ManifestFile, read_manifest
from .catalog import CatalogEntry, Source
from .common import PART_SUFFIX, STAGING_DIR, STATE_NAME, default_models_dir, storage_error
from .hubs import Hub
from .listing import InstalledModel, describe_folder
from .plan import DownloadPlan, catalog_entry, check_disk_space, plan_download
from .progress import DownloadProgress, ProgressCallback, Reporter, format_bytes
from .staging import StagingLock, read_json, reconcile_staging, record_state, switch_into_place, write_json
from .transfer import Fetcher

logger = logging.getLogger(__name__)


def _manifest_file(staging: Path, path: str, sha256: str, *, verified: bool) -> ManifestFile:
    # The mtime lets the loader trust the recorded sha256 while the file is unchanged (renaming the
    # staging folder into place keeps it): cosycore.manifest.recorded_sha256.
    st = (staging / path).stat()
    return ManifestFile(path, st.st_size, sha256, verified=verified, mtime_ns=st.st_mtime_ns)


def _check_staged(entry: CatalogEntry, staging: Path) -> None:
    """The staged files must form the model the entry promises (a release of its family, or a recognizer)."""
    try:
        if entry.kind == "asr":
            from ..asr import check_model_folder

            check_model_folder(staging)
            return
        cfg = load_model_config(staging)
    except CosyError as e:
        raise DownloadError(f"The downloaded files do not form a usable {entry.name} folder: {e} "
                            f"They are kept in {staging}; report this, or use a folder you already have.") from e
    if cfg.family != entry.family:
        raise DownloadError(f"{entry.name} should be a {entry.family} release but the download is a {cfg.family} "
                            f"one; the catalogue and the repository disagree. The files are kept in {staging}.")


def install(plan: DownloadPlan, *, progress: ProgressCallback | None = None,
            cancel: threading.Event | None = None, replace_existing: bool = False) -> InstalledModel:
    """Download (or resume) ``plan`` into its staging folder, verify it and switch it into place."""
    entry = plan.entry
    cancel = cancel or threading.Event()
    staging = plan.staging_dir
    with StagingLock(plan.models_dir / STAGING_DIR / f"{entry.id}.lock", entry.name):
        try:
            staging.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise storage_error(staging / "x", e, staging) from e
        kept = reconcile_staging(plan)
        state = read_json(staging / STATE_NAME) or {}
        old_sha = state.get("sha256", {}) if isinstance(state.get("sha256"), dict) else {}
        sha256: dict[str, str] = {p: str(old_sha[p]) for p, complete in kept.items() if complete and p in old_sha}
        record_state(plan, sha256)
        have = 0
        for f in plan.files:
            if kept.get(f.path) is True:
                have += f.expected_bytes
            elif kept.get(f.path) is False:
                have += (staging / (f.path + PART_SUFFIX)).stat().st_size
        check_disk_space(staging, max(0, plan.total_bytes - have), f"Downloading {entry.name}")

        reporter = Reporter(entry.id, progress, plan.total_bytes, len(plan.files))
        fetcher = Fetcher(plan, reporter, cancel)
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
                raise storage_error(part, e, staging) from e
            if done.exists():  # complete but its hash was not recorded: check it once more
                done.replace(part)
            sha256[f.path] = fetcher.fetch(f, part)
            os.replace(part, done)
            record_state(plan, sha256)
            logger.info("%s: %s ok (%s)", entry.id, f.path, format_bytes(done.stat().st_size))

        reporter.set_phase("installing")
        if cancel.is_set():
            raise DownloadCancelledError(f"Download of {entry.name} cancelled before it was installed; "
                                         f"the files are kept in {staging}.")
        _check_staged(entry, staging)
        manifest = Manifest(
            model_id=entry.id, name=entry.name, family=entry.family, source=plan.snapshot.source,
            repo_id=plan.snapshot.repo_id, revision=plan.snapshot.revision,
            installed_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            files=tuple(_manifest_file(staging, f.path, sha256[f.path],
                                       verified=f.remote.sha256 is not None or f.remote.git_sha1 is not None)
                        for f in plan.files),
        )
        write_json(staging / MANIFEST_NAME, manifest.to_json())
        (staging / STATE_NAME).unlink(missing_ok=True)
        switch_into_place(staging, plan.final_dir, replace_existing)
        reporter.set_phase("done")
    with contextlib.suppress(OSError):
        staging.parent.rmdir()  # .staging, when nothing else is staged
    logger.info("installed %s into %s", entry.name, plan.final_dir)
    return describe_folder(plan.final_dir)


def asr_model_folder(models_dir: Path | str | None = None) -> Path:
    """Where the speech recognizer (catalogue id ``sensevoice-small``) is installed; it may not exist yet."""
    from .catalog import ASR_MODEL_ID, get_entry

    folder = Path(models_dir) if models_dir is not None else default_models_dir()
    return folder / get_entry(ASR_MODEL_ID).folder


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
    entry = catalog_entry(model)
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
