"""Speed modes of the engine, one scenario per command, on the full-size architectures with random weights.

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

``request`` prints time to first audio, real-time factor, LM tokens/s, peak memory and the time
spent in each stage: frontend (text normalisation, tokenisation, prompt mel/fbank features; the two
ONNX frontend networks are not part of a random-weights setup), LM prefill, LM decode (including
sampling), flow and vocoder. The first request of a process is reported on its own (cold start),
then the median of the later ones. Random weights never stop on their own, so every request
generates exactly ``--audio-seconds`` of tokens. Nothing here asserts a speed.
"""

from __future__ import annotations

import os

# As the CLI and the app do (cosycore.threads.prefer_passive_wait); read once, when torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import contextlib
import copy
import json
import platform
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from bench_core import build_random_model, flow_case  # the sibling script (bench/ is the script's directory)
from busy import Spinner

from cosycore.config import QUALITY_MODES, load_model_config
from cosycore.errors import ModelLoadError
from cosycore.frontend.features import prompt_mel, speaker_fbank, whisper_log_mel
from cosycore.frontend.text import normalize_text
from cosycore.frontend.tokenizer import get_text_tokenizer
from cosycore.lm.load import load_llm
from cosycore.lm.quant import LLM_QUANT_MODES, logit_agreement
from cosycore.lm.sampling import RasSampler
from cosycore.lm.speech_lm import SpeechLM
from cosycore.model import CosyModel, resolve_device
from cosycore.perf import DRAFT_FLOW, EXACT_FLOW, FlowSettings, quality_options, warm_up, warm_up_frontend
from cosycore.testing.presets import release_config
from cosycore.threads import run_ahead, set_torch_threads, stage_threads
from cosycore.token2wav import FLOW_CACHE_MODES, StreamSchedule, Token2WavStream, prompt_flow_cache

ENDOFPROMPT_ID = 151646
PROMPT_TEMPLATES: dict[tuple[Any, ...], Any] = {}  # the prompt frames' flow states of the last voice
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


def peak_memory(device: torch.device) -> dict[str, float]:
    out = {"peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
    if device.type == "cuda":
        out["peak_cuda_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    return out


# --------------------------------------------------------------------------------------------
# request: one synthesis with the per-stage split
# --------------------------------------------------------------------------------------------


class TimedFlow:
    """Forwards to a flow model and adds up the seconds its calls take."""

    def __init__(self, flow: Any, device: torch.device) -> None:
        self.flow = flow
        self.device = device
        self.seconds = 0.0
        self.cpu_seconds = 0.0  # CPU time of the calling thread (with 1 torch thread: all of the work)
        self.calls: list[tuple[int, float]] = []  # (new frames, seconds) per call

    def _timed(self, fn: Callable[..., torch.Tensor], *args: Any, **kwargs: Any) -> torch.Tensor:
        sync(self.device)
        t0, c0 = time.perf_counter(), time.thread_time()
        mel = fn(*args, **kwargs)
        sync(self.device)
        dt = time.perf_counter() - t0
        self.cpu_seconds += time.thread_time() - c0
        self.seconds += dt
        self.calls.append((int(mel.shape[2]), dt))
        return mel

    def inference(self, *args: Any, **kwargs: Any) -> torch.Tensor:
        return self._timed(self.flow.inference, *args, **kwargs)

    def inference_cached(self, *args: Any, **kwargs: Any) -> torch.Tensor:
        return self._timed(self.flow.inference_cached, *args, **kwargs)


class TimedVocoder:
    """Forwards to a vocoder stream and adds up the seconds its pushes take."""

    def __init__(self, inner: Any, device: torch.device) -> None:
        self.inner = inner
        self.device = device
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        sync(self.device)
        t0, c0 = time.perf_counter(), time.thread_time()
        audio = self.inner.push(mel, finalize=finalize)
        sync(self.device)
        self.cpu_seconds += time.thread_time() - c0
        self.seconds += time.perf_counter() - t0
        return audio


@dataclass
class RequestInputs:
    """Made-up request inputs: the text, a prompt recording and its (random) speech tokens."""

    text: str
    prompt_text_ids: list[int]
    prompt_speech: list[int]
    prompt_wav_24k: np.ndarray
    prompt_wav_16k: np.ndarray
    embedding: torch.Tensor  # [1, 192]
    extra: dict[str, Any] = field(default_factory=dict)


def make_inputs(family: str, prompt_s: float, seed: int = 4) -> RequestInputs:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    n_prompt = int(prompt_s * 25)
    ptext = torch.randint(0, 6000, (20,), generator=gen).tolist()
    if family == "cosyvoice3":
        ptext[-1] = ENDOFPROMPT_ID
    wav = (0.1 * torch.randn(int(prompt_s * 24000), generator=gen)).numpy()
    return RequestInputs(
        text=TEXT,
        prompt_text_ids=ptext,
        prompt_speech=torch.randint(0, 6561, (n_prompt,), generator=gen).tolist(),
        prompt_wav_24k=wav.astype(np.float32),
        prompt_wav_16k=wav[:: 3][: int(prompt_s * 16000)].astype(np.float32),
        embedding=torch.randn(1, 192, generator=gen),
    )


def run_request(model: CosyModel, inputs: RequestInputs, tokenizer: Any, *, n_tokens: int, stream: bool,
                flow: FlowSettings, flow_cache: str, seed: int = 0, static_cache: bool = False,
                overlap: bool = False, threads: int | None = None, final_threads: bool = False,
                cache_mb: float | None = None, prompt_cache: bool = False) -> dict[str, float]:
    """One request, end to end, timed per stage. ``n_tokens`` speech tokens are generated.

    ``overlap``: the LM decodes on a thread of its own, ``threads // 2`` torch threads per stage, as
    the engine does (:mod:`cosycore.threads`); ``final_threads`` gives token2wav all ``threads``
    once the LM is done (the engine's ``PerfOptions.tail_threads``). The stage seconds then overlap
    in time. ``cache_mb`` bounds the flow cache and ``prompt_cache`` starts the stream from the prompt
    frames' cached states, computed on the first request with this prompt and flow setting (the
    engine's ``flow_cache_mb`` and ``prompt_cache``).
    """
    threads = threads or torch.get_num_threads()
    dev = model.device
    cfg = model.cfg
    lm = model.llm
    t_start = time.perf_counter()
    # frontend: text normalisation + tokenisation + prompt features
    text_ids = tokenizer.encode(normalize_text(inputs.text, "en"))
    feat = prompt_mel(torch.from_numpy(inputs.prompt_wav_24k), cfg.mel).transpose(1, 2)  # [1, T, 80]
    speaker_fbank(torch.from_numpy(inputs.prompt_wav_16k))
    whisper_log_mel(torch.from_numpy(inputs.prompt_wav_16k))
    n_prompt = len(inputs.prompt_speech)
    feat = feat[:, : 2 * n_prompt].to(dev)
    if feat.shape[1] < 2 * n_prompt:  # the random prompt audio is a hair short of 2 frames per token
        feat = torch.nn.functional.pad(feat, (0, 0, 0, 2 * n_prompt - feat.shape[1]))
    t_front = time.perf_counter() - t_start

    timed_flow = TimedFlow(model.flow, dev)
    timed_voc = TimedVocoder(model.vocoder_stream(torch.Generator(device=dev).manual_seed(seed)), dev)
    t2w = Token2WavStream(
        flow=timed_flow, vocoder=timed_voc,
        prompt_token=torch.tensor([inputs.prompt_speech], dtype=torch.int32, device=dev),
        prompt_feat=feat, embedding=inputs.embedding.to(dev), token_mel_ratio=cfg.token_mel_ratio,
        schedule=StreamSchedule(chunk=cfg.chunk_size, lookahead=cfg.flow.pre_lookahead_len),
        drop_silent_runs=False, n_steps=flow.n_steps, cfg_rate=flow.cfg_rate,
        flow_cache=flow_cache,  # type: ignore[arg-type]
        flow_autocast=flow.autocast,
        cache_limit_bytes=None if cache_mb is None else int(cache_mb * 1e6),
    )
    template_key = (id(model), tuple(inputs.prompt_speech), flow.n_steps, flow.cfg_rate, flow.autocast)
    want_template = prompt_cache and stream and flow_cache != "off"
    template_s = 0.0
    sampler = RasSampler.from_config(cfg.llm)
    gen = torch.Generator(device=dev).manual_seed(seed)
    first_audio: float | None = None
    samples = 0
    cache_peak = 0
    lm_times = {"prefill_s": 0.0, "decode_s": 0.0, "cpu_s": 0.0}

    def decode() -> Iterator[int]:
        """The LM: prefill, then one sampled token per step (on the producer thread with --overlap)."""
        c0 = time.thread_time()
        t0 = time.perf_counter()
        lm_input = lm.build_lm_input(text_ids, inputs.prompt_text_ids, inputs.prompt_speech)
        kv = lm.new_cache(lm_input.shape[1] + n_tokens + 1, device=dev, dtype=lm_input.dtype, static=static_cache)
        h = lm.prefill(lm_input, kv)
        sync(dev)
        lm_times["prefill_s"] = time.perf_counter() - t0
        decoded: list[int] = []
        for i in range(n_tokens):
            t0 = time.perf_counter()
            scores = lm.scores(lm.logits(h[0]), ignore_eos=True, eos_rule="all_specials")
            tok = sampler(scores, decoded, gen)
            decoded.append(tok)
            if i + 1 < n_tokens:
                h = lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], kv)
            sync(dev)
            lm_times["decode_s"] += time.perf_counter() - t0
            lm_times["cpu_s"] = time.thread_time() - c0
            yield tok

    @contextlib.contextmanager
    def lm_thread() -> Iterator[None]:
        set_torch_threads(per_stage)
        with torch.inference_mode():
            yield

    per_stage = stage_threads(threads, overlap=overlap)
    set_torch_threads(per_stage)
    with torch.inference_mode():
        sync(dev)
        lm_done = threading.Event()
        tokens = (run_ahead(decode, capacity=1024, name="bench-lm", context=lm_thread, done=lm_done)
                  if overlap else decode())
        boost = overlap and final_threads and per_stage < threads
        for tok in tokens:
            if want_template:  # as the engine: on the first token, while the LM goes on (kept per voice)
                want_template = False
                if template_key not in PROMPT_TEMPLATES:
                    c0 = time.perf_counter()
                    PROMPT_TEMPLATES.clear()
                    PROMPT_TEMPLATES[template_key] = prompt_flow_cache(
                        model.flow, t2w.prompt_token, t2w.prompt_feat, t2w.embedding, schedule=t2w.schedule,
                        n_steps=flow.n_steps, cfg_rate=flow.cfg_rate, autocast=flow.autocast)
                    template_s = time.perf_counter() - c0
                t2w.prompt_cache = PROMPT_TEMPLATES[template_key]
            if boost and lm_done.is_set():
                set_torch_threads(threads)  # the LM has finished: token2wav gets every thread (as the engine)
                boost = False
            if stream:
                for audio in t2w.push(tok):
                    if audio.size and first_audio is None:
                        first_audio = time.perf_counter() - t_start
                    samples += audio.size
                if t2w.cache is not None:
                    cache_peak = max(cache_peak, t2w.cache.nbytes())
            else:
                t2w.accept(tok)
        if t2w.cache is not None:
            cache_peak = max(cache_peak, t2w.cache.nbytes())
        if boost:
            set_torch_threads(threads)
        tail = t2w.finish()
        if tail.size and first_audio is None:
            first_audio = time.perf_counter() - t_start
        samples += tail.size
    total = time.perf_counter() - t_start
    audio_s = samples / cfg.sample_rate
    return {
        "time_to_first_audio_s": float(first_audio if first_audio is not None else total),
        "total_s": total,
        "audio_s": audio_s,
        "rtf": total / audio_s,
        "llm_tokens_per_s": (n_tokens - 1) / lm_times["decode_s"],
        "frontend_s": t_front,
        "llm_prefill_s": lm_times["prefill_s"],
        "llm_decode_s": lm_times["decode_s"],
        "flow_s": timed_flow.seconds,
        "vocoder_s": timed_voc.seconds,
        "flow_calls": float(len(timed_flow.calls)),
        "prompt_cache_s": template_s,  # computing the prompt's flow states (first request of a voice only)
        "flow_cache_overflowed": float(t2w.cache_overflowed),
        # CPU seconds of each stage's own thread: with one torch thread per stage, what the stage
        # costs on an idle core even when the machine is busy (a rough quiet estimate)
        "llm_cpu_s": lm_times["cpu_s"],
        "flow_cpu_s": timed_flow.cpu_seconds,
        "vocoder_cpu_s": timed_voc.cpu_seconds,
        "flow_cache_peak_mb": cache_peak / 1e6,
    }


def scenario_request(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    t0 = time.perf_counter()
    model = load_or_build(args, dev)
    cfg = model.cfg
    apply_quality(args, dev)
    if args.quant:
        model.llm.quantize_int8(args.quant)
    load_s = time.perf_counter() - t0
    flow = flow_settings(args)
    warm_s = warm_up_frontend(cfg.mel) + warm_up(model, flow=flow, flow_cache=args.flow_cache) if args.warmup else 0.0
    inputs = make_inputs(cfg.family, args.prompt_seconds)
    with tempfile.TemporaryDirectory() as tmp:
        from cosycore.testing.tiny_tokenizer import write_tiny_qwen_tokenizer

        write_tiny_qwen_tokenizer(Path(tmp))
        tokenizer = get_text_tokenizer(Path(tmp), cfg.family)
        n_tokens = int(args.audio_seconds * cfg.token_frame_rate)
        runs = []
        threads = torch.get_num_threads()
        with Spinner(args.busy):
            for i in range(args.runs):
                res = run_request(model, inputs, tokenizer, n_tokens=n_tokens, stream=not args.offline, flow=flow,
                                  flow_cache=args.flow_cache, seed=i, static_cache=args.compile,
                                  overlap=args.overlap, threads=threads, final_threads=args.final_threads,
                                  cache_mb=args.flow_cache_mb, prompt_cache=bool(args.prompt_cache))
                runs.append(res)
                print(f"request {i}{' (first of the process)' if i == 0 else ''}: " + summary(res), flush=True)
        set_torch_threads(threads)
    later = runs[1:] or runs
    return {
        "settings": {"quant": args.quant, "dtype": args.dtype, "compile": args.compile,
                     "flow_steps": flow.n_steps, "cfg_rate": flow.cfg_rate,
                     "flow_autocast": str(flow.autocast),
                     "flow_cache": args.flow_cache, "warmup": args.warmup, "stream": not args.offline,
                     "quality": args.quality, "overlap": args.overlap, "final_threads": args.final_threads,
                     "flow_cache_mb": args.flow_cache_mb, "prompt_cache": args.prompt_cache,
                     "busy_spinners": args.busy,
                     "audio_seconds": args.audio_seconds, "prompt_seconds": args.prompt_seconds},
        "load_s": load_s,
        "warmup_s": warm_s,
        "first_request": runs[0],
        "median_later_requests": {k: statistics.median(r[k] for r in later) for k in later[0]},
    }


# (name, torch threads in all, LM on its own thread, final flow call with every thread)
THREAD_VARIANTS = {
    "1 thread": (1, False, False),
    "2 threads": (2, False, False),
    "overlap 1+1": (2, True, False),
    "overlap 1+1, then 2": (2, True, True),
}


def scenario_busy(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    """Thread layouts quiet and with ``--busy`` (default 1) spinning processes, in one process.

    Round by round, every variant runs once quiet and once busy (the spinners are started and
    stopped around each busy request), so slow drifts of the machine's load hit all of them alike.
    The OpenMP wait policy is the process's (``OMP_WAIT_POLICY`` in the environment; run the
    scenario once per policy to compare them). Reports medians and the busy/quiet ratios.
    """
    model = load_or_build(args, dev)
    apply_quality(args, dev)
    if args.quant:
        model.llm.quantize_int8(args.quant)
    flow = flow_settings(args)
    cfg = model.cfg
    inputs = make_inputs(cfg.family, args.prompt_seconds)
    spinners = args.busy or 1
    names = args.variants or list(THREAD_VARIANTS)
    results: dict[str, dict[str, list[dict[str, float]]]] = {n: {"quiet": [], "busy": []} for n in names}
    n_tokens = int(args.audio_seconds * cfg.token_frame_rate)
    with tempfile.TemporaryDirectory() as tmp:
        from cosycore.testing.tiny_tokenizer import write_tiny_qwen_tokenizer

        write_tiny_qwen_tokenizer(Path(tmp))
        tokenizer = get_text_tokenizer(Path(tmp), cfg.family)
        for rnd in range(args.runs + 1):  # round 0 warms up
            for name in names:
                threads, overlap, final = THREAD_VARIANTS[name]
                for load in ("quiet", "busy"):
                    set_torch_threads(threads)
                    with Spinner(spinners if load == "busy" else 0):
                        res = run_request(model, inputs, tokenizer, n_tokens=n_tokens, stream=True, flow=flow,
                                          flow_cache=args.flow_cache, seed=rnd, overlap=overlap, threads=threads,
                                          final_threads=final, cache_mb=args.flow_cache_mb,
                                          prompt_cache=bool(args.prompt_cache))
                    print(f"round {rnd} {name} {load}: " + summary(res), flush=True)
                    if rnd:
                        results[name][load].append(res)
    out: dict[str, Any] = {"spinners": spinners, "audio_seconds": args.audio_seconds,
                           "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset)"),
                           "quality": args.quality, "flow_cache": args.flow_cache, "quant": args.quant}
    for name in names:
        med = {load: {k: statistics.median(r[k] for r in results[name][load]) for k in ("time_to_first_audio_s", "rtf")}
               for load in ("quiet", "busy")}
        ratio = {k: med["busy"][k] / med["quiet"][k] for k in ("time_to_first_audio_s", "rtf")}
        out[name] = {**med, "busy_over_quiet": ratio}
        print(f"{name}: quiet first audio {med['quiet']['time_to_first_audio_s']:.2f} s, RTF "
              f"{med['quiet']['rtf']:.2f}; busy {med['busy']['time_to_first_audio_s']:.2f} s, RTF "
              f"{med['busy']['rtf']:.2f}; busy/quiet {ratio['time_to_first_audio_s']:.2f}x, {ratio['rtf']:.2f}x",
              flush=True)
    return out


def scenario_profile(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    """The first-chunk path (frontend, prefill, decode up to the first hop, flow, vocoder) under the
    torch profiler, after one unprofiled request so that first-use costs are not in it."""
    from torch.profiler import ProfilerActivity, profile

    model = load_or_build(args, dev)
    if args.quant:
        model.llm.quantize_int8(args.quant)
    flow = flow_settings(args)
    cfg = model.cfg
    inputs = make_inputs(cfg.family, args.prompt_seconds)
    first_hop = cfg.chunk_size + cfg.flow.pre_lookahead_len  # tokens before the first streamed audio
    with tempfile.TemporaryDirectory() as tmp:
        from cosycore.testing.tiny_tokenizer import write_tiny_qwen_tokenizer

        write_tiny_qwen_tokenizer(Path(tmp))
        tokenizer = get_text_tokenizer(Path(tmp), cfg.family)
        kwargs = dict(n_tokens=first_hop, stream=True, flow=flow, flow_cache=args.flow_cache)
        run_request(model, inputs, tokenizer, **kwargs)  # type: ignore[arg-type]
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
        with profile(activities=activities) as prof:
            res = run_request(model, inputs, tokenizer, **kwargs)  # type: ignore[arg-type]
    sort = "self_cuda_time_total" if dev.type == "cuda" else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by=sort, row_limit=15), flush=True)
    print("first-chunk path: " + summary(res), flush=True)
    total = sum(e.self_cpu_time_total for e in prof.key_averages()) or 1.0
    top = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)[:10]
    return {
        "first_hop_tokens": first_hop,
        "stages": res,
        "top_ops_self_cpu_share": {e.key: e.self_cpu_time_total / total for e in top},
    }


def summary(res: dict[str, float]) -> str:
    keys = ("time_to_first_audio_s", "rtf", "llm_tokens_per_s", "frontend_s", "llm_prefill_s", "llm_decode_s",
            "flow_s", "vocoder_s", "audio_s", "flow_cache_peak_mb", "llm_cpu_s", "flow_cpu_s", "vocoder_cpu_s")
    return ", ".join(f"{k}={res[k]:.3f}" for k in keys)


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
    for mode in LLM_QUANT_MODES:
        if mode == "int8":
            continue  # same kernel as int8-dynamic
        q = copy.deepcopy(lm)
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
    for mode in ("int8-dynamic", "int8-weight-only"):
        q = copy.deepcopy(base)
        q.quantize_int8(mode)
        variants[mode] = q
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
                cache = lm.new_cache(args.context + steps + 1, device=dev)
                sync(dev)
                t0 = time.perf_counter()
                lm.prefill(x, cache)
                sync(dev)
                t1 = time.perf_counter()
                for _ in range(steps):
                    lm.logits(lm.decode_one_token(step_in, cache)).argmax()
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


def load_or_build(args: argparse.Namespace, dev: torch.device) -> CosyModel:
    if args.model_dir:
        model = CosyModel.load(args.model_dir, device=dev)
    else:
        model = build_random_model(release_config(args.family), dev)
    dtype = getattr(torch, args.dtype)
    if dtype != torch.float32:  # the LM and the flow; the vocoder stays float32 (its NSF source needs it)
        model.llm.to(dtype)
        model.flow.to(dtype)
    if args.compile:
        # CUDA: static KV cache + CUDA graphs; elsewhere plain inductor code for the same graph.
        model.llm.compile_decode(mode="reduce-overhead" if dev.type == "cuda" else "default", dynamic=False)
    return model


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


# --------------------------------------------------------------------------------------------


def apply_quality(args: argparse.Namespace, dev: torch.device) -> None:
    """``--quality``: the engine's options for that mode (cosycore.perf.quality_options) into ``args``."""
    if not args.quality:
        return
    opts = quality_options(args.quality, dev)
    args.flow_cache_mb = opts.flow_cache_mb if args.flow_cache_mb is None else args.flow_cache_mb
    args.prompt_cache = opts.prompt_cache if args.prompt_cache is None else args.prompt_cache
    args.quant = opts.llm_quant
    args.flow_cache = opts.flow_cache
    args.draft = opts.flow.n_steps is not None
    args.bf16 = opts.flow.autocast is torch.bfloat16
    args.warmup = args.warmup or opts.warm_up


def flow_settings(args: argparse.Namespace) -> FlowSettings:
    autocast = torch.bfloat16 if args.bf16 else None
    if args.draft:
        return FlowSettings(DRAFT_FLOW.n_steps, DRAFT_FLOW.cfg_rate, autocast)
    return FlowSettings(args.steps if args.steps != 10 else None, args.cfg_rate, autocast)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("scenario", choices=["request", "busy", "llm-speed", "llm-accuracy", "draft", "precision",
                                         "profile", "mel-diff"])
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
                    help="request: the engine's options of this quality mode (overrides --quant/--draft/--bf16/"
                         "--flow-cache)")
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
        "busy": scenario_busy, "mel-diff": scenario_mel_diff,
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
