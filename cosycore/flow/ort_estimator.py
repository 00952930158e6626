"""The CosyVoice2 flow estimator as one ONNX Runtime graph, with its cached states as inputs (CPU).

Why. Every streamed flow call runs the U-Net estimator once per Euler step on the call's new
frames, with the attention keys/values and convolution tails of the earlier frames from the
stream's :class:`~cosycore.flow.cache.FlowCache`: a few thousand small operators per call in torch
eager. As one graph, ONNX Runtime fuses and schedules them itself. On the 2-core AVX2 development
machine draft's flow (4 steps, no CFG, every call cached) ran 1.37x faster in float32, the same
numbers up to float rounding (1.7e-6 on a full-size stream); fast's and exact's (the CFG pair, an
uncached final call over the whole utterance) only 1.06x, for about 1 GiB more peak memory, so only
draft uses it by default (:func:`cosycore.perf.quality_options`; docs/performance.md, issue 28,
fourth pass). Int8 matrix products (dynamic quantization) were measured and dropped: no faster than
float32 on this CPU (no VNNI) and 0.4 off.

The graph. :class:`CachedEstimatorGraph` exports :meth:`CausalConditionalDecoder.run_biased` with
everything that depends on the stream's position as an input (:mod:`.ort_graph`, shared with the
Fun-CosyVoice3 DiT's graph, :mod:`.ort_dit`): the additive attention bias ``[B, 1, T, S]`` (the chunk
rule, or all zeros for an uncached full-attention call), every attention layer's key and value buffers
(read in place, kept as float16) and every causal convolution's last ``kernel - 1`` input frames. An
uncached call (the exact final call, the conformance runs) is the same graph with no past.

Numbers: float32 arithmetic, the estimator's own math (the graph is traced from the same modules): an
uncached call equals torch's up to float rounding, so the original's recorded calls pass at the
conformance tolerances through it; the cached keys and values are float16 (:mod:`.ort_graph`).

Built once per flow weights (:mod:`cosycore.flow.ort_build`), kept in the user cache.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from .base import FlowModel
from .cache import StepCache
from .dit import DiT
from .ort_dit import DIT_GRAPH_VERSION, OrtDiT, export_dit_graph
from .ort_graph import GRAPH_FILE, KV_DTYPE, StatefulGraph, StatefulRunner, chunk_bias, export_graph, graph_key
from .unet import CausalConditionalDecoder, CausalConv1d, SelfAttention

logger = logging.getLogger(__name__)

GRAPH_VERSION = 3  # bump when the graph's inputs, outputs or math change: old cached graphs are then unused
FRAME_INPUTS = ("x", "mask", "mu", "t", "spks", "cond", "bias")
__all__ = ["GRAPH_FILE", "GRAPH_VERSION", "KV_DTYPE", "CachedEstimatorGraph", "OrtEstimator", "export_estimator_graph",
           "export_flow_graph", "flow_graph_key", "use_graph"]


def stateful_modules(est: CausalConditionalDecoder) -> tuple[list[SelfAttention], list[CausalConv1d]]:
    """The estimator's attention layers and causal convolutions, in module order (the graph's order)."""
    attn = [m for m in est.modules() if isinstance(m, SelfAttention)]
    convs = [m for m in est.modules() if isinstance(m, CausalConv1d) and m.causal_padding > 0]
    return attn, convs


class CachedEstimatorGraph(StatefulGraph):
    """The U-Net call of one Euler step, written for export (module docstring for the inputs)."""

    frame_inputs = FRAME_INPUTS

    def __init__(self, est: CausalConditionalDecoder) -> None:
        attn, convs = stateful_modules(est)
        super().__init__(list(attn), [(m, m.in_channels, m.causal_padding) for m in convs])
        self.est = est

    def velocity(self, frames: tuple[Tensor, ...], state: StepCache) -> Tensor:
        x, mask, mu, t, spks, cond, bias = frames
        h, temb = self.est.inputs(x, mu, t, spks, cond)
        return self.est.run_biased(h, mask, temb, bias, state)


def export_estimator_graph(est: CausalConditionalDecoder, folder: Path) -> Path:
    """Export ``est`` (float32, CPU) into ``folder/estimator.onnx`` (weights in a file beside it)."""
    graph = CachedEstimatorGraph(est)
    cfg = est.cfg
    b, t, p = 1, 2 * cfg.static_chunk_size, cfg.static_chunk_size
    c_in = est.final_proj.out_channels
    gen = torch.Generator().manual_seed(0)
    frames = [torch.randn(b, c_in, t, generator=gen), torch.ones(b, 1, t), torch.randn(b, c_in, t, generator=gen),
              torch.rand(b, generator=gen), torch.randn(b, c_in, generator=gen), torch.randn(b, c_in, t, generator=gen),
              torch.zeros(b, 1, t, p + t)]
    past = graph.example_past(b, p, cfg.num_heads, cfg.attention_head_dim, gen)
    dyn: dict[str, dict[int, str]] = {k: {0: "B", 2: "T"} for k in ("x", "mask", "mu", "cond", "v")}
    dyn |= {"t": {0: "B"}, "spks": {0: "B"}, "bias": {0: "B", 2: "T", 3: "S"}}
    return export_graph(graph, [*frames, *past], dyn, folder)


class OrtEstimator(StatefulRunner):
    """Calls shaped like the torch U-Net's (``cosycore.flow.cfm.Estimator``), run by ONNX Runtime.

    Cached calls (``state``) read the past keys/values and convolution tails from the StepCache and
    write the new ones into it, exactly where the torch path keeps them; uncached calls run the same
    graph with no past.
    """

    def __init__(self, path: Path, est: CausalConditionalDecoder, threads: int) -> None:
        cfg = est.cfg
        super().__init__(path, CachedEstimatorGraph(est), threads, cfg.num_heads, cfg.attention_head_dim)
        self.chunk = cfg.static_chunk_size

    def frame_feeds(self, x: Tensor, mask: Tensor, mu: Tensor, t: Tensor, spks: Tensor, cond: Tensor,
                    start: int, streaming: bool) -> dict[str, np.ndarray]:
        bias = chunk_bias(start, x.shape[2], self.chunk if streaming else None)  # [T, start + T]
        return {"x": x.numpy(), "mask": mask.numpy(), "mu": mu.numpy(), "t": t.numpy(), "spks": spks.numpy(),
                "cond": cond.numpy(), "bias": np.ascontiguousarray(np.broadcast_to(bias, (x.shape[0], 1, *bias.shape)))}


def estimator_of(flow: FlowModel) -> CausalConditionalDecoder | DiT | None:
    """The flow's estimator if it has a graph: the CosyVoice2 U-Net or the Fun-CosyVoice3 DiT."""
    est = flow.decoder.estimator
    return est if isinstance(est, CausalConditionalDecoder | DiT) else None


def _estimator(flow: FlowModel) -> CausalConditionalDecoder | DiT:
    est = estimator_of(flow)
    if est is None:
        raise ValueError(f"the {type(flow.decoder.estimator).__name__} estimator has no graph "
                         "(only the CosyVoice2 U-Net and the Fun-CosyVoice3 DiT)")
    return est


def export_flow_graph(flow: FlowModel, folder: Path) -> Path:
    """Export ``flow``'s estimator graph (U-Net or DiT) into ``folder``."""
    est = _estimator(flow)
    if isinstance(est, CausalConditionalDecoder):
        return export_estimator_graph(est, folder)
    return export_dit_graph(est, folder)


def flow_graph_key(flow: FlowModel, weights_file: Path) -> str:
    """The cache key of ``flow``'s estimator graph, made from ``weights_file`` (its ``flow.pt``)."""
    if isinstance(_estimator(flow), CausalConditionalDecoder):
        return graph_key(weights_file, GRAPH_VERSION)
    return graph_key(weights_file, DIT_GRAPH_VERSION, "dit-")


def use_graph(flow: FlowModel, path: Path, threads: int, *, release: bool = False) -> StatefulRunner:
    """Run ``flow``'s estimator calls through the graph at ``path`` from now on.

    ``release``: drop the torch estimator's weights that the graph holds its own copy of (285 MB for the
    CosyVoice2 release's); only while no request runs (at load)."""
    est = _estimator(flow)
    runner: StatefulRunner = (OrtEstimator(path, est, threads) if isinstance(est, CausalConditionalDecoder)
                              else OrtDiT(path, est, threads))
    flow.decoder.runtime_estimator = runner
    if release:
        flow.decoder.release_estimator_weights()
    return runner
