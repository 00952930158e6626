"""Playback underruns on measured chunk timelines: the app's own player logic on a virtual clock.

    # reports written by bench_perf.py request --json (one process each; any number of them)
    env PYTHONPATH=. .venv/bin/python bench/bench_playback.py /tmp/draft.json /tmp/fast.json --json /tmp/sim.json
    # measure and simulate in one go: everything after --run goes to bench_perf.py request
    env PYTHONPATH=. .venv/bin/python bench/bench_playback.py --run --quality draft --runs 4 --threads 2
    # the same timelines with the pre-roll from each request's own RTF (best case), or the minimum only
    env PYTHONPATH=. .venv/bin/python bench/bench_playback.py /tmp/draft.json --preroll-from own
    env PYTHONPATH=. .venv/bin/python bench/bench_playback.py /tmp/draft.json --preroll-from none

For every request of a report, the player opens its stream when the first chunk is ready, as the app
does, with the pre-roll the app would choose: :func:`app.audio.playback_feed.preroll_seconds` of the
real-time factor measured on the earlier requests of the same process (the app's running average,
:func:`app.worker.eta.smoothed_rtf`; nothing measured before the first request, so the default pre-roll) and of
the request's audio length. The device asks for ``--block`` samples at a time; before each callback
every chunk ready by then goes into the pending queue and from there into the ring, and the real
:meth:`Feed.fill <app.audio.playback_feed.Feed.fill>` fills the block. Reported per request: the pre-roll,
the time from the request's start to the first sound, the underruns and the seconds of silence
between the first sound and the end of the take (the stalls).

The timelines are those of ``bench_perf.py request`` (the engine's token2wav stream, without the app's
thread hops); the device is an ideal clock (no latency, no drift). Needs numpy only, besides
``bench_perf.py`` for ``--run``; no Qt, no PortAudio. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.audio.playback_feed import MIN_PREROLL, Feed, PendingQueue, preroll_seconds
from app.worker.eta import smoothed_rtf, valid_rtf
from cosycore.errors import CosyError

# The app opens its stream without a block size (sounddevice's 0: PortAudio picks one, and it varies
# by host API and device); 1024 samples at the model's rate stand in for it (43 ms at 24 kHz).
DEFAULT_BLOCK = 1024
PREROLL_FROM = ("previous", "own", "none")
# The report's settings shown with each request (bench_perf.py request's "settings").
SHOWN_SETTINGS = ("family", "quality", "quant", "dtype", "flow_steps", "flow_cache", "overlap", "busy_spinners",
                  "audio_seconds")


class ReportError(CosyError):
    """A report that cannot be simulated: unreadable, not a ``request`` report, or without chunk timelines."""


@dataclass(frozen=True)
class Timeline:
    """One measured request: when each of its audio chunks was ready."""

    sample_rate: int
    rtf: float  # the request's real-time factor: total seconds / audio seconds
    chunks: tuple[tuple[float, int], ...]  # (seconds since the request's start, samples) per non-empty chunk

    @property
    def audio_s(self) -> float:
        return sum(n for _, n in self.chunks) / self.sample_rate


@dataclass(frozen=True)
class Report:
    """What a ``bench_perf.py request --json`` report says about one process's requests."""

    path: Path
    device: str
    settings: dict[str, Any]
    dry_run: bool  # a tiny model on the CPU: checks the command, measures nothing
    timelines: tuple[Timeline, ...]


@dataclass(frozen=True)
class Playout:
    """How one request sounded through the player."""

    preroll_s: float
    first_sound_s: float  # from the request's start to the first sample handed to the device
    underruns: int
    stall_s: float  # silence handed to the device after the first sound, before the take had played out
    played_s: float  # real samples handed to the device


def simulate(chunks: Sequence[tuple[float, int]], sample_rate: int, preroll: float, *,
             block: int = DEFAULT_BLOCK) -> Playout:
    """Play ``chunks`` (ready time in seconds since the request's start, samples) through the app's feed.

    The stream opens when the first chunk is ready (the app calls ``Player.begin`` then) with a ring of
    ``RING_SECONDS`` and ``preroll`` seconds to buffer; the device takes ``block`` samples every
    ``block / sample_rate`` seconds. The input ends with the last chunk, as the engine's end of the
    take follows its last chunk.
    """
    if not chunks:
        raise ReportError("a request without audio cannot be played")
    if block <= 0 or sample_rate <= 0:
        raise ValueError("the block size and the sample rate must be positive")
    feed = Feed.for_stream(sample_rate, preroll)
    pending = PendingQueue()
    out = np.empty(block, np.float32)
    opened = chunks[0][0]
    arrived = blocks = stalled = 0
    first_sound: float | None = None
    while True:
        now = opened + blocks * block / sample_rate
        while arrived < len(chunks) and chunks[arrived][0] <= now:
            pending.put(np.ones(chunks[arrived][1], np.float32))
            arrived += 1
            if arrived == len(chunks):
                pending.end()
        pending.top_up(feed)
        before = feed.frames_played
        more = feed.fill(out)
        real = feed.frames_played - before
        if real and first_sound is None:
            first_sound = now
        if not more:  # played out: the rest of this block is the end of the take, not a stall
            break
        if first_sound is not None:
            stalled += block - real
        blocks += 1
    assert first_sound is not None  # the take had samples, and the feed drains only after playing them
    return Playout(preroll_s=preroll, first_sound_s=first_sound, underruns=feed.underruns,
                   stall_s=stalled / sample_rate, played_s=feed.frames_played / sample_rate)


def choose_prerolls(timelines: Sequence[Timeline], how: str) -> list[tuple[float | None, float]]:
    """(the RTF the pre-roll was sized from, the pre-roll) per request of one process.

    ``previous``: the app's way, the running average of the earlier requests' RTFs (None before the
    first has finished); ``own``: the request's own RTF, known only afterwards (the best case);
    ``none``: :data:`MIN_PREROLL` whatever the RTF.
    """
    if how not in PREROLL_FROM:
        raise ValueError(f"--preroll-from must be one of {', '.join(PREROLL_FROM)}, not {how!r}")
    chosen: list[tuple[float | None, float]] = []
    measured: float | None = None
    for t in timelines:
        if how == "none":
            chosen.append((None, MIN_PREROLL))
        else:
            rtf = measured if how == "previous" else t.rtf
            chosen.append((rtf, preroll_seconds(rtf, t.audio_s)))
        if valid_rtf(t.rtf):
            measured = smoothed_rtf(measured, t.rtf)
    return chosen


def _timeline(path: Path, i: int, raw: Any) -> Timeline:
    where = f"{path}: results.timelines[{i}]"
    if not isinstance(raw, dict):
        raise ReportError(f"{where} is not an object; write the report again with bench_perf.py request --json")
    try:
        rate = int(raw["sample_rate"])
        rtf = float(raw["rtf"])
        chunks = tuple((float(t), int(n)) for t, n in raw["chunks"])
    except (KeyError, TypeError, ValueError) as e:
        raise ReportError(f"{where} lacks sample_rate, rtf or [ready_s, samples] chunks ({e!r}); write the "
                          "report again with bench_perf.py request --json") from e
    if rate <= 0 or not chunks:
        raise ReportError(f"{where} has no audio (sample rate {rate}, {len(chunks)} chunks)")
    times = [t for t, _ in chunks]
    if any(not math.isfinite(t) or t < 0 for t in times) or times != sorted(times) or any(n <= 0 for _, n in chunks):
        raise ReportError(f"{where}: chunk ready times must be finite, non-negative and in order, and every "
                          "chunk must have samples")
    return Timeline(rate, rtf, chunks)


def read_report(path: Path) -> Report:
    """The timelines of a ``bench_perf.py request --json`` report; :class:`ReportError` if it has none."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ReportError(f"cannot read {path}: {e.strerror or e}") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ReportError(f"{path} is not a JSON report ({e}); give the file bench_perf.py request --json wrote") from e
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ReportError(f"{path} is not a bench_perf.py report (no results); give the file "
                          "bench_perf.py request --json wrote")
    if data.get("scenario") != "request":
        raise ReportError(f"{path} is a bench_perf.py {data.get('scenario')!r} report; only request reports have "
                          "chunk timelines (bench_perf.py request ... --json FILE)")
    raw = data["results"].get("timelines")
    if not raw or not isinstance(raw, list):
        raise ReportError(f"{path} has no chunk timelines (results.timelines): it was written by a bench_perf.py "
                          "from before they were recorded. Measure again with this checkout's "
                          "bench_perf.py request ... --json FILE, or use bench_playback.py --run ...")
    return Report(path=Path(path), device=str(data.get("device", "?")),
                  settings=dict(data["results"].get("settings", {})), dry_run=bool(data.get("dry_run", False)),
                  timelines=tuple(_timeline(Path(path), i, t) for i, t in enumerate(raw)))


def simulate_report(report: Report, how: str, block: int) -> dict[str, Any]:
    """Every request of ``report`` through the player: per request and a summary (plain data for JSON)."""
    requests = []
    for i, (t, (rtf_used, preroll)) in enumerate(zip(report.timelines, choose_prerolls(report.timelines, how))):
        p = simulate(t.chunks, t.sample_rate, preroll, block=block)
        requests.append({"request": i, "rtf": t.rtf, "audio_s": t.audio_s, "preroll_from_rtf": rtf_used,
                         **asdict(p)})
    below = [r for r in requests if r["rtf"] < 1.0]
    summary = {
        "requests": len(requests),
        "with_underruns": sum(r["underruns"] > 0 for r in requests),
        "underruns": sum(r["underruns"] for r in requests),
        "stall_s": sum(r["stall_s"] for r in requests),
        "worst_stall_s": max(r["stall_s"] for r in requests),
        "rtf_below_1": len(below),
        "rtf_below_1_with_underruns": sum(r["underruns"] > 0 for r in below),
    }
    return {"path": str(report.path), "device": report.device, "dry_run": report.dry_run,
            "settings": report.settings, "preroll_from": how, "block": block,
            "requests": requests, "summary": summary}


def _describe(result: dict[str, Any]) -> str:
    shown = ", ".join(f"{k} {result['settings'][k]}" for k in SHOWN_SETTINGS if k in result["settings"])
    return f"{result['path']} ({result['device']}; {shown})" + (" [dry run: tiny model, no real figures]"
                                                                 if result["dry_run"] else "")


def print_result(result: dict[str, Any]) -> None:
    print(_describe(result))
    for r in result["requests"]:
        basis = "no RTF measured yet" if r["preroll_from_rtf"] is None else f"RTF {r['preroll_from_rtf']:.2f}"
        if result["preroll_from"] == "none":
            basis = "the minimum"
        print(f"  request {r['request']}{' (first of the process)' if r['request'] == 0 else ''}: "
              f"rtf {r['rtf']:.3f}, audio {r['audio_s']:.2f} s, pre-roll {r['preroll_s']:.2f} s (from {basis}), "
              f"first sound {r['first_sound_s']:.2f} s, underruns {r['underruns']}, stalls {r['stall_s']:.2f} s")
    s = result["summary"]
    print(f"  summary (pre-roll from {result['preroll_from']}, block {result['block']}): {s['requests']} requests, "
          f"{s['with_underruns']} with underruns ({s['underruns']} in all, {s['stall_s']:.2f} s of stalls, worst "
          f"{s['worst_stall_s']:.2f} s); RTF below 1: {s['rtf_below_1']} requests, "
          f"{s['rtf_below_1_with_underruns']} with underruns", flush=True)


def _run_json_path(run_args: list[str]) -> Path | None:
    """The ``--json`` path among bench_perf's arguments, if the caller gave one."""
    for i, a in enumerate(run_args):
        if a == "--json" and i + 1 < len(run_args):
            return Path(run_args[i + 1])
        if a.startswith("--json="):
            return Path(a.split("=", 1)[1])
    return None


def measure(run_args: list[str], tmp: Path) -> Path:
    """Run ``bench_perf.py request RUN_ARGS`` in this process; the path of the JSON report it wrote."""
    import bench_perf  # the sibling script: torch and the engine, only for --run

    args = run_args[1:] if run_args[:1] == ["request"] else list(run_args)
    path = _run_json_path(args)
    if path is None:
        path = tmp / "request.json"
        args += ["--json", str(path)]
    rc = bench_perf.main(["request", *args])
    if rc != 0:
        raise ReportError(f"bench_perf.py request {' '.join(args)} failed (exit status {rc}); nothing to simulate")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("reports", nargs="*", type=Path, help="reports written by bench_perf.py request --json")
    ap.add_argument("--block", type=int, default=DEFAULT_BLOCK,
                    help=f"samples per device callback (default {DEFAULT_BLOCK})")
    ap.add_argument("--preroll-from", choices=PREROLL_FROM, default="previous",
                    help="previous: the app's way (the earlier requests' RTF); own: the request's own RTF "
                         "(best case); none: the minimum pre-roll only")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    ap.add_argument("--run", nargs=argparse.REMAINDER, default=None, metavar="BENCH_PERF_ARGS",
                    help="measure first: the rest of the command line goes to bench_perf.py request")
    args = ap.parse_args(argv)
    if args.block <= 0:
        ap.error("--block must be positive")
    if not args.reports and args.run is None:
        ap.error("give reports of bench_perf.py request --json, or --run with bench_perf.py request's arguments")
    refused = 0  # reports that cannot be simulated are named and skipped (a glob may catch other scenarios)
    reports = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(args.reports)
        if args.run is not None:
            try:
                paths.append(measure(args.run, Path(tmp)))
            except ReportError as e:
                print(f"bench_playback: {e}", file=sys.stderr)
                refused += 1
        for path in paths:
            try:
                reports.append(read_report(path))
            except ReportError as e:
                print(f"bench_playback: skipped: {e}", file=sys.stderr)
                refused += 1
    if not reports:
        return 2
    results = [simulate_report(r, args.preroll_from, args.block) for r in reports]
    for result in results:
        print_result(result)
    out = {"preroll_from": args.preroll_from, "block": args.block, "reports": results}
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 2 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
