"""Voice conversion's speed per quality mode: time to first audio and real-time factor of Engine.convert.

    # a full-size random-weight folder, written into /tmp/cv2-full first if it is not there yet
    # (cosycore.testing.tiny_model --release-sizes: the speech tokenizer at its released size too)
    .venv/bin/python bench/bench_convert.py --random-release /tmp/cv2-full --family cosyvoice2 --threads 2
    # a release folder (downloaded, or written as above)
    .venv/bin/python bench/bench_convert.py --model-dir /tmp/cv2-full --threads 2 --source-seconds 10
    # the command's code path on a tiny model (measures nothing useful)
    .venv/bin/python bench/bench_convert.py --family cosyvoice3 --dry-run
    # live conversion's mouth-to-ear latency, quiet, then with one core kept busy by another process
    .venv/bin/python bench/bench_convert.py --model-dir /tmp/cv2-full --threads 2 --live 20
    .venv/bin/python bench/bench_convert.py --model-dir /tmp/cv2-full --threads 2 --live 20 --busy-core

For each ``--quality`` mode (default: exact, fast, draft) an engine is loaded and converts a
synthetic, speech-like source of ``--source-seconds`` (an amplitude-modulated glide with pauses, at
22.05 kHz: the frontend resamples it as it would a recording) into a voice made from a
``--prompt-seconds`` clip, ``--runs`` times streamed and ``--runs`` times not. Reported per mode and
way: first audio (seconds from the ``convert`` call to the first chunk), total time, real-time
factor (total time / seconds of audio made; below 1 is faster than real time), chunks, and the
first run of the process on its own (cold start). Conversion has no LM, so the modes differ only in
the flow (see cosycore.perf), and the engine is loaded without it (``with_llm=False``, as
``cosycore convert`` loads it; ``--with-llm`` loads it too, to compare peak memory). Also the CPU,
threads, the load average before and after, and peak memory. Nothing here asserts a speed.

``--live SECONDS`` measures live conversion instead (cosycore.studio.live_convert, as the app's Live button
runs it): a feeder thread plays the role of a microphone, handing 20 ms blocks of a 48 kHz speech-like
signal to the :class:`PieceCutter` at real-time pace; the pieces are converted in turn, and a
:class:`LatencyMeter` replays the playback queue. Reported per mode: mouth-to-ear latency (median,
90th percentile, max, first and last piece: the moment a piece's converted audio starts to play minus
the moment its first sample was spoken, plus ``--output-delay`` for the audio device's buffer, the
app's pre-roll by default), the real-time factor over the pieces with speech, pieces, and whether the
conversion kept up. ``--busy-core`` keeps one core busy with a spinning process meanwhile (the issue's
"one core busy" case; say so with the figures).
"""

from __future__ import annotations

import os

if "GOMP_SPINCOUNT" not in os.environ:  # as the CLI and the app do (cosycore.threads.prefer_passive_wait)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import contextlib
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from perf_common import cpu_name, peak_memory

from cosycore.config import QUALITY_MODES
from cosycore.engine import Engine
from cosycore.studio.live_convert import LatencyMeter, LiveFeed, PieceCutter, convert_pieces

SOURCE_RATE = 22050
MIC_RATE = 48000
MIC_BLOCK_SECONDS = 0.02
APP_OUTPUT_DELAY = 0.15  # app.audio.playback_feed.MIN_PREROLL: the player's buffer before it starts


def speechlike(seconds: float, sr: int = SOURCE_RATE, seed: int = 0) -> np.ndarray:
    """A gliding, amplitude-modulated tone with a 0.3 s pause every 4 s and a little noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    f = 140 + 60 * np.sin(2 * np.pi * 0.7 * t + rng.uniform(0, 6))
    x = 0.3 * np.sin(2 * np.pi * np.cumsum(f) / sr) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    x[(t % 4.0) > 3.7] = 0.0
    return (x + 0.01 * rng.standard_normal(t.shape)).astype(np.float32)


def one_run(engine: Engine, source: np.ndarray, voice: Any, *, stream: bool) -> dict[str, float]:
    start = time.perf_counter()
    first = None
    samples = 0
    chunks = 0
    for chunk in engine.convert(source, voice, sample_rate=SOURCE_RATE, stream=stream, seed=0):
        if first is None:
            first = time.perf_counter() - start
        samples += chunk.samples.shape[0]
        chunks += 1
    total = time.perf_counter() - start
    audio = samples / engine.sample_rate
    return {"first_audio_s": first or total, "total_s": total, "audio_s": audio, "rtf": total / max(audio, 1e-9),
            "chunks": chunks}


def bench_mode(args: argparse.Namespace, quality: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    engine = Engine(args.model_dir, device=args.device, quality=quality, threads=args.threads,
                    with_llm=args.with_llm)
    load_s = time.perf_counter() - t0
    voice = engine.create_voice(speechlike(args.prompt_seconds, seed=1), SOURCE_RATE, name="bench")
    source = speechlike(args.source_seconds)
    out: dict[str, Any] = {"quality": engine.quality, "load_s": load_s}
    for way, stream in (("streamed", True), ("whole", False)):
        runs = [one_run(engine, source, voice, stream=stream) for _ in range(args.runs + 1)]
        later = runs[1:]
        out[way] = {
            "cold": runs[0],
            "first_audio_s": statistics.median(r["first_audio_s"] for r in later),
            "rtf": statistics.median(r["rtf"] for r in later),
            "total_s": statistics.median(r["total_s"] for r in later),
            "audio_s": later[0]["audio_s"],
            "chunks": later[0]["chunks"],
            "runs": later,
        }
        print(f"{quality:6s} {way:8s}: first audio {out[way]['first_audio_s']:.2f} s, RTF {out[way]['rtf']:.2f} "
              f"({out[way]['audio_s']:.1f} s of audio, {out[way]['chunks']} chunk(s); cold: first audio "
              f"{runs[0]['first_audio_s']:.2f} s, RTF {runs[0]['rtf']:.2f})", file=sys.stderr)
    return out


def feed_in_real_time(feed: LiveFeed, signal: np.ndarray, sr: int) -> None:
    """A microphone: hand ``signal`` to the cutter in 20 ms blocks, each when it would have been recorded."""
    cutter = PieceCutter(sr)
    block = int(MIC_BLOCK_SECONDS * sr)
    t0 = time.perf_counter()
    for i in range(0, signal.shape[0], block):
        end = min(signal.shape[0], i + block)
        due = t0 + end / sr
        time.sleep(max(0.0, due - time.perf_counter()))
        for piece in cutter.push(signal[i:end], time.perf_counter()):
            feed.put(piece)
    last = cutter.flush()
    if last is not None:
        feed.put(last)
    feed.close()


def bench_live(args: argparse.Namespace, quality: str, room: Any = None) -> dict[str, Any]:
    import threading

    engine = Engine(args.model_dir, device=args.device, quality=quality, threads=args.threads,
                    with_llm=args.with_llm)
    voice = engine.create_voice(speechlike(args.prompt_seconds, seed=1), SOURCE_RATE, name="bench")
    warm = LiveFeed()  # one piece first, so the first measured piece pays no first-call costs
    feed_in_real_time(warm, speechlike(1.5, sr=MIC_RATE, seed=3), MIC_RATE)
    list(convert_pieces(engine, warm.pieces(), voice=voice, seed=0))
    if room is not None:
        from live_pulse import run_live

        out = {"quality": engine.quality, **run_live(engine, voice, room, args.output_delay)}
        lat = out["mouth_to_ear_s"]
        print(f"{quality:6s} live on PulseAudio: mouth to ear per sentence {' '.join(f'{x:.2f}' for x in lat)} s "
              f"(first {out['first_mouth_to_ear_s']}, end {out['end_to_end_s']}); {out['said_bursts']} said, "
              f"{out['heard_bursts']} heard; the meter's median {out['meter_latency_median_s']}, RTF "
              f"{out['meter_rtf']}; underruns {out['underruns']}", file=sys.stderr)
        return out
    feed = LiveFeed()
    signal = speechlike(args.live, sr=MIC_RATE, seed=2)
    feeder = threading.Thread(target=feed_in_real_time, args=(feed, signal, MIC_RATE), name="mic", daemon=True)
    meter = LatencyMeter(output_delay=args.output_delay)
    behind = False
    feeder.start()
    for piece in convert_pieces(engine, feed.pieces(), voice=voice, seed=0):
        meter.add(piece)
        behind = behind or meter.falling_behind
    feeder.join()
    lat = np.array(meter.latencies)
    out = {"quality": engine.quality, "pieces": meter.pieces, "silent_pieces": meter.silent_pieces,
           "latency_median_s": float(np.median(lat)), "latency_p90_s": float(np.percentile(lat, 90)),
           "latency_max_s": float(lat.max()), "latency_first_s": float(lat[0]), "latency_last_s": float(lat[-1]),
           "rtf": meter.rtf, "kept_up": not behind, "output_delay_s": args.output_delay}
    print(f"{quality:6s} live: latency median {out['latency_median_s']:.2f} s, p90 {out['latency_p90_s']:.2f} s, "
          f"max {out['latency_max_s']:.2f} s (first {lat[0]:.2f}, last {lat[-1]:.2f}); RTF "
          f"{meter.rtf if meter.rtf is not None else float('nan'):.2f}; {meter.pieces} pieces; "
          f"{'kept up' if out['kept_up'] else 'fell behind'}", file=sys.stderr)
    return out


def random_release(folder: Path, family: str) -> Path:
    """A full-size random-weight ``family`` folder at ``folder``: reused when it holds one, else written
    (into a temporary sibling, renamed when complete, so an interrupted write leaves no half folder)."""
    from cosycore.testing.tiny_model import write_tiny_model
    from cosycore.testing.tiny_yaml import RELEASE_SIZES

    if (folder / f"{family}.yaml").is_file():
        return folder
    if folder.exists():
        raise SystemExit(f"error: {folder} exists but holds no {family} folder; name a new folder for --random-release")
    folder.parent.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    print(f"writing a full-size random {family} folder to {folder} (about 3 GB)...", file=sys.stderr)
    write_tiny_model(part, family, sizes=RELEASE_SIZES, full_size_tokenizer=True)  # type: ignore[arg-type]  # a Family
    part.rename(folder)
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--model-dir", type=Path, default=None, help="a release folder (with its ONNX frontend models)")
    ap.add_argument("--random-release", type=Path, default=None, metavar="DIR",
                    help="a full-size random-weight --family folder in DIR (written first when DIR does not exist)")
    ap.add_argument("--family", choices=["cosyvoice2", "cosyvoice3"], default="cosyvoice2",
                    help="--dry-run, --random-release: the model's family")
    ap.add_argument("--quality", nargs="+", choices=QUALITY_MODES, default=list(QUALITY_MODES))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3, help="measured runs per mode and way, after one cold run")
    ap.add_argument("--source-seconds", type=float, default=10.0)
    ap.add_argument("--prompt-seconds", type=float, default=3.0)
    ap.add_argument("--dry-run", action="store_true", help="a tiny model, 3 s, 1 run: checks the command only")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    ap.add_argument("--live", type=float, default=0.0, metavar="SECONDS",
                    help="measure live conversion's mouth-to-ear latency on SECONDS of real-time input instead")
    ap.add_argument("--output-delay", type=float, default=APP_OUTPUT_DELAY,
                    help="--live: seconds the audio output adds (default: the app's pre-roll)")
    ap.add_argument("--busy-core", action="store_true", help="keep one core busy meanwhile")
    ap.add_argument("--with-llm", action="store_true",
                    help="load the language model too, as an engine that also speaks does (conversion never runs "
                         "it; without this flag it is left out, as `cosycore convert` does): compare peak memory")
    ap.add_argument("--pulse", action="store_true",
                    help="--live: measure mouth to ear on PulseAudio null devices (see bench/live_pulse.py)")
    args = ap.parse_args(argv)
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if args.dry_run:
        from cosycore.testing.tiny_model import write_tiny_model

        tmp = tempfile.TemporaryDirectory()
        args.model_dir = write_tiny_model(Path(tmp.name) / "tiny", args.family).model_dir
        args.source_seconds, args.runs = min(args.source_seconds, 3.0), 1
        args.live = min(args.live, 4.0)
    elif args.random_release is not None:
        args.model_dir = random_release(args.random_release, args.family)
    if args.model_dir is None:
        ap.error("--model-dir or --random-release is required (or --dry-run)")
    if args.threads:
        torch.set_num_threads(args.threads)
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    busy = None
    if args.busy_core:
        import subprocess

        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    room_cm: Any = contextlib.nullcontext()
    if args.live and args.pulse:
        from live_pulse import open_room

        room_cm = open_room()
    try:
        if args.live:
            with room_cm as room:
                results = {q: bench_live(args, q, room) for q in args.quality}
        else:
            results = {q: bench_mode(args, q) for q in args.quality}
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    report = {
        "scenario": ("convert-live-pulse" if args.pulse else "convert-live") if args.live else "convert",
        "live_seconds": args.live or None,
        "busy_core": args.busy_core,
        "with_llm": args.with_llm,
        "model_dir": str(args.model_dir),
        "random_weights": bool(args.dry_run or args.random_release is not None),
        "device": args.device,
        "cpu": cpu_name(),
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset: OpenMP's default)"),
        "torch": torch.__version__,
        "source_seconds": args.source_seconds,
        "prompt_seconds": args.prompt_seconds,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "results": results,
        **peak_memory(torch.device(args.device)),
    }
    if tmp is not None:
        report["dry_run"] = True
        tmp.cleanup()
    print(json.dumps(report, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
