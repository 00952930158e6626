"""Token-id inputs of the speech LM: the accepted forms and the special ids the LM checks for."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from ..errors import InputError

ENDOFPROMPT_ID = 151646  # <|endofprompt|>: CosyVoice3 requires it in prompt_text ++ text
TokenIds = Sequence[int] | Tensor | np.ndarray


def as_ids(ids: TokenIds | None, what: str) -> Tensor:
    """Token ids (list, 1-D or [1, L] tensor) as a 1-D int64 CPU tensor."""
    if ids is None:
        return torch.zeros(0, dtype=torch.long)
    t = torch.as_tensor(ids).detach().cpu() if not isinstance(ids, Tensor) else ids.detach().cpu()
    if t.dim() == 2 and t.shape[0] == 1:
        t = t[0]  # [1, L] -> [L]
    if t.dim() != 1 or (t.numel() and t.is_floating_point()):
        raise InputError(f"{what} must be a flat list of integer token ids, got shape {tuple(t.shape)}")
    return t.long()

