"""Conformance of the streaming schedule: cosycore's token2wav scheduler against the release's recorded calls."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..config import load_model_config
from ..devices import resolve_device
from ..flow import load_flow
from ..token2wav import Token2WavStream, token_audio
from .checks import CheckResult, compare
from .device import strict_float32, tensor


def check_streaming_schedule(model_dir: Path, flow_npz: Path, manifest: dict, *,
                             device: str | torch.device = "cpu") -> list[CheckResult]:
    """Run cosycore's token2wav scheduler on the reference flow inputs, with the flow on ``device``.

    The calls it makes (token_end, token_offset, streaming, finalize) must be the release schedule
    recorded in the manifest, and the mel it keeps from each call must equal the original's
    ``stream{i}.mel[..., release_slices_mel_from:]``.
    """
    dev = resolve_device(device)
    cfg = load_model_config(model_dir)
    flow = load_flow(cfg, device=dev)
    ref = np.load(flow_npz)
    calls = [c for c in manifest["info"]["flow"]["flow_calls"] if c["name"].startswith("stream")
             and c["name"][6:].isdigit()]
    calls.sort(key=lambda c: int(c["name"][6:]))

    class _Keep:
        def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
            return np.zeros(0, dtype=np.float32)

    stream = Token2WavStream(
        flow=flow,
        vocoder=_Keep(),
        prompt_token=tensor(ref["prompt_token"], dev).to(torch.int32),  # [1, P]; the stream's tokens follow it
        prompt_feat=tensor(ref["prompt_feat"], dev),  # [1, T_p, C]
        embedding=tensor(ref["embedding"], dev),  # [1, S]
        token_mel_ratio=cfg.token_mel_ratio,
        record_calls=True,
    )
    tokens = [int(t) for t in ref["token"][0][: max(c["token_end"] for c in calls)]]
    with torch.inference_mode(), strict_float32(dev):
        for _audio, _end in token_audio(tokens, stream):
            pass
    got = [(c.token_end, c.token_offset, c.streaming, c.finalize) for c in stream.calls]
    want = [(c["token_end"], c["token_offset"], c["streaming"], c["finalize"]) for c in calls]
    results = [
        CheckResult(
            "schedule", 0.0 if got == want else 1.0, 0.0, 0.0, 0.0, got == want,
            note="" if got == want else f"calls {got} != release schedule {want}",
        )
    ]
    for call, rec in zip(stream.calls, calls):
        start = rec["release_slices_mel_from"]
        ref_mel = ref[f"{rec['name']}.mel"][:, :, start:]
        assert call.mel is not None
        results.append(compare(f"{rec['name']}.kept_mel", call.mel.float().cpu().numpy(), ref_mel, 1e-3, 1e-3))
    return results

