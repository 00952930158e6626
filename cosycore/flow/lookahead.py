"""Pre-lookahead layer shared by both flow front ends.

Each token position sees itself and ``pre_lookahead_len`` future positions (conv1), then a causal
3-tap (conv2), with a residual. When streaming, the look-ahead positions are real tokens passed as
``context`` instead of zero padding.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .cache import StepCache


# Close port of CosyVoice (Apache-2.0) transformer/upsample_encoder.py; see NOTICE.
class PreLookaheadLayer(nn.Module):
    """x: [B, T, C_in] -> [B, T, C_in]; context: [B, L, C_in] with L <= pre_lookahead_len."""

    def __init__(self, in_channels: int, channels: int, pre_lookahead_len: int = 3) -> None:
        super().__init__()
        self.pre_lookahead_len = pre_lookahead_len
        self.conv1 = nn.Conv1d(in_channels, channels, kernel_size=pre_lookahead_len + 1)
        self.conv2 = nn.Conv1d(channels, in_channels, kernel_size=3)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None,
                state: StepCache | None = None) -> torch.Tensor:
        """With ``state`` (cached streaming), x holds only the new tokens; the causal conv2 takes
        its two frames of history from ``state``."""
        y = x.transpose(1, 2)  # [B, C, T]
        if context is not None and context.shape[1] > 0:
            y = torch.cat([y, context.transpose(1, 2)], dim=2)
            pad = self.pre_lookahead_len - context.shape[1]
        else:
            pad = self.pre_lookahead_len
        y = F.pad(y, (0, pad))  # [B, C, T + L]
        y = F.leaky_relu(self.conv1(y), negative_slope=0.01)  # [B, C', T]
        if state is None:
            y = self.conv2(F.pad(y, (2, 0)))  # causal 3-tap, [B, C_in, T]
        else:
            y = self.conv2(state.with_history(self.conv2, y, 2))  # [B, C_in, T]
        return y.transpose(1, 2) + x
