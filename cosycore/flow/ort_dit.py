"""The Fun-CosyVoice3 DiT flow estimator as one ONNX Runtime graph, with its cached states as inputs (CPU).

The CosyVoice2 U-Net's graph (:mod:`.ort_estimator`) done for the DiT, on the same machinery
(:mod:`.ort_graph`). :class:`CachedDiTGraph` exports :meth:`cosycore.flow.dit.DiT.run` after the
input embedding, with everything that depends on the stream's position or the ODE time as an input:

- ``x, mu, cond`` [B, M, T] and ``spks`` [B, S]: the call's new frames, as the torch estimator takes them;
- ``mods`` [L, B, 6D] and ``final`` [B, 2D]: the time conditioning (each block's AdaLN-Zero
  modulation and the final norm's), computed outside the graph by :meth:`DiT.time_conditioning`
  (a table lookup once the flow is fixed to one setting, draft);
- ``cos, sin`` [T, R]: the rotary angles of the new frames' absolute positions ``start .. start + T - 1``;
- ``bias`` [T, S]: the additive attention bias of the new rows over all ``S = P + T`` keys (the chunk
  rule; all zeros for an uncached full-attention call);
- per block its key and value buffers [B, H, capacity, Dh] (float16, read in place: the graph uses
  their first ``S - T`` positions), and the two position-embedding convolutions' last 30 input frames
  [B, D, 30].

Its outputs are the velocity and each layer's new states, written into the same StepCache as torch's.

Numbers: float32 arithmetic, traced from the same modules (the original's math as :mod:`cosycore.flow.dit`
ports it), so an uncached call gives torch's numbers up to float rounding and the original's recorded
flow calls pass the conformance tolerances through it (tests/test_flow_ort_dit.py); a cached stream
differs from torch's float32 cache by the float16 rounding of its keys and values (:mod:`.ort_graph`).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import torch
from torch import Tensor, nn

from .cache import StepCache
from .dit import DiT, DiTBlock
from .ort_graph import StatefulGraph, StatefulRunner, chunk_bias, export_graph

DIT_GRAPH_VERSION = 2  # bump when the graph's inputs, outputs or math change: old cached graphs are then unused
DIT_INPUTS = ("x", "mu", "spks", "cond", "mods", "final", "cos", "sin", "bias")


class CachedDiTGraph(StatefulGraph):
    """The DiT call of one Euler step, written for export (module docstring for the inputs)."""

    frame_inputs = DIT_INPUTS

    def __init__(self, dit: DiT) -> None:
        pe = dit.input_embed.conv_pos_embed
        keep = pe.kernel_size - 1
        super().__init__([cast(DiTBlock, block).attn for block in dit.transformer_blocks],
                         [(pe.conv1, dit.cfg.dim, keep), (pe.conv2, dit.cfg.dim, keep)])
        self.dit = dit

    def velocity(self, frames: tuple[Tensor, ...], state: StepCache) -> Tensor:
        x, mu, spks, cond, mods, final, cos, sin, bias = frames
        h = self.dit.input_embed(x.transpose(1, 2), cond.transpose(1, 2), mu.transpose(1, 2), spks, state)  # [B, T, D]
        return self.dit.run(h, mods.unbind(0), final, (cos, sin), bias, None, state)


def export_dit_graph(dit: DiT, folder: Path) -> Path:
    """Export ``dit`` (float32, CPU) into ``folder/estimator.onnx`` (weights in a file beside it)."""
    graph = CachedDiTGraph(dit)
    cfg = dit.cfg
    b, t, p = 1, 2 * cfg.static_chunk_size, cfg.static_chunk_size
    gen = torch.Generator().manual_seed(0)
    cos, sin = dit.rotary_embed(p + t, torch.device("cpu"))
    frames = [torch.randn(b, cfg.mel_dim, t, generator=gen), torch.randn(b, cfg.mu_dim, t, generator=gen),
              torch.randn(b, cfg.spk_dim, generator=gen), torch.randn(b, cfg.mel_dim, t, generator=gen),
              torch.randn(cfg.depth, b, 6 * cfg.dim, generator=gen), torch.randn(b, 2 * cfg.dim, generator=gen),
              cos[p:], sin[p:], torch.from_numpy(chunk_bias(p, t, cfg.static_chunk_size))]
    past = graph.example_past(b, p, cfg.heads, cfg.dim_head, gen)
    dyn: dict[str, dict[int, str]] = {k: {0: "B", 2: "T"} for k in ("x", "mu", "cond", "v")}
    dyn |= {"spks": {0: "B"}, "mods": {1: "B"}, "final": {0: "B"}, "cos": {0: "T"}, "sin": {0: "T"},
            "bias": {0: "T", 1: "S"}}
    return export_graph(graph, [*frames, *past], dyn, folder)


class OrtDiT(StatefulRunner):
    """Calls shaped like the torch DiT's (``cosycore.flow.cfm.Estimator``), run by ONNX Runtime.

    The time conditioning stays in torch (the fixed flow's table, or the DiT's own modules, which
    :meth:`held_modules` leaves out), the rotary angles come from a table grown as streams get longer.
    """

    def __init__(self, path: Path, dit: DiT, threads: int) -> None:
        cfg = dit.cfg
        super().__init__(path, CachedDiTGraph(dit), threads, cfg.heads, cfg.dim_head)
        self.dit, self.chunk = dit, cfg.static_chunk_size
        self._cos = self._sin = np.zeros((0, cfg.dim_head), dtype=np.float32)

    def held_modules(self) -> list[nn.Module]:
        """The DiT modules whose weights the graph holds (those torch can drop): all but the time conditioning."""
        blocks = [cast(DiTBlock, b) for b in self.dit.transformer_blocks]
        return [self.dit.input_embed, self.dit.proj_out, *(b.attn for b in blocks), *(b.ff for b in blocks)]

    def _rope(self, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """cos, sin [n, R] of positions ``start .. start + n - 1`` (``DiT.rotary_embed``'s values)."""
        end = start + n
        if end > self._cos.shape[0]:
            cos, sin = self.dit.rotary_embed(max(end, 2 * self._cos.shape[0], 1024), torch.device("cpu"))
            self._cos, self._sin = cos.numpy(), sin.numpy()
        return self._cos[start:end], self._sin[start:end]

    def frame_feeds(self, x: Tensor, mask: Tensor, mu: Tensor, t: Tensor, spks: Tensor, cond: Tensor,
                    start: int, streaming: bool) -> dict[str, np.ndarray]:
        b, _, n = x.shape
        if t.ndim == 0:
            t = t.repeat(b)  # [B]
        with torch.autocast("cpu", enabled=False):  # the graph runs float32: so does its conditioning
            blocks, final = self.dit.time_conditioning(t)  # L x [B, 6D], [B, 2D]
        cos, sin = self._rope(start, n)
        return {"x": x.numpy(), "mu": mu.numpy(), "spks": spks.numpy(), "cond": cond.numpy(),
                "mods": np.stack([m.float().numpy() for m in blocks]), "final": final.float().numpy(),
                "cos": cos, "sin": sin, "bias": chunk_bias(start, n, self.chunk if streaming else None)}
