"""What the flow estimators' ONNX Runtime graphs share: the cached states as inputs and outputs (CPU).

Both estimators (the CosyVoice2 U-Net, :mod:`.ort_estimator`; the Fun-CosyVoice3 DiT, :mod:`.ort_dit`)
are exported with everything that depends on the stream's position as a graph input: for every
attention layer its key and value buffers ``[B, H, capacity, d]`` (the graph reads their first P =
S - T positions, so a call copies none of the stream's history), for every causal convolution its
last ``keep`` input frames ``[B, C, keep]``, and the attention bias rows of the new frames (the chunk
rule) over all S keys.
The graph's outputs are the velocity and each layer's new keys, values and convolution tail, which
:class:`StatefulRunner` writes into the same :class:`~cosycore.flow.cache.StepCache` the torch path
fills, so cached hops, a voice's prompt template, a frozen cache and the final call all run through
it, and a stream can switch between the two. Batch, frames and past length are dynamic; an uncached
call is the same graph with no past.

Numbers: float32 arithmetic, traced from the same modules: an uncached call equals torch's up to float
rounding. The stream's keys and values are stored as float16 (:data:`KV_DTYPE`: half the flow cache's
memory, and twice the frames under its bound); a call reads them back as float32. That moves a cached
draft stream's mel by about 1e-3 against torch's float32 cache, next to draft's own 0.4 from exact;
exact and fast do not use the graphs.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn

from ..graph_cache import cpu_session
from .cache import StepCache
from .unet import MASK_BIAS  # additive bias of blocked positions (-1e10, not -inf)

GRAPH_FILE = "estimator.onnx"
# The stream's cached keys and values, in and out of the graph: float16 halves the flow cache (CosyVoice2
# draft's 304 MB for 5 s of speech after a 3 s prompt) for a rounding of 5e-4 relative; attention still runs in float32.
KV_DTYPE = torch.float16

# A causal convolution's state: the module the StepCache keys it by, its channels and the frames it keeps.
ConvState = tuple[nn.Module, int, int]


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


class StatefulGraph(nn.Module):
    """One estimator call written for export: ``forward(*frame_inputs, *past)`` -> (v, *new states).

    Subclasses set ``frame_inputs`` (names: the first is ``x`` [B, C, T], the last the attention bias
    [..., T, S]), the stateful layers (``attn``, ``convs``) and implement :meth:`velocity` on a
    :class:`StepCache` that routes the states through the graph's inputs and outputs.
    """

    frame_inputs: tuple[str, ...] = ()

    def __init__(self, attn: list[nn.Module], convs: list[ConvState]) -> None:
        super().__init__()
        self.attn, self.convs = attn, convs

    def input_names(self) -> list[str]:
        n, c = len(self.attn), len(self.convs)
        return [*self.frame_inputs, *(f"past_k{i}" for i in range(n)), *(f"past_v{i}" for i in range(n)),
                *(f"hist{i}" for i in range(c))]

    def output_names(self) -> list[str]:
        n, c = len(self.attn), len(self.convs)
        return ["v", *(f"new_k{i}" for i in range(n)), *(f"new_v{i}" for i in range(n)),
                *(f"new_hist{i}" for i in range(c))]

    def velocity(self, frames: tuple[Tensor, ...], state: StepCache) -> Tensor:
        raise NotImplementedError

    def forward(self, *inputs: Tensor) -> tuple[Tensor, ...]:
        nf, n = len(self.frame_inputs), len(self.attn)
        past = inputs[nf:]
        convs = [m for m, _, _ in self.convs]
        # The past positions in use: the bias covers them and the new frames. Traced from the shapes,
        # so the graph slices each fed key/value buffer [B, H, capacity, d] itself (no copy per call).
        x, bias = inputs[0], inputs[nf - 1]
        state = _GraphState(dict(zip(self.attn, past[:n], strict=True)),
                            dict(zip(self.attn, past[n:2 * n], strict=True)),
                            dict(zip(convs, past[2 * n:], strict=True)), bias.shape[-1] - x.shape[-1])
        v = self.velocity(tuple(inputs[:nf]), state)
        missing = [m for m in self.attn if m not in state.new_k] + [m for m in convs if m not in state.new_history]
        if missing:
            raise RuntimeError(f"{len(missing)} stateful layers did not run through the state; "
                               "the graph would drop their states")
        return (v, *(state.new_k[m] for m in self.attn), *(state.new_v[m] for m in self.attn),
                *(state.new_history[m] for m in convs))

    def example_past(self, batch: int, past: int, heads: int, head_dim: int, gen: torch.Generator) -> list[Tensor]:
        spare = 3  # the key/value buffers hold spare capacity after their ``past`` positions: the graph slices
        return ([torch.randn(batch, heads, past + spare, head_dim, generator=gen).to(KV_DTYPE)
                 for _ in range(2 * len(self.attn))]
                + [torch.randn(batch, c, keep, generator=gen) for _, c, keep in self.convs])

    def state_axes(self) -> dict[str, dict[int, str]]:
        dyn: dict[str, dict[int, str]] = {}
        for i in range(len(self.attn)):
            dyn |= {f"past_k{i}": {0: "B", 2: "capacity"}, f"past_v{i}": {0: "B", 2: "capacity"},
                    f"new_k{i}": {0: "B", 2: "T"}, f"new_v{i}": {0: "B", 2: "T"}}
        for i in range(len(self.convs)):
            dyn |= {f"hist{i}": {0: "B"}, f"new_hist{i}": {0: "B"}}
        return dyn


def export_graph(graph: StatefulGraph, example: list[Tensor], frame_axes: dict[str, dict[int, str]],
                 folder: Path) -> Path:
    """Export ``graph`` on the ``example`` inputs (float32, CPU) into ``folder/estimator.onnx``, its
    weights in a file beside it; ``frame_axes`` names the dynamic axes of the frame inputs and of ``v``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / GRAPH_FILE
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python values
        torch.onnx.export(graph.eval(), tuple(example), str(path), input_names=graph.input_names(),
                          output_names=graph.output_names(), opset_version=18,
                          dynamic_axes=frame_axes | graph.state_axes(), dynamo=False, external_data=True)
    return path


def graph_key(weights_file: Path, version: int, kind: str = "") -> str:
    """Cache key of the graph of ``weights_file``: ``kind`` and ``version`` of the graph, ONNX Runtime's
    version, the file's size, time, first and last MiB. Cheap (no full read)."""
    import onnxruntime

    st = weights_file.stat()
    h = hashlib.sha256(f"{version}|{onnxruntime.__version__}|{st.st_size}|{st.st_mtime_ns}".encode())
    with open(weights_file, "rb") as f:
        h.update(f.read(1 << 20))
        if st.st_size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            h.update(f.read(1 << 20))
    return f"{kind}v{version}-f32-{h.hexdigest()[:20]}"


def chunk_bias(start: int, rows: int, chunk: int | None) -> np.ndarray:
    """[rows, start + rows] additive bias of the new query rows: 0 where a key is allowed, MASK_BIAS
    where the chunk rule blocks it (``masks.chunk_mask_rows``); all zeros for ``chunk`` None (full attention)."""
    keys = start + rows
    if chunk is None:
        return np.zeros((rows, keys), dtype=np.float32)
    limit = (np.arange(start, keys) // chunk + 1) * chunk  # [rows]
    allowed = np.arange(keys)[None, :] < limit[:, None]  # [rows, keys]
    return np.where(allowed, np.float32(0.0), np.float32(MASK_BIAS)).astype(np.float32)


def _empty(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, dtype=np.float32)


class StatefulRunner:
    """Runs a :class:`StatefulGraph`'s export: feeds the past states from a StepCache, writes the new ones
    into it (where the torch path keeps them). Only numpy between ONNX Runtime's operators: a torch
    operator inside the call would wake torch's OpenMP threads, which spin beside ONNX Runtime's."""

    def __init__(self, path: Path, graph: StatefulGraph, threads: int, heads: int, head_dim: int) -> None:
        self.path = Path(path)
        # No memory arena: a call's attention reads the stream's past, so its intermediates grow with the
        # stream, and the arena would keep the largest for good (measured: draft's peak 2.49 against 2.73 GiB).
        self.session = cpu_session(path, threads, memory_arena=False)
        self.attn, self.convs = graph.attn, graph.convs
        names = [i.name for i in self.session.get_inputs()]
        if names != graph.input_names():
            raise ValueError(f"{path} is not an estimator graph of this flow (its inputs differ)")
        self.heads, self.head_dim = heads, head_dim
        self.calls = 0

    def run(self, feeds: dict[str, np.ndarray], batch: int, state: StepCache | None) -> Tensor:
        """``feeds``: the frame inputs; adds the past states of ``state`` (none without), runs the
        graph, keeps the new states in ``state`` (unless its ``keep_new`` is off) -> v."""
        none = np.zeros((batch, self.heads, 0, self.head_dim), dtype=np.float16)
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
        for i, (conv, channels, keep) in enumerate(self.convs):
            prev = state.history(conv) if state is not None else None
            feeds[f"hist{i}"] = _empty((batch, channels, keep)) if prev is None else np.ascontiguousarray(prev.numpy())
        out = self.session.run(None, feeds)
        self.calls += 1
        if state is not None and state.keep_new:
            na = len(self.attn)
            for i, m in enumerate(self.attn):
                state.kv(m).append(torch.from_numpy(out[1 + i]), torch.from_numpy(out[1 + na + i]))
            for i, (conv, _, _) in enumerate(self.convs):
                state.set_history(conv, torch.from_numpy(out[1 + 2 * na + i]))
        return torch.from_numpy(out[0])

    def frame_feeds(self, x: Tensor, mask: Tensor, mu: Tensor, t: Tensor, spks: Tensor, cond: Tensor,
                    start: int, streaming: bool) -> dict[str, np.ndarray]:
        """The graph's frame inputs of a call whose new frames start at frame ``start``."""
        raise NotImplementedError

    def __call__(self, x: Tensor, mask: Tensor, mu: Tensor, t: Tensor, spks: Tensor, cond: Tensor,
                 streaming: bool = False, state: StepCache | None = None) -> Tensor:
        """The torch estimator's call (``cosycore.flow.cfm.Estimator``): float32, unpadded batches (the
        engine's); a cached call (``state``) is a streaming one."""
        if x.dtype != torch.float32:
            raise ValueError("the estimator graph runs in float32")
        if state is None and not bool(mask.numpy().all()):
            raise ValueError("the estimator graph runs unpadded batches only (the engine's)")
        if state is not None and not streaming:
            raise ValueError("a cached estimator call needs streaming=True (chunk masks)")
        start = 0 if state is None else state.start
        return self.run(self.frame_feeds(x, mask, mu, t, spks, cond, start, streaming), x.shape[0], state)
