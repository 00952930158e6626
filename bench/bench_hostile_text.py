"""Issue 27's hostile texts: the time to read a run of marks, and the memory of one long segment.

    # how long the text path takes on 'Hi' + '!' * 100_000 (both readings), on the tiny CosyVoice2
    .venv/bin/python bench/bench_hostile_text.py marks --count 100000
    # peak memory (RSS) of synthesising N speech tokens as one segment, on the tiny CosyVoice2
    .venv/bin/python bench/bench_hostile_text.py segment --tokens 4000
    # the issue's case: a 10 kB text without sentence marks, with combining marks (zalgo), its first
    # K segments (each makes up to 20 speech tokens per text token on random weights)
    .venv/bin/python bench/bench_hostile_text.py zalgo --bytes 10000 --segments 2

``segment`` stands in for the LM with a generator of random speech tokens, so it measures the
flow and the vocoder on the longest segment the bounds allow (200 text tokens x 20 = 4,000 speech
tokens). Peak memory is sampled from /proc every 20 ms (and ``ru_maxrss``). Nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cosycore.engine import Engine, SynthesisRequest
from cosycore.testing.tiny_model import write_tiny_model

SR = 24000


def _rss_mb() -> int:
    with open("/proc/self/status") as fh:
        return int(fh.read().split("VmRSS:")[1].split()[0]) // 1024


def _peak(work: Callable[[], Any]) -> tuple[Any, dict[str, float]]:
    base = _rss_mb()
    peak = [base]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_mb())
            time.sleep(0.02)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    t0 = time.perf_counter()
    try:
        result = work()
    finally:
        done.set()
        thread.join()
    return result, {"seconds": round(time.perf_counter() - t0, 2), "rss_before_mb": base, "peak_rss_mb": peak[0],
                    "peak_over_before_mb": peak[0] - base,
                    "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}


def _engine(model_dir: Path | None) -> Engine:
    if model_dir is None:
        model_dir = write_tiny_model(Path(tempfile.mkdtemp(prefix="cosy-bench-")), "cosyvoice2", seed=0).model_dir
    return Engine(model_dir, device="cpu")


def _voice(engine: Engine) -> Any:
    t = np.linspace(0, 3, 3 * SR, dtype=np.float32)
    audio = (0.3 * np.sin(2 * np.pi * 150 * t) * (1 + 0.5 * np.sin(2 * np.pi * 3 * t))).astype(np.float32)
    return engine.create_voice(audio, SR, name="bench", transcript="hello there friend")


def zalgo(n_bytes: int, seed: int = 0) -> str:
    """Words of letters, each letter carrying 2-8 combining marks (U+0300-036F), no sentence marks."""
    rng = random.Random(seed)
    words: list[str] = []
    size = 0
    while size < n_bytes:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                       + "".join(chr(rng.randint(0x300, 0x36F)) for _ in range(rng.randint(2, 8)))
                       for _ in range(rng.randint(2, 7)))
        words.append(word)
        size += len(word.encode()) + 1
    return " ".join(words)


def run_marks(args: argparse.Namespace) -> dict[str, Any]:
    engine = _engine(args.model_dir)
    text = "Hi" + "!" * args.count
    out: dict[str, Any] = {"chars": len(text)}
    for reading in ("original", "improved"):
        segments, figures = _peak(lambda r=reading: list(engine.spoken_sentences(text, reading=r)))  # type: ignore[misc]
        out[reading] = {"segments": len(segments), **figures}
    return out


def run_segment(args: argparse.Namespace) -> dict[str, Any]:
    engine = _engine(args.model_dir)
    voice = _voice(engine)
    rng = np.random.default_rng(0)

    def fake_lm(*_a: Any, **_k: Any) -> Any:
        yield from (int(x) for x in rng.integers(0, 6561, args.tokens))

    engine.model.llm.generate = fake_lm  # type: ignore[method-assign]
    request = SynthesisRequest("Hello there.", mode="zero_shot", voice=voice, seed=0, stream=False)
    samples, figures = _peak(lambda: sum(c.samples.size for c in engine.synthesize(request)))
    return {"speech_tokens": args.tokens, "audio_seconds": round(samples / SR, 1), **figures}


def run_zalgo(args: argparse.Namespace) -> dict[str, Any]:
    engine = _engine(args.model_dir)
    voice = _voice(engine)
    text = zalgo(args.bytes)
    segments = list(engine.spoken_sentences(text))
    if args.segments:
        text = " ".join(segments[: args.segments])  # the first K segments, as the engine would cut them
    request = SynthesisRequest(text, mode="zero_shot", voice=voice, seed=0, stream=False)
    samples, figures = _peak(lambda: sum(c.samples.size for c in engine.synthesize(request)))
    return {"text_bytes": args.bytes, "segments_of_the_text": len(segments),
            "segments_spoken": args.segments or len(segments),
            "text_tokens_per_segment": [len(engine.tokenizer.encode(s)) for s in segments[: args.segments or None]],
            "audio_seconds": round(samples / SR, 1), **figures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", type=Path, default=None, help="a CosyVoice2 folder (default: a tiny one)")
    parser.add_argument("--threads", type=int, default=1)
    sub = parser.add_subparsers(dest="what", required=True)
    marks = sub.add_parser("marks")
    marks.add_argument("--count", type=int, default=100_000)
    segment = sub.add_parser("segment")
    segment.add_argument("--tokens", type=int, default=4000)
    z = sub.add_parser("zalgo")
    z.add_argument("--bytes", type=int, default=10_000)
    z.add_argument("--segments", type=int, default=0, help="speak only the first K segments (0: all)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    result = {"marks": run_marks, "segment": run_segment, "zalgo": run_zalgo}[args.what](args)
    json.dump({"what": args.what, "threads": args.threads, **result}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
