"""Soak: 100 takes through the app's engine thread and player, some cancelled midway, some replaced
by a new Speak at once; resident memory, threads, file descriptors and audio streams every 10 takes.

    .venv/bin/python -m bench.bench_soak --takes 100

Takes are removed from the session list as they finish (as a user clearing the list would), so
memory should stay flat; a leak shows as growth per 10 takes. Nothing is asserted: figures are printed.
"""

from __future__ import annotations

import argparse
import gc
import os
import threading
import time
from pathlib import Path

from bench.app_bench_common import build_window, wait_until

TEXTS = ("Hello there.", "How are you today?", "This is a short test.", "One more, please.")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, help="release folder (default: a fresh tiny CosyVoice2)")
    parser.add_argument("--takes", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1, help="torch threads on the engine thread")
    args = parser.parse_args()
    app, window, _ = build_window(args.model, args.threads)
    from app.audio.playback import PlayState
    from app.takes.take import TakeState

    done = {"finished": 0, "cancelled": 0, "replaced": 0, "failed": 0}
    window.session.engine.synthesis_failed.connect(lambda rid, msg: print("failed:", msg))

    def settle() -> None:
        session = window.session
        wait_until(app, lambda: not session.engine.busy and session.player.state is PlayState.STOPPED, 600)
        for take in list(window.session.takes):
            done[{TakeState.DONE: "finished", TakeState.CANCELLED: "cancelled",
                  TakeState.FAILED: "failed"}.get(take.state, "finished")] += 1
            window.session.takes.remove(take)
        gc.collect()

    settle()
    base = (rss_mib(), threading.active_count(), native_threads(), open_fds())
    print(f"start: RSS {base[0]:.1f} MiB, Python threads {base[1]}, native threads {base[2]}, open fds {base[3]}")
    print(f"{'takes':>5} {'RSS MiB':>8} {'ΔRSS':>7} {'py thr':>6} {'native thr':>10} {'fds':>5} "
          f"{'done':>5} {'cancelled':>9} {'replaced':>8} {'underruns':>9} {'s':>6}")
    t0 = time.perf_counter()
    for n in range(1, args.takes + 1):
        window.editor.set_text(TEXTS[n % len(TEXTS)])
        if n % 3 == 0:  # cancel midway: Stop after the first chunk
            window.speaking_ctl.speak()
            take = window.session.takes[-1]
            wait_until(app, lambda t=take: t.chunk_count >= 1 or t.state is not TakeState.STREAMING, 300)
            window.speaking_ctl.stop()
        elif n % 7 == 0:  # Speak again at once: the first request is replaced before it makes audio
            window.speaking_ctl.speak()
            window.speaking_ctl.speak()
            done["replaced"] += 1
        else:
            window.speaking_ctl.speak()
        settle()
        if n % 10 == 0:
            rss = rss_mib()
            print(f"{n:>5} {rss:>8.1f} {rss - base[0]:>+7.1f} {threading.active_count():>6} {native_threads():>10} "
                  f"{open_fds():>5} {done['finished']:>5} {done['cancelled']:>9} {done['replaced']:>8} "
                  f"{window.session.player.underruns:>9} {time.perf_counter() - t0:>6.0f}")
    window.close()
    app.processEvents()
    print(f"after close: engine thread finished={window.session.engine.isFinished()}, Python threads "
          f"{threading.active_count()} ({', '.join(t.name for t in threading.enumerate())}), native threads "
          f"{native_threads()}, open fds {open_fds()}, failed takes {done['failed']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
