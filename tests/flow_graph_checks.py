"""What the flow estimator graph tests share (tests/test_flow_ort_estimator.py, tests/test_flow_ort_dit.py)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from cosycore.flow.cache import StepCache
from cosycore.flow.ort_estimator import KV_DTYPE


def cached_calls_both_ways(est: torch.nn.Module, runner: Callable[..., torch.Tensor],
                           inputs: Callable[[int, int], list[torch.Tensor]], chunk: int) -> tuple[StepCache, StepCache]:
    """Three cached streamed calls (2, 1 and 1 chunks + 5 frames; the last keeps nothing new) through torch's
    estimator and through the graph ``runner``, each call's output within a float16 rounding of torch's.
    ``inputs(frames, seed)`` makes a call's arguments. Torch's cache is stored as the graph stores it
    (KV_DTYPE), so both hold the same numbers; the graph's buffers are NaN past their length, so it must
    read only the positions in use. Returns the graph's state and torch's."""
    ours, theirs = StepCache(), StepCache()
    start = 0
    for i, frames in enumerate((2 * chunk, chunk, chunk + 5)):
        args = inputs(frames, 10 + i)
        for state in (ours, theirs):
            state.start, state.keep_new = start, i < 2
        for buf in theirs._kv.values():
            buf.convert(KV_DTYPE)
        with torch.inference_mode():
            want = est(*args, True, state=theirs)
        for buf in ours._kv.values():
            assert buf.k is not None and buf.v is not None
            buf.k[:, :, buf.length :] = float("nan")
            buf.v[:, :, buf.length :] = float("nan")
        assert i == 0 or any(b.k is not None and b.k.shape[2] > b.length for b in ours._kv.values())
        got = runner(*args, True, state=ours)
        assert float((got - want).abs().max()) < 5e-5, i  # a float16 rounding apart at most (1e-5 in float32)
        start += frames
    return ours, theirs
