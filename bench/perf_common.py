"""What the scenarios of ``bench_perf.py`` share: the request's text, device sync, the CPU's name, peak
memory, the summary line, the model (random weights or a release folder) and the speed options from
the command line."""

from __future__ import annotations

import argparse
import contextlib
import platform
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from bench_core import build_random_model  # the sibling script (bench/ is the script's directory)

from cosycore.allocator import release_free_memory
from cosycore.model import CosyModel
from cosycore.perf import DRAFT_FLOW, FlowSettings, quality_options
from cosycore.testing.presets import release_config

ENDOFPROMPT_ID = 151646
TEXT = ("The quick brown fox jumps over the lazy dog, and then it runs away! It is ten thirty in the "
        "morning, and the temperature is three degrees.")


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def cpu_name() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


_CUDA_PEAK = [0]  # the process's peak of allocated CUDA memory across the per-stage resets of cuda_stage()


@contextlib.contextmanager
def cuda_stage(device: torch.device, record: dict[str, float], key: str) -> Iterator[None]:
    """Adds to ``record[key]`` (the largest so far) the CUDA memory a stage allocates above what was
    allocated when it began, GiB. Nothing on other devices; the process peak stays in peak_memory()."""
    if device.type != "cuda":
        yield
        return
    _CUDA_PEAK[0] = max(_CUDA_PEAK[0], torch.cuda.max_memory_allocated(device))
    base = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    try:
        yield
    finally:
        peak = torch.cuda.max_memory_allocated(device)
        _CUDA_PEAK[0] = max(_CUDA_PEAK[0], peak)
        record[key] = max(record.get(key, 0.0), (peak - base) / 2**30)


def peak_memory(device: torch.device) -> dict[str, float]:
    out = {"peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
    if device.type == "cuda":
        out["peak_cuda_gib"] = max(_CUDA_PEAK[0], torch.cuda.max_memory_allocated(device)) / 2**30
    return out



def summary(res: dict[str, Any]) -> str:
    keys = ("time_to_first_audio_s", "rtf", "llm_tokens_per_s", "frontend_s", "llm_prefill_s", "llm_decode_s",
            "flow_s", "vocoder_s", "audio_s", "flow_cache_peak_mb", "llm_cpu_s", "flow_cpu_s", "vocoder_cpu_s")
    return ", ".join(f"{k}={res[k]:.3f}" for k in keys)


def load_or_build(args: argparse.Namespace, dev: torch.device) -> CosyModel:
    """The model of ``--model-dir`` or the full-size architecture with random weights, built in memory.

    An ``args.quant`` LM is packed to int8 while it loads or is built, one decoder layer at a time, as
    the engine loads it (the same numbers as packing the float LM afterwards, less memory); with a
    ``--dtype`` other than float32 the random LM is built whole, cast, then packed. With ``--quality
    draft`` the flow is fixed to draft's setting as the engine loads it (``PerfOptions.fixed_flow``)."""
    dtype = getattr(torch, args.dtype)
    quant = getattr(args, "quant", None)
    fixed = flow_settings(args) if getattr(args, "fixed_flow", False) else None
    if args.model_dir:
        model = CosyModel.load(args.model_dir, device=dev, dtype=dtype, llm_quant=quant, fixed_flow=fixed)
    else:
        model = build_random_model(release_config(args.family), dev,
                                   llm_quant=quant if dtype == torch.float32 else None)
        if dtype != torch.float32:  # the LM and the flow; the vocoder stays float32 (its NSF source needs it)
            model.llm.to(dtype)
            model.flow.to(dtype)
        if fixed is not None:
            model.flow.fix_time_steps(fixed)
    if getattr(args, "quant", None) and model.llm.quantization is None:
        model.llm.quantize_int8(args.quant)
    if getattr(args, "llm_decode", None) == "ort-int4" and dev.type == "cpu":
        wait_for_decode_graph(args, model)
    if getattr(args, "flow_graph", None) == "ort" and dev.type == "cpu" and not getattr(args, "bf16", False):
        wait_for_flow_graph(args, model)
    if args.compile:
        # CUDA: static KV cache + CUDA graphs; elsewhere plain inductor code for the same graph.
        model.llm.compile_decode(mode="reduce-overhead" if dev.type == "cuda" else "default", dynamic=False)
    release_free_memory()  # as the engine does after loading (cosycore.perf.apply_load_options)
    return model


def wait_for_decode_graph(args: argparse.Namespace, model: CosyModel) -> None:
    """Attach the LM's 4-bit decode graph as the engine does, and wait for it: a bench times the
    steady state, not the first load's build (built once per weights, then cached)."""
    from perf_graph import attach_random_graph

    from cosycore.lm.ort_build import attach_decode_graph

    threads = torch.get_num_threads()
    job = (attach_decode_graph(model.llm, Path(args.model_dir), threads) if args.model_dir
           else attach_random_graph(model.llm, args.family, threads))
    if job is not None and not job.wait(3600):
        raise RuntimeError(f"the LM decode graph was not attached: {job.error}")
    model.decode_graph = job


def wait_for_flow_graph(args: argparse.Namespace, model: CosyModel) -> None:
    """Run the flow estimator through its ONNX Runtime graph as the engine does (cosycore.flow.ort_build),
    and wait for it; torch's copy of the estimator's weights is dropped before any request, as the
    engine does when it loads with the graph cached (the random model's graph is built once, in a
    process of its own, by perf_graph.py)."""
    from perf_graph import attach_random_flow_graph

    from cosycore.flow.ort_build import attach_estimator_graph

    threads = torch.get_num_threads()
    job = (attach_estimator_graph(model.flow, Path(args.model_dir), threads) if args.model_dir
           else attach_random_flow_graph(model.flow, args.family, threads))
    if job is None:
        return  # a model folder whose flow is too small for the graph to pay (ort_build.worth_it)
    if not job.wait(3600):
        raise RuntimeError(f"the flow estimator graph was not attached: {job.error}")
    if not model.flow.decoder.estimator_released:
        model.flow.decoder.release_estimator_weights()
    model.flow_graph = job


def apply_quality(args: argparse.Namespace, dev: torch.device) -> None:
    """``--quality``: the engine's options for that mode (cosycore.perf.quality_options) into ``args``."""
    if not args.quality:
        return
    opts = quality_options(args.quality, dev)
    args.flow_cache_mb = opts.flow_cache_mb if args.flow_cache_mb is None else args.flow_cache_mb
    args.prompt_cache = opts.prompt_cache if args.prompt_cache is None else args.prompt_cache
    args.quant = opts.llm_quant
    if getattr(args, "llm_decode", None) is None:
        args.llm_decode = opts.llm_decode
    if getattr(args, "flow_graph", None) is None:
        args.flow_graph = "ort" if opts.flow_graph else "torch"
    args.flow_cache = opts.flow_cache
    args.draft = opts.flow.n_steps is not None
    args.bf16 = opts.flow.autocast is torch.bfloat16
    args.warmup = args.warmup or opts.warm_up
    args.fixed_flow = opts.fixed_flow


def flow_settings(args: argparse.Namespace) -> FlowSettings:
    autocast = torch.bfloat16 if args.bf16 else None
    if args.draft:
        return FlowSettings(DRAFT_FLOW.n_steps, DRAFT_FLOW.cfg_rate, autocast)
    return FlowSettings(args.steps if args.steps != 10 else None, args.cfg_rate, autocast)
