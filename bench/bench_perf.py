"""Speed modes of the engine, one scenario per command, on the full-size architectures with random weights.

    # peak memory of loading alone, and of one draft request, from a full-size random-weight folder
    # (written once by .venv/bin/python -m cosycore.testing.tiny_model, see README "Performance")
    .venv/bin/python bench/bench_perf.py load --quality draft --model-dir /tmp/cv2-full
    .venv/bin/python bench/bench_perf.py request --quality draft --model-dir /tmp/cv2-full --audio-seconds 5 --runs 1
    # one synthesis request, streamed, with the per-stage split (exact mode)
    .venv/bin/python bench/bench_perf.py request --family cosyvoice2 --threads 2
    # the same with the speed options (any combination)
    .venv/bin/python bench/bench_perf.py request --quant int8 --draft --flow-cache full --warmup
    # LM decode speed, float32 and the int8 kernels side by side
    .venv/bin/python bench/bench_perf.py llm-speed --family cosyvoice2 --threads 2
    # int8 LM: logit agreement with float32 (random full-size LM, or a model folder)
    .venv/bin/python bench/bench_perf.py llm-accuracy --family cosyvoice2
    .venv/bin/python bench/bench_perf.py llm-accuracy --model-dir ../shared/conformance/cosyvoice2-tiny
    # flow step counts: token-to-audio speed and mel difference from the exact 10-step CFG flow
    .venv/bin/python bench/bench_perf.py draft --family cosyvoice3
    # float32 matmul precision / bfloat16 autocast on the flow
    .venv/bin/python bench/bench_perf.py precision --family cosyvoice2
    # where the time goes on the way to the first audio (torch profiler, top operators)
    .venv/bin/python bench/bench_perf.py profile --family cosyvoice2 --threads 2
    # the CUDA path: bfloat16 networks, compiled decode step (CUDA graphs); reports cleanly without a GPU
    .venv/bin/python bench/bench_perf.py request --device cuda --dtype bfloat16 --compile --warmup
    # ... and its CPU dry run: the same code path on a tiny model, to prove the command executes
    .venv/bin/python bench/bench_perf.py request --device cuda --dtype bfloat16 --compile --warmup --dry-run

``load`` loads the model as ``request`` does and stops: its peak memory is that of loading alone.
``request`` prints time to first audio, real-time factor, LM tokens/s, peak memory and the time
spent in each stage: frontend (text normalisation, tokenisation, prompt mel/fbank features; the two
ONNX frontend networks are not part of a random-weights setup), LM prefill, LM decode (including
sampling), flow and vocoder. The first request of a process is reported on its own (cold start),
then the median of the later ones. Random weights never stop on their own, so every request
generates exactly ``--audio-seconds`` of tokens. Nothing here asserts a speed.
"""

from __future__ import annotations

import os

# As the CLI and the app do (cosycore.threads.choose_wait_policy: OpenMP's spinning wait and the core
# governor where /proc/stat shows the machine, the passive wait elsewhere or with
# COSY_THREAD_GOVERNOR=0; a user's OMP_WAIT_POLICY or GOMP_SPINCOUNT is left alone); read once, when
# torch loads.
if "GOMP_SPINCOUNT" not in os.environ and (os.environ.get("COSY_THREAD_GOVERNOR", "").strip() == "0"
                                           or not os.path.exists("/proc/stat")):
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import json
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from perf_common import (
    cpu_name,
    peak_memory,
)
from perf_flow import scenario_draft, scenario_mel_diff, scenario_precision
from perf_llm import scenario_llm_accuracy, scenario_llm_speed
from perf_request import THREAD_VARIANTS, scenario_busy, scenario_load, scenario_profile, scenario_request

from cosycore.config import QUALITY_MODES
from cosycore.errors import ModelLoadError
from cosycore.lm.quant import LLM_QUANT_MODES
from cosycore.model import resolve_device
from cosycore.perf import DRAFT_FLOW
from cosycore.token2wav import FLOW_CACHE_MODES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("scenario", choices=["request", "load", "busy", "llm-speed", "llm-accuracy", "draft",
                                         "precision", "profile", "mel-diff"])
    ap.add_argument("--family", choices=["cosyvoice2", "cosyvoice3"], default="cosyvoice2")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--model-dir", type=Path, default=None, help="a release folder instead of random weights")
    ap.add_argument("--quant", choices=sorted(LLM_QUANT_MODES), default=None, help="int8 LM weights (CPU)")
    ap.add_argument("--draft", action="store_true", help=f"draft flow: {DRAFT_FLOW.n_steps} steps, no CFG")
    ap.add_argument("--steps", type=int, default=10, help="flow Euler steps (request: with --cfg-rate); "
                    "llm-accuracy: decode steps compared")
    ap.add_argument("--cfg-rate", type=float, default=None)
    ap.add_argument("--bf16", action="store_true", help="bfloat16 autocast of the flow estimator")
    ap.add_argument("--flow-cache", choices=FLOW_CACHE_MODES, default="off")
    ap.add_argument("--warmup", action="store_true", help="run cosycore.perf.warm_up() after loading")
    ap.add_argument("--quality", choices=QUALITY_MODES, default=None,
                    help="request, load: the engine's options of this quality mode (overrides --quant/--draft/--bf16/"
                         "--flow-cache)")
    ap.add_argument("--flow-graph", choices=["ort", "torch"], default=None,
                    help="request, load: the flow estimator through ONNX Runtime's float32 graph, or torch "
                         "(default: the --quality mode's)")
    ap.add_argument("--vocoder-graph", choices=["ort", "torch"], default=None,
                    help="request, load: the vocoder's convolution body through ONNX Runtime's float32 graph, "
                         "or torch (default: the --quality mode's)")
    ap.add_argument("--llm-decode", choices=["ort-int4", "torch"], default=None,
                    help="request, load: the LM's one-position steps through ONNX Runtime's 4-bit graph, or "
                         "torch's kernels (default: the --quality mode's)")
    ap.add_argument("--flow-cache-mb", type=float, default=None,
                    help="request: bound of the flow cache (default: none; --quality: the engine's 512)")
    ap.add_argument("--prompt-cache", action=argparse.BooleanOptionalAction, default=None,
                    help="request: start streams from the prompt frames' cached flow states (--quality: on)")
    ap.add_argument("--overlap", action="store_true",
                    help="request: the LM decodes on its own thread, threads // 2 torch threads per stage")
    ap.add_argument("--final-threads", action="store_true",
                    help="request with --overlap: token2wav gets every thread once the LM is done")
    ap.add_argument("--variants", nargs="*", choices=list(THREAD_VARIANTS), default=None,
                    help="busy: the thread layouts to compare (default: all)")
    ap.add_argument("--busy", type=int, default=0, metavar="N",
                    help="request: keep N cores busy with spin-loop processes during the measurement")
    ap.add_argument("--offline", action="store_true", help="request: no streaming (one flow call at the end)")
    ap.add_argument("--context", type=int, default=300, help="llm-speed: positions before decoding")
    ap.add_argument("--prompt-seconds", type=float, default=3.0)
    ap.add_argument("--audio-seconds", type=float, default=10.0)
    ap.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32",
                    help="precision of the LM and the flow (request, profile)")
    ap.add_argument("--compile", action="store_true",
                    help="torch.compile the LM decode step over a static KV cache (CUDA graphs on CUDA)")
    ap.add_argument("--dry-run", action="store_true",
                    help="run the scenario's code path on the CPU with a tiny model (checks the command, "
                         "measures nothing useful)")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    dry_dir: tempfile.TemporaryDirectory[str] | None = None
    if args.dry_run:
        from cosycore.testing.tiny_model import write_tiny_model

        print(f"bench_perf: dry run of --device {args.device} on the CPU with a tiny {args.family} model",
              file=sys.stderr)
        dry_dir = tempfile.TemporaryDirectory()
        write_tiny_model(Path(dry_dir.name) / "tiny", args.family)
        args.model_dir, args.device = Path(dry_dir.name) / "tiny", "cpu"
        args.audio_seconds, args.runs = min(args.audio_seconds, 3.0), min(args.runs, 2)
    if args.scenario == "llm-accuracy" and args.steps == 10:
        args.steps = 300
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        dev = resolve_device(args.device)
    except ModelLoadError as e:
        print(f"bench_perf: {e}; nothing was measured.", file=sys.stderr)
        return 2
    scenarios: dict[str, Callable[[argparse.Namespace, torch.device], dict[str, Any]]] = {
        "request": scenario_request, "llm-speed": scenario_llm_speed, "llm-accuracy": scenario_llm_accuracy,
        "draft": scenario_draft, "precision": scenario_precision, "profile": scenario_profile,
        "busy": scenario_busy, "mel-diff": scenario_mel_diff, "load": scenario_load,
    }
    results = scenarios[args.scenario](args, dev)
    report = {
        "scenario": args.scenario,
        "device": str(dev),
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset: OpenMP's default)"),
        "cpu": cpu_name(),
        "torch": torch.__version__,
        "results": results,
        **peak_memory(dev),
    }
    if dry_dir is not None:
        report["dry_run"] = True
        dry_dir.cleanup()
    print(json.dumps(report, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
