"""Takes on disk, written as they are made, so that quitting, a crash or a ``kill -9`` loses at most the
unfinished tail of the take being made.

Layout, under the app's data folder (``<data>/takes``)::

    <uid>/audio.f32   the take's samples, raw little-endian float32, mono; appended chunk by chunk
    <uid>/take.json   everything else (text, voice, model, mode, instruction, seed, speed, quality,
                      name, state, chunk starts, sentence spans; for a dialogue script's take the
                      script, cast, lines and segments); replaced atomically after each chunk
    <uid>/audio-<v>.f32, line-<v>.f32
                      a take after a script line or a sentence was regenerated (or an edit applied): the
                      new version of its audio and, for a script line, the new line's own samples.
                      ``take.json`` names the current version's files and the previous version's (kept
                      for Undo); it is the commit point: a version's files are
                      written completely before ``take.json`` names them, and files neither names are
                      deleted afterwards
    .trash/<uid>/     removed takes, kept until the user empties the trash (Takes › Trash…); Ctrl+Z or
                      the trash's Restore puts one back

Each chunk is appended to ``audio.f32`` and flushed to the operating system *before* ``take.json``
is replaced, so the sidecar never describes audio that is not in the file. A take whose sidecar still
says "streaming" when the store is opened was cut short: it comes back as a stopped take holding every
whole sample that reached the file (also samples of a chunk the sidecar had not recorded yet).

Whatever the folder holds, opening it never fails and never deletes what the store did not make: a
sidecar is read only when it is a regular file of at most :data:`MAX_META_BYTES`, its JSON nested at
most :data:`~cosycore.safety.MAX_JSON_DEPTH` deep; one that cannot be read (not JSON, a list, a
number too large, a wrong type) is listed as a problem and its folder left alone; an empty cut-short
take loses only the store's own files, and a folder holding anything else is kept; a link in the
folder is never followed.

Only the GUI thread uses a store. Errors are :class:`~cosycore.errors.StorageError` with the reason.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from cosycore.errors import StorageError
from cosycore.safety import UnsafeFileError, loads_strict_json, read_regular_file
from cosycore.voices import write_atomic

from .script_take import ScriptInfo
from .take import AUDIO_NAME, SentenceSpan, Take, TakeList, TakeState

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
META_NAME = "take.json"
TRASH_NAME = ".trash"
_SAMPLE_BYTES = 4
_VERSION_FILE_RE = re.compile(r"^(?:audio|line)-[0-9a-f]{6,32}\.f32$")  # files of a regenerated take's versions
MAX_META_BYTES = 64 << 20  # a sidecar larger than this is not read (a 10-hour take's is a few MB)
# What a damaged sidecar can raise while it is read: each is a problem listed, never a failed start.
_UNREADABLE = (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, ArithmeticError,
               RecursionError, UnsafeFileError)


def _file_name(raw: object) -> str:
    """A file name read from a sidecar: only the store's own names, never a path."""
    name = str(raw)
    if name != AUDIO_NAME and not _VERSION_FILE_RE.match(name):
        raise ValueError(f"{name!r} is not a take file's name")
    return name


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


class TakeStore:
    """The folder of saved takes. Owned by the studio session (:class:`app.session.StudioSession`)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._files: dict[str, BinaryIO] = {}  # uid -> open audio file of a take being made
        self.emptied: set[str] = set()  # uids of takes deleted by emptying the trash (no undo brings them back)

    # -- paths -----------------------------------------------------------------------------
    def folder(self, take: Take) -> Path:
        return self.root / take.uid

    @property
    def trash(self) -> Path:
        return self.root / TRASH_NAME

    # -- writing ---------------------------------------------------------------------------
    def create(self, take: Take) -> None:
        """Start saving a new take: its folder, an empty audio file and its sidecar."""
        folder = self.folder(take)
        try:
            folder.mkdir(parents=True, exist_ok=False)
            self._files[take.uid] = open(folder / AUDIO_NAME, "ab")  # noqa: SIM115 (closed in finish/close)
        except OSError as e:
            raise StorageError(f"could not save take {take.number} in {folder}: {_reason(e)}.") from e
        self.save_meta(take)

    def append(self, take: Take, samples: np.ndarray) -> None:
        """Append a chunk's samples to the take's audio file and hand them to the operating system."""
        fh = self._files.get(take.uid)
        if fh is None:
            return  # not being saved (creating it failed, and the user was told)
        try:
            fh.write(np.ascontiguousarray(samples, dtype="<f4").tobytes())
            fh.flush()  # survives a killed process; fsync at the end covers a power cut
        except OSError as e:
            raise StorageError(f"could not save take {take.number}: {_reason(e)}.") from e

    def save_meta(self, take: Take) -> None:
        """Replace the take's sidecar (atomically). Closes the audio file once the take is finished."""
        folder = self.folder(take)
        if not folder.is_dir():
            return  # removed, or never saved
        if take.state is not TakeState.STREAMING:
            self._close(take.uid)
        write_atomic(folder / META_NAME, json.dumps(_meta(take), ensure_ascii=False, indent=1).encode("utf-8"),
                     within=self.root)

    def _close(self, uid: str) -> None:
        fh = self._files.pop(uid, None)
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.flush()
                os.fsync(fh.fileno())
            fh.close()

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
                take = _read(folder)
            except _UNREADABLE as e:
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
                if not _remove_own_files(folder):
                    kept.append(folder.name)
        return kept

    def close(self) -> None:
        for uid in list(self._files):
            self._close(uid)

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

    # -- versions of a script take ----------------------------------------------------------
    def read_raw(self, take: Take, name: str) -> np.ndarray:
        """The samples of a file of the take's folder (a regenerated line's own samples)."""
        try:
            return np.fromfile(self.folder(take) / _file_name(name), dtype="<f4")
        except OSError as e:
            raise StorageError(f"could not read {name} of take {take.number}: {_reason(e)}.") from e

    def new_version(self, take: Take, audio: np.ndarray, seams: list[int], spans: list[SentenceSpan],
                    script: ScriptInfo | None, files: dict[str, np.ndarray],
                    sentence_settings: dict[int, dict[str, Any]] | None = None) -> None:
        """Make ``audio`` (with ``script``'s layout, or ``sentence_settings`` for an ordinary take, and the extra
        ``files``) the take's current version and its current one the previous (Undo puts it back). Nothing
        changes if it cannot be saved."""
        if take.edit is not None:
            raise StorageError(f"take {take.number} is edited (trim, fades or loudness); reset it to its original "
                               "first (Takes › Edit take…), then make a new version.")
        folder = self.folder(take)
        saved = folder.is_dir()
        audio_file = f"audio-{secrets.token_hex(4)}.f32"
        written: list[Path] = []
        try:
            if saved:
                for name, samples in {audio_file: audio, **files}.items():
                    write_atomic(folder / _file_name(name), np.ascontiguousarray(samples, dtype="<f4").tobytes(),
                                 within=self.root)
                    written.append(folder / name)
        except StorageError:
            for path in written:
                path.unlink(missing_ok=True)
            raise
        before = (take.audio_file, take.audio(), take.seam_samples(), take.sentences(), take.script,
                  take.previous_version, take.sentence_settings)
        take.previous_version = _version(take)
        take.audio_file = audio_file
        take.script = script
        if sentence_settings is not None:
            take.sentence_settings = dict(sentence_settings)
        take.replace_audio(audio, seams, spans)
        if not saved:
            return
        try:
            self.save_meta(take)  # the commit
        except StorageError:
            (take.audio_file, old_audio, old_seams, old_spans, take.script, take.previous_version,
             take.sentence_settings) = before
            take.replace_audio(old_audio, old_seams, old_spans)
            for path in written:
                path.unlink(missing_ok=True)
            raise
        self._clean(take)

    def swap_versions(self, take: Take) -> bool:
        """Undo (and, again, redo) the last new version (a script line or a sentence regenerated): the previous
        version and the current swap. False when the take has no previous version."""
        previous = take.previous_version
        if previous is None:
            return False
        if take.edit is not None:
            raise StorageError(f"take {take.number} is edited (trim, fades or loudness); reset it to its original "
                               "first (Takes › Edit take…), then undo.")
        folder = self.folder(take)
        audio_file = _file_name(previous["audio_file"])
        samples = int(previous["samples"])
        audio = np.fromfile(folder / audio_file, dtype="<f4", count=samples) if folder.is_dir() else None
        if audio is None or audio.shape[0] != samples:
            raise StorageError(f"the previous version of take {take.number} is not in {folder} any more.")
        spans = [SentenceSpan(int(i), str(t), float(a), float(b)) for i, t, a, b in previous.get("sentences", [])]
        current = _version(take)
        raw_script = previous.get("script")
        script = ScriptInfo.from_json(raw_script) if raw_script is not None else None
        if (script is None) != (take.script is None):
            raise StorageError(f"the previous version of take {take.number} does not fit it (a script take's "
                               "version for an ordinary take, or the other way round).")
        before = (take.audio_file, take.audio(), take.seam_samples(), take.sentences(), take.script,
                  take.sentence_settings)
        take.audio_file, take.script, take.previous_version = audio_file, script, current
        take.sentence_settings = _sentence_settings(previous.get("sentence_settings"))
        take.replace_audio(audio, [int(s) for s in previous.get("seams", [])], spans)
        try:
            self.save_meta(take)
        except StorageError:
            take.audio_file, old_audio, old_seams, old_spans, take.script, take.sentence_settings = before
            take.previous_version = previous
            take.replace_audio(old_audio, old_seams, old_spans)
            raise
        return True

    # -- edits (trim, fades, loudness) ---------------------------------------------------------
    def original_audio(self, take: Take) -> tuple[np.ndarray, list[int], list[SentenceSpan]]:
        """The take's unedited audio, its seams and sentences (its current ones while it is not edited)."""
        original = take.original
        if original is None:
            return take.audio(), take.seam_samples(), take.sentences()
        samples = int(original["samples"])
        path = self.folder(take) / _file_name(original["audio_file"])
        try:
            audio = np.fromfile(path, dtype="<f4", count=samples)
        except OSError as e:
            raise StorageError(f"could not read the original audio of take {take.number}: {_reason(e)}.") from e
        if audio.shape[0] != samples:
            raise StorageError(f"the original audio of take {take.number} in {path} is shorter than recorded.")
        spans = [SentenceSpan(int(i), str(t), float(a), float(b)) for i, t, a, b in original.get("sentences", [])]
        return audio, [int(s) for s in original.get("seams", [])], spans

    def apply_edit(self, take: Take, edit: dict | None, audio: np.ndarray, seams: list[int],
                   spans: list[SentenceSpan]) -> None:
        """Make ``audio`` (the original with ``edit`` applied; ``edit`` None: the original itself) the take's
        audio. The original's file is kept for as long as the take is edited. Nothing changes on failure."""
        folder = self.folder(take)
        if not folder.is_dir():
            raise StorageError(f"take {take.number} is not saved in {self.root}; it cannot be edited.")
        original = take.original or {"audio_file": take.audio_file, "samples": take.samples,
                                     "seams": take.seam_samples(),
                                     "sentences": [[s.index, s.text, s.start, s.end] for s in take.sentences()]}
        written: Path | None = None
        if edit is None:
            audio_file = _file_name(original["audio_file"])
        else:
            audio_file = f"audio-{secrets.token_hex(4)}.f32"
            write_atomic(folder / audio_file, np.ascontiguousarray(audio, dtype="<f4").tobytes(), within=self.root)
            written = folder / audio_file
        before = (take.audio_file, take.audio(), take.seam_samples(), take.sentences(), take.edit, take.original)
        take.audio_file, take.edit = audio_file, edit
        take.original = None if edit is None else original
        take.replace_audio(audio, seams, spans)
        try:
            self.save_meta(take)  # the commit
        except StorageError:
            take.audio_file, old_audio, old_seams, old_spans, take.edit, take.original = before
            take.replace_audio(old_audio, old_seams, old_spans)
            if written is not None:
                written.unlink(missing_ok=True)
            raise
        self._clean(take)

    def _clean(self, take: Take) -> None:
        """Delete the version files of the take's folder that neither its current nor its previous version names."""
        keep = {take.audio_file}
        if take.script is not None:
            keep |= take.script.raw_files()
        if take.original is not None:
            keep.add(str(take.original.get("audio_file", "")))
        previous = take.previous_version
        if previous is not None:
            keep.add(str(previous.get("audio_file", "")))
            if previous.get("script") is not None:
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    keep |= ScriptInfo.from_json(previous["script"]).raw_files()
        folder = self.folder(take)
        with contextlib.suppress(OSError):
            for path in folder.iterdir():
                if (path.name == AUDIO_NAME or _VERSION_FILE_RE.match(path.name)) and path.name not in keep:
                    path.unlink(missing_ok=True)

    # -- reading ---------------------------------------------------------------------------
    def size_bytes(self) -> int:
        """What the saved takes take up on disk (the trash not counted)."""
        total = 0
        for folder in self._folders():
            with contextlib.suppress(OSError):
                for path in folder.iterdir():
                    if path.name in (AUDIO_NAME, META_NAME) or _VERSION_FILE_RE.match(path.name):
                        total += path.stat().st_size
        return total

    def _folders(self, root: Path | None = None) -> Iterator[Path]:
        root = self.root if root is None else root
        if not root.is_dir() or root.is_symlink():
            return
        for folder in sorted(root.iterdir()):
            if (not folder.is_symlink() and folder.is_dir() and folder.name != TRASH_NAME
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
                take = _read(folder)
            except _UNREADABLE as e:
                why = "it nests too deep" if isinstance(e, RecursionError) else str(e) or type(e).__name__
                logger.warning("cannot read the saved take in %s: %s", folder, why)
                problems.append(f"{folder.name}: {why} (left as it is)")
                continue
            if take is None:
                if not _remove_own_files(folder):  # an empty take this store made; anything else stays
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


def _meta(take: Take) -> dict[str, Any]:
    return {
        "format": "cosy-studio-take", "version": FORMAT_VERSION,
        "uid": take.uid, "number": take.number, "name": take.name, "text": take.text,
        "mode": take.mode, "voice": take.voice_name, "instruction": take.instruction, "model": take.model,
        "quality": take.quality, "seed": take.seed, "speed": take.speed, "created": take.created,
        "state": take.state.value, "recovered": take.recovered, "error": take.error,
        "exported_partial": take.exported_partial, "sample_rate": take.sample_rate, "samples": take.samples,
        "seams": take.seam_samples(), "expected_seconds": take.expected_seconds,
        "wall_seconds": take.wall_seconds, "first_audio_seconds": take.first_audio_seconds,
        "sentences": [[s.index, s.text, s.start, s.end] for s in take.sentences()],
        "audio_file": take.audio_file,
        "script": take.script.to_json() if take.script is not None else None,
        "previous": take.previous_version,
        "edit": take.edit, "original": take.original,
        "sentence_settings": {str(k): v for k, v in take.sentence_settings.items()},
    }


def _version(take: Take) -> dict[str, Any]:
    """What :meth:`TakeStore.swap_versions` needs to bring the take's current version back."""
    return {"audio_file": take.audio_file, "samples": take.samples, "seams": take.seam_samples(),
            "sentences": [[s.index, s.text, s.start, s.end] for s in take.sentences()],
            "script": take.script.to_json() if take.script is not None else None,
            "sentence_settings": {str(k): v for k, v in take.sentence_settings.items()}}


def _sentence_settings(raw: object) -> dict[int, dict[str, Any]]:
    """How regenerated sentences were last spoken (index -> seed, mode, instruction), read from a sidecar."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError("its 'sentence_settings' has the wrong type")
    out: dict[int, dict[str, Any]] = {}
    for key, value in raw.items():
        if not isinstance(value, dict):
            raise ValueError("its 'sentence_settings' has the wrong type")
        out[int(key)] = {"seed": int(value["seed"]), "mode": str(value.get("mode", "")),
                         "instruction": str(value.get("instruction", ""))}
    return out


def _remove_own_files(folder: Path) -> bool:
    """Delete the store's own files in ``folder`` (by name, regular files only), then the folder if it
    is empty; True when the folder is gone."""
    with contextlib.suppress(OSError):
        for path in folder.iterdir():
            if ((path.name in (META_NAME, AUDIO_NAME) or _VERSION_FILE_RE.match(path.name)
                 or (path.name.startswith(f".{META_NAME}.") and path.name.endswith(".tmp")))
                    and not path.is_symlink() and path.is_file()):
                path.unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:
        return False
    return True


def _read(folder: Path) -> Take | None:
    meta = loads_strict_json(read_regular_file(folder / META_NAME, MAX_META_BYTES).decode("utf-8"))
    if not isinstance(meta, dict) or meta.get("format") != "cosy-studio-take":
        raise ValueError("not a saved take")
    for key, kind in (("script", (dict, type(None))), ("previous", (dict, type(None))),
                      ("edit", (dict, type(None))), ("original", (dict, type(None))),
                      ("seams", list), ("sentences", list), ("text", str), ("uid", str)):
        if key in meta and not isinstance(meta[key], kind):
            raise ValueError(f"its {key!r} has the wrong type")
    audio_file = _file_name(meta.get("audio_file", AUDIO_NAME))
    audio_path = folder / audio_file
    script = ScriptInfo.from_json(meta["script"]) if meta.get("script") is not None else None
    previous = meta.get("previous")
    if previous is not None:
        _file_name(previous["audio_file"])
        _sentence_settings(previous.get("sentence_settings"))
    original = meta.get("original")
    if original is not None:
        _file_name(original["audio_file"])
    on_disk = audio_path.stat().st_size // _SAMPLE_BYTES if audio_path.exists() else 0
    state = TakeState(meta["state"])
    recorded = int(meta["samples"])
    rate = int(meta["sample_rate"])
    if str(meta["uid"]) != folder.name:
        raise ValueError("its uid is not its folder's name")
    if rate <= 0 or recorded < 0:
        raise ValueError("its sample rate or length is out of range")
    seams = [int(s) for s in meta.get("seams", [])]
    spans = [SentenceSpan(int(i), str(t), float(a), float(b)) for i, t, a, b in meta.get("sentences", [])]
    recovered = bool(meta.get("recovered", False))
    error = str(meta.get("error", ""))
    if state is TakeState.STREAMING:
        # Cut short while being made: keep every whole sample that reached the file.
        if on_disk == 0:
            return None
        if on_disk > recorded:
            seams = [*seams, recorded] if recorded else seams
            if spans:  # the unrecorded chunk belongs to the last sentence seen (or its successor)
                last = spans[-1]
                spans[-1] = SentenceSpan(last.index, last.text, last.start, on_disk / rate)
        state, recovered = TakeState.CANCELLED, True
        error = "The app ended while this take was being made; it holds what was made until then."
        samples = on_disk
    else:
        samples = min(recorded, on_disk)

    def load() -> np.ndarray:
        return np.fromfile(audio_path, dtype="<f4", count=samples)

    return Take.restored(
        uid=str(meta["uid"]), number=int(meta["number"]), text=str(meta["text"]), mode=str(meta["mode"]),
        voice_name=str(meta.get("voice", "")), sample_rate=rate, state=state, samples=samples,
        seams=[s for s in seams if 0 < s < samples], spans=spans, load=load,
        name=str(meta.get("name", "")), instruction=str(meta.get("instruction", "")),
        model=str(meta.get("model", "")), quality=str(meta.get("quality", "")),
        seed=meta.get("seed"), speed=float(meta.get("speed", 1.0)), created=float(meta.get("created", 0.0)),
        recovered=recovered, error=error, exported_partial=bool(meta.get("exported_partial", False)),
        expected_seconds=float(meta.get("expected_seconds", 0.0)),
        wall_seconds=float(meta.get("wall_seconds", 0.0)), first_audio_seconds=meta.get("first_audio_seconds"),
        script=script, audio_file=audio_file, previous_version=previous,
        edit=meta.get("edit"), original=original,
        sentence_settings=_sentence_settings(meta.get("sentence_settings")),
    )
