"""Saved-voice files: round trip, version and integrity checks, atomic writes, the library."""

from __future__ import annotations

import errno
import io
import json
import logging
import os
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cosycore import atomic_write, voices
from cosycore.errors import InputError, StorageError
from cosycore.voices import (
    FORMAT_VERSION,
    HEADER_ENTRY,
    Voice,
    VoiceLibrary,
    load_voice,
    payload_checksum,
    sanitize_voice_name,
    save_voice,
    voice_file,
    voice_file_stem,
)


def make_voice(name: str = "Anna", seed: int = 0, family: str = "cosyvoice2") -> Voice:
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, 6561, size=50)
    return Voice(
        name=name,
        transcript="Hello, this is Anna speaking. 你好。",
        language="en",
        family=family,  # type: ignore[arg-type]
        speech_tokenizer_sha256="ab" * 32,
        audio_24k=(0.1 * rng.standard_normal(48000)).astype(np.float32),
        speech_tokens=tokens,
        embedding=rng.standard_normal(192),
        prompt_mel=rng.standard_normal((100, 80)) - 5.0,
        created_at="2025-01-02T03:04:05+00:00",
    )


def _rewrite(path: Path, edit_header, *, fix_checksum: bool) -> None:
    """Re-pack ``path`` with an edited header, optionally with a recomputed checksum."""
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(entries[HEADER_ENTRY])
    edit_header(header)
    if fix_checksum:
        arrays = {n: entries[n + ".npy"] for n in voices.ARRAY_NAMES}
        header["checksum"]["value"] = payload_checksum(header, arrays)
    entries[HEADER_ENTRY] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


# --------------------------------------------------------------------------------------------
# Voice and file format
# --------------------------------------------------------------------------------------------


def test_round_trip(tmp_path: Path) -> None:
    voice = make_voice()
    path = save_voice(tmp_path / "anna.cosyvoice", voice)
    loaded = load_voice(path)
    assert loaded == voice
    assert loaded.speech_tokens.dtype == np.int32 and loaded.embedding.dtype == np.float32
    assert loaded.prompt_mel.shape == (100, 80) and loaded.duration == pytest.approx(2.0)
    assert not loaded.audio_24k.flags.writeable  # frozen all the way down
    assert loaded != replace(voice, transcript="something else")


def test_file_is_a_plain_zip_without_pickles(tmp_path: Path) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice())
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == sorted([HEADER_ENTRY, *(n + ".npy" for n in voices.ARRAY_NAMES)])
        header = json.loads(zf.read(HEADER_ENTRY))
        for name in voices.ARRAY_NAMES:  # every array opens without allow_pickle
            np.load(io.BytesIO(zf.read(name + ".npy")), allow_pickle=False)
    assert header["format"] == "cosy-studio-voice" and header["format_version"] == FORMAT_VERSION
    assert header["family"] == "cosyvoice2" and header["language"] == "en"
    assert header["checksum"]["algorithm"] == "sha256" and len(header["checksum"]["value"]) == 64
    assert header["arrays"]["speech_tokens"] == {"dtype": "<i4", "shape": [50]}


def test_same_voice_same_bytes(tmp_path: Path) -> None:
    a = save_voice(tmp_path / "a.cosyvoice", make_voice())
    b = save_voice(tmp_path / "b.cosyvoice", make_voice())
    assert a.read_bytes() == b.read_bytes()


def test_instruct_presets_travel_in_the_header(tmp_path: Path) -> None:
    plain = make_voice()
    with_presets = replace(plain, instruct_presets=(("Pirate", "Speak like a pirate."), ("撒娇", "用撒娇的语气说")))
    path = save_voice(tmp_path / "p.cosyvoice", with_presets)
    loaded = load_voice(path)
    assert loaded == with_presets and loaded.instruct_presets[1] == ("撒娇", "用撒娇的语气说")
    assert loaded != plain  # the presets are part of the voice's equality
    with zipfile.ZipFile(path) as zf:
        header = json.loads(zf.read(HEADER_ENTRY))
    assert header["instruct_presets"][0] == {"name": "Pirate", "text": "Speak like a pirate."}
    assert header["format_version"] == FORMAT_VERSION  # an optional key, not a new format
    # without presets the header has no such key: the bytes are what earlier versions wrote
    with zipfile.ZipFile(save_voice(tmp_path / "plain.cosyvoice", plain)) as zf:
        assert "instruct_presets" not in json.loads(zf.read(HEADER_ENTRY))
    # the checksum covers them: editing a preset's text is detected
    _rewrite(path, lambda h: h["instruct_presets"][0].update(text="Shout."), fix_checksum=False)
    with pytest.raises(InputError, match="checksum"):
        load_voice(path)


def test_voice_validates_its_arrays() -> None:
    good = make_voice()
    with pytest.raises(ValueError, match=r"embedding"):
        replace(good, embedding=np.zeros(191, np.float32))
    with pytest.raises(ValueError, match=r"prompt_mel"):
        replace(good, prompt_mel=np.zeros((10, 100), np.float32))
    with pytest.raises(ValueError, match=r"NaN"):
        replace(good, audio_24k=np.full(10, np.nan, np.float32))
    with pytest.raises(ValueError, match=r"family"):
        replace(good, family="cosyvoice1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"name"):
        replace(good, name="  ")


def test_newer_format_version(tmp_path: Path) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice())
    _rewrite(path, lambda h: h.update(format_version=FORMAT_VERSION + 1, new_field=[1, 2]), fix_checksum=True)
    with pytest.raises(InputError, match=r"made by a newer Cosy Studio.*Update the app"):
        load_voice(path)


def test_flipped_byte_is_detected(tmp_path: Path) -> None:
    voice = make_voice()
    path = save_voice(tmp_path / "v.cosyvoice", voice)
    data = bytearray(path.read_bytes())
    audio = voice_file._npy_bytes(voice.audio_24k)
    start = bytes(data).find(audio)
    assert start > 0
    data[start + len(audio) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"damaged or was edited"):
        load_voice(path)


def test_edited_header_is_detected(tmp_path: Path) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice())
    _rewrite(path, lambda h: h.update(transcript="Something Anna never said."), fix_checksum=False)
    with pytest.raises(InputError, match=r"damaged or was edited.*checksum"):
        load_voice(path)


def test_swapped_array_is_detected(tmp_path: Path) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice())
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    entries["embedding.npy"] = voice_file._npy_bytes(np.ones(192, np.float32))
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(InputError, match=r"damaged or was edited"):
        load_voice(path)


def test_not_a_voice_file(tmp_path: Path) -> None:
    wav = tmp_path / "speech.cosyvoice"
    wav.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(100))
    with pytest.raises(InputError, match=r"not a Cosy Studio voice file"):
        load_voice(wav)
    other_zip = tmp_path / "other.cosyvoice"
    with zipfile.ZipFile(other_zip, "w") as zf:
        zf.writestr("readme.txt", "hello")
    with pytest.raises(InputError, match=r"not a Cosy Studio voice file.*no voice.json"):
        load_voice(other_zip)
    foreign = tmp_path / "foreign.cosyvoice"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr(HEADER_ENTRY, json.dumps({"format": "something-else", "format_version": 1}))
    with pytest.raises(InputError, match=r"not a Cosy Studio voice file"):
        load_voice(foreign)
    with pytest.raises(InputError, match=r"does not exist"):
        load_voice(tmp_path / "missing.cosyvoice")


def test_truncated_voice_file(tmp_path: Path) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"not a Cosy Studio voice file|damaged"):
        load_voice(path)


# --------------------------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_failed_replace_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice("Old"))

    def full_disk(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic_write.os, "replace", full_disk)
    with pytest.raises(StorageError, match=r"disk is full.*previous file is intact"):
        save_voice(path, make_voice("New", seed=1))
    monkeypatch.undo()
    assert load_voice(path).name == "Old"
    assert _leftovers(tmp_path) == []


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice("Old"))

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(atomic_write.os, "fsync", failing_fsync)
    with pytest.raises(StorageError, match=r"could not save.*I/O error"):
        save_voice(path, make_voice("New", seed=1))
    monkeypatch.undo()
    assert load_voice(path) == make_voice("Old")
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_atomic_writes_get_ordinary_permissions(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        umask = atomic_write._UMASK
        new = tmp_path / "new.bin"
        atomic_write.write_atomic(new, b"x")
        assert (new.stat().st_mode & 0o777) == 0o666 & ~umask  # not mkstemp's private 0600
        kept = tmp_path / "kept.bin"
        kept.write_bytes(b"old")
        kept.chmod(0o640)
        atomic_write.write_atomic(kept, b"new")
        assert (kept.stat().st_mode & 0o777) == 0o640 and kept.read_bytes() == b"new"
    finally:
        os.umask(old)


def test_unwritable_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(StorageError, match=r"could not save"):
        save_voice(blocker / "v.cosyvoice", make_voice())


# --------------------------------------------------------------------------------------------
# Library
# --------------------------------------------------------------------------------------------


def test_sanitize_names() -> None:
    assert sanitize_voice_name("  My/Voice\n\tone ") == "My Voice one"
    assert sanitize_voice_name('a<b>c:"d"?') == "a b c d"
    assert len(sanitize_voice_name("x" * 200)) == 64
    assert sanitize_voice_name("小明的声音") == "小明的声音"
    with pytest.raises(InputError):
        sanitize_voice_name(" ../ ")
    assert voice_file_stem("CON") == "_con"
    assert voice_file_stem("Anna Smith") == "anna_smith"


def test_library_add_list_get(tmp_path: Path) -> None:
    lib = VoiceLibrary(tmp_path / "voices")
    assert lib.list() == []
    info = lib.add(make_voice(" Anna\n"))
    assert info.name == "Anna" and info.path.suffix == ".cosyvoice"
    assert info.duration == pytest.approx(2.0) and info.family == "cosyvoice2"
    second = lib.add(make_voice("anna", seed=1))  # same name, other case: made unique
    assert second.name == "anna (2)"
    third = lib.add(make_voice("Anna", seed=2))
    assert third.name == "Anna (3)"
    assert lib.names() == ["Anna", "anna (2)", "Anna (3)"]
    assert "ANNA" in lib and "Bob" not in lib
    got = lib.get("anna (2)")
    assert got == make_voice("anna (2)", seed=1)
    with pytest.raises(InputError, match=r"no saved voice"):
        lib.get("Bob")


def test_library_rename_and_remove(tmp_path: Path) -> None:
    lib = VoiceLibrary(tmp_path)
    old = lib.add(make_voice("Anna"))
    lib.add(make_voice("Bob", seed=1))
    with pytest.raises(InputError, match=r"already exists"):
        lib.rename("Anna", "bob")
    renamed = lib.rename("Anna", "Anna Smith")
    assert renamed.name == "Anna Smith" and not old.path.exists()
    assert lib.get("anna smith").transcript == make_voice().transcript
    recased = lib.rename("anna smith", "ANNA SMITH")  # same file name, name updated in place
    assert recased.path == renamed.path and lib.names() == ["ANNA SMITH", "Bob"]
    lib.remove("bob")
    assert lib.names() == ["ANNA SMITH"]
    with pytest.raises(InputError):
        lib.remove("Bob")


def test_library_skips_broken_files(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lib = VoiceLibrary(tmp_path)
    lib.add(make_voice("Anna"))
    (tmp_path / "junk.cosyvoice").write_bytes(b"not a zip")
    with caplog.at_level(logging.WARNING, logger="cosycore.voices"):
        assert lib.names() == ["Anna"]
    assert "junk.cosyvoice" in caplog.text


def test_library_file_names_do_not_collide(tmp_path: Path) -> None:
    lib = VoiceLibrary(tmp_path)
    a = lib.add(make_voice("a b"))
    b = lib.add(make_voice("a-b"))
    c = lib.add(make_voice("a_b"))
    assert len({a.path, b.path, c.path}) == 3
    assert sorted(lib.names()) == ["a b", "a-b", "a_b"]


def test_inconsistent_but_checksummed_header(tmp_path: Path) -> None:
    path = save_voice(tmp_path / "v.cosyvoice", make_voice())
    _rewrite(path, lambda h: h.update(arrays="nonsense"), fix_checksum=True)
    with pytest.raises(InputError, match="damaged"):
        load_voice(path)
    path2 = save_voice(tmp_path / "w.cosyvoice", make_voice())
    _rewrite(path2, lambda h: h.update(family="cosyvoice1"), fix_checksum=True)
    with pytest.raises(InputError, match=r"damaged.*family 'cosyvoice1'"):
        load_voice(path2)
