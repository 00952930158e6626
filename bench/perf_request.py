"""``bench_perf.py request``, ``busy`` and ``profile``: one synthesis request with the per-stage split,
the thread layouts under load, and where the time to the first audio goes."""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from busy import Spinner
from perf_common import (
    ENDOFPROMPT_ID,
    TEXT,
    apply_quality,
    cuda_stage,
    flow_settings,
    load_or_build,
    summary,
    sync,
)

from cosycore.allocator import release_free_memory
from cosycore.frontend.features import prompt_mel, speaker_fbank, whisper_log_mel
from cosycore.frontend.text import normalize_text
from cosycore.frontend.tokenizer import get_text_tokenizer
from cosycore.lm.sampling import RasSampler
from cosycore.model import CosyModel, SynthesisKnobs
from cosycore.perf import FlowSettings, warm_up, warm_up_frontend
from cosycore.threads import CoreGovernor, governor_enabled, run_ahead, set_torch_threads, stage_threads
from cosycore.token2wav import prompt_flow_cache, token_audio

PROMPT_TEMPLATES: dict[tuple[Any, ...], Any] = {}  # the prompt frames' flow states of the last voice


class TimedFlow:
    """Forwards to a flow model and adds up the seconds its calls take."""

    def __init__(self, flow: Any, device: torch.device) -> None:
        self.flow = flow
        self.device = device
        self.seconds = 0.0
        self.cpu_seconds = 0.0  # CPU time of the calling thread (with 1 torch thread: all of the work)
        self.calls: list[tuple[int, float]] = []  # (new frames, seconds) per call
        self.cuda_gib: dict[str, float] = {}  # CUDA memory a call allocates above what was there (cuda_stage)

    def _timed(self, fn: Callable[..., torch.Tensor], *args: Any, **kwargs: Any) -> torch.Tensor:
        sync(self.device)
        t0, c0 = time.perf_counter(), time.thread_time()
        with cuda_stage(self.device, self.cuda_gib, "flow"):
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
        self.cuda_gib: dict[str, float] = {}

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        sync(self.device)
        t0, c0 = time.perf_counter(), time.thread_time()
        with cuda_stage(self.device, self.cuda_gib, "vocoder"):
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
                cache_mb: float | None = None, prompt_cache: bool = False) -> dict[str, Any]:
    """One request, end to end, timed per stage. ``n_tokens`` speech tokens are generated.

    Besides the stage times (floats), ``"chunks"`` is the emitted chunk timeline: ``[ready_s, samples]``
    for every non-empty audio chunk (the streamed ones and the final tail), ``ready_s`` counted from the
    start of the request (``bench_playback.py`` plays it through the app's player logic).

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

    # The engine's stream (CosyModel.token2wav_stream) with its flow and vocoder timed.
    knobs = SynthesisKnobs(stream=stream, seed=seed, n_steps=flow.n_steps, cfg_rate=flow.cfg_rate,
                           flow_cache=flow_cache, flow_autocast=flow.autocast)  # type: ignore[arg-type]
    t2w = model.token2wav_stream(inputs.prompt_speech, feat, inputs.embedding, knobs=knobs,
                                 generator=torch.Generator(device=dev).manual_seed(seed))
    t2w.drop_silent_runs = False  # random tokens: every one of the n_tokens reaches the flow
    t2w.cache_limit_bytes = None if cache_mb is None else int(cache_mb * 1e6)
    timed_flow = TimedFlow(model.flow, dev)
    timed_voc = TimedVocoder(t2w.vocoder, dev)
    t2w.flow, t2w.vocoder = timed_flow, timed_voc
    template_key = (id(model), tuple(inputs.prompt_speech), flow.n_steps, flow.cfg_rate, flow.autocast)
    want_template = prompt_cache and stream and flow_cache != "off"
    template_s = 0.0
    sampler = RasSampler.from_config(cfg.llm)
    gen = torch.Generator(device=dev).manual_seed(seed)
    first_audio: float | None = None
    samples = 0
    chunks: list[list[float]] = []  # [seconds since t_start when ready, samples] per non-empty chunk
    cache_peak = 0
    lm_times = {"prefill_s": 0.0, "decode_s": 0.0, "cpu_s": 0.0}
    lm_cuda: dict[str, float] = {}  # CUDA memory the LM's prefill allocates above what was there (cuda_stage)

    def decode() -> Iterator[int]:
        """The LM: prefill, then one sampled token per step (on the producer thread with --overlap)."""
        c0 = time.thread_time()
        t0 = time.perf_counter()
        lm_input = lm.build_lm_input(text_ids, inputs.prompt_text_ids, inputs.prompt_speech)
        kv = lm.new_cache(lm_input.shape[1] + n_tokens + 1, device=dev, dtype=lm_input.dtype, static=static_cache)
        with cuda_stage(dev, lm_cuda, "llm"):
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
        # as the engine: on the caller's thread, a core governor beside the request (cosycore.threads)
        governed = not overlap and threads > 1 and dev.type == "cpu" and governor_enabled()
        governor = CoreGovernor(threads) if governed else None
        if governor is not None:
            tokens = governor.follow(tokens)
        def fed() -> Iterator[int]:
            """The LM's tokens on their way to token2wav, with the engine's per-token steps."""
            nonlocal want_template, template_s, boost, cache_peak
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
                if t2w.cache is not None:
                    cache_peak = max(cache_peak, t2w.cache.nbytes())
                yield tok
            if t2w.cache is not None:
                cache_peak = max(cache_peak, t2w.cache.nbytes())
            if boost:
                set_torch_threads(threads)

        for audio, _end in token_audio(fed(), t2w):  # the engine's driver (cosycore.token2wav)
            if audio.size:
                ready = time.perf_counter() - t_start
                chunks.append([ready, int(audio.size)])
                if first_audio is None:
                    first_audio = ready
            samples += audio.size
    total = time.perf_counter() - t_start
    audio_s = samples / cfg.sample_rate
    if governor is not None:
        set_torch_threads(threads)
    return {
        "governor_changes": float(governor.changes if governor is not None else 0),
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
        # CUDA only (0 elsewhere): the most memory one call of the stage allocated above what was allocated
        # before it, GiB (the LM: its prefill; the KV cache, made before it, not counted)
        "llm_prefill_cuda_gib": lm_cuda.get("llm", 0.0),
        "flow_call_cuda_gib": timed_flow.cuda_gib.get("flow", 0.0),
        "vocoder_call_cuda_gib": timed_voc.cuda_gib.get("vocoder", 0.0),
        "chunks": chunks,  # not a float: scenario_request keeps it apart from the medians
    }


def _rss_gib() -> float | None:
    """The process's resident memory now (Linux), GiB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return None


def scenario_load(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    """Load the model as ``request`` does (``--quality``, ``--quant``) and nothing else: the report's
    ``peak_rss_gib`` is then the peak of loading alone. Random weights are built in memory; a folder
    (``--model-dir``; a full-size one with random weights is written by
    ``python -m cosycore.testing.tiny_model DIR --family cosyvoice2 --release-sizes``) is loaded as
    the engine loads a release, memory-mapped."""
    t0 = time.perf_counter()
    apply_quality(args, dev)
    model = load_or_build(args, dev)
    return {"load_s": time.perf_counter() - t0, "llm_quantization": model.llm.quantization,
            "rss_after_load_gib": _rss_gib(), "model_dir": str(args.model_dir or "(random weights in memory)")}


def scenario_request(args: argparse.Namespace, dev: torch.device) -> dict[str, Any]:
    t0 = time.perf_counter()
    apply_quality(args, dev)
    model = load_or_build(args, dev)
    cfg = model.cfg
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
        timelines = []  # per request (the first included): its emitted chunks, for bench_playback.py
        threads = torch.get_num_threads()
        with Spinner(args.busy):
            for i in range(args.runs):
                res = run_request(model, inputs, tokenizer, n_tokens=n_tokens, stream=not args.offline, flow=flow,
                                  flow_cache=args.flow_cache, seed=i, static_cache=args.compile,
                                  overlap=args.overlap, threads=threads, final_threads=args.final_threads,
                                  cache_mb=args.flow_cache_mb, prompt_cache=bool(args.prompt_cache))
                release_free_memory()  # as the engine does after each request
                chunks = res.pop("chunks")
                timelines.append({"request": i, "sample_rate": cfg.sample_rate, "rtf": res["rtf"],
                                  "audio_s": res["audio_s"], "total_s": res["total_s"],
                                  "time_to_first_audio_s": res["time_to_first_audio_s"], "chunks": chunks})
                runs.append(res)
                print(f"request {i}{' (first of the process)' if i == 0 else ''}: " + summary(res), flush=True)
        set_torch_threads(threads)
    later = runs[1:] or runs
    return {
        "settings": {"family": cfg.family, "quant": args.quant, "dtype": args.dtype, "compile": args.compile,
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
        # [ready_s, samples] of every non-empty chunk of every request, in order (bench/bench_playback.py)
        "timelines": timelines,
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
    apply_quality(args, dev)
    model = load_or_build(args, dev)
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
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15), flush=True)
    if dev.type == "cuda":  # and where the GPU's own time goes (the key's name changed across torch versions)
        for key in ("self_device_time_total", "self_cuda_time_total"):
            try:
                print(prof.key_averages().table(sort_by=key, row_limit=15), flush=True)
                break
            except (AttributeError, KeyError, ValueError):
                continue
    print("first-chunk path: " + summary(res), flush=True)
    total = sum(e.self_cpu_time_total for e in prof.key_averages()) or 1.0
    top = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)[:10]
    return {
        "first_hop_tokens": first_hop,
        "stages": res,
        "top_ops_self_cpu_share": {e.key: e.self_cpu_time_total / total for e in top},
    }
