"""The speech LM's key/value cache: preallocated per stream, written in place (gpt-fast style).

Shapes: the legend of :mod:`cosycore.lm.speech_lm`.
"""

from __future__ import annotations

import logging

import torch

logger = logging.getLogger(__name__)


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

