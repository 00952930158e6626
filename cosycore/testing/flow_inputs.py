"""Random inputs of one flow call, for tests and benchmarks: speech tokens, prompt tokens, prompt mel
and speaker embedding, in the release's sizes (6561 speech tokens, 80 mel bins, 2 mel frames per
token, a 192-wide embedding)."""

from __future__ import annotations

import torch

SPEECH_TOKENS = 6561


def random_flow_inputs(prompt: int, generated: int, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """(token [1, generated], prompt_token [1, prompt], prompt_feat [1, 2 * prompt, 80], embedding [1, 192])."""
    g = torch.Generator().manual_seed(seed)
    pt = torch.randint(0, SPEECH_TOKENS, (1, prompt), generator=g, dtype=torch.int32)
    tok = torch.randint(0, SPEECH_TOKENS, (1, generated), generator=g, dtype=torch.int32)
    feat = torch.randn(1, 2 * prompt, 80, generator=g)
    emb = torch.randn(1, 192, generator=g)
    return tok, pt, feat, emb
