"""CosyVoice2 token encoder: conformer layers at token rate, x2 upsampling, conformer layers at frame rate.

Shapes: B = batch (1 at inference), N = tokens, K = look-ahead context tokens (0 or
``pre_lookahead_len``), T = frames (= stride * N), D = encoder width (``output_size``), H = heads,
d = D / H per-head width, P = 2L - 1 relative positions for a sequence of length L.

Module names match the release ``flow.pt`` under ``encoder.``: ``embed``, ``pre_lookahead_layer``,
``encoders.{i}``, ``up_layer``, ``up_embed``, ``up_encoders.{i}``, ``after_norm``.

The ESPnet relative position table is not part of the checkpoint. It depends only on D and the
sequence length, so it is computed on demand (and cached per length, device and dtype) rather than
built in ``__init__``: the modules are constructed on the meta device and filled from ``flow.pt``.
"""

from __future__ import annotations

import logging
import math

import torch
import torch.nn.functional as F
from torch import nn

from ..config import ConformerEncoderConfig
from .cache import StepCache
from .lookahead import PreLookaheadLayer
from .masks import attention_mask, chunk_mask_rows

logger = logging.getLogger(__name__)

EMBED_LN_EPS = 1e-5  # LinearNoSubsampling and after_norm
LAYER_LN_EPS = 1e-12  # norm_mha / norm_ff inside each conformer layer


# Ported from CosyVoice (Apache-2.0) / ESPnet (Apache-2.0); see NOTICE.
def espnet_rel_pos_table(length: int, d_model: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """ESPnet "latest" relative position table for ``length`` positions: [1, 2*length - 1, D].

    Row ``r`` encodes the relative position ``length - 1 - r`` (from +(length-1) down to
    -(length-1)); even channels hold sin, odd channels cos.
    """
    position = torch.arange(0, length, dtype=torch.float32).unsqueeze(1)  # [L, 1]
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model)
    )  # [D/2]
    positive = torch.zeros(length, d_model)
    negative = torch.zeros(length, d_model)
    positive[:, 0::2] = torch.sin(position * div_term)
    positive[:, 1::2] = torch.cos(position * div_term)
    negative[:, 0::2] = torch.sin(-1 * position * div_term)
    negative[:, 1::2] = torch.cos(-1 * position * div_term)
    table = torch.cat([torch.flip(positive, [0]), negative[1:]], dim=0)  # [2L - 1, D]
    return table.unsqueeze(0).to(device=device, dtype=dtype)  # [1, 2L - 1, D]


class EspnetRelPositionalEncoding(nn.Module):
    """Scales the input by sqrt(D) and returns the relative position table for its length.

    Holds no parameters. One table per (device, dtype) is cached in a plain attribute (never in
    the state dict) and grown on demand; a shorter sequence uses its centre, since every entry
    depends only on its relative position and channel.
    """

    GROW = 256  # table lengths are rounded up to a multiple of this

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(d_model)
        self._tables: dict[tuple[torch.device, torch.dtype], torch.Tensor] = {}

    def position_table(self, length: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
        """[1, 2*length - 1, D]: relative positions +(length-1) .. -(length-1)."""
        key = (device, dtype)
        table = self._tables.get(key)
        if table is None or table.shape[1] < 2 * length - 1:
            size = -(-length // self.GROW) * self.GROW
            table = espnet_rel_pos_table(size, self.d_model, device, dtype)  # [1, 2*size - 1, D]
            self._tables[key] = table
        centre = table.shape[1] // 2  # row of relative position 0
        return table[:, centre - length + 1 : centre + length]  # [1, 2*length - 1, D]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x: [B, L, D] -> (x * sqrt(D) [B, L, D], pos_emb [1, 2L - 1, D])."""
        pos_emb = self.position_table(x.shape[1], x.device, x.dtype)
        return x * self.xscale, pos_emb


class LinearNoSubsampling(nn.Module):
    """``out`` = Linear, LayerNorm(eps 1e-5), Dropout; then the relative positional encoding."""

    def __init__(self, idim: int, odim: int) -> None:
        super().__init__()
        self.out = nn.Sequential(nn.Linear(idim, odim), nn.LayerNorm(odim, eps=EMBED_LN_EPS), nn.Dropout(0.0))
        self.pos_enc = EspnetRelPositionalEncoding(odim)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x: [B, L, idim] -> ([B, L, odim], pos_emb [1, 2L - 1, odim])."""
        return self.pos_enc(self.out(x))


def rel_shift(x: torch.Tensor) -> torch.Tensor:
    """Transformer-XL shift: [B, H, L, 2L - 1] scores against relative positions -> [B, H, L, L].

    ``out[..., i, j] = x[..., i, L - 1 - i + j]``: the elements the original picks by padding a
    zero column, reshaping and slicing, taken here as a strided view of ``x`` itself, so no
    [B, H, L, 2L] copy is made (at 60 s of speech that copy was the encoder's largest tensor).
    """
    b, h, l_q, n_pos = x.shape
    if n_pos != 2 * l_q - 1:
        raise ValueError(f"rel_shift needs [B, H, L, 2L - 1] scores, got {tuple(x.shape)}")
    x = x.contiguous()
    sb, sh = x.stride(0), x.stride(1)
    return x.as_strided((b, h, l_q, l_q), (sb, sh, n_pos - 1, 1), x.storage_offset() + l_q - 1)


# Close port of CosyVoice (Apache-2.0) transformer/attention.py, from ESPnet/WeNet (Apache-2.0); see NOTICE.
class RelPositionMultiHeadedAttention(nn.Module):
    """Multi-head self-attention with ESPnet relative positions and the learned biases u and v."""

    def __init__(self, n_head: int, n_feat: int) -> None:
        super().__init__()
        if n_feat % n_head:
            raise ValueError(f"encoder width {n_feat} is not divisible by {n_head} attention heads")
        self.h = n_head
        self.d_k = n_feat // n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.linear_pos = nn.Linear(n_feat, n_feat, bias=False)
        self.pos_bias_u = nn.Parameter(torch.empty(n_head, self.d_k))
        self.pos_bias_v = nn.Parameter(torch.empty(n_head, self.d_k))
        # Checkpoints overwrite these; a freshly built model (tiny test folders, benchmarks) must
        # not carry whatever memory torch.empty handed out.
        nn.init.xavier_uniform_(self.pos_bias_u)
        nn.init.xavier_uniform_(self.pos_bias_v)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, length, _ = x.shape
        return x.view(b, length, self.h, self.d_k)  # [B, L, H, d]

    def forward(self, x: torch.Tensor, pos_emb: torch.Tensor, mask: torch.Tensor | None,
                state: StepCache | None = None) -> torch.Tensor:
        """x: [B, L, D]; pos_emb: [1, 2L - 1, D]; mask: [L, L] bool (True = attend) or None.

        With ``state`` (cached streaming) x holds only the n new positions, pos_emb covers the
        whole sequence of S = cached + n positions ([1, 2S - 1, D]) and mask is [n, S].
        """
        if state is not None:
            return self._forward_cached(x, pos_emb, mask, state)
        b, length, _ = x.shape
        q = self._heads(self.linear_q(x))  # [B, L, H, d]
        k = self._heads(self.linear_k(x)).transpose(1, 2)  # [B, H, L, d]
        v = self._heads(self.linear_v(x)).transpose(1, 2)  # [B, H, L, d]
        p = self._heads(self.linear_pos(pos_emb)).transpose(1, 2)  # [1, H, 2L - 1, d]
        q_u = (q + self.pos_bias_u).transpose(1, 2)  # [B, H, L, d]
        q_v = (q + self.pos_bias_v).transpose(1, 2)  # [B, H, L, d]
        scores = torch.matmul(q_u, k.transpose(-2, -1))  # [B, H, L, L] (ac)
        bd = rel_shift(torch.matmul(q_v, p.transpose(-2, -1)))  # [B, H, L, 2L - 1] -> [B, H, L, L]
        scores.add_(bd).div_(math.sqrt(self.d_k))  # (ac + bd) / sqrt(d), in place: one L x L tensor less
        del bd
        if mask is not None:
            blocked = ~mask  # [L, L]
            attn = torch.softmax(scores.masked_fill(blocked, -float("inf")), dim=-1).masked_fill(blocked, 0.0)
        else:
            attn = torch.softmax(scores, dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, length, self.h * self.d_k)  # [B, L, D]
        return self.linear_out(out)

    def _forward_cached(self, x: torch.Tensor, pos_emb: torch.Tensor, mask: torch.Tensor | None,
                        state: StepCache) -> torch.Tensor:
        b, n, _ = x.shape
        q = self._heads(self.linear_q(x))  # [B, n, H, d]
        k_new = self._heads(self.linear_k(x)).transpose(1, 2)  # [B, H, n, d]
        v_new = self._heads(self.linear_v(x)).transpose(1, 2)  # [B, H, n, d]
        k, v = state.keys_values(self, k_new, v_new)  # [B, H, S, d]
        s = k.shape[2]
        # Query a (absolute position s - n + a) against key j needs relative position s - n + a - j,
        # which is row (n - 1 - a) + j of the table; rows 0 .. n + s - 2 are all that is used.
        p = self._heads(self.linear_pos(pos_emb[:, : n + s - 1])).transpose(1, 2)  # [1, H, n + s - 1, d]
        q_u = (q + self.pos_bias_u).transpose(1, 2)  # [B, H, n, d]
        q_v = (q + self.pos_bias_v).transpose(1, 2)  # [B, H, n, d]
        ac = torch.matmul(q_u, k.transpose(-2, -1))  # [B, H, n, S]
        rows = torch.arange(n - 1, -1, -1, device=x.device)[:, None] + torch.arange(s, device=x.device)  # [n, S]
        bd_all = torch.matmul(q_v, p.transpose(-2, -1))  # [B, H, n, n + s - 1]
        bd = bd_all.gather(-1, rows.expand(b, self.h, n, s))  # [B, H, n, S]
        scores = (ac + bd) / math.sqrt(self.d_k)
        if mask is not None:
            blocked = ~mask  # [n, S]
            attn = torch.softmax(scores.masked_fill(blocked, -float("inf")), dim=-1).masked_fill(blocked, 0.0)
        else:
            attn = torch.softmax(scores, dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, n, self.h * self.d_k)  # [B, n, D]
        return self.linear_out(out)


class PositionwiseFeedForward(nn.Module):
    """``w_2(SiLU(w_1 x))``."""

    def __init__(self, idim: int, hidden: int) -> None:
        super().__init__()
        self.w_1 = nn.Linear(idim, hidden)
        self.w_2 = nn.Linear(hidden, idim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(F.silu(self.w_1(x)))


class ConformerEncoderLayer(nn.Module):
    """Pre-norm layer without macaron FFN or convolution module: attention then FFN, each residual."""

    def __init__(self, size: int, n_head: int, linear_units: int) -> None:
        super().__init__()
        self.self_attn = RelPositionMultiHeadedAttention(n_head, size)
        self.feed_forward = PositionwiseFeedForward(size, linear_units)
        self.norm_ff = nn.LayerNorm(size, eps=LAYER_LN_EPS)
        self.norm_mha = nn.LayerNorm(size, eps=LAYER_LN_EPS)

    def forward(self, x: torch.Tensor, pos_emb: torch.Tensor, mask: torch.Tensor | None,
                state: StepCache | None = None) -> torch.Tensor:
        """x: [B, L, D] -> [B, L, D]."""
        x = x + self.self_attn(self.norm_mha(x), pos_emb, mask, state)
        return x + self.feed_forward(self.norm_ff(x))


class Upsample1D(nn.Module):
    """Causal x``stride`` upsampler: nearest repeat, left-pad 2*stride, Conv1d(kernel 2*stride + 1)."""

    def __init__(self, channels: int, out_channels: int, stride: int) -> None:
        super().__init__()
        self.stride = stride
        self.conv = nn.Conv1d(channels, out_channels, kernel_size=stride * 2 + 1)

    def forward(self, x: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        """x: [B, D, N] -> [B, D', stride * N]; ``state`` supplies the left context of a cached call."""
        y = x.repeat_interleave(self.stride, dim=2)  # [B, D, stride*N]
        if state is None:
            y = F.pad(y, (self.stride * 2, 0))  # [B, D, stride*N + 2*stride]
        else:
            y = state.with_history(self, y, self.stride * 2)  # [B, D, stride*N + 2*stride]
        return self.conv(y)


# Close port of CosyVoice (Apache-2.0) transformer/upsample_encoder.py; see NOTICE.
class UpsampleConformerEncoder(nn.Module):
    """Token embeddings [B, N, input_size] -> frame features [B, stride * N, output_size].

    Streaming uses static chunk masks anchored at position 0 (``static_chunk_size`` tokens before
    upsampling, ``static_chunk_size * stride`` frames after). Look-ahead ``context`` tokens pass
    only through ``embed`` and the pre-lookahead convolution, never through attention.
    """

    def __init__(self, cfg: ConformerEncoderConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.output_size
        self.embed = LinearNoSubsampling(cfg.input_size, d)
        # The original hard-codes 512 for these widths; the width of the stream they act on is output_size.
        self.pre_lookahead_layer = PreLookaheadLayer(d, d, cfg.pre_lookahead_len)
        self.encoders = nn.ModuleList(
            ConformerEncoderLayer(d, cfg.attention_heads, cfg.linear_units) for _ in range(cfg.num_blocks)
        )
        self.up_layer = Upsample1D(d, d, cfg.upsample_stride)
        self.up_embed = LinearNoSubsampling(d, d)
        self.up_encoders = nn.ModuleList(
            ConformerEncoderLayer(d, cfg.attention_heads, cfg.linear_units) for _ in range(cfg.num_up_blocks)
        )
        self.after_norm = nn.LayerNorm(d, eps=EMBED_LN_EPS)

    def forward(
        self, xs: torch.Tensor, context: torch.Tensor | None = None, *, streaming: bool,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        """xs: [1, N, input_size]; context: [1, K, input_size] or None -> [1, stride * N, output_size].

        With ``state`` (a cached streaming call, :mod:`cosycore.flow.cache`) xs holds only the
        tokens after the ``state.start`` cached ones and the output only their frames.
        """
        if state is not None:
            return self._forward_cached(xs, context, state)
        chunk = self.cfg.static_chunk_size if streaming else 0
        xs, pos_emb = self.embed(xs)  # [1, N, D], [1, 2N - 1, D]
        ctx = self.embed(context)[0] if context is not None and context.shape[1] > 0 else None  # [1, K, D]
        mask = attention_mask(xs.shape[1], chunk, xs.device)  # [N, N] or None
        xs = self.pre_lookahead_layer(xs, ctx)
        for layer in self.encoders:
            xs = layer(xs, pos_emb, mask)
        xs = self.up_layer(xs.transpose(1, 2)).transpose(1, 2)  # [1, T, D]
        xs, pos_emb = self.up_embed(xs)  # [1, T, D], [1, 2T - 1, D]
        mask = attention_mask(xs.shape[1], chunk * self.cfg.upsample_stride, xs.device)  # [T, T] or None
        for layer in self.up_encoders:
            xs = layer(xs, pos_emb, mask)
        return self.after_norm(xs)

    def _forward_cached(self, xs: torch.Tensor, context: torch.Tensor | None, state: StepCache) -> torch.Tensor:
        chunk, stride = self.cfg.static_chunk_size, self.cfg.upsample_stride
        if chunk <= 0:
            raise ValueError("a cached encoder call needs static chunk masks (static_chunk_size > 0)")
        start, n = state.start, xs.shape[1]
        xs, _ = self.embed(xs)  # [1, n, D]
        ctx = self.embed(context)[0] if context is not None and context.shape[1] > 0 else None  # [1, K, D]
        pos_emb = self.embed.pos_enc.position_table(start + n, xs.device, xs.dtype)  # [1, 2S - 1, D]
        mask = chunk_mask_rows(start, n, start + n, chunk, xs.device)  # [n, S]
        xs = self.pre_lookahead_layer(xs, ctx, state)
        for layer in self.encoders:
            xs = layer(xs, pos_emb, mask, state)
        xs = self.up_layer(xs.transpose(1, 2), state).transpose(1, 2)  # [1, stride * n, D]
        xs, _ = self.up_embed(xs)
        f_start, f_n = stride * start, stride * n
        pos_emb = self.up_embed.pos_enc.position_table(f_start + f_n, xs.device, xs.dtype)
        mask = chunk_mask_rows(f_start, f_n, f_start + f_n, chunk * stride, xs.device)  # [stride*n, stride*S]
        for layer in self.up_encoders:
            xs = layer(xs, pos_emb, mask, state)
        return self.after_norm(xs)
