"""Conformance of the feature extractors: compare with the original implementation's ``features.npz``."""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from ..config import MelConfig
from ..errors import ConformanceError
from ..frontend.features import kaldi_fbank, prompt_mel, whisper_log_mel
from .checks import CheckResult, compare

logger = logging.getLogger(__name__)

# Known prompt-mel references: release feat_extractor parameters (used when the manifest's
# description carries no parameter dict).
_PROMPT_MEL_DEFAULTS: dict[str, float | None] = {"prompt_mel_cv2": 8000.0, "prompt_mel_cv3": None}
FEATURE_ATOL = 1e-3
FEATURE_RTOL = 1e-4
RESOLVED_DB = 70.0  # see resolved_mask


def _mel_config_from(entry: dict, name: str) -> MelConfig:
    """Prompt-mel parameters from a manifest entry's description, else the release defaults."""
    match = re.search(r"\{.*\}", str(entry.get("meaning", "")))
    params: dict = {}
    if match:
        try:
            params = json.loads(match.group(0))
        except json.JSONDecodeError:
            params = {}
    if not params and name not in _PROMPT_MEL_DEFAULTS:
        raise ConformanceError(f"{name}: no feat_extractor parameters in the manifest and no default")
    return MelConfig(
        n_fft=int(params.get("n_fft", 1920)),
        num_mels=int(params.get("num_mels", 80)),
        sampling_rate=int(params.get("sampling_rate", 24000)),
        hop_size=int(params.get("hop_size", 480)),
        win_size=int(params.get("win_size", 1920)),
        fmin=float(params.get("fmin", 0)),
        fmax=params["fmax"] if "fmax" in params else _PROMPT_MEL_DEFAULTS.get(name),
        center=bool(params.get("center", False)),
    )


@dataclass(frozen=True)
class _FeatureRun:
    """One recomputed reference array, plus what tells its rounding-sensitive entries apart."""

    got: torch.Tensor
    level: torch.Tensor  # natural-log spectrum, same shape as got, before any mean removal
    nats_per_db: float  # ln(10)/20 for log magnitude, ln(10)/10 for log power
    bin_axis: int  # the frequency axis of ``level`` (a frame's bins lie along it)


def resolved_mask(
    level: np.ndarray, *, nats_per_db: float, bin_axis: int, db: float = RESOLVED_DB
) -> np.ndarray:
    """True where a natural-log spectrum lies within ``db`` of its frame's maximum.

    Far below a frame's peak a float32 FFT returns mostly rounding error, which differs between FFT
    code paths (MKL picks one by CPU instruction set), and the log magnifies it. Only the entries
    inside this mask are expected to agree with a reference across machines at feature tolerance.
    """
    top = level.max(axis=bin_axis, keepdims=True)
    return level >= top - db * nats_per_db


def _recompute(name: str, entry: dict, arrays: dict[str, np.ndarray]) -> _FeatureRun | None:
    """Recompute the array ``name`` from the folder's input waveforms; None if it is not a feature."""

    def need(key: str) -> np.ndarray:
        if key not in arrays:
            raise ConformanceError(f"features.npz has {name} but not its input {key}")
        return arrays[key]

    ref = arrays[name]
    magnitude, power = math.log(10.0) / 20.0, math.log(10.0) / 10.0
    if name.startswith("prompt_mel"):
        mel = prompt_mel(need("wav_24k"), _mel_config_from(entry, name))  # [1, M, T]
        return _FeatureRun(mel, mel, magnitude, bin_axis=-2)
    if name.startswith("fbank"):
        feat = kaldi_fbank(need("wav_16k"), num_mel_bins=ref.shape[-1])  # [T, M]
        cmn = "cmn" in name
        got = feat - feat.mean(dim=0, keepdim=True) if cmn else feat
        return _FeatureRun(got, feat, power, bin_axis=-1)
    if name.startswith("whisper_logmel"):
        logmel = whisper_log_mel(need("wav_16k"), n_mels=ref.shape[-2])  # [1, M, T], (log10 + 4) / 4
        return _FeatureRun(logmel, logmel * (4.0 * math.log(10.0)), power, bin_axis=-2)
    return None


def _explain_failure(result: CheckResult, run: _FeatureRun, ref: np.ndarray) -> CheckResult:
    """Say in the note whether a failure lies only where float32 FFT rounding dominates."""

    got = run.got.cpu().numpy()
    if got.shape != ref.shape:
        return result
    mask = resolved_mask(run.level.cpu().numpy(), nats_per_db=run.nats_per_db, bin_axis=run.bin_axis)
    inner = compare(result.name, got[mask], ref[mask], result.atol, result.rtol)
    if not inner.passed:
        return result
    note = (
        f"{result.note}; all of them more than {RESOLVED_DB:g} dB below their frame's peak, where "
        f"float32 FFT rounding differs between MKL code paths (max err above that: {inner.max_abs_err:.3g}). "
        "Set MKL_CBWR=COMPATIBLE before starting to reproduce the reference bit for bit."
    )
    return replace(result, note=note)


def check_features_reference(features_dir: Path) -> list[CheckResult]:
    """Recompute every feature array listed in ``features_dir/manifest.json`` and compare.

    Inputs (``wav_*``) are read from ``features.npz``; arrays this module does not produce are
    skipped with a log line. Tolerances are the conformance README's for log-domain features.
    """

    manifest_path, npz_path = features_dir / "manifest.json", features_dir / "features.npz"
    for p in (manifest_path, npz_path):
        if not p.is_file():
            raise ConformanceError(f"{p.name} is missing from {features_dir}")
    try:
        entries: dict = json.loads(manifest_path.read_text())["files"]["features.npz"]
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise ConformanceError(f"{manifest_path} has no files/features.npz section") from e
    with np.load(npz_path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    results: list[CheckResult] = []
    for name, entry in entries.items():
        if entry.get("call") == "input" or name.startswith("wav_"):
            continue
        if name not in arrays:
            raise ConformanceError(f"manifest lists {name} but features.npz does not hold it")
        with torch.inference_mode():
            run = _recompute(name, entry, arrays)
        if run is None:
            logger.info("features: no extractor for %s; skipped", name)
            continue
        result = compare(name, run.got.cpu().numpy(), arrays[name], FEATURE_ATOL, FEATURE_RTOL)
        results.append(result if result.passed else _explain_failure(result, run, arrays[name]))
    return results

