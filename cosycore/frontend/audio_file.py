"""Reading audio files: the one reader of the engine, the CLI and the app, in bounded memory.

Every recording the project reads (a voice prompt, a voice conversion's source, a clip to
transcribe, a conformance fixture) goes through here:

* :func:`checked_source` refuses what cannot be audio before it is decoded (missing, not a file,
  empty, text or an image by its first bytes, a WAV whose data chunk is cut short: libsndfile would
  silently read the part present);
* :func:`probe_audio` reads only the header (rate, channels, frames);
* :func:`audio_blocks` decodes in blocks of at most :data:`BLOCK_BYTES`, mixing each block down to
  mono at once and stopping after ``max_seconds`` (plus one frame, to tell "longer" from "exactly as
  long"), so a 10-minute, 192 kHz, 6-channel file costs no more memory than its mono head;
* :func:`read_audio` joins the blocks and checks the samples (none, NaN or infinite);
  :func:`load_audio` is :func:`read_audio` of the whole file.

A format libsndfile cannot decode is handed, for paths only, to audioread's backends (ffmpeg,
GStreamer, Core Audio, …), in one place (:func:`_audioread_open`), block by block like libsndfile's.
Errors are :class:`~cosycore.errors.InputError` naming the file and saying what to do.
"""

from __future__ import annotations

import io
import logging
import math
import os
import struct
import warnings
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO

import numpy as np
import soundfile as sf

from ..errors import InputError

logger = logging.getLogger(__name__)

AudioSource = str | os.PathLike | IO[bytes]

MAX_SAMPLE_RATE = 768_000  # beyond any recording format; a header claiming more is damaged
MAX_CHANNELS = 64
BLOCK_BYTES = 4 << 20  # one decoded block, all channels, float32
_FORMATS = "Use WAV, FLAC, OGG or MP3."


# --------------------------------------------------------------------------------------------
# Checks before decoding
# --------------------------------------------------------------------------------------------


def _source_name(source: AudioSource) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<audio stream>"))


def _wav_truncation(buf: IO[bytes], total: int) -> str | None:
    """If ``buf`` is a RIFF/WAVE file whose data chunk is cut short, say how; else None.

    libsndfile silently reads whatever part of a truncated data chunk is present, which would turn
    a half-downloaded prompt into a shorter prompt that no longer matches its transcript.
    """
    start = buf.tell()
    try:
        header = buf.read(12)
        if len(header) < 12 or header[:4] != b"RIFF" or header[8:12] != b"WAVE":
            return None
        pos = 12
        for _ in range(64):  # a WAV has a handful of chunks; stop early on nonsense
            head = buf.read(8)
            if len(head) < 8:
                return None
            chunk_id, size = head[:4], struct.unpack("<I", head[4:])[0]
            pos += 8
            available = total - pos
            if chunk_id == b"data":
                if size in (0, 0xFFFFFFFF) or size <= available:
                    return None  # 0 / 0xFFFFFFFF: size left open by a streaming writer
                return f"its header announces {size} bytes of audio but only {available} are present"
            pos += size + (size & 1)
            if pos > total:
                return None
            buf.seek(start + pos)
        return None
    finally:
        buf.seek(start)


def _remaining_bytes(buf: IO[bytes]) -> int:
    start = buf.tell()
    end = buf.seek(0, io.SEEK_END)
    buf.seek(start)
    return end - start


def _check_not_truncated(source: AudioSource, name: str) -> None:
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            problem = _wav_truncation(fh, os.path.getsize(source))
    else:
        problem = _wav_truncation(source, _remaining_bytes(source))
    if problem:
        raise InputError(f"'{name}' is a truncated WAV file: {problem}. Re-export or re-download it.")


# Files people pick by mistake, by their first bytes (no audio format starts with these).
_NOT_AUDIO_MAGIC = (
    (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"), (b"PK\x03\x04", "a ZIP archive (or a .docx/.odt document)"),
    (b"\x7fELF", "a program"), (b"\x1f\x8b", "a gzip archive"),
)
_TEXT_CONTROLS = frozenset(range(32)) - frozenset(b"\t\n\r\f\v\x1b") | {127}
SNIFF_BYTES = 2048


def _as_text(head: bytes) -> str | None:
    """``head`` as text when it is UTF-8 (or UTF-16 with a byte-order mark, as Windows writes
    "Unicode" text) without control characters; no audio file's header is."""
    utf16 = head[:2] in (b"\xff\xfe", b"\xfe\xff")
    for cut in range(4):  # the last character may be cut off by the read
        try:
            text = head[: len(head) - cut].decode("utf-16" if utf16 else "utf-8")
        except UnicodeDecodeError:
            continue
        return text if text and not any(ord(c) in _TEXT_CONTROLS for c in text) else None
    return None


def _not_audio(head: bytes, name: str) -> InputError | None:
    """A typed error when the first bytes show a file that is not audio (text, an image, …).

    Found before any decoder runs, so a text file named ``.mp3`` gets this message instead of
    libsndfile's "File does not exist" and the MPEG decoder's notes on stderr.
    """
    what = next((kind for magic, kind in _NOT_AUDIO_MAGIC if head.startswith(magic)), None)
    preview = ""
    if what is None:
        text = _as_text(head)
        if text is None:
            return None
        what = "a text file"
        preview = " ".join(text.split())[:40]
        preview = f" (it starts with {preview!r})" if preview else ""
    return InputError(f"'{name}' could not be decoded as audio: it is {what}{preview}, not a recording. "
                      "Choose an audio file (WAV, FLAC, OGG or MP3).")


def _head(source: AudioSource) -> bytes:
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            return fh.read(SNIFF_BYTES)
    start = source.tell()
    try:
        return source.read(SNIFF_BYTES)
    finally:
        source.seek(start)


def checked_source(source: AudioSource) -> tuple[AudioSource, str]:
    """``source`` ready for libsndfile (seekable) and its name for messages.

    Raises :class:`InputError` when it is missing, not a file, empty, not audio (text, an image, a
    document: told by its first bytes) or truncated.
    """
    name = _source_name(source)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise InputError(f"audio file '{name}' does not exist or is not a file.")
        if path.stat().st_size == 0:
            raise InputError(f"audio file '{name}' is empty (0 bytes).")
    elif not getattr(source, "seekable", lambda: False)():
        source = io.BytesIO(source.read())  # the truncation check and libsndfile both seek
    if not isinstance(source, (str, os.PathLike)) and _remaining_bytes(source) == 0:
        raise InputError(f"audio stream '{name}' is empty (0 bytes).")
    if (error := _not_audio(_head(source), name)) is not None:
        raise error
    _check_not_truncated(source, name)
    return source, name


def _check_format(sr: int, channels: int, name: str) -> None:
    if not 0 < sr <= MAX_SAMPLE_RATE:
        raise InputError(f"'{name}' claims a sample rate of {sr} Hz; the file is damaged. Re-export it.")
    if not 0 < channels <= MAX_CHANNELS:
        raise InputError(f"'{name}' has {channels} channels; a voice recording has 1 or 2. Export it as mono.")


def _not_decodable(name: str, error: Exception) -> InputError:
    return InputError(f"'{name}' is not a readable audio file or is corrupt ({error}). {_FORMATS}")


# --------------------------------------------------------------------------------------------
# Decoders beyond libsndfile
# --------------------------------------------------------------------------------------------


def _audioread_open(path: str, name: str, sf_error: Exception,
                    ) -> tuple[int, int, float | None, Generator[bytes, None, None]]:
    """Open a path libsndfile refused with audioread (librosa's own fallback, called directly: librosa's
    wrapper is deprecated and imports numba, seconds of start-up for a file that usually fails anyway).
    Returns the rate, channels, whole length in seconds (None: unknown) and the 16-bit interleaved PCM
    buffers; the file closes when they are read or dropped."""
    import audioread

    logger.info("soundfile cannot decode %s (%s); trying audioread", name, sf_error)
    try:
        with warnings.catch_warnings():
            # its backends are imported by the first open; the raw one imports aifc, audioop and sunau
            warnings.simplefilter("ignore", DeprecationWarning)
            fh = audioread.audio_open(path)
        rate, channels, seconds = int(fh.samplerate), int(fh.channels), float(fh.duration or 0.0)
    except Exception as e:  # audioread raises several unrelated types; all mean "not decodable"
        raise _not_decodable(name, sf_error) from e

    def buffers() -> Generator[bytes, None, None]:
        with fh:
            try:
                yield from fh
            except Exception as e:  # a backend that fails mid-file
                raise InputError(f"'{name}' is corrupt or cut short ({e}); re-export it. {_FORMATS}") from e

    return rate, channels, (seconds if seconds > 0 else None), buffers()


def _pcm16_blocks(buffers: Iterator[bytes], channels: int, limit: int | None) -> Iterator[np.ndarray]:
    """Mono float32 blocks (the channels' mean, as libsndfile's path mixes) of 16-bit interleaved PCM,
    ``limit`` frames at most. A frame split across two buffers is carried over."""
    carry = b""
    got = 0
    frame_bytes = 2 * channels
    for buf in buffers:
        data = carry + bytes(buf)
        whole = len(data) - len(data) % frame_bytes
        carry = data[whole:]
        pcm = np.frombuffer(data[:whole], dtype="<i2").reshape(-1, channels)
        if limit is not None:
            pcm = pcm[: limit - got]
        if pcm.shape[0]:
            got += pcm.shape[0]
            yield pcm.mean(axis=1, dtype=np.float32) / np.float32(32768.0)
        if limit is not None and got >= limit:
            return


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def probe_audio(source: AudioSource) -> tuple[str, int, int, int]:
    """``(name, sample rate, channels, frames)`` from the header only (frames 0: the format does not say)."""
    checked, name = checked_source(source)
    try:
        if isinstance(checked, (str, os.PathLike)):
            info = sf.info(checked)
        else:
            pos = checked.tell()
            info = sf.info(checked)
            checked.seek(pos)
        return name, int(info.samplerate), int(info.channels), int(info.frames)
    except (sf.SoundFileError, RuntimeError) as e:
        if not isinstance(checked, (str, os.PathLike)):
            raise InputError(f"'{name}' could not be decoded as audio ({e}). {_FORMATS}") from e
        rate, channels, seconds, buffers = _audioread_open(os.fspath(checked), name, e)
        buffers.close()  # closing the generator closes the file
        return name, rate, channels, 0 if seconds is None else int(seconds * rate)


def _frame_limit(sr: int, max_seconds: float | None) -> int | None:
    return None if max_seconds is None else math.ceil(max_seconds * sr) + 1


def _open(source: AudioSource, max_seconds: float | None) -> tuple[str, int, float | None, Iterator[np.ndarray]]:
    """The file's name, rate, whole length (None: unknown) and its mono blocks."""
    checked, name = checked_source(source)
    try:
        fh = sf.SoundFile(checked)
    except (sf.SoundFileError, RuntimeError) as sf_error:
        if not isinstance(checked, (str, os.PathLike)):
            raise InputError(f"'{name}' could not be decoded as audio ({sf_error}). {_FORMATS}") from sf_error
        sr, channels, total, buffers = _audioread_open(os.fspath(checked), name, sf_error)
        try:
            _check_format(sr, channels, name)
        except InputError:
            buffers.close()
            raise
        return name, sr, total, _pcm16_blocks(buffers, channels, _frame_limit(sr, max_seconds))
    sr, channels = int(fh.samplerate), int(fh.channels)
    try:
        _check_format(sr, channels, name)
    except InputError:
        fh.close()
        raise
    total = fh.frames / sr if fh.frames > 0 else None
    return name, sr, total, _soundfile_blocks(fh, name, _frame_limit(sr, max_seconds))


def _soundfile_blocks(fh: sf.SoundFile, name: str, limit: int | None) -> Iterator[np.ndarray]:
    with fh:
        block = max(1, BLOCK_BYTES // (4 * fh.channels))
        got = 0
        while limit is None or got < limit:
            try:
                data = fh.read(block if limit is None else min(block, limit - got), dtype="float32",
                               always_2d=True)  # [n, C]
            except (sf.SoundFileError, RuntimeError) as e:
                raise InputError(f"'{name}' is corrupt after {got / fh.samplerate:.1f} s ({e}); re-export it.") from e
            if data.shape[0] == 0:
                return
            got += data.shape[0]
            yield data.mean(axis=1, dtype=np.float32)


def audio_blocks(source: AudioSource, max_seconds: float | None = None) -> Iterator[np.ndarray]:
    """Mono float32 blocks of a file, at most ``max_seconds`` (plus a frame) in all (None: the whole file)."""
    return _open(source, max_seconds)[3]


def read_audio(source: AudioSource, max_seconds: float | None = None) -> tuple[np.ndarray, int, float | None]:
    """Decode at most the first ``max_seconds`` (plus one frame; None: all) of a file, mixed down to mono.

    Returns ``(samples [N] float32, sample rate, length of the whole file in seconds or None when the
    format does not say)``. Peak memory is the mono samples plus one block. Raises :class:`InputError`
    naming the file when it is missing, empty, truncated, not audio, has an absurd rate or channel
    count, holds no samples or NaN/inf samples.
    """
    name, sr, total, blocks = _open(source, max_seconds)
    parts = list(blocks)
    mono = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    if mono.shape[0] == 0:
        raise InputError(f"audio file '{name}' contains no samples.")
    bad = int(np.count_nonzero(~np.isfinite(mono)))
    if bad:
        raise InputError(f"audio file '{name}' has {bad} NaN or infinite samples; re-export it.")
    return mono, sr, total


def load_audio(source: AudioSource) -> tuple[np.ndarray, int]:
    """The whole file (path or binary file object) as mono float32 samples [N] and its sample rate
    (:func:`read_audio` without a limit; channels are averaged)."""
    mono, sr, _total = read_audio(source)
    return mono, sr
