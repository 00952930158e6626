"""The Qwen2 decoder behind the speech LM: RMSNorm, grouped-query attention with rotate-half RoPE, SwiGLU.

Written out here (no transformers dependency) so the KV cache is ours: see :mod:`.kv_cache`.
Shapes: the legend of :mod:`cosycore.lm.speech_lm`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..config import QwenConfig
from ..weights import embedding

if TYPE_CHECKING:
    from .kv_cache import KVCache

logger = logging.getLogger(__name__)


class RMSNorm(nn.Module):
    """Root-mean-square norm, computed in float32 and scaled by a learned weight."""

    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: Tensor) -> Tensor:
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


class MLP(nn.Module):
    """SwiGLU feed-forward: ``down(silu(gate(x)) * up(x))``, no biases."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)
        self.gate_up: nn.Module | None = None  # gate and up in one matrix, after fuse()

    def fuse(self) -> None:
        """Replace gate and up by one linear layer of both (one matrix product instead of two).

        Each output row is still the same dot product, so the result is unchanged; the separate
        layers are dropped. Used before int8 quantization, where per-call overhead matters.
        """
        self.gate_up = concat_linears(self.gate_proj, self.up_proj)
        del self.gate_proj, self.up_proj

    def forward(self, x: Tensor) -> Tensor:
        if self.gate_up is not None:
            gate, up = self.gate_up(x).split(self.hidden, dim=-1)
            return self.down_proj(F.silu(gate) * up)
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def concat_linears(*layers: nn.Linear) -> nn.Linear:
    """One linear layer whose outputs are those of ``layers`` side by side (same input)."""
    first = layers[0]
    out = sum(layer.out_features for layer in layers)
    has_bias = first.bias is not None
    fused = nn.Linear(first.in_features, out, bias=has_bias, device=first.weight.device, dtype=first.weight.dtype)
    with torch.no_grad():
        fused.weight.copy_(torch.cat([layer.weight for layer in layers], dim=0))
        if has_bias:
            fused.bias.copy_(torch.cat([layer.bias for layer in layers], dim=0))
    return fused


def rope_table(length: int, head_dim: int, theta: float) -> tuple[Tensor, Tensor]:
    """cos and sin of the rotate-half RoPE for positions ``0..length-1``, float32 on the CPU.

    The inverse frequencies and their product with the positions are formed in float32, the way
    the Qwen2 reference computes them, so the angles match it bit for bit.
    """
    exponents = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim
    inv_freq = 1.0 / (theta ** exponents)  # [Dh/2]
    positions = torch.arange(length, dtype=torch.int64).float()
    freqs = positions[:, None] * inv_freq[None, :]  # [length, Dh/2]
    angles = torch.cat((freqs, freqs), dim=-1)  # [length, Dh]
    return angles.cos(), angles.sin()


class RopeTables:
    """Lazily built RoPE tables, one per device, grown (to a power of two) on demand.

    Not module buffers on purpose: the model is built on the meta device and filled by assignment,
    and a buffer computed in ``__init__`` would stay on meta.
    """

    def __init__(self, head_dim: int, theta: float) -> None:
        self.head_dim = head_dim
        self.theta = theta
        self._by_device: dict[torch.device, tuple[Tensor, Tensor]] = {}

    def get(self, length: int, device: torch.device) -> tuple[Tensor, Tensor]:
        """Tables ``(cos, sin)`` of shape [>= length, Dh] on ``device``."""
        have = self._by_device.get(device)
        if have is None or have[0].shape[0] < length:
            n = max(256, 1 << max(0, length - 1).bit_length())
            with torch.inference_mode(False):
                cos, sin = rope_table(n, self.head_dim, self.theta)
                have = (cos.to(device), sin.to(device))
            self._by_device[device] = have
            logger.debug("RoPE tables for %d positions on %s", n, device)
        return have


def apply_rope(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """Rotate ``x`` [B, N, T, Dh] by the angles of its positions (cos/sin [T, Dh])."""
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


@dataclass(frozen=True)
class AttnContext:
    """Per-call attention inputs shared by every layer."""

    input_pos: Tensor  # [T] absolute positions of the new entries (long)
    cos: Tensor  # [T, Dh]
    sin: Tensor  # [T, Dh]
    end: int | None  # attend to cache[:end]; None = the whole (static) cache, masked
    mask: Tensor | None  # [T, P] bool, True = may attend; None = no mask or is_causal
    is_causal: bool  # only when the new block is the whole attended sequence (T == P)


def static_context(input_pos: Tensor, cos: Tensor, sin: Tensor, capacity: int) -> AttnContext:
    """Attend over the whole cache, masking the positions after each query (fixed shapes)."""
    key_pos = torch.arange(capacity, device=input_pos.device)  # [S]
    mask = key_pos[None, :] <= input_pos[:, None]  # [T, S]
    return AttnContext(input_pos, cos[input_pos], sin[input_pos], None, mask, False)


def sliced_context(input_pos: Tensor, cos: Tensor, sin: Tensor, start: int) -> AttnContext:
    """Attend over the filled prefix only; a mask is needed only for a block appended after it."""
    t = int(input_pos.shape[0])
    end = start + t
    mask: Tensor | None = None
    if t > 1 and start > 0:
        key_pos = torch.arange(end, device=input_pos.device)  # [P]
        mask = key_pos[None, :] <= input_pos[:, None]  # [T, P]
    return AttnContext(input_pos, cos[start:end], sin[start:end], end, mask, t > 1 and start == 0)


def grouped_sdpa(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, is_causal: bool) -> Tensor:
    """Scaled dot-product attention with K key/value heads shared by H query heads.

    q: [B, H, T, Dh]; k, v: [B, K, P, Dh]; returns [B, H, T, Dh]. Query head h reads key/value
    head h // G. One new position (decoding) needs no copy: the G query heads of a group become
    G query rows of that group.
    """
    b, h, t, dh = q.shape
    kv_heads = k.shape[1]
    group = h // kv_heads
    if t == 1:
        qg = q.reshape(b, kv_heads, group, dh)  # [B, K, G, Dh]
        out = F.scaled_dot_product_attention(qg, k, v, attn_mask=mask)  # [B, K, G, Dh]
        return out.reshape(b, h, 1, dh)
    if group > 1:
        k = k.repeat_interleave(group, dim=1)  # [B, H, P, Dh]
        v = v.repeat_interleave(group, dim=1)  # [B, H, P, Dh]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal)


class Attention(nn.Module):
    """Qwen2 self-attention: q/k/v projections with bias, o projection without, float32 SDPA."""

    def __init__(self, cfg: QwenConfig) -> None:
        super().__init__()
        self.num_heads = cfg.num_heads
        self.num_kv_heads = cfg.num_kv_heads
        self.head_dim = cfg.head_dim
        d, dh = cfg.hidden_size, cfg.head_dim
        self.q_proj = nn.Linear(d, cfg.num_heads * dh, bias=True)
        self.k_proj = nn.Linear(d, cfg.num_kv_heads * dh, bias=True)
        self.v_proj = nn.Linear(d, cfg.num_kv_heads * dh, bias=True)
        self.o_proj = nn.Linear(cfg.num_heads * dh, d, bias=False)
        self.qkv: nn.Module | None = None  # q, k and v in one matrix, after fuse()

    def fuse(self) -> None:
        """Replace the q, k and v projections by one linear layer (see :meth:`MLP.fuse`)."""
        self.qkv = concat_linears(self.q_proj, self.k_proj, self.v_proj)
        del self.q_proj, self.k_proj, self.v_proj

    def forward(self, x: Tensor, ctx: AttnContext, kv: tuple[Tensor, Tensor] | None) -> Tensor:
        b, t, _ = x.shape
        h, kvh, dh = self.num_heads, self.num_kv_heads, self.head_dim
        if self.qkv is not None:
            q, k, v = self.qkv(x).split((h * dh, kvh * dh, kvh * dh), dim=-1)
        else:
            q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        q = q.view(b, t, h, dh).transpose(1, 2)  # [B, H, T, Dh]
        k = k.view(b, t, kvh, dh).transpose(1, 2)  # [B, K, T, Dh]
        v = v.view(b, t, kvh, dh).transpose(1, 2)  # [B, K, T, Dh]
        q = apply_rope(q.float(), ctx.cos, ctx.sin)
        k = apply_rope(k.float(), ctx.cos, ctx.sin)
        v = v.float()
        if kv is not None:
            k_cache, v_cache = kv  # [B, K, S, Dh]
            k_cache.index_copy_(2, ctx.input_pos, k.to(k_cache.dtype))
            v_cache.index_copy_(2, ctx.input_pos, v.to(v_cache.dtype))
            k = (k_cache if ctx.end is None else k_cache[:, :, : ctx.end]).float()  # [B, K, P, Dh]
            v = (v_cache if ctx.end is None else v_cache[:, :, : ctx.end]).float()  # [B, K, P, Dh]
        out = grouped_sdpa(q, k, v, ctx.mask, ctx.is_causal)  # [B, H, T, Dh]
        out = out.transpose(1, 2).reshape(b, t, h * dh).to(x.dtype)  # [B, T, H*Dh]
        return self.o_proj(out)


class DecoderLayer(nn.Module):
    """Pre-norm transformer block: ``x + attn(norm(x))``, then ``x + mlp(norm(x))``."""

    def __init__(self, cfg: QwenConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.mlp = MLP(cfg.hidden_size, cfg.intermediate_size)

    def forward(self, x: Tensor, ctx: AttnContext, kv: tuple[Tensor, Tensor] | None) -> Tensor:
        x = x + self.self_attn(self.input_layernorm(x), ctx, kv)
        return x + self.mlp(self.post_attention_layernorm(x))


class Qwen2Decoder(nn.Module):
    """The Qwen2 backbone (``Qwen2Model``): text-token table, decoder layers, final RMSNorm.

    Works on input embeddings; :meth:`run` returns the hidden states after the final norm.
    """

    def __init__(self, cfg: QwenConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.num_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.rope = RopeTables(cfg.head_dim, cfg.rope_theta)

    def run(self, x: Tensor, ctx: AttnContext, cache: KVCache | None) -> Tensor:
        """x: [B, T, D] -> hidden [B, T, D], writing keys/values into ``cache`` when given."""
        for i, layer in enumerate(self.layers):
            kv = None if cache is None else (cache.k[i], cache.v[i])
            x = layer(x, ctx, kv)
        return self.norm(x)

