"""Attention masks of the flow model.

Chunk masks are anchored at frame 0 of the whole (prompt + generated) sequence: position ``i`` sees
every position up to the end of its own chunk, with full left context. That anchoring is what makes
chunked streaming reproduce a single streaming pass when hops fall on chunk boundaries.
"""

from __future__ import annotations

import torch


# Close port of CosyVoice (Apache-2.0) utils/mask.py, from WeNet (Apache-2.0); see NOTICE.
def chunk_mask(length: int, chunk: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Boolean [L, L] mask, True where query ``i`` may attend key ``j``: ``j < (i // chunk + 1) * chunk``."""
    idx = torch.arange(length, device=device)
    limit = (idx // chunk + 1) * chunk  # [L]
    return idx[None, :] < limit[:, None]


def attention_mask(length: int, chunk: int | None, device: torch.device | str | None = None) -> torch.Tensor | None:
    """Mask for batch-1 inference: a chunk mask when streaming, else ``None`` (attend everywhere).

    Upstream also folds in a padding mask, which is all-true for batch 1, and forces all-false rows
    to all-true; neither can happen without padding.
    """
    if chunk is None or chunk <= 0:
        return None
    return chunk_mask(length, chunk, device)


def chunk_mask_rows(start: int, rows: int, keys: int, chunk: int,
                    device: torch.device | str | None = None) -> torch.Tensor:
    """The rows ``start .. start + rows - 1`` of :func:`chunk_mask` over keys ``0 .. keys - 1``: [rows, keys].

    Used by cached streaming calls, whose queries are only the new positions at the end.
    """
    q = torch.arange(start, start + rows, device=device)  # [rows]
    limit = (q // chunk + 1) * chunk  # [rows]
    return torch.arange(keys, device=device)[None, :] < limit[:, None]
