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
everything that depends on the stream's position as an input: the additive attention bias
``[B, 1, T, S]`` (the chunk rule, or all zeros for an uncached full-attention call), and for every
attention layer its key and value buffers ``[B, H, capacity, d]`` (the graph reads their first P =
S - T positions, so a call copies none of the stream's history) and for every causal convolution its last
``kernel - 1`` input frames ``[B, C, k - 1]``. Its outputs are the velocity and each layer's new keys,
values and convolution tail, which :class:`OrtEstimator` writes into the same
:class:`~cosycore.flow.cache.StepCache` the torch path uses, so a stream can mix the two. Batch,
frames and past length are dynamic. An uncached call (the exact final call, the conformance runs)
is the same graph with no past.

Numbers: float32 arithmetic, the estimator's own math (the graph is traced from the same modules): an
uncached call equals torch's up to float rounding, so the original's recorded calls pass at the
conformance tolerances through it. The stream's keys and values are stored as float16
(:data:`KV_DTYPE`: half the flow cache's memory, and twice the frames under its bound); a call reads
them back as float32. That moves a cached draft stream's mel by about 1e-3 against torch's float32
cache, next to draft's own 0.4 from exact; exact and fast do not use the graph.

Built once per flow weights (:mod:`cosycore.flow.ort_build`), kept in the user cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn

from ..graph_cache import cpu_session
from .base import FlowModel
from .cache import StepCache
from .unet import MASK_BIAS, CausalConditionalDecoder, CausalConv1d, SelfAttention

logger = logging.getLogger(__name__)

GRAPH_VERSION = 3  # bump when the graph's inputs, outputs or math change: old cached graphs are then unused
GRAPH_FILE = "estimator.onnx"
FRAME_INPUTS = ("x", "mask", "mu", "t", "spks", "cond", "bias")
# The stream's cached keys and values, in and out of the graph: float16 halves the flow cache (draft's
# 304 MB for 5 s of speech after a 3 s prompt) for a rounding of 5e-4 relative; attention still runs in float32.
KV_DTYPE = torch.float16


def stateful_modules(est: CausalConditionalDecoder) -> tuple[list[SelfAttention], list[CausalConv1d]]:
    """The estimator's attention layers and causal convolutions, in module order (the graph's order)."""
    attn = [m for m in est.modules() if isinstance(m, SelfAttention)]
    convs = [m for m in est.modules() if isinstance(m, CausalConv1d) and m.causal_padding > 0]
    return attn, convs


class _GraphState(StepCache):
    """A StepCache whose past comes from graph inputs and whose new states become graph outputs."""

    def __init__(self, past_k: dict[nn.Module, Tensor], past_v: dict[nn.Module, Tensor],
                 history: dict[nn.Module, Tensor], past: int | Tensor) -> None:
        super().__init__()
        self.past_k, self.past_v, self.past_history = past_k, past_v, history
        self.past = past  # positions of past_k/past_v in use: the buffers may hold spare capacity after them
        self.new_k: dict[nn.Module, Tensor] = {}
        self.new_v: dict[nn.Module, Tensor] = {}
        self.new_history: dict[nn.Module, Tensor] = {}

    def keys_values(self, module: nn.Module, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        self.new_k[module], self.new_v[module] = k.to(KV_DTYPE), v.to(KV_DTYPE)  # as the cache keeps them
        p = self.past
        # the stored past (float16) in float32, then this call's own positions at full precision
        return (torch.cat([self.past_k[module][:, :, :p].to(k.dtype), k], dim=2),
                torch.cat([self.past_v[module][:, :, :p].to(v.dtype), v], dim=2))

    def with_history(self, module: nn.Module, x: Tensor, keep: int) -> Tensor:
        full = torch.cat([self.past_history[module], x], dim=2)  # [B, C, keep + n]
        self.new_history[module] = full[:, :, full.shape[2] - keep:]
        return full


class CachedEstimatorGraph(nn.Module):
    """The estimator call of one Euler step, written for export (module docstring for the inputs)."""

    def __init__(self, est: CausalConditionalDecoder) -> None:
        super().__init__()
        self.est = est
        self.attn, self.convs = stateful_modules(est)

    def input_names(self) -> list[str]:
        n, c = len(self.attn), len(self.convs)
        return [*FRAME_INPUTS, *(f"past_k{i}" for i in range(n)), *(f"past_v{i}" for i in range(n)),
                *(f"hist{i}" for i in range(c))]

    def output_names(self) -> list[str]:
        n, c = len(self.attn), len(self.convs)
        return ["v", *(f"new_k{i}" for i in range(n)), *(f"new_v{i}" for i in range(n)),
                *(f"new_hist{i}" for i in range(c))]

    def forward(self, x: Tensor, mask: Tensor, mu: Tensor, t: Tensor, spks: Tensor, cond: Tensor,
                bias: Tensor, *past: Tensor) -> tuple[Tensor, ...]:
        n = len(self.attn)
        # The past positions in use: the bias covers them and the new frames. Traced from the shapes,
        # so the graph slices each fed key/value buffer [B, H, capacity, d] itself (no copy per call).
        state = _GraphState(dict(zip(self.attn, past[:n], strict=True)),
                            dict(zip(self.attn, past[n:2 * n], strict=True)),
                            dict(zip(self.convs, past[2 * n:], strict=True)),
                            bias.shape[3] - x.shape[2])
        h, temb = self.est.inputs(x, mu, t, spks, cond)
        v = self.est.run_biased(h, mask, temb, bias, state)
        missing = [m for m in self.attn if m not in state.new_k] + [m for m in self.convs if m not in state.new_history]
        if missing:
            raise RuntimeError(f"{len(missing)} stateful layers did not run through the state; "
                               "the graph would drop their states")
        return (v, *(state.new_k[m] for m in self.attn), *(state.new_v[m] for m in self.attn),
                *(state.new_history[m] for m in self.convs))


def export_estimator_graph(est: CausalConditionalDecoder, folder: Path) -> Path:
    """Export ``est`` (float32, CPU) into ``folder/estimator.onnx`` (weights in a file beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    graph = CachedEstimatorGraph(est).eval()
    cfg = est.cfg
    b, t, p = 1, 2 * cfg.static_chunk_size, cfg.static_chunk_size
    heads, dh = cfg.num_heads, cfg.attention_head_dim
    c_in = est.final_proj.out_channels
    gen = torch.Generator().manual_seed(0)
    frames = [torch.randn(b, c_in, t, generator=gen), torch.ones(b, 1, t), torch.randn(b, c_in, t, generator=gen),
              torch.rand(b, generator=gen), torch.randn(b, c_in, generator=gen), torch.randn(b, c_in, t, generator=gen),
              torch.zeros(b, 1, t, p + t)]
    spare = 3  # the key/value buffers hold spare capacity after their P positions: the graph slices
    past = ([torch.randn(b, heads, p + spare, dh, generator=gen).to(KV_DTYPE) for _ in range(2 * len(graph.attn))]
            + [torch.randn(b, m.in_channels, m.causal_padding, generator=gen) for m in graph.convs])
    names, outs = graph.input_names(), graph.output_names()
    dyn: dict[str, dict[int, str]] = {k: {0: "B", 2: "T"} for k in ("x", "mask", "mu", "cond", "v")}
    dyn |= {"t": {0: "B"}, "spks": {0: "B"}, "bias": {0: "B", 2: "T", 3: "S"}}
    for i in range(len(graph.attn)):
        dyn |= {f"past_k{i}": {0: "B", 2: "capacity"}, f"past_v{i}": {0: "B", 2: "capacity"},
                f"new_k{i}": {0: "B", 2: "T"}, f"new_v{i}": {0: "B", 2: "T"}}
    for i in range(len(graph.convs)):
        dyn |= {f"hist{i}": {0: "B"}, f"new_hist{i}": {0: "B"}}
    path = folder / GRAPH_FILE
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python values
        torch.onnx.export(graph, (*frames, *past), str(path), input_names=names, output_names=outs,
                          opset_version=18, dynamic_axes=dyn, dynamo=False, external_data=True)
    return path


def graph_key(weights_file: Path) -> str:
    """Cache key of the graph of ``weights_file``: its size, time, first and last MiB, the graph's
    version and ONNX Runtime's. Cheap (no full read)."""
    import onnxruntime

    st = weights_file.stat()
    h = hashlib.sha256(f"{GRAPH_VERSION}|{onnxruntime.__version__}|{st.st_size}|{st.st_mtime_ns}".encode())
    with open(weights_file, "rb") as f:
        h.update(f.read(1 << 20))
        if st.st_size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            h.update(f.read(1 << 20))
    return f"v{GRAPH_VERSION}-f32-{h.hexdigest()[:20]}"


def _empty(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, dtype=np.float32)


class OrtEstimator:
    """Calls shaped like the torch estimator's (``cosycore.flow.cfm.Estimator``), run by ONNX Runtime.

    Cached calls (``state``) read the past keys/values and convolution tails from the StepCache and
    write the new ones into it, exactly where the torch path keeps them; uncached calls run the same
    graph with no past. Only numpy between ONNX Runtime's operators: a torch operator inside the call
    would wake torch's OpenMP threads, which spin beside ONNX Runtime's on the same cores.
    """

    def __init__(self, path: Path, est: CausalConditionalDecoder, threads: int) -> None:
        self.path = Path(path)
        # No memory arena: a call's attention reads the stream's past, so its intermediates grow with the
        # stream, and the arena would keep the largest for good (measured: draft's peak 2.49 against 2.73 GiB).
        self.session = cpu_session(path, threads, memory_arena=False)
        self.attn, self.convs = stateful_modules(est)
        names = [i.name for i in self.session.get_inputs()]
        if names != CachedEstimatorGraph(est).input_names():
            raise ValueError(f"{path} is not an estimator graph of this flow (its inputs differ)")
        cfg = est.cfg
        self.heads, self.head_dim, self.chunk = cfg.num_heads, cfg.attention_head_dim, cfg.static_chunk_size
        self.calls = 0

    def _bias(self, batch: int, start: int, rows: int, streaming: bool) -> np.ndarray:
        """[B, 1, rows, start + rows]: 0 where a key is allowed, MASK_BIAS elsewhere (``unet.attention_bias``)."""
        keys = start + rows
        if not streaming:
            return np.zeros((batch, 1, rows, keys), dtype=np.float32)
        limit = (np.arange(start, keys) // self.chunk + 1) * self.chunk  # [rows]
        allowed = np.arange(keys)[None, :] < limit[:, None]  # [rows, keys]
        bias = np.where(allowed, np.float32(0.0), np.float32(MASK_BIAS)).astype(np.float32)
        return np.ascontiguousarray(np.broadcast_to(bias, (batch, 1, rows, keys)))

    def __call__(self, x: Tensor, mask: Tensor, mu: Tensor, t: Tensor, spks: Tensor, cond: Tensor,
                 streaming: bool = False, state: StepCache | None = None) -> Tensor:
        b, _, n = x.shape
        if x.dtype != torch.float32:
            raise ValueError("the estimator graph runs in float32")
        feeds: dict[str, np.ndarray] = {"x": x.numpy(), "mask": mask.numpy(), "mu": mu.numpy(), "t": t.numpy(),
                                        "spks": spks.numpy(), "cond": cond.numpy()}
        if state is None:
            if not bool(mask.numpy().all()):
                raise ValueError("the estimator graph runs unpadded batches only (the engine's)")
            feeds["bias"] = self._bias(b, 0, n, streaming)
        else:
            if not streaming:
                raise ValueError("a cached estimator call needs streaming=True (chunk masks)")
            feeds["bias"] = self._bias(b, state.start, n, True)
        none = np.zeros((b, self.heads, 0, self.head_dim), dtype=np.float16)
        past = 0 if state is None else state.start
        for i, m in enumerate(self.attn):
            buf = state.kv(m) if state is not None else None
            if buf is None or buf.k is None or buf.v is None or buf.length == 0:
                used = 0
                feeds[f"past_k{i}"] = feeds[f"past_v{i}"] = none
            else:
                # The whole buffer, spare capacity included: the graph reads its first ``past``
                # positions, so no copy of the stream's keys and values is made per call.
                used = buf.length
                buf.convert(KV_DTYPE)  # once, for states torch left in float32 (a template made earlier)
                feeds[f"past_k{i}"] = np.ascontiguousarray(buf.k.numpy())
                feeds[f"past_v{i}"] = np.ascontiguousarray(buf.v.numpy())
            if used != past:
                raise ValueError(f"attention layer {i} caches {used} positions where the call starts at {past}")
        for i, conv in enumerate(self.convs):
            prev = state.history(conv) if state is not None else None
            feeds[f"hist{i}"] = (_empty((b, conv.in_channels, conv.causal_padding)) if prev is None
                                 else np.ascontiguousarray(prev.numpy()))
        out = self.session.run(None, feeds)
        self.calls += 1
        if state is not None and state.keep_new:
            na = len(self.attn)
            for i, m in enumerate(self.attn):
                state.kv(m).append(torch.from_numpy(out[1 + i]), torch.from_numpy(out[1 + na + i]))
            for i, conv in enumerate(self.convs):
                state.set_history(conv, torch.from_numpy(out[1 + 2 * na + i]))
        return torch.from_numpy(out[0])


def estimator_of(flow: FlowModel) -> CausalConditionalDecoder | None:
    """The flow's U-Net estimator, or None for a flow without one (the Fun-CosyVoice3 DiT)."""
    est = flow.decoder.estimator
    return est if isinstance(est, CausalConditionalDecoder) else None


def use_graph(flow: FlowModel, path: Path, threads: int, *, release: bool = False) -> OrtEstimator:
    """Run ``flow``'s estimator calls through the graph at ``path`` from now on.

    ``release``: drop the torch estimator's weights (285 MB for the release's), since the graph holds
    its own copy; only while no request runs (at load)."""
    est = estimator_of(flow)
    if est is None:
        raise ValueError("only the CosyVoice2 U-Net estimator has a graph")
    runner = OrtEstimator(path, est, threads)
    flow.decoder.runtime_estimator = runner
    if release:
        flow.decoder.release_estimator_weights()
    return runner
