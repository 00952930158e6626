"""Saved voices: one ``.cosyvoice`` file per voice, and a folder of them (:class:`VoiceLibrary`).

A voice file is a zip archive (entries stored uncompressed) holding

* ``voice.json``: the header — format name and version, creation time, the voice's name, the
  transcript of its prompt audio, language, the model family its features were made for, the
  sha256 of the speech-tokenizer file that made its tokens, array dtypes and shapes, optionally the
  user's instruct presets exported with it (``instruct_presets``: a list of ``{"name", "text"}``;
  absent when there are none, so format version 1 readers that predate it read such files
  unchanged), and a sha256 checksum;
* ``audio_24k.npy`` (float32 [N], 24 kHz prompt audio), ``speech_tokens.npy`` (int32 [P]),
  ``embedding.npy`` (float32 [192]) and ``prompt_mel.npy`` (float32 [T, 80]) in NumPy's ``.npy``
  format, read with ``allow_pickle=False``.

The checksum covers the header (without the checksum itself, as canonical JSON) and every array
file, so a damaged download or a hand-edited transcript is detected. No pickle is involved anywhere.
Files are written to a temporary file beside the target and moved into place, so an interrupted or
failed save never leaves a half-written voice and never destroys the previous one.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import hashlib
import io
import json
import logging
import os
import re
import stat
import tempfile
import threading
import unicodedata
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, get_args

import numpy as np

from .config import Family
from .errors import CosyError, InputError, StorageError
from .safety import loads_strict_json

logger = logging.getLogger(__name__)

FORMAT_NAME = "cosy-studio-voice"
FORMAT_VERSION = 1
VOICE_SUFFIX = ".cosyvoice"
HEADER_ENTRY = "voice.json"
ARRAY_NAMES = ("audio_24k", "speech_tokens", "embedding", "prompt_mel")  # checksum order
EMBEDDING_DIM = 192
MEL_BINS = 80
MAX_VOICE_SECONDS = 30.0  # the recorder's and the prompt extraction's limit
_SECONDS_MARGIN = 1.0  # rounding of 16 kHz/24 kHz lengths and frame counts
TOKEN_RATE = 25  # speech tokens per second (both families)
MEL_RATE = 50  # prompt-mel frames per second at 24 kHz with hop 480
SPEECH_TOKEN_VOCAB = 6561  # 3**8 FSQ codes: the speech tokenizer of both families
SAMPLE_RATES = (16000, 48000)  # the range a stored prompt's rate may have (24000 in practice)
MAX_PROMPT_TOKENS = int((MAX_VOICE_SECONDS + _SECONDS_MARGIN) * TOKEN_RATE)  # 775
MAX_PROMPT_FRAMES = int((MAX_VOICE_SECONDS + _SECONDS_MARGIN) * MEL_RATE)  # 1550
MAX_HEADER_BYTES = 1 << 20  # voice.json: a name, a transcript and a few numbers
MAX_TRANSCRIPT_CHARS = 10_000
MAX_ENTRIES = 16  # a voice file has 5
MAX_TOTAL_BYTES = 16 << 20  # all entries uncompressed; 30 s of 24 kHz float32 audio is 2.9 MB
MAX_ENTRY_BYTES = MAX_TOTAL_BYTES  # refuse absurd entries instead of reading them into memory
MAX_FILE_BYTES = MAX_TOTAL_BYTES + MAX_HEADER_BYTES  # the .cosyvoice file itself
MAX_COMPRESSION_RATIO = 50  # our files are stored; a deflated entry may shrink, but not like a bomb
MAX_NAME_CHARS = 64
VOICES_DIR_ENV = "COSY_VOICES_DIR"  # overrides the library folder (CLI, app, tests)
APP_DIR_NAME = "CosyStudio"  # folder name under the platform's user data directory
_FAMILIES: tuple[str, ...] = get_args(Family)
_EXPECTED = {  # name -> (dtype, rank)
    "audio_24k": (np.dtype(np.float32), 1),
    "speech_tokens": (np.dtype(np.int32), 1),
    "embedding": (np.dtype(np.float32), 1),
    "prompt_mel": (np.dtype(np.float32), 2),
}


def utc_now() -> str:
    """The current time as ISO 8601 UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _frozen(array: np.ndarray, dtype: np.dtype, rank: int, what: str) -> np.ndarray:
    a = np.array(array, dtype=dtype, copy=True)
    if a.ndim != rank:
        raise ValueError(f"{what} must have rank {rank}, got shape {a.shape}")
    a.setflags(write=False)
    return a


def check_prompt_bounds(samples: int, sample_rate: int, tokens: int, frames: int) -> None:
    """Raise :class:`ValueError` unless the sizes are what a recording of at most 30 s can produce.

    Bounds the memory and work a stored voice can cause: the speech LM's prompt is ``tokens`` long
    and the flow's is ``frames`` long, whatever a file claims. Also refuses a voice with no speech
    tokens, which no mode can use.
    """
    seconds = samples / sample_rate
    if seconds > MAX_VOICE_SECONDS + _SECONDS_MARGIN:
        raise ValueError(f"the prompt audio is {seconds:.1f} s long; a voice holds at most {MAX_VOICE_SECONDS:g} s")
    if tokens < 1:
        raise ValueError("it holds no speech tokens")
    if tokens > min(MAX_PROMPT_TOKENS, int((seconds + _SECONDS_MARGIN) * TOKEN_RATE)):
        raise ValueError(f"it holds {tokens} speech tokens, more than {seconds:.1f} s of audio can produce")
    if frames > min(MAX_PROMPT_FRAMES, int((seconds + _SECONDS_MARGIN) * MEL_RATE)):
        raise ValueError(f"it holds {frames} prompt-mel frames, more than {seconds:.1f} s of audio can produce")


@dataclass(frozen=True, eq=False)
class Voice:
    """A saved voice: prompt audio, its transcript and the features a model family needs from it.

    Arrays are copied, converted to their dtypes and made read-only on construction. Two voices
    compare equal when every field and every array is equal.
    """

    name: str
    transcript: str
    language: str  # e.g. "en", "zh"; "" when unknown
    family: Family  # model family the cached features were made for
    speech_tokenizer_sha256: str  # sha256 of the speech-tokenizer file that made the tokens
    audio_24k: np.ndarray  # float32 [N], mono, 24 kHz
    speech_tokens: np.ndarray  # int32 [P]
    embedding: np.ndarray  # float32 [192]
    prompt_mel: np.ndarray  # float32 [T, 80]
    created_at: str = field(default_factory=utc_now)  # ISO 8601 UTC
    sample_rate: int = 24000  # of audio_24k
    format_version: int = FORMAT_VERSION
    # The user's own instruct presets, (name, instruction text) pairs, carried along when a voice is
    # exported so that they travel with it. Stored in the header only when there are any, so a voice
    # without them is byte for byte what earlier versions wrote; earlier readers ignore the key.
    instruct_presets: tuple[tuple[str, str], ...] = ()
    notes: str = ""  # the user's notes about the voice (stored only when not empty)
    # The voice's own pronunciation dictionary, (term, replacement, whole_word, case_sensitive)
    # entries (cosycore.studio.lexicon reads them); stored in the header only when there are any.
    lexicon: tuple[tuple[str, str, bool, bool], ...] = ()
    # Where the transcript came from: "asr" (speech recognition, not edited since), "typed", or ""
    # (not recorded: voices from before transcription existed). Stored only when not empty.
    transcript_source: str = ""

    def __post_init__(self) -> None:
        presets = tuple((str(n), str(t)) for n, t in self.instruct_presets)
        object.__setattr__(self, "instruct_presets", presets)
        lexicon = tuple((str(t), str(r), bool(w), bool(c)) for t, r, w, c in self.lexicon)
        object.__setattr__(self, "lexicon", lexicon)
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a voice needs a non-empty name")
        if self.family not in _FAMILIES:
            raise ValueError(f"family must be one of {', '.join(_FAMILIES)}, got {self.family!r}")
        for name in ARRAY_NAMES:
            dtype, rank = _EXPECTED[name]
            object.__setattr__(self, name, _frozen(getattr(self, name), dtype, rank, name))
        if self.embedding.shape != (EMBEDDING_DIM,):
            raise ValueError(f"embedding must have shape ({EMBEDDING_DIM},), got {self.embedding.shape}")
        if self.prompt_mel.shape[1] != MEL_BINS:
            raise ValueError(f"prompt_mel must be [T, {MEL_BINS}], got {self.prompt_mel.shape}")
        if self.speech_tokens.size and int(self.speech_tokens.min()) < 0:
            raise ValueError("speech tokens must be non-negative")
        if self.speech_tokens.size and int(self.speech_tokens.max()) >= SPEECH_TOKEN_VOCAB:
            raise ValueError(f"speech tokens must be below {SPEECH_TOKEN_VOCAB} (the speech tokenizer's codes), "
                             f"found {int(self.speech_tokens.max())}")
        if isinstance(self.sample_rate, bool) or not isinstance(self.sample_rate, (int, np.integer)) or not (
                SAMPLE_RATES[0] <= self.sample_rate <= SAMPLE_RATES[1]):
            raise ValueError(f"sample_rate must be a whole number of Hz from {SAMPLE_RATES[0]} to {SAMPLE_RATES[1]}, "
                             f"got {self.sample_rate!r}")
        for name in ("audio_24k", "embedding", "prompt_mel"):
            if not np.isfinite(getattr(self, name)).all():
                raise ValueError(f"{name} holds NaN or infinite values")
        check_prompt_bounds(self.audio_24k.shape[0], int(self.sample_rate), self.speech_tokens.shape[0],
                            self.prompt_mel.shape[0])

    @property
    def duration(self) -> float:
        """Length of the prompt audio in seconds (at most :data:`MAX_VOICE_SECONDS`)."""
        return self.audio_24k.shape[0] / self.sample_rate

    def renamed(self, name: str) -> Voice:
        return replace(self, name=name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Voice):
            return NotImplemented
        scalars = ("name", "transcript", "language", "family", "speech_tokenizer_sha256", "created_at",
                   "sample_rate", "format_version", "instruct_presets", "notes", "lexicon", "transcript_source")
        return all(getattr(self, k) == getattr(other, k) for k in scalars) and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in ARRAY_NAMES
        )

    __hash__ = None  # type: ignore[assignment]  # mutable-looking contents; not hashable


# --------------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------------


def _npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def _canonical(header: Mapping[str, Any]) -> bytes:
    body = {k: v for k, v in header.items() if k != "checksum"}
    return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def payload_checksum(header: Mapping[str, Any], arrays: Mapping[str, bytes]) -> str:
    """sha256 over the canonical header (without its checksum) and each array file, in a fixed order."""
    digest = hashlib.sha256(_canonical(header))
    for name in ARRAY_NAMES:
        data = arrays[name]
        digest.update(f"\n{name}:{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def _header(voice: Voice) -> dict[str, Any]:
    header: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "created_at": voice.created_at,
        "name": voice.name,
        "transcript": voice.transcript,
        "language": voice.language,
        "family": voice.family,
        "speech_tokenizer_sha256": voice.speech_tokenizer_sha256,
        "sample_rate": voice.sample_rate,
        "arrays": {
            name: {"dtype": getattr(voice, name).dtype.str, "shape": list(getattr(voice, name).shape)}
            for name in ARRAY_NAMES
        },
    }
    if voice.instruct_presets:  # optional: absent keeps older files' bytes and checksums unchanged
        header["instruct_presets"] = [{"name": n, "text": t} for n, t in voice.instruct_presets]
    if voice.notes:  # absent when empty, so files without notes keep their bytes and checksums
        header["notes"] = voice.notes
    if voice.transcript_source:  # likewise
        header["transcript_source"] = voice.transcript_source
    if voice.lexicon:  # optional, like instruct_presets
        header["lexicon"] = [{"term": t, "replacement": r, "whole_word": w, "case_sensitive": c}
                             for t, r, w, c in voice.lexicon]
    return header


def encode_voice(voice: Voice) -> bytes:
    """The bytes of a ``.cosyvoice`` file for ``voice``."""
    arrays = {name: _npy_bytes(getattr(voice, name)) for name in ARRAY_NAMES}
    header = _header(voice)
    header["checksum"] = {"algorithm": "sha256", "value": payload_checksum(header, arrays)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(_entry_info(HEADER_ENTRY), json.dumps(header, ensure_ascii=False, indent=2))
        for name in ARRAY_NAMES:
            zf.writestr(_entry_info(name + ".npy"), arrays[name])
    return buf.getvalue()


def _entry_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible bytes
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    return info


# --------------------------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------------------------


def _storage_reason(e: OSError) -> str:
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.EROFS:
        return "the folder is on a read-only disk"
    return e.strerror or str(e)


def _fsync_dir(folder: Path) -> None:
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


def _file_mode(path: Path) -> int:
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
            os.fchmod(fd, _file_mode(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
        _fsync_dir(path.parent)
    except OSError as e:
        raise StorageError(
            f"could not save {path}: {_storage_reason(e)}. Nothing was changed"
            + (" (the previous file is intact)." if path.exists() else ".")
        ) from e
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def save_voice(path: Path | str, voice: Voice) -> Path:
    """Write ``voice`` to ``path`` atomically. Returns the path."""
    path = Path(path)
    write_atomic(path, encode_voice(voice))
    logger.info("saved voice %r (%s, %.1f s) to %s", voice.name, voice.family, voice.duration, path)
    return path


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def _not_a_voice(path: Path, why: str) -> InputError:
    return InputError(f"'{path.name}' is not a Cosy Studio voice file ({why}).")


def _damaged(path: Path, why: str) -> InputError:
    return InputError(
        f"the voice file '{path.name}' is damaged or was edited ({why}). "
        "Re-create the voice from its recording, or restore the file from a copy."
    )


def _read_entry(zf: zipfile.ZipFile, name: str, path: Path, limit: int = MAX_ENTRY_BYTES) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise _damaged(path, f"the entry {name} is missing") from None
    if info.file_size > limit:
        raise _damaged(path, f"the entry {name} claims {info.file_size:,} bytes (at most {limit:,} are expected)")
    try:
        with zf.open(info) as fh:
            data = fh.read(limit + 1)  # never more than the limit, whatever the entry claims
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError, OSError,
            RuntimeError) as e:
        raise _damaged(path, f"{name} cannot be read: {e}") from e
    if len(data) > limit:
        raise _damaged(path, f"the entry {name} holds more than {limit:,} bytes")
    return data


def _check_archive(zf: zipfile.ZipFile, path: Path) -> None:
    """Entry count, total uncompressed size and compression ratio, from the directory, before reading."""
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _not_a_voice(path, f"it has {len(infos)} entries; a voice file has {len(ARRAY_NAMES) + 1}")
    total = sum(i.file_size for i in infos)
    if total > MAX_TOTAL_BYTES:
        raise _damaged(path, f"its entries unpack to {total:,} bytes; a voice is at most {MAX_TOTAL_BYTES:,}")
    for i in infos:
        if i.compress_type != zipfile.ZIP_STORED and i.file_size > MAX_COMPRESSION_RATIO * max(i.compress_size, 1):
            raise _damaged(path, f"the entry {i.filename} unpacks to {i.file_size:,} bytes from "
                                 f"{i.compress_size:,} (a zip bomb?)")


def _str_field(header: Mapping[str, Any], key: str, path: Path, *, default: str | None = "",
               limit: int = 1000) -> str:
    value = header.get(key, default)
    if not isinstance(value, str):
        raise _damaged(path, f"'{key}' must be text, not {type(value).__name__}")
    if len(value) > limit:
        raise _damaged(path, f"'{key}' is {len(value):,} characters long (at most {limit:,})")
    return value


def _array_meta(header: Mapping[str, Any], name: str, path: Path) -> tuple[int, ...]:
    """The shape the header lists for array ``name``, checked for dtype, rank and bounds."""
    listed = header.get("arrays")
    meta = listed.get(name) if isinstance(listed, dict) else None
    if not isinstance(meta, dict):
        raise _damaged(path, f"the header does not describe {name}")
    dtype, rank = _EXPECTED[name]
    shape = meta.get("shape")
    if (not isinstance(shape, list) or len(shape) != rank
            or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= MAX_TOTAL_BYTES for d in shape)):
        raise _damaged(path, f"{name} has the shape {shape!r}; a rank-{rank} list of sizes is expected")
    if meta.get("dtype") != dtype.str:
        raise _damaged(path, f"{name} has the dtype {meta.get('dtype')!r}; {dtype.str} is expected")
    return tuple(shape)


def _check_header(header: dict[str, Any], path: Path) -> dict[str, Any]:
    """Types, finite values and sizes of every header field, before any array is read."""
    _str_field(header, "name", path, default=None, limit=4 * MAX_NAME_CHARS)
    for key in ("language", "created_at", "speech_tokenizer_sha256"):
        _str_field(header, key, path)
    _str_field(header, "transcript", path, limit=MAX_TRANSCRIPT_CHARS)
    _str_field(header, "transcript_source", path, limit=16)
    if header.get("family") not in _FAMILIES:
        raise _damaged(path, f"its model family {header.get('family')!r} is not one of {', '.join(_FAMILIES)}")
    rate = header.get("sample_rate", 24000)
    if isinstance(rate, bool) or not isinstance(rate, int) or not SAMPLE_RATES[0] <= rate <= SAMPLE_RATES[1]:
        raise _damaged(path, f"sample_rate is {rate!r}; a whole number of Hz from {SAMPLE_RATES[0]} to "
                             f"{SAMPLE_RATES[1]} is expected")
    shapes = {name: _array_meta(header, name, path) for name in ARRAY_NAMES}
    if shapes["embedding"] != (EMBEDDING_DIM,) or shapes["prompt_mel"][1] != MEL_BINS:
        raise _damaged(path, "its embedding or prompt mel has the wrong size")
    try:
        check_prompt_bounds(shapes["audio_24k"][0], rate, shapes["speech_tokens"][0], shapes["prompt_mel"][0])
    except ValueError as e:
        raise _damaged(path, str(e)) from e
    return header


def _read_header(zf: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    if HEADER_ENTRY not in zf.namelist():
        raise _not_a_voice(path, f"it has no {HEADER_ENTRY}")
    _check_archive(zf, path)
    raw = _read_entry(zf, HEADER_ENTRY, path, MAX_HEADER_BYTES)
    try:
        header = loads_strict_json(raw)  # no NaN/Infinity, no nesting that exhausts the parser
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise _damaged(path, f"{HEADER_ENTRY} is not valid JSON: {e}") from e
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise _not_a_voice(path, f"{HEADER_ENTRY} does not say format '{FORMAT_NAME}'")
    version = header.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _damaged(path, f"format_version is {version!r}")
    if version > FORMAT_VERSION:
        raise InputError(
            f"the voice file '{path.name}' was made by a newer Cosy Studio (voice format {version}; this "
            f"version reads up to {FORMAT_VERSION}). Update the app to use it."
        )
    return _check_header(header, path)


def _decode_array(data: bytes, name: str, header: Mapping[str, Any], path: Path) -> np.ndarray:
    shape = _array_meta(header, name, path)
    dtype, _rank = _EXPECTED[name]
    buf = io.BytesIO(data)
    try:  # the .npy header is checked before numpy allocates what it claims
        version = np.lib.format.read_magic(buf)
        if version == (1, 0):
            npy_shape, fortran, npy_dtype = np.lib.format.read_array_header_1_0(buf)
        elif version == (2, 0):
            npy_shape, fortran, npy_dtype = np.lib.format.read_array_header_2_0(buf)
        else:
            raise ValueError(f"unsupported .npy version {version}")
        if tuple(npy_shape) != shape or npy_dtype != dtype or fortran:
            raise ValueError(f"its .npy header says dtype {npy_dtype} and shape {npy_shape}, the voice header "
                             f"{dtype} and {shape}")
        if len(data) - buf.tell() != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
            raise ValueError("its length does not match its shape")
        buf.seek(0)
        array = np.load(buf, allow_pickle=False)
    except (ValueError, OSError, EOFError, TypeError, SyntaxError) as e:
        raise _damaged(path, f"{name} is not a valid array: {e}") from e
    return array


@contextlib.contextmanager
def _open_zip(path: Path) -> Iterator[zipfile.ZipFile]:
    try:
        st = path.stat()
    except OSError:
        raise InputError(f"the voice file '{path}' does not exist.") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_a_voice(path, "it is not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise _not_a_voice(path, f"it is {st.st_size:,} bytes; a voice file is at most {MAX_FILE_BYTES:,}")
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as e:
        raise _not_a_voice(path, "it is not a zip archive") from e
    except OSError as e:
        raise InputError(f"the voice file '{path}' cannot be read: {_storage_reason(e)}.") from e
    with zf:
        yield zf


def _header_presets(header: Mapping[str, Any], path: Path) -> tuple[tuple[str, str], ...]:
    raw = header.get("instruct_presets", [])
    if not isinstance(raw, list) or not all(
        isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("text"), str) for e in raw
    ):
        raise _damaged(path, "its instruct_presets are not a list of name/text pairs")
    return tuple((e["name"], e["text"]) for e in raw)


def _header_lexicon(header: Mapping[str, Any], path: Path) -> tuple[tuple[str, str, bool, bool], ...]:
    raw = header.get("lexicon", [])
    if not isinstance(raw, list) or not all(
        isinstance(e, dict) and isinstance(e.get("term"), str) and isinstance(e.get("replacement"), str)
        and isinstance(e.get("whole_word", True), bool) and isinstance(e.get("case_sensitive", False), bool)
        for e in raw
    ):
        raise _damaged(path, "its lexicon is not a list of term/replacement entries")
    return tuple((e["term"], e["replacement"], e.get("whole_word", True), e.get("case_sensitive", False))
                 for e in raw)


def load_voice(path: Path | str) -> Voice:
    """Read and verify a ``.cosyvoice`` file.

    Raises :class:`InputError` when the file is missing or not a voice file, was made by a newer
    version of the app, fails its checksum ("damaged or was edited"), or holds values no recording
    can produce (every size is checked before it is allocated; see ``docs/security.md``).
    """
    path = Path(path)
    try:
        return _load_voice(path)
    except CosyError:
        raise
    except (MemoryError, RecursionError, OverflowError, ValueError, TypeError, KeyError, OSError) as e:
        raise _damaged(path, f"{type(e).__name__}: {e}") from e


def _load_voice(path: Path) -> Voice:
    with _open_zip(path) as zf:
        header = _read_header(zf, path)
        arrays = {name: _read_entry(zf, name + ".npy", path) for name in ARRAY_NAMES}
    checksum = header.get("checksum")
    stored = checksum.get("value") if isinstance(checksum, dict) else None
    if stored != payload_checksum(header, arrays):
        raise _damaged(path, "its checksum does not match its contents")
    decoded = {name: _decode_array(arrays[name], name, header, path) for name in ARRAY_NAMES}
    try:
        return Voice(
            name=str(header["name"]),
            transcript=str(header.get("transcript", "")),
            language=str(header.get("language", "")),
            family=header["family"],
            speech_tokenizer_sha256=str(header.get("speech_tokenizer_sha256", "")),
            created_at=str(header.get("created_at", "")),
            sample_rate=int(header.get("sample_rate", 24000)),
            format_version=int(header["format_version"]),
            instruct_presets=_header_presets(header, path),
            notes=str(header.get("notes", "")),
            lexicon=_header_lexicon(header, path),
            transcript_source=str(header.get("transcript_source", "")),
            **decoded,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise _damaged(path, f"its contents are inconsistent: {e}") from e


# --------------------------------------------------------------------------------------------
# Library
# --------------------------------------------------------------------------------------------

_UNSAFE_NAME_CHARS = re.compile(r'[/\\:*?"<>|]')
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}


def sanitize_voice_name(name: str) -> str:
    """A display name safe to show and store: NFC, no control or path characters, ≤ 64 chars.

    Raises :class:`InputError` if nothing is left.
    """
    text = unicodedata.normalize("NFC", str(name))
    text = "".join(" " if unicodedata.category(c).startswith("C") else c for c in text)
    text = _UNSAFE_NAME_CHARS.sub(" ", text)
    text = " ".join(text.split()).strip(" .")
    text = text[:MAX_NAME_CHARS].rstrip(" .")
    if not text:
        raise InputError(f"{name!r} cannot be used as a voice name; use letters or digits.")
    return text


def voice_file_stem(name: str) -> str:
    """A portable file name stem for a (sanitised) voice name."""
    stem = re.sub(r"[^\w\-]+", "_", name.casefold()).strip("_.") or "voice"
    if stem in _WINDOWS_RESERVED:
        stem = "_" + stem
    return stem[:MAX_NAME_CHARS]


def default_voices_dir() -> Path:
    """The voice library folder: ``$COSY_VOICES_DIR`` if set, else ``<user data dir>/CosyStudio/voices``.

    The user data dir comes from platformdirs (``~/.local/share`` on Linux, ``~/Library/Application
    Support`` on macOS, ``%LOCALAPPDATA%`` on Windows). Nothing is created here.
    """
    override = os.environ.get(VOICES_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_data_path(APP_DIR_NAME, appauthor=False) / "voices"


@dataclass(frozen=True)
class VoiceInfo:
    """A voice as listed by :class:`VoiceLibrary` (read from the header only)."""

    name: str
    path: Path
    family: str
    language: str
    transcript: str
    created_at: str
    duration: float  # seconds


@dataclass(frozen=True)
class BrokenVoice:
    """A file in the voices folder that cannot be used, and why (shown, never deleted)."""

    path: Path
    reason: str  # the InputError's message: what is wrong and what to do


@dataclass(frozen=True)
class VoiceScan:
    """What :meth:`VoiceLibrary.scan` found: the usable voices (by name) and the broken files."""

    voices: tuple[VoiceInfo, ...]
    broken: tuple[BrokenVoice, ...]


def _read_info(path: Path) -> VoiceInfo:
    try:
        with _open_zip(path) as zf:
            header = _read_header(zf, path)  # types, finite values and sizes checked
    except CosyError:
        raise
    except (MemoryError, RecursionError, OverflowError, ValueError, TypeError, KeyError, OSError) as e:
        raise _damaged(path, f"{type(e).__name__}: {e}") from e
    samples = header["arrays"]["audio_24k"]["shape"][0]
    return VoiceInfo(
        name=header["name"], path=path, family=header["family"],
        language=header.get("language", ""), transcript=header.get("transcript", ""),
        created_at=header.get("created_at", ""),
        duration=samples / header.get("sample_rate", 24000),
    )


class VoiceLibrary:
    """A folder of ``.cosyvoice`` files, addressed by voice name (unique, case-insensitive).

    A file that cannot be read never stops the library: :meth:`scan` reports it as broken, with
    the reason, and :meth:`list` leaves it out. Two files with the same name resolve to the first
    one that loads.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._lock = threading.RLock()

    def _files(self) -> builtins.list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.glob(f"*{VOICE_SUFFIX}") if not p.is_dir())

    def scan(self) -> VoiceScan:
        """Every voice file: the readable ones sorted by name, the broken ones with their reason."""
        infos: builtins.list[VoiceInfo] = []
        broken: builtins.list[BrokenVoice] = []
        try:
            files = self._files()
        except OSError as e:  # an unreadable folder is reported like a broken file; nothing stops
            reason = f"the voices folder {self.root} cannot be read: {_storage_reason(e)}."
            logger.warning("%s", reason)
            return VoiceScan((), (BrokenVoice(self.root, reason),))
        for path in files:
            try:
                infos.append(_read_info(path))
            except InputError as e:
                logger.warning("skipping %s: %s", path, e)
                broken.append(BrokenVoice(path, str(e)))
        infos.sort(key=lambda i: (i.name.casefold(), i.name, str(i.path)))
        return VoiceScan(tuple(infos), tuple(broken))

    def list(self) -> builtins.list[VoiceInfo]:
        """Every readable voice, sorted by name. Unreadable files are skipped with a warning."""
        return builtins.list(self.scan().voices)

    def broken(self) -> builtins.list[BrokenVoice]:
        """The files in the folder that are not usable voices, with the reason for each."""
        return builtins.list(self.scan().broken)

    def names(self) -> builtins.list[str]:
        return [info.name for info in self.list()]

    def _matches(self, name: str) -> builtins.list[VoiceInfo]:
        key = sanitize_voice_name(name).casefold()
        return [i for i in self.list() if i.name.casefold() == key]

    def _find(self, name: str) -> VoiceInfo | None:
        matches = self._matches(name)
        return matches[0] if matches else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name) is not None

    def get(self, name: str) -> Voice:
        """Load and verify the voice called ``name``.

        When several files carry the name (copied in by hand), the first that loads is used; only
        when none does is the first one's error raised.
        """
        matches = self._matches(name)
        if not matches:
            raise InputError(f"there is no saved voice called {name!r}.")
        first: InputError | None = None
        for info in matches:
            try:
                return load_voice(info.path)
            except InputError as e:
                logger.warning("voice %r in %s cannot be used: %s", info.name, info.path, e)
                first = first or e
        assert first is not None
        raise first

    def _unique_name(self, wanted: str, taken: set[str]) -> str:
        if wanted.casefold() not in taken:
            return wanted
        for i in range(2, 10_000):
            suffix = f" ({i})"
            candidate = wanted[: MAX_NAME_CHARS - len(suffix)].rstrip(" .") + suffix
            if candidate.casefold() not in taken:
                return candidate
        raise InputError(f"too many voices are called {wanted!r}; choose another name.")

    def _free_path(self, name: str, keep: Path | None = None) -> Path:
        stem = voice_file_stem(name)
        for i in range(1, 10_000):
            path = self.root / f"{stem}{'' if i == 1 else f'-{i}'}{VOICE_SUFFIX}"
            if path == keep or not path.exists():
                return path
        raise StorageError(f"no free file name for the voice {name!r} in {self.root}")

    def add(self, voice: Voice) -> VoiceInfo:
        """Store ``voice``; its name is sanitised and, if taken, suffixed " (2)", " (3)", …"""
        with self._lock:
            taken = {n.casefold() for n in self.names()}
            name = self._unique_name(sanitize_voice_name(voice.name), taken)
            stored = voice if name == voice.name else voice.renamed(name)
            path = save_voice(self._free_path(name), stored)
            return _read_info(path)

    def rename(self, old: str, new: str) -> VoiceInfo:
        """Give the voice ``old`` the name ``new`` (which must not belong to another voice)."""
        with self._lock:
            info = self._find(old)
            if info is None:
                raise InputError(f"there is no saved voice called {old!r}.")
            name = sanitize_voice_name(new)
            clash = self._find(name)
            if clash is not None and clash.path != info.path:
                raise InputError(f"a voice called {clash.name!r} already exists; choose another name.")
            voice = load_voice(info.path).renamed(name)
            target = self._free_path(name, keep=info.path)
            save_voice(target, voice)
            if target != info.path:
                try:
                    info.path.unlink()
                except OSError as e:
                    target.unlink(missing_ok=True)
                    raise StorageError(f"could not rename {info.path}: {_storage_reason(e)}") from e
            return _read_info(target)

    def update(self, name: str, *, transcript: str | None = None, language: str | None = None,
               notes: str | None = None, transcript_source: str = "typed") -> VoiceInfo:
        """Change the transcript, language or notes of the voice ``name`` (None keeps a field), in place.

        A changed transcript is marked with ``transcript_source`` ("typed" unless speech recognition made it).
        """
        with self._lock:
            info = self._find(name)
            if info is None:
                raise InputError(f"there is no saved voice called {name!r}.")
            voice = load_voice(info.path)
            new_transcript = voice.transcript if transcript is None else transcript.strip()
            edited = replace(
                voice,
                transcript=new_transcript,
                transcript_source=(voice.transcript_source if new_transcript == voice.transcript
                                   else transcript_source if new_transcript else ""),
                language=voice.language if language is None else language.strip(),
                notes=voice.notes if notes is None else notes.strip(),
            )
            if edited == voice:
                return info
            save_voice(info.path, edited)
            return _read_info(info.path)

    def replace(self, voice: Voice) -> VoiceInfo:
        """Save ``voice`` over the library's voice of the same name (e.g. refreshed for another model)."""
        with self._lock:
            info = self._find(voice.name)
            if info is None:
                raise InputError(f"there is no saved voice called {voice.name!r}.")
            save_voice(info.path, voice)
            return _read_info(info.path)

    def remove(self, name: str) -> None:
        """Delete the voice called ``name``."""
        with self._lock:
            info = self._find(name)
            if info is None:
                raise InputError(f"there is no saved voice called {name!r}.")
            try:
                info.path.unlink()
            except OSError as e:
                raise StorageError(f"could not delete {info.path}: {_storage_reason(e)}") from e
            logger.info("removed voice %r (%s)", info.name, info.path)
