"""Core engine benchmark on the full-size release architectures with random weights.

    .venv/bin/python bench/bench_core.py --family cosyvoice2 --runs 3
    .venv/bin/python bench/bench_core.py --family cosyvoice2 --device cuda

Scenarios (medians over ``--runs`` after one warm-up):
- ``llm``: decode tokens/s at a ``--context``-token context (prefill, then timed single-token steps);
- ``t2w``: flow + HiFT seconds per second of audio, offline (one flow call, one vocoder call), for
  ``--audio-seconds`` of audio after a ``--prompt-seconds`` prompt; the flow and vocoder split too;
- ``first``: request -> first streamed audio chunk with a ``--prompt-tokens``-token LM prompt
  (prefill + decode of the first hop + 3 look-ahead tokens + flow + vocoder), end to end through
  ``CosyModel.tts``;
- peak resident memory of the process (and peak CUDA memory on a GPU).

Random weights do not stop on their own in a meaningful place, so stop tokens are held back with
``min_len`` as the original's figures in ../shared/platform-notes.md were measured. Nothing here
asserts a speed: the numbers go into the README.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from cosycore.config import LLMConfig, ModelConfig
from cosycore.flow import build_flow
from cosycore.lm.layout import use_decode_layout
from cosycore.lm.qwen2 import RMSNorm
from cosycore.lm.speech_lm import SpeechLM, quantize_decoder_layer
from cosycore.model import CosyModel, SynthesisKnobs, resolve_device
from cosycore.testing.presets import release_config
from cosycore.vocoder.load import build_hift, fold_weight_norm


def _init_like_construction(module: nn.Module, device: torch.device) -> None:
    """Give a meta-device module the values its constructor would have drawn: the same initialisers,
    in the same order, on the same generator."""
    module.to_empty(device=device)
    for m in module.modules():
        if isinstance(m, RMSNorm):
            nn.init.ones_(m.weight)
        elif isinstance(m, (nn.Linear, nn.Embedding)):
            m.reset_parameters()


def _random_int8_lm(cfg: LLMConfig, device: torch.device, mode: str) -> SpeechLM:
    """The random LM of :func:`build_random_model`, value for value, packed to int8 one decoder layer
    at a time (as ``load_llm(..., quantize=...)`` packs a release's), so the float LM never exists whole."""
    with torch.device("meta"):
        llm = SpeechLM(cfg)
    scheme = llm.check_quantizable(mode)
    _init_like_construction(llm.qwen.embed_tokens, device)
    swapped = 0
    for layer in llm.qwen.layers:
        _init_like_construction(layer, device)
        with torch.random.fork_rng(devices=[]):  # fusing builds a Linear, whose init draws numbers
            swapped += quantize_decoder_layer(layer, scheme)
    for name, module in llm.named_children():  # constructed after the backbone, in this order
        if name != "qwen":
            _init_like_construction(module, device)
    _init_like_construction(llm.qwen.norm, device)  # ones: no random draw, the order does not matter
    with torch.random.fork_rng(devices=[]):
        llm.quantize_int8_heads(mode, swapped)
    return llm


def build_random_model(cfg: ModelConfig, device: torch.device, llm_quant: str | None = None) -> CosyModel:
    """Full-size networks with the default random init, in memory (no files).

    ``llm_quant`` (CPU): the LM packed to int8 while it is built, with the values it would have had
    packed after building it whole (the memory of the engine's loading, not of building a float LM).
    """
    gen_state = torch.random.get_rng_state()
    torch.manual_seed(0)
    with torch.device(device):
        llm = SpeechLM(cfg.llm) if llm_quant is None else _random_int8_lm(cfg.llm, device, llm_quant)
        flow = build_flow(cfg.flow, device=device)
        hift = build_hift(cfg)
    torch.random.set_rng_state(gen_state)
    fold_weight_norm(hift)
    for m in (llm, flow, hift):
        m.eval().requires_grad_(False)
    if llm_quant is None:
        use_decode_layout(llm)  # as cosycore.lm.load does for a float32 LM on a CPU
    return CosyModel(cfg, llm, flow, hift, device)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(fn: Callable[[], object], device: torch.device) -> float:
    _sync(device)
    t0 = time.perf_counter()
    fn()
    _sync(device)
    return time.perf_counter() - t0


def bench_llm(model: CosyModel, context: int, steps: int) -> dict[str, float]:
    dev = model.device
    llm = model.llm
    d = model.cfg.llm.qwen.hidden_size
    gen = torch.Generator(device="cpu").manual_seed(1)
    x = torch.randn(1, context, d, generator=gen).to(dev) * 0.02
    step_in = torch.randn(1, d, generator=gen).to(dev) * 0.02
    out: dict[str, float] = {}
    with torch.inference_mode():
        cache = llm.new_cache(context + steps + 1, device=dev)
        out["prefill_s"] = timed(lambda: llm.prefill(x, cache), dev)

        def decode() -> None:
            for _ in range(steps):
                h = llm.decode_one_token(step_in, cache)
                llm.logits(h).argmax()

        out["decode_tokens_per_s"] = steps / timed(decode, dev)
    return out


def flow_case(model: CosyModel, prompt_s: float, audio_s: float) -> tuple[torch.Tensor, ...]:
    """Random speech tokens, prompt tokens, prompt mel and speaker embedding at the given lengths."""
    dev = model.device
    rate = model.cfg.token_frame_rate
    p, n = int(prompt_s * rate), int(audio_s * rate)
    gen = torch.Generator(device="cpu").manual_seed(2)
    ptok = torch.randint(0, 6561, (1, p), generator=gen, dtype=torch.int32).to(dev)
    tok = torch.randint(0, 6561, (1, n), generator=gen, dtype=torch.int32).to(dev)
    feat = torch.randn(1, 2 * p, 80, generator=gen).to(dev)
    emb = torch.randn(1, 192, generator=gen).to(dev)
    return tok, ptok, feat, emb


def bench_t2w(model: CosyModel, prompt_s: float, audio_s: float) -> dict[str, float]:
    dev = model.device
    tok, ptok, feat, emb = flow_case(model, prompt_s, audio_s)
    res: dict[str, torch.Tensor] = {}
    with torch.inference_mode():
        def flow() -> None:
            res["mel"] = model.flow.inference(tok, ptok, feat, emb, streaming=False, finalize=True)

        t_flow = timed(flow, dev)
        voc = model.vocoder_stream(torch.Generator(device=dev).manual_seed(3))
        t_voc = timed(lambda: voc.push(res["mel"], finalize=True), dev)
    return {"flow_s_per_audio_s": t_flow / audio_s, "hift_s_per_audio_s": t_voc / audio_s,
            "t2w_s_per_audio_s": (t_flow + t_voc) / audio_s}


def bench_first_chunk(model: CosyModel, prompt_tokens: int) -> dict[str, float]:
    """Request -> first streamed chunk; the LM prompt totals ``prompt_tokens`` positions."""
    dev = model.device
    gen = torch.Generator(device="cpu").manual_seed(4)
    n_text, n_prompt_text = 20, 20
    n_speech = prompt_tokens - n_text - n_prompt_text - 2  # sos and task_id
    text = torch.randint(0, 6000, (n_text,), generator=gen).tolist()
    ptext = torch.randint(0, 6000, (n_prompt_text,), generator=gen).tolist()
    if model.cfg.family == "cosyvoice3":
        ptext[-1] = 151646  # <|endofprompt|>
    pspeech = torch.randint(0, 6561, (n_speech,), generator=gen).tolist()
    feat = torch.randn(1, 2 * n_speech, 80, generator=gen)
    emb = torch.randn(1, 192, generator=gen)
    knobs = SynthesisKnobs(stream=True, seed=0, min_len=400, max_len=400)

    def first() -> None:
        it = model.tts(text, prompt_text_ids=ptext, llm_prompt_speech=pspeech, flow_prompt_speech=pspeech,
                       prompt_feat=feat, embedding=emb, knobs=knobs)
        next(it)
        it.close()

    return {"first_chunk_s": timed(first, dev)}


def peak_memory(device: torch.device) -> dict[str, float]:
    out = {"peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
    if device.type == "cuda":
        out["peak_cuda_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", choices=["cosyvoice2", "cosyvoice3"], default="cosyvoice2")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--scenarios", default="llm,t2w,first")
    ap.add_argument("--context", type=int, default=300)
    ap.add_argument("--decode-steps", type=int, default=32)
    ap.add_argument("--prompt-seconds", type=float, default=3.0)
    ap.add_argument("--audio-seconds", type=float, default=5.0)
    ap.add_argument("--prompt-tokens", type=int, default=150)
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    dev = resolve_device(args.device)
    cfg = release_config(args.family)
    t0 = time.perf_counter()
    model = build_random_model(cfg, dev)
    build_s = time.perf_counter() - t0
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    fns: dict[str, Callable[[], dict[str, float]]] = {
        "llm": lambda: bench_llm(model, args.context, args.decode_steps),
        "t2w": lambda: bench_t2w(model, args.prompt_seconds, args.audio_seconds),
        "first": lambda: bench_first_chunk(model, args.prompt_tokens),
    }
    results: dict[str, dict[str, float]] = {}
    for name in scenarios:
        fns[name]()  # warm-up
        runs = [fns[name]() for _ in range(args.runs)]
        results[name] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        results[name]["runs"] = float(len(runs))
        print(f"{name}: " + ", ".join(f"{k}={v:.3f}" for k, v in results[name].items()), flush=True)
    report = {
        "family": args.family,
        "device": str(dev),
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "build_s": build_s,
        "results": results,
        **peak_memory(dev),
    }
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
