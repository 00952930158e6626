"""Writing files so that a failure never leaves half a file: :func:`write_atomic` (a temporary
file beside the target, then ``os.replace``), the permissions an ordinary write would give, and
readable reasons for the operating system's storage errors.

Every module that saves something (audio, subtitles, stems, takes, voices, settings, downloads,
lexicons) writes through here, and every target passes :func:`check_write_target` first: a target
that exists must be a regular file (a symlink is replaced as a link, never followed), so a device
(``/dev/full``, ``/dev/null``), a FIFO, a socket or a folder is refused, never replaced (as root, a
rename over ``/dev/null`` would break the system); given the folder the user chose (``within``), the
target's folder must resolve inside it, so a link never leads a write out of it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from .errors import StorageError


def storage_reason(e: OSError) -> str:
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.EROFS:
        return "the folder is on a read-only disk"
    return e.strerror or str(e)


def fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _read_umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; done once, at import
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def file_mode(path: Path) -> int:
    """The permissions a new file at ``path`` gets: those of the file it replaces, else 0666 less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_UMASK


def not_a_regular_file(path: Path) -> str | None:
    """Why ``path`` must not be written over (a device, a pipe, a socket, a folder), or None when it is
    missing, a regular file or a symlink (which a rename replaces as a link)."""
    try:
        st = os.lstat(path)
    except OSError:  # missing, or a folder that cannot be reached: the write itself says why
        return None
    if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
        return None
    if stat.S_ISDIR(st.st_mode):
        return "it is a folder"
    kind = ("a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
            "a pipe (FIFO)" if stat.S_ISFIFO(st.st_mode) else
            "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
    return f"it is {kind}, not a regular file"


def outside_folder(path: Path, within: Path) -> bool:
    """Whether ``path``'s folder, links resolved, lies outside the folder ``within`` (links resolved)."""
    try:
        Path(path).parent.resolve().relative_to(Path(within).resolve())
    except ValueError:
        return True
    return False


def check_write_target(path: Path, *, within: Path | None = None) -> None:
    """Raise :class:`StorageError` unless ``path`` may be written: missing or a regular file (or a
    symlink, replaced as a link), and, given ``within``, in a folder that resolves inside it."""
    path = Path(path)
    why = not_a_regular_file(path)
    if why is None and within is not None and outside_folder(path, within):
        why = f"its folder leads out of {within} through a link"
    if why is not None:
        raise StorageError(f"cannot write {path}: {why}. Nothing was changed; choose a file name in an "
                           "ordinary folder.")


def write_atomic(path: Path, data: bytes, *, within: Path | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    The target is checked first (:func:`check_write_target`; ``within``: the folder the write must
    stay in). The file gets the permissions an ordinary write would give it (``mkstemp`` makes it
    private). On failure the temporary file is removed, any existing ``path`` is left as it was, and
    a :class:`StorageError` saying why is raised.
    """
    path = Path(path)
    tmp: str | None = None
    check_write_target(path, within=within)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        check_write_target(path, within=within)  # the folders just made, or found, stay inside
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        if hasattr(os, "fchmod"):  # POSIX
            os.fchmod(fd, file_mode(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
        fsync_dir(path.parent)
    except OSError as e:
        raise StorageError(
            f"could not save {path}: {storage_reason(e)}. Nothing was changed"
            + (" (the previous file is intact)." if path.exists() else ".")
        ) from e
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
