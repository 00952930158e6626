"""Per-chunk flow cost of one long streamed utterance, with and without the flow cache.

    .venv/bin/python bench/bench_streaming.py --family cosyvoice2 --audio-seconds 30 --draft
    .venv/bin/python bench/bench_streaming.py --family cosyvoice2 --audio-seconds 10

Random speech tokens (no LM) go through two :class:`~cosycore.token2wav.Token2WavStream` objects
on the same full-size random-weights flow, in lock step: one re-runs the flow over the whole prefix
every chunk, as the original does (``flow_cache="off"``), the other computes only the new frames
(``flow_cache="full"``). Chunk k of both runs back to back, so both see the same machine load. The
vocoder is left out (it is incremental in both). Printed per chunk: tokens given to the flow, new
frames, seconds, milliseconds per new frame; then the mel difference of every streamed chunk
(cache against no cache) and of the last segment ("full" against the exact final call), and the
cache's memory. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from bench_core import build_random_model  # the sibling script (bench/ is the script's directory)

from cosycore.errors import ModelLoadError
from cosycore.model import resolve_device
from cosycore.perf import DRAFT_FLOW, FlowSettings
from cosycore.testing.presets import release_config
from cosycore.token2wav import StreamSchedule, Token2WavStream


class RecordingFlow:
    """Forwards to the flow and records (tokens given, new frames, seconds) per call."""

    def __init__(self, flow: Any) -> None:
        self.flow = flow
        self.calls: list[tuple[int, int, float]] = []

    def _timed(self, fn: Any, token: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        t0 = time.perf_counter()
        mel = fn(token, *args, **kwargs)
        if mel.device.type == "cuda":
            torch.cuda.synchronize(mel.device)
        self.calls.append((int(token.shape[1]), int(mel.shape[2]), time.perf_counter() - t0))
        return mel

    def inference(self, token: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return self._timed(self.flow.inference, token, *args, **kwargs)

    def inference_cached(self, token: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return self._timed(self.flow.inference_cached, token, *args, **kwargs)


class NoVocoder:
    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return np.zeros(0, dtype=np.float32)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--family", choices=["cosyvoice2", "cosyvoice3"], default="cosyvoice2")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--audio-seconds", type=float, default=30.0)
    ap.add_argument("--prompt-seconds", type=float, default=3.0)
    ap.add_argument("--draft", action="store_true", help=f"{DRAFT_FLOW.n_steps} Euler steps, no CFG")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--cfg-rate", type=float, default=None)
    ap.add_argument("--bf16", action="store_true", help="bfloat16 autocast of the flow estimator")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        dev = resolve_device(args.device)
    except ModelLoadError as e:
        print(f"bench_streaming: {e}; nothing was measured.", file=sys.stderr)
        return 2
    cfg = release_config(args.family)
    model = build_random_model(cfg, dev)
    autocast = torch.bfloat16 if args.bf16 else None
    if args.draft:
        flow_settings = FlowSettings(DRAFT_FLOW.n_steps, DRAFT_FLOW.cfg_rate, autocast)
    else:
        flow_settings = FlowSettings(args.steps, args.cfg_rate, autocast)
    rate = cfg.token_frame_rate
    gen = torch.Generator().manual_seed(7)
    n_prompt, n_gen = int(args.prompt_seconds * rate), int(args.audio_seconds * rate)
    ptok = torch.randint(0, 6561, (1, n_prompt), generator=gen, dtype=torch.int32)
    feat = torch.randn(1, 2 * n_prompt, 80, generator=gen)
    emb = torch.randn(1, 192, generator=gen)
    tokens = torch.randint(0, 6561, (n_gen,), generator=gen).tolist()

    def stream(mode: str) -> tuple[Token2WavStream, RecordingFlow]:
        flow = RecordingFlow(model.flow)
        s = Token2WavStream(flow=flow, vocoder=NoVocoder(), prompt_token=ptok, prompt_feat=feat, embedding=emb,
                            token_mel_ratio=cfg.token_mel_ratio,
                            schedule=StreamSchedule(chunk=cfg.chunk_size, lookahead=cfg.flow.pre_lookahead_len),
                            n_steps=flow_settings.n_steps, cfg_rate=flow_settings.cfg_rate,
                            flow_autocast=flow_settings.autocast, flow_cache=mode,  # type: ignore[arg-type]
                            record_calls=True)
        return s, flow

    plain, plain_flow = stream("off")
    cached, cached_flow = stream("full")
    cache_peak = 0
    with torch.inference_mode():
        for tok in tokens:  # lock step: chunk k of both streams runs back to back
            list(plain.push(tok))
            list(cached.push(tok))
            if cached.cache is not None:
                cache_peak = max(cache_peak, cached.cache.nbytes())
        plain.finish()
        cached.finish()
    rows = []
    cfg_rate = 0.7 if flow_settings.cfg_rate is None else flow_settings.cfg_rate
    print(f"{cfg.family}, {args.audio_seconds:g} s of audio after a {args.prompt_seconds:g} s prompt, flow "
          f"{flow_settings.n_steps or 10} steps, CFG {cfg_rate}, estimator {flow_settings.autocast or 'float32'}, "
          f"{torch.get_num_threads()} threads")
    print(" chunk  tokens  new frames  frames run w/o cache   no cache s   cached s   "
          "no cache ms/new frame   cached ms/new frame")
    for i, ((tok_p, fr_p, s_p), (_tok_c, fr_c, s_c)) in enumerate(zip(plain_flow.calls, cached_flow.calls)):
        last = i == len(plain_flow.calls) - 1
        # Without the cache the flow returns (and computes) every generated frame so far; with it,
        # only the new ones. Both streams emit the same new frames.
        rows.append({"chunk": i, "final": last, "tokens": tok_p, "new_frames": fr_c, "generated_frames_run": fr_p,
                     "uncached_s": s_p, "cached_s": s_c, "uncached_ms_per_new_frame": 1e3 * s_p / fr_c,
                     "cached_ms_per_new_frame": 1e3 * s_c / fr_c})
        print(f" {i:5d}{'*' if last else ' '} {tok_p:6d}  {fr_c:10d}  {fr_p + 2 * n_prompt:20d}   {s_p:10.2f}   "
              f"{s_c:8.2f}   {1e3 * s_p / fr_c:21.1f}   {1e3 * s_c / fr_c:19.1f}")
    print(" (* final call: exact full-attention pass without the cache, chunk-causal cached pass with it)")
    diffs = []
    for a, b in zip(plain.calls[:-1], cached.calls[:-1]):
        assert a.mel is not None and b.mel is not None
        diffs.append(float((a.mel - b.mel).abs().max()))
    a_mel, b_mel = plain.calls[-1].mel, cached.calls[-1].mel
    assert a_mel is not None and b_mel is not None
    final_diff = (a_mel - b_mel).float()
    total_p = sum(c[2] for c in plain_flow.calls)
    total_c = sum(c[2] for c in cached_flow.calls)
    report = {
        "family": cfg.family, "audio_seconds": args.audio_seconds, "prompt_seconds": args.prompt_seconds,
        "flow_steps": flow_settings.n_steps or 10, "cfg_rate": flow_settings.cfg_rate,
        "threads": torch.get_num_threads(), "chunks": rows,
        "flow_total_uncached_s": total_p, "flow_total_cached_s": total_c,
        "streamed_chunk_max_abs_diff": max(diffs) if diffs else 0.0,
        "final_segment_max_abs_diff": float(final_diff.abs().max()),
        "final_segment_rms_diff": float(final_diff.pow(2).mean().sqrt()),
        "final_segment_exact_rms": float(a_mel.float().pow(2).mean().sqrt()),
        "cache_peak_mb": cache_peak / 1e6,
        "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }
    print(f"flow total: {total_p:.1f} s without the cache, {total_c:.1f} s with it ({total_p / total_c:.2f}x)")
    print(f"streamed chunks, cached vs uncached: max |mel diff| {report['streamed_chunk_max_abs_diff']:.2e}")
    print(f"last segment, 'full' vs exact final call: max |mel diff| {report['final_segment_max_abs_diff']:.3g}, "
          f"rms {report['final_segment_rms_diff']:.3g} (exact mel rms {report['final_segment_exact_rms']:.3g})")
    print(f"flow cache peak {report['cache_peak_mb']:.0f} MB; process peak RSS {report['peak_rss_gib']:.2f} GiB")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
