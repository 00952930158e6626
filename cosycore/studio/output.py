"""Audio and text files written the house way: into a temporary file beside the target, renamed into
place only when complete, so a stopped or failed write never leaves a half file under the real name
and never replaces an existing file with a broken one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic_write import check_write_target
from ..errors import InputError, StorageError
from ..voices import voice_file_stem, write_atomic

AUDIO_FORMATS = {".wav": "WAV", ".flac": "FLAC"}


def audio_format(path: Path | str) -> str:
    fmt = AUDIO_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise InputError(f"'{path}' must end in .wav or .flac.")
    return fmt


class AtomicAudioWriter:
    """A mono 16-bit WAV/FLAC file written chunk by chunk and renamed into place by :meth:`commit`."""

    def __init__(self, path: Path | str, sample_rate: int, *, subtype: str = "PCM_16") -> None:
        import soundfile as sf

        self.path = Path(path)
        self.format = audio_format(self.path)
        self.sample_rate = sample_rate
        self.samples = 0
        check_write_target(self.path)  # a device, FIFO, socket or folder is refused, never replaced
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".part", dir=self.path.parent)
            os.close(fd)
        except OSError as e:
            raise StorageError(f"could not write to {self.path.parent}: {e.strerror or e}.") from e
        self._tmp = Path(tmp)
        try:
            self._file: Any = sf.SoundFile(str(self._tmp), "w", samplerate=sample_rate, channels=1,
                                           format=self.format, subtype=subtype)
        except Exception:
            self._tmp.unlink(missing_ok=True)
            raise

    def write(self, samples: np.ndarray) -> None:
        try:
            self._file.write(np.asarray(samples, dtype=np.float32))
        except Exception as e:
            self.abort()
            raise StorageError(f"could not write {self.path}: {e}. Nothing was replaced.") from e
        self.samples += int(samples.shape[0])

    def write_silence(self, n: int) -> None:
        block = 24000
        while n > 0:
            step = min(n, block)
            self.write(np.zeros(step, dtype=np.float32))
            n -= step

    def commit(self) -> Path:
        """Close the file and rename it to its real name."""
        try:
            self._file.close()
            os.chmod(self._tmp, 0o666 & ~_UMASK)
            os.replace(self._tmp, self.path)
        except OSError as e:
            self._tmp.unlink(missing_ok=True)
            raise StorageError(f"could not save {self.path}: {e.strerror or e}. Nothing was replaced.") from e
        return self.path

    def abort(self) -> None:
        """Close and delete the temporary file; the real name is untouched."""
        with contextlib.suppress(Exception):
            self._file.close()
        self._tmp.unlink(missing_ok=True)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import, before any threads


def stem_file_name(speaker: str, suffix: str, taken: set[str]) -> str:
    """A speaker's stem file name (``Anna`` → ``anna.wav``), unique among ``taken`` (updated)."""
    stem = voice_file_stem(speaker)
    name, n = stem, 2
    while name.casefold() in taken:
        name, n = f"{stem}-{n}", n + 1
    taken.add(name.casefold())
    return name + suffix


def write_text_atomic(path: Path | str, text: str) -> Path:
    path = Path(path)
    write_atomic(path, text.encode("utf-8"))
    return path
