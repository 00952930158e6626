"""The one-time move of the command line's old data folder into the shared one.

Before the app and the command line shared :func:`~cosycore.paths.user_data_dir`, ``cosycore``
kept saved voices in ``<user data>/CosyStudio/voices`` and the app-wide dictionary in
``<user data>/CosyStudio/lexicon.csv`` (:func:`~cosycore.paths.legacy_data_dir`), where the app
never looked. :func:`move_legacy_data` brings those files, and only those, into the shared folder:

* each file is placed with a hard link and then its old name removed: on one file system that is an
  atomic move that, unlike ``os.rename`` on POSIX, never replaces a file already in the new place;
  where links are not possible (another disk, a file system without them) the file is copied,
  flushed to disk and compared byte for byte before the old one is removed;
* a file whose name is taken in the new folder by a different file stays where it is, with a
  warning that says how to bring it over (:class:`LeftBehind`); an identical file there means an
  earlier move was interrupted, and the old copy is removed (nothing is lost);
* nothing else in the old folder is touched; the old ``voices/`` folder and the old folder are
  removed only when they are empty afterwards;
* a lock file in the new folder keeps two processes (the app and a command) from moving at once,
  and running it again finds nothing left to do.

:func:`ensure_legacy_moved` runs it once per process for the platform folders; the voice library's
and the dictionary's default locations call it, so the first use of either moves the files.
"""

from __future__ import annotations

import contextlib
import errno
import filecmp
import logging
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from ..atomic_write import fsync_dir, storage_reason
from .folders import legacy_data_dir, platform_data_dir, studio_home

logger = logging.getLogger(__name__)

VOICE_SUFFIX = ".cosyvoice"  # as cosycore.voices (a layer above this one) names voice files
LEXICON_NAME = "lexicon.csv"
VOICES_NAME = "voices"
LOCK_NAME = ".legacy-move.lock"
LOCK_TIMEOUT = 30.0  # seconds to wait for another process's move before leaving it for the next start

_once_lock = threading.Lock()
_done = False


@dataclass(frozen=True)
class LeftBehind:
    """An old file that was not moved because its name is taken in the new folder by another file."""

    old: Path  # still in the old folder, unchanged
    taken: Path  # the different file already in the new folder under that name
    advice: str  # what to do to bring it over, with the exact paths


@dataclass(frozen=True)
class MoveReport:
    """What one :func:`move_legacy_data` did."""

    moved: tuple[tuple[Path, Path], ...] = ()  # (old, new) for each file moved
    left_behind: tuple[LeftBehind, ...] = ()
    problems: tuple[str, ...] = ()  # files that could not be moved (unreadable, disk full): kept, said why

    @property
    def empty(self) -> bool:
        return not (self.moved or self.left_behind or self.problems)


def _candidates(legacy: Path) -> list[tuple[Path, str]]:
    """(old file, path relative to the data folder) for the files the move is about."""
    found: list[tuple[Path, str]] = []
    with contextlib.suppress(OSError):
        for path in sorted((legacy / VOICES_NAME).glob(f"*{VOICE_SUFFIX}")):
            if path.is_file() and not path.is_symlink():
                found.append((path, f"{VOICES_NAME}/{path.name}"))
    lexicon = legacy / LEXICON_NAME
    if lexicon.is_file() and not lexicon.is_symlink():
        found.append((lexicon, LEXICON_NAME))
    return found


def _same(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError):
        if os.path.samefile(a, b):
            return True
        return filecmp.cmp(a, b, shallow=False)
    return False


def _free_name(folder: Path, name: str) -> Path:
    stem, suffix = os.path.splitext(name)
    for i in range(2, 10_000):
        candidate = folder / f"{stem}-{i}{suffix}"
        if not candidate.exists():
            return candidate
    return folder / f"{stem}-old{suffix}"


def _advice(old: Path, taken: Path) -> str:
    if old.suffix == VOICE_SUFFIX:
        return (f"{old} was not moved: {taken} already exists and is a different file. Both are kept. "
                f"To bring the old voice into the library the app and `cosycore voice list` use, move it to "
                f"{_free_name(taken.parent, old.name)} (a voice whose name is taken is found by its file: "
                f"`--voice {old}` works as it is).")
    return (f"{old} was not moved: {taken} already exists and is a different file. Both are kept. The "
            f"dictionary in use is {taken}; to keep the old entries, copy its rows (same CSV columns) into it "
            f"and then delete {old}.")


def _place_by_copy(old: Path, new: Path) -> bool:
    """Copy ``old`` to ``new`` without replacing anything; True when placed, False when ``new`` exists."""
    tmp = new.with_name(f".{new.name}.{os.getpid()}.moving")
    try:
        shutil.copy2(old, tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        if not filecmp.cmp(old, tmp, shallow=False):
            raise OSError(errno.EIO, f"the copy of {old} in {new.parent} differs from it")
        try:
            os.link(tmp, new)  # never replaces new
        except FileExistsError:
            return False
        except OSError:
            # No hard links on this file system: rename refuses an existing target on Windows; on
            # POSIX the check just before it (under the move's lock) is what guards the user's file.
            if os.path.lexists(new):
                return False
            os.rename(tmp, new)
        fsync_dir(new.parent)
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _move_one(old: Path, new: Path) -> str:
    """Move one file without replacing anything: "moved", "taken" (a different file there) or "gone"."""
    new.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(old, new)  # same file system: the new name appears atomically, and never over a file
        fsync_dir(new.parent)
    except FileNotFoundError:
        return "gone"  # another process moved it a moment ago
    except FileExistsError:
        if not _same(old, new):
            return "taken"
        # the same file (a link left by an interrupted move) or an identical copy: nothing to bring over
    except OSError:  # no link across disks or on this file system: copy, check, then remove the old
        if not _place_by_copy(old, new) and not _same(old, new):
            return "taken"
    with contextlib.suppress(FileNotFoundError):  # another process may have finished this one
        old.unlink()
    fsync_dir(old.parent)
    return "moved"


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):  # rmdir removes only an empty folder; anything else stays
        folder.rmdir()
        logger.info("removed the empty old folder %s", folder)


def _move_locked(legacy: Path, data: Path) -> MoveReport:
    moved: list[tuple[Path, Path]] = []
    left: list[LeftBehind] = []
    problems: list[str] = []
    for old, relative in _candidates(legacy):
        new = data / relative
        try:
            outcome = _move_one(old, new)
        except OSError as e:
            problems.append(f"{old} could not be moved to {new.parent}: {storage_reason(e)}. It is kept "
                            f"where it is; the move is tried again on the next start.")
            continue
        if outcome == "moved":
            moved.append((old, new))
        elif outcome == "taken":
            left.append(LeftBehind(old, new, _advice(old, new)))
    _remove_if_empty(legacy / VOICES_NAME)
    _remove_if_empty(legacy)
    return MoveReport(tuple(moved), tuple(left), tuple(problems))


def move_legacy_data(legacy: Path, data: Path) -> MoveReport:
    """Move the old folder's voice files and dictionary into ``data`` (see the module docstring).

    Safe to run again and from two processes at once; never raises for a file it cannot move (the
    report says why, and the file stays).
    """
    legacy, data = Path(legacy), Path(data)
    with contextlib.suppress(OSError):
        if legacy.resolve() == data.resolve():
            return MoveReport()
    if not _candidates(legacy):
        return MoveReport()
    from filelock import FileLock, Timeout

    try:
        data.mkdir(parents=True, exist_ok=True)
        with FileLock(str(data / LOCK_NAME), timeout=LOCK_TIMEOUT):
            report = _move_locked(legacy, data)
    except Timeout:
        return MoveReport(problems=(f"another Cosy Studio process held {data / LOCK_NAME} for "
                                    f"{LOCK_TIMEOUT:.0f} s; the files in {legacy} are moved on the next start.",))
    except OSError as e:
        return MoveReport(problems=(f"the files in {legacy} could not be moved to {data}: {storage_reason(e)}. "
                                    "They are kept where they are; the move is tried again on the next start.",))
    for old, new in report.moved:
        logger.info("moved %s to %s", old, new)
    if report.moved:
        logger.warning("moved %d file(s) from the old folder %s to %s, the folder the app and the command line "
                       "share", len(report.moved), legacy, data)
    for item in report.left_behind:
        logger.warning("%s", item.advice)
    for problem in report.problems:
        logger.warning("%s", problem)
    return report


def ensure_legacy_moved() -> MoveReport | None:
    """Run :func:`move_legacy_data` for the platform folders, once per process.

    Returns the report the first time, None afterwards. Does nothing under ``$COSY_STUDIO_HOME`` (a
    portable home is its own world; the old folder is left for the installed app to pick up).
    """
    global _done
    with _once_lock:
        if _done:
            return None
        _done = True
        if studio_home() is not None:
            return MoveReport()
        return move_legacy_data(legacy_data_dir(), platform_data_dir())
