"""Checks of a voice clip, on the GUI thread as soon as it is chosen, in NumPy only (no torch, no librosa).

The thresholds are the engine's (cosycore.frontend.prompt and cosycore.frontend.features, which import torch); a test
checks that they stay equal. The messages say what is wrong and what to do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication

MIN_SAMPLE_RATE = 16000  # = cosycore.frontend.prompt.MIN_SAMPLE_RATE
CLIPPED_WARN_FRACTION = 1e-3  # = cosycore.frontend.prompt.CLIPPED_WARN_FRACTION
QUIET_WARN_DBFS = -40.0  # = cosycore.frontend.prompt.QUIET_WARN_DBFS
CLIP_LEVEL = 0.999  # = cosycore.frontend.features.CLIP_LEVEL
SILENCE_DBFS = -60.0  # = cosycore.frontend.features.SILENCE_DBFS
MIN_SECONDS = 3.0  # the recorder asks for more than the engine's 1 s: 3-10 s clones well
MAX_SECONDS = 30.0  # = cosycore.frontend.prompt.MAX_SECONDS, the speech tokenizer's limit


@dataclass(frozen=True)
class ClipStats:
    duration: float
    rms_dbfs: float
    clipped_fraction: float

    @property
    def silent(self) -> bool:
        return self.rms_dbfs < SILENCE_DBFS


def clip_stats(audio: np.ndarray, sample_rate: int) -> ClipStats:
    x = np.asarray(audio, dtype=np.float64).reshape(-1)
    if x.size == 0 or sample_rate <= 0:
        return ClipStats(0.0, -math.inf, 0.0)
    rms = math.sqrt(float(np.mean(x * x)))
    return ClipStats(x.size / sample_rate, 20.0 * math.log10(rms) if rms > 0 else -math.inf,
                     float(np.count_nonzero(np.abs(x) >= CLIP_LEVEL)) / x.size)


def rate_problem(sample_rate: int) -> str | None:
    """Why a clip at ``sample_rate`` cannot make a voice, or None."""
    if sample_rate >= MIN_SAMPLE_RATE:
        return None
    text = QCoreApplication.translate(
        "Recorder", "The clip is sampled at {0} Hz; a voice needs at least {1} kHz (telephone-quality audio "
        "cannot be used). Record it again, or export it at 16 kHz or higher.")
    return text.format(sample_rate, MIN_SAMPLE_RATE // 1000)


def check_clip(audio: np.ndarray, sample_rate: int) -> tuple[list[str], list[str]]:
    """(problems that block saving, warnings) for the selected part of a clip."""
    problems: list[str] = []
    warnings: list[str] = []
    rate = rate_problem(sample_rate)
    if rate:
        problems.append(rate)
    stats = clip_stats(audio, sample_rate)
    if stats.duration < MIN_SECONDS:
        text = QCoreApplication.translate(
            "Recorder", "The recording is {0:.1f} s long; a voice needs at least {1:g} s.")
        problems.append(text.format(stats.duration, MIN_SECONDS))
    if stats.duration > MAX_SECONDS + 1e-6:
        text = QCoreApplication.translate(
            "Recorder", "The recording is {0:.1f} s long; trim it to at most {1:g} s.")
        problems.append(text.format(stats.duration, MAX_SECONDS))
    if stats.silent:
        problems.append(QCoreApplication.translate(
            "Recorder", "The recording is silent. Check the microphone and its volume."))
    elif stats.rms_dbfs < QUIET_WARN_DBFS:
        text = QCoreApplication.translate(
            "Recorder", "The level is low ({0:.0f} dBFS); move closer to the microphone.")
        warnings.append(text.format(stats.rms_dbfs))
    if stats.clipped_fraction >= CLIPPED_WARN_FRACTION:
        text = QCoreApplication.translate(
            "Recorder", "The recording is clipped ({0:.1%} of samples at full scale); record a little quieter.")
        warnings.append(text.format(stats.clipped_fraction))
    return problems, warnings
