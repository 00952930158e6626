"""Record the original CosyVoice2 NSF source's random draws for ``tests/test_hift.py``.

Usage (needs a checkout of the original, FunAudioLLM/CosyVoice at ace7c47, and torch 2.13 on the CPU;
nothing of the original is copied here, its own modules are imported and called):

    python tests/data/record_nsf_noise.py --cosyvoice /path/to/CosyVoice \
        --out tests/data/nsf_noise_original.npz

It builds the original's ``SourceModuleHnNSF`` as CosyVoice2's ``HiFTGenerator`` does at 24 kHz
(``sinegen_type='2'``, 8 harmonics above f0, 480 samples per frame), seeds the global RNG, and runs
one call on a fixed per-sample f0 of 2 x 960 samples. ``torch.rand`` and ``torch.randn_like`` are
wrapped only to copy what they return, in order: the initial phase [B, 9], the additive sine noise
[B, L, 9] (a ``randn_like`` of the sines' transposed view) and the noise branch [B, L, 1]. Then
``torch.rand(8)`` records where the generator stands after the call.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

SEED = 20240
BATCH, SAMPLES = 2, 960


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cosyvoice", type=Path, required=True, help="root of the original's source tree")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("nsf_noise_original.npz"))
    args = ap.parse_args()
    sys.path.insert(0, str(args.cosyvoice.resolve()))
    from cosyvoice.hifigan.generator import SourceModuleHnNSF  # the original's class

    torch.manual_seed(0)
    source = SourceModuleHnNSF(sampling_rate=24000, upsample_scale=480, harmonic_num=8, sine_amp=0.1,
                               add_noise_std=0.003, voiced_threshod=10, sinegen_type="2",
                               causal=False).eval()
    f0 = torch.linspace(0.0, 300.0, SAMPLES).repeat(BATCH, 1)[:, :, None]  # [B, L, 1] Hz
    drawn: list[torch.Tensor] = []
    real_rand, real_randn_like = torch.rand, torch.randn_like

    def rand(*a, **k):  # type: ignore[no-untyped-def]
        out = real_rand(*a, **k)
        drawn.append(out)
        return out

    def randn_like(*a, **k):  # type: ignore[no-untyped-def]
        out = real_randn_like(*a, **k)
        drawn.append(out.clone())
        return out

    torch.manual_seed(SEED)
    torch.rand, torch.randn_like = rand, randn_like  # type: ignore[assignment]
    try:
        with torch.inference_mode():
            source(f0)
    finally:
        torch.rand, torch.randn_like = real_rand, real_randn_like  # type: ignore[assignment]
    after = torch.rand(8)
    rand_ini, sine, branch = drawn  # rand_ini's column 0 was zeroed in place by the original
    np.savez(args.out, seed=np.int64(SEED), rand_ini=rand_ini.numpy(), sine=sine.contiguous().numpy(),
             branch=branch.contiguous().numpy(), after=after.numpy(),
             sine_strides=np.array(sine.stride(), dtype=np.int64), torch=np.array(torch.__version__))
    print(f"wrote {args.out}: sine {tuple(sine.shape)} strides {sine.stride()}")


if __name__ == "__main__":
    main()
