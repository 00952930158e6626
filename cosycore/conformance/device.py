"""Where the conformance checks run: the device rule of the model sections and its float32 settings.

The model sections (llm, flow, stream, hift) load their networks on the device the runner is given
and bring every output back to the CPU for :func:`~cosycore.conformance.checks.compare`. None of
them draws from a torch generator on that device: the flow's initial noise and the CosyVoice3
vocoder's fixed noise are drawn on the CPU by the runtime itself (``cosycore.flow.cfm.FixedNoise``,
``cosycore.vocoder.nsf.CausalNoiseBank``) and moved; the CosyVoice2 vocoder checks feed the
original's recorded draws; the LM checks decode greedily. So a GPU sees the same inputs as the CPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

CPU = torch.device("cpu")


def describe(device: torch.device) -> str:
    """``cpu``, or ``cuda:0, NVIDIA H200`` (index and card name) for a CUDA device."""
    if device.type != "cuda":
        return str(device)
    index = device.index if device.index is not None else torch.cuda.current_device()
    return f"cuda:{index}, {torch.cuda.get_device_name(index)}"


def tensor(a: np.ndarray, device: torch.device = CPU) -> torch.Tensor:
    """A reference array as a tensor on ``device`` (same dtype)."""
    return torch.from_numpy(np.ascontiguousarray(a)).to(device)


def module_device(module: torch.nn.Module) -> torch.device:
    """Where a layer's weights are (pass the layer the model itself reads its device from)."""
    return next(module.parameters()).device


@contextmanager
def strict_float32(device: torch.device) -> Iterator[None]:
    """On CUDA, run float32 as IEEE float32 (no TF32 in matmuls or cuDNN convolutions); restore after.

    The reference numbers are float32 and the tolerances assume it; TF32 keeps 10 mantissa bits,
    about 1e-3 relative, far outside the 1e-4 tolerances. On other devices this changes nothing.
    """
    if device.type != "cuda":
        yield
        return
    saved = (torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32,
             torch.backends.cudnn.allow_tf32)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        # the precision first: setting it also sets matmul.allow_tf32, which is restored after it
        torch.set_float32_matmul_precision(saved[0])
        torch.backends.cuda.matmul.allow_tf32 = saved[1]
        torch.backends.cudnn.allow_tf32 = saved[2]
