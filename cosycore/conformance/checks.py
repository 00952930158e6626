"""Numeric comparison records shared by the conformance checks of every component.

A check compares one array we computed with one reference array and returns a
:class:`CheckResult`; nothing here raises on a failed comparison, because a failed comparison is a
report, not an error. Integer and boolean arrays are compared exactly. For floating arrays the
non-finite entries (``-inf`` from masking, ``+inf``, ``nan``) must sit at the same positions with
the same values, and the finite entries must satisfy ``|got - ref| <= atol + rtol * |ref|``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckResult:
    """Outcome of comparing one computed array with its reference."""

    name: str  # array name, as in the reference .npz
    max_abs_err: float  # over the finite entries (0 when there are none)
    max_rel_err: float  # max |got - ref| / |ref| over finite entries with ref != 0
    atol: float  # tolerance used (0 for exact comparisons)
    rtol: float
    passed: bool
    note: str = ""  # why it failed, or what was compared


def _as_array(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a torch tensor, without importing torch here
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def _is_exact_kind(a: np.ndarray) -> bool:
    return a.dtype.kind in "biu"


def _compare_exact(name: str, got: np.ndarray, ref: np.ndarray) -> CheckResult:
    diff = got.astype(np.int64) != ref.astype(np.int64)
    n_bad = int(diff.sum())
    max_abs = float(np.abs(got.astype(np.int64) - ref.astype(np.int64)).max()) if got.size else 0.0
    note = "exact"
    if n_bad:
        first = np.unravel_index(int(np.argmax(diff)), diff.shape)
        note = f"{n_bad} of {diff.size} entries differ; first at index {tuple(int(i) for i in first)}"
    return CheckResult(name, max_abs, max_abs, 0.0, 0.0, n_bad == 0, note)


def _compare_float(name: str, got: np.ndarray, ref: np.ndarray, atol: float, rtol: float) -> CheckResult:
    got = got.astype(np.float64)
    ref = ref.astype(np.float64)
    fin_g, fin_r = np.isfinite(got), np.isfinite(ref)
    same_nonfinite = np.array_equal(fin_g, fin_r) and np.array_equal(
        got[~fin_g], ref[~fin_r], equal_nan=True
    )
    both = fin_g & fin_r
    err = np.abs(got[both] - ref[both])
    mag = np.abs(ref[both])
    max_abs = float(err.max()) if err.size else 0.0
    nz = mag > 0
    max_rel = float((err[nz] / mag[nz]).max()) if nz.any() else 0.0
    within = bool(np.all(err <= atol + rtol * mag))
    notes = []
    if not same_nonfinite:
        n_got, n_ref = int((~fin_g).sum()), int((~fin_r).sum())
        notes.append(f"non-finite entries differ ({n_got} in ours, {n_ref} in the reference)")
    if not within:
        notes.append(f"{int((err > atol + rtol * mag).sum())} of {err.size} finite entries out of tolerance")
    if int((~fin_r).sum()):
        notes.append(f"{int((~fin_r).sum())} non-finite reference entries compared by position")
    return CheckResult(name, max_abs, max_rel, atol, rtol, same_nonfinite and within, "; ".join(notes))


def compare(name: str, got: Any, ref: Any, atol: float = 1e-4, rtol: float = 1e-4) -> CheckResult:
    """Compare ``got`` with ``ref``: exactly for integer/bool arrays, within tolerance for floats."""
    g, r = _as_array(got), _as_array(ref)
    if g.shape != r.shape:
        return CheckResult(name, float("inf"), float("inf"), atol, rtol, False,
                           f"shape {g.shape} differs from the reference {r.shape}")
    if _is_exact_kind(g) and _is_exact_kind(r):
        return _compare_exact(name, g, r)
    return _compare_float(name, g, r, atol, rtol)


def format_results(results: list[CheckResult]) -> str:
    """One line per result, for logs and assertion messages."""
    lines = []
    for r in results:
        status = "ok  " if r.passed else "FAIL"
        lines.append(
            f"{status} {r.name:<24} max_abs={r.max_abs_err:.3g} max_rel={r.max_rel_err:.3g} "
            f"(atol={r.atol:g}, rtol={r.rtol:g}) {r.note}".rstrip()
        )
    return "\n".join(lines)
