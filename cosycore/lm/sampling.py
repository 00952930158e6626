"""Picking the next speech token: nucleus sampling, CosyVoice's repetition-aware sampling (RAS), greedy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor

from ..config import LLMConfig


class Sampler(Protocol):
    """Picks the next token from log-probabilities ``scores`` [V] given the tokens so far."""

    def __call__(self, scores: Tensor, decoded: Sequence[int], generator: torch.Generator) -> int: ...


# Close port of CosyVoice (Apache-2.0) utils/common.py (nucleus_sampling); see NOTICE.
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


# Close port of CosyVoice (Apache-2.0) utils/common.py (ras_sampling); see NOTICE.
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

