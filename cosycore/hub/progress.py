"""Download progress: the value the callbacks receive, its formatting, and the throttled reporter."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .common import MIN_PROGRESS_INTERVAL, PROGRESS_INTERVAL, SPEED_WINDOW

Phase = Literal["planning", "downloading", "verifying", "installing", "done"]
ProgressCallback = Callable[["DownloadProgress"], None]


def format_bytes(n: float) -> str:
    """``1536`` -> ``"1.5 KB"`` (decimal units, as disks and hubs count)."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if abs(value) < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"  # pragma: no cover - the loop always returns


def format_duration(seconds: float | None) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``; ``None`` -> ``"--:--"``."""
    if seconds is None or seconds != seconds or seconds < 0:
        return "--:--"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


@dataclass(frozen=True)
class DownloadProgress:
    """Where a download (or a verification) stands; handed to the progress callback.

    Byte counts include what was already on disk when a download resumed; the speed and the time
    left count only bytes moved in this session.
    """

    model_id: str  # catalogue id, or the folder name when verifying a folder of one's own
    phase: Phase  # planning, downloading, verifying, installing or done
    file: str = ""  # path (in the installed folder) of the file being worked on
    file_index: int = 0  # 0-based position of that file
    file_count: int = 0  # files in the plan
    file_done: int = 0  # bytes of the current file on disk so far
    file_total: int | None = None  # size of the current file, when the hub published it
    done_bytes: int = 0  # bytes of the whole plan on disk so far
    total_bytes: int = 0  # bytes of the whole plan
    speed_bps: float = 0.0  # bytes per second over the last few seconds; 0 before anything moved
    eta_seconds: float | None = None  # time left at that speed; None while unknown

    @property
    def fraction(self) -> float:
        return min(1.0, self.done_bytes / self.total_bytes) if self.total_bytes > 0 else 0.0

    @property
    def file_fraction(self) -> float:
        return min(1.0, self.file_done / self.file_total) if self.file_total else 0.0

    def describe(self) -> str:
        """One line for a status bar: ``llm.pt (3/9) · 1.2 of 3.1 GB · 11.5 MB/s · 2:45 left``."""
        if self.phase == "planning":
            return "Asking the hub for the file list…"
        if self.phase == "installing":
            return "Installing…"
        if self.phase == "done":
            return f"Done: {format_bytes(self.total_bytes)}"
        verb = "Checking" if self.phase == "verifying" else "Downloading"
        parts = [f"{verb} {self.file} ({self.file_index + 1}/{self.file_count})" if self.file else verb,
                 f"{format_bytes(self.done_bytes)} of {format_bytes(self.total_bytes)}"]
        if self.speed_bps > 0:
            parts.append(f"{format_bytes(self.speed_bps)}/s")
        if self.eta_seconds is not None:
            parts.append(f"{format_duration(self.eta_seconds)} left")
        return " · ".join(parts)


class Reporter:
    """Turns byte counts into throttled :class:`DownloadProgress` callbacks with speed and ETA."""

    def __init__(self, model_id: str, callback: ProgressCallback | None, total: int, count: int,
                 phase: Phase = "downloading") -> None:
        self.model_id = model_id
        self.callback = callback
        self.total = total
        self.count = count
        self.phase: Phase = phase
        self.done = 0
        self.file = ""
        self.index = 0
        self.file_done = 0
        self.file_total: int | None = None
        self.moved = 0  # bytes transferred in this session (not resumed ones)
        self.samples: deque[tuple[float, int]] = deque()
        self.last_emit = 0.0
        self.emitted_done = 0  # done bytes at the last callback

    def speed(self) -> float:
        if len(self.samples) < 2:
            return 0.0
        (t0, b0), (t1, b1) = self.samples[0], self.samples[-1]
        return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0

    def snapshot(self) -> DownloadProgress:
        speed = self.speed()
        remaining = max(0, self.total - self.done)
        eta = remaining / speed if speed > 0 else (0.0 if remaining == 0 else None)
        return DownloadProgress(self.model_id, self.phase, self.file, self.index, self.count, self.file_done,
                                self.file_total, self.done, self.total, speed, eta)

    def emit(self, force: bool = False) -> None:
        # At most every PROGRESS_INTERVAL, and sooner once another 1/1000 of the total arrived, so
        # that what is shown when the transfer stalls is never more than a step behind.
        if self.callback is None:
            return
        now = time.monotonic()
        since = now - self.last_emit
        step = max(self.total // 1000, 1 << 18)
        if not force and since < PROGRESS_INTERVAL and (since < MIN_PROGRESS_INTERVAL or
                                                         self.done - self.emitted_done < step):
            return
        self.last_emit = now
        self.emitted_done = self.done
        self.callback(self.snapshot())

    def start_file(self, index: int, path: str, total: int | None) -> None:
        self.index, self.file, self.file_total, self.file_done = index, path, total, 0
        self.emit(force=True)

    def resumed(self, nbytes: int) -> None:
        """Bytes found on disk (not transferred now): they count as done but not towards the speed."""
        self.done += nbytes
        self.file_done += nbytes

    def set_file_done(self, nbytes: int) -> None:
        """The current file has ``nbytes`` on disk (after resuming, or 0 when it starts over)."""
        self.done += nbytes - self.file_done
        self.file_done = nbytes

    def moved_bytes(self, nbytes: int) -> None:
        self.done += nbytes
        self.file_done += nbytes
        self.moved += nbytes
        now = time.monotonic()
        self.samples.append((now, self.moved))
        while len(self.samples) > 2 and now - self.samples[0][0] > SPEED_WINDOW:
            self.samples.popleft()
        self.emit()

    def set_phase(self, phase: Phase) -> None:
        self.phase = phase
        self.file = ""
        self.emit(force=True)
