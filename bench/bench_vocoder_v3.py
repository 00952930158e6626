"""CosyVoice3 vocoder: incremental stream vs the original's re-run of all accumulated mel.

    .venv/bin/python bench/bench_vocoder_v3.py --seconds 30            # tiny-width vocoder
    .venv/bin/python bench/bench_vocoder_v3.py --seconds 30 --release  # release width (slow on CPU)

Feeds the same random mel in the release chunk sizes (hops of 25+pad, 50, 100, 100… tokens, i.e.
50, 100, 200… frames) to both streams and prints, per chunk, the samples emitted, the largest
absolute difference between the two, and the seconds each took. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

import torch

from cosycore.testing.presets import release_config
from cosycore.vocoder.load import build_hift, fold_weight_norm
from cosycore.vocoder.stream import CausalHiftReferenceStream, CausalHiftStream


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--release", action="store_true", help="release width (512 channels) instead of 64")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = release_config("cosyvoice3")
    if not args.release:
        from dataclasses import replace

        cfg = replace(cfg, hift=replace(cfg.hift, base_channels=64,
                                        f0_predictor=replace(cfg.hift.f0_predictor, cond_channels=32)))
    torch.manual_seed(0)
    hift = build_hift(cfg)
    fold_weight_norm(hift)
    hift.eval().requires_grad_(False)
    frames = int(args.seconds * 50)
    mel = torch.randn(1, 80, frames, generator=torch.Generator().manual_seed(1)) * 2 - 5
    sizes, hop = [], 50
    while sum(sizes) < frames:
        sizes.append(min(hop, frames - sum(sizes)))
        hop = min(200, hop * 2)
    ref, inc = CausalHiftReferenceStream(hift), CausalHiftStream(hift)
    print(f"{'chunk':>5} {'frames':>6} {'samples':>8} {'max|diff|':>10} {'rerun s':>8} {'incr s':>8}")
    tot_r = tot_i = 0.0
    worst = 0.0
    start = 0
    with torch.inference_mode():
        for i, n in enumerate(sizes):
            piece = mel[:, :, start : start + n]
            start += n
            final = start == frames
            t0 = time.perf_counter()
            a = ref.push(piece, finalize=final)
            t1 = time.perf_counter()
            b = inc.push(piece, finalize=final)
            t2 = time.perf_counter()
            diff = float(abs(a - b).max()) if a.size else 0.0
            worst = max(worst, diff)
            tot_r += t1 - t0
            tot_i += t2 - t1
            assert a.size == b.size
            print(f"{i:>5} {n:>6} {a.size:>8} {diff:>10.2e} {t1 - t0:>8.3f} {t2 - t1:>8.3f}")
    print(f"total: re-run {tot_r:.2f} s, incremental {tot_i:.2f} s, largest difference {worst:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
