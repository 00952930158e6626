"""Speech language model of CosyVoice2 (``Qwen2LM``) and Fun-CosyVoice3 (``CosyVoice3LM``).

:class:`SpeechLM` owns the weights: a Qwen2 decoder written out here (RMSNorm, grouped-query
attention with rotate-half RoPE, SwiGLU), the speech-token embedding and the ``llm_decoder`` head.
It owns no per-request state. Each stream creates its own preallocated :class:`KVCache` with
:meth:`SpeechLM.new_cache` and hands it to :meth:`SpeechLM.prefill` and
:meth:`SpeechLM.decode_one_token`, gpt-fast style: positions ``0..n`` are contiguous, keys and
values are written in place, and nothing is reallocated or concatenated while decoding.

Two decoding entry points: :meth:`SpeechLM.generate` (unistream: the whole text is known) and
:meth:`SpeechLM.generate_bistream` (text ids arrive while speech is generated, interleaved 5:15 by
a :class:`BistreamDecoder`; its KV cache grows with :meth:`KVCache.reserve`).

Shape legend:
    B   batch (1 for synthesis)
    T   positions fed in this call (the whole prompt at prefill, 1 while decoding)
    S   KV-cache capacity (positions preallocated for one stream)
    P   key positions attended to (S for a static cache, filled length otherwise)
    D   model width (Qwen ``hidden_size``)
    H   query heads; K key/value heads; G = H // K query heads sharing one key/value head
    Dh  head dim
    L   decoder layers
    I   SwiGLU width
    V   speech vocabulary (6564 CosyVoice2, 6761 Fun-CosyVoice3)
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..config import QWEN_DIR, LLMConfig, ModelConfig, QwenConfig, load_model_config
from ..conformance.checks import CheckResult, compare
from ..devices import resolve_device
from ..errors import ConfigMismatchError, ConformanceError, InputError
from ..weights import StateDict, assign_state_dict, load_checkpoint, normalize_keys
from .quant import Int8Embedding, int8_linear, parse_llm_quant, replace_linears

logger = logging.getLogger(__name__)

EosRule = Literal["upstream", "all_specials"]
ENDOFPROMPT_ID = 151646  # <|endofprompt|>: CosyVoice3 requires it in prompt_text ++ text
LM_HEAD_KEY = "llm.model.lm_head.weight"  # tied copy of embed_tokens in llm.pt; never used for TTS
EMBED_KEY = "qwen.embed_tokens.weight"  # after weights.normalize_keys
TokenIds = Sequence[int] | Tensor | np.ndarray


# --------------------------------------------------------------------------------------------
# Qwen2 building blocks
# --------------------------------------------------------------------------------------------


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


def _static_context(input_pos: Tensor, cos: Tensor, sin: Tensor, capacity: int) -> AttnContext:
    """Attend over the whole cache, masking the positions after each query (fixed shapes)."""
    key_pos = torch.arange(capacity, device=input_pos.device)  # [S]
    mask = key_pos[None, :] <= input_pos[:, None]  # [T, S]
    return AttnContext(input_pos, cos[input_pos], sin[input_pos], None, mask, False)


def _sliced_context(input_pos: Tensor, cos: Tensor, sin: Tensor, start: int) -> AttnContext:
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
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.num_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.rope = RopeTables(cfg.head_dim, cfg.rope_theta)

    def run(self, x: Tensor, ctx: AttnContext, cache: KVCache | None) -> Tensor:
        """x: [B, T, D] -> hidden [B, T, D], writing keys/values into ``cache`` when given."""
        for i, layer in enumerate(self.layers):
            kv = None if cache is None else (cache.k[i], cache.v[i])
            x = layer(x, ctx, kv)
        return self.norm(x)


# --------------------------------------------------------------------------------------------
# KV cache
# --------------------------------------------------------------------------------------------


class KVCache:
    """Keys and values of every layer for one stream, preallocated once.

    Owned by the caller (one per synthesis request), never by the model. ``length`` is the number
    of positions filled; positions are contiguous from 0. With ``static=True`` every step attends
    over the whole capacity through a mask, so decode shapes never change (CUDA graphs,
    ``torch.compile(mode="reduce-overhead")``); otherwise steps attend to the filled prefix only,
    which is cheaper in eager mode.
    """

    def __init__(self, num_layers: int, num_kv_heads: int, head_dim: int, capacity: int, *,
                 device: torch.device | str, dtype: torch.dtype = torch.float32,
                 static: bool = False) -> None:
        if capacity <= 0:
            raise ValueError(f"KV-cache capacity must be positive, got {capacity}")
        shape = (num_layers, 1, num_kv_heads, capacity, head_dim)  # [L, B, K, S, Dh]
        with torch.inference_mode(False):
            self.k = torch.zeros(shape, device=device, dtype=dtype)
            self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.length = 0
        self.static = static

    @property
    def capacity(self) -> int:
        return int(self.k.shape[3])

    def reset(self) -> None:
        """Forget every position (the memory is kept for the next request)."""
        self.length = 0

    def reserve(self, capacity: int) -> None:
        """Grow to at least ``capacity`` positions, keeping the filled ones (never shrinks).

        Used when the final length is not known in advance (bistream text, a cache reused across
        sentences). Growing reallocates, so callers grow geometrically.
        """
        if capacity <= self.capacity:
            return
        shape = (*self.k.shape[:3], capacity, self.k.shape[4])  # [L, B, K, S', Dh]
        with torch.inference_mode(False):
            k = self.k.new_zeros(shape)
            v = self.v.new_zeros(shape)
            k[:, :, :, : self.length] = self.k[:, :, :, : self.length]
            v[:, :, :, : self.length] = self.v[:, :, :, : self.length]
        self.k, self.v = k, v
        logger.debug("KV cache grown to %d positions", capacity)


# --------------------------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------------------------


class Sampler(Protocol):
    """Picks the next token from log-probabilities ``scores`` [V] given the tokens so far."""

    def __call__(self, scores: Tensor, decoded: Sequence[int], generator: torch.Generator) -> int: ...


def nucleus_candidates(probs: Tensor, top_p: float, top_k: int) -> tuple[Tensor, Tensor]:
    """Ids and (unnormalised) probabilities kept by the nucleus rule.

    Walk the probabilities in descending order (stable sort: ties keep the lower id first) and
    keep an entry while the mass kept *before* it is below ``top_p`` and fewer than ``top_k`` are
    kept, so the entry that crosses ``top_p`` is included.
    """
    sorted_p, sorted_ids = torch.sort(probs, descending=True, stable=True)  # [V]
    head_p = sorted_p[:top_k]  # [<=top_k]
    mass_before = torch.cumsum(head_p, dim=0) - head_p  # [<=top_k]
    n_keep = max(1, int((mass_before < top_p).sum()))
    return sorted_ids[:n_keep], head_p[:n_keep]


def nucleus_sample(scores: Tensor, top_p: float, top_k: int, generator: torch.Generator) -> int:
    """Sample from the nucleus of ``softmax(scores)`` without renormalising it."""
    ids, kept = nucleus_candidates(scores.float().softmax(dim=-1), top_p, top_k)
    return int(ids[torch.multinomial(kept, 1, replacement=True, generator=generator)])


def random_sample(scores: Tensor, generator: torch.Generator) -> int:
    """Sample from the full ``softmax(scores)`` (no top-k, no top-p, temperature 1)."""
    return int(torch.multinomial(scores.float().softmax(dim=-1), 1, replacement=True, generator=generator))


@dataclass(frozen=True)
class RasSampler:
    """Repetition-aware sampling (VALL-E 2), the release's ``ras_sampling``.

    Draw from the nucleus; if that token occurs at least ``win_size * tau_r`` times among the last
    ``win_size`` decoded tokens (once, with the release values), draw again from the full
    distribution with that token removed.
    """

    top_p: float = 0.8  # nucleus mass
    top_k: int = 25  # nucleus size cap
    win_size: int = 10  # repetition window
    tau_r: float = 0.1  # repetition ratio; threshold = win_size * tau_r

    @classmethod
    def from_config(cls, cfg: LLMConfig) -> RasSampler:
        return cls(top_p=cfg.top_p, top_k=cfg.top_k, win_size=cfg.win_size, tau_r=cfg.tau_r)

    def __call__(self, scores: Tensor, decoded: Sequence[int], generator: torch.Generator) -> int:
        tok = nucleus_sample(scores, self.top_p, self.top_k, generator)
        window = list(decoded[-self.win_size :]) if self.win_size > 0 else []
        if window.count(tok) >= self.win_size * self.tau_r:
            scores = scores.clone()
            scores[tok] = -float("inf")
            tok = random_sample(scores, generator)
        return tok


def greedy_sampler(scores: Tensor, decoded: Sequence[int], generator: torch.Generator) -> int:
    """Argmax (first index on ties); used by the conformance checks."""
    del decoded, generator
    return int(torch.argmax(scores))


# --------------------------------------------------------------------------------------------
# The speech LM
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeacherForced:
    """Per-step outputs of a teacher-forced run (step 0 is the prefill)."""

    step_inputs: Tensor  # [N, D] embeddings fed at steps 1..N
    hidden: Tensor  # [N+1, D] final-norm hidden state at the last position
    logits: Tensor  # [N+1, V] llm_decoder output
    scores: Tensor  # [N+1, V] log-softmax, stop ids masked on steps < min_len


def _as_ids(ids: TokenIds | None, what: str) -> Tensor:
    """Token ids (list, 1-D or [1, L] tensor) as a 1-D int64 CPU tensor."""
    if ids is None:
        return torch.zeros(0, dtype=torch.long)
    t = torch.as_tensor(ids).detach().cpu() if not isinstance(ids, Tensor) else ids.detach().cpu()
    if t.dim() == 2 and t.shape[0] == 1:
        t = t[0]  # [1, L] -> [L]
    if t.dim() != 1 or (t.numel() and t.is_floating_point()):
        raise InputError(f"{what} must be a flat list of integer token ids, got shape {tuple(t.shape)}")
    return t.long()


class SpeechLM(nn.Module):
    """The speech-token language model of one release (CosyVoice2 or Fun-CosyVoice3).

    Holds the weights only; per-stream state lives in a :class:`KVCache` owned by the caller.
    Parameter names follow ``llm.pt`` after :func:`cosycore.weights.normalize_keys`
    (``llm.model.model.*`` -> ``qwen.*``).
    """

    def __init__(self, cfg: LLMConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.qwen.hidden_size
        self.qwen = Qwen2Decoder(cfg.qwen)
        if cfg.family == "cosyvoice2":
            self.llm_embedding = nn.Embedding(2, d)  # row 0 = sos, row 1 = task_id
        self.speech_embedding = nn.Embedding(cfg.speech_vocab_size, d)
        self.llm_decoder = nn.Linear(d, cfg.speech_vocab_size, bias=cfg.decoder_bias)
        self._stop_ids = frozenset(cfg.stop_token_ids)
        self._compiled_step: Callable[[Tensor, AttnContext, KVCache], Tensor] | None = None
        self.quantization: str | None = None  # None = the exact float weights; see quantize_int8

    # ---- input assembly ----------------------------------------------------------------

    def _special_embedding(self, which: Literal["sos", "task_id"]) -> Tensor:
        row = self.cfg.sos_index if which == "sos" else self.cfg.task_id_index
        table = self.llm_embedding if self.cfg.family == "cosyvoice2" else self.speech_embedding
        return table.weight[row : row + 1]  # [1, D]

    def _check_ids(self, text: Tensor, speech: Tensor) -> None:
        vocab = self.cfg.qwen.vocab_size
        if text.numel() and (int(text.min()) < 0 or int(text.max()) >= vocab):
            raise InputError(
                f"text token ids must lie in [0, {vocab}); got {int(text.min())}..{int(text.max())}"
            )
        n = self.cfg.speech_token_size
        if speech.numel() and (int(speech.min()) < 0 or int(speech.max()) >= n):
            raise InputError(
                f"prompt speech tokens must lie in [0, {n}); got {int(speech.min())}..{int(speech.max())}"
            )
        if self.cfg.family == "cosyvoice3" and not bool((text == ENDOFPROMPT_ID).any()):
            raise InputError(
                "Fun-CosyVoice3 needs the <|endofprompt|> token (id 151646) in the prompt text or the "
                "text, e.g. 'You are a helpful assistant.<|endofprompt|>' before the transcript."
            )

    @torch.inference_mode()
    def build_lm_input(self, text_ids: TokenIds, prompt_text_ids: TokenIds | None = None,
                       prompt_speech_ids: TokenIds | None = None) -> Tensor:
        """``[sos] ++ embed(prompt_text ++ text) ++ [task_id] ++ speech_embedding(prompt_speech)``.

        Returns the prefill embeddings [1, T0, D].
        """
        text = torch.cat((_as_ids(prompt_text_ids, "prompt_text_ids"), _as_ids(text_ids, "text_ids")))
        speech = _as_ids(prompt_speech_ids, "prompt_speech_ids")
        self._check_ids(text, speech)
        device = self.speech_embedding.weight.device
        parts = [
            self._special_embedding("sos"),
            self.qwen.embed_tokens(text.to(device)),  # [Lp+Lt, D]
            self._special_embedding("task_id"),
            self.speech_embedding(speech.to(device)),  # [P, D]
        ]
        return torch.cat(parts, dim=0).unsqueeze(0)  # [1, T0, D]

    def length_limits(self, num_text_tokens: int) -> tuple[int, int]:
        """``(min_len, max_len)`` of the decode loop, from the target text only (prompt excluded)."""
        return (int(num_text_tokens * self.cfg.min_token_text_ratio),
                int(num_text_tokens * self.cfg.max_token_text_ratio))

    # ---- forward passes ----------------------------------------------------------------

    def new_cache(self, max_len: int, device: torch.device | str | None = None,
                  dtype: torch.dtype = torch.float32, *, static: bool = False) -> KVCache:
        """A KV cache for one stream with room for ``max_len`` positions (prompt included)."""
        dev = torch.device(device) if device is not None else self.speech_embedding.weight.device
        q = self.cfg.qwen
        cache = KVCache(q.num_layers, q.num_kv_heads, q.head_dim, max_len,
                        device=dev, dtype=dtype, static=static)
        self.qwen.rope.get(max_len, cache.k.device)  # build the RoPE table now, not mid-stream
        return cache

    def _cached_context(self, t: int, cache: KVCache, device: torch.device) -> AttnContext:
        start = cache.length
        if start + t > cache.capacity:
            raise InputError(
                f"the KV cache holds {cache.capacity} positions and {start} are used; {t} more do not fit"
            )
        cos, sin = self.qwen.rope.get(cache.capacity, device)
        input_pos = torch.arange(start, start + t, device=device)  # [T]
        if cache.static:
            return _static_context(input_pos, cos, sin, cache.capacity)
        return _sliced_context(input_pos, cos, sin, start)

    def _forward_cached(self, x: Tensor, cache: KVCache) -> Tensor:
        ctx = self._cached_context(x.shape[1], cache, x.device)
        return self.qwen.run(x, ctx, cache)

    def _run_layers(self, x: Tensor, ctx: AttnContext, cache: KVCache) -> Tensor:
        """The part of a cached pass that :meth:`compile_decode` compiles: tensors in, tensors out."""
        return self.qwen.run(x, ctx, cache)

    def forward(self, x_embeds: Tensor) -> Tensor:
        """Plain causal pass without a cache: [B, T, D] embeddings -> [B, T, D] hidden states."""
        t = x_embeds.shape[1]
        cos, sin = self.qwen.rope.get(t, x_embeds.device)
        pos = torch.arange(t, device=x_embeds.device)  # [T]
        ctx = AttnContext(pos, cos[:t], sin[:t], None, None, t > 1)
        return self.qwen.run(x_embeds, ctx, None)

    @torch.inference_mode()
    def extend(self, x_embeds: Tensor, cache: KVCache) -> Tensor:
        """Append ``x_embeds`` [B, T, D] at the cache's next positions; hidden states [B, T, D]."""
        if self._compiled_step is not None and cache.static:
            # The context (Python checks, positions as a tensor) is built outside the compiled
            # region, so one graph serves every position of a static cache.
            ctx = self._cached_context(x_embeds.shape[1], cache, x_embeds.device)
            h = self._compiled_step(x_embeds, ctx, cache)
        else:
            h = self._forward_cached(x_embeds, cache)
        cache.length += x_embeds.shape[1]
        return h

    def prefill(self, x_embeds: Tensor, cache: KVCache) -> Tensor:
        """Feed the prompt [B, T0, D]; returns the last position's hidden state [B, D]."""
        return self.extend(x_embeds, cache)[:, -1]

    def decode_one_token(self, x_embed: Tensor, cache: KVCache) -> Tensor:
        """Feed one embedding ([B, D] or [B, 1, D]); returns its hidden state [B, D]."""
        if x_embed.dim() == 2:
            x_embed = x_embed.unsqueeze(1)  # [B, D] -> [B, 1, D]
        return self.extend(x_embed, cache)[:, -1]

    def compile_decode(self, **compile_kwargs: Any) -> None:
        """Route passes over a static cache (``new_cache(..., static=True)``) through ``torch.compile``.

        Opt-in; compiling takes a while, once per input length (prefill lengths vary, each decode
        step has length 1). On CUDA, ``mode="reduce-overhead"`` also captures CUDA graphs. Passes
        over ordinary caches stay eager.
        """
        self._compiled_step = torch.compile(self._run_layers, **compile_kwargs)

    def quantize_int8(self, mode: str = "int8", *, embeddings: bool = True) -> None:
        """Swap the Qwen2 linear layers and ``llm_decoder`` for int8 versions, in place (CPU only).

        A speed option, off by default: the outputs are no longer the exact ones (see
        :mod:`cosycore.lm.quant` for the kernels and README "Performance" for the measured error).
        ``mode`` is ``"int8"`` (the dynamic kernel, fastest), ``"int8-dynamic"`` or
        ``"int8-weight-only"``. ``embeddings`` also stores the 151936-row text-token table as int8
        rows (about 400 MB less memory). The speech-token table and the sos/task_id rows stay
        float32. Cannot be undone; load the model again for exact outputs.
        """
        if self.quantization is not None:
            raise ValueError(f"this LM is already quantized ({self.quantization})")
        scheme = parse_llm_quant(mode)
        for layer in self.qwen.layers:  # fewer, larger int8 products: q/k/v and gate/up fused
            assert isinstance(layer, DecoderLayer)
            layer.self_attn.fuse()
            layer.mlp.fuse()
        n = replace_linears(self.qwen, scheme, skip=("embed_tokens",))
        # setattr: the attributes are declared as nn.Linear / nn.Embedding; the int8 modules are drop-ins.
        setattr(self, "llm_decoder", int8_linear(self.llm_decoder, scheme))  # noqa: B010
        if embeddings:
            setattr(self.qwen, "embed_tokens", Int8Embedding(self.qwen.embed_tokens))  # noqa: B010
        self.quantization = mode
        logger.info("LM quantized: %d linear layers + llm_decoder as int8 (%s)%s", n, scheme,
                    ", text embeddings as int8 rows" if embeddings else "")

    # ---- scores ------------------------------------------------------------------------

    def logits(self, hidden: Tensor) -> Tensor:
        """Speech-token logits [.., V] from final hidden states [.., D]."""
        return self.llm_decoder(hidden)

    def scores(self, logits: Tensor, *, ignore_eos: bool, eos_rule: EosRule) -> Tensor:
        """Log-probabilities (float32), with stop ids masked to -inf while ``ignore_eos``.

        ``eos_rule="upstream"`` masks only id ``speech_token_size`` (6561), as the original does
        today: that is eos for CosyVoice2 but *sos* for Fun-CosyVoice3, whose real eos (6562)
        stays sampleable. ``"all_specials"`` masks every id >= 6561, the intended rule.
        """
        logp = torch.log_softmax(logits.float(), dim=-1)
        if ignore_eos:
            n = self.cfg.speech_token_size
            if eos_rule == "upstream":
                logp[..., n] = -float("inf")
            else:
                logp[..., n:] = -float("inf")
        return logp

    @torch.inference_mode()
    def teacher_force(self, lm_input: Tensor, forced_tokens: TokenIds, *, min_len: int,
                      eos_rule: EosRule = "upstream") -> TeacherForced:
        """Prefill ``lm_input`` [1, T0, D], then feed ``forced_tokens`` one per step."""
        forced = _as_ids(forced_tokens, "forced_tokens").tolist()
        cache = self.new_cache(lm_input.shape[1] + len(forced))
        hidden = [self.prefill(lm_input, cache)]  # each [1, D]
        inputs = []
        for tok in forced:
            x = self.speech_embedding.weight[tok : tok + 1]  # [1, D]
            inputs.append(x)
            hidden.append(self.decode_one_token(x, cache))
        h = torch.cat(hidden, dim=0)  # [N+1, D]
        logits = self.logits(h)  # [N+1, V]
        ignore = torch.arange(len(hidden)) < min_len
        scores = torch.stack([self.scores(logits[i], ignore_eos=bool(ignore[i]), eos_rule=eos_rule)
                              for i in range(len(hidden))])  # [N+1, V]
        step_inputs = torch.cat(inputs, dim=0) if inputs else lm_input.new_zeros(0, lm_input.shape[-1])
        return TeacherForced(step_inputs, h, logits, scores)

    # ---- generation --------------------------------------------------------------------

    @torch.inference_mode()
    def generate(self, text_ids: TokenIds, prompt_text_ids: TokenIds | None = None,
                 prompt_speech_ids: TokenIds | None = None, *, sampler: Sampler | None = None,
                 greedy: bool = False, seed: int | None = None, generator: torch.Generator | None = None,
                 min_len: int | None = None, max_len: int | None = None,
                 eos_rule: EosRule = "all_specials", cache: KVCache | None = None) -> Iterator[int]:
        """Yield speech tokens one at a time (unistream zero-shot / cross-lingual / instruct2).

        ``sampler`` defaults to :class:`RasSampler` from the config (``greedy=True`` uses argmax).
        ``seed`` seeds a private generator, so a run is reproducible without touching the global
        RNG. ``min_len``/``max_len`` default to 2x / 20x the target text length. Decoding stops at
        any stop id (not yielded) or silently after ``max_len`` tokens.

        ``eos_rule`` defaults to ``"all_specials"``: while ``i < min_len`` every id >= 6561 is
        masked, because those are eos/fill/unused ids in both families and none may end or
        interrupt a unistream run early. ``"upstream"`` reproduces the original, which masks only
        id 6561; that is the sos id for Fun-CosyVoice3, so its eos could still end a run before
        ``min_len``. Use ``"upstream"`` only to reproduce reference outputs.

        A ``cache`` passed in (for example one reused across the sentences of a request) is reset
        and grown when this request needs more positions.
        """
        text = _as_ids(text_ids, "text_ids")
        if text.numel() == 0:
            raise InputError("the text to synthesise produced no tokens")
        lo, hi = self.length_limits(int(text.numel()))
        min_len = lo if min_len is None else min_len
        max_len = hi if max_len is None else max_len
        lm_input = self.build_lm_input(text, prompt_text_ids, prompt_speech_ids)
        need = lm_input.shape[1] + max(max_len, 1)
        if cache is None:
            cache = self.new_cache(need)
        else:
            cache.reset()
            cache.reserve(need)
            self.qwen.rope.get(cache.capacity, cache.k.device)
        pick = greedy_sampler if greedy else (sampler or RasSampler.from_config(self.cfg))
        gen = generator or self._generator(seed, lm_input.device)
        yield from self._decode_loop(lm_input, cache, pick, gen, min_len, max_len, eos_rule)

    def _generator(self, seed: int | None, device: torch.device) -> torch.Generator:
        gen = torch.Generator(device=device)
        if seed is None:
            gen.seed()
        else:
            gen.manual_seed(seed)
        return gen

    def _decode_loop(self, lm_input: Tensor, cache: KVCache, pick: Sampler, gen: torch.Generator,
                     min_len: int, max_len: int, eos_rule: EosRule) -> Iterator[int]:
        h = self.prefill(lm_input, cache)  # [1, D]
        decoded: list[int] = []
        for i in range(max_len):
            scores = self.scores(self.logits(h[0]), ignore_eos=i < min_len, eos_rule=eos_rule)  # [V]
            tok = pick(scores, decoded, gen)
            if tok in self._stop_ids:
                logger.debug("stop token %d after %d speech tokens", tok, len(decoded))
                return
            decoded.append(tok)
            yield tok
            if i + 1 < max_len:
                h = self.decode_one_token(self.speech_embedding.weight[tok : tok + 1], cache)
        logger.debug("max_len %d reached", max_len)

    @torch.inference_mode()
    def generate_bistream(self, text_ids: Iterable[int], prompt_text_ids: TokenIds | None = None,
                          prompt_speech_ids: TokenIds | None = None, *, sampler: Sampler | None = None,
                          greedy: bool = False, seed: int | None = None,
                          generator: torch.Generator | None = None, min_len: int = 0,
                          max_len: int | None = None, trace: list[tuple[str, int]] | None = None,
                          ) -> Iterator[int]:
        """Yield speech tokens while text ids are still arriving (the release's bistream mode).

        ``text_ids`` is any iterable of target-text ids, pulled lazily (for example the tokens of
        an LLM's reply as it is written). Text and speech are interleaved with the release's
        ``mix_ratio`` (5 text : 15 speech): a group of 5 text tokens, then 15 speech tokens (the
        prompt's first, then generated ones); after each generated group the model is told
        ``fill`` and waits for the next 5 text tokens. When the text ends, the rest of the text,
        ``task_id`` and any prompt speech not yet placed are appended and decoding runs until eos.
        See :class:`BistreamDecoder` for the deliberate differences from the original.

        ``min_len`` holds eos back until that many tokens were yielded; ``max_len`` bounds the
        total (default: 20x the target text tokens, applied once the text has ended). ``trace``,
        when given, receives the layout as ``(kind, count)`` runs: sos, system, text,
        prompt_speech, speech, fill (not fed, only marked), task_id.
        """
        pick = greedy_sampler if greedy else (sampler or RasSampler.from_config(self.cfg))
        device = self.speech_embedding.weight.device
        gen = generator or self._generator(seed, device)
        decoder = BistreamDecoder(self, _as_ids(prompt_text_ids, "prompt_text_ids"),
                                  _as_ids(prompt_speech_ids, "prompt_speech_ids"), pick, gen, trace,
                                  max_len=max_len)
        for tok in text_ids:
            yield from decoder.push_text(int(tok))
            if decoder.at_limit:
                logger.debug("bistream max_len %d reached while text was still arriving", max_len)
                return
        yield from decoder.finish(min_len=min_len)


class BistreamDecoder:
    """State of one bistream decode: what is fed, what waits, and the interleaving schedule.

    Created and owned by :meth:`SpeechLM.generate_bistream` for one request. ``pending`` holds
    embeddings not yet in the KV cache; everything in the cache is fed exactly once. The schedule
    is kept as the number of speech tokens placed since the last text group (``group_speech``).

    Deliberate differences from the original ``inference_bistream`` (spec §3.6):

    * the last speech token is never fed twice: the original re-feeds it when the text ends
      (quirk i); here it waits in ``pending`` and is fed once, together with what follows it;
    * prompt speech tokens left over when the text ends before they were all interleaved are
      placed after ``task_id`` (the unistream layout) instead of being dropped (quirk ii);
    * CosyVoice3 without prompt speech (cross-lingual, instruct) waits for 5 text tokens before
      decoding, as CosyVoice2 does; the original starts decoding with no target text because its
      test counts the system prompt as input (quirk iii);
    * fill is never sampled, only forced after each group of 15; other special ids are masked
      while interleaving and, after the text ends, every special except eos is masked, so no
      stray special can raise an error mid-stream (quirk iv);
    * when the prompt speech fills its last group exactly (P a multiple of 15), the next group
      waits for new text; the original's ``next_fill_index`` formula generates a whole group
      there without any text of its own;
    * the final phase is bounded by ``max_len`` (default 20x the target text); the original has
      no limit, so a model that never emits eos would never stop;
    * the forced fill costs no forward pass: the last speech token of a group is fed together
      with the next text group (the same attention, one call fewer).
    """

    def __init__(self, lm: SpeechLM, prompt_text: Tensor, prompt_speech: Tensor, pick: Sampler,
                 gen: torch.Generator, trace: list[tuple[str, int]] | None, *, max_len: int | None = None) -> None:
        self.lm = lm
        self.max_len = max_len  # explicit cap on yielded tokens; None = 20x the target text at the end
        self.cfg = lm.cfg
        self.n_text, self.n_speech = lm.cfg.mix_ratio
        self.pick = pick
        self.gen = gen
        self.trace = trace
        self.pending: list[Tensor] = []  # each [k, D], not yet in the cache
        self.text: collections.deque[int] = collections.deque()  # text ids waiting for their group
        self.prompt_speech: collections.deque[int] = collections.deque(prompt_speech.tolist())
        self.group_speech: int | None = None  # speech placed since the last text group; None before one
        self.decoded: list[int] = []  # outputs incl. forced fills (RAS window and schedule, as the original)
        self.yielded = 0
        self.target_tokens = 0
        self.cache = lm.new_cache(256)
        lm._check_ids(prompt_text, prompt_speech)
        self._place("sos", lm._special_embedding("sos"))
        self.text.extend(self._split_system(prompt_text).tolist())

    # -- feeding --------------------------------------------------------------------------
    def _mark(self, kind: str, count: int) -> None:
        if self.trace is None or count == 0:
            return
        if self.trace and self.trace[-1][0] == kind:
            self.trace[-1] = (kind, self.trace[-1][1] + count)
        else:
            self.trace.append((kind, count))

    def _place(self, kind: str, emb: Tensor) -> None:
        """Queue embeddings [k, D] to be fed at the next forward pass."""
        if emb.shape[0]:
            self.pending.append(emb)
            self._mark(kind, int(emb.shape[0]))

    def _text_emb(self, ids: list[int]) -> Tensor:
        t = torch.tensor(ids, dtype=torch.long, device=self.lm.speech_embedding.weight.device)
        return self.lm.qwen.embed_tokens(t)  # [k, D]

    def _speech_emb(self, ids: list[int]) -> Tensor:
        t = torch.tensor(ids, dtype=torch.long, device=self.lm.speech_embedding.weight.device)
        return self.lm.speech_embedding(t)  # [k, D]

    def _split_system(self, prompt_text: Tensor) -> Tensor:
        """CosyVoice3: feed the prompt text up to its first ``<|endofprompt|>`` at once; return the rest."""
        if self.cfg.family != "cosyvoice3":
            return prompt_text
        hits = (prompt_text == ENDOFPROMPT_ID).nonzero()
        if hits.numel() == 0:
            raise InputError(
                "Fun-CosyVoice3 bistream needs <|endofprompt|> (id 151646) in the prompt text, e.g. "
                "'You are a helpful assistant.<|endofprompt|>'."
            )
        end = int(hits[0, 0]) + 1
        self._place("system", self._text_emb(prompt_text[:end].tolist()))
        return prompt_text[end:]

    def _forward(self) -> Tensor:
        """Feed everything pending; the last position's hidden state [D]."""
        x = torch.cat(self.pending, dim=0).unsqueeze(0)  # [1, T, D]
        self.pending = []
        need = self.cache.length + x.shape[1]
        if need > self.cache.capacity:
            self.cache.reserve(max(need, 2 * self.cache.capacity))
            self.lm.qwen.rope.get(self.cache.capacity, self.cache.k.device)
        return self.lm.extend(x, self.cache)[0, -1]

    @property
    def at_limit(self) -> bool:
        return self.max_len is not None and self.yielded >= self.max_len

    # -- the interleaved phase ------------------------------------------------------------
    def _check_text_id(self, tok: int) -> None:
        vocab = self.cfg.qwen.vocab_size
        if not 0 <= tok < vocab:
            raise InputError(f"text token ids must lie in [0, {vocab}); got {tok}")

    def push_text(self, tok: int) -> Iterator[int]:
        """One more target-text id; yields the speech tokens that became due."""
        self._check_text_id(tok)
        self.text.append(tok)
        self.target_tokens += 1
        while len(self.text) >= self.n_text and self.group_speech in (None, self.n_speech):
            if self._start_group() < self.n_speech and not self.prompt_speech:
                yield from self._decode_group()

    def _start_group(self) -> int:
        """Place the next 5 text tokens and as much prompt speech as fits; speech placed in the group."""
        ids = [self.text.popleft() for _ in range(self.n_text)]
        self._place("text", self._text_emb(ids))
        take = min(self.n_speech, len(self.prompt_speech))
        speech = [self.prompt_speech.popleft() for _ in range(take)]
        if speech:
            self._place("prompt_speech", self._speech_emb(speech))
        self.group_speech = take
        return take

    def _interleaved_scores(self, h: Tensor) -> Tensor:
        return self.lm.scores(self.lm.logits(h), ignore_eos=True, eos_rule="all_specials")  # [V]

    def _decode_group(self) -> Iterator[int]:
        """Generate speech until the group holds 15, then mark fill (not fed, not yielded)."""
        assert self.group_speech is not None
        while self.group_speech < self.n_speech:
            if self.at_limit:
                return
            tok = self.pick(self._interleaved_scores(self._forward()), self.decoded, self.gen)
            self.decoded.append(tok)
            self.yielded += 1
            self.group_speech += 1
            self._place("speech", self._speech_emb([tok]))
            yield tok
        self.decoded.append(self.cfg.fill_token)
        self._mark("fill", 1)

    # -- after the text ends --------------------------------------------------------------
    def _final_scores(self, h: Tensor, allow_eos: bool) -> Tensor:
        logp = torch.log_softmax(self.lm.logits(h).float(), dim=-1)  # [V]
        eos = self.cfg.eos_token
        keep = logp[eos].clone()
        logp[self.cfg.speech_token_size :] = -float("inf")
        if allow_eos:
            logp[eos] = keep
        return logp

    def finish(self, *, min_len: int = 0) -> Iterator[int]:
        """The text has ended: place its rest, task_id and leftover prompt speech; decode to eos."""
        if self.target_tokens == 0:
            raise InputError("the text stream ended without any text to speak")
        limit = self.max_len if self.max_len is not None else int(self.target_tokens * self.cfg.max_token_text_ratio)
        rest = list(self.text)
        self.text.clear()
        if rest:
            self._place("text", self._text_emb(rest))
        self._place("task_id", self.lm._special_embedding("task_id"))
        if self.prompt_speech:
            self._place("prompt_speech", self._speech_emb(list(self.prompt_speech)))
            self.prompt_speech.clear()
        while self.yielded < limit:
            scores = self._final_scores(self._forward(), allow_eos=self.yielded >= min_len)
            tok = self.pick(scores, self.decoded, self.gen)
            if tok == self.cfg.eos_token:
                logger.debug("bistream eos after %d speech tokens", self.yielded)
                return
            self.decoded.append(tok)
            self.yielded += 1
            self._place("speech", self._speech_emb([tok]))
            yield tok
        logger.debug("bistream max_len %d reached", limit)


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def _drop_tied_head(sd: StateDict, source: Path) -> StateDict:
    """Remove the tied ``lm_head`` copy, checking (cheaply) that it equals ``embed_tokens``."""
    head = sd.get(LM_HEAD_KEY)
    if head is None:
        return sd
    out = {k: v for k, v in sd.items() if k != LM_HEAD_KEY}
    embed = out.get(EMBED_KEY)
    if embed is None or head.shape != embed.shape:
        logger.warning("%s: lm_head has shape %s but embed_tokens does not match; ignored (unused)",
                       source, tuple(head.shape))
        return out
    shared = head.untyped_storage().data_ptr() == embed.untyped_storage().data_ptr() and (
        head.storage_offset() == embed.storage_offset() and head.stride() == embed.stride()
    )
    if not shared:
        rows = torch.linspace(0, head.shape[0] - 1, 64).long()  # a sample: a full compare pages in 1 GB
        if not torch.equal(head[rows], embed[rows].to(head.dtype)):
            logger.warning("%s: lm_head is not a copy of embed_tokens; ignored (TTS never uses it)", source)
    return out


def _layer_count(sd: StateDict) -> int:
    idx = {int(k.split(".")[2]) for k in sd if k.startswith("qwen.layers.") and k.split(".")[2].isdigit()}
    return max(idx) + 1 if idx else 0


def _config_mismatches(sd: StateDict, q: QwenConfig) -> list[str]:
    """``config.json says X, llm.pt has Y`` items, read from tensor shapes only."""
    found: list[str] = []

    def check(name: str, want: int, key: str, dim: int) -> None:
        if key in sd and int(sd[key].shape[dim]) != want:
            found.append(f"{name}={want}, llm.pt has {int(sd[key].shape[dim])}")

    check("vocab_size", q.vocab_size, EMBED_KEY, 0)
    check("hidden_size", q.hidden_size, EMBED_KEY, 1)
    n_layers = _layer_count(sd)
    if n_layers and n_layers != q.num_layers:
        found.append(f"num_hidden_layers={q.num_layers}, llm.pt has {n_layers}")
    layer0 = "qwen.layers.0."
    check("num_attention_heads*head_dim", q.num_heads * q.head_dim, layer0 + "self_attn.q_proj.weight", 0)
    check("num_key_value_heads*head_dim", q.num_kv_heads * q.head_dim, layer0 + "self_attn.k_proj.weight", 0)
    check("intermediate_size", q.intermediate_size, layer0 + "mlp.gate_proj.weight", 0)
    return found


def _check_against_config(sd: StateDict, cfg: LLMConfig, ckpt: Path, config_json: str,
                          yaml_name: str) -> None:
    items = _config_mismatches(sd, cfg.qwen)
    if items:
        raise ConfigMismatchError(
            f"{config_json} and {ckpt} disagree: " + "; ".join(f"config.json says {s}" for s in items)
            + ". The two files come from different models; download the release folder again."
        )
    rows = sd.get("speech_embedding.weight")
    if rows is not None and int(rows.shape[0]) != cfg.speech_vocab_size:
        raise ConfigMismatchError(
            f"{yaml_name} describes a {cfg.family} LM with {cfg.speech_vocab_size} speech-token rows, "
            f"but {ckpt} has {int(rows.shape[0])}; the llm.pt belongs to the other model family."
        )


def load_llm(cfg: ModelConfig | LLMConfig, path: Path | str | None = None, *,
             device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32,
             quantize: str | None = None) -> SpeechLM:
    """Build :class:`SpeechLM` on the meta device and fill it from ``llm.pt`` (strict, no copy).

    ``quantize="int8"`` (CPU only) swaps the linear layers for int8 ones after loading
    (:meth:`SpeechLM.quantize_int8`); ``None``, the default, keeps the exact float weights.

    ``path`` defaults to ``<model_dir>/llm.pt`` when ``cfg`` is a :class:`ModelConfig`. Raises
    :class:`ConfigMismatchError` when ``CosyVoice-BlankEN/config.json`` (or the yaml) disagrees
    with the checkpoint's shapes, and :class:`StateDictMismatchError` for missing/extra keys.
    """
    llm_cfg = cfg.llm if isinstance(cfg, ModelConfig) else cfg
    if path is None:
        if not isinstance(cfg, ModelConfig):
            raise ValueError("load_llm needs the llm.pt path when given an LLMConfig")
        path = cfg.model_dir / "llm.pt"
    path = Path(path)
    if isinstance(cfg, ModelConfig):
        config_json, yaml_name = str(cfg.qwen_dir / "config.json"), cfg.yaml_path.name or f"{cfg.family}.yaml"
    else:
        config_json, yaml_name = f"{QWEN_DIR}/config.json", f"{llm_cfg.family}.yaml"
    dev = resolve_device(device)
    sd = _drop_tied_head(normalize_keys(load_checkpoint(path), "llm"), path)
    _check_against_config(sd, llm_cfg, path, config_json, yaml_name)
    with torch.device("meta"):
        model = SpeechLM(llm_cfg)
    assign_state_dict(model, sd, path)
    model = model.to(device=dev, dtype=dtype).eval()
    model.requires_grad_(False)
    if quantize is not None:
        model.quantize_int8(quantize)
    logger.info("loaded %s LM from %s (%d layers, width %d) on %s as %s", llm_cfg.family, path,
                llm_cfg.qwen.num_layers, llm_cfg.qwen.hidden_size, dev, dtype)
    return model


# --------------------------------------------------------------------------------------------
# Conformance: compare with the original implementation's reference/llm.npz
# --------------------------------------------------------------------------------------------

LLM_ATOL = 1e-4  # lm_input, hidden states, logits, finite log-probs (conformance README)
LLM_RTOL = 1e-4
_REFERENCE_ARRAYS = ("text", "prompt_text", "prompt_speech_token", "forced_tokens", "lm_input",
                     "tf_step_input", "tf_hidden_last", "tf_logits", "tf_scores", "tf_logp_of_forced",
                     "min_len_max_len", "greedy_tokens", "greedy_last_argmax")


class _RecordingGreedy:
    """Argmax sampler that remembers its last pick (the stop id, when a run ends on one)."""

    def __init__(self) -> None:
        self.last = -1

    def __call__(self, scores: Tensor, decoded: Sequence[int], generator: torch.Generator) -> int:
        self.last = greedy_sampler(scores, decoded, generator)
        return self.last


def _load_llm_reference(ref_npz: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(ref_npz) as z:
            ref = {k: z[k] for k in z.files}
    except FileNotFoundError as e:
        raise ConformanceError(f"{ref_npz} does not exist") from e
    missing = [k for k in _REFERENCE_ARRAYS if k not in ref]
    if missing:
        raise ConformanceError(f"{ref_npz} lacks the arrays {', '.join(missing)}")
    return ref


def _teacher_forced_checks(model: SpeechLM, ref: dict[str, np.ndarray], lm_input: Tensor,
                           min_len: int) -> list[CheckResult]:
    forced = ref["forced_tokens"].astype(np.int64)
    tf = model.teacher_force(lm_input, forced, min_len=min_len, eos_rule="upstream")
    logp_forced = tf.scores[torch.arange(len(forced)), torch.as_tensor(forced)]  # [N]
    return [
        compare("tf_step_input", tf.step_inputs, ref["tf_step_input"], LLM_ATOL, LLM_RTOL),
        compare("tf_hidden_last", tf.hidden, ref["tf_hidden_last"], LLM_ATOL, LLM_RTOL),
        compare("tf_logits", tf.logits, ref["tf_logits"], LLM_ATOL, LLM_RTOL),
        compare("tf_scores", tf.scores, ref["tf_scores"], LLM_ATOL, LLM_RTOL),
        compare("tf_logp_of_forced", logp_forced, ref["tf_logp_of_forced"], LLM_ATOL, LLM_RTOL),
    ]


def _greedy_checks(model: SpeechLM, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    recorder = _RecordingGreedy()
    tokens = list(model.generate(ref["text"], ref["prompt_text"], ref["prompt_speech_token"],
                                 sampler=recorder, eos_rule="upstream"))
    return [
        compare("greedy_tokens", np.asarray(tokens, dtype=np.int64), ref["greedy_tokens"].astype(np.int64)),
        compare("greedy_last_argmax", np.asarray([recorder.last], dtype=np.int64),
                ref["greedy_last_argmax"].astype(np.int64)),
    ]


def check_llm_reference(model_dir: Path | str, ref_npz: Path | str | None = None, *,
                        model: SpeechLM | None = None) -> list[CheckResult]:
    """Compare every array of ``llm.npz`` with this module's output (CPU, float32).

    Rebuilds the LM input, runs the teacher-forced steps and the greedy decode with the
    ``"upstream"`` min-length rule (the one the reference was made with), and returns one
    :class:`~cosycore.conformance.checks.CheckResult` per array. ``ref_npz`` defaults to
    ``<model_dir>/reference/llm.npz``; pass ``model`` to reuse a loaded LM.
    """
    model_dir = Path(model_dir)
    ref = _load_llm_reference(Path(ref_npz) if ref_npz is not None else model_dir / "reference" / "llm.npz")
    if model is None:
        model = load_llm(load_model_config(model_dir))
    lm_input = model.build_lm_input(ref["text"], ref["prompt_text"], ref["prompt_speech_token"])  # [1, T0, D]
    min_len, max_len = model.length_limits(int(np.asarray(ref["text"]).size))
    results = [
        compare("lm_input", lm_input[0], ref["lm_input"], LLM_ATOL, LLM_RTOL),
        compare("min_len_max_len", np.asarray([min_len, max_len], dtype=np.int64),
                ref["min_len_max_len"].astype(np.int64)),
    ]
    results += _teacher_forced_checks(model, ref, lm_input, min_len)
    results += _greedy_checks(model, ref)
    return results
