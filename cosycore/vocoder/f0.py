"""The f0 predictor of HiFT: mel frames in, fundamental frequency per frame (Hz) out.

Shapes: the legend of :mod:`cosycore.vocoder.hift`.
"""

from __future__ import annotations

import torch
from torch import nn

from ..config import F0PredictorConfig
from .layers import CausalConv1d, with_weight_norm

F0_LAYERS = 5  # convolutions in the f0 predictor's condnet


# Close port of CosyVoice (Apache-2.0) hifigan/f0_predictor.py; see NOTICE.
class F0Predictor(nn.Module):
    """``ConvRNNF0Predictor`` (v2) / ``CausalConvRNNF0Predictor`` (v3): five convs with ELU, a linear
    head and ``abs``. The causal one looks 3 frames ahead (first conv) and 8 frames back."""

    def __init__(self, cfg: F0PredictorConfig) -> None:
        super().__init__()
        self.causal = cfg.causal
        layers: list[nn.Module] = []
        for i in range(F0_LAYERS):
            cin = cfg.in_channels if i == 0 else cfg.cond_channels
            conv: nn.Conv1d
            if not cfg.causal:
                conv = nn.Conv1d(cin, cfg.cond_channels, 3, padding=1)
            elif i == 0:
                conv = CausalConv1d(cin, cfg.cond_channels, 4, side="right")
            else:
                conv = CausalConv1d(cin, cfg.cond_channels, 3, side="left")
            layers += [with_weight_norm(conv), nn.ELU()]
        self.condnet = nn.Sequential(*layers)
        self.classifier = nn.Linear(cfg.cond_channels, cfg.num_class)

    @property
    def lookahead(self) -> int:
        """Frames of right context (0 for the non-causal predictor, whose convs are centred)."""
        first = self.condnet[0]
        return first.pad if isinstance(first, CausalConv1d) else 0

    @property
    def left_context(self) -> int:
        """Frames of left context the causal predictor reads."""
        return sum(m.pad for m in list(self.condnet)[2:] if isinstance(m, CausalConv1d))

    def forward(self, mel: torch.Tensor, finalize: bool = True) -> torch.Tensor:
        """mel [B, M, T] -> f0 [B, T'] in Hz; T' = T, or T - lookahead when not ``finalize``."""
        x = mel
        la = self.lookahead
        for i, layer in enumerate(self.condnet):
            look_ahead = i == 0 and la > 0 and not finalize  # the last la frames are context only
            x = layer(x[:, :, :-la], x[:, :, -la:]) if look_ahead else layer(x)
        x = x.transpose(1, 2)  # [B, T', C]
        return torch.abs(self.classifier(x).squeeze(-1))  # [B, T']

