"""Fun-CosyVoice3 flow estimator: a diffusion transformer (DiT) with AdaLN-Zero and partial RoPE.

Shape legend:
    B  batch (2 inside the CFG sampler: row 0 conditional, row 1 unconditional)
    T  mel frames of the call (prompt + generated)
    M  mel bins (``mel_dim`` = 80); mu and spks widths are ``mu_dim`` / ``spk_dim``
    D  model width (``dim``)
    H  attention heads, Dh per-head width (``dim_head``), I = H * Dh
    F  sinusoidal time-embedding width (256)

The estimator predicts the flow velocity ``v(x, t | mu, spks, cond)``:

    [x, cond, mu, spks] -> Linear -> + causal conv position embedding -> depth x DiTBlock
    -> AdaLN-Zero final norm -> Linear -> v [B, M, T]

Two details matter for matching the original numerics:

- The input concatenation order is ``x, cond, mu, spks`` (the CosyVoice2 U-Net uses another order).
- Rotary position is applied to the first ``dim_head`` channels of the *full* q/k projections before
  they are split into heads, with interleaved pair rotation, so only head 0 carries position.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

from ..cancel import cancel_point
from ..config import DiTConfig
from ..errors import StateDictMismatchError
from .cache import StepCache
from .masks import attention_mask, chunk_mask_rows
from .time_table import TimeTable

logger = logging.getLogger(__name__)

TIME_FREQ_DIM = 256  # width of the sinusoidal time embedding
TIME_SCALE = 1000.0  # t in [0, 1] is scaled by this before the sinusoids
ROPE_BASE = 10000.0
CONV_POS_KERNEL = 31
CONV_POS_GROUPS = 16
LN_EPS = 1e-6
INV_FREQ_KEY = "rotary_embed.inv_freq"  # persistent buffer of the original, relative to the DiT


# --------------------------------------------------------------------------------------------
# Time embedding
# --------------------------------------------------------------------------------------------


def sinusoidal_time_features(
    t: torch.Tensor, dim: int = TIME_FREQ_DIM, scale: float = TIME_SCALE
) -> torch.Tensor:
    """t: [B] -> [B, dim] = [sin(scale*t*f_k), cos(scale*t*f_k)], f_k = 10000^(-k/(dim/2-1))."""
    half = dim // 2
    step = math.log(10000.0) / (half - 1)
    freqs = torch.exp(torch.arange(half, device=t.device, dtype=torch.float32) * -step)  # [F/2]
    args = scale * t.unsqueeze(1) * freqs.unsqueeze(0)  # [B, F/2]
    return torch.cat([args.sin(), args.cos()], dim=-1).to(t.dtype)  # [B, F]


class TimestepEmbedding(nn.Module):
    """t: [B] -> temb [B, D]: sinusoids, then Linear-SiLU-Linear (``time_mlp.0`` / ``time_mlp.2``)."""

    def __init__(self, dim: int, freq_dim: int = TIME_FREQ_DIM) -> None:
        super().__init__()
        self.freq_dim = freq_dim
        self.time_mlp = nn.Sequential(nn.Linear(freq_dim, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.time_mlp(sinusoidal_time_features(t, self.freq_dim))


# --------------------------------------------------------------------------------------------
# Input embedding
# --------------------------------------------------------------------------------------------


class CausalConvPositionEmbedding(nn.Module):
    """x: [B, T, D] -> [B, T, D]; two left-padded grouped convs, each followed by Mish."""

    def __init__(self, dim: int, kernel_size: int = CONV_POS_KERNEL, groups: int = CONV_POS_GROUPS) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.conv1 = nn.Sequential(nn.Conv1d(dim, dim, kernel_size, groups=groups), nn.Mish())
        self.conv2 = nn.Sequential(nn.Conv1d(dim, dim, kernel_size, groups=groups), nn.Mish())

    def forward(self, x: torch.Tensor, state: StepCache | None = None) -> torch.Tensor:
        if x.is_cuda and torch.backends.cudnn.enabled:
            # cuDNN's kernels for these grouped 31-tap convs asked for 16.6 GiB of workspace in one
            # full-size flow call on an H200 (a 10 s request: 19.9 GiB peak) and took 1.7 s where
            # torch's own kernels took 0.77 s (README "Performance › GPU"). CPU runs never get here.
            with torch.backends.cudnn.flags(enabled=False):
                return self._forward(x, state)
        return self._forward(x, state)

    def _forward(self, x: torch.Tensor, state: StepCache | None) -> torch.Tensor:
        y = x.transpose(1, 2)  # [B, D, T]
        if state is not None:  # cached streaming: the left context comes from earlier calls
            y = self.conv1(state.with_history(self.conv1, y, self.kernel_size - 1))  # [B, D, T]
            y = self.conv2(state.with_history(self.conv2, y, self.kernel_size - 1))  # [B, D, T]
            return y.transpose(1, 2)  # [B, T, D]
        y = self.conv1(F.pad(y, (self.kernel_size - 1, 0)))  # [B, D, T]
        y = self.conv2(F.pad(y, (self.kernel_size - 1, 0)))  # [B, D, T]
        return y.transpose(1, 2)  # [B, T, D]


class InputEmbedding(nn.Module):
    """Projects concat[x, cond, mu, spks] (each [B, T, *]) to [B, T, D] and adds conv positions."""

    def __init__(self, mel_dim: int, mu_dim: int, spk_dim: int, dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(mel_dim * 2 + mu_dim + spk_dim, dim)
        self.conv_pos_embed = CausalConvPositionEmbedding(dim)

    def forward(
        self, x: torch.Tensor, cond: torch.Tensor, mu: torch.Tensor, spks: torch.Tensor,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        spk_frames = spks.unsqueeze(1).expand(-1, x.shape[1], -1)  # [B, T, S]
        h = self.proj(torch.cat([x, cond, mu, spk_frames], dim=-1))  # [B, T, D]
        return self.conv_pos_embed(h, state) + h


# --------------------------------------------------------------------------------------------
# Rotary position embedding (interleaved pairs, partial: first dim_head channels only)
# --------------------------------------------------------------------------------------------


def rope_inv_freq(
    rot_dim: int, device: torch.device | str | None = None, base: float = ROPE_BASE
) -> torch.Tensor:
    """[rot_dim/2] inverse frequencies 1 / base^(2i/rot_dim), computed in float32."""
    exponent = torch.arange(0, rot_dim, 2, device=device, dtype=torch.float32) / rot_dim
    return 1.0 / (base**exponent)


def rope_angles(length: int, inv_freq: torch.Tensor) -> torch.Tensor:
    """[L, R] angles with pair duplication: angle[n, 2i] = angle[n, 2i+1] = n * inv_freq[i]."""
    pos = torch.arange(length, device=inv_freq.device, dtype=torch.float32)  # [L]
    angles = pos[:, None] * inv_freq[None, :]  # [L, R/2]
    return angles.repeat_interleave(2, dim=-1)  # [L, R]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    """Maps every adjacent channel pair (a, b) to (-b, a). x: [..., R] with R even."""
    pairs = x.unflatten(-1, (-1, 2))  # [..., R/2, 2]
    a, b = pairs.unbind(-1)
    return torch.stack([-b, a], dim=-1).flatten(-2)  # [..., R]


def apply_partial_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate channels [0, R) of x [B, T, I] by the angles whose cos/sin are [T, R]; rest unchanged.

    Computed in float32 and cast back to x's dtype.
    """
    rot_dim = cos.shape[-1]
    head, tail = x[..., :rot_dim].float(), x[..., rot_dim:]
    rotated = head * cos + rotate_pairs(head) * sin  # [B, T, R]
    return torch.cat([rotated.to(x.dtype), tail], dim=-1)  # [B, T, I]


class RotaryEmbedding(nn.Module):
    """Parameter-free: the inverse frequencies are recomputed per call on the input's device.

    The original keeps them as a persistent buffer ``inv_freq`` in the checkpoint. It is checked
    against the formula by :func:`check_inv_freq` when a checkpoint is loaded and then dropped.
    """

    def __init__(self, rot_dim: int, base: float = ROPE_BASE) -> None:
        super().__init__()
        if rot_dim % 2:
            raise ValueError(f"rotary width must be even, got {rot_dim}")
        self.rot_dim = rot_dim
        self.base = base

    def forward(self, length: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """(cos, sin), each [T, R] float32."""
        angles = rope_angles(length, rope_inv_freq(self.rot_dim, device, self.base))  # [T, R]
        return angles.cos(), angles.sin()


def check_inv_freq(
    stored: torch.Tensor, rot_dim: int, base: float = ROPE_BASE, source: str = "flow.pt"
) -> None:
    """Raise if a checkpoint's rotary ``inv_freq`` is not the one this implementation computes."""
    expected = rope_inv_freq(rot_dim)
    if tuple(stored.shape) != tuple(expected.shape):
        raise StateDictMismatchError(
            f"{source}: rotary inv_freq has shape {tuple(stored.shape)}, but the yaml's dim_head "
            f"implies {tuple(expected.shape)}. The checkpoint and the yaml come from different releases."
        )
    if not torch.allclose(stored.detach().float().cpu(), expected, rtol=1e-6, atol=0.0):
        raise StateDictMismatchError(
            f"{source}: rotary inv_freq differs from 1/{base:g}^(2i/{rot_dim}); this is not a "
            "CosyVoice3 DiT checkpoint that Cosy Studio knows how to run."
        )


# --------------------------------------------------------------------------------------------
# Transformer blocks
# --------------------------------------------------------------------------------------------


def layer_norm(x: torch.Tensor) -> torch.Tensor:
    """LayerNorm over the last dim, no affine, eps 1e-6."""
    return F.layer_norm(x, (int(x.shape[-1]),), eps=LN_EPS)  # int(): a constant width when traced (ort_dit)


def modulate(x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """x: [B, T, D]; shift, scale: [B, D] -> LN(x) * (1 + scale) + shift."""
    return layer_norm(x) * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class AdaLayerNormZero(nn.Module):
    """temb [B, D] -> the six modulations of a block [B, 6D] (shift, scale, gate for attention; the
    same for the FFN)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.linear = nn.Linear(dim, dim * 6)

    def forward(self, temb: torch.Tensor) -> torch.Tensor:
        return self.linear(F.silu(temb))  # [B, 6D]


class AdaLayerNormZeroFinal(nn.Module):
    """temb [B, D] -> the final norm's modulation [B, 2D] (scale, shift): LN(x) * (1 + scale) + shift."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.linear = nn.Linear(dim, dim * 2)

    def forward(self, temb: torch.Tensor) -> torch.Tensor:
        return self.linear(F.silu(temb))  # [B, 2D]


class Attention(nn.Module):
    """Multi-head self-attention with RoPE on the first ``dim_head`` q/k channels (head 0 only)."""

    def __init__(self, dim: int, heads: int, dim_head: int) -> None:
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.dim_head = dim_head
        self.to_q = nn.Linear(dim, inner)
        self.to_k = nn.Linear(dim, inner)
        self.to_v = nn.Linear(dim, inner)
        self.to_out = nn.ModuleList([nn.Linear(inner, dim), nn.Identity()])

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        return x.unflatten(-1, (self.heads, self.dim_head)).transpose(1, 2)  # [B, T, I] -> [B, H, T, Dh]

    def forward(
        self,
        x: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        attn_mask: torch.Tensor | None,
        row_keep: torch.Tensor | None,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        """x: [B, T, D]; attn_mask: bool, broadcastable to [B, H, T, T] (True = attend) or None;
        row_keep: bool [B, T] rows to keep (others zeroed) or None.

        With ``state`` (cached streaming) x and rope cover the T new frames only, attn_mask is
        [T, S] over all S = cached + T keys, and the new keys/values are appended to the cache.
        """
        cos, sin = rope
        q = apply_partial_rope(self.to_q(x), cos, sin)  # [B, T, I]
        k = apply_partial_rope(self.to_k(x), cos, sin)  # [B, T, I]
        v = self.to_v(x)  # [B, T, I]
        if state is None:
            keys, values = self.split_heads(k), self.split_heads(v)  # [B, H, T, Dh]
        else:
            keys, values = state.keys_values(self, self.split_heads(k), self.split_heads(v))  # [B, H, S, Dh]
        out = F.scaled_dot_product_attention(self.split_heads(q), keys, values, attn_mask=attn_mask)  # [B, H, T, Dh]
        out = out.transpose(1, 2).flatten(2)  # [B, T, I]
        out = self.to_out[0](out)  # [B, T, D]
        if row_keep is not None:
            out = out.masked_fill(~row_keep.unsqueeze(-1), 0.0)
        return out


class FeedForward(nn.Module):
    """Linear -> GELU(tanh) -> Linear; module path ``ff.0.0`` / ``ff.2`` as in the checkpoint."""

    def __init__(self, dim: int, mult: int) -> None:
        super().__init__()
        hidden = dim * mult
        self.ff = nn.Sequential(
            nn.Sequential(nn.Linear(dim, hidden), nn.GELU(approximate="tanh")),
            nn.Identity(),  # dropout slot of the original (inactive at inference)
            nn.Linear(hidden, dim),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ff(x)


class DiTBlock(nn.Module):
    """x [B, T, D] -> [B, T, D]: gated attention and gated FFN, both AdaLN-Zero modulated by temb."""

    def __init__(self, dim: int, heads: int, dim_head: int, ff_mult: int) -> None:
        super().__init__()
        self.attn_norm: AdaLayerNormZero | None = AdaLayerNormZero(dim)  # None once the DiT's time is fixed
        self.attn = Attention(dim, heads, dim_head)
        self.ff = FeedForward(dim, ff_mult)

    def forward(
        self,
        x: torch.Tensor,
        modulation: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        attn_mask: torch.Tensor | None,
        row_keep: torch.Tensor | None,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        """modulation: [B, 6D], this block's ``attn_norm(temb)`` (:meth:`DiT.time_conditioning`)."""
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = modulation.chunk(6, dim=1)  # 6 x [B, D]
        attn_out = self.attn(modulate(x, shift_msa, scale_msa), rope, attn_mask, row_keep, state)
        x = x + gate_msa.unsqueeze(1) * attn_out
        ff_out = self.ff(modulate(x, shift_mlp, scale_mlp))
        return x + gate_mlp.unsqueeze(1) * ff_out


# --------------------------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------------------------


def build_attention_mask(
    pad_mask: torch.Tensor, chunk: int | None
) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """pad_mask: [B, 1, T] (nonzero = real frame). Returns (attn_mask, row_keep).

    attn_mask is bool [B, 1, T, T] or [T, T] (True = attend), or None for full attention;
    row_keep is bool [B, T] or None when nothing is padded. As in the original, output rows are
    zeroed by the key padding mask, and any query row that would see nothing attends everywhere.
    """
    length = pad_mask.shape[-1]
    keys = pad_mask[:, 0, :].bool()  # [B, T]
    structural = attention_mask(length, chunk, pad_mask.device)  # [T, T] or None
    if bool(keys.all()):
        return structural, None
    full = keys[:, None, :].expand(-1, length, -1)  # [B, T, T]
    if structural is not None:
        full = full & structural
    full = full | ~full.any(dim=-1, keepdim=True)  # all-false rows attend everywhere
    return full.unsqueeze(1), keys  # [B, 1, T, T], [B, T]


# Close port of CosyVoice (Apache-2.0) flow/DiT/dit.py and modules.py, from F5-TTS (MIT); see NOTICE.
class DiT(nn.Module):
    """Velocity estimator. ``forward(x, mask, mu, t, spks, cond, streaming) -> [B, M_out, T]``."""

    def __init__(self, cfg: DiTConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.time_embed: TimestepEmbedding | None = TimestepEmbedding(cfg.dim)  # None once fixed (below)
        self.input_embed = InputEmbedding(cfg.mel_dim, cfg.mu_dim, cfg.spk_dim, cfg.dim)
        self.rotary_embed = RotaryEmbedding(cfg.dim_head)
        self.transformer_blocks = nn.ModuleList(
            DiTBlock(cfg.dim, cfg.heads, cfg.dim_head, cfg.ff_mult) for _ in range(cfg.depth)
        )
        self.norm_out: AdaLayerNormZeroFinal | None = AdaLayerNormZeroFinal(cfg.dim)  # None once fixed
        self.proj_out = nn.Linear(cfg.dim, cfg.out_channels)
        self.time_table: TimeTable | None = None  # set by fix_time_steps

    # -- time conditioning ---------------------------------------------------------------------

    def time_modules(self) -> dict[str, nn.Module]:
        """The modules that turn ``t`` into the modulations, by key prefix (relative to the DiT);
        empty once :meth:`fix_time_steps` has replaced them by a table."""
        norms = [cast(DiTBlock, block).attn_norm for block in self.transformer_blocks]
        if self.time_embed is None or self.norm_out is None or None in norms:
            return {}
        found: dict[str, nn.Module] = {"time_embed": self.time_embed, "norm_out": self.norm_out}
        found.update({f"transformer_blocks.{i}.attn_norm": norm for i, norm in enumerate(norms) if norm is not None})
        return found

    def time_conditioning(self, t: torch.Tensor) -> tuple[tuple[torch.Tensor, ...], torch.Tensor]:
        """t: [B] -> each block's AdaLN modulation [B, 6D] and the final norm's [B, 2D]."""
        if self.time_table is not None:
            return self.time_table.lookup(t)
        modules = self.time_modules()
        if not modules:
            raise RuntimeError("the DiT's time-conditioning weights are gone but no table replaced them")
        temb = modules["time_embed"](t)  # [B, D]
        blocks = tuple(modules[f"transformer_blocks.{i}.attn_norm"](temb)
                       for i in range(len(self.transformer_blocks)))  # L x [B, 6D]
        return blocks, modules["norm_out"](temb)

    def fix_time_steps(self, times: Sequence[torch.Tensor], autocast: torch.dtype | None, description: str) -> None:
        """Compute :meth:`time_conditioning` for each ``t`` [B] the sampler will pass (in the autocast
        setting it runs the estimator in), keep the results and drop the weights that made them
        (:mod:`cosycore.flow.time_table`). Later calls accept only these times."""
        if not times:
            raise ValueError("fix_time_steps needs the ODE times of at least one step")
        device_type = times[0].device.type
        with torch.no_grad(), torch.autocast(device_type, dtype=autocast, enabled=autocast is not None):
            entries = [(t, *self.time_conditioning(t)) for t in times]
        self.time_table = TimeTable(entries, autocast, description)
        self.time_embed = None
        self.norm_out = None
        for block in self.transformer_blocks:
            cast(DiTBlock, block).attn_norm = None

    def prepare_state_dict(
        self, sd: dict[str, torch.Tensor], prefix: str = "", source: str = "flow.pt"
    ) -> dict[str, torch.Tensor]:
        """Check and drop the original's rotary ``inv_freq`` buffer, if the checkpoint has one; once
        the time conditioning is fixed, drop its weights too (checked when the table was made)."""
        key = prefix + INV_FREQ_KEY
        if key in sd:
            check_inv_freq(sd[key], self.cfg.dim_head, source=source)
            sd = {k: v for k, v in sd.items() if k != key}
        if self.time_table is not None:
            fixed = tuple(f"{prefix}{name}." for name in self.time_prefixes())
            sd = {k: v for k, v in sd.items() if not k.startswith(fixed)}
        return sd

    def time_prefixes(self) -> tuple[str, ...]:
        """Key prefixes (relative to the DiT) of the time-conditioning weights, fixed or not."""
        return ("time_embed", "norm_out",
                *(f"transformer_blocks.{i}.attn_norm" for i in range(len(self.transformer_blocks))))

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
        """x, mu, cond: [B, M, T]; mask: [B, 1, T]; t: [B] or scalar; spks: [B, S] -> v [B, M_out, T].

        With ``state`` (a cached streaming call, :mod:`cosycore.flow.cache`) the frame inputs
        hold only the T frames after the ``state.start`` cached ones, and mask must be all ones.
        """
        batch, _, length = x.shape
        if t.ndim == 0:
            t = t.repeat(batch)  # [B]
        block_mods, final_mod = self.time_conditioning(t)  # L x [B, 6D], [B, 2D]
        h = self.input_embed(x.transpose(1, 2), cond.transpose(1, 2), mu.transpose(1, 2), spks, state)  # [B, T, D]
        chunk = self.cfg.static_chunk_size if streaming else None
        if state is None:
            rope = self.rotary_embed(length, x.device)  # 2 x [T, Dh]
            attn_mask, row_keep = build_attention_mask(mask, chunk)
        else:
            if chunk is None or chunk <= 0:
                raise ValueError("a cached DiT call needs streaming=True (chunk masks)")
            start = state.start
            cos, sin = self.rotary_embed(start + length, x.device)  # 2 x [S, Dh]
            rope = (cos[start:], sin[start:])  # the new frames' absolute positions
            attn_mask, row_keep = chunk_mask_rows(start, length, start + length, chunk, x.device), None  # [T, S]
        return self.run(h, block_mods, final_mod, rope, attn_mask, row_keep, state)

    def run(
        self,
        h: torch.Tensor,
        block_mods: Sequence[torch.Tensor],
        final_mod: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        attn_mask: torch.Tensor | None,
        row_keep: torch.Tensor | None,
        state: StepCache | None = None,
    ) -> torch.Tensor:
        """The blocks and the output on embedded frames h [B, T, D] -> v [B, M_out, T], given the time
        conditioning (:meth:`time_conditioning`), the frames' rotary cos/sin [T, R] and the attention mask
        (bool, or an additive float bias) over the keys. The ONNX Runtime graph
        (:mod:`cosycore.flow.ort_dit`) is exported from this method with all of them as inputs."""
        for block, mod in zip(self.transformer_blocks, block_mods, strict=True):
            cancel_point()  # a cancelled request stops between blocks (one call takes tenths of a second on a CPU)
            h = block(h, mod, rope, attn_mask, row_keep, state)  # [B, T, D]
        scale, shift = final_mod.chunk(2, dim=1)  # 2 x [B, D]
        h = modulate(h, shift, scale)  # [B, T, D]
        return self.proj_out(h).transpose(1, 2)  # [B, M_out, T]
