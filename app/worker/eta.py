"""Time-left estimates for a take, from the real-time factor measured on earlier takes.

Pure arithmetic, no Qt: the main window keeps one measured real-time factor (seconds of work per
second of audio) per model folder, device and quality in :class:`~app.config.settings.Settings`, and while
a take is being made shows ``expected audio seconds × RTF − elapsed`` in the live HUD.
"""

from __future__ import annotations

import math
from pathlib import Path

RTF_SMOOTHING = 0.5  # weight of the newest take in the running real-time-factor average


def rtf_key(model_dir: str | Path, device: str, quality: str) -> str:
    """The settings key of one measured RTF: a model folder on one device in one quality mode."""
    return f"{Path(model_dir)}|{device}|{quality}"


def valid_rtf(rtf: float | None) -> bool:
    """A real-time factor that can be used for estimates: finite and above zero."""
    return rtf is not None and math.isfinite(rtf) and rtf > 0


def smoothed_rtf(previous: float | None, newest: float, weight: float = RTF_SMOOTHING) -> float:
    """Exponential average of the real-time factor: the newest take counts ``weight``, the history the rest.

    Recent takes matter most (the machine's load and the text lengths change), yet one odd take
    does not throw the estimate off completely.
    """
    if not valid_rtf(newest):
        raise ValueError(f"a real-time factor must be finite and positive, got {newest!r}")
    if not valid_rtf(previous):
        return newest
    assert previous is not None
    return (1.0 - weight) * previous + weight * newest


def eta_seconds(expected_audio: float, rtf: float | None, elapsed: float) -> float | None:
    """Seconds left in a take: ``expected_audio × rtf − elapsed``, never below zero.

    None when no real-time factor has been measured yet (the first take on a model, device and
    quality) or when nothing is expected, so the caller can say there is no estimate.
    """
    if not valid_rtf(rtf) or expected_audio <= 0:
        return None
    assert rtf is not None
    return max(0.0, expected_audio * rtf - max(0.0, elapsed))


def minutes_seconds(seconds: float) -> tuple[int, int]:
    """Whole minutes and seconds of a time left, rounded up, so "0 s" only appears when it is over."""
    total = math.ceil(max(0.0, seconds))
    return total // 60, total % 60
