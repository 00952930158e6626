"""How long the GUI event loop stalls while a take streams (real engine thread, tiny model, null device).

    .venv/bin/python -m bench.bench_ui_latency --takes 5
    DISPLAY=:98 .venv/bin/python -m bench.bench_ui_latency      # on a real (virtual) X display

A 5 ms timer on the GUI thread stamps every tick; a stall is the time between ticks beyond the 5 ms.
Measured from Speak until the take has finished and played out. The goal is a longest stall below
50 ms. Nothing is asserted: the figures are printed.

Each tick also records the GUI thread's own CPU time. For every stall this tells the app's work on
the GUI thread (CPU used in the gap) apart from waiting (for the GIL held by the engine thread, or
for a core on a loaded machine). An idle baseline with the same probe and no synthesis comes first.
A watchdog thread samples the GUI thread's Python stack whenever no tick came for 100 ms, and the
stacks seen most often during stalls are printed at the end.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import statistics
import sys
import threading
import time
import traceback
from pathlib import Path

from bench.app_bench_common import build_window, wait_until

TEXT = ("The studio keeps playing while the engine works. Every chunk lands in the waveform, the list "
        "of takes and the sound card. Nothing here should make the window stutter.")
PROBE_MS = 5


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, help="release folder (default: a fresh tiny CosyVoice2)")
    parser.add_argument("--takes", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch threads on the engine thread")
    parser.add_argument("--text", default=TEXT, help="what each take speaks (random weights never stop early: "
                        "a take runs to the 20 x text-token limit)")
    parser.add_argument("--switch-ms", type=float, help="Python's GIL switch interval (default: the app's 1 ms)")
    args = parser.parse_args()
    app, window, _ = build_window(args.model, args.threads)
    if args.switch_ms:
        sys.setswitchinterval(args.switch_ms / 1000)
    from PySide6.QtCore import QTimer

    from app.audio.playback import PlayState

    stamps: list[tuple[float, float]] = []  # (wall, GUI-thread CPU) per tick
    stalled_in: collections.Counter[str] = collections.Counter()
    gui_thread = threading.get_ident()
    watching = threading.Event()
    watching.set()

    def watchdog() -> None:
        while watching.is_set():
            time.sleep(0.02)
            if stamps and time.perf_counter() - stamps[-1][0] > 0.1:
                frame = sys._current_frames().get(gui_thread)
                where = traceback.extract_stack(frame)[-4:] if frame is not None else []
                stalled_in[" <- ".join(f"{f.name} ({Path(f.filename).name}:{f.lineno})" for f in reversed(where))] += 1

    watcher = threading.Thread(target=watchdog, name="stall-watchdog")
    watcher.start()
    probe = QTimer()
    probe.setInterval(PROBE_MS)
    probe.timeout.connect(lambda: stamps.append((time.perf_counter(), time.thread_time())))

    def gaps_of() -> tuple[list[float], list[float]]:
        wall = [(b[0] - a[0]) * 1000 - PROBE_MS for a, b in itertools.pairwise(stamps)]
        cpu = [(b[1] - a[1]) * 1000 for a, b in itertools.pairwise(stamps)]
        return wall, cpu

    stamps.clear()
    probe.start()
    idle_until = time.perf_counter() + 5.0
    wait_until(app, lambda: time.perf_counter() > idle_until, 10)
    probe.stop()
    idle, _ = gaps_of()
    window.editor.set_text(args.text)
    wait_until(app, lambda: bool(window.editor.sentences), 60)  # the preview has run once
    per_take = []
    for _ in range(args.takes):
        stamps.clear()
        probe.start()
        window.speaking_ctl.speak()
        take = window.session.takes[-1]
        player = window.session.player
        wait_until(app, lambda t=take, p=player: t.state.value != "streaming" and p.state is PlayState.STOPPED, 600)
        probe.stop()
        gaps, cpu = gaps_of()
        worst = max(range(len(gaps)), key=gaps.__getitem__)
        per_take.append((gaps[worst], gaps, take, cpu[worst], max(cpu)))
    all_gaps = sorted(g for _, gaps, _, _, _ in per_take for g in gaps)
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"platform: {app.platformName()}, torch threads on the engine thread: {args.threads}, "
          f"probe every {PROBE_MS} ms, switch interval {sys.getswitchinterval() * 1000:.0f} ms, load average {load}")
    idle.sort()
    print(f"idle baseline (5 s, no synthesis): p50 {statistics.median(idle):.2f} ms, "
          f"p99 {idle[int(0.99 * (len(idle) - 1))]:.2f} ms, longest stall {idle[-1]:.1f} ms")
    print(f"{'take':>4} {'audio s':>8} {'chunks':>6} {'1st audio s':>11} {'RTF':>5} {'ticks':>6} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'max stall':>9} {'its GUI CPU':>11} {'>50 ms':>6} {'max GUI CPU/gap':>15}")
    for i, (worst, gaps, take, worst_cpu, max_cpu) in enumerate(per_take, 1):
        gs = sorted(gaps)
        print(f"{i:>4} {take.duration:>8.1f} {take.chunk_count:>6} {take.first_audio_seconds or 0:>11.2f} "
              f"{take.rtf or 0:>5.2f} {len(gs):>6} {statistics.median(gs):>7.2f} "
              f"{gs[int(0.99 * (len(gs) - 1))]:>7.2f} {worst:>9.1f} {worst_cpu:>11.1f} "
              f"{sum(g > 50 for g in gs):>6} {max_cpu:>15.1f}")
    print(f"all takes: {len(all_gaps)} ticks, p50 {statistics.median(all_gaps):.2f} ms, "
          f"p99 {all_gaps[int(0.99 * (len(all_gaps) - 1))]:.2f} ms, longest stall {all_gaps[-1]:.1f} ms "
          f"({'below' if all_gaps[-1] < 50 else 'ABOVE'} the 50 ms goal)")
    watching.clear()
    watcher.join()
    if stalled_in:
        print("where the GUI thread was during stalls (sampled every 20 ms):")
        for where, n in stalled_in.most_common(5):
            print(f"  {n * 20:>6} ms  {where}")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
