"""A project on disk: its texts per mode (the script among them), the cast, the instruction, the voice,
the voices it uses and its takes. Qt-free, so it can be read, written and tested without a window.

Layout of a project called ``Book``::

    Book/Book.cosyproj   this file: versioned JSON, written atomically (the previous file stays whole
                         when a write fails)
    Book/takes/          its takes, a take store's folder (:mod:`app.takes.store`), written as they are made

The "Untitled" project is the studio's own session in the app's data folder: ``session.json`` (the
current mode's text, the instruction and the cast) and ``mode_texts.json`` (the mode and the other
modes' texts), as the app wrote them before projects existed. :func:`read_session_state` turns those
two files into a :class:`ProjectState`, so an existing session opens as Untitled with nothing lost.

A project that cannot be read raises a :class:`ProjectError` whose message says what to do; the file is
never changed by reading it.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosycore import checksums
from cosycore.errors import CosyError
from cosycore.safety import UnsafeFileError, loads_strict_json, read_regular_file
from cosycore.voices import write_atomic

__all__ = [
    "FORMAT", "PROJECT_SUFFIX", "PROJECT_VERSION", "Project", "ProjectDamagedError", "ProjectError",
    "ProjectNotFoundError", "ProjectState", "ProjectTooNewError", "SaveCancelledError", "TakeRef", "VoiceRef",
    "copy_folders", "file_sha256", "load_project", "project_paths", "read_session_state", "save_project",
]

FORMAT = "cosy-studio-project"
PROJECT_VERSION = 1
PROJECT_SUFFIX = ".cosyproj"
TAKES_FOLDER = "takes"
SESSION_NAME = "session.json"  # the Untitled project's current text, instruction and cast
MODE_TEXTS_NAME = "mode_texts.json"  # the Untitled project's mode and other modes' texts
MAX_PROJECT_BYTES = 64 << 20  # a project file larger than this is not read (a book's texts are a few MB)
COPY_BLOCK = 1 << 20  # Save as copies the takes' files in blocks of this many bytes (memory stays bounded)
MODES = ("zero_shot", "cross_lingual", "instruct", "script", "convert")


class ProjectError(CosyError):
    """A project could not be opened or saved; the message says why and what to do."""


class ProjectNotFoundError(ProjectError):
    """The project file is not there (moved, renamed, or on a drive that is not connected)."""


class ProjectDamagedError(ProjectError):
    """The project file is not a project this app can read (not JSON, cut short, wrong types)."""


class ProjectTooNewError(ProjectError):
    """The project was saved by a newer Cosy Studio, in a format this one does not know."""


class SaveCancelledError(ProjectError):
    """Save as was cancelled while the takes were being copied (what it copied is removed by the caller)."""


@dataclass(frozen=True)
class VoiceRef:
    """A voice of the library that the project uses: its name, its file's name and the file's SHA-256."""

    name: str
    file: str = ""
    sha256: str = ""

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "file": self.file, "sha256": self.sha256}


@dataclass(frozen=True)
class TakeRef:
    """A take the project held when it was saved (its folder under ``takes/`` is the take itself)."""

    uid: str
    number: int
    name: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"uid": self.uid, "number": self.number, "name": self.name}


@dataclass
class ProjectState:
    """What the editor shows: the mode, each mode's text, the instruction, the cast and the chosen voice."""

    mode: str = "zero_shot"
    texts: dict[str, str] = field(default_factory=dict)  # mode -> text (the script is Script mode's text)
    instruction: str = ""
    cast: list[dict[str, str]] = field(default_factory=list)  # CastEntry.to_json() of each speaker
    voice: str = ""  # the voice chosen in the voice panel ("" for none)

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "texts": {m: t for m, t in self.texts.items() if t},
                "instruction": self.instruction, "cast": [dict(c) for c in self.cast], "voice": self.voice}

    def same_as(self, other: ProjectState) -> bool:
        """The same work (empty texts count as absent)."""
        return self.to_json() == other.to_json()

    @classmethod
    def from_json(cls, raw: object) -> ProjectState:
        if not isinstance(raw, dict):
            raise ValueError("its state is not an object")
        mode = raw.get("mode", "zero_shot")
        texts = raw.get("texts", {})
        if not isinstance(texts, dict) or not all(isinstance(v, str) for v in texts.values()):
            raise ValueError("its texts are not text")
        cast = raw.get("cast", [])
        if not isinstance(cast, list):
            raise ValueError("its cast is not a list")
        return cls(mode=mode if mode in MODES else "zero_shot", texts={str(k): v for k, v in texts.items()},
                   instruction=_text(raw.get("instruction")), cast=[_cast_entry(c) for c in cast if _is_cast(c)],
                   voice=_text(raw.get("voice")))


@dataclass
class Project:
    """A project file and what it holds."""

    path: Path  # the .cosyproj file
    state: ProjectState = field(default_factory=ProjectState)
    voices: list[VoiceRef] = field(default_factory=list)
    takes: list[TakeRef] = field(default_factory=list)
    created: float = field(default_factory=time.time)
    saved: float = 0.0

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def takes_folder(self) -> Path:
        return self.path.parent / TAKES_FOLDER

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": PROJECT_VERSION, "created": self.created, "saved": self.saved,
                **self.state.to_json(), "voices": [v.to_json() for v in self.voices],
                "takes": [t.to_json() for t in self.takes]}


def project_paths(chosen: Path) -> Path:
    """The project file for a name the user chose (``…/Book`` or ``…/Book.cosyproj``): ``…/Book/Book.cosyproj``."""
    chosen = Path(chosen)
    name = chosen.name
    stem = name[:-len(PROJECT_SUFFIX)] if name.lower().endswith(PROJECT_SUFFIX) else name
    if not stem.strip() or stem in (".", ".."):
        raise ProjectError(f"{chosen} is not a project name; type a name for the project.")
    return chosen.parent / stem / f"{stem}{PROJECT_SUFFIX}"


def save_project(project: Project) -> None:
    """Write the project file atomically (its folder is made when missing). Raises :class:`ProjectError`."""
    project.saved = time.time()
    data = json.dumps(project.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
    try:
        write_atomic(project.path, data)
    except CosyError as e:
        raise ProjectError(f"the project was not saved: {e}") from e


def load_project(path: Path) -> Project:
    """Read a project file. Raises :class:`ProjectNotFoundError`, :class:`ProjectDamagedError` or
    :class:`ProjectTooNewError`; the file is left as it is."""
    path = Path(path)
    try:
        raw = loads_strict_json(read_regular_file(path, MAX_PROJECT_BYTES).decode("utf-8"))
    except FileNotFoundError as e:
        raise ProjectNotFoundError(f"the project {path} is not there any more; it may have been moved or "
                                   "renamed, or be on a drive that is not connected. Open it from where it "
                                   "is now (File › Open project…).") from e
    except (OSError, ValueError, UnsafeFileError, RecursionError) as e:
        raise ProjectDamagedError(f"{path} cannot be read as a project ({e or type(e).__name__}). The file was "
                                  "left as it is; its takes are in the 'takes' folder beside it.") from e
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ProjectDamagedError(f"{path} is not a Cosy Studio project. The file was left as it is.")
    version = raw.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ProjectDamagedError(f"{path} has no valid format version. The file was left as it is.")
    if version > PROJECT_VERSION:
        raise ProjectTooNewError(f"{path} was saved by a newer Cosy Studio (project format {version}; this one "
                                 f"reads up to {PROJECT_VERSION}). Update Cosy Studio to open it; the file was "
                                 "left as it is.")
    try:
        return Project(path=path, state=ProjectState.from_json(raw), voices=_voices(raw.get("voices", [])),
                       takes=_takes(raw.get("takes", [])), created=float(raw.get("created", 0.0)),
                       saved=float(raw.get("saved", 0.0)))
    except (ValueError, TypeError, KeyError, OverflowError) as e:
        raise ProjectDamagedError(f"{path} cannot be read as a project: {e}. The file was left as it is.") from e


def read_session_state(folder: Path) -> ProjectState | None:
    """The Untitled project's state from ``session.json`` and ``mode_texts.json`` in ``folder`` (as the app
    has always written them; either may be missing or damaged, and what can be read is used). None when
    neither file is there."""
    session = _read_json(Path(folder) / SESSION_NAME)
    modes = _read_json(Path(folder) / MODE_TEXTS_NAME)
    if session is None and modes is None:
        return None
    session, modes = session or {}, modes or {}
    texts_raw = modes.get("texts")
    texts = {str(k): v for k, v in texts_raw.items() if isinstance(v, str)} if isinstance(texts_raw, dict) else {}
    mode = modes.get("mode")
    mode = mode if isinstance(mode, str) and mode in MODES else "zero_shot"
    text = session.get("text")
    if isinstance(text, str) and text:
        texts[mode] = text
    cast = session.get("cast")
    return ProjectState(mode=mode, texts=texts, instruction=_text(session.get("instruction")),
                        cast=[_cast_entry(c) for c in cast if _is_cast(c)] if isinstance(cast, list) else [])


def copy_folders(pairs: list[tuple[Path, Path]], progress: Callable[[int, int], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> None:
    """Copy each ``(source, target)`` folder (Save as copies the takes' folders this way): ``target`` must not
    exist. Files are copied in blocks of :data:`COPY_BLOCK` bytes; after each, ``progress(done, total)`` is told
    the bytes copied so far and ``cancelled()`` is asked, and a True answer raises :class:`SaveCancelledError`.
    Symbolic links are copied as links, never followed. What was copied before an error or a cancel stays:
    the caller made the targets' parent folder and removes it. Safe to run off the GUI thread."""
    dirs: list[Path] = []
    links: list[tuple[Path, Path]] = []
    files: list[tuple[Path, Path, int]] = []
    for source, target in pairs:
        dirs.append(target)
        for root, subdirs, names in os.walk(source):  # os.walk never descends into a linked folder
            here, there = Path(root), target / Path(root).relative_to(source)
            for name in [*subdirs, *names]:
                src, dst = here / name, there / name
                if src.is_symlink():
                    links.append((src, dst))
                elif src.is_dir():
                    dirs.append(dst)
                elif src.is_file():
                    files.append((src, dst, src.stat().st_size))
    total, done = sum(size for _, _, size in files), 0
    stop = cancelled or (lambda: False)
    for folder in dirs:
        folder.mkdir()  # raises when it exists: nothing is written into a folder this did not make
    for src, dst in links:
        os.symlink(os.readlink(src), dst)
    for src, dst, _size in files:
        with open(src, "rb") as fin, open(dst, "xb") as fout:
            while block := fin.read(COPY_BLOCK):
                fout.write(block)
                done += len(block)
                if progress is not None:
                    progress(done, total)
                if stop():
                    raise SaveCancelledError("Save as was cancelled; nothing was saved.")
        shutil.copystat(src, dst)
    if progress is not None:
        progress(total, total)
    if stop():
        raise SaveCancelledError("Save as was cancelled; nothing was saved.")


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file (:func:`cosycore.checksums.file_sha256`); "" when it cannot be read."""
    try:
        return checksums.file_sha256(path)
    except OSError:
        return ""


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        raw = loads_strict_json(read_regular_file(path, MAX_PROJECT_BYTES).decode("utf-8"))
    except (OSError, ValueError, UnsafeFileError, RecursionError):
        return None
    return raw if isinstance(raw, dict) else None


def _text(raw: object) -> str:
    return raw if isinstance(raw, str) else ""


def _is_cast(raw: object) -> bool:
    return isinstance(raw, dict) and isinstance(raw.get("name"), str) and bool(raw["name"].strip())


def _cast_entry(raw: dict[str, Any]) -> dict[str, str]:
    return {"name": raw["name"].strip(), "voice": _text(raw.get("voice")), "instruction": _text(raw.get("instruction"))}


def _voices(raw: object) -> list[VoiceRef]:
    if not isinstance(raw, list):
        raise ValueError("its voices are not a list")
    return [VoiceRef(str(v["name"]), _text(v.get("file")), _text(v.get("sha256")))
            for v in raw if isinstance(v, dict) and isinstance(v.get("name"), str) and v["name"]]


def _takes(raw: object) -> list[TakeRef]:
    if not isinstance(raw, list):
        raise ValueError("its takes are not a list")
    return [TakeRef(str(t["uid"]), int(t.get("number", 0)), _text(t.get("name")))
            for t in raw if isinstance(t, dict) and isinstance(t.get("uid"), str)]
