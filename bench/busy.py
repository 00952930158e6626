"""A competing program for the busy-machine scenarios: a plain Python spin loop on one core.

    with Spinner(1):
        ...  # measure while one core is kept busy

Started and stopped by the benchmark itself, so a figure taken "busy" always had the same load.
The spinners are separate processes (not threads), as a browser or an indexer would be.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

# Spins, and every few milliseconds checks that the benchmark that started it is still there, so a
# killed benchmark never leaves a spinner behind on a shared machine.
SPIN_CODE = """
import os, sys
parent = int(sys.argv[1])
while os.getppid() == parent:
    for _ in range(100_000):
        pass
"""


class Spinner:
    """``count`` processes that each keep one core busy while the context is open."""

    def __init__(self, count: int = 1) -> None:
        if count < 0:
            raise ValueError(f"count must be 0 or more, got {count}")
        self.count = count
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Spinner:
        me = str(os.getpid())
        self.procs = [subprocess.Popen([sys.executable, "-c", SPIN_CODE, me]) for _ in range(self.count)]
        time.sleep(0.2 if self.count else 0.0)  # let them reach their loop before the measurement
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait(timeout=10)
        self.procs = []
