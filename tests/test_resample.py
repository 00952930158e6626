"""The original's resampler (torchaudio's default sinc/Hann Resample) and exact prompt loading."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

import cosycore.frontend.resample as rs
from cosycore.config import load_model_config
from cosycore.frontend.audio_file import load_audio
from cosycore.frontend.features import speaker_fbank
from cosycore.frontend.prompt import extract_prompt
from cosycore.frontend.resample import output_length, reduced_rates, resample_original, resample_sinc, sinc_kernel
from tests.conftest import conformance_root


def _resample_dir() -> Path:
    path = conformance_root() / "resample"
    if not (path / "manifest.json").is_file():
        pytest.skip(f"conformance resample data not found at {path}; set COSY_CONFORMANCE_DIR")
    return path


@pytest.fixture(scope="module")
def reference() -> tuple[dict, dict[str, np.ndarray]]:
    folder = _resample_dir()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    with np.load(folder / "resample.npz") as npz:
        return manifest, {k: npz[k] for k in npz.files}


def _tone(sr: int, seconds: float, channels: int = 1) -> np.ndarray:
    t = np.arange(int(sr * seconds)) / sr
    x = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.1 * np.sin(2 * np.pi * 3100 * t)
    return np.stack([x * (0.5 + 0.5 * c) for c in range(channels)], axis=1).astype(np.float32)


# --------------------------------------------------------------------------------------------
# The resampler itself
# --------------------------------------------------------------------------------------------


def test_equal_rates_return_the_input() -> None:
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    assert resample_original(x, 16000, 16000) is not None
    np.testing.assert_array_equal(resample_original(x, 16000, 16000), x)
    t = torch.from_numpy(x)
    assert resample_sinc(t, 24000, 24000) is t


@pytest.mark.parametrize("orig,new", [(44100, 16000), (22050, 24000), (48000, 16000), (16000, 24000),
                                      (44056, 16000), (37800, 24000)])
def test_lengths_are_ceil_of_the_ratio(orig: int, new: int) -> None:
    for n in (1, 2, 3, 7, 441, 1000, 44101):
        y = resample_original(np.zeros(n, np.float32), orig, new)
        assert y.shape == (math.ceil(new * n / orig),) == (output_length(n, *reduced_rates(orig, new)),)
        assert y.dtype == np.float32


def test_very_short_input() -> None:
    one = resample_original(np.array([0.5], np.float32), 48000, 16000)
    assert one.shape == (1,) and np.isfinite(one).all() and 0 < one[0] < 0.5
    assert resample_original(np.zeros(0, np.float32), 44100, 16000).shape == (0,)
    up = resample_original(np.array([1.0, -1.0], np.float32), 16000, 24000)
    assert up.shape == (3,) and np.isfinite(up).all()


def test_non_integer_ratio_keeps_a_tone_and_removes_what_the_new_rate_cannot_hold() -> None:
    sr, new = 44100, 16000  # 441:160 after the gcd
    t = np.arange(sr) / sr
    low = np.sin(2 * np.pi * 1000 * t).astype(np.float32)
    high = np.sin(2 * np.pi * 12000 * t).astype(np.float32)  # above the new Nyquist (8 kHz)
    y_low = resample_original(low, sr, new)
    want = np.sin(2 * np.pi * 1000 * np.arange(y_low.size) / new)
    mid = slice(200, -200)  # away from the zero-padded edges
    assert np.abs(y_low[mid] - want[mid]).max() < 1e-3
    assert np.abs(resample_original(high, sr, new)[mid]).max() < 5e-3  # the Hann filter: about -50 dB


def test_kernel_is_cached_per_rate_pair() -> None:
    sinc_kernel.cache_clear()
    x = torch.zeros(5000)
    resample_sinc(x, 22050, 16000)
    resample_sinc(x, 22050, 16000)
    resample_sinc(x, 44100, 16000)
    info = sinc_kernel.cache_info()
    assert (info.hits, info.misses) == (1, 2)
    kernel, width = sinc_kernel(441, 320)
    assert kernel.shape == (320, 1, 2 * width + 441) and kernel.dtype == torch.float32


def test_small_gcd_runs_in_bounded_blocks_with_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    x = torch.from_numpy(np.random.default_rng(1).standard_normal(3000).astype(np.float32))
    whole = resample_sinc(x, 22050, 16000)
    monkeypatch.setattr(rs, "MAX_KERNEL_ELEMENTS", 2000)  # forces blocks of a few output phases
    sinc_kernel.cache_clear()
    blocked = resample_sinc(x, 22050, 16000)
    assert sinc_kernel.cache_info().misses == 0  # too big to cache: never built whole
    torch.testing.assert_close(blocked, whole, atol=1e-6, rtol=0)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="positive integers"):
        resample_sinc(torch.zeros(10), 0, 16000)
    with pytest.raises(ValueError, match="positive integers"):
        resample_sinc(torch.zeros(10), 22050.5, 16000)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="floating-point"):
        resample_sinc(torch.zeros(10, dtype=torch.int16), 22050, 16000)


@pytest.mark.parametrize("subtype,step", [("PCM_U8", 2 / 256), ("PCM_24", 2 / 2**24), ("PCM_16", 2 / 2**16)])
def test_8_and_24_bit_files_are_read_as_float32(tmp_path: Path, subtype: str, step: float) -> None:
    sr = 22050
    wav = _tone(sr, 0.5)[:, 0]
    path = tmp_path / f"{subtype}.wav"
    sf.write(str(path), wav, sr, subtype=subtype)
    mono, rate = load_audio(path)
    assert rate == sr and mono.dtype == np.float32
    assert np.abs(mono - wav).max() <= step  # quantised to the file's bit depth, scaled to [-1, 1)
    np.testing.assert_array_equal(resample_original(mono, sr, 16000),
                                  resample_sinc(torch.from_numpy(mono), sr, 16000).numpy())


# --------------------------------------------------------------------------------------------
# Against the original's outputs (conformance resample/)
# --------------------------------------------------------------------------------------------


def test_every_conformance_case(reference) -> None:
    manifest, arrays = reference
    for case in manifest["cases"]:
        name, rate = case["name"], case["rate"]
        mono = arrays[f"{name}.input"].mean(axis=0, keepdims=True, dtype=np.float32)
        np.testing.assert_array_equal(mono, arrays[f"{name}.mono"])
        for new in (16000, 24000):
            ref = arrays[f"{name}.to{new}"]
            got = resample_sinc(torch.from_numpy(mono), rate, new).numpy()
            assert got.shape == ref.shape, name
            np.testing.assert_allclose(got, ref, atol=1e-5, rtol=0, err_msg=f"{name} → {new}")


class _RecordingEncoder:
    """A speaker encoder that keeps the fbank it is given (the 16 kHz path) and returns zeros."""

    def __init__(self) -> None:
        self.fbank: torch.Tensor | None = None

    def embed(self, fbank: torch.Tensor) -> torch.Tensor:
        self.fbank = fbank
        return torch.zeros(1, 192)


class _CountingTokenizer:
    def tokenize(self, feats: torch.Tensor) -> torch.Tensor:
        return torch.zeros(1, feats.shape[-1] // 4, dtype=torch.int32)


@pytest.mark.parametrize("rate", [22050, 44100, 48000])
@pytest.mark.parametrize("channels", [1, 2])
def test_exact_prompt_loading_matches_the_original(reference, tiny_cv2_model: Path, tmp_path: Path,
                                                   rate: int, channels: int) -> None:
    """A prompt file at 22.05, 44.1 or 48 kHz, mono or stereo, loads as the original loads it."""
    _, arrays = reference
    cases = {int(k.split(".")[0][1:]): k.split(".")[0] for k in arrays if k.endswith(".input")}
    if rate not in cases:
        pytest.skip(f"this conformance set has no {rate} Hz case")
    name = cases[rate]
    source = arrays[f"{name}.input"]  # [C, T]
    if source.shape[0] == channels:
        data = source
    elif channels == 1:
        data = arrays[f"{name}.mono"]  # the original's own mix, written as a mono file
    else:
        data = np.concatenate([source, source])  # two equal channels: their mean is the mono input
    path = tmp_path / f"prompt-{rate}-{channels}.wav"
    sf.write(str(path), data.T, rate, subtype="FLOAT")  # float32 samples survive the file exactly
    want16, want24 = arrays[f"{name}.to16000"][0], arrays[f"{name}.to24000"][0]
    cfg = load_model_config(tiny_cv2_model)
    encoder = _RecordingEncoder()
    features = extract_prompt(path, None, cfg, _CountingTokenizer(), encoder)
    assert features.audio_24k.shape == want24.shape
    np.testing.assert_allclose(features.audio_24k, want24, atol=1e-5, rtol=0)
    assert encoder.fbank is not None
    torch.testing.assert_close(encoder.fbank, speaker_fbank(want16), atol=1e-4, rtol=1e-4)
