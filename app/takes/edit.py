"""Edits of a take's audio: trim, fade in and out, loudness normalisation. Pure numpy, no Qt.

An edit is always applied to the take's original audio (:class:`TakeEdit` is a description, not a
change), so editing again or resetting never loses anything: the store keeps the original's file
(:meth:`app.takes.store.TakeStore.apply_edit`).

Loudness is measured as integrated loudness (ITU-R BS.1770-4, K-weighted, gated) by pyloudnorm; the
gain to the target is limited so that the sample peak stays at or under :data:`PEAK_CEILING_DB`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cosycore.studio.take import SentenceSpan

TARGET_LUFS = -16.0  # spoken word for podcasts and streaming (Apple, Spotify, ElevenLabs' default)
PEAK_CEILING_DB = -1.0  # the normalised audio's sample peak stays under this
MIN_LOUDNESS_SECONDS = 0.4  # one BS.1770 gating block: shorter audio has no integrated loudness
MAX_FADE_SECONDS = 30.0


class EditError(ValueError):
    """An edit that cannot be applied; the message says what to change."""


@dataclass(frozen=True)
class TakeEdit:
    """Trim (seconds kept, from ``start`` to ``end``; ``end`` None: to the end), fades in seconds, and
    loudness normalisation to ``TARGET_LUFS`` when ``normalise``."""

    start: float = 0.0
    end: float | None = None
    fade_in: float = 0.0
    fade_out: float = 0.0
    normalise: bool = False

    @property
    def is_identity(self) -> bool:
        return self == TakeEdit()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: object) -> TakeEdit:
        if not isinstance(raw, dict):
            raise ValueError("an edit is a JSON object")
        end = raw.get("end")
        return cls(start=float(raw.get("start", 0.0)), end=None if end is None else float(end),
                   fade_in=float(raw.get("fade_in", 0.0)), fade_out=float(raw.get("fade_out", 0.0)),
                   normalise=bool(raw.get("normalise", False)))


def loudness(audio: np.ndarray, sample_rate: int) -> float:
    """Integrated loudness in LUFS; ``-inf`` for silence. Raises EditError for audio under 0.4 s."""
    import pyloudnorm

    x = np.asarray(audio, dtype=np.float64).reshape(-1)
    if x.shape[0] < MIN_LOUDNESS_SECONDS * sample_rate:
        raise EditError(f"the audio is shorter than {MIN_LOUDNESS_SECONDS:g} s; its loudness cannot be measured.")
    return float(pyloudnorm.Meter(sample_rate).integrated_loudness(x))


def normalise(audio: np.ndarray, sample_rate: int, target: float = TARGET_LUFS) -> np.ndarray:
    """``audio`` with its integrated loudness at ``target`` LUFS, its peak at most :data:`PEAK_CEILING_DB`
    (then quieter than the target). Silence stays silence."""
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    measured = loudness(x, sample_rate)
    if not np.isfinite(measured):
        return x.copy()
    gain = 10.0 ** ((target - measured) / 20.0)
    peak = float(np.max(np.abs(x))) if x.size else 0.0
    ceiling = 10.0 ** (PEAK_CEILING_DB / 20.0)
    if peak > 0 and peak * gain > ceiling:
        gain = ceiling / peak
    return (x * gain).astype(np.float32)


def apply(edit: TakeEdit, audio: np.ndarray, sample_rate: int, seams: list[int],
          spans: list[SentenceSpan]) -> tuple[np.ndarray, list[int], list[SentenceSpan]]:
    """The edited audio, with its chunk seams (samples) and sentence spans moved to match the trim."""
    x = np.asarray(audio, dtype=np.float32).reshape(-1)
    total = x.shape[0] / sample_rate
    end = total if edit.end is None else min(edit.end, total)
    if edit.start < 0 or edit.start >= end:
        raise EditError(f"the trim keeps nothing: start {edit.start:.2f} s is not before end {end:.2f} s.")
    if not (0 <= edit.fade_in <= MAX_FADE_SECONDS and 0 <= edit.fade_out <= MAX_FADE_SECONDS):
        raise EditError(f"fades are 0 to {MAX_FADE_SECONDS:g} s long.")
    a, b = round(edit.start * sample_rate), round(end * sample_rate)
    y = x[a:b].copy()
    n = y.shape[0]
    fade_in = min(n, round(edit.fade_in * sample_rate))
    fade_out = min(n, round(edit.fade_out * sample_rate))
    if fade_in:
        y[:fade_in] *= np.linspace(0.0, 1.0, fade_in, endpoint=False, dtype=np.float32)
    if fade_out:
        y[n - fade_out:] *= np.linspace(1.0, 0.0, fade_out, dtype=np.float32)
    if edit.normalise:
        y = normalise(y, sample_rate)
    new_seams = [s - a for s in seams if a < s < b]
    length = n / sample_rate
    new_spans = [SentenceSpan(s.index, s.text, max(0.0, s.start - edit.start), min(length, s.end - edit.start))
                 for s in spans if s.end > edit.start and s.start < end]
    return y, new_seams, new_spans
