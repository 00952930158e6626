"""Writing files so that a failure never leaves half a file: :func:`write_atomic` (a temporary
file beside the target, then ``os.replace``), the permissions an ordinary write would give, and
readable reasons for the operating system's storage errors.

Every module that saves something the user keeps (voices, takes, downloads, lexicons) writes
through here.
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


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    The file gets the permissions an ordinary write would give it (``mkstemp`` makes it private).
    On failure the temporary file is removed, any existing ``path`` is left as it was, and a
    :class:`StorageError` saying why is raised.
    """
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
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
