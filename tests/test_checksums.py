"""The speech tokenizer's sha256 without hashing it (issue 14): install manifest, checksum cache, laziness.

A saved voice records the sha256 of the tokenizer that made it. Hashing a 0.5–1 GB tokenizer used to
happen on the first Speak; these tests make hashing fail (or count it) to show when it happens.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from cosycore import checksums
from cosycore.config import load_model_config
from cosycore.engine import Engine, SynthesisRequest
from cosycore.errors import InputError
from cosycore.frontend.onnx_models import SpeechTokenizerONNX
from cosycore.frontend.prompt import voice_from_prompt
from cosycore.manifest import MANIFEST_NAME, Manifest, ManifestFile, read_manifest, recorded_sha256
from cosycore.voices import Voice
from tests.conftest import copy_release

pytestmark = pytest.mark.usefixtures("single_thread")

SR = 24000


def _clip(seconds: float = 2.0) -> np.ndarray:
    """A voiced, non-silent test signal (a 150 Hz buzz with harmonics and a little noise)."""
    t = np.arange(int(seconds * SR)) / SR
    rng = np.random.default_rng(0)
    wave = sum(0.2 / k * np.sin(2 * np.pi * 150 * k * t) for k in range(1, 6)) + 0.01 * rng.standard_normal(t.size)
    return wave.astype(np.float32)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_manifest(folder: Path, names: list[str], *, with_mtime: bool = True, installed_at: str | None = None,
                    size_delta: int = 0) -> Manifest:
    files = []
    for name in names:
        st = (folder / name).stat()
        files.append(ManifestFile(name, st.st_size + size_delta, _sha(folder / name),
                                  mtime_ns=st.st_mtime_ns if with_mtime else None))
    cfg = load_model_config(folder)
    manifest = Manifest(
        model_id="cosyvoice2-0.5b", name="CosyVoice2-0.5B", family=cfg.family, source="huggingface",
        repo_id="FunAudioLLM/CosyVoice2-0.5B", revision="0" * 40,
        installed_at=installed_at or datetime.now(timezone.utc).isoformat(timespec="seconds"), files=tuple(files))
    (folder / MANIFEST_NAME).write_text(json.dumps(manifest.to_json()), encoding="utf-8")
    return manifest


def _no_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(path, chunk=0):
        raise AssertionError(f"{path} was hashed")

    monkeypatch.setattr(checksums, "file_sha256", fail)


def _count_hashing(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    real = checksums.file_sha256

    def counting(path, chunk=checksums.HASH_CHUNK):
        seen.append(Path(path))
        return real(path, chunk)

    monkeypatch.setattr(checksums, "file_sha256", counting)
    return seen


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(checksums.HOME_ENV, str(tmp_path / "home"))  # never the real user cache


@pytest.fixture
def installed(tiny_cv2_model: Path, tmp_path: Path) -> Path:
    """A copy of the tiny CosyVoice2 folder with an install manifest listing both ONNX files."""
    folder = copy_release(tiny_cv2_model, tmp_path / "CosyVoice2-0.5B")
    _write_manifest(folder, [load_model_config(folder).speech_tokenizer_file, "campplus.onnx"])
    return folder


def _speak(engine: Engine, **kw) -> list:
    request = SynthesisRequest("Good.", mode="cross_lingual", seed=0, stream=False, max_tokens=8, **kw)
    return list(engine.synthesize(request))


# ---- the install manifest -----------------------------------------------------------------


def test_with_a_manifest_loading_a_voice_and_speaking_never_hash(installed: Path, monkeypatch) -> None:
    tokenizer = installed / load_model_config(installed).speech_tokenizer_file
    expected = _sha(tokenizer)
    _no_hashing(monkeypatch)
    engine = Engine(installed, device="cpu")
    assert engine.speech_tokenizer.sha256_known and engine.speech_tokenizer.sha256 == expected

    voice = engine.create_voice(_clip(), SR, name="buzz")
    assert voice.speech_tokenizer_sha256 == expected  # stamped from the manifest
    chunks = _speak(engine, voice=voice)  # the first Speak with a saved voice: checked, not hashed
    assert chunks and chunks[-1].is_final


def test_a_voice_made_with_another_tokenizer_is_still_refused(installed: Path, monkeypatch) -> None:
    _no_hashing(monkeypatch)
    engine = Engine(installed, device="cpu")
    voice = engine.create_voice(_clip(), SR, name="buzz")
    other = replace(voice, speech_tokenizer_sha256="ab" * 32)
    with pytest.raises(InputError, match="different speech tokenizer"):
        _speak(engine, voice=other)
    assert _speak(engine, voice=voice)  # and the engine goes on working


@pytest.mark.parametrize("change", ["size", "mtime", "listed_wrong"])
def test_a_file_changed_since_install_is_hashed(tiny_cv2_model: Path, tmp_path: Path, monkeypatch, change) -> None:
    folder = copy_release(tiny_cv2_model, tmp_path / "m")
    name = load_model_config(folder).speech_tokenizer_file
    tokenizer = folder / name
    if change == "size":
        _write_manifest(folder, [name], size_delta=1)
    elif change == "mtime":
        _write_manifest(folder, [name])
        st = tokenizer.stat()
        os.utime(tokenizer, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))
    else:  # the manifest lists only the other file
        _write_manifest(folder, ["campplus.onnx"])
    assert recorded_sha256(tokenizer) is None
    hashed = _count_hashing(monkeypatch)
    model = SpeechTokenizerONNX(tokenizer)
    assert not model.sha256_known and hashed == []  # nothing is read at load time
    assert model.sha256 == model.sha256 == _sha(tokenizer)
    assert hashed == [tokenizer]  # once


def test_an_older_manifest_without_mtimes_counts_the_install_time(tiny_cv2_model: Path, tmp_path: Path) -> None:
    folder = copy_release(tiny_cv2_model, tmp_path / "m")
    name = load_model_config(folder).speech_tokenizer_file
    tokenizer = folder / name
    _write_manifest(folder, [name], with_mtime=False)  # installed now: the file is older
    assert "mtime_ns" not in json.loads((folder / MANIFEST_NAME).read_text())["files"][0]
    assert read_manifest(folder).files[0].mtime_ns is None
    assert recorded_sha256(tokenizer) == _sha(tokenizer)
    earlier = datetime.fromtimestamp(tokenizer.stat().st_mtime, timezone.utc) - timedelta(hours=1)
    _write_manifest(folder, [name], with_mtime=False, installed_at=earlier.isoformat(timespec="seconds"))
    assert recorded_sha256(tokenizer) is None  # modified after the install


def test_an_unreadable_manifest_falls_back_to_hashing(tiny_cv2_model: Path, tmp_path: Path) -> None:
    folder = copy_release(tiny_cv2_model, tmp_path / "m")
    (folder / MANIFEST_NAME).write_text("{not json", encoding="utf-8")
    tokenizer = folder / load_model_config(folder).speech_tokenizer_file
    assert recorded_sha256(tokenizer) is None
    assert SpeechTokenizerONNX(tokenizer).sha256 == _sha(tokenizer)


# ---- without a manifest: hashed only when needed, remembered when large --------------------


def test_without_a_manifest_only_making_or_checking_a_stamped_voice_hashes(tiny_cv2_model: Path, monkeypatch) -> None:
    engine = Engine(tiny_cv2_model, device="cpu")  # a folder the user brought: no manifest
    hashed = _count_hashing(monkeypatch)
    assert not engine.speech_tokenizer.sha256_known and hashed == []
    assert _speak(engine, prompt_audio=_clip(), prompt_sample_rate=SR)  # a one-off recording: no hash
    unstamped = _voice_without_hash(engine)
    assert _speak(engine, voice=unstamped) and hashed == []  # a voice recording no hash: family check only

    voice = engine.create_voice(_clip(), SR, name="buzz")  # making a voice stamps it: one hash
    assert voice.speech_tokenizer_sha256 == _sha(engine.speech_tokenizer.path) and len(hashed) == 1
    assert _speak(engine, voice=voice) and len(hashed) == 1  # then known


def _voice_without_hash(engine: Engine) -> Voice:
    """A voice that records no tokenizer hash (as voices from before the hash was recorded)."""
    features = engine.extract_prompt(_clip(), SR, with_checksum=False)
    assert features.speech_tokenizer_sha256 == ""
    return voice_from_prompt(features, name="plain", transcript="")


def test_small_files_are_not_cached(tiny_cv2_model: Path, tmp_path: Path) -> None:
    tokenizer = tiny_cv2_model / load_model_config(tiny_cv2_model).speech_tokenizer_file
    assert tokenizer.stat().st_size < checksums.CACHE_MIN_BYTES
    assert checksums.compute_sha256(tokenizer) == _sha(tokenizer)
    assert not checksums.cache_path().exists()


def test_a_large_file_hashed_once_is_known_to_the_next_load(tiny_cv2_model: Path, tmp_path: Path,
                                                            monkeypatch) -> None:
    monkeypatch.setattr(checksums, "CACHE_MIN_BYTES", 0)  # the tiny file stands in for a 1 GB one
    folder = copy_release(tiny_cv2_model, tmp_path / "m")
    tokenizer = folder / load_model_config(folder).speech_tokenizer_file
    first = SpeechTokenizerONNX(tokenizer)
    assert not first.sha256_known
    digest = first.sha256
    assert checksums.cache_path() == tmp_path / "home" / "cache" / checksums.CACHE_NAME
    assert checksums.cache_path().is_file()

    with monkeypatch.context() as m:
        _no_hashing(m)
        second = SpeechTokenizerONNX(tokenizer)  # the next start, or the next CLI run
        assert second.sha256_known and second.sha256 == digest

    st = tokenizer.stat()
    os.utime(tokenizer, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched: hashed again
    assert checksums.known_sha256(tokenizer) is None
    assert SpeechTokenizerONNX(tokenizer).sha256 == digest


def test_the_cache_is_bounded_and_survives_damage(tiny_cv2_model: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(checksums, "CACHE_MIN_BYTES", 0)
    monkeypatch.setattr(checksums, "CACHE_MAX_ENTRIES", 2)
    files = []
    for i in range(3):
        f = tmp_path / f"f{i}.bin"
        f.write_bytes(bytes([i]) * 1000)
        files.append(f)
    cache = checksums.cache_path()
    cache.parent.mkdir(parents=True)
    cache.write_text("{damaged", encoding="utf-8")
    assert checksums.known_sha256(files[0]) is None  # ignored, not an error
    for f in files:
        assert checksums.compute_sha256(f) == _sha(f)
    kept = json.loads(cache.read_text(encoding="utf-8"))["files"]
    assert sorted(kept) == sorted(str(f.resolve()) for f in files[1:])  # the oldest made room
    assert checksums.known_sha256(files[0]) is None and checksums.known_sha256(files[2]) == _sha(files[2])
