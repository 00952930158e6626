"""Script takes on disk: what it takes to regenerate one line of a take in a later process.

A take folder sits beside the audio file it describes and is named after it (``play.wav`` →
``play.wav.take``)::

    play.wav.take/
        take.json               the manifest (below)
        take.prev.json          the state before the last regeneration (one step of undo)
        script.txt              the script as it was rendered (a copy: the original may change later)
        voices/00.cosyvoice     each cast member's voice, a copy of its voice file
        segments/00002-r0.npy   each spoken line's audio: float32 mono, NumPy .npy

``take.json`` (UTF-8 JSON) holds the format name and version, the model family, the release
folder's name, the quality and text reading, the sample rate, the render settings, the base seed,
the cast (name, default instruction, voice file and its sha256), the script's name and sha256, and
one entry per segment in take order: its kind (``line``, ``gap``, ``pause``, ``paragraph``), its
length in samples, whether it was regenerated (its seams are crossfaded) and, for a spoken line,
the ``.npy`` file and its sha256, the seed, the mode, the instruction sent, the text as spoken
(pronunciation dictionary applied) and the line as written (script line number, speaker,
instruction, text). Silences have no file: their length is all there is to them. It also
records the sha256 of the files written from the take (the audio, its previous version, the
subtitles, the stems) so that a later command can tell its own files from files someone changed.

Loading (:func:`load_take`) checks everything before it is used and raises
:class:`TakeFileError` (an :class:`~cosycore.errors.InputError`) saying what to do: a missing or
unreadable folder, another format or a newer version, sizes that do not match the files, a file
whose sha256 differs, paths that leave the folder, counts or lengths beyond any real take. The
segments' audio is memory-mapped (:func:`numpy.load` with ``mmap_mode``), so a long take is not
read into memory; writing it out goes segment by segment (:meth:`ScriptTake.blocks`).

Writing is atomic: a new take folder is built under a temporary name and renamed into place
(:class:`TakeWriter`, :func:`save_take`); a regeneration in place (:func:`update_take`) adds the new
segment file under a new name and then replaces ``take.json`` atomically, after copying the old
one to ``take.prev.json``. Files that neither manifest names any more are removed afterwards; only
files named the way this module names them are ever removed.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CosyError, InputError
from ..safety import UnsafeFileError, loads_strict_json, read_regular_file
from ..voices import MAX_FILE_BYTES as MAX_VOICE_FILE_BYTES
from ..voices import encode_voice, load_voice, write_atomic
from .cast import Cast, CastMember
from .render import ScriptChunk, ScriptRender, ScriptTake, Segment
from .take_manifest import (
    MANIFEST,
    MAX_MANIFEST_BYTES,
    PREVIOUS_MANIFEST,
    SCRIPT_FILE,
    OwnedFile,
    ParsedManifest,
    TakeFileError,
    TakeModel,
    TakeOutputs,
    TakeRecord,
    build_manifest,
    damaged,
    manifest_bytes,
    parse_manifest,
    segment_entry,
)
from .take_storage import (
    AUDIO_SUFFIXES,
    BLOCK,
    SEGMENT_RE,
    TAKE_SUFFIX,
    VOICE_RE,
    NewFolder,
    check_new_take_folder,
    collect_garbage,
    file_sha256,
    inherited_previous,
    is_take_folder,
    place_copy,
    previous_path,
    revision_of,
    storage_error,
    take_audio_path,
    take_folder,
    write_new,
)

__all__ = [
    "TAKE_SUFFIX", "OwnedFile", "TakeFileError", "TakeModel", "TakeOutputs", "TakeRecord", "TakeWriter",
    "check_new_take_folder", "collect_garbage", "file_sha256", "find_take", "inherited_previous",
    "is_take_folder", "load_take", "owned_path", "previous_path", "save_take", "take_audio_path", "take_folder",
    "undo_take", "update_take",
]


def find_take(spec: Path | str) -> Path:
    """The take folder for ``spec``: the folder itself, or the audio file it sits beside."""
    spec = Path(spec)
    if spec.name.endswith(TAKE_SUFFIX):
        folder = spec
    elif spec.suffix.lower() in AUDIO_SUFFIXES:
        folder = take_folder(spec)
    else:
        raise TakeFileError(f"'{spec}' is neither the audio 'synth --script' wrote (NAME.wav or NAME.flac) nor its "
                            "take folder (NAME.wav.take).")
    take_audio_path(folder)
    if not folder.is_dir():
        raise TakeFileError(f"there is no take folder '{folder}'. 'cosycore synth --script … --out {spec.name}' "
                            "saves one beside the audio; render the script again to make one.")
    return folder


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def _inside(folder: Path, rel: str, pattern: re.Pattern[str], what: str) -> Path:
    """A file the manifest names: a name this format uses, a regular file, not reached through a link."""
    if not pattern.match(rel):
        raise damaged(folder, f"the {what} file {rel!r} is not a name this format uses (a path leaving the folder?)")
    path = folder / rel
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise damaged(folder, f"the {what} file {rel} is missing") from None
    if not stat.S_ISREG(st.st_mode) or path.parent.is_symlink():
        raise damaged(folder, f"{rel} is not a regular file in the folder (a link, a folder or a device)")
    return path


def _load_segment(folder: Path, rel: str, sha256: str, samples: int) -> np.ndarray:
    path = _inside(folder, rel, SEGMENT_RE, "segment")
    if file_sha256(path) != sha256:
        raise damaged(folder, f"{rel} does not hold the audio the take recorded (its sha256 differs)")
    try:
        audio = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise damaged(folder, f"{rel} is not a NumPy audio file ({e})") from e
    if not isinstance(audio, np.memmap) or audio.dtype != np.dtype("<f4") or audio.ndim != 1:
        raise damaged(folder, f"{rel} holds {getattr(audio, 'dtype', '?')} {getattr(audio, 'shape', '?')}, "
                              "not float32 mono audio")
    if audio.shape[0] != samples or path.stat().st_size != audio.offset + 4 * samples:
        raise damaged(folder, f"{rel} holds {audio.shape[0]:,} samples; the take says {samples:,}")
    for start in range(0, samples, BLOCK):
        if not np.isfinite(audio[start:start + BLOCK]).all():
            raise damaged(folder, f"{rel} holds NaN or infinite samples")
    return audio


def _load_cast(folder: Path, parsed: ParsedManifest, record_stored: list[tuple[object, Path, str]]) -> Cast:
    members = []
    for entry in parsed.cast:
        path = _inside(folder, entry.voice, VOICE_RE, "voice")
        try:
            data = read_regular_file(path, MAX_VOICE_FILE_BYTES)
        except (OSError, UnsafeFileError) as e:
            raise damaged(folder, f"{entry.voice} cannot be read ({e})") from e
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise damaged(folder, f"{entry.voice} is not the voice the take recorded (its sha256 differs)")
        try:
            voice = load_voice(path)
        except CosyError as e:
            raise damaged(folder, f"{entry.voice}: {e}") from e
        if voice.family != parsed.model.family:
            raise damaged(folder, f"{entry.voice} was made for {voice.family}, the take for {parsed.model.family}")
        record_stored.append((voice, path, entry.sha256))
        members.append(CastMember(entry.name, voice, entry.instruction))
    try:
        return Cast(members)
    except InputError as e:
        raise damaged(folder, str(e)) from e


def load_take(folder: Path | str, *, previous: bool = False) -> TakeRecord:
    """Read and check a take folder (``previous``: its state before the last regeneration)."""
    folder = Path(folder)
    take_audio_path(folder)
    name = PREVIOUS_MANIFEST if previous else MANIFEST
    if folder.is_symlink() or not folder.is_dir():
        raise TakeFileError(f"'{folder}' is not a take folder; give the audio file 'synth --script' wrote "
                            "(its take folder sits beside it) or the NAME.wav.take folder.")
    try:
        raw = read_regular_file(folder / name, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        if previous:
            raise TakeFileError(f"'{folder.name}' has no earlier state to go back to.") from None
        raise TakeFileError(f"'{folder}' has no {MANIFEST}; it is not a take, or it was not saved to the end. "
                            "Render the script again with 'cosycore synth --script'.") from None
    except (OSError, UnsafeFileError) as e:
        raise damaged(folder, f"{name} cannot be read ({e})") from e
    try:
        data = loads_strict_json(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise damaged(folder, f"{name} is not valid JSON ({e})") from e
    parsed = parse_manifest(data, folder)
    script_path = _inside(folder, SCRIPT_FILE, re.compile(re.escape(SCRIPT_FILE)), "script")
    try:
        script_bytes = read_regular_file(script_path, MAX_MANIFEST_BYTES)
        script_text = script_bytes.decode("utf-8")
    except (OSError, UnsafeFileError, UnicodeDecodeError) as e:
        raise damaged(folder, f"{SCRIPT_FILE} cannot be read ({e})") from e
    if hashlib.sha256(script_bytes).hexdigest() != parsed.script_sha256:
        raise damaged(folder, f"{SCRIPT_FILE} is not the script the take recorded (its sha256 differs)")
    stored: list[tuple[object, Path, str]] = []
    cast = _load_cast(folder, parsed, stored)
    audio = {k: _load_segment(folder, f.path, f.sha256, f.samples) for k, f in parsed.segment_files.items()}
    take = parsed.build_take(cast, audio)
    record = TakeRecord(take, cast, parsed.model, script_text, parsed.script_name, parsed.outputs,
                        parsed.created_at, parsed.revision, folder)
    for obj, path, sha in stored:
        record.remember(obj, path, sha)
    for k, f in parsed.segment_files.items():
        record.remember(take.segments[k].samples, folder / f.path, f.sha256)
    return record


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _npy_bytes(samples: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(samples, dtype="<f4"), allow_pickle=False)
    return buf.getvalue()


def _voice_files(folder: Path, record: TakeRecord) -> list[tuple[str, str]]:
    """Write (or link) the cast's voices into a new take folder."""
    voices = []
    for i, member in enumerate(record.cast):
        rel = f"voices/{i:02d}.cosyvoice"
        stored = record.stored(member.voice)
        if stored is not None:
            place_copy(stored.path, folder / rel)
            voices.append((rel, stored.sha256))
        else:
            voices.append((rel, write_new(folder / rel, encode_voice(member.voice))))
    return voices


def _segment_entries(folder: Path, record: TakeRecord, take: ScriptTake, revision: int, *,
                     in_place: bool) -> list[dict[str, Any]]:
    """The manifest entries of ``take``'s segments; each spoken line's audio is reused when it is stored
    in ``folder`` already (``in_place``), linked when stored elsewhere, else written."""
    entries = []
    for k, seg in enumerate(take.segments):
        file = None
        if seg.plan is not None:
            stored = record.stored(seg.samples)
            if in_place and stored is not None and stored.path.parent == folder / "segments":
                file = (f"segments/{stored.path.name}", stored.sha256)
            else:
                rel = f"segments/{k:05d}-r{revision}.npy"
                if stored is not None:
                    place_copy(stored.path, folder / rel)
                    file = (rel, stored.sha256)
                else:
                    file = (rel, write_new(folder / rel, _npy_bytes(seg.samples)))
        entries.append(segment_entry(seg, file))
    return entries


def _write_manifest(folder: Path, record: TakeRecord, segments: list[dict[str, Any]],
                    voices: list[tuple[str, str]], name: str = MANIFEST) -> None:
    write_atomic(folder / name, manifest_bytes(build_manifest(record, segments, voices)))


def save_take(record: TakeRecord, folder: Path | str, *, replace_existing: bool = False) -> TakeRecord:
    """Write ``record`` as a new take folder (atomically: built aside, renamed into place). An existing
    take folder there is replaced only with ``replace_existing``; anything else there is refused.
    Returns the record as loaded from the new folder."""
    folder = Path(folder)
    target = NewFolder(folder, replace_existing=replace_existing)
    try:
        write_new(target.tmp / SCRIPT_FILE, record.script_text.encode("utf-8"))
        voices = _voice_files(target.tmp, record)
        segments = _segment_entries(target.tmp, record, record.take, record.revision, in_place=False)
        _write_manifest(target.tmp, record, segments, voices)
    except OSError as e:
        target.abort()
        raise storage_error(folder, e) from e
    except BaseException:
        target.abort()
        raise
    target.commit()
    return load_take(folder)


def update_take(record: TakeRecord, take: ScriptTake, outputs: TakeOutputs) -> TakeRecord:
    """Replace the take in ``record``'s own folder by ``take`` (a regeneration of it): new segments are
    written under new names, ``take.json`` is copied to ``take.prev.json`` and then replaced. Returns
    the record as loaded again."""
    folder = record.folder
    if folder is None:
        raise InputError("the take was not loaded from a take folder; save it with save_take first.")
    if revision_of(folder / MANIFEST) != record.revision:
        raise TakeFileError(f"'{folder}' was changed by another command since it was read; run the command again.")
    try:
        current = read_regular_file(folder / MANIFEST, MAX_MANIFEST_BYTES)
    except (OSError, UnsafeFileError) as e:
        raise damaged(folder, f"{MANIFEST} cannot be read ({e})") from e
    revision = max(record.revision, revision_of(folder / PREVIOUS_MANIFEST)) + 1
    new = TakeRecord(take, record.cast, record.model, record.script_text, record.script_name, outputs,
                     record.created_at, revision, folder, dict(record._stored))
    voices = []
    for member in record.cast:
        stored = record.stored(member.voice)
        if stored is None or stored.path.parent != folder / "voices":
            raise InputError("the cast of a take cannot change when one of its lines is regenerated.")
        voices.append((f"voices/{stored.path.name}", stored.sha256))
    try:
        segments = _segment_entries(folder, record, take, revision, in_place=True)
        write_atomic(folder / PREVIOUS_MANIFEST, current)
        _write_manifest(folder, new, segments, voices)
    except OSError as e:
        raise storage_error(folder, e) from e
    collect_garbage(folder)
    return load_take(folder)


def undo_take(folder: Path | str, outputs: TakeOutputs | None = None) -> TakeRecord:
    """Go back to the state before the last regeneration (``take.prev.json``); the current state becomes
    the previous one, so a second undo redoes. ``outputs``: the files written for the restored state
    (default: as the previous state recorded them). Returns the restored record."""
    folder = Path(folder)
    restored = load_take(folder, previous=True)  # checked before anything changes
    current = load_take(folder)
    try:
        current_bytes = read_regular_file(folder / MANIFEST, MAX_MANIFEST_BYTES)
    except (OSError, UnsafeFileError) as e:
        raise damaged(folder, f"{MANIFEST} cannot be read ({e})") from e
    restored.outputs = outputs if outputs is not None else restored.outputs
    restored.revision = max(restored.revision, current.revision) + 1
    voices = [(f"voices/{s.path.name}", s.sha256) for s in map(restored.stored, (m.voice for m in restored.cast))
              if s is not None]
    segments = _segment_entries(folder, restored, restored.take, restored.revision, in_place=True)
    try:
        write_atomic(folder / PREVIOUS_MANIFEST, current_bytes)
        _write_manifest(folder, restored, segments, voices)
    except OSError as e:
        raise storage_error(folder, e) from e
    return load_take(folder)


class TakeWriter:
    """The take folder of a script as it is rendered (``synth --script``): each segment's audio is
    written when the segment is complete, so memory holds one line; :meth:`commit` writes the
    manifest and renames the folder into place (replacing an earlier take folder of the same audio
    file). Feed it the render's chunks with :meth:`add`."""

    def __init__(self, folder: Path | str, render: ScriptRender, model: TakeModel, script_text: str,
                 script_name: str = "") -> None:
        self.folder = Path(folder)
        self.render = render
        take = ScriptTake([], render.sample_rate, render.settings, render.base_seed)
        self.record = TakeRecord(take, render.cast, model, script_text, script_name)
        self._target = NewFolder(self.folder, replace_existing=True)
        self._entries: list[dict[str, Any]] = []
        self._pieces: list[np.ndarray] = []
        try:
            write_new(self._target.tmp / SCRIPT_FILE, script_text.encode("utf-8"))
            self._voices = _voice_files(self._target.tmp, self.record)
        except OSError as e:
            self.abort()
            raise storage_error(self.folder, e) from e

    def add(self, chunk: ScriptChunk) -> None:
        """Take one chunk of the render (in order); a segment's audio is written at its last chunk."""
        self._pieces.append(chunk.samples)
        if not chunk.segment_final:
            return
        k = chunk.segment
        if k != len(self._entries):
            raise ValueError(f"segment {k} came out of order (expected {len(self._entries)})")
        audio = np.concatenate(self._pieces) if len(self._pieces) > 1 else np.asarray(self._pieces[0])
        self._pieces = []
        item = self.render.items[k]
        plan = item.plan
        segment = Segment(item.kind, audio, plan, self.render.line_seed(plan.index) if plan is not None else None)
        file = None
        if plan is not None:
            rel = f"segments/{k:05d}-r0.npy"
            try:
                file = (rel, write_new(self._target.tmp / rel, _npy_bytes(audio)))
            except OSError as e:
                self.abort()
                raise storage_error(self.folder, e) from e
        self._entries.append(segment_entry(segment, file))

    @property
    def complete(self) -> bool:
        return len(self._entries) == len(self.render.items)

    def commit(self, outputs: TakeOutputs) -> Path:
        """Write the manifest and put the folder in place (only once every segment was added)."""
        if not self.complete:
            self.abort()
            raise InputError("the script was not rendered to the end; no take folder was saved.")
        self.record.outputs = outputs
        try:
            _write_manifest(self._target.tmp, self.record, self._entries, self._voices)
        except BaseException:
            self.abort()
            raise
        self._target.commit()
        return self.folder

    def abort(self) -> None:
        self._target.abort()


def owned_path(folder: Path | str, owned: OwnedFile) -> Path:
    """Where a recorded output file is (its path is relative to the folder holding the take folder)."""
    return Path(folder).parent / owned.path
