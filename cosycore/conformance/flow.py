"""Conformance of a flow model against the original implementation's ``reference/flow.npz``.

The manifest's ``info.flow.flow_calls`` lists the recorded calls (name, token_end, token_offset,
finalize, streaming). For each call we run ``flow.inference`` on the shared inputs (``token``,
``prompt_token``, ``prompt_feat``, ``embedding``) and compare every ``<name>.*`` array the file
holds: ``mu``, ``spks``, ``cond``, the first estimator call ``est0.*`` and the output ``mel``.
Works for both families, because it only goes through :func:`cosycore.flow.load_flow`.

Shapes: C = mel bins, T = prompt + generated frames of a call, B = CFG batch (2).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..devices import resolve_device
from ..errors import ConformanceError
from .checks import CheckResult, compare
from .device import CPU, strict_float32, tensor

logger = logging.getLogger(__name__)

# Tolerances of the conformance README (float32, CPU).
INTERMEDIATE_TOL = (1e-4, 1e-4)  # mu / spks / cond / est0.*
MEL_TOL = (1e-3, 1e-3)  # after 10 Euler steps
CAPTURED = ("mu", "spks", "cond", "est0.x", "est0.mask", "est0.mu", "est0.t", "est0.spks", "est0.cond",
            "est0.out")


def _inputs(ref: Mapping[str, np.ndarray], device: torch.device = CPU) -> dict[str, torch.Tensor]:
    try:
        return {
            "token": tensor(np.asarray(ref["token"]).astype(np.int64), device),  # [1, L]
            "prompt_token": tensor(np.asarray(ref["prompt_token"]).astype(np.int64), device),  # [1, P]
            "prompt_feat": tensor(np.asarray(ref["prompt_feat"], dtype=np.float32), device),  # [1, T_p, C]
            "embedding": tensor(np.asarray(ref["embedding"], dtype=np.float32), device),  # [1, S]
        }
    except KeyError as e:
        raise ConformanceError(f"flow.npz lacks the input array {e.args[0]!r}") from e


def _flow_calls(manifest: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    try:
        info = manifest["info"]["flow"]
        calls = list(info["flow_calls"])
    except (KeyError, TypeError) as e:
        raise ConformanceError("manifest.json has no info.flow.flow_calls list") from e
    for call in calls:
        missing = {"name", "token_end", "finalize", "streaming"} - set(call)
        if missing:
            raise ConformanceError(f"flow call {call!r} lacks {sorted(missing)}")
    return calls, info


def run_flow_call(
    flow: Any, inputs: Mapping[str, torch.Tensor], call: Mapping[str, Any], *, n_steps: int | None = None,
    cfg_rate: float | None = None,
) -> dict[str, torch.Tensor]:
    """Run one recorded call; returns the captured intermediates plus ``mel`` [1, C, T_gen]."""
    capture: dict[str, torch.Tensor] = {}
    mel = flow.inference(
        inputs["token"][:, : int(call["token_end"])],
        inputs["prompt_token"],
        inputs["prompt_feat"],
        inputs["embedding"],
        streaming=bool(call["streaming"]),
        finalize=bool(call["finalize"]),
        n_steps=n_steps,
        cfg_rate=cfg_rate,
        capture=capture,
    )
    capture["mel"] = mel
    return capture


def compare_flow_call(
    name: str, got: Mapping[str, torch.Tensor], ref: Mapping[str, np.ndarray]
) -> list[CheckResult]:
    """Compare the arrays of one call with ``ref[f"{name}.*"]`` (those the file holds)."""
    results = []
    for key in (*CAPTURED, "mel"):
        ref_key = f"{name}.{key}"
        if ref_key not in ref:
            continue
        atol, rtol = MEL_TOL if key == "mel" else INTERMEDIATE_TOL
        results.append(compare(ref_key, got[key].float().cpu().numpy(), ref[ref_key], atol, rtol))
    return results


def check_noise(flow: Any, ref: Mapping[str, np.ndarray], device: torch.device = CPU) -> list[CheckResult]:
    """The fixed initial noise, as the sampler hands it to ``device``, must equal the recorded
    ``cfm_noise`` (its first frames). The sampler draws it on the CPU whatever the device
    (``FixedNoise``), so it is bit-exact on a GPU too."""
    if "cfm_noise" not in ref:
        return []
    want = np.asarray(ref["cfm_noise"])  # [1, C, T]
    got = flow.decoder.sampler.noise(want.shape[-1], device, torch.float32)
    return [compare("cfm_noise", got.cpu().numpy(), want, 0.0, 0.0)]


def check_flow_reference(model_dir: Path, ref_npz: Path, manifest: dict, *,
                         device: str | torch.device = "cpu",
                         prepare: Callable[[Any], object] | None = None) -> list[CheckResult]:
    """Load the flow of ``model_dir`` on ``device`` and compare every recorded call of ``ref_npz`` with it.

    ``prepare(flow)`` runs on the loaded flow first (e.g. to run its estimator through another runtime)."""
    from ..config import load_model_config
    from ..flow import load_flow

    dev = resolve_device(device)
    calls, info = _flow_calls(manifest)
    cfg = load_model_config(model_dir)
    flow = load_flow(cfg, device=dev)
    if prepare is not None:
        prepare(flow)
    with np.load(ref_npz) as npz:
        ref = {k: npz[k] for k in npz.files}
    inputs = _inputs(ref, dev)
    n_steps = int(info["n_timesteps"]) if "n_timesteps" in info else None
    cfg_rate = float(info["inference_cfg_rate"]) if "inference_cfg_rate" in info else None
    with strict_float32(dev):
        results = check_noise(flow, ref, dev)
        for call in calls:
            got = run_flow_call(flow, inputs, call, n_steps=n_steps, cfg_rate=cfg_rate)
            results.extend(compare_flow_call(str(call["name"]), got, ref))
    return results
