"""Issue 12, voice files from strangers (items 6, 8, 17, 18): every test is named after its input.

Each hostile file is built byte by byte (bypassing :class:`Voice`'s own checks), with a correct
checksum, so that only the new bounds can refuse it.
"""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_voices import make_voice

from cosycore import voices
from cosycore.__main__ import CliIO, main
from cosycore.errors import InputError
from cosycore.safety import escape_control, json_depth_ok
from cosycore.voices import VoiceLibrary, load_voice, save_voice, voice_file


class _Bytes(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.raw = io.BytesIO()

    def isatty(self) -> bool:
        return False


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = _Bytes(), _Bytes()
    code = main(argv, CliIO(io.StringIO(""), out, out.raw, err))
    return code, out.getvalue(), err.getvalue()


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def forge(path: Path, *, header_edit=None, arrays: dict[str, bytes] | None = None,
          header_text: bytes | None = None, compress: bool = False) -> Path:
    """Write a voice file from a valid voice, edited; the checksum is made to match the edit."""
    voice = make_voice()
    header: dict[str, Any] = voice_file._header(voice)
    data = {name: _npy(getattr(voice, name)) for name in voices.ARRAY_NAMES}
    data.update(arrays or {})
    if header_edit is not None:
        header_edit(header)
    header["checksum"] = {"algorithm": "sha256", "value": voices.payload_checksum(header, data)}
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        zf.writestr(voices.HEADER_ENTRY, header_text if header_text is not None else json.dumps(header))
        for name in voices.ARRAY_NAMES:
            zf.writestr(name + ".npy", data[name])
    return path


def _set_shape(name: str, shape: list[int]):
    def edit(h: dict[str, Any]) -> None:
        h["arrays"][name]["shape"] = shape
    return edit


# -- item 6: one malformed file must not stop the library, the CLI or the app ------------------

def test_sample_rate_infinity(tmp_path: Path) -> None:
    good = save_voice(tmp_path / "good.cosyvoice", make_voice("Good"))
    text = json.dumps({**voice_file._header(make_voice()), "sample_rate": 1}).replace(
        '"sample_rate": 1', '"sample_rate": Infinity')
    bad = forge(tmp_path / "bad.cosyvoice", header_text=text.encode())
    with pytest.raises(InputError, match=r"not valid JSON.*Infinity"):
        load_voice(bad)
    scan = VoiceLibrary(tmp_path).scan()
    assert [v.name for v in scan.voices] == ["Good"] and scan.voices[0].path == good
    assert [b.path for b in scan.broken] == [bad] and "Infinity" in scan.broken[0].reason


def test_sample_rate_text_and_zero(tmp_path: Path) -> None:
    for value in ("fast", 0, 10**30, True):
        path = forge(tmp_path / "v.cosyvoice", header_edit=lambda h, v=value: h.update(sample_rate=v))
        with pytest.raises(InputError, match="sample_rate"):
            load_voice(path)


def test_deeply_nested_json(tmp_path: Path) -> None:
    nested = b'{"format": "cosy-studio-voice", "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    assert not json_depth_ok(nested)
    bad = forge(tmp_path / "nested.cosyvoice", header_text=nested)
    with pytest.raises(InputError, match=r"nests deeper than 32"):
        load_voice(bad)
    assert VoiceLibrary(tmp_path).list() == []
    assert VoiceLibrary(tmp_path).broken()[0].path == bad


def test_npy_header_claiming_2_40_samples(tmp_path: Path) -> None:
    """The .npy header is read and compared before numpy allocates 4 TiB."""
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"
    header += b" " * (64 - (10 + len(header) + 1) % 64) + b"\n"
    fake = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 64
    bad = forge(tmp_path / "huge.cosyvoice", arrays={"audio_24k": fake})  # voice.json still says 48000
    tracemalloc.start()
    with pytest.raises(InputError, match=r"audio_24k is not a valid array.*1099511627776"):
        load_voice(bad)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 << 20
    claimed = forge(tmp_path / "claimed.cosyvoice", header_edit=_set_shape("audio_24k", [2**40]),
                    arrays={"audio_24k": fake})
    with pytest.raises(InputError, match=r"shape"):
        load_voice(claimed)


def test_voice_list_with_broken_file_prints_no_traceback(tmp_path: Path) -> None:
    save_voice(tmp_path / "good.cosyvoice", make_voice("Good"))
    (tmp_path / "junk.cosyvoice").write_bytes(b"PK\x03\x04 not really a zip")
    forge(tmp_path / "inf.cosyvoice", header_text=b'{"format": "cosy-studio-voice", "format_version": Infinity}')
    code, out, err = _cli(["voice", "list", "--voices-dir", str(tmp_path)])
    assert code == 0 and out.startswith("Good\t")
    assert "junk.cosyvoice is not usable" in err and "inf.cosyvoice is not usable" in err
    assert "Traceback" not in err


def test_fifo_and_symlink_to_dev_zero_in_voices_folder(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "fifo.cosyvoice")
    (tmp_path / "zero.cosyvoice").symlink_to("/dev/zero")
    broken = VoiceLibrary(tmp_path).broken()  # returns at once: neither is opened
    assert sorted(b.path.name for b in broken) == ["fifo.cosyvoice", "zero.cosyvoice"]
    assert all("not a regular file" in b.reason for b in broken)


# -- item 8: stored prompt length, audio duration, zip bombs -----------------------------------

def test_6000_prompt_tokens(tmp_path: Path) -> None:
    tokens = np.zeros(6000, np.int32)
    bad = forge(tmp_path / "long.cosyvoice", header_edit=_set_shape("speech_tokens", [6000]),
                arrays={"speech_tokens": _npy(tokens)})
    with pytest.raises(InputError, match=r"6000 speech tokens"):
        load_voice(bad)
    with pytest.raises(ValueError, match="speech tokens"):
        make_voice().__class__(**{**_fields(make_voice()), "speech_tokens": tokens})


def _fields(v: voices.Voice) -> dict[str, Any]:
    return {k: getattr(v, k) for k in ("name", "transcript", "language", "family", "speech_tokenizer_sha256",
                                       "audio_24k", "speech_tokens", "embedding", "prompt_mel")}


def test_40_second_prompt_audio(tmp_path: Path) -> None:
    audio = np.zeros(40 * 24000, np.float32)
    bad = forge(tmp_path / "long.cosyvoice", header_edit=_set_shape("audio_24k", [audio.size]),
                arrays={"audio_24k": _npy(audio)})
    with pytest.raises(InputError, match=r"40.0 s long; a voice holds at most 30 s"):
        load_voice(bad)


def test_zip_bomb_of_deflated_zeros(tmp_path: Path) -> None:
    """The probe's 276 kB file that unpacked to 240 MB: refused from the zip directory alone."""
    zeros = np.zeros(60_000_000, np.float32)  # 240 MB of audio, a few hundred kB deflated
    bad = forge(tmp_path / "bomb.cosyvoice", header_edit=_set_shape("audio_24k", [zeros.size]),
                arrays={"audio_24k": _npy(zeros)}, compress=True)
    del zeros
    assert bad.stat().st_size < 1 << 20
    with pytest.raises(InputError, match=r"unpack to .* bytes; a voice is at most"):
        load_voice(bad)
    lib = VoiceLibrary(tmp_path / "lib")
    with pytest.raises(InputError):
        lib.add(load_voice(bad))  # the import path: nothing reaches the library
    assert not (tmp_path / "lib").exists()


def test_deflated_entry_with_a_bomb_ratio(tmp_path: Path) -> None:
    silence = np.zeros(700_000, np.float32)  # 29 s: within bounds, but a 1000:1 ratio
    bad = forge(tmp_path / "ratio.cosyvoice", header_edit=_set_shape("audio_24k", [silence.size]),
                arrays={"audio_24k": _npy(silence)}, compress=True)
    with pytest.raises(InputError, match="zip bomb"):
        load_voice(bad)


def test_oversized_file(tmp_path: Path) -> None:
    big = tmp_path / "big.cosyvoice"
    with open(big, "wb") as fh:
        fh.truncate(voices.MAX_FILE_BYTES + 1)
    with pytest.raises(InputError, match="a voice file is at most"):
        load_voice(big)


# -- item 17: terminal escapes in names and transcripts ----------------------------------------

def test_name_and_transcript_with_terminal_escapes(tmp_path: Path) -> None:
    evil = "\x1b]0;pwned\x07\x1b[2J"
    path = forge(tmp_path / "evil.cosyvoice",
                 header_edit=lambda h: h.update(name=f"Eve{evil}", transcript=f"hi\u202e{evil}\r\n"))
    for argv in (["voice", "list", "--voices-dir", str(tmp_path)], ["voice", "show", str(path)]):
        code, out, err = _cli(argv)
        assert code == 0, err
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\r" not in out
        assert "Eve\\x1b]0;pwned\\x07\\x1b[2J" in out and "\\u202e" in out
    code, _out, err = _cli(["voice", "remove", f"x{evil}", "--voices-dir", str(tmp_path)])
    assert code == 2 and "\x1b" not in err


def test_escape_control_keeps_text() -> None:
    assert escape_control("Zoë 你好 😀 — ok!") == "Zoë 你好 😀 — ok!"
    assert escape_control("a\tb\x00c\x7f\x9b") == "a\\x09b\\x00c\\x7f\\x9b"
    assert escape_control("line\nnext", keep="\n") == "line\nnext"


# -- item 18: duplicate names, tokens that cannot work ------------------------------------------

def test_duplicate_name_with_a_damaged_copy(tmp_path: Path) -> None:
    lib = VoiceLibrary(tmp_path)
    good = save_voice(tmp_path / "b-good.cosyvoice", make_voice("Anna", seed=1))
    copy = make_voice("Anna", seed=2)
    damaged = save_voice(tmp_path / "a-copy.cosyvoice", copy)
    data = bytearray(damaged.read_bytes())
    data[bytes(data).find(_npy(copy.prompt_mel)) + 500] ^= 0xFF  # inside an array: the header still reads
    damaged.write_bytes(bytes(data))
    assert [i.path for i in lib.list()] == [good]  # the name once: the copy that works
    [twin] = lib.broken()  # the damaged copy is marked, with why
    assert twin.path == damaged
    assert "a second file for the voice 'Anna' (b-good.cosyvoice is the one used)" in twin.reason
    assert "Rename or remove this file" in twin.reason
    assert lib.get("anna") == load_voice(good)  # the name resolves to the copy that works


def test_voice_list_with_a_broken_twin(tmp_path: Path) -> None:
    """Issue 27: `voice list` shows a voice whose name a damaged copy shares once, and marks the copy."""
    save_voice(tmp_path / "b-good.cosyvoice", make_voice("Anna", seed=1))
    copy = make_voice("Anna", seed=2)
    damaged = save_voice(tmp_path / "a-copy.cosyvoice", copy)
    data = bytearray(damaged.read_bytes())
    data[bytes(data).find(_npy(copy.prompt_mel)) + 500] ^= 0xFF
    damaged.write_bytes(bytes(data))
    save_voice(tmp_path / "c-twin.cosyvoice", make_voice("anna", seed=3))  # a second usable copy
    code, out, err = _cli(["voice", "list", "--voices-dir", str(tmp_path)])
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines()] == ["Anna"]
    assert "a-copy.cosyvoice is not usable: a second file for the voice 'Anna'" in err
    assert "c-twin.cosyvoice is not usable: a second file for the voice 'anna'" in err
    assert "usable, but the name resolves to the other file" in err


def test_speech_tokens_beyond_the_codebook(tmp_path: Path) -> None:
    tokens = np.full(50, 7000, np.int32)
    bad = forge(tmp_path / "codes.cosyvoice", arrays={"speech_tokens": _npy(tokens)})
    with pytest.raises(InputError, match="below 6561"):
        load_voice(bad)


def test_no_speech_tokens(tmp_path: Path) -> None:
    bad = forge(tmp_path / "empty.cosyvoice", header_edit=_set_shape("speech_tokens", [0]),
                arrays={"speech_tokens": _npy(np.zeros(0, np.int32))})
    with pytest.raises(InputError, match="no speech tokens"):
        load_voice(bad)


def test_voices_folder_that_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = VoiceLibrary(tmp_path)

    def denied(self, pattern):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "glob", denied)
    scan = lib.scan()
    assert scan.voices == () and "cannot be read: permission denied" in scan.broken[0].reason
