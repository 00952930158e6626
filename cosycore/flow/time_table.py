"""The DiT's time conditioning, computed once for a fixed ODE schedule (a memory option).

Why it is possible. The Fun-CosyVoice3 DiT is conditioned on the ODE time ``t`` through its time
embedding, one AdaLN-Zero linear per block (``D -> 6D``) and the final norm's (``D -> 2D``). These
depend on ``t`` only, and the sampler passes the same ``t`` values in every call with the same
settings (:meth:`~cosycore.flow.cfm.CFMSampler.estimator_times`). A model loaded for one setting
(draft: 4 steps, no CFG) can therefore compute them once per step and drop the weights that make
them: 142 M parameters (22 x 6.3 M of them AdaLN), 0.57 GB in float32, 43 % of the release flow, for a
table of 2 MB.

The table holds what the weights would give, computed by the same modules on the same inputs in
the same autocast setting, so the estimator's output is the one it would compute from the
weights (``tests/test_flow_time_table.py``). A ``t`` outside the table is refused with a
:class:`~cosycore.errors.FlowSettingsError`: a model fixed to one setting runs only that one.

Shapes: B = estimator batch (1, or 2 with CFG), D = model width, L = blocks (``depth``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..errors import FlowSettingsError

TimeKey = tuple[float, ...]


def _autocast_dtype(device_type: str) -> torch.dtype | None:
    """The autocast dtype in effect for ``device_type`` here, or None."""
    if not torch.is_autocast_enabled(device_type):
        return None
    return torch.get_autocast_dtype(device_type)


def time_key(t: torch.Tensor) -> TimeKey:
    """The table key of an estimator's ``t`` input [B]: its values, exactly."""
    return tuple(float(v) for v in t.detach().flatten().tolist())


class TimeTable(nn.Module):
    """Per ODE time: the blocks' AdaLN modulations [L, B, 6D] and the final norm's [B, 2D].

    Owned by the :class:`~cosycore.flow.dit.DiT` it was computed from; the tensors are
    non-persistent buffers, so they follow the model's ``.to(device)`` and stay out of its state dict.
    A cast of the model (``.to(torch.float32)`` after loading) casts them too; they are handed out in
    the dtype they were computed in (bfloat16 under autocast), which that cast does not change.
    """

    def __init__(self, entries: Sequence[tuple[torch.Tensor, Sequence[torch.Tensor], torch.Tensor]],
                 autocast: torch.dtype | None, description: str) -> None:
        """entries: (t [B], the blocks' modulations L x [B, 6D], the final one [B, 2D]) per ODE time."""
        super().__init__()
        self.autocast = autocast
        self.description = description  # the flow setting, for messages
        self._index: dict[TimeKey, int] = {}
        self.dtype = entries[0][2].dtype if entries else torch.float32  # as computed (bfloat16 under autocast)
        for i, (t, blocks, final) in enumerate(entries):
            self._index[time_key(t)] = i
            self.register_buffer(f"blocks_{i}", torch.stack(list(blocks)), persistent=False)  # [L, B, 6D]
            self.register_buffer(f"final_{i}", final.clone(), persistent=False)  # [B, 2D]

    def __len__(self) -> int:
        return len(self._index)

    def lookup(self, t: torch.Tensor) -> tuple[tuple[torch.Tensor, ...], torch.Tensor]:
        """t [B] -> (L x [B, 6D], [B, 2D]), as computed for that ``t`` and autocast setting."""
        i = self._index.get(time_key(t))
        autocast = _autocast_dtype(t.device.type)
        if i is None or autocast != self.autocast:
            raise FlowSettingsError(
                f"this flow was loaded for one flow setting only ({self.description}), and this call "
                f"(t = {time_key(t)}, autocast {autocast}) is not part of it. Load the model again "
                "without the fixed setting (or with this one) to use other flow steps."
            )
        blocks: torch.Tensor = getattr(self, f"blocks_{i}").to(self.dtype)  # no-op unless the model was cast
        final: torch.Tensor = getattr(self, f"final_{i}").to(self.dtype)
        return blocks.unbind(0), final

    def nbytes(self) -> int:
        return sum(b.nbytes for b in self.buffers())
