"""Per-stream flow cache: streamed flow calls compute only the frames that are new.

Why it is possible. In a ``streaming=True`` call every attention uses chunk masks anchored at
frame 0 and every convolution is causal, so a frame never depends on later frames. The release
schedule ends every non-final call on a chunk boundary (the prompt is padded up to one), and the
fixed initial noise depends only on the absolute frame index. So the frames a call produced are
reproduced unchanged by every later call of the same stream: the same inputs at every layer and
every ODE step. What those frames contribute to later frames is their attention keys/values and
the last few inputs of each causal convolution; :class:`FlowCache` keeps exactly that, per layer
and per ODE step, and the next call runs the networks on its new frames only.

Cost: the per-call work is proportional to the new frames (plus attention over the cached keys),
instead of the whole prefix. Memory: the keys and values of every attention layer at every ODE
step, kept for the whole utterance (see :meth:`FlowCache.nbytes`; about 4.6 MB per mel frame for
the CosyVoice2 estimator and 3.6 MB for the Fun-CosyVoice3 DiT with the release's 10 steps and
CFG, a fifth of that with 4 steps and no CFG). The stream's last call keeps nothing
(``StepCache.keep_new``): its frames' states are used once, so the cache does not grow for them.

Ownership: one cache per stream, created and held by :class:`~cosycore.token2wav.Token2WavStream`,
never stored on a model. A stream may start from a clone of a prompt template (the prompt's own
frames, computed once per voice and flow setting: :func:`cosycore.token2wav.prompt_flow_cache`).
Shapes: B = batch (2 with CFG), H = heads, d = head width, S = capacity.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import torch
from torch import nn

logger = logging.getLogger(__name__)

GROW_STEP = 64  # key/value capacities are multiples of this many positions


class KVBuffer:
    """Keys and values of one attention layer in one pass, grown geometrically along dim 2.

    ``append`` writes the new positions in place and returns views of everything so far, so a
    long stream never re-concatenates its history.
    """

    def __init__(self) -> None:
        self.k: torch.Tensor | None = None  # [B, H, S, d]
        self.v: torch.Tensor | None = None  # [B, H, S, d]
        self.length = 0

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """k, v: [B, H, n, d] new positions -> all keys and values [B, H, length, d] (views)."""
        n = k.shape[2]
        end = self.length + n
        if self.k is None or self.v is None or end > self.k.shape[2]:
            self._grow(k, v, end)
        assert self.k is not None and self.v is not None
        self.k[:, :, self.length : end] = k
        self.v[:, :, self.length : end] = v
        self.length = end
        return self._as(self.k[:, :, :end], k), self._as(self.v[:, :, :end], v)

    @staticmethod
    def _as(stored: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        """``stored`` in ``like``'s dtype: a view, or a copy for states the estimator graph kept as float16."""
        return stored if stored.dtype == like.dtype else stored.to(like.dtype)

    def extended(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """k, v: [B, H, n, d] new positions -> all keys and values [B, H, length + n, d], without
        keeping the new ones (a stream's last call: nothing reads them afterwards, so the buffer
        does not grow for them; the copy is one layer's, freed after its attention)."""
        if self.k is None or self.v is None or self.length == 0:
            return k, v
        keys = torch.cat([self._as(self.k[:, :, : self.length], k), k], dim=2)  # [B, H, length + n, d]
        values = torch.cat([self._as(self.v[:, :, : self.length], v), v], dim=2)  # [B, H, length + n, d]
        return keys, values

    def _grow(self, k: torch.Tensor, v: torch.Tensor, need: int) -> None:
        # 25 % headroom: these buffers dominate the cache's memory, so waste is kept small; the
        # copies this costs (about 4x the final size in total) are cheap next to the estimator.
        old = 0 if self.k is None else self.k.shape[2]
        cap = -(-max(need, old * 5 // 4) // GROW_STEP) * GROW_STEP
        shape = (k.shape[0], k.shape[1], cap, k.shape[3])
        new_k = k.new_empty(shape)
        new_v = v.new_empty((v.shape[0], v.shape[1], cap, v.shape[3]))
        if self.k is not None and self.v is not None:
            new_k[:, :, : self.length] = self.k[:, :, : self.length]
            new_v[:, :, : self.length] = self.v[:, :, : self.length]
        self.k, self.v = new_k, new_v

    def nbytes(self) -> int:
        if self.k is None or self.v is None:
            return 0
        return self.k.nbytes + self.v.nbytes

    def convert(self, dtype: torch.dtype) -> None:
        """Keep the keys and values as ``dtype`` from now on (the flow estimator's graph stores float16)."""
        if self.k is not None and self.v is not None and self.k.dtype != dtype:
            self.k, self.v = self.k.to(dtype), self.v.to(dtype)

    def shrink(self) -> None:
        """Drop the spare capacity (a buffer that is kept but no longer grown, e.g. a prompt's)."""
        if self.k is not None and self.v is not None and self.k.shape[2] > self.length:
            self.k = self.k[:, :, : self.length].clone()
            self.v = self.v[:, :, : self.length].clone()

    def clone(self) -> KVBuffer:
        """An independent copy (the copy's appends never touch this buffer)."""
        out = KVBuffer()
        if self.k is not None and self.v is not None:
            out.k, out.v = self.k.clone(), self.v.clone()
        out.length = self.length
        return out


class StepCache:
    """Layer states of one network pass (the encoder, or the estimator at one ODE step).

    Keyed by module: attention layers keep a :class:`KVBuffer`, causal convolutions their last
    ``kernel - 1`` input frames. ``start`` is the number of frames (at the pass's own rate)
    already cached when the current call began; the driver sets it before each pass, and
    ``keep_new`` to False for the stream's last call, whose states would never be read again.
    """

    def __init__(self) -> None:
        self.start = 0
        self.keep_new = True
        self._kv: dict[nn.Module, KVBuffer] = {}
        self._history: dict[nn.Module, torch.Tensor] = {}

    def kv(self, module: nn.Module) -> KVBuffer:
        buf = self._kv.get(module)
        if buf is None:
            buf = self._kv[module] = KVBuffer()
        return buf

    def keys_values(self, module: nn.Module, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """k, v: [B, H, n, d] of ``module``'s new positions -> its keys and values so far, these
        included [B, H, S, d]; kept for later calls unless ``keep_new`` is off."""
        buf = self.kv(module)
        return buf.append(k, v) if self.keep_new else buf.extended(k, v)

    def with_history(self, module: nn.Module, x: torch.Tensor, keep: int) -> torch.Tensor:
        """x: [B, C, n] new frames -> [B, C, keep + n] with the ``keep`` frames before them in front.

        Before the first call the history is zeros, which is what a causal left pad supplies.
        """
        if keep == 0:
            return x
        prev = self._history.get(module)
        if prev is None:
            prev = x.new_zeros(x.shape[0], x.shape[1], keep)
        full = torch.cat([prev, x], dim=2)  # [B, C, keep + n]
        if self.keep_new:
            self._history[module] = full[:, :, -keep:].clone()
        return full

    def history(self, module: nn.Module) -> torch.Tensor | None:
        """The last input frames kept for ``module``'s causal convolution [B, C, keep], or None before any."""
        return self._history.get(module)

    def set_history(self, module: nn.Module, frames: torch.Tensor) -> None:
        """Keep ``frames`` [B, C, keep] as ``module``'s history (a runtime that computed it itself)."""
        self._history[module] = frames

    def nbytes(self) -> int:
        return sum(b.nbytes() for b in self._kv.values()) + sum(t.nbytes for t in self._history.values())

    def shrink(self) -> None:
        for buf in self._kv.values():
            buf.shrink()

    def clone(self) -> StepCache:
        out = StepCache()
        out.start = self.start
        out.keep_new = self.keep_new
        out._kv = {m: b.clone() for m, b in self._kv.items()}
        out._history = {m: t.clone() for m, t in self._history.items()}
        return out


@dataclass
class FlowCache:
    """What the streamed flow calls of one request leave for the next one.

    ``tokens`` counts the tokens (prompt included, look-ahead excluded) the encoder has cached,
    ``frames`` the frames whose estimator states are cached (``ratio * tokens`` until :meth:`freeze`).
    ``n_steps``, ``cfg_rate`` and ``autocast`` are fixed by the first call: the cached states belong
    to that ODE schedule. A cache is used once per call, in order, and only with
    ``streaming=True`` (full attention would let old frames see new ones).
    """

    tokens: int = 0
    frames: int = 0
    n_steps: int | None = None
    cfg_rate: float | None = None
    autocast: torch.dtype | None = None
    finished: bool = False
    encoder: StepCache = field(default_factory=StepCache)
    steps: list[StepCache] = field(default_factory=list)
    # Past its memory bound (:meth:`freeze`) the estimator's step states stop growing: ``frames`` stays
    # where it was, and every later call re-runs the frames after it (their encoder outputs are kept
    # in ``mu_tail``, [1, C, T_tail], a few hundred bytes per frame) over the cached states before it.
    frozen: bool = False
    mu_tail: torch.Tensor | None = None

    def freeze(self) -> None:
        """Stop growing the estimator's states (the encoder's, a few kB per token, still grow).

        The cache stays on: later calls attend to the frozen frames' cached keys and values and
        recompute only the frames after them, instead of the whole prefix, with the same numbers
        up to float rounding. The spare capacity of the frozen buffers is dropped.
        """
        if not self.frozen:
            self.frozen = True
            for step in self.steps:
                step.shrink()

    def bind(self, n_steps: int, cfg_rate: float, autocast: torch.dtype | None = None) -> None:
        """Fix the ODE schedule (and autocast dtype) on first use; later calls must use the same."""
        if self.n_steps is None:
            self.n_steps, self.cfg_rate, self.autocast = n_steps, cfg_rate, autocast
            self.steps = [StepCache() for _ in range(n_steps)]
        elif (self.n_steps, self.cfg_rate, self.autocast) != (n_steps, cfg_rate, autocast):
            raise ValueError(
                f"this flow cache was filled with {self.n_steps} steps, CFG {self.cfg_rate} and autocast "
                f"{self.autocast}; a call with {n_steps} steps, CFG {cfg_rate} and autocast {autocast} "
                "cannot reuse it"
            )

    def nbytes(self) -> int:
        """Memory held by the cached states."""
        tail = 0 if self.mu_tail is None else self.mu_tail.nbytes
        return self.encoder.nbytes() + sum(s.nbytes() for s in self.steps) + tail

    def shrink(self) -> None:
        """Drop the key/value buffers' spare capacity, one buffer at a time (a voice's prompt states:
        kept as they are, so the capacity for growth would be memory never used)."""
        self.encoder.shrink()
        for step in self.steps:
            step.shrink()

    def clone(self) -> FlowCache:
        """An independent copy: a stream can continue from it while this one stays as it is
        (a voice's prompt states, reused by every request with that voice)."""
        if self.finished:
            raise ValueError("a finished flow cache cannot be continued, so it is not cloned")
        return FlowCache(tokens=self.tokens, frames=self.frames, n_steps=self.n_steps, cfg_rate=self.cfg_rate,
                         autocast=self.autocast, finished=False, encoder=self.encoder.clone(),
                         steps=[s.clone() for s in self.steps], frozen=self.frozen,
                         mu_tail=None if self.mu_tail is None else self.mu_tail.clone())
