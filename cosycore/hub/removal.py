"""Deleting models: only ever what Cosy Studio created (issue 12, items 1 and 2).

* :func:`discard_partial` deletes the staged bytes of an unfinished download. The id must be a
  catalogue id or the name of an unfinished download, and it is resolved inside
  ``<models>/.staging`` only: an absolute path, ``..`` or a separator is refused, so
  ``models remove ~ --partial`` cannot reach the home folder. An unknown id is an error.
* :func:`remove_model` deletes an installed model. A folder with an install manifest (one Cosy
  Studio downloaded) loses exactly the files the manifest lists, and the manifest; anything else
  found in it (documents someone saved there) is kept, and the folder with it. The manifest is
  trusted only when it matches the catalogue and the disk: every file it lists must be a file of
  its catalogue entry (by name) and be on disk as a regular file of the size it records; otherwise
  (a planted manifest listing ``thesis.docx``, a file changed since) nothing is deleted. A folder
  without a manifest (one the user brought, e.g. with "Use a folder I already have") is never
  deleted unless the caller confirms (``delete_user_folder=True``) and the folder holds nothing but
  the files of a release, by name (the catalogue's file list of its family) and by size (within
  :data:`SIZE_FACTOR` of the catalogue's size; a fine-tune's ``epoch_10.pt`` or ``train_config.yaml``
  is not a release file); otherwise it is only forgotten (nothing on disk changes).
* :func:`remove_target` resolves what ``cosycore models remove`` was given: a catalogue id (its
  folder in the models folder) or a folder path.

A folder whose every file is ours is first renamed to a hidden name and then deleted, so an
interrupted delete never leaves a half-deleted folder that looks like a model.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import shutil
import stat
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..atomic_write import storage_reason
from ..config import detect_family
from ..errors import DownloadError, ModelLoadError, ModelNotFoundError
from ..manifest import MANIFEST_NAME, Manifest, read_manifest
from .catalog import load_catalog
from .common import STAGING_DIR, STATE_NAME, default_models_dir
from .listing import list_partial
from .staging import StagingLock

logger = logging.getLogger(__name__)

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# A release's own small files besides the catalogue's (a hub repository's), each at most this size.
_RELEASE_EXTRAS = ("README.md", "configuration.json", ".gitattributes", "CosyVoice-BlankEN/README.md",
                   "CosyVoice-BlankEN/LICENSE", "CosyVoice-BlankEN/.gitattributes", STATE_NAME)
_EXTRA_MAX_BYTES = 256 << 10
SIZE_FACTOR = 2.0  # a release file's size is within this factor of the catalogue's approximate size
_SMALL_BYTES = 1 << 20  # catalogue files smaller than this (configs, yaml) may be up to this size


@dataclass(frozen=True)
class RemovalReport:
    """What :func:`remove_model` did."""

    folder: Path
    deleted_files: int
    kept: tuple[str, ...]  # files that were not ours and stay where they were ("/"-separated, relative)
    folder_removed: bool

    def summary(self) -> str:
        if self.folder_removed:
            return f"Deleted {self.folder}."
        kept = ", ".join(self.kept[:5]) + (f" and {len(self.kept) - 5} more" if len(self.kept) > 5 else "")
        return (f"Deleted the {self.deleted_files} model files from {self.folder}; kept {len(self.kept)} file(s) "
                f"that Cosy Studio did not install ({kept}), and the folder with them.")


def safe_member(folder: Path, rel: str) -> Path | None:
    """``folder / rel`` when ``rel`` is a plain relative path that stays inside ``folder``; else None.

    Refuses absolute paths, ``..``, empty parts and backslashes, and parent folders that are
    symlinks leading out of ``folder``. The last part itself may be a symlink: it is handled as a
    link (unlinked, or hashed through :func:`os.lstat` checks by the caller), never followed out.
    """
    if not rel or "\\" in rel or "\0" in rel:
        return None
    p = PurePosixPath(rel)
    if p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) or re.match(r"^[A-Za-z]:", rel):
        return None
    base = folder.resolve()
    parent = (folder / p).parent.resolve()
    if parent != base and base not in parent.parents:
        return None
    return folder / p


def _files(folder: Path) -> list[str]:
    """Every non-directory entry under ``folder`` ("/"-separated), without following symlinks."""
    out: list[str] = []
    for root, dirs, names in os.walk(folder, followlinks=False):
        rel_root = Path(root).relative_to(folder)
        for d in list(dirs):
            if (Path(root) / d).is_symlink():  # a link to a folder counts as a file: never walked into
                names.append(d)
                dirs.remove(d)
        out.extend((rel_root / n).as_posix() for n in names)
    return sorted(out)


def _advice(e: OSError) -> str:
    if e.errno == errno.EROFS:
        return "mount the disk writable, or leave the model where it is."
    return "close programs using it and check that you may change its parent folder."


def _delete_whole(folder: Path) -> None:
    """Rename to a hidden name, then delete (every file in it was checked to be ours)."""
    trash = folder.with_name(f".cosy-removing-{folder.name}-{uuid.uuid4().hex[:8]}")
    try:
        os.rename(folder, trash)
    except OSError as e:
        raise DownloadError(f"Could not delete {folder} ({storage_reason(e)}); {_advice(e)}") from e
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


def _delete_listed(folder: Path, ours: set[str]) -> int:
    """Unlink the listed files (links as links), then remove the folders left empty."""
    deleted = 0
    for rel in sorted(ours, key=lambda r: (r != MANIFEST_NAME, r)):  # the manifest first: an interrupted
        path = safe_member(folder, rel)  # delete then leaves a folder that no longer claims to be complete
        if path is None:
            continue
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(st.st_mode):
            continue
        try:
            os.unlink(path)
            deleted += 1
        except OSError as e:
            raise DownloadError(f"Could not delete {path} ({storage_reason(e)}); nothing else was changed. "
                                f"{_advice(e).capitalize()}") from e
    for root, _dirs, _names in sorted(os.walk(folder, topdown=False, followlinks=False), key=lambda t: -len(t[0])):
        if Path(root) != folder:
            with contextlib.suppress(OSError):
                os.rmdir(root)  # only succeeds when empty
    return deleted


def _size_of(folder: Path, rel: str) -> int | None:
    """The size of ``folder / rel`` when it is a regular file inside the folder (no link); else None."""
    path = safe_member(folder, rel)
    if path is None:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _release_file(rel: str, size: int | None = None, family: str | None = None) -> bool:
    """Whether ``rel`` (of ``size`` bytes) is a file of a release of ``family`` (any family: None),
    by name (the catalogue's files, a few small repository files) and size."""
    if rel in _RELEASE_EXTRAS:
        return size is None or size <= _EXTRA_MAX_BYTES
    for entry in load_catalog():
        if family is not None and entry.family != family:
            continue
        for f in entry.files:
            if f.path != rel:
                continue
            if size is None:
                return True
            if f.approx_bytes < _SMALL_BYTES:
                if size <= _SMALL_BYTES:
                    return True
            elif f.approx_bytes / SIZE_FACTOR <= size <= f.approx_bytes * SIZE_FACTOR:
                return True
    return False


def _untrusted_manifest(folder: Path, manifest: Manifest) -> str | None:
    """Why the install manifest does not match the catalogue and the disk, or None when it does."""
    entries = [e for e in load_catalog() if e.id == manifest.model_id]
    if not entries:
        return f"it names {manifest.model_id!r}, which is not in the catalogue"
    names = {f.path for f in entries[0].files}
    for f in manifest.files:
        if f.path not in names:
            return f"it lists {f.path!r}, which is not a file of {manifest.model_id}"
        size = _size_of(folder, f.path)
        if size is not None and size != f.size:  # a link in its place is removed as a link, never followed
            return f"{f.path} is {size:,} bytes on disk where it recorded {f.size:,}"
    return None


def remove_model(folder: Path | str, *, delete_user_folder: bool = False) -> RemovalReport:
    """Delete a model folder's own files; see the module docstring for what counts as ours."""
    folder = Path(folder)
    if folder.is_symlink():
        raise DownloadError(f"Not deleting {folder}: it is a symbolic link. Remove the link yourself if you want.")
    if not folder.is_dir():
        raise ModelNotFoundError(f"{folder} does not exist (already removed?).")
    manifest = read_manifest(folder)  # IntegrityError when unreadable: nothing is deleted then
    present = _files(folder)
    if manifest is not None:
        listed = [f.path for f in manifest.files]
        bad = [p for p in listed if safe_member(folder, p) is None]
        if bad:
            raise DownloadError(f"Not deleting {folder}: its install manifest names paths outside the folder "
                                f"({bad[0]!r}). Delete the folder by hand if it is yours to delete.")
        untrusted = _untrusted_manifest(folder, manifest)
        if untrusted is not None:
            raise DownloadError(f"Not deleting {folder}: its install manifest does not match the catalogue and the "
                                f"files on disk ({untrusted}), so the folder is only forgotten. Delete it by hand "
                                "if it is yours to delete.")
        ours = {*listed, MANIFEST_NAME, STATE_NAME}
    else:
        try:
            family, _yaml = detect_family(folder)
        except ModelLoadError as e:
            raise DownloadError(f"Not deleting {folder}: it is not a model folder ({e})") from e
        if not delete_user_folder:
            raise DownloadError(
                f"Not deleting {folder}: Cosy Studio did not download it (it has no install manifest), so it is "
                "only forgotten, never deleted. To delete its release files anyway, confirm with "
                "--delete-user-folder (only a folder holding nothing but a release's files is deleted)."
            )
        extra = [p for p in present if not _release_file(p, _size_of(folder, p), family)]
        extra.sort(key=lambda p: _release_file(p, None, family))  # files not named like a release's first
        if extra:
            raise DownloadError(
                f"Not deleting {folder}: besides the release's own files (by name and size) it holds "
                f"{len(extra)} other file(s) ({', '.join(extra[:3])}{' …' if len(extra) > 3 else ''}), so it is "
                "only forgotten. Move them out first, or delete the folder by hand."
            )
        ours = set(present)
    kept = tuple(p for p in present if p not in ours)
    if not kept:
        _delete_whole(folder)
        logger.info("removed %s", folder)
        return RemovalReport(folder, len(present), (), True)
    deleted = _delete_listed(folder, ours & set(present))
    logger.info("removed the model files of %s, kept %d other files", folder, len(kept))
    return RemovalReport(folder, deleted, kept, False)


def remove(folder: Path | str, *, delete_user_folder: bool = False) -> None:
    """Delete a model folder's own files (see :func:`remove_model`).

    A folder Cosy Studio installed loses the files its manifest lists (anything else in it is
    kept); a folder the user brought is refused unless ``delete_user_folder`` and it holds only
    release files.
    """
    remove_model(folder, delete_user_folder=delete_user_folder)

def partial_dir(model_id: str, models_dir: Path) -> Path:
    """The staging folder of an unfinished download of ``model_id``, checked to be inside the models folder.

    ``model_id`` must be a catalogue id or the name of an existing unfinished download; anything
    else (an absolute path, ``..``, a separator, an unknown id) is a :class:`DownloadError`.
    """
    root = Path(models_dir) / STAGING_DIR
    known = {e.id for e in load_catalog()} | {p.model_id for p in list_partial(models_dir)}
    if not _SAFE_ID.match(model_id) or model_id not in known:
        raise DownloadError(
            f"{model_id!r} is not a model id with an unfinished download in {models_dir}; see "
            "'cosycore models list'. Nothing was deleted."
        )
    target = root / model_id
    if target.is_symlink() or target.resolve().parent != root.resolve():
        raise DownloadError(f"Not deleting {target}: it leads outside {root}.")
    return target


def discard_partial(model_id: str, models_dir: Path | str | None = None) -> bool:
    """Delete the staged bytes of an unfinished download; False when there were none."""
    models = Path(models_dir) if models_dir is not None else default_models_dir()
    target = partial_dir(model_id, models)
    if not target.exists():
        return False
    root = target.parent
    with StagingLock(root / f"{model_id}.lock", model_id):
        shutil.rmtree(target, ignore_errors=True)
    with contextlib.suppress(OSError):
        root.rmdir()
    return True


def remove_target(target: str, models_dir: Path, *, partial: bool = False,
                  delete_user_folder: bool = False) -> str:
    """What ``cosycore models remove TARGET`` does; returns the message to print."""
    if partial:
        if discard_partial(target, models_dir):
            return f"Deleted the unfinished download of {target}."
        return f"There was no unfinished download of {target}; nothing was deleted."
    for entry in load_catalog():
        if target == entry.id:
            folder = Path(models_dir) / entry.folder
            if not folder.exists():
                raise ModelNotFoundError(f"{entry.id} is not installed in {models_dir}; nothing was deleted.")
            return remove_model(folder, delete_user_folder=delete_user_folder).summary()
    folder = Path(target).expanduser()
    if not folder.exists() and not folder.is_symlink():
        known = ", ".join(e.id for e in load_catalog())
        raise DownloadError(f"{target!r} is neither a catalogue id ({known}) nor an existing folder; nothing "
                            "was deleted.")
    return remove_model(folder, delete_user_folder=delete_user_folder).summary()
