"""Audio output of the command line: atomic files and checked writes to standard output.

:class:`AtomicAudioFile` writes a WAV/FLAC take to a hidden temporary file beside the target and
renames it over the target only when the take is complete, so

* an error, Ctrl-C, SIGTERM or even SIGKILL never leaves a half-written take under the final name,
  and never destroys the file that was there (the temporary file is removed, or stays hidden);
* a symlink at the target is replaced as a link, never followed: the file it points to is not
  touched;
* an unwritable target (a missing folder, a directory, a read-only file or folder or disk) is
  found by :func:`check_output_target` before the model loads, as a :class:`StorageError`;
* a disk that fills up while writing is a :class:`StorageError` that says so, not a libsndfile
  traceback.

:func:`write_all` writes to a byte stream and checks that every byte was taken, so a short write
to standard output on a full disk is an error, not a success.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import IO, Any

import numpy as np

from .atomic_write import file_mode, fsync_dir, not_a_regular_file, storage_reason
from .errors import InputError, StorageError

logger = logging.getLogger(__name__)

FORMATS = {".wav": "WAV", ".flac": "FLAC"}
FULL_DISK_BYTES = 1 << 20  # less free space than this after a failed write: the disk is full


def _nearly_full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < FULL_DISK_BYTES
    except OSError:
        return False


def _unwritable_for(path: Path, why: str, option: str) -> StorageError:
    return StorageError(f"cannot write {path}: {why}. Nothing was synthesised; choose another {option}.")


def check_output_target(path: Path, *, option: str = "--out", suffixes: str = ".wav or .flac",
                        missing_folder_ok: bool = False) -> None:
    """Raise :class:`StorageError` unless a file can be created at ``path`` (checked, not assumed),
    before any work starts; ``option`` names the argument in the advice (``--out``, ``--srt``).

    A symlink is judged as the link itself (it will be replaced, not followed); a device, a FIFO, a
    socket or a folder is refused (:func:`~cosycore.atomic_write.not_a_regular_file`). A temporary
    file is created and removed in the folder, which is the only reliable test of a read-only disk.
    """

    def _unwritable(path: Path, why: str) -> StorageError:
        return _unwritable_for(path, why, option)

    folder = path.parent
    if not folder.exists():
        if missing_folder_ok and not folder.is_symlink():  # made by the write (synth --script makes folders)
            return
        raise _unwritable(path, f"the folder {folder} does not exist (create it first)")
    if not folder.is_dir():
        raise _unwritable(path, f"{folder} is not a folder")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _unwritable(path, storage_reason(e)) from e
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _unwritable(path, f"it is a folder; give a file name ending in {suffixes}")
        if stat.S_ISREG(st.st_mode) and not os.access(path, os.W_OK):
            raise _unwritable(path, "the file is read-only (it was protected on purpose?)")
        why = not_a_regular_file(path)
        if why is not None:
            raise _unwritable(path, why)
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".check", dir=folder)
    except OSError as e:
        raise _unwritable(path, storage_reason(e)) from e
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


class AtomicAudioFile:
    """A 16-bit WAV/FLAC take written beside ``target`` and moved into place by :meth:`commit`."""

    def __init__(self, target: Path, fmt: str) -> None:
        self.target = target
        self.format = fmt
        self.sample_rate = 0
        self._tmp: Path | None = None
        self._file: Any = None
        self.samples = 0

    def _open(self) -> None:
        import soundfile as sf

        fd, tmp = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".part", dir=self.target.parent)
        self._tmp = Path(tmp)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, file_mode(self.target))  # mkstemp makes it private; a take is an ordinary file
        finally:
            os.close(fd)
        self._file = sf.SoundFile(tmp, "w", samplerate=self.sample_rate, channels=1, format=self.format,
                                  subtype="PCM_16")

    def write(self, samples: np.ndarray) -> None:
        """Append samples; a full disk or another write failure is a :class:`StorageError`."""
        try:
            if self._file is None:
                self._open()
            self._file.write(samples)
        except (OSError, RuntimeError) as e:  # soundfile's errors are RuntimeErrors
            raise self._failed(e) from e
        self.samples += int(samples.shape[0])

    def _failed(self, e: BaseException) -> StorageError:
        if isinstance(e, OSError):
            why = storage_reason(e)
        elif "space" in str(e).lower() or "full" in str(e).lower() or _nearly_full(self.target.parent):
            why = "the disk is full"  # libsndfile reports ENOSPC only as "System error"
        else:
            why = str(e).rstrip(".")
        self.discard()
        return StorageError(f"could not write {self.target}: {why}. "
                            + ("The file that was there is unchanged." if self.target.exists() else
                               "No file was left behind."))

    def _close(self) -> None:
        if self._file is not None:
            f, self._file = self._file, None
            f.close()  # writes the header sizes; may itself hit a full disk

    def commit(self) -> None:
        """Finish the file and rename it over the target (an empty take still makes a valid file)."""
        try:
            if self._file is None:
                self._open()
            self._close()
            assert self._tmp is not None
            fd = os.open(self._tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(self._tmp, self.target)  # replaces a symlink itself, never its target
            self._tmp = None
            fsync_dir(self.target.parent)
        except (OSError, RuntimeError) as e:
            raise self._failed(e) from e

    def keep_partial(self) -> Path | None:
        """After an interruption: keep what was made under a new ``<stem>.partial<suffix>`` name.

        Never replaces an existing file (a hard link, or a rename after checking, with a counter);
        returns the path, or None when nothing was written.
        """
        if self._tmp is None or not self.samples:
            self.discard()
            return None
        with contextlib.suppress(OSError, RuntimeError):
            self._close()
        for i in range(1, 1000):
            name = f"{self.target.stem}.partial{'' if i == 1 else f'-{i}'}{self.target.suffix}"
            candidate = self.target.with_name(name)
            try:
                os.link(self._tmp, candidate)  # fails if the name is taken: nothing is replaced
            except FileExistsError:
                continue
            except OSError:  # no hard links on this file system
                if candidate.exists():
                    continue
                os.rename(self._tmp, candidate)
                self._tmp = None
                return candidate
            self.discard()
            return candidate
        self.discard()
        return None

    def discard(self) -> None:
        """Remove the temporary file; the target is left as it was."""
        with contextlib.suppress(OSError, RuntimeError):
            self._close()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.unlink()
            self._tmp = None


def write_all(stream: IO[bytes], data: bytes) -> None:
    """Write ``data`` and flush; a short write, a full disk or a closed pipe is a :class:`StorageError`."""
    view = memoryview(data)
    try:
        while view:
            n = stream.write(view)
            if n is None:  # a non-blocking stream that took nothing
                n = 0
            if n <= 0:
                raise OSError(errno.EIO, f"standard output took {len(data) - len(view)} of {len(data)} bytes")
            view = view[n:]
        stream.flush()
    except BrokenPipeError as e:
        raise StorageError("standard output was closed before all audio was written (the reading program "
                           "stopped).") from e
    except OSError as e:
        raise StorageError(f"could not write the audio to standard output: {storage_reason(e)}. "
                           "The audio is incomplete.") from e


def _same_file(a: Path, b: Path) -> bool:
    if os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_side_outputs(out: Path | str | None, *, missing_folder_ok: bool = False,
                       **targets: Path | str | None) -> None:
    """Check the side files of a take (``srt=…``, ``vtt=…``) before any work starts.

    Each must be writable (:func:`check_output_target`), none may be the audio file ``--out`` (the
    subtitles would overwrite the audio, or the audio the subtitles) or another side file. Raises
    :class:`~cosycore.errors.InputError` for a clash, :class:`StorageError` for an unwritable target.
    """
    seen: list[tuple[str, Path]] = []
    if out is not None and str(out) != "-":
        seen.append(("--out", Path(out)))
    for name, value in targets.items():
        if value is None or value is True:
            continue
        option, path = f"--{name.replace('_', '-')}", Path(value)
        for other, taken in seen:
            if _same_file(path, taken):
                raise InputError(f"{option} and {other} name the same file ({path}); give the {option[2:].upper()} "
                                 "file a name of its own.")
        check_output_target(path.absolute(), option=option, suffixes=f".{name}", missing_folder_ok=missing_folder_ok)
        seen.append((option, path))
