"""The app's takes on disk, written as they are made, so that quitting, a crash or a ``kill -9`` loses at
most the unfinished tail of the take being made.

Each take is a take folder of the one take format (:mod:`cosycore.studio.take_folder`), under the app's
data folder: ``<data>/takes/<uid>/``. Removed takes go to ``<data>/takes/.trash/<uid>/`` and are kept
until the user empties the trash (Takes › Trash…); Ctrl+Z or the trash's Restore puts one back.

Whatever the folder holds, opening it never fails and never deletes what the store did not make: a
take folder that cannot be read (a damaged manifest, a wrong type, a name that is not the format's) is
listed as a problem and left alone; an empty cut-short take loses only the format's own files, and a
folder holding anything else is kept; a link in the folder is never followed.

Only the GUI thread uses a store. Errors are :class:`~cosycore.errors.StorageError` with the reason.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from cosycore.errors import InputError, StorageError
from cosycore.studio.take import Take
from cosycore.studio.take_file import first_format, load_take, save_take
from cosycore.studio.take_folder import (
    META_NAME,
    UNREADABLE,
    VOICE_FILE_RE,
    VOICES_DIR,
    TakeFolders,
    is_own_file,
    read_take,
    remove_own_files,
    take_meta,
)

from .take import TakeList

logger = logging.getLogger(__name__)

TRASH_NAME = ".trash"


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


class TakeStore(TakeFolders):
    """The folder of saved takes. Owned by the studio session (:class:`app.session.StudioSession`)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.emptied: set[str] = set()  # uids of takes deleted by emptying the trash (no undo brings them back)

    @property
    def trash(self) -> Path:
        return self.root / TRASH_NAME

    def remove(self, take: Take) -> None:
        """Move a take's folder to the trash (it can be put back with :meth:`restore` until the trash is emptied)."""
        self._close(take.uid)
        folder = self.folder(take)
        if not folder.is_dir():
            return
        try:
            self.trash.mkdir(parents=True, exist_ok=True)
            os.replace(folder, self.trash / take.uid)
        except OSError as e:
            raise StorageError(f"could not remove take {take.number} from {self.root}: {_reason(e)}.") from e

    def restore(self, take: Take) -> None:
        """Undo :meth:`remove`."""
        src = self.trash / take.uid
        if not src.is_dir():
            return
        try:
            os.replace(src, self.folder(take))
        except OSError as e:
            raise StorageError(f"could not put take {take.number} back: {_reason(e)}.") from e
        self.save_meta(take)

    def in_trash(self, take: Take) -> bool:
        return (self.trash / take.uid).is_dir()

    def trashed(self) -> tuple[list[Take], list[str]]:
        """The takes in the trash, the most recently removed first, and a message for each folder there
        that could not be read (left as it is)."""
        found: list[tuple[float, Take]] = []
        problems: list[str] = []
        for folder in self._folders(self.trash):
            try:
                take = read_take(folder)
            except UNREADABLE as e:
                problems.append(f"{folder.name}: {str(e) or type(e).__name__}")
                continue
            if take is not None:
                with contextlib.suppress(OSError):
                    found.append((folder.stat().st_ctime, take))  # a rename changes the folder's ctime
        found.sort(key=lambda pair: pair[0], reverse=True)
        return [take for _, take in found], problems

    def empty_trash(self) -> list[str]:
        """Delete the takes in the trash (only the files this store made; the user asked for it).

        Returns the folders that were kept because they hold something else."""
        kept: list[str] = []
        if not self.trash.is_dir():
            return kept
        for folder in self.trash.iterdir():
            if not folder.is_symlink() and folder.is_dir():
                self.emptied.add(folder.name)
                if not remove_own_files(folder):
                    kept.append(folder.name)
        return kept

    def attach(self, takes: TakeList, failed: Callable[[Take, StorageError], None]) -> None:
        """Save ``takes`` from now on: new takes, their chunks, changes, removals and removals undone.

        A take that could not be saved is reported once through ``failed`` and stays in memory only.
        """
        broken: set[str] = set()

        def guard(take: Take, action: Callable[[], None]) -> None:
            if take.uid in broken:
                return
            try:
                action()
            except StorageError as e:
                broken.add(take.uid)
                self._close(take.uid)
                failed(take, e)

        def added(take: Take) -> None:
            if (self.trash / take.uid).is_dir():
                guard(take, lambda: self.restore(take))
            elif not self.folder(take).is_dir():
                guard(take, lambda: self.create(take))

        takes.take_added.connect(added)
        takes.chunk_added.connect(lambda take, samples: guard(take, lambda: self.append(take, samples)))
        takes.take_changed.connect(lambda take: guard(take, lambda: self.save_meta(take)))
        takes.take_removed.connect(lambda take: guard(take, lambda: self.remove(take)))

    def import_take(self, source: Path, number: int) -> Take:
        """A copy of the take folder ``source`` (one the command line wrote, ``NAME.wav.take``, or another
        store's) as a new take of this store numbered ``number``; ``source`` is only read (a folder of the
        command line's first format is written anew in the one format first). Raises StorageError saying
        why when it is not a take folder or cannot be copied."""
        if first_format(source):
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                with tempfile.TemporaryDirectory(prefix=".import-", dir=self.root) as work:
                    converted = Path(work) / source.name
                    save_take(load_take(source), converted)
                    return self.import_take(converted, number)
            except (InputError, OSError) as e:
                raise StorageError(f"{source.name} cannot be opened: {e}") from e
        try:
            take = read_take(source) if not source.is_symlink() and source.is_dir() else None
        except UNREADABLE as e:
            raise StorageError(f"{source.name} is not a take folder Cosy Studio can open: "
                               f"{str(e) or type(e).__name__}.") from e
        if take is None:
            raise StorageError(f"{source.name} is not a take folder Cosy Studio can open (a NAME.wav.take folder "
                               "'cosycore synth --script' saved, or a take of the app's).")
        take.uid = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
        take.number = number
        tmp = self.root / f".import-{take.uid}.part"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp.mkdir()  # refuses a folder that is already there: only one made here is removed below
        except OSError as e:
            raise StorageError(f"could not copy {source.name} into {self.root}: {_reason(e)}.") from e
        try:
            (tmp / VOICES_DIR).mkdir()
            for path in source.iterdir():
                if path.name != META_NAME and is_own_file(path.name) and path.is_file() and not path.is_symlink():
                    shutil.copyfile(path, tmp / path.name)
            voices = source / VOICES_DIR
            for path in sorted(voices.iterdir()) if voices.is_dir() and not voices.is_symlink() else []:
                if VOICE_FILE_RE.match(f"{VOICES_DIR}/{path.name}") and path.is_file() and not path.is_symlink():
                    shutil.copyfile(path, tmp / VOICES_DIR / path.name)
            (tmp / META_NAME).write_text(json.dumps(take_meta(take), ensure_ascii=False, indent=1), encoding="utf-8")
            os.rename(tmp, self.root / take.uid)
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)  # our own temporary folder
            raise StorageError(f"could not copy {source.name} into {self.root}: {_reason(e)}.") from e
        copied = read_take(self.root / take.uid)
        assert copied is not None
        return copied

    # -- reading ---------------------------------------------------------------------------
    def size_bytes(self) -> int:
        """What the saved takes take up on disk (the trash not counted)."""
        total = 0
        for folder in self._folders():
            with contextlib.suppress(OSError):
                for path in folder.iterdir():
                    if is_own_file(path.name):
                        total += path.stat().st_size
        return total

    def _folders(self, root: Path | None = None) -> Iterator[Path]:
        root = self.root if root is None else root
        if not root.is_dir() or root.is_symlink():
            return
        for folder in sorted(root.iterdir()):
            if (not folder.is_symlink() and folder.is_dir() and not folder.name.startswith(".")  # trash, imports
                    and os.path.lexists(folder / META_NAME)):
                yield folder

    def load(self) -> tuple[list[Take], list[str]]:
        """Every saved take, oldest first, and a message for each folder that could not be read.

        A take that was still being made is recovered as a stopped take (``recovered`` set) and its
        sidecar rewritten; one that never got any audio is left out and the store's own files of it
        removed (the folder too when nothing else is in it). A folder that cannot be read is listed
        and left as it is.
        """
        takes: list[Take] = []
        problems: list[str] = []
        for folder in self._folders():
            try:
                take = read_take(folder)
            except UNREADABLE as e:
                why = "it nests too deep" if isinstance(e, RecursionError) else str(e) or type(e).__name__
                logger.warning("cannot read the saved take in %s: %s", folder, why)
                problems.append(f"{folder.name}: {why} (left as it is)")
                continue
            if take is None:
                if not remove_own_files(folder):  # an empty take this store made; anything else stays
                    problems.append(f"{folder.name}: an empty take whose folder holds other files; "
                                    "only the take's own files were removed")
                continue
            if take.recovered:
                try:
                    self.save_meta(take)
                except StorageError as e:
                    problems.append(str(e))
            takes.append(take)
        takes.sort(key=lambda t: (t.number, t.uid))
        return takes, problems
