"""Previous against now, quiet against busy: the README's quality-mode figures in one command.

    .venv/bin/python bench/bench_compare.py --baseline-commit 22f8a14 --out /tmp/compare.jsonl

For each family and quality mode (in priority order) it runs ``bench_perf.py request`` of this
checkout ("now": the engine's settings for the mode, with its default threading) and of the
baseline commit ("previous", checked out into a temporary ``git worktree`` and run with its own
bench and the flags its README gave for the mode), each once quiet and once with a competing
spin process on one core (``bench/busy.py``; the spinner runs for the whole process, model build
included). Each process reports its first (cold) request and the median of the later ones; every
result is appended to ``--out`` as one JSON line as soon as it is there, so an interrupted run keeps
what it measured. A process that runs past ``--timeout`` is recorded as timed out (the figure is
then "more than" the limit). Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from busy import Spinner

from cosycore.threads import FLOAT_LM_OVERLAP_MIN_THREADS, OVERLAP_MIN_THREADS

REPO = Path(__file__).resolve().parents[1]

# The baseline README's "Reproduce the CPU figures" flags of each mode, without --warmup (a load-time
# cost: the later requests, which are what is compared, do not depend on it).
PREVIOUS_FLAGS = {
    "exact": [],
    "fast": ["--quant", "int8", "--flow-cache", "chunks"],
    "draft": ["--quant", "int8", "--draft", "--bf16", "--flow-cache", "full"],
}


@contextlib.contextmanager
def baseline_tree(commit: str) -> Iterator[Path]:
    """``commit`` checked out into a temporary worktree (removed afterwards)."""
    tmp = Path(tempfile.mkdtemp(prefix="cosy-baseline-"))
    tree = tmp / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit], check=True,
                   capture_output=True)
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False,
                       capture_output=True)
        with contextlib.suppress(OSError):
            tmp.rmdir()


def run_bench(tree: Path, args: list[str], *, env: dict[str, str], busy: bool, timeout: float) -> dict:
    """One ``bench_perf.py`` process in ``tree``; its JSON report, or a record of how it failed."""
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    cmd = [sys.executable, str(tree / "bench" / "bench_perf.py"), *args, "--json", str(out)]
    t0 = time.perf_counter()
    try:
        with Spinner(1 if busy else 0):
            proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            return {"error": proc.stderr[-2000:], "wall_s": time.perf_counter() - t0}
        return {**json.loads(out.read_text()), "wall_s": time.perf_counter() - t0}
    except subprocess.TimeoutExpired:
        return {"timed_out_after_s": timeout}
    finally:
        out.unlink(missing_ok=True)


def _figure(record: dict | None, key: str) -> str:
    if record is None:
        return "pending"
    res = record["result"]
    if "timed_out_after_s" in res:
        return f"timed out (process > {res['timed_out_after_s']:.0f} s)"
    later = res.get("results", {}).get("median_later_requests")
    if not later:
        return "failed"
    return f"{later[key]:.2f}" if key == "rtf" else f"{later[key]:.2f} s"


def summarize(path: Path) -> str:
    """A Markdown table per family from the JSON lines (the last record of each cell wins)."""
    cells: dict[tuple[str, str, str, str], dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            cells[(r["family"], r["quality"], r["which"], r["load"])] = r
    out = []
    for family in dict.fromkeys(k[0] for k in cells):
        qualities = [q for q in ("exact", "fast", "draft") if any(k[:2] == (family, q) for k in cells)]
        out.append(f"| {family}, 2 cores | " + " | ".join(qualities) + " |")
        out.append("|---" * (len(qualities) + 1) + "|")
        for key, label in (("time_to_first_audio_s", "first audio"), ("rtf", "real-time factor")):
            for load in ("quiet", "busy"):
                row = [f"{_figure(cells.get((family, q, 'previous', load)), key)} → "
                       f"**{_figure(cells.get((family, q, 'now', load)), key)}**" for q in qualities]
                out.append(f"| {label}, {load}: previous → now | " + " | ".join(row) + " |")
        for key, label in (("time_to_first_audio_s", "first audio"), ("rtf", "real-time factor")):
            row = []
            for q in qualities:
                ratios = []
                for which in ("previous", "now"):
                    quiet, busy = (cells.get((family, q, which, load)) for load in ("quiet", "busy"))
                    try:
                        a = quiet["result"]["results"]["median_later_requests"][key]  # type: ignore[index]
                        b = busy["result"]["results"]["median_later_requests"][key]  # type: ignore[index]
                        ratios.append(f"{b / a:.2f}×")
                    except (KeyError, TypeError):
                        ratios.append("–")
                row.append(" → ".join(ratios))
            out.append(f"| {label}, busy / quiet: previous → now | " + " | ".join(row) + " |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--baseline-commit", default="", help="the commit before the work measured")
    ap.add_argument("--out", type=Path, required=True, help="JSON lines, one per measurement")
    ap.add_argument("--families", nargs="+", default=["cosyvoice2", "cosyvoice3"])
    ap.add_argument("--qualities", nargs="+", default=["draft", "fast", "exact"])
    ap.add_argument("--which", nargs="+", default=["now", "previous"])
    ap.add_argument("--loads", nargs="+", default=["quiet", "busy"])
    ap.add_argument("--audio-seconds", type=float, default=5.0)
    ap.add_argument("--runs", type=int, default=3, help="requests per process (the first is reported as cold)")
    ap.add_argument("--busy-runs", type=int, default=None, help="requests per busy process (default: --runs)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=400.0, help="seconds per bench process")
    ap.add_argument("--wait-policy", default="governed", metavar="governed|passive|default|spin:N",
                    help="now: OpenMP's wait (governed: the engine's choice on Linux, OpenMP's spin-then-sleep "
                         "wait and the core governor; passive: OMP_WAIT_POLICY=PASSIVE; default: OpenMP's own "
                         "spin-then-sleep without the governor; spin:N: GOMP_SPINCOUNT=N spins before sleeping)")
    ap.add_argument("--previous-readme-flags", action="store_true",
                    help="previous: the flags its README gave per mode (baselines whose bench has no --quality, "
                         "such as 22f8a14) instead of --quality MODE, the baseline engine's own settings")
    ap.add_argument("--summarize", action="store_true", help="only print the tables of --out")
    args = ap.parse_args(argv)
    # A terminated run still removes its baseline worktree and stops its spinner (the finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.summarize:
        print(summarize(args.out))
        return 0
    if "previous" in args.which and not args.baseline_commit:
        ap.error("--which previous needs --baseline-commit")
    baseline = baseline_tree(args.baseline_commit) if "previous" in args.which else contextlib.nullcontext(REPO)
    with baseline as base:
        for family in args.families:
            for quality in args.qualities:
                for which in args.which:
                    for load in args.loads:
                        tree = REPO if which == "now" else base
                        env = {**os.environ, "PYTHONPATH": str(tree)}
                        runs = args.busy_runs if load == "busy" and args.busy_runs else args.runs
                        common = ["request", "--family", family, "--threads", str(args.threads),
                                  "--audio-seconds", str(args.audio_seconds), "--runs", str(runs)]
                        if which == "now":
                            flags = ["--quality", quality]
                            least = FLOAT_LM_OVERLAP_MIN_THREADS if quality == "exact" else OVERLAP_MIN_THREADS
                            if args.threads >= least:  # as the engine decides (exact: a float32 LM)
                                flags += ["--overlap", "--final-threads"]
                            env.pop("OMP_WAIT_POLICY", None)
                            env.pop("GOMP_SPINCOUNT", None)
                            env.pop("COSY_THREAD_GOVERNOR", None)
                            if args.wait_policy == "governed":
                                pass  # the engine's own choice on Linux: OpenMP's spin + the core governor
                            elif args.wait_policy == "passive":
                                env["OMP_WAIT_POLICY"] = "PASSIVE"
                            elif args.wait_policy.startswith("spin:"):
                                env["GOMP_SPINCOUNT"] = str(int(args.wait_policy[5:]))
                            elif args.wait_policy != "default":
                                ap.error("--wait-policy is governed, passive, default or spin:N")
                            else:
                                env["GOMP_SPINCOUNT"] = "300000"  # OpenMP's own default, spelled out
                                env["COSY_THREAD_GOVERNOR"] = "0"  # and no governor
                        elif args.previous_readme_flags:
                            flags = PREVIOUS_FLAGS[quality]
                        else:  # the baseline's own settings of the mode (its bench has --quality)
                            flags = ["--quality", quality]
                            env.pop("OMP_WAIT_POLICY", None)  # the baseline left OpenMP's default
                        print(f"{family} {quality} {which} {load} ...", flush=True)
                        res = run_bench(tree, common + flags, env=env, busy=load == "busy", timeout=args.timeout)
                        record = {"family": family, "quality": quality, "which": which, "load": load,
                                  "flags": flags, "result": res,
                                  "wait_policy": args.wait_policy if which == "now" else "OpenMP default"}
                        with args.out.open("a", encoding="utf-8") as f:
                            f.write(json.dumps(record, default=str) + "\n")
                        later = res.get("results", {}).get("median_later_requests", {})
                        print(f"  first audio {later.get('time_to_first_audio_s')}, RTF {later.get('rtf')}, "
                              f"{'timed out' if 'timed_out_after_s' in res else ''}{res.get('error', '')[-300:]}",
                              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
