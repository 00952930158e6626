"""HiFT's convolution body as one ONNX Runtime graph (CPU), for both families.

Why. The vocoder's body (the upsampling stages with their source and residual blocks, then
conv_post) is a few hundred convolutions and Snake activations over up to 120 positions per mel
frame: in torch eager each runs as its own operator. As one graph, ONNX Runtime fuses and
schedules them itself. Probes on the 2-core AVX2 development machine (docs/performance.md, issue 28,
fifth pass): 2.5-3.5x on the CosyVoice2 stream's chunks, 1.3-2.2x on the whole vocoder stream of 5 s
of speech, 3e-7 from torch on outputs of about 0.25.

The graph. :class:`BodyGraph` exports :meth:`~cosycore.vocoder.hift._HiftBase.body`: inputs conv_pre's
output ``x [B, C0, T]`` and the source's STFT ``s_stft [B, K, N]`` (N = 120 T + 1 for the releases),
output conv_post's ``[B, K, N]`` (before the exp/sin and the iSTFT). Everything that depends on
the family's look-ahead or the stream's position (conv_pre with its right context, the trims, the
NSF source, the STFT and iSTFT) stays in torch, so the CosyVoice2 chunks and the CosyVoice3
incremental stream call the same graph. Batch, T and N are dynamic.

Numbers: float32, traced from the same modules with weight norm already folded (the loaded
vocoder's weights are plain tensors); :meth:`_HiftBase.decode` uses the graph for float32 decodes
only. Built once per ``hift.pt`` (:mod:`cosycore.vocoder.ort_build`), kept in the user cache.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils import parametrize

from ..graph_cache import cpu_session, weights_digest
from .hift import CausalHiFTGenerator, HiFTGenerator

GRAPH_VERSION = 1  # bump when the graph's inputs, outputs or math change: old cached graphs are then unused
GRAPH_FILE = "body.onnx"
INPUTS = ("x", "s_stft")
OUTPUT = "y"

Hift = HiFTGenerator | CausalHiFTGenerator


def body_modules(hift: Hift) -> list[nn.Module]:
    """The modules :meth:`body` runs (their weights live in the graph once it is attached)."""
    return [hift.ups, hift.source_downs, hift.source_resblocks, hift.resblocks, hift.conv_post]


class BodyGraph(nn.Module):
    """``hift.body`` as a module, for export."""

    def __init__(self, hift: Hift) -> None:
        super().__init__()
        self.hift = hift

    def forward(self, x: Tensor, s_stft: Tensor) -> Tensor:
        return self.hift.body(x, s_stft)


def export_body_graph(hift: Hift, folder: Path, frames: int = 12) -> Path:
    """Export ``hift``'s body (float32, CPU, weight norm folded) into ``folder/body.onnx``."""
    if any(parametrize.is_parametrized(m, "weight") for m in hift.modules()):
        raise ValueError("fold the vocoder's weight norm first (cosycore.vocoder.load.fold_weight_norm)")
    if hift.weight_dtype != torch.float32:
        raise ValueError("the vocoder body graph is exported in float32")
    folder.mkdir(parents=True, exist_ok=True)
    cfg = hift.cfg
    gen = torch.Generator().manual_seed(0)
    n = frames * int(np.prod(cfg.upsample_rates)) + 1  # the reflection pad adds one position
    x = torch.randn(1, cfg.base_channels, frames, generator=gen)
    s_stft = torch.randn(1, cfg.istft_n_fft + 2, n, generator=gen)
    dyn = {"x": {0: "B", 2: "T"}, "s_stft": {0: "B", 2: "N"}, OUTPUT: {0: "B", 2: "N"}}
    path = folder / GRAPH_FILE
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python values
        torch.onnx.export(BodyGraph(hift).eval(), (x, s_stft), str(path), input_names=list(INPUTS),
                          output_names=[OUTPUT], opset_version=18, dynamic_axes=dyn, dynamo=False)
    return path


def graph_key(weights_file: Path) -> str:
    """Cache key of the graph of ``weights_file``: the graph's version and :func:`weights_digest`."""
    return f"v{GRAPH_VERSION}-f32-{weights_digest(weights_file, GRAPH_VERSION)}"


def _shrinking_run_options() -> object:
    import onnxruntime as ort

    opts = ort.RunOptions()
    opts.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return opts


class OrtBody:
    """``hift.body(x, s_stft)`` run by ONNX Runtime (float32 CPU tensors in and out).

    Only numpy around the call: a torch operator inside it would wake torch's OpenMP threads beside
    ONNX Runtime's on the same cores."""

    def __init__(self, path: Path, hift: Hift, threads: int) -> None:
        self.path = Path(path)
        self.session = cpu_session(path, threads)
        # The arena serves each call's intermediates, then gives back what the call grew it by: a whole
        # segment vocoded at once (not streamed) would otherwise keep its activations for good (a 15 s
        # call left the arena 314 MB larger; with the shrink 0 MB more, at the same speed within noise).
        self.run_options = _shrinking_run_options()
        names = tuple(i.name for i in self.session.get_inputs())
        if names != INPUTS:
            raise ValueError(f"{path} is not a vocoder body graph (its inputs are {names})")
        cfg = hift.cfg
        shapes = {i.name: i.shape for i in self.session.get_inputs()}
        if shapes["x"][1] != cfg.base_channels or shapes["s_stft"][1] != cfg.istft_n_fft + 2:
            raise ValueError(f"{path} is the body graph of another vocoder (its channels differ)")
        self.calls = 0

    def __call__(self, x: Tensor, s_stft: Tensor) -> Tensor:
        if x.dtype != torch.float32 or s_stft.dtype != torch.float32:
            raise ValueError("the vocoder body graph runs in float32")
        feeds = {"x": np.ascontiguousarray(x.numpy()), "s_stft": np.ascontiguousarray(s_stft.numpy())}
        out = self.session.run(None, feeds, self.run_options)[0]
        self.calls += 1
        return torch.from_numpy(out)


def use_body_graph(hift: Hift, path: Path, threads: int, *, release: bool = False) -> OrtBody:
    """Run ``hift``'s float32 decodes through the body graph at ``path`` from now on.

    ``release``: drop torch's copy of the body's weights (:func:`release_body_weights`)."""
    runner = OrtBody(path, hift, threads)
    hift.runtime_body = runner
    if release:
        release_body_weights(hift)
    return runner


def release_body_weights(hift: Hift) -> None:
    """Drop torch's copy of the body's weights (the graph holds its own; about 65 MB for the
    releases'): every decode runs the graph from now on. Only between requests: a decode in flight
    in torch would lose its weights."""
    if hift.runtime_body is None:
        raise RuntimeError("no runtime body to run the decodes; the torch weights are kept")
    for m in body_modules(hift):
        m.to_empty(device="meta")


def body_released(hift: Hift) -> bool:
    """Whether torch's copy of the body's weights was dropped."""
    return bool(hift.conv_post.weight.is_meta)
