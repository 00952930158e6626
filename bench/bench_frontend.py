"""Frontend benchmark through the public engine, on a generated tiny model.

    .venv/bin/python bench/bench_frontend.py --family cosyvoice2 --runs 5
    .venv/bin/python bench/bench_frontend.py --family cosyvoice3 --chars 100000 --every 25

Two scenarios:

- ``first``: request -> first streamed chunk (``AudioChunk.timing``), from a raw prompt recording
  (read, checked, resampled, Whisper log-mel + speech tokenizer, fbank + CAM++, prompt mel) versus
  from a saved voice file (read and checksum-verified from disk, no extraction); and the prompt
  step alone for each (``extract_s`` versus ``voice_prepare_s``), which is the whole difference
  and is not drowned by the run-to-run noise of the LM and flow. Medians of ``--runs`` interleaved
  runs after one warm-up of each.
- ``memory``: a ``--chars``-character text (varied English sentences with numbers, so the text
  frontend has work to do) synthesised sentence by sentence, streaming; the resident set size is
  sampled every ``--every`` sentences. Flat means the engine keeps nothing per finished sentence.
  Speech tokens per sentence are capped with ``--tokens`` so the run takes minutes, not hours (the
  tiny model's random weights rarely stop on their own).

The tiny model (random weights, full tokenizer id space) is written to a temporary folder with
:func:`cosycore.testing.tiny_model.write_tiny_model`; the prompt is an espeak-ng recording. The
networks are tiny, so the extraction share is larger than with the release models' 0.5 B LM and
flow, and the absolute times are not those of the real models. Nothing here asserts anything:
the numbers go into the README.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from cosycore.engine import Engine, SynthesisRequest
from cosycore.frontend.prompt import prompt_from_voice
from cosycore.testing.tiny_model import write_tiny_model
from cosycore.voices import load_voice, save_voice

PROMPT_SENTENCE = "The quick brown fox jumps over the lazy dog. Speech synthesis turns text into audio."
TEXT_SENTENCES = (
    "On March {n}, the train left platform {m} at {h}:{mm} and arrived {k} minutes late.",
    "She bought {n} apples and {m} pears for {h}.{mm} dollars at the corner shop.",
    "Chapter {n} begins with a quiet morning, a cup of tea and a letter nobody expected.",
    "Why would anyone walk {k} miles in the rain when the bus runs every {m} minutes?",
    "The report lists {n} findings, {m} of which need attention before the end of the year.",
)


def rss_mib() -> float:
    """Current resident set size (Linux /proc; the peak elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize() / 2**20
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def long_text(chars: int) -> str:
    parts: list[str] = []
    size, i = 0, 0
    while size < chars:
        s = TEXT_SENTENCES[i % len(TEXT_SENTENCES)].format(
            n=i % 97 + 1, m=i % 13 + 2, h=i % 12 + 1, mm=f"{i % 60:02d}", k=i % 40 + 3)
        parts.append(s)
        size += len(s) + 1
        i += 1
    return " ".join(parts)[:chars]


def espeak_prompt(folder: Path) -> Path:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SystemExit("espeak-ng is needed for the prompt recording (apt-get install espeak-ng)")
    path = folder / "prompt.wav"
    subprocess.run([exe, "-v", "en-us", "-s", "160", "-w", str(path), PROMPT_SENTENCE], check=True, timeout=60)
    return path


def first_chunk_s(engine: Engine, request: SynthesisRequest) -> float:
    chunks = engine.synthesize(request)
    first = next(chunks)
    chunks.close()  # stop generating: only the latency counts
    return first.timing


def bench_first(engine: Engine, prompt: Path, voice_file: Path, runs: int) -> dict[str, float]:
    text = "Hello there, this is the first sentence of a longer answer."
    common = {"mode": "zero_shot", "seed": 0, "stream": True, "min_tokens": 60, "max_tokens": 60}

    def from_clip() -> float:
        return first_chunk_s(engine, SynthesisRequest(text, prompt_audio=prompt, prompt_text=PROMPT_SENTENCE,
                                                      **common))  # type: ignore[arg-type]

    def from_voice() -> float:
        t0 = time.perf_counter()
        voice = load_voice(voice_file)
        load_s = time.perf_counter() - t0
        return load_s + first_chunk_s(engine, SynthesisRequest(text, voice=voice, **common))  # type: ignore[arg-type]

    def extract() -> float:  # what a request with a recording spends on its prompt
        t0 = time.perf_counter()
        engine.extract_prompt(prompt)
        return time.perf_counter() - t0

    def voice_prepare() -> float:  # what a request with a saved voice spends on its prompt
        t0 = time.perf_counter()
        prompt_from_voice(load_voice(voice_file), engine.cfg, speech_tokenizer_sha256=engine.speech_tokenizer.sha256)
        return time.perf_counter() - t0

    fns: dict[str, Callable[[], float]] = {"clip_first_chunk_s": from_clip, "voice_first_chunk_s": from_voice,
                                           "extract_s": extract, "voice_prepare_s": voice_prepare}
    for fn in fns.values():
        fn()  # warm-up
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):  # interleaved, so a change in machine load hits every variant alike
        for name, fn in fns.items():
            samples[name].append(fn())
    out: dict[str, float] = {}
    for name, values in samples.items():
        out[name] = statistics.median(values)
        print(f"  {name}: median {out[name]:.4f} s of {runs} ({', '.join(f'{v:.4f}' for v in values)})", flush=True)
    out["first_chunk_saving_s"] = out["clip_first_chunk_s"] - out["voice_first_chunk_s"]
    out["prompt_saving_s"] = out["extract_s"] - out["voice_prepare_s"]
    return out


def bench_memory(engine: Engine, voice_file: Path, chars: int, every: int, tokens: int) -> dict[str, object]:
    voice = load_voice(voice_file)
    text = long_text(chars)
    request = SynthesisRequest(text, mode="zero_shot", voice=voice, seed=0, stream=True, max_tokens=tokens)
    series: list[tuple[int, float]] = [(0, rss_mib())]
    t0 = time.perf_counter()
    audio_s, last_sentence, chunks = 0.0, 0, 0
    for chunk in engine.synthesize(request):
        chunks += 1
        audio_s += chunk.duration
        if chunk.sentence_final and (chunk.sentence_index + 1) % every == 0:
            series.append((chunk.sentence_index + 1, rss_mib()))
            print(f"  sentence {chunk.sentence_index + 1:5d}: RSS {series[-1][1]:.1f} MiB", flush=True)
        last_sentence = chunk.sentence_index
    elapsed = time.perf_counter() - t0
    after_first = [r for n, r in series if n >= every]
    return {
        "chars": len(text), "sentences": last_sentence + 1, "chunks": chunks, "audio_s": audio_s,
        "elapsed_s": elapsed, "rss_series_mib": series,
        "rss_growth_after_first_sample_mib": (max(after_first) - after_first[0]) if after_first else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", choices=["cosyvoice2", "cosyvoice3"], default="cosyvoice2")
    ap.add_argument("--runs", type=int, default=7, help="runs per first-chunk figure (median; at least 3)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the tiny model gains nothing from more)")
    ap.add_argument("--scenarios", default="first,memory")
    ap.add_argument("--chars", type=int, default=100_000, help="text length of the memory scenario")
    ap.add_argument("--every", type=int, default=25, help="sample RSS every this many sentences")
    ap.add_argument("--tokens", type=int, default=25, help="speech tokens per sentence in the memory scenario")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    if args.runs < 3:
        ap.error("--runs must be at least 3 (medians)")
    torch.set_num_threads(args.threads)
    scenarios = {s.strip() for s in args.scenarios.split(",") if s.strip()}
    report: dict[str, object] = {"family": args.family, "threads": torch.get_num_threads(),
                                 "machine": platform.processor() or platform.machine(), "torch": torch.__version__}
    with tempfile.TemporaryDirectory(prefix="cosy-bench-") as tmp:
        folder = Path(tmp)
        model_dir = write_tiny_model(folder / "model", args.family, seed=0).model_dir
        prompt = espeak_prompt(folder)
        engine = Engine(model_dir, device="cpu")
        voice = engine.create_voice(prompt, transcript=PROMPT_SENTENCE, name="bench", language="en")
        voice_file = save_voice(folder / "bench.cosyvoice", voice)
        report["prompt_s"] = voice.duration
        if "first" in scenarios:
            print("first chunk (zero_shot, streaming):", flush=True)
            report["first"] = bench_first(engine, prompt, voice_file, args.runs)
        if "memory" in scenarios:
            print(f"memory ({args.chars:,} characters, RSS every {args.every} sentences):", flush=True)
            report["memory"] = bench_memory(engine, voice_file, args.chars, args.every, args.tokens)
    report["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
