"""The one take format: a take is a folder holding ``take.json`` and its audio as raw float32 files.

Both the app (every take it keeps, :class:`app.takes.store.TakeStore`, under ``<data>/takes/<uid>``) and
the command line write and read takes through this module. Layout of one take's folder::

    take.json         everything but the samples (text, voice, model, mode, instruction, seed, speed,
                      quality, name, state, chunk starts, sentence spans; for a dialogue script's take the
                      script, cast, lines and segments); replaced atomically, and the commit point of
                      every change
    audio.f32         the take's samples, raw little-endian float32, mono; appended chunk by chunk
                      while the take is made
    audio-<v>.f32, line-<v>.f32
                      a take after a script line or a sentence was regenerated (or an edit applied): the
                      new version of its audio and, for a script line, the new line's own samples.
                      ``take.json`` names the current version's files and the previous version's (kept
                      for Undo); a version's files are written completely before ``take.json`` names
                      them, and files neither names are deleted afterwards (only names this module uses)

Why this format and not the ``NAME.wav.take`` folder of segment ``.npy`` files that ``synth --script``
wrote first (:mod:`cosycore.studio.take_file`, still read): it holds every kind of take (an ordinary
take, a script take, an edited one, one with regenerated sentences), it is written while the take is
made (a killed process loses at most the unfinished chunk), and a version is one audio file plus the
few line files that changed.

Each chunk is appended to the audio file and flushed to the operating system *before* ``take.json``
is replaced, so the manifest never describes audio that is not in the file. A take whose manifest still
says "streaming" when it is read was cut short: it comes back as a stopped take holding every whole
sample that reached the file (also samples of a chunk the manifest had not recorded yet).

Reading never follows a link and never deletes what this module did not make: a manifest is read only
when it is a regular file of at most :data:`MAX_META_BYTES`, its JSON nested at most
:data:`~cosycore.safety.MAX_JSON_DEPTH` deep; what it can raise when it is damaged is :data:`UNREADABLE`.
Errors while writing are :class:`~cosycore.errors.StorageError` with the reason. One thread uses a
:class:`TakeFolders` at a time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..errors import StorageError
from ..safety import UnsafeFileError, loads_strict_json, read_regular_file
from ..voices import write_atomic
from .script_take import ScriptInfo
from .take import AUDIO_NAME, SentenceSpan, Take, TakeState

logger = logging.getLogger(__name__)

FORMAT_NAME = "cosy-studio-take"

FORMAT_VERSION = 1
META_NAME = "take.json"
_SAMPLE_BYTES = 4
VERSION_FILE_RE = re.compile(r"^(?:audio|line)-[0-9a-f]{6,32}\.f32$")  # files of a regenerated take's versions
VOICES_DIR = "voices"  # a take made by the command line keeps copies of its cast's voices here
VOICE_FILE_RE = re.compile(r"^voices/[0-9]{2,3}\.cosyvoice$")
MAX_META_BYTES = 64 << 20  # a manifest larger than this is not read (a 10-hour take's is a few MB)
# What a damaged manifest can raise while it is read (a reader lists it as a problem; it never fails a start).
UNREADABLE = (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, ArithmeticError,
               RecursionError, UnsafeFileError)


def file_name(raw: object) -> str:
    """A file name read from a manifest: only the store's own names, never a path."""
    name = str(raw)
    if name != AUDIO_NAME and not VERSION_FILE_RE.match(name):
        raise ValueError(f"{name!r} is not a take file's name")
    return name


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def write_samples(path: Path, blocks: Iterable[np.ndarray]) -> int:
    """Write float32 samples block by block to ``path`` (a new name of this format in a take's folder),
    through a temporary file renamed into place; returns the number of samples."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    count = 0
    try:
        with open(tmp, "xb") as fh:
            for block in blocks:
                fh.write(np.ascontiguousarray(block, dtype="<f4").tobytes())
                count += int(block.shape[0])
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise StorageError(f"could not write {path}: {_reason(e)}.") from e
    return count


def is_own_file(name: str) -> bool:
    """Whether ``name`` is a file this format writes in a take's folder."""
    return name in (AUDIO_NAME, META_NAME) or bool(VERSION_FILE_RE.match(name))


class TakeFolders:
    """Take folders under ``root``, one per take (named by its uid): made as the take is made, versioned,
    edited and read back."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._files: dict[str, BinaryIO] = {}  # uid -> open audio file of a take being made

    def folder(self, take: Take) -> Path:
        return self.root / take.uid

    # -- writing ---------------------------------------------------------------------------
    def create(self, take: Take) -> None:
        """Start saving a new take: its folder, an empty audio file and its manifest."""
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
        """Replace the take's manifest (atomically). Closes the audio file once the take is finished."""
        folder = self.folder(take)
        if not folder.is_dir():
            return  # removed, or never saved
        if take.state is not TakeState.STREAMING:
            self._close(take.uid)
        write_atomic(folder / META_NAME, json.dumps(take_meta(take), ensure_ascii=False, indent=1).encode("utf-8"),
                     within=self.root)

    def _close(self, uid: str) -> None:
        fh = self._files.pop(uid, None)
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.flush()
                os.fsync(fh.fileno())
            fh.close()

    def close(self) -> None:
        for uid in list(self._files):
            self._close(uid)

    # -- versions of a script take ----------------------------------------------------------
    def read_raw(self, take: Take, name: str) -> np.ndarray:
        """The samples of a file of the take's folder (a regenerated line's own samples)."""
        try:
            return np.fromfile(self.folder(take) / file_name(name), dtype="<f4")
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
                               "first, then make a new version.")
        folder = self.folder(take)
        saved = folder.is_dir()
        audio_file = f"audio-{secrets.token_hex(4)}.f32"
        written: list[Path] = []
        try:
            if saved:
                for name, samples in {audio_file: audio, **files}.items():
                    write_atomic(folder / file_name(name), np.ascontiguousarray(samples, dtype="<f4").tobytes(),
                                 within=self.root)
                    written.append(folder / name)
        except StorageError:
            for path in written:
                path.unlink(missing_ok=True)
            raise
        before = (take.audio_file, take.audio(), take.seam_samples(), take.sentences(), take.script,
                  take.previous_version, take.sentence_settings)
        take.previous_version = version_of(take)
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
        clean_versions(self.folder(take), take)

    def swap_versions(self, take: Take) -> bool:
        """Undo (and, again, redo) the last new version (a script line or a sentence regenerated): the previous
        version and the current swap. False when the take has no previous version."""
        previous = take.previous_version
        if previous is None:
            return False
        if take.edit is not None:
            raise StorageError(f"take {take.number} is edited (trim, fades or loudness); reset it to its original "
                               "first, then undo.")
        folder = self.folder(take)
        audio_file = file_name(previous["audio_file"])
        samples = int(previous["samples"])
        audio = np.fromfile(folder / audio_file, dtype="<f4", count=samples) if folder.is_dir() else None
        if audio is None or audio.shape[0] != samples:
            raise StorageError(f"the previous version of take {take.number} is not in {folder} any more.")
        spans = [SentenceSpan(int(i), str(t), float(a), float(b)) for i, t, a, b in previous.get("sentences", [])]
        current = version_of(take)
        raw_script = previous.get("script")
        script = ScriptInfo.from_json(raw_script) if raw_script is not None else None
        if (script is None) != (take.script is None):
            raise StorageError(f"the previous version of take {take.number} does not fit it (a script take's "
                               "version for an ordinary take, or the other way round).")
        before = (take.audio_file, take.audio(), take.seam_samples(), take.sentences(), take.script,
                  take.sentence_settings)
        take.audio_file, take.script, take.previous_version = audio_file, script, current
        take.sentence_settings = read_sentence_settings(previous.get("sentence_settings"))
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
        path = self.folder(take) / file_name(original["audio_file"])
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
            audio_file = file_name(original["audio_file"])
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
        clean_versions(self.folder(take), take)


def take_meta(take: Take) -> dict[str, Any]:
    return {
        "format": FORMAT_NAME, "version": FORMAT_VERSION,
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


def version_of(take: Take) -> dict[str, Any]:
    """What :meth:`TakeStore.swap_versions` needs to bring the take's current version back."""
    return {"audio_file": take.audio_file, "samples": take.samples, "seams": take.seam_samples(),
            "sentences": [[s.index, s.text, s.start, s.end] for s in take.sentences()],
            "script": take.script.to_json() if take.script is not None else None,
            "sentence_settings": {str(k): v for k, v in take.sentence_settings.items()}}


def read_sentence_settings(raw: object) -> dict[int, dict[str, Any]]:
    """How regenerated sentences were last spoken (index -> seed, mode, instruction), read from a manifest."""
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


def clean_versions(folder: Path, take: Take) -> None:
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
    with contextlib.suppress(OSError):
        for path in folder.iterdir():
            if (path.name == AUDIO_NAME or VERSION_FILE_RE.match(path.name)) and path.name not in keep:
                path.unlink(missing_ok=True)


def remove_own_files(folder: Path) -> bool:
    """Delete this format's files in ``folder`` (by name, regular files only), then the folder if it
    is empty; True when the folder is gone."""
    with contextlib.suppress(OSError):
        for path in folder.iterdir():
            if ((is_own_file(path.name)
                 or (path.name.startswith(f".{META_NAME}.") and path.name.endswith(".tmp")))
                    and not path.is_symlink() and path.is_file()):
                path.unlink(missing_ok=True)
        voices = folder / VOICES_DIR
        if voices.is_dir() and not voices.is_symlink():
            for path in voices.iterdir():
                if VOICE_FILE_RE.match(f"{VOICES_DIR}/{path.name}") and not path.is_symlink() and path.is_file():
                    path.unlink(missing_ok=True)
            voices.rmdir()
    try:
        folder.rmdir()
    except OSError:
        return False
    return True


def read_take(folder: Path) -> Take | None:
    """The take in ``folder``, its audio read when first used; None for a take cut short before any audio
    reached its file. Raises one of :data:`UNREADABLE` when the manifest or a name in it is damaged."""
    meta = loads_strict_json(read_regular_file(folder / META_NAME, MAX_META_BYTES).decode("utf-8"))
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ValueError("not a saved take")
    version = meta.get("version", FORMAT_VERSION)
    if type(version) is int and version > FORMAT_VERSION:
        raise ValueError(f"it was written by a newer version of Cosy Studio (take format {version}; this one reads "
                         f"up to {FORMAT_VERSION}); update Cosy Studio")
    for key, kind in (("script", (dict, type(None))), ("previous", (dict, type(None))),
                      ("edit", (dict, type(None))), ("original", (dict, type(None))),
                      ("seams", list), ("sentences", list), ("text", str), ("uid", str)):
        if key in meta and not isinstance(meta[key], kind):
            raise ValueError(f"its {key!r} has the wrong type")
    audio_file = file_name(meta.get("audio_file", AUDIO_NAME))
    audio_path = folder / audio_file
    script = ScriptInfo.from_json(meta["script"]) if meta.get("script") is not None else None
    previous = meta.get("previous")
    if previous is not None:
        file_name(previous["audio_file"])
        read_sentence_settings(previous.get("sentence_settings"))
    original = meta.get("original")
    if original is not None:
        file_name(original["audio_file"])
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
        sentence_settings=read_sentence_settings(meta.get("sentence_settings")),
    )
