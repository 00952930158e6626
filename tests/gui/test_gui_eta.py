"""Time-left arithmetic of a take (app.worker.eta), without Qt: keys, the RTF average, the estimate, rounding."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.worker.eta import RTF_SMOOTHING, eta_seconds, minutes_seconds, rtf_key, smoothed_rtf, valid_rtf


def test_rtf_key_names_folder_device_and_quality() -> None:
    assert rtf_key(Path("/models/CosyVoice2-0.5B"), "cpu", "fast") == "/models/CosyVoice2-0.5B|cpu|fast"
    assert rtf_key("/models/CosyVoice2-0.5B/", "cpu", "fast") == rtf_key(Path("/models/CosyVoice2-0.5B"), "cpu",
                                                                           "fast")
    assert rtf_key("/m", "cpu", "exact") != rtf_key("/m", "cuda:0", "exact") != rtf_key("/m", "cuda:0", "draft")


def test_valid_rtf() -> None:
    assert valid_rtf(0.3) and valid_rtf(12.0)
    assert not any(valid_rtf(x) for x in (None, 0.0, -1.0, math.nan, math.inf))


def test_smoothed_rtf_is_an_exponential_average() -> None:
    assert RTF_SMOOTHING == 0.5
    assert smoothed_rtf(None, 3.0) == 3.0  # the first take is the estimate
    assert smoothed_rtf(math.nan, 3.0) == 3.0  # a broken history is ignored
    assert smoothed_rtf(2.0, 4.0) == pytest.approx(3.0)
    assert smoothed_rtf(2.0, 4.0, weight=0.25) == pytest.approx(2.5)
    # Three takes at 4.0, 2.0, 1.0: 4 -> 3 -> 2.
    rtf = None
    for measured in (4.0, 2.0, 1.0):
        rtf = smoothed_rtf(rtf, measured)
    assert rtf == pytest.approx(2.0)
    with pytest.raises(ValueError):
        smoothed_rtf(2.0, 0.0)


def test_eta_is_expected_audio_times_rtf_minus_elapsed() -> None:
    # 10 s of speech at RTF 2.5 takes 25 s; 4 s in, 21 s are left.
    assert eta_seconds(10.0, 2.5, 4.0) == pytest.approx(21.0)
    # Faster than real time: 6 s of speech at RTF 0.4 is done 2.4 s after the request.
    assert eta_seconds(6.0, 0.4, 0.0) == pytest.approx(2.4)
    assert eta_seconds(6.0, 0.4, 1.5) == pytest.approx(0.9)
    assert eta_seconds(6.0, 0.4, 30.0) == 0.0  # longer than estimated: never negative
    assert eta_seconds(6.0, 0.4, -1.0) == pytest.approx(2.4)  # a clock step backwards counts as no time
    assert eta_seconds(10.0, None, 4.0) is None  # first take: no measured RTF yet
    assert eta_seconds(0.0, 2.0, 0.0) is None  # nothing to say


def test_minutes_seconds_round_up() -> None:
    assert minutes_seconds(0.0) == (0, 0)
    assert minutes_seconds(0.2) == (0, 1)
    assert minutes_seconds(21.0) == (0, 21)
    assert minutes_seconds(59.01) == (1, 0)
    assert minutes_seconds(206.5) == (3, 27)
    assert minutes_seconds(-3.0) == (0, 0)
