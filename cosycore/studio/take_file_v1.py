"""Take folders of the first format that ``synth --script`` wrote (``cosy-studio-script-take`` version 1),
read so that they keep opening; nothing writes this format any more (:mod:`cosycore.studio.take_file`
writes a take anew in the one take format, :mod:`cosycore.studio.take_folder`, when it changes one).

Layout::

    play.wav.take/
        take.json               the manifest (:mod:`cosycore.studio.take_manifest` checks it)
        take.prev.json          the state before the last regeneration (one step of undo)
        script.txt              the script as it was rendered
        voices/00.cosyvoice     each cast member's voice, a copy of its voice file
        segments/00002-r0.npy   each spoken line's audio: float32 mono, NumPy .npy

Everything is checked before it is used (sizes, names, sha256 of every file); the segments' audio is
memory-mapped, so a long take is not read into memory.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..errors import CosyError, InputError
from ..safety import UnsafeFileError, read_regular_file
from ..voices import MAX_FILE_BYTES as MAX_VOICE_FILE_BYTES
from ..voices import load_voice
from .cast import Cast, CastMember
from .take_manifest import (
    MAX_MANIFEST_BYTES,
    SCRIPT_FILE,
    ParsedManifest,
    TakeRecord,
    damaged,
    parse_manifest,
)
from .take_storage import BLOCK, SEGMENT_RE, VOICE_RE, file_sha256


def inside_file(folder: Path, rel: str, pattern: re.Pattern[str], what: str) -> Path:
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
    path = inside_file(folder, rel, SEGMENT_RE, "segment")
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


def read_cast(folder: Path, entries: Iterable[tuple[str, str, str, str | None]], pattern: re.Pattern[str],
              family: str, stored: list[tuple[object, Path, str]]) -> Cast:
    """The cast of a take folder of either format: ``entries`` are (name, voice file, its sha256,
    instruction); each voice file must lie in ``folder``, match ``pattern`` and its recorded sha256,
    and be made for ``family``. Each (voice, path, sha256) read is appended to ``stored``."""
    members = []
    for name, rel, sha256, instruction in entries:
        path = inside_file(folder, rel, pattern, "voice")
        try:
            data = read_regular_file(path, MAX_VOICE_FILE_BYTES)
        except (OSError, UnsafeFileError) as e:
            raise damaged(folder, f"{rel} cannot be read ({e})") from e
        if hashlib.sha256(data).hexdigest() != sha256:
            raise damaged(folder, f"{rel} is not the voice the take recorded (its sha256 differs)")
        try:
            voice = load_voice(path)
        except CosyError as e:
            raise damaged(folder, f"{rel}: {e}") from e
        if voice.family != family:
            raise damaged(folder, f"{rel} was made for {voice.family}, the take for {family}")
        stored.append((voice, path, sha256))
        members.append(CastMember(name, voice, instruction))
    try:
        return Cast(members)
    except InputError as e:
        raise damaged(folder, str(e)) from e


def _load_cast(folder: Path, parsed: ParsedManifest, record_stored: list[tuple[object, Path, str]]) -> Cast:
    return read_cast(folder, ((e.name, e.voice, e.sha256, e.instruction) for e in parsed.cast), VOICE_RE,
                     parsed.model.family, record_stored)


def load_v1(folder: Path, data: object) -> TakeRecord:
    """Check a take folder of the first format whose manifest (``take.json``, or ``take.prev.json`` for its
    state before the last regeneration) holds ``data``, and read it."""
    parsed = parse_manifest(data, folder)
    script_path = inside_file(folder, SCRIPT_FILE, re.compile(re.escape(SCRIPT_FILE)), "script")
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
