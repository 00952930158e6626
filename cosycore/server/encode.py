"""Audio encoders for the speech server: wav, pcm, flac, mp3 and opus, whole or as a stream.

* ``pcm`` is OpenAI's: raw signed 16-bit little-endian mono samples, no header.
* ``wav`` is 16-bit PCM. Whole files get the exact sizes; a stream starts with a header whose RIFF
  and data sizes are 0xFFFFFFFF (unknown), as OpenAI's streamed WAV does; readers take the data up
  to the end of the stream.
* ``flac``, ``mp3`` (libsndfile >= 1.1, through LAME) and ``opus`` (in Ogg) go through soundfile.
  A stream writes into :class:`_ForwardSink`, which hands on every byte as soon as libsndfile writes
  it; a later rewrite of bytes already sent (libsndfile updates FLAC's STREAMINFO and MP3's Xing
  header when it closes) is dropped, as it would be on a pipe. So a streamed FLAC carries no total
  length, and a streamed MP3 is constant-bitrate, so that readers get its length from its size.

Which formats this machine can write is probed once (:func:`writable_formats`); the others are
answered with a 400 that names the ones that work.
"""

from __future__ import annotations

import functools
import io
import logging
import struct
from typing import Any, Protocol

import numpy as np
import soundfile as sf

logger = logging.getLogger(__name__)

# format -> (libsndfile major format, subtype); wav and pcm are written here without libsndfile
_SNDFILE = {"flac": ("FLAC", "PCM_16"), "mp3": ("MP3", "MPEG_LAYER_III"), "opus": ("OGG", "OPUS")}
MEDIA_TYPES = {
    "wav": "audio/wav", "pcm": "audio/pcm", "flac": "audio/flac", "mp3": "audio/mpeg", "opus": "audio/ogg",
    "aac": "audio/aac",
}
OPUS_RATES = (8000, 12000, 16000, 24000, 48000)
_UNKNOWN = 0xFFFFFFFF


def to_int16(samples: np.ndarray) -> bytes:
    """float32 [-1, 1] -> little-endian int16 bytes (clipped)."""
    x = np.clip(np.asarray(samples, dtype=np.float32).reshape(-1), -1.0, 1.0)
    return (np.round(x * 32767.0)).astype("<i2").tobytes()


def wav_header(sample_rate: int, data_bytes: int | None) -> bytes:
    """A 44-byte PCM WAV header for 16-bit mono; ``data_bytes=None`` writes unknown (0xFFFFFFFF) sizes."""
    data = _UNKNOWN if data_bytes is None else data_bytes
    riff = _UNKNOWN if data_bytes is None else 36 + data_bytes
    return (b"RIFF" + struct.pack("<I", riff) + b"WAVE" + b"fmt "
            + struct.pack("<IHHIIHH", 16, 1, 1, sample_rate, sample_rate * 2, 2, 16)
            + b"data" + struct.pack("<I", data))


class StreamEncoder(Protocol):
    """Turns chunks of float32 samples into bytes of one format, as they come."""

    def encode(self, samples: np.ndarray) -> bytes: ...

    def finish(self) -> bytes: ...


class _PcmStream:
    def __init__(self, header: bytes = b"") -> None:
        self._header = header

    def encode(self, samples: np.ndarray) -> bytes:
        out, self._header = self._header + to_int16(samples), b""
        return out

    def finish(self) -> bytes:
        out, self._header = self._header, b""
        return out


class _ForwardSink:
    """A file-like object for libsndfile that passes every byte on as soon as it is written.

    Bytes before :attr:`base` have been taken already; a write there (a header update on close) is
    dropped and counted in :attr:`dropped`.
    """

    def __init__(self) -> None:
        self.pending = bytearray()
        self.base = 0
        self.pos = 0
        self.dropped = 0

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            self.pos = offset
        elif whence == io.SEEK_CUR:
            self.pos += offset
        else:
            self.pos = self.base + len(self.pending) + offset
        return self.pos

    def tell(self) -> int:
        return self.pos

    def read(self, size: int = -1) -> bytes:
        start = self.pos - self.base
        if start < 0:
            return b""
        end = len(self.pending) if size < 0 else start + size
        data = bytes(self.pending[start:end])
        self.pos += len(data)
        return data

    def write(self, data: bytes) -> int:
        view = bytes(data)
        n = len(view)
        start = self.pos
        if start < self.base:
            skip = min(self.base - start, n)
            self.dropped += skip
            view, start = view[skip:], start + skip
        offset = start - self.base
        if offset > len(self.pending):
            self.pending.extend(b"\0" * (offset - len(self.pending)))
        self.pending[offset:offset + len(view)] = view
        self.pos += n
        return n

    def take(self) -> bytes:
        out = bytes(self.pending)
        self.base += len(out)
        self.pending.clear()
        return out


class _SndfileStream:
    def __init__(self, fmt: str, sample_rate: int) -> None:
        major, subtype = _SNDFILE[fmt]
        self._sink = _ForwardSink()
        extra: dict[str, Any] = {"compression_level": 0.5, "bitrate_mode": "CONSTANT"} if fmt == "mp3" else {}
        self._file = sf.SoundFile(self._sink, "w", sample_rate, 1, format=major, subtype=subtype, **extra)

    def encode(self, samples: np.ndarray) -> bytes:
        self._file.write(np.asarray(samples, dtype=np.float32).reshape(-1))
        self._file.flush()
        return self._sink.take()

    def finish(self) -> bytes:
        if not self._file.closed:
            self._file.close()
        if self._sink.dropped:
            logger.debug("stream encoder: %d header bytes updated after they were sent", self._sink.dropped)
        return self._sink.take()


def check_rate(fmt: str, sample_rate: int) -> None:
    if fmt == "opus" and sample_rate not in OPUS_RATES:
        raise ValueError(f"Opus takes {OPUS_RATES} Hz, not {sample_rate}")


def stream_encoder(fmt: str, sample_rate: int) -> StreamEncoder:
    """An encoder that hands out bytes chunk by chunk (for ``stream_format``)."""
    check_rate(fmt, sample_rate)
    if fmt == "pcm":
        return _PcmStream()
    if fmt == "wav":
        return _PcmStream(wav_header(sample_rate, None))
    return _SndfileStream(fmt, sample_rate)


def encode_whole(fmt: str, samples: np.ndarray, sample_rate: int) -> bytes:
    """A complete file of ``samples`` (float32 mono) with exact headers."""
    check_rate(fmt, sample_rate)
    if fmt == "pcm":
        return to_int16(samples)
    if fmt == "wav":
        data = to_int16(samples)
        return wav_header(sample_rate, len(data)) + data
    major, subtype = _SNDFILE[fmt]
    buf = io.BytesIO()
    sf.write(buf, np.asarray(samples, dtype=np.float32).reshape(-1), sample_rate, format=major, subtype=subtype)
    return buf.getvalue()


@functools.lru_cache(maxsize=1)
def writable_formats() -> tuple[str, ...]:
    """The OpenAI formats this machine's libsndfile can write (wav and pcm always), probed once."""
    formats = ["wav", "pcm"]
    silence = np.zeros(2400, np.float32)
    for fmt in ("flac", "mp3", "opus"):
        try:
            whole = encode_whole(fmt, silence, 24000)
            enc = stream_encoder(fmt, 24000)
            streamed = enc.encode(silence) + enc.finish()
        except (sf.LibsndfileError, TypeError, ValueError, RuntimeError) as e:
            logger.info("response format %s is not available: %s", fmt, e)
            continue
        if whole and streamed:
            formats.append(fmt)
    return tuple(formats)
