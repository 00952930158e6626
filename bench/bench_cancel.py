"""Cancel latency: how soon the engine is idle after a cancel, at any point of a synthesis.

    .venv/bin/python -m bench.bench_cancel --family cosyvoice2 --runs 20
    .venv/bin/python -m bench.bench_cancel --family cosyvoice3 --device cuda --runs 20

Full-size release architectures with random weights, exact mode (10 Euler steps with guidance, the
release vocoder), streaming as the app does. Each run starts a synthesis on a worker thread (the
engine thread's role), waits a random time, cancels, and measures the seconds from the cancel to the
worker having stopped computing. The cancel is checked at every speech token, every Euler step of the
flow and between the vocoder's blocks (:mod:`cosycore.cancel`), which is the engine's own mechanism:
:meth:`Engine.synthesize` runs under the same scope. Random weights never stop on their own, so the
token count is held with ``min_len``/``max_len``. Nothing here asserts a speed; the figures go into
the README. The goal is under 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import threading
import time

import torch

from bench.bench_core import build_random_model
from cosycore.cancel import scoped
from cosycore.model import SynthesisKnobs, resolve_device
from cosycore.testing.presets import release_config


def one_run(model, delay: float, tokens: int, seed: int) -> dict[str, float]:
    """Start a synthesis, cancel it after ``delay`` s; the seconds until the worker stopped."""
    cancelled = threading.Event()
    produced = {"chunks": 0, "audio_s": 0.0}
    gen = torch.Generator().manual_seed(seed)
    text_ids = torch.randint(1000, 20000, (40,), generator=gen).tolist()
    embedding = torch.randn(model.cfg.flow.spk_embed_dim, generator=gen).to(model.device)
    knobs = SynthesisKnobs(stream=True, seed=seed, min_len=tokens, max_len=tokens)

    def work() -> None:
        with torch.inference_mode():
            for audio in scoped(model.tts(text_ids, embedding=embedding, knobs=knobs), cancelled.is_set):
                produced["chunks"] += 1
                produced["audio_s"] += audio.shape[0] / model.sample_rate

    worker = threading.Thread(target=work, name="engine")
    start = time.perf_counter()
    worker.start()
    worker.join(delay)
    if not worker.is_alive():
        return {"delay_s": delay, "latency_s": float("nan"), "finished_before_cancel": 1.0, **produced}
    t0 = time.perf_counter()
    cancelled.set()
    worker.join()
    latency = time.perf_counter() - t0
    return {"delay_s": round(t0 - start, 3), "latency_s": latency, "finished_before_cancel": 0.0, **produced}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", choices=("cosyvoice2", "cosyvoice3"), default="cosyvoice2")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=400, help="speech tokens per synthesis (16 s of audio)")
    parser.add_argument("--max-delay", type=float, default=10.0, help="latest cancel, seconds after the start")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    model = build_random_model(release_config(args.family), device)
    rng = random.Random(args.seed)
    one_run(model, 1.0, 60, 0)  # warm-up
    runs = [one_run(model, rng.uniform(0.2, args.max_delay), args.tokens, args.seed + i) for i in range(args.runs)]
    latencies = sorted(r["latency_s"] for r in runs if not r["finished_before_cancel"])
    out = {
        "family": args.family, "device": str(device), "torch_threads": torch.get_num_threads(),
        "quality": "exact", "runs": len(runs), "cancelled": len(latencies),
        "platform": platform.platform(), "torch": torch.__version__,
    }
    if latencies:
        out.update({
            "latency_median_s": round(statistics.median(latencies), 4),
            "latency_p95_s": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 4),
            "latency_max_s": round(latencies[-1], 4),
        })
    out["per_run"] = [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()} for r in runs]
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
