"""Convolution building blocks of the HiFT vocoder: causal convolutions, Snake, the residual blocks.

Shapes: the legend of :mod:`cosycore.vocoder.hift`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import weight_norm


class _MetaWeightNorm(nn.Module):
    """torch's weight-norm parametrization over dim 0 (``parametrizations.weight_norm``: the same forward),
    for a weight on the meta device: it has no numbers to take the norm of (the checkpoint's ``g`` and
    ``v`` are assigned next), and torch's meta ``norm`` would import torch._dynamo and sympy (seconds)."""

    def forward(self, weight_g: torch.Tensor, weight_v: torch.Tensor) -> torch.Tensor:
        return torch._weight_norm(weight_v, weight_g, 0)

    def right_inverse(self, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return weight.new_empty((weight.shape[0],) + (1,) * (weight.dim() - 1)), weight


def with_weight_norm(module: nn.Module) -> nn.Module:
    """Weight norm over dim 0, in the ``parametrizations.weight.original0/1`` key form."""
    weight = module.weight
    if isinstance(weight, torch.Tensor) and weight.is_meta:  # built to be loaded (cosycore.vocoder.load)
        parametrize.register_parametrization(module, "weight", _MetaWeightNorm(), unsafe=True)
        return module
    return weight_norm(module, name="weight", dim=0)


def causal_padding(kernel_size: int, dilation: int = 1) -> int:
    """Frames a causal conv pads on one side (the original's formula; (k - 1) d for every layer used)."""
    return (kernel_size * dilation - dilation) // 2 * 2 + (kernel_size + 1) % 2


class CausalConv1d(nn.Conv1d):
    """Stride-1 Conv1d padded on one side only: ``left`` (causal) or ``right`` (look-ahead).

    ``context`` replaces the zero padding: the frames just before the input for ``left``, the
    look-ahead frames just after it for ``right``. Output length = input length.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, dilation: int = 1,
                 side: str = "left") -> None:
        super().__init__(in_channels, out_channels, kernel_size, dilation=dilation)
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', not {side!r}")
        self.side = side
        self.pad = causal_padding(kernel_size, dilation)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        if context is None:
            x = F.pad(x, (self.pad, 0) if self.side == "left" else (0, self.pad))
        else:
            if context.shape[2] != self.pad:
                raise ValueError(f"context has {context.shape[2]} frames; this conv needs {self.pad}")
            x = torch.cat([context, x] if self.side == "left" else [x, context], dim=2)
        return self._conv_forward(x, self.weight, self.bias)


class CausalConv1dUpsample(nn.Conv1d):
    """Nearest-neighbour upsampling by ``factor``, then a causal Conv1d (left padding k - 1)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, factor: int) -> None:
        super().__init__(in_channels, out_channels, kernel_size)
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.repeat_interleave(self.factor, dim=2)  # [B, C, T * u]
        x = F.pad(x, (self.kernel_size[0] - 1, 0))
        return self._conv_forward(x, self.weight, self.bias)


class CausalConv1dDownsample(nn.Conv1d):
    """Strided Conv1d with ``stride - 1`` frames of left padding (causal decimation)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.pad(x, (self.stride[0] - 1, 0))
        return self._conv_forward(x, self.weight, self.bias)


# Close port of CosyVoice (Apache-2.0) transformer/activation.py; see NOTICE.
class Snake(nn.Module):
    """``x + sin(alpha x)^2 / (alpha + 1e-9)``, alpha per channel on a linear scale."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        alpha = self.alpha[None, :, None]  # [1, C, 1]
        return x + (1.0 / (alpha + 1e-9)) * torch.sin(x * alpha).pow(2)


def _conv(channels: int, kernel_size: int, dilation: int, causal: bool) -> nn.Conv1d:
    if causal:
        return CausalConv1d(channels, channels, kernel_size, dilation, side="left")
    pad = (kernel_size * dilation - dilation) // 2  # 'same' length
    return nn.Conv1d(channels, channels, kernel_size, dilation=dilation, padding=pad)


class ResBlock(nn.Module):
    """Snake -> dilated conv -> Snake -> conv, with a residual connection, once per dilation."""

    def __init__(self, channels: int, kernel_size: int, dilations: Sequence[int], causal: bool) -> None:
        super().__init__()
        self.convs1 = nn.ModuleList(with_weight_norm(_conv(channels, kernel_size, d, causal)) for d in dilations)
        self.convs2 = nn.ModuleList(with_weight_norm(_conv(channels, kernel_size, 1, causal)) for _ in dilations)
        self.activations1 = nn.ModuleList(Snake(channels) for _ in dilations)
        self.activations2 = nn.ModuleList(Snake(channels) for _ in dilations)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv1, conv2, act1, act2 in zip(self.convs1, self.convs2, self.activations1, self.activations2):
            x = conv2(act2(conv1(act1(x)))) + x
        return x


def resblock_left_extent(kernel_size: int, dilations: Sequence[int]) -> int:
    """Positions of left context a causal ResBlock reads."""
    return sum(causal_padding(kernel_size, d) + causal_padding(kernel_size, 1) for d in dilations)

