"""Which torch device to run on: one rule for the engine, the loaders and the benchmarks."""

from __future__ import annotations

import torch

from .errors import InputError, ModelLoadError

DEVICE_TYPES = ("cpu", "cuda", "mps")


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """``"auto"`` picks CUDA when present; an unavailable device is an error, never a downgrade.

    A name that is not a device (``tpu:7``, ``cuda:x``, ``""``) or a device type the engine does
    not run on (``meta``, ``xla``) is an :class:`InputError`; a missing GPU is a :class:`ModelLoadError`.
    """
    if str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        dev = None
    if dev is None or dev.type not in DEVICE_TYPES:
        raise InputError(f"{str(device)!r} is not a device Cosy Studio can use; use auto, cpu, cuda, cuda:N or mps.")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError(f"device {str(device)!r} was requested but this machine has no usable CUDA GPU")
    count = torch.cuda.device_count() if dev.type == "cuda" else 0
    if dev.type == "cuda" and dev.index is not None and dev.index >= count:
        raise ModelLoadError(f"device {str(device)!r} was requested but this machine has {count} CUDA GPU(s) "
                             f"(cuda:0 to cuda:{count - 1})")
    if dev.type == "mps" and not torch.backends.mps.is_available():
        raise ModelLoadError(f"device {str(device)!r} was requested but MPS is not available here")
    return dev
