"""Conformance of the HiFT vocoder: compare with the original implementation's ``reference/hift.npz``.

The checks run where the vocoder's weights are: every reference array goes to that device, and
``compare`` brings the outputs back to the CPU. No check draws noise on that device (see
:mod:`cosycore.conformance.device`): CosyVoice2 is fed the original's recorded draws, and the
CosyVoice3 noise bank is drawn on the CPU by the runtime and moved.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..config import load_model_config
from ..devices import resolve_device
from ..vocoder.hift import CausalHiFTGenerator, HiFTGenerator
from ..vocoder.load import load_hift
from ..vocoder.nsf import NsfNoise, per_sample
from ..vocoder.stream import (
    MEL_CACHE_FRAMES,
    CausalHiftReferenceStream,
    CausalHiftStream,
    fade_in_out,
    fade_window,
    vocode_chunk_v2,
)
from .checks import CheckResult, compare
from .device import module_device, strict_float32, tensor

_F0_TOL = (1e-3, 1e-4)
_WAVE_TOL = (1e-4, 0.0)
_E2E_TOL = (5e-4, 0.0)  # CosyVoice2 end to end from our own float32 f0 (see _check_v2)
_EXACT = (0.0, 0.0)


def _recorded_noise(ref: dict[str, np.ndarray], p: str, dev: torch.device) -> NsfNoise:
    return NsfNoise(tensor(ref[f"{p}.random1_randn_like"], dev), tensor(ref[f"{p}.random0_rand"], dev),
                    tensor(ref[f"{p}.random2_randn_like"], dev))


@torch.inference_mode()
def _check_v2_call(hift: HiFTGenerator, ref: dict[str, np.ndarray], p: str) -> list[CheckResult]:
    dev = module_device(hift.conv_pre)
    mel = tensor(ref[f"{p}.mel"], dev)
    f0 = hift.predict_f0(mel)
    noise = _recorded_noise(ref, p, dev)
    given = hift.nsf_source(tensor(ref[f"{p}.f0"], dev), noise=noise)  # the recorded f0 and draws
    own = hift.nsf_source(f0, noise=noise)
    if f"{p}.cache_source" in ref:
        cache = tensor(ref[f"{p}.cache_source"], dev)
        for res in (given, own):
            res.source[:, :, : cache.shape[2]] = cache
    ref_speech = ref[f"{p}.speech"]
    return [
        compare(f"{p}.f0", f0, ref[f"{p}.f0"], *_F0_TOL),
        compare(f"{p}.f0_upsampled", per_sample(f0[:, :, None], hift.nsf), ref[f"{p}.f0_upsampled"],
                *_F0_TOL),
        compare(f"{p}.uv", own.uv, ref[f"{p}.uv"], *_EXACT),
        compare(f"{p}.source", given.source, ref[f"{p}.source"], *_WAVE_TOL),
        compare(f"{p}.speech", hift.decode(mel, tensor(ref[f"{p}.source"], dev)), ref_speech, *_WAVE_TOL),
        compare(f"{p}.source[own f0]", own.source, ref[f"{p}.source"], *_E2E_TOL),
        compare(f"{p}.speech[own f0]", hift.decode(mel, own.source), ref_speech, *_E2E_TOL),
    ]


def _check_v2_stream(hift: HiFTGenerator, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    """The release glue: chunk0 (not final), then chunk1 = 8 cached frames + the new frames."""
    n_cache = MEL_CACHE_FRAMES
    dev = module_device(hift.conv_pre)
    mel0, mel1 = tensor(ref["chunk0.mel"], dev), tensor(ref["chunk1.mel"][:, :, n_cache:], dev)
    emitted0, cache = vocode_chunk_v2(hift, mel0, None, False, noise=_recorded_noise(ref, "chunk0", dev))
    assert cache is not None
    faded, _ = vocode_chunk_v2(hift, mel1, cache, True, noise=_recorded_noise(ref, "chunk1", dev))
    overlap = n_cache * hift.cfg.hop_samples
    tail = tensor(ref["chunk0.speech"][:, -overlap:], dev)
    given_fade = fade_in_out(tensor(ref["chunk1.speech"], dev), tail, fade_window(overlap))
    return [
        compare("chunk0.speech_emitted", emitted0, ref["chunk0.speech_emitted"], *_E2E_TOL),
        compare("chunk1.cache_source", cache.source, ref["chunk1.cache_source"], *_E2E_TOL),
        compare("chunk1.mel[:8]", cache.mel, ref["chunk1.mel"][:, :, :n_cache], *_EXACT),
        compare("chunk1.speech_faded", faded, ref["chunk1.speech_faded"], *_E2E_TOL),
        compare("chunk1.speech_faded[given speech]", given_fade, ref["chunk1.speech_faded"], 1e-6, 0.0),
    ]


def _check_v2(hift: HiFTGenerator, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    """CosyVoice2: per call f0, source (from the recorded f0 and random draws) and speech (from the
    recorded source); then the same end to end from our own f0, and the release streaming glue.

    The float32 f0 of the tiny model is ill-conditioned (its rescaled head cancels terms up to
    ~500x), so our f0 and the original's each sit ~5e-5 relative from the float64 value; through
    the phase sum that moves the end-to-end source / speech by up to ~2.5e-4, hence _E2E_TOL.
    """
    out = [r for p in ("full", "chunk0", "chunk1") for r in _check_v2_call(hift, ref, p)]
    return out + _check_v2_stream(hift, ref)


@torch.inference_mode()
def _check_v3_call(hift: CausalHiFTGenerator, ref: dict[str, np.ndarray], p: str) -> list[CheckResult]:
    dev = module_device(hift.conv_pre)
    mel = tensor(ref[f"{p}.mel"], dev)
    finalize = ref[f"{p}.speech"].shape[1] == hift.cfg.hop_samples * mel.shape[2]
    f0 = hift.predict_f0(mel, finalize)  # float64
    res = hift.nsf_source(f0)
    dec_mel = mel if finalize else mel[:, :, : -hift.f0_lookahead]
    ref_speech = ref[f"{p}.speech"]
    f0_up = per_sample(f0.float()[:, :, None], hift.nsf)
    return [
        compare(f"{p}.f0", f0, ref[f"{p}.f0"], *_F0_TOL),
        compare(f"{p}.f0_upsampled", f0_up, ref[f"{p}.f0_upsampled"], *_F0_TOL),
        compare(f"{p}.uv", res.uv, ref[f"{p}.uv"], *_EXACT),
        compare(f"{p}.source", res.source, ref[f"{p}.source"], *_WAVE_TOL),
        compare(f"{p}.speech", hift.decode(dec_mel, tensor(ref[f"{p}.source"], dev), finalize), ref_speech,
                *_WAVE_TOL),
        compare(f"{p}.speech[own source]", hift.inference(mel, finalize)[0], ref_speech, *_WAVE_TOL),
    ]


def _check_v3(hift: CausalHiFTGenerator, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    """CosyVoice3: the fixed noise (exact), per call f0 / uv / source / speech, and the release
    stream (chunk0 not final, then the whole mel final) through both stream implementations."""
    bank = hift.noise_bank  # drawn on the CPU whatever the device; nsf_source moves its rows
    out = [
        compare("rand_ini", bank.rand_ini(), ref["rand_ini"], *_EXACT),
        compare("sine_noise", bank.rows(0, ref["sine_noise"].shape[1]), ref["sine_noise"], *_EXACT),
    ]
    out += [r for p in ("full", "chunk0", "chunk1") for r in _check_v3_call(hift, ref, p)]
    split = ref["chunk0.mel"].shape[2]
    mel = tensor(ref["chunk1.mel"], module_device(hift.conv_pre))
    streams: dict[str, CausalHiftReferenceStream | CausalHiftStream] = {
        "reference": CausalHiftReferenceStream(hift), "incremental": CausalHiftStream(hift)}
    for name, stream in streams.items():
        a = stream.push_tensor(mel[:, :, :split], finalize=False)
        b = stream.push_tensor(mel[:, :, split:], finalize=True)
        wave = torch.cat([a, b], dim=1)  # [1, 480 T]
        out.append(compare(f"stream_concat[{name}]", wave, ref["stream_concat"], *_WAVE_TOL))
    return out


def check_hift_reference(model_dir: Path, ref_npz: Path, *, device: str | torch.device = "cpu") -> list[CheckResult]:
    """Compare the vocoder of the release folder ``model_dir``, loaded on ``device``, with ``hift.npz``."""
    dev = resolve_device(device)
    cfg = load_model_config(model_dir)
    hift = load_hift(cfg, dev)
    with np.load(ref_npz) as z:
        ref = {k: z[k] for k in z.files}
    with strict_float32(dev):
        if isinstance(hift, CausalHiFTGenerator):
            return _check_v3(hift, ref)
        return _check_v2(hift, ref)

