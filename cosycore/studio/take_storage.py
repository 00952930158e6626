"""The files of a take folder of the command line (see :mod:`cosycore.studio.take_file`): their names
(of the one take format and of the first format, still read), new files written once, hard links to
unchanged ones, a new folder renamed into place, and the removal of files that no manifest names any
more. Only names these formats use are ever removed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from ..checksums import file_sha256
from ..errors import StorageError
from ..safety import UnsafeFileError, loads_strict_json, read_regular_file
from .take_folder import FORMAT_NAME as ONE_FORMAT_NAME
from .take_folder import VOICE_FILE_RE, is_own_file
from .take_manifest import FORMAT_NAME, MANIFEST, MAX_MANIFEST_BYTES, PREVIOUS_MANIFEST, SCRIPT_FILE, TakeFileError

TAKE_SUFFIX = ".take"
AUDIO_SUFFIXES = (".wav", ".flac")
SEGMENT_RE = re.compile(r"^segments/[0-9]{5,6}-r[0-9]{1,9}\.npy$")
VOICE_RE = re.compile(r"^voices/[0-9]{2,3}\.cosyvoice$")
BLOCK = 1 << 20


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import, before any threads


def take_folder(audio: Path | str) -> Path:
    """The take folder of an audio file: ``play.wav`` → ``play.wav.take`` beside it."""
    audio = Path(audio)
    return audio.parent / (audio.name + TAKE_SUFFIX)


def take_audio_path(folder: Path | str) -> Path:
    """The audio file a take folder describes (its name without ``.take``)."""
    folder = Path(folder)
    name = folder.name[: -len(TAKE_SUFFIX)] if folder.name.endswith(TAKE_SUFFIX) else ""
    if Path(name).suffix.lower() not in AUDIO_SUFFIXES:
        raise TakeFileError(f"'{folder.name}' is not named like a take folder (NAME.wav.take or NAME.flac.take); "
                            "keep the name 'synth --script' gave it.")
    return folder.parent / name


def previous_path(audio: Path) -> Path:
    """Where the previous version of a take's audio is kept: ``play.wav`` → ``play.prev.wav``."""
    return audio.with_name(f"{audio.stem}.prev{audio.suffix}")


def inherited_previous(folder: Path) -> str | None:
    """The sha256 of the previous version of a take's audio (``NAME.prev.wav``), when the take folder
    at ``folder`` (about to be replaced by a new render) recorded it and the file is still as it was:
    the new take may replace it in turn, as its own."""
    try:
        data = loads_strict_json(read_regular_file(folder / MANIFEST, MAX_MANIFEST_BYTES))
    except (OSError, UnsafeFileError, ValueError, UnicodeDecodeError):
        return None
    outputs = data.get("outputs") if isinstance(data, dict) else None  # the first format
    script = data.get("script") if isinstance(data, dict) else None
    made = script.get("made_by") if isinstance(script, dict) else None
    if isinstance(made, dict):  # the one format
        outputs = made.get("outputs")
    sha = outputs.get("previous_sha256") if isinstance(outputs, dict) else None
    if not isinstance(sha, str):
        return None
    previous = previous_path(take_audio_path(folder))
    if previous.is_file() and not previous.is_symlink() and file_sha256(previous) == sha:
        return sha
    return None



def write_new(path: Path, data: bytes) -> str:
    """A file in a folder this module owns, under a name no manifest names yet; returns its sha256."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return hashlib.sha256(data).hexdigest()


def place_copy(src: Path, dst: Path) -> None:
    """``dst`` with the bytes of ``src`` (a stored segment or voice, never changed once written): a hard
    link where the disk allows one, else a copy."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def storage_error(folder: Path, e: OSError) -> StorageError:
    return StorageError(f"could not save the take folder {folder}: {e.strerror or e}. Nothing was replaced.")


def own_files(folder: Path) -> list[Path]:
    """The files in a take folder that this module names; raises if anything else is in it."""
    found, foreign = [], []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel in ("voices", "segments") and path.is_dir() and not path.is_symlink():
            continue
        if path.is_file() and not path.is_symlink() and (
                rel in (MANIFEST, PREVIOUS_MANIFEST, SCRIPT_FILE) or SEGMENT_RE.match(rel) or VOICE_RE.match(rel)
                or ("/" not in rel and is_own_file(rel)) or VOICE_FILE_RE.match(rel)):
            found.append(path)
        else:
            foreign.append(rel)
    if foreign:
        raise TakeFileError(f"'{folder}' holds files Cosy Studio did not put there ({', '.join(foreign[:5])}); "
                            "move them out first, or choose another output name.")
    return found


def remove_take_folder(folder: Path) -> None:
    for path in own_files(folder):
        path.unlink()
    for sub in ("segments", "voices"):
        with contextlib.suppress(FileNotFoundError):
            (folder / sub).rmdir()
    folder.rmdir()


def is_take_folder(folder: Path | str) -> bool:
    """Whether ``folder`` is a take folder (by its manifest's format name; nothing else is checked)."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return False
    try:
        data = loads_strict_json(read_regular_file(folder / MANIFEST, MAX_MANIFEST_BYTES))
    except (OSError, UnsafeFileError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and data.get("format") in (FORMAT_NAME, ONE_FORMAT_NAME)


def check_new_take_folder(final: Path | str, *, replace_existing: bool) -> None:
    """Raise :class:`TakeFileError` unless a take folder can be written at ``final``: nothing is there, or
    (with ``replace_existing``) a take folder that holds only files a take folder has."""
    final = Path(final)
    take_audio_path(final)
    if not os.path.lexists(final):
        return
    if not is_take_folder(final):
        raise TakeFileError(f"'{final}' exists and is not a take folder; move it away or choose another "
                            "output name.")
    if not replace_existing:
        raise TakeFileError(f"the take folder '{final}' exists already; choose another output name or "
                            "pass --overwrite.")
    own_files(final)


class NewFolder:
    """A take folder built under a temporary name beside its final place and renamed into it; an
    earlier take folder there is replaced (only when it holds nothing but a take's files)."""

    def __init__(self, final: Path, *, replace_existing: bool) -> None:
        self.final = final
        check_new_take_folder(final, replace_existing=replace_existing)
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".part", dir=final.parent))
            os.chmod(self.tmp, 0o777 & ~_UMASK)  # mkdtemp makes it private; a take folder is an ordinary folder
        except OSError as e:
            raise storage_error(final, e) from e

    def commit(self) -> None:
        try:
            if os.path.lexists(self.final):
                own_files(self.final)  # checked again: nothing else may have been put there meanwhile
                old = self.final.parent / f"{self.tmp.name[:-len('.part')]}.old"
                os.rename(self.final, old)
                try:
                    os.rename(self.tmp, self.final)
                except OSError:
                    os.rename(old, self.final)
                    raise
                with contextlib.suppress(OSError, TakeFileError):  # the new take is in place; a leftover
                    remove_take_folder(old)  # (files someone put there meanwhile) is kept, under a hidden name
            else:
                os.rename(self.tmp, self.final)
        except OSError as e:
            self.abort()
            raise storage_error(self.final, e) from e

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)  # our own temporary folder
