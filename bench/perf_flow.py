"""``bench_perf.py draft``, ``mel-diff`` and ``precision``: flow steps and CFG against the exact flow, each
quality mode's streamed mel against the exact stream's, and matmul precision / autocast on the flow."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from bench_core import flow_case  # the sibling script (bench/ is the script's directory)
from perf_common import (
    flow_settings,
    load_or_build,
    sync,
)

from cosycore.config import QUALITY_MODES
from cosycore.model import CosyModel
from cosycore.perf import EXACT_FLOW, FlowSettings, quality_options
from cosycore.token2wav import StreamSchedule, Token2WavStream, prompt_flow_cache

# --------------------------------------------------------------------------------------------
# draft: flow steps / CFG against the exact flow
# --------------------------------------------------------------------------------------------

# The exact flow, then the draft candidates; 10 steps without CFG and 4 with it separate the two
# effects; the last two add bfloat16 estimator autocast.
DRAFT_SETTINGS = (EXACT_FLOW, FlowSettings(10, 0.0), FlowSettings(4, None), FlowSettings(4, 0.0),
                  FlowSettings(3, 0.0), FlowSettings(2, 0.0), FlowSettings(4, 0.0, torch.bfloat16),
                  FlowSettings(2, 0.0, torch.bfloat16))


def setting_name(f: FlowSettings) -> str:
    if f.exact:
        return "exact (10 steps, CFG 0.7)"
    name = f"{f.n_steps or 10} steps, " + ("no CFG" if f.cfg_rate == 0.0 else "CFG 0.7")
    return name + (", bf16 autocast" if f.autocast is torch.bfloat16 else "")



def run_t2w(model: CosyModel, case: tuple[torch.Tensor, ...], flow: FlowSettings) -> tuple[torch.Tensor, float, float]:
    """One offline flow call and one vocoder pass: (mel, flow seconds, vocoder seconds)."""
    dev = model.device
    tok, ptok, feat, emb = case
    with torch.inference_mode():
        sync(dev)
        t0 = time.perf_counter()
        mel = model.flow.inference(tok, ptok, feat, emb, streaming=False, finalize=True,
                                   n_steps=flow.n_steps, cfg_rate=flow.cfg_rate, autocast=flow.autocast)
        sync(dev)
        t1 = time.perf_counter()
        model.vocoder_stream(torch.Generator(device=dev).manual_seed(3)).push(mel, finalize=True)
        sync(dev)
        t2 = time.perf_counter()
    return mel, t1 - t0, t2 - t1


def mel_difference(mel: torch.Tensor, ref: torch.Tensor) -> dict[str, float]:
    d = (mel.float() - ref.float()).cpu()
    return {"mel_max_abs_diff": float(d.abs().max()), "mel_rms_diff": float(d.pow(2).mean().sqrt()),
            "exact_mel_rms": float(ref.float().pow(2).mean().sqrt())}


@dataclass
class Variant:
    """A named setting entered before and left after each timed run."""

    name: str
    flow: FlowSettings
    enter: Callable[[], None] = lambda: None
    leave: Callable[[], None] = lambda: None
    flow_s: list[float] = field(default_factory=list)
    voc_s: list[float] = field(default_factory=list)
    mel: torch.Tensor | None = None


def compare_variants(model: CosyModel, case: tuple[torch.Tensor, ...], variants: list[Variant], runs: int,
                     ref: torch.Tensor, audio_s: float) -> dict[str, Any]:
    """Round-robin over the variants (round 0 warms up), so they share the machine's load."""
    for rnd in range(runs + 1):
        for v in variants:
            v.enter()
            try:
                mel, t_flow, t_voc = run_t2w(model, case, v.flow)
            finally:
                v.leave()
            if rnd:
                v.flow_s.append(t_flow)
                v.voc_s.append(t_voc)
                v.mel = mel
    out: dict[str, Any] = {}
    for v in variants:
        assert v.mel is not None
        t_flow, t_voc = statistics.median(v.flow_s), statistics.median(v.voc_s)
        res = {"flow_s_per_audio_s": t_flow / audio_s, "hift_s_per_audio_s": t_voc / audio_s,
               "t2w_rtf": (t_flow + t_voc) / audio_s, **mel_difference(v.mel, ref)}
        print(f"{v.name}: " + ", ".join(f"{k}={x:.4g}" for k, x in res.items()), flush=True)
        out[v.name] = res
    return out


def scenario_draft(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    model = load_or_build(args, dev)
    case = flow_case(model, args.prompt_seconds, args.audio_seconds)
    ref, *_ = run_t2w(model, case, EXACT_FLOW)
    variants = [Variant(setting_name(f), f) for f in DRAFT_SETTINGS]
    out: dict[str, Any] = {"family": model.cfg.family, "model": str(args.model_dir or "random full-size"),
                           "audio_seconds": args.audio_seconds, "prompt_seconds": args.prompt_seconds}
    out.update(compare_variants(model, case, variants, args.runs, ref, args.audio_seconds))
    return out


# --------------------------------------------------------------------------------------------
# mel-diff: each quality mode's streamed mel against the exact stream's, same tokens
# --------------------------------------------------------------------------------------------


class _NullVocoder:
    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return np.zeros(0, dtype=np.float32)


def scenario_mel_diff(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    """The same speech tokens streamed through token2wav with each mode's flow settings, as the
    engine runs them (flow cache, its bound, the prompt frames' cached states), against exact.

    Only the flow differs between the modes here (the tokens are fixed): fast's differences come from
    the cache, draft's from its 4-step flow without CFG. Reports max and rms difference of the whole
    streamed mel and of its streamed part (every chunk before the final call).
    """
    model = load_or_build(args, dev)
    cfg = model.cfg
    tok, ptok, feat, emb = flow_case(model, args.prompt_seconds, args.audio_seconds)
    mels: dict[str, tuple[torch.Tensor, int]] = {}
    out: dict[str, Any] = {"family": cfg.family, "model": str(args.model_dir or "random full-size"),
                           "audio_seconds": args.audio_seconds, "prompt_seconds": args.prompt_seconds}
    for quality in QUALITY_MODES:
        opts = quality_options(quality, dev)
        schedule = StreamSchedule(chunk=cfg.chunk_size, lookahead=cfg.flow.pre_lookahead_len)
        flow = opts.flow
        stream = Token2WavStream(
            flow=model.flow, vocoder=_NullVocoder(), prompt_token=ptok, prompt_feat=feat, embedding=emb,
            token_mel_ratio=cfg.token_mel_ratio, schedule=schedule, n_steps=flow.n_steps, cfg_rate=flow.cfg_rate,
            flow_cache=opts.flow_cache, flow_autocast=flow.autocast, record_calls=True,
            cache_limit_bytes=int(opts.flow_cache_mb * 1e6))
        with torch.inference_mode():
            if opts.flow_cache != "off" and opts.prompt_cache:
                stream.prompt_cache = prompt_flow_cache(model.flow, ptok, feat, emb, schedule=schedule,
                                                        n_steps=flow.n_steps, cfg_rate=flow.cfg_rate,
                                                        autocast=flow.autocast)
            t0 = time.perf_counter()
            for t in tok[0].tolist():
                list(stream.push(t))
            stream.finish()
            seconds = time.perf_counter() - t0
        calls = [c.mel for c in stream.calls if c.mel is not None]
        streamed = sum(int(c.shape[2]) for c in calls[:-1])
        mels[quality] = (torch.cat(calls, dim=2), streamed)
        print(f"{quality}: {len(calls)} flow calls, {seconds:.1f} s, cache fell back: {stream.cache_overflowed}",
              flush=True)
        out[f"{quality}_calls"] = len(calls)
        out[f"{quality}_cache_fell_back"] = stream.cache_overflowed
    ref, ref_streamed = mels["exact"]
    for quality in QUALITY_MODES[1:]:
        mel, streamed = mels[quality]
        assert mel.shape == ref.shape and streamed == ref_streamed
        whole = mel_difference(mel, ref)
        part = mel_difference(mel[:, :, :streamed], ref[:, :, :streamed])
        res = {"mel_max_abs_diff": whole["mel_max_abs_diff"], "mel_rms_diff": whole["mel_rms_diff"],
               "streamed_max_abs_diff": part["mel_max_abs_diff"], "streamed_rms_diff": part["mel_rms_diff"],
               "exact_mel_rms": whole["exact_mel_rms"]}
        print(f"{quality} against exact: " + ", ".join(f"{k}={v:.3g}" for k, v in res.items()), flush=True)
        out[quality] = res
    return out


# --------------------------------------------------------------------------------------------
# precision: matmul precision and autocast on the flow
# --------------------------------------------------------------------------------------------


class _Autocast:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.ctx: Any = None

    def enter(self) -> None:
        self.ctx = torch.autocast(self.device.type, dtype=torch.bfloat16)
        self.ctx.__enter__()

    def leave(self) -> None:
        self.ctx.__exit__(None, None, None)


def scenario_precision(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    model = load_or_build(args, dev)
    case = flow_case(model, args.prompt_seconds, args.audio_seconds)
    flow = flow_settings(args)
    ref, *_ = run_t2w(model, case, flow)

    def precision(level: str) -> Callable[[], None]:
        return lambda: torch.set_float32_matmul_precision(level)

    autocast = _Autocast(dev)
    variants = [
        Variant("float32 (default)", flow),
        Variant("matmul precision medium", flow, precision("medium"), precision("highest")),
        Variant("matmul precision high", flow, precision("high"), precision("highest")),
        Variant("bfloat16 autocast around the whole flow", flow, autocast.enter, autocast.leave),
        Variant("bfloat16 autocast of the estimator only (flow_autocast)",
                FlowSettings(flow.n_steps, flow.cfg_rate, torch.bfloat16)),
    ]
    out: dict[str, Any] = {"family": model.cfg.family, "flow_steps": flow.n_steps, "cfg_rate": flow.cfg_rate}
    out.update(compare_variants(model, case, variants, args.runs, ref, args.audio_seconds))
    return out
