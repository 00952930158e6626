"""The ``.cosyvoice`` file, one per saved voice: its bytes (:func:`encode_voice`, :func:`save_voice`)
and reading them back with every check (:func:`load_voice`).

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

import contextlib
import hashlib
import io
import json
import logging
import stat
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic_write import storage_reason, write_atomic
from ..errors import CosyError, InputError
from ..safety import loads_strict_json
from .voice import (
    ARRAY_NAMES,
    EMBEDDING_DIM,
    EXPECTED_ARRAYS,
    FAMILIES,
    FORMAT_VERSION,
    MAX_NAME_CHARS,
    MEL_BINS,
    SAMPLE_RATES,
    Voice,
    check_prompt_bounds,
    clean_tags,
)

logger = logging.getLogger(__name__)

FORMAT_NAME = "cosy-studio-voice"
VOICE_SUFFIX = ".cosyvoice"
HEADER_ENTRY = "voice.json"
MAX_HEADER_BYTES = 1 << 20  # voice.json: a name, a transcript and a few numbers
MAX_TRANSCRIPT_CHARS = 10_000
MAX_ENTRIES = 16  # a voice file has 5
MAX_TOTAL_BYTES = 16 << 20  # all entries uncompressed; 30 s of 24 kHz float32 audio is 2.9 MB
MAX_ENTRY_BYTES = MAX_TOTAL_BYTES  # refuse absurd entries instead of reading them into memory
MAX_FILE_BYTES = MAX_TOTAL_BYTES + MAX_HEADER_BYTES  # the .cosyvoice file itself
MAX_COMPRESSION_RATIO = 50  # our files are stored; a deflated entry may shrink, but not like a bomb


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
    if voice.tags:  # optional, like notes
        header["tags"] = list(voice.tags)
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


def damaged_error(path: Path, why: str) -> InputError:
    return InputError(
        f"the voice file '{path.name}' is damaged or was edited ({why}). "
        "Re-create the voice from its recording, or restore the file from a copy."
    )


def _read_entry(zf: zipfile.ZipFile, name: str, path: Path, limit: int = MAX_ENTRY_BYTES) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise damaged_error(path, f"the entry {name} is missing") from None
    if info.file_size > limit:
        raise damaged_error(path, f"the entry {name} claims {info.file_size:,} bytes (at most {limit:,} are expected)")
    try:
        with zf.open(info) as fh:
            data = fh.read(limit + 1)  # never more than the limit, whatever the entry claims
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError, OSError,
            RuntimeError) as e:
        raise damaged_error(path, f"{name} cannot be read: {e}") from e
    if len(data) > limit:
        raise damaged_error(path, f"the entry {name} holds more than {limit:,} bytes")
    return data


def _check_archive(zf: zipfile.ZipFile, path: Path) -> None:
    """Entry count, total uncompressed size and compression ratio, from the directory, before reading."""
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _not_a_voice(path, f"it has {len(infos)} entries; a voice file has {len(ARRAY_NAMES) + 1}")
    total = sum(i.file_size for i in infos)
    if total > MAX_TOTAL_BYTES:
        raise damaged_error(path, f"its entries unpack to {total:,} bytes; a voice is at most {MAX_TOTAL_BYTES:,}")
    for i in infos:
        if i.compress_type != zipfile.ZIP_STORED and i.file_size > MAX_COMPRESSION_RATIO * max(i.compress_size, 1):
            raise damaged_error(path, f"the entry {i.filename} unpacks to {i.file_size:,} bytes from "
                                 f"{i.compress_size:,} (a zip bomb?)")


def _str_field(header: Mapping[str, Any], key: str, path: Path, *, default: str | None = "",
               limit: int = 1000) -> str:
    value = header.get(key, default)
    if not isinstance(value, str):
        raise damaged_error(path, f"'{key}' must be text, not {type(value).__name__}")
    if len(value) > limit:
        raise damaged_error(path, f"'{key}' is {len(value):,} characters long (at most {limit:,})")
    return value


def _array_meta(header: Mapping[str, Any], name: str, path: Path) -> tuple[int, ...]:
    """The shape the header lists for array ``name``, checked for dtype, rank and bounds."""
    listed = header.get("arrays")
    meta = listed.get(name) if isinstance(listed, dict) else None
    if not isinstance(meta, dict):
        raise damaged_error(path, f"the header does not describe {name}")
    dtype, rank = EXPECTED_ARRAYS[name]
    shape = meta.get("shape")
    if (not isinstance(shape, list) or len(shape) != rank
            or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= MAX_TOTAL_BYTES for d in shape)):
        raise damaged_error(path, f"{name} has the shape {shape!r}; a rank-{rank} list of sizes is expected")
    if meta.get("dtype") != dtype.str:
        raise damaged_error(path, f"{name} has the dtype {meta.get('dtype')!r}; {dtype.str} is expected")
    return tuple(shape)


def _check_header(header: dict[str, Any], path: Path) -> dict[str, Any]:
    """Types, finite values and sizes of every header field, before any array is read."""
    _str_field(header, "name", path, default=None, limit=4 * MAX_NAME_CHARS)
    for key in ("language", "created_at", "speech_tokenizer_sha256"):
        _str_field(header, key, path)
    _str_field(header, "transcript", path, limit=MAX_TRANSCRIPT_CHARS)
    _str_field(header, "transcript_source", path, limit=16)
    if header.get("family") not in FAMILIES:
        raise damaged_error(path, f"its model family {header.get('family')!r} is not one of {', '.join(FAMILIES)}")
    rate = header.get("sample_rate", 24000)
    if isinstance(rate, bool) or not isinstance(rate, int) or not SAMPLE_RATES[0] <= rate <= SAMPLE_RATES[1]:
        raise damaged_error(path, f"sample_rate is {rate!r}; a whole number of Hz from {SAMPLE_RATES[0]} to "
                             f"{SAMPLE_RATES[1]} is expected")
    shapes = {name: _array_meta(header, name, path) for name in ARRAY_NAMES}
    if shapes["embedding"] != (EMBEDDING_DIM,) or shapes["prompt_mel"][1] != MEL_BINS:
        raise damaged_error(path, "its embedding or prompt mel has the wrong size")
    try:
        check_prompt_bounds(shapes["audio_24k"][0], rate, shapes["speech_tokens"][0], shapes["prompt_mel"][0])
    except ValueError as e:
        raise damaged_error(path, str(e)) from e
    return header


def read_header(zf: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    if HEADER_ENTRY not in zf.namelist():
        raise _not_a_voice(path, f"it has no {HEADER_ENTRY}")
    _check_archive(zf, path)
    raw = _read_entry(zf, HEADER_ENTRY, path, MAX_HEADER_BYTES)
    try:
        header = loads_strict_json(raw)  # no NaN/Infinity, no nesting that exhausts the parser
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise damaged_error(path, f"{HEADER_ENTRY} is not valid JSON: {e}") from e
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise _not_a_voice(path, f"{HEADER_ENTRY} does not say format '{FORMAT_NAME}'")
    version = header.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise damaged_error(path, f"format_version is {version!r}")
    if version > FORMAT_VERSION:
        raise InputError(
            f"the voice file '{path.name}' was made by a newer Cosy Studio (voice format {version}; this "
            f"version reads up to {FORMAT_VERSION}). Update the app to use it."
        )
    return _check_header(header, path)


def _decode_array(data: bytes, name: str, header: Mapping[str, Any], path: Path) -> np.ndarray:
    shape = _array_meta(header, name, path)
    dtype, _rank = EXPECTED_ARRAYS[name]
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
        raise damaged_error(path, f"{name} is not a valid array: {e}") from e
    return array


@contextlib.contextmanager
def open_zip(path: Path) -> Iterator[zipfile.ZipFile]:
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
        raise InputError(f"the voice file '{path}' cannot be read: {storage_reason(e)}.") from e
    with zf:
        yield zf


def _header_presets(header: Mapping[str, Any], path: Path) -> tuple[tuple[str, str], ...]:
    raw = header.get("instruct_presets", [])
    if not isinstance(raw, list) or not all(
        isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("text"), str) for e in raw
    ):
        raise damaged_error(path, "its instruct_presets are not a list of name/text pairs")
    return tuple((e["name"], e["text"]) for e in raw)


def header_tags(header: Mapping[str, Any], path: Path) -> tuple[str, ...]:
    raw = header.get("tags", [])
    if not isinstance(raw, list):
        raise damaged_error(path, "its tags are not a list of words")
    try:
        return clean_tags(raw)
    except ValueError as e:
        raise damaged_error(path, f"its tags are wrong: {e}") from e


def _header_lexicon(header: Mapping[str, Any], path: Path) -> tuple[tuple[str, str, bool, bool], ...]:
    raw = header.get("lexicon", [])
    if not isinstance(raw, list) or not all(
        isinstance(e, dict) and isinstance(e.get("term"), str) and isinstance(e.get("replacement"), str)
        and isinstance(e.get("whole_word", True), bool) and isinstance(e.get("case_sensitive", False), bool)
        for e in raw
    ):
        raise damaged_error(path, "its lexicon is not a list of term/replacement entries")
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
        raise damaged_error(path, f"{type(e).__name__}: {e}") from e


def _load_voice(path: Path) -> Voice:
    with open_zip(path) as zf:
        header = read_header(zf, path)
        arrays = {name: _read_entry(zf, name + ".npy", path) for name in ARRAY_NAMES}
    checksum = header.get("checksum")
    stored = checksum.get("value") if isinstance(checksum, dict) else None
    if stored != payload_checksum(header, arrays):
        raise damaged_error(path, "its checksum does not match its contents")
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
            tags=header_tags(header, path),
            **decoded,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise damaged_error(path, f"its contents are inconsistent: {e}") from e


