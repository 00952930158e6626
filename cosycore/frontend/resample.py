"""The original's resampler: windowed-sinc interpolation with a Hann window, in torch.

The original CosyVoice frontend loads every prompt with ``torchaudio.transforms.Resample(orig, new)``
at its defaults (spec: llm-frontend-orchestration.md §5.2). torchaudio is not a dependency here, so
this module reproduces that transform's arithmetic with plain torch. It is a port of torchaudio's
``functional._get_sinc_resample_kernel`` / ``_apply_sinc_resample_kernel`` (torchaudio is
BSD-2-Clause, Copyright (c) 2017 Facebook Inc. (Soumith Chintala)), rewritten from a reading of
them; the details that decide float32 rounding are kept:

* the rates are divided by their gcd; ``base = min(orig, new) * rolloff``; the filter reaches
  ``width = ceil(lowpass_filter_width * orig / base)`` input samples either side;
* the kernel is computed in float64 and stored as float32, as ``transforms.Resample`` does when no
  dtype is given. One detail of that path: the output-phase offsets ``-j / new`` come from an
  integer ``arange`` divided in torch's default float32, and are rounded to float32 before they
  are added to the float64 input offsets. This module does the same;
* the input is zero-padded by ``width`` on the left and ``width + orig`` on the right and run
  through ``conv1d`` with stride ``orig`` (one output channel per output phase), the phases are
  interleaved, and the result is cut to ``ceil(new * samples / orig)`` samples, that quotient
  being rounded to float32 first as torchaudio's ``torch.as_tensor`` does.

Kernels are computed once per rate pair (:func:`sinc_kernel`, an LRU cache). Rate pairs whose
gcd is small (e.g. 22051 → 16000) would need a kernel of hundreds of millions of taps; those are
computed and applied a block of output phases at a time, so memory stays bounded
(:data:`MAX_KERNEL_ELEMENTS`), at the cost of recomputing the blocks on every call.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

LOWPASS_FILTER_WIDTH = 6
ROLLOFF = 0.99
# Largest kernel (output phases × taps, float32) computed in one piece and cached: 4 Mi taps, 16 MiB.
MAX_KERNEL_ELEMENTS = 1 << 22


def reduced_rates(orig: int, new: int) -> tuple[int, int]:
    """``(orig, new)`` divided by their greatest common divisor."""
    if int(orig) != orig or int(new) != new or orig <= 0 or new <= 0:
        raise ValueError(f"sample rates must be positive integers, got {orig} → {new}")
    g = math.gcd(int(orig), int(new))
    return int(orig) // g, int(new) // g


def kernel_width(orig: int, new: int, lowpass_filter_width: int = LOWPASS_FILTER_WIDTH,
                 rolloff: float = ROLLOFF) -> int:
    """Input samples the filter reaches on each side, for gcd-reduced rates."""
    return math.ceil(lowpass_filter_width * orig / (min(orig, new) * rolloff))


# Close port of torchaudio (BSD-2-Clause) functional/functional.py _get_sinc_resample_kernel; see NOTICE.
def _kernel_rows(orig: int, new: int, start: int, stop: int, lowpass_filter_width: int,
                 rolloff: float) -> torch.Tensor:
    """Kernel rows ``start:stop`` (output phases) for gcd-reduced rates: float32 [stop-start, 1, taps]."""
    base = min(orig, new) * rolloff
    width = kernel_width(orig, new, lowpass_filter_width, rolloff)
    idx = torch.arange(-width, width + orig, dtype=torch.float64)[None, None] / orig
    # -j / new in float32 (integer arange / int in torch's default dtype), then widened: as torchaudio.
    phase = (torch.arange(-start, -stop, -1)[:, None, None] / new).to(torch.float32).to(torch.float64)
    t = (phase + idx) * base
    t = t.clamp_(-lowpass_filter_width, lowpass_filter_width)
    window = torch.cos(t * math.pi / lowpass_filter_width / 2) ** 2
    t *= math.pi
    kernels = torch.where(t == 0, torch.tensor(1.0, dtype=torch.float64), t.sin() / t)
    kernels *= window * (base / orig)
    return kernels.to(torch.float32)


@functools.lru_cache(maxsize=16)
def sinc_kernel(orig: int, new: int, lowpass_filter_width: int = LOWPASS_FILTER_WIDTH,
                rolloff: float = ROLLOFF) -> tuple[torch.Tensor, int]:
    """The whole kernel for gcd-reduced rates, float32 [new, 1, 2·width + orig], and ``width``.

    Cached per rate pair; callers must not modify the tensor.
    """
    return _kernel_rows(orig, new, 0, new, lowpass_filter_width, rolloff), kernel_width(
        orig, new, lowpass_filter_width, rolloff)


def output_length(samples: int, orig: int, new: int) -> int:
    """``ceil(new * samples / orig)`` as torchaudio computes it (the quotient rounded to float32)."""
    return int(np.ceil(np.float32(new * samples / orig)))


def _phase_blocks(orig: int, new: int, taps: int) -> list[tuple[int, int]]:
    rows = max(1, MAX_KERNEL_ELEMENTS // taps)
    return [(s, min(new, s + rows)) for s in range(0, new, rows)]


# Close port of torchaudio (BSD-2-Clause) functional/functional.py _apply_sinc_resample_kernel, as
# transforms.Resample calls it; see NOTICE.
def resample_sinc(wav: np.ndarray | torch.Tensor, orig_sr: int, new_sr: int, *,
                  lowpass_filter_width: int = LOWPASS_FILTER_WIDTH, rolloff: float = ROLLOFF) -> torch.Tensor:
    """Resample ``wav`` (float32 [..., N]) from ``orig_sr`` to ``new_sr`` as torchaudio's default Resample.

    Returns a float32 tensor [..., ceil(new_sr · N / orig_sr)]; with equal rates the input itself
    (as a tensor). Raises ``ValueError`` for non-positive or non-integer rates and for input that
    is not floating point.
    """
    x = torch.as_tensor(wav)
    if not x.is_floating_point():
        raise ValueError(f"resample_sinc needs floating-point samples, got {x.dtype}")
    orig, new = reduced_rates(orig_sr, new_sr)
    if orig_sr == new_sr:
        return x
    if lowpass_filter_width <= 0:
        raise ValueError("lowpass_filter_width must be positive")
    shape = x.shape
    if x.numel() == 0:  # torchaudio cannot reshape an empty batch; nothing in, nothing out
        return x.new_zeros((*shape[:-1], output_length(shape[-1], orig, new)))
    x = x.reshape(-1, shape[-1])
    length = x.shape[-1]
    width = kernel_width(orig, new, lowpass_filter_width, rolloff)
    taps = 2 * width + orig
    padded = F.pad(x, (width, width + orig))[:, None]  # [B, 1, N + 2·width + orig]
    if new * taps <= MAX_KERNEL_ELEMENTS:
        kernel, _ = sinc_kernel(orig, new, lowpass_filter_width, rolloff)
        out = F.conv1d(padded, kernel.to(x.dtype), stride=orig)  # [B, new, frames]
    else:  # a kernel too big to hold: a block of output phases at a time
        out = torch.cat([
            F.conv1d(padded, _kernel_rows(orig, new, s, e, lowpass_filter_width, rolloff).to(x.dtype), stride=orig)
            for s, e in _phase_blocks(orig, new, taps)
        ], dim=1)
    out = out.transpose(1, 2).reshape(x.shape[0], -1)[..., : output_length(length, orig, new)]
    return out.reshape(shape[:-1] + out.shape[-1:])


def resample_original(wav: np.ndarray, orig_sr: int, new_sr: int) -> np.ndarray:
    """:func:`resample_sinc` on a mono float32 numpy waveform [N]; returns float32 [N']."""
    x = np.ascontiguousarray(wav, dtype=np.float32)
    if orig_sr == new_sr:
        return x
    with torch.inference_mode():
        return resample_sinc(torch.from_numpy(x), orig_sr, new_sr).numpy()
