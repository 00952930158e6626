"""Voice conversion's speed per quality mode: time to first audio and real-time factor of Engine.convert.

    # a full-size random-weight folder (written once by cosycore.testing.tiny_model --release-sizes)
    .venv/bin/python bench/bench_convert.py --model-dir /tmp/cv2-full --threads 2 --source-seconds 10
    # the command's code path on a tiny model (measures nothing useful)
    .venv/bin/python bench/bench_convert.py --family cosyvoice3 --dry-run

For each ``--quality`` mode (default: exact, fast, draft) an engine is loaded and converts a
synthetic, speech-like source of ``--source-seconds`` (an amplitude-modulated glide with pauses, at
22.05 kHz: the frontend resamples it as it would a recording) into a voice made from a
``--prompt-seconds`` clip, ``--runs`` times streamed and ``--runs`` times not. Reported per mode and
way: first audio (seconds from the ``convert`` call to the first chunk), total time, real-time
factor (total time / seconds of audio made; below 1 is faster than real time), chunks, and the
first run of the process on its own (cold start). Conversion has no LM, so the modes differ only in
the flow (see cosycore.perf). Also the CPU, threads, the load average before and after, and peak
memory. Nothing here asserts a speed.
"""

from __future__ import annotations

import os

if "GOMP_SPINCOUNT" not in os.environ:  # as the CLI and the app do (cosycore.threads.prefer_passive_wait)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from perf_common import cpu_name, peak_memory

from cosycore.config import QUALITY_MODES
from cosycore.engine import Engine

SOURCE_RATE = 22050


def speechlike(seconds: float, sr: int = SOURCE_RATE, seed: int = 0) -> np.ndarray:
    """A gliding, amplitude-modulated tone with a 0.3 s pause every 4 s and a little noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    f = 140 + 60 * np.sin(2 * np.pi * 0.7 * t + rng.uniform(0, 6))
    x = 0.3 * np.sin(2 * np.pi * np.cumsum(f) / sr) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    x[(t % 4.0) > 3.7] = 0.0
    return (x + 0.01 * rng.standard_normal(t.shape)).astype(np.float32)


def one_run(engine: Engine, source: np.ndarray, voice: Any, *, stream: bool) -> dict[str, float]:
    start = time.perf_counter()
    first = None
    samples = 0
    chunks = 0
    for chunk in engine.convert(source, voice, sample_rate=SOURCE_RATE, stream=stream, seed=0):
        if first is None:
            first = time.perf_counter() - start
        samples += chunk.samples.shape[0]
        chunks += 1
    total = time.perf_counter() - start
    audio = samples / engine.sample_rate
    return {"first_audio_s": first or total, "total_s": total, "audio_s": audio, "rtf": total / max(audio, 1e-9),
            "chunks": chunks}


def bench_mode(args: argparse.Namespace, quality: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    engine = Engine(args.model_dir, device=args.device, quality=quality, threads=args.threads)
    load_s = time.perf_counter() - t0
    voice = engine.create_voice(speechlike(args.prompt_seconds, seed=1), SOURCE_RATE, name="bench")
    source = speechlike(args.source_seconds)
    out: dict[str, Any] = {"quality": engine.quality, "load_s": load_s}
    for way, stream in (("streamed", True), ("whole", False)):
        runs = [one_run(engine, source, voice, stream=stream) for _ in range(args.runs + 1)]
        later = runs[1:]
        out[way] = {
            "cold": runs[0],
            "first_audio_s": statistics.median(r["first_audio_s"] for r in later),
            "rtf": statistics.median(r["rtf"] for r in later),
            "total_s": statistics.median(r["total_s"] for r in later),
            "audio_s": later[0]["audio_s"],
            "chunks": later[0]["chunks"],
            "runs": later,
        }
        print(f"{quality:6s} {way:8s}: first audio {out[way]['first_audio_s']:.2f} s, RTF {out[way]['rtf']:.2f} "
              f"({out[way]['audio_s']:.1f} s of audio, {out[way]['chunks']} chunk(s); cold: first audio "
              f"{runs[0]['first_audio_s']:.2f} s, RTF {runs[0]['rtf']:.2f})", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--model-dir", type=Path, default=None, help="a release folder (with its ONNX frontend models)")
    ap.add_argument("--family", choices=["cosyvoice2", "cosyvoice3"], default="cosyvoice2",
                    help="--dry-run: the tiny model's family")
    ap.add_argument("--quality", nargs="+", choices=QUALITY_MODES, default=list(QUALITY_MODES))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3, help="measured runs per mode and way, after one cold run")
    ap.add_argument("--source-seconds", type=float, default=10.0)
    ap.add_argument("--prompt-seconds", type=float, default=3.0)
    ap.add_argument("--dry-run", action="store_true", help="a tiny model, 3 s, 1 run: checks the command only")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if args.dry_run:
        from cosycore.testing.tiny_model import write_tiny_model

        tmp = tempfile.TemporaryDirectory()
        args.model_dir = write_tiny_model(Path(tmp.name) / "tiny", args.family).model_dir
        args.source_seconds, args.runs = min(args.source_seconds, 3.0), 1
    if args.model_dir is None:
        ap.error("--model-dir is required (or --dry-run)")
    if args.threads:
        torch.set_num_threads(args.threads)
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    results = {q: bench_mode(args, q) for q in args.quality}
    report = {
        "scenario": "convert",
        "model_dir": str(args.model_dir),
        "device": args.device,
        "cpu": cpu_name(),
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset: OpenMP's default)"),
        "torch": torch.__version__,
        "source_seconds": args.source_seconds,
        "prompt_seconds": args.prompt_seconds,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "results": results,
        **peak_memory(torch.device(args.device)),
    }
    if tmp is not None:
        report["dry_run"] = True
        tmp.cleanup()
    print(json.dumps(report, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
