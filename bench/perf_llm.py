"""``bench_perf.py llm-accuracy`` (int8 and the 4-bit decode graph against float32) and ``llm-speed``
(decode tokens/s side by side: float32 as ``nn.Linear`` keeps it, float32 in the CPU decode layout of
:mod:`cosycore.lm.layout`, int8, and int8 prefill with ONNX Runtime's 4-bit decode graph,
:mod:`cosycore.lm.ort_decode`)."""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from pathlib import Path
from typing import Any

import torch
from perf_common import (
    ENDOFPROMPT_ID,
    sync,
)

from cosycore.config import load_model_config
from cosycore.lm.layout import use_decode_layout
from cosycore.lm.load import load_llm
from cosycore.lm.ort_build import build_folder, graphs_dir
from cosycore.lm.ort_decode import OrtDecodeStep, graph_key
from cosycore.lm.quant import LLM_QUANT_MODES, logit_agreement
from cosycore.lm.speech_lm import SpeechLM
from cosycore.testing.presets import release_config


def decode_graph(args: argparse.Namespace, lm: SpeechLM) -> Path:
    """The 4-bit decode graph of ``lm`` (float), from the engine's cache or built here."""
    from perf_graph import random_graph_dir

    dest = (graphs_dir() / graph_key(Path(args.model_dir) / "llm.pt", 4) if args.model_dir
            else random_graph_dir(args.family))
    return build_folder(lambda: lm, dest)


# --------------------------------------------------------------------------------------------
# llm-accuracy: int8 against float32
# --------------------------------------------------------------------------------------------


def scenario_llm_accuracy(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    if args.model_dir:
        lm = load_llm(load_model_config(args.model_dir), device=dev)
        family = lm.cfg.family
    else:
        family = args.family
        torch.manual_seed(0)
        with torch.device(dev):
            lm = SpeechLM(release_config(family).llm)
        lm.eval().requires_grad_(False)
    gen = torch.Generator().manual_seed(5)
    text = torch.randint(0, 5000, (30,), generator=gen).tolist()
    ptext = [*torch.randint(0, 5000, (20,), generator=gen).tolist(), ENDOFPROMPT_ID]
    pspeech = torch.randint(0, 6561, (75,), generator=gen).tolist()
    n = args.steps
    out: dict[str, Any] = {"family": family, "model": str(args.model_dir or "random full-size"), "steps": n}
    with torch.inference_mode():
        lm_input = lm.build_lm_input(text, ptext, pspeech)
        greedy32 = list(lm.generate(text, ptext, pspeech, greedy=True, min_len=n, max_len=n))
        ref = lm.teacher_force(lm_input, greedy32[:-1], min_len=0).logits
    for mode in (*LLM_QUANT_MODES, "int8+ort-int4"):
        if mode == "int8":
            continue  # same kernel as int8-dynamic
        q = copy.deepcopy(lm)
        if mode == "int8+ort-int4":  # fast's and draft's LM on a CPU: int8 prefill, 4-bit decode graph
            if dev.type != "cpu":
                continue
            q.quantize_int8("int8-dynamic")
            q.decode_step = OrtDecodeStep(decode_graph(args, copy.deepcopy(lm)), torch.get_num_threads())
        else:
            q.quantize_int8(mode)
        with torch.inference_mode():
            logits = q.teacher_force(q.build_lm_input(text, ptext, pspeech), greedy32[:-1], min_len=0).logits
            greedy_q = list(q.generate(text, ptext, pspeech, greedy=True, min_len=n, max_len=n))
        agree = logit_agreement(ref, logits)
        first = next((i for i, (a, b) in enumerate(zip(greedy_q, greedy32)) if a != b), n)
        same = sum(a == b for a, b in zip(greedy_q, greedy32))
        print(f"{mode}: teacher-forced on the float32 greedy tokens: {agree.summary()}; "
              f"free-running greedy: {same}/{n} tokens equal, first difference at step {first}", flush=True)
        out[mode] = {**agree.__dict__, "greedy_equal": same, "greedy_first_difference": first}
    return out


# --------------------------------------------------------------------------------------------
# llm-speed: decode tokens/s of float32 and int8 side by side
# --------------------------------------------------------------------------------------------


def scenario_llm_speed(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    """Decode steps at a ``--context``-position context, the variants interleaved round by round."""
    torch.manual_seed(0)
    with torch.device(dev):
        base = SpeechLM(release_config(args.family).llm)
    base.eval().requires_grad_(False)
    variants: dict[str, SpeechLM] = {"float32": base}
    if dev.type == "cpu":  # the int8 kernels are CPU-only
        laid_out = copy.deepcopy(base)
        use_decode_layout(laid_out)  # what cosycore.lm.load gives a float32 LM on a CPU
        variants["float32-decode-layout"] = laid_out
        for mode in ("int8-dynamic", "int8-weight-only"):
            q = copy.deepcopy(base)
            q.quantize_int8(mode)
            variants[mode] = q
        # fast's and draft's LM: int8 prefill, decode steps through ONNX Runtime's 4-bit graph
        q = copy.deepcopy(variants["int8-dynamic"])
        q.decode_step = OrtDecodeStep(decode_graph(args, copy.deepcopy(base)), torch.get_num_threads())
        variants["int8+ort-int4"] = q
    else:  # on a GPU the LM runs in float32 (exact) or bfloat16 (--dtype bfloat16)
        variants["bfloat16"] = copy.deepcopy(base).to(torch.bfloat16)
    d = base.cfg.qwen.hidden_size
    gen = torch.Generator().manual_seed(1)
    x = (torch.randn(1, args.context, d, generator=gen) * 0.02).to(dev)
    step_in = (torch.randn(1, d, generator=gen) * 0.02).to(dev)
    steps = 16
    times: dict[str, list[float]] = {k: [] for k in variants}
    prefill: dict[str, list[float]] = {k: [] for k in variants}
    with torch.inference_mode():
        for rnd in range(args.runs + 1):  # round 0 warms up
            for name, lm in variants.items():
                dtype = next(lm.parameters()).dtype if dev.type != "cpu" else torch.float32
                cache = lm.new_cache(args.context + steps + 1, device=dev, dtype=dtype)
                sync(dev)
                t0 = time.perf_counter()
                lm.prefill(x.to(dtype), cache)
                sync(dev)
                t1 = time.perf_counter()
                for _ in range(steps):
                    lm.logits(lm.decode_one_token(step_in.to(dtype), cache)).argmax()
                sync(dev)
                t2 = time.perf_counter()
                if rnd:
                    prefill[name].append(t1 - t0)
                    times[name].append((t2 - t1) / steps)
    out: dict[str, Any] = {"family": args.family, "context": args.context, "threads": torch.get_num_threads()}
    for name in variants:
        ms = 1e3 * statistics.median(times[name])
        out[name] = {"decode_ms_per_token": ms, "decode_tokens_per_s": 1e3 / ms,
                     "decode_ms_min": 1e3 * min(times[name]), "prefill_s": statistics.median(prefill[name])}
        print(f"{name}: decode {ms:.1f} ms/token ({1e3 / ms:.1f} tokens/s, best {1e3 * min(times[name]):.1f} ms), "
              f"prefill of {args.context} positions {statistics.median(prefill[name]):.2f} s", flush=True)
    return out
