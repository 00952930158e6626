"""Which torch device to run on: one rule for the engine, the loaders and the benchmarks."""

from __future__ import annotations

import torch

from .errors import ModelLoadError


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """``"auto"`` picks CUDA when present; an unavailable device is an error, never a downgrade."""
    if str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError(f"device {str(device)!r} was requested but this machine has no usable CUDA GPU")
    if dev.type == "mps" and not torch.backends.mps.is_available():
        raise ModelLoadError(f"device {str(device)!r} was requested but MPS is not available here")
    return dev
