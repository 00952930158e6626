"""CosyVoice2 CFM estimator ``CausalConditionalDecoder``: a one-level causal 1-D U-Net with transformers.

Shapes: B = CFG batch (2: conditional row 0, unconditional row 1), C = mel bins (80),
T = frames, F = U-Net width (``channels[0]``), E = time embedding width (4 * F),
I = input channels (x, mu, spks, cond stacked = 4 * C), H = heads, d = head width.

Module names match ``decoder.estimator.*`` in the release ``flow.pt``:
``time_mlp``, ``down_blocks.0.{0: resnet, 1: transformers, 2: conv}``, ``mid_blocks.{i}.{0,1}``,
``up_blocks.0.{0,1,2}``, ``final_block``, ``final_proj``.

With a single level (``channels`` of length 1) the down and up "resamplers" are stride-1 causal
convolutions, so the time axis never changes. Every convolution is causal and attention uses
static chunk masks when streaming, which makes the estimator causal at chunk granularity.
"""

from __future__ import annotations

import logging
import math
from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

from ..cancel import cancel_point
from ..config import UNetConfig
from ..errors import ConfigError
from .cache import StepCache
from .masks import chunk_mask, chunk_mask_rows

logger = logging.getLogger(__name__)

MASK_BIAS = -1.0e10  # additive attention bias of blocked positions (not -inf)
FF_MULT = 4  # transformer feed-forward width multiplier
TIME_EMBED_SCALE = 1000.0


def sinusoidal_time_embedding(t: torch.Tensor, dim: int, scale: float = TIME_EMBED_SCALE) -> torch.Tensor:
    """t: [B] -> [B, dim]; sines of ``scale * t * exp(-k ln(10000) / (dim/2 - 1))`` then cosines."""
    half = dim // 2
    step = math.log(10000) / (half - 1)
    freqs = torch.exp(torch.arange(half, device=t.device).float() * -step)  # [dim/2]
    args = scale * t.unsqueeze(1) * freqs.unsqueeze(0)  # [B, dim/2]
    return torch.cat((args.sin(), args.cos()), dim=-1).to(t.dtype)  # [B, dim]


class TimestepEmbedding(nn.Module):
    """``linear_2(SiLU(linear_1(emb)))``."""

    def __init__(self, in_channels: int, time_embed_dim: int) -> None:
        super().__init__()
        self.linear_1 = nn.Linear(in_channels, time_embed_dim)
        self.linear_2 = nn.Linear(time_embed_dim, time_embed_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear_2(F.silu(self.linear_1(x)))


class CausalConv1d(nn.Conv1d):
    """Conv1d (stride 1) that left-pads ``kernel_size - 1`` zeros, so output t sees inputs <= t."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int) -> None:
        super().__init__(in_channels, out_channels, kernel_size)
        self.causal_padding = kernel_size - 1

    def forward(self, x: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """x: [B, C_in, T] -> [B, C_out, T]; ``state`` supplies the left context of a cached call."""
        if state is not None:
            return super().forward(state.with_history(self, x, self.causal_padding))
        return super().forward(F.pad(x, (self.causal_padding, 0)))


class Transpose(nn.Module):
    """Swaps two dims (parameter-free; keeps the ``block.{0..4}`` indices of the release)."""

    def __init__(self, dim0: int, dim1: int) -> None:
        super().__init__()
        self.dim0, self.dim1 = dim0, dim1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.transpose(self.dim0, self.dim1)


class CausalBlock1D(nn.Module):
    """``Mish(LayerNorm_over_channels(CausalConv1d(x * mask))) * mask``."""

    def __init__(self, dim: int, dim_out: int) -> None:
        super().__init__()
        self.block = nn.Sequential(
            CausalConv1d(dim, dim_out, 3),
            Transpose(1, 2),
            nn.LayerNorm(dim_out),
            Transpose(1, 2),
            nn.Mish(),
        )

    def forward(self, x: torch.Tensor, mask: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """x: [B, dim, T]; mask: [B, 1, T] -> [B, dim_out, T]."""
        if state is None:
            return self.block(x * mask) * mask
        h = cast(CausalConv1d, self.block[0])(x * mask, state)
        for layer in list(self.block)[1:]:
            h = layer(h)
        return h * mask


class CausalResnetBlock1D(nn.Module):
    """Two causal blocks with the time embedding added in between, plus a 1x1 residual conv."""

    def __init__(self, dim: int, dim_out: int, time_emb_dim: int) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Mish(), nn.Linear(time_emb_dim, dim_out))
        self.block1 = CausalBlock1D(dim, dim_out)
        self.block2 = CausalBlock1D(dim_out, dim_out)
        self.res_conv = nn.Conv1d(dim, dim_out, 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, temb: torch.Tensor,
                state: StepCache | None = None) -> torch.Tensor:
        """x: [B, dim, T]; mask: [B, 1, T]; temb: [B, E] -> [B, dim_out, T]."""
        h = self.block1(x, mask, state)
        h = h + self.mlp(temb).unsqueeze(-1)  # [B, dim_out, 1] broadcast over T
        h = self.block2(h, mask, state)
        return h + self.res_conv(x * mask)


class SelfAttention(nn.Module):
    """Bias-free q/k/v projections, SDPA with an additive mask, ``to_out.0`` projection."""

    def __init__(self, dim: int, heads: int, head_dim: int) -> None:
        super().__init__()
        inner = heads * head_dim
        self.heads = heads
        self.head_dim = head_dim
        self.to_q = nn.Linear(dim, inner, bias=False)
        self.to_k = nn.Linear(dim, inner, bias=False)
        self.to_v = nn.Linear(dim, inner, bias=False)
        self.to_out = nn.ModuleList([nn.Linear(inner, dim), nn.Dropout(0.0)])

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)  # [B, H, T, d]

    def forward(self, x: torch.Tensor, bias: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """x: [B, T, dim]; bias: [B, H, T, T] additive -> [B, T, dim].

        With ``state`` (cached streaming) x holds the n new frames, bias is [B, H, n, S] over all
        S = cached + n keys, and the new keys/values are appended to the cache.
        """
        b, t, _ = x.shape
        q, k, v = self._split(self.to_q(x)), self._split(self.to_k(x)), self._split(self.to_v(x))
        if state is not None:
            k, v = state.keys_values(self, k, v)  # [B, H, S, d]
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=0.0)  # [B, H, T, d]
        y = y.transpose(1, 2).reshape(b, t, self.heads * self.head_dim)  # [B, T, H*d]
        return self.to_out[0](y)


class GELUProj(nn.Module):
    """``proj`` Linear followed by exact (erf) GELU."""

    def __init__(self, dim_in: int, dim_out: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.proj(x))


class FeedForward(nn.Module):
    """``net`` = [GELUProj dim -> 4 dim, Dropout, Linear 4 dim -> dim]."""

    def __init__(self, dim: int, mult: int = FF_MULT) -> None:
        super().__init__()
        self.net = nn.ModuleList([GELUProj(dim, dim * mult), nn.Dropout(0.0), nn.Linear(dim * mult, dim)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.net:
            x = layer(x)
        return x


class BasicTransformerBlock(nn.Module):
    """Pre-norm self-attention and feed-forward, each with a residual (no cross-attention)."""

    def __init__(self, dim: int, heads: int, head_dim: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn1 = SelfAttention(dim, heads, head_dim)
        self.norm3 = nn.LayerNorm(dim)
        self.ff = FeedForward(dim)

    def forward(self, x: torch.Tensor, bias: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """x: [B, T, dim]; bias: [B, H, T, T] -> [B, T, dim]."""
        x = self.attn1(self.norm1(x), bias, state) + x
        return self.ff(self.norm3(x)) + x


class TransformerStack(nn.ModuleList):
    """``n_blocks`` transformer blocks applied to a channel-first tensor."""

    def run(self, h: torch.Tensor, bias: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """h: [B, F, T] -> [B, F, T]."""
        x = h.transpose(1, 2).contiguous()  # [B, T, F]
        for block in self:
            x = block(x, bias, state)
        return x.transpose(1, 2).contiguous()  # [B, F, T]


class UNetStage(nn.ModuleList):
    """One U-Net stage: ``[0]`` resnet block, ``[1]`` transformer stack, optionally ``[2]`` causal conv."""

    def run(
        self, h: torch.Tensor, mask: torch.Tensor, temb: torch.Tensor, bias: torch.Tensor,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        """h: [B, F_in, T] -> [B, F, T] (resnet, then transformers)."""
        resnet = cast(CausalResnetBlock1D, self[0])
        stack = cast(TransformerStack, self[1])
        return stack.run(resnet(h, mask, temb, state), bias, state)

    def conv(self, h: torch.Tensor, mask: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """The stage's stride-1 causal conv on the masked input: [B, F, T] -> [B, F, T]."""
        return cast(CausalConv1d, self[2])(h * mask, state)


def attention_bias(mask: torch.Tensor, heads: int, chunk: int, dtype: torch.dtype) -> torch.Tensor:
    """Padding mask [B, 1, T] (1 = valid) -> additive bias [B, H, T, T]: 0 where allowed, -1e10 elsewhere.

    With ``chunk > 0`` (streaming) a key must also lie at or before the end of the query's chunk.
    """
    b, _, t = mask.shape
    if chunk <= 0 and bool(mask.bool().all()):
        # Every key allowed (one request, as the final call is): the same zeros as below, held as one
        # row instead of B x T x T values (1.5 GB of temporaries for 60 s of speech), so the bias
        # adds nothing to the call's memory. SDPA sees the same shape and values: the same result.
        row = torch.zeros(1, 1, 1, t, dtype=dtype, device=mask.device) * MASK_BIAS  # -0.0, as below
        return row.expand(b, heads, t, t)
    allowed = mask.bool().expand(b, t, t)  # [B, T(query), T(key)]
    if chunk > 0:
        allowed = allowed & chunk_mask(t, chunk, mask.device)
    bias = (1.0 - allowed.to(dtype)) * MASK_BIAS  # [B, T, T]
    return bias.unsqueeze(1).expand(b, heads, t, t)  # [B, H, T, T]


def attention_bias_rows(batch: int, heads: int, start: int, rows: int, chunk: int, dtype: torch.dtype,
                        device: torch.device) -> torch.Tensor:
    """Bias of the new query rows of a cached streaming call (no padding): [B, H, rows, start + rows].

    The same values as the matching rows of :func:`attention_bias` with an all-valid mask.
    """
    allowed = chunk_mask_rows(start, rows, start + rows, chunk, device)  # [rows, S]
    bias = (1.0 - allowed.to(dtype)) * MASK_BIAS  # [rows, S]
    return bias.expand(batch, heads, rows, start + rows)


# Close port of CosyVoice (Apache-2.0) flow/decoder.py, from Matcha-TTS (MIT); see NOTICE.
class CausalConditionalDecoder(nn.Module):
    """Velocity estimator ``v(x, mask, mu, t, spks, cond)`` of the CosyVoice2 flow."""

    def __init__(self, cfg: UNetConfig) -> None:
        super().__init__()
        if len(cfg.channels) != 1:
            raise ConfigError(
                f"the estimator has {len(cfg.channels)} U-Net levels (channels={list(cfg.channels)}); "
                "CosyVoice2 releases use exactly one level"
            )
        if cfg.act_fn != "gelu":
            raise ConfigError(f"estimator act_fn {cfg.act_fn!r} is not supported (CosyVoice2 uses 'gelu')")
        self.cfg = cfg
        width = cfg.channels[0]
        temb_dim = width * 4
        self.time_mlp = TimestepEmbedding(cfg.in_channels, temb_dim)
        self.down_blocks = nn.ModuleList([UNetStage([
            CausalResnetBlock1D(cfg.in_channels, width, temb_dim),
            self._transformers(width),
            CausalConv1d(width, width, 3),
        ])])
        self.mid_blocks = nn.ModuleList(
            UNetStage([CausalResnetBlock1D(width, width, temb_dim), self._transformers(width)])
            for _ in range(cfg.num_mid_blocks)
        )
        self.up_blocks = nn.ModuleList([UNetStage([
            CausalResnetBlock1D(2 * width, width, temb_dim),
            self._transformers(width),
            CausalConv1d(width, width, 3),
        ])])
        self.final_block = CausalBlock1D(width, width)
        self.final_proj = nn.Conv1d(width, cfg.out_channels, 1)

    def _transformers(self, width: int) -> TransformerStack:
        return TransformerStack(
            BasicTransformerBlock(width, self.cfg.num_heads, self.cfg.attention_head_dim)
            for _ in range(self.cfg.n_blocks)
        )

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor,
        mu: torch.Tensor,
        t: torch.Tensor,
        spks: torch.Tensor,
        cond: torch.Tensor,
        streaming: bool = False,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        """x, mu, cond: [B, C, T]; mask: [B, 1, T]; t: [B]; spks: [B, C] -> velocity [B, C, T].

        With ``state`` (a cached streaming call, :mod:`cosycore.flow.cache`) the frame inputs
        hold only the T frames after the ``state.start`` cached ones, and mask must be all ones.
        """
        h, temb = self.inputs(x, mu, t, spks, cond)  # [B, I, T], [B, E]
        chunk = self.cfg.static_chunk_size if streaming else 0
        if state is None:
            bias = attention_bias(mask, self.cfg.num_heads, chunk, h.dtype)  # [B, H, T, T]
        else:
            if chunk <= 0:
                raise ValueError("a cached estimator call needs streaming=True (chunk masks)")
            bias = attention_bias_rows(h.shape[0], self.cfg.num_heads, state.start, h.shape[2], chunk,
                                       h.dtype, h.device)  # [B, H, T, S]
        return self.run_biased(h, mask, temb, bias, state)

    def inputs(self, x: torch.Tensor, mu: torch.Tensor, t: torch.Tensor, spks: torch.Tensor,
               cond: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The network's input frames h [B, I, T] (x, mu, spks, cond stacked) and time embedding [B, E]."""
        temb = self.time_mlp(sinusoidal_time_embedding(t, self.cfg.in_channels))  # [B, E]
        spk = spks.unsqueeze(-1).expand(-1, -1, x.shape[-1])  # [B, C, T]
        return torch.cat([x, mu, spk, cond], dim=1), temb  # [B, I, T]; order x, mu, spks, cond

    def run_biased(self, h: torch.Tensor, mask: torch.Tensor, temb: torch.Tensor, bias: torch.Tensor,
                   state: StepCache | None = None) -> torch.Tensor:
        """The U-Net on input frames h [B, I, T] with an additive attention bias [B, H or 1, T, S] -> v [B, C, T].

        :meth:`forward` builds the bias from the mask and the chunk rule; the ONNX Runtime estimator
        (:mod:`cosycore.flow.ort_estimator`) is exported from this method with the bias as an input.
        """
        down = cast(UNetStage, self.down_blocks[0])
        skip = down.run(h, mask, temb, bias, state)  # [B, F, T]
        h = down.conv(skip, mask, state)
        for mid in self.mid_blocks:
            # One estimator call over a long prefix takes a few tenths of a second on a CPU: a
            # cancelled request stops between its stages too, not only between Euler steps.
            cancel_point()
            h = cast(UNetStage, mid).run(h, mask, temb, bias, state)
        cancel_point()
        up = cast(UNetStage, self.up_blocks[0])
        h = torch.cat([h[:, :, : skip.shape[-1]], skip], dim=1)  # [B, 2F, T]
        h = up.conv(up.run(h, mask, temb, bias, state), mask, state)
        h = self.final_block(h, mask, state)
        return self.final_proj(h * mask) * mask  # [B, C, T]
