"""The speech LM's decode step as one ONNX Runtime graph with 4-bit weights (CPU, fast and draft).

Why. A decode step reads every LM weight once and runs a few hundred small operators. In torch
eager the int8 step spent 22 of its 40 ms in matrix-vector products and the rest in those small
operators, each with its own dispatch and OpenMP barrier (docs/performance.md, issue 28). Run as
one graph, ONNX Runtime fuses and schedules them itself, and its MatMulNBits kernel reads 4-bit
weights (block 32, symmetric, int8 arithmetic: ``accuracy_level=4``), so each token moves about a
quarter of the float32 bytes. ``bench/bench_perf.py llm-speed`` measures both side by side.

What runs where. Prefill (the prompt, many positions at once) stays in torch: it is bound by
arithmetic, not by memory, and torch's int8 kernels do it well. Each decode step then goes through
:class:`OrtDecodeStep`: the new position's embedding, its RoPE angles and the filled part of the
caller's :class:`~cosycore.lm.kv_cache.KVCache` go in; the final hidden state and the new position's
keys and values come out, and the keys and values are written into the same cache, so prefill, a
torch step and a graph step can follow each other in any order. The speech-token head stays in
torch (``SpeechLM.logits``).

The graph is exported from the float weights with ``torch.onnx.export`` and quantized with ONNX
Runtime's own MatMulNBits quantizer, once per weights: :mod:`cosycore.lm.ort_build` does it in a
process of its own (the float weights never sit beside the engine's int8 ones) and stores the result
in the user's cache folder under a key of the weights file, the graph's version and ONNX Runtime's.
The numbers are not exact (4-bit weights): the modes that use it, fast and draft, already run an
int8 LM, and ``LogitAgreement`` measures the agreement in the same way.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import torch
from torch import Tensor, nn

from ..errors import InputError
from ..graph_cache import cpu_session

if TYPE_CHECKING:
    from .kv_cache import KVCache
    from .qwen2 import DecoderLayer
    from .speech_lm import SpeechLM

logger = logging.getLogger(__name__)

GRAPH_VERSION = 3  # bump when DecodeGraph's inputs, outputs or math change: old cached graphs are then unused
GRAPH_FILE = "decode.onnx"
BLOCK_SIZE = 32  # MatMulNBits block: 32 weights share one float scale
INPUTS = ("x", "cos", "sin", "bias", "past_k", "past_v")
OUTPUTS = ("hidden", "logits", "new_k", "new_v")


class DecodeGraph(nn.Module):
    """One decode step of a float :class:`SpeechLM`'s Qwen2 backbone, written for export.

    Inputs: ``x`` [1, 1, D] the new position's embedding; ``cos``/``sin`` [1, Dh] its RoPE angles;
    ``bias`` [1, P + 1] the additive attention mask over the P filled positions and the new one (zeros:
    the new position sees them all); ``past_k``/``past_v`` [L, K, S, Dh] the caller's whole key and
    value buffers, of which the graph reads the first P = bias width - 1 positions (so a step copies
    none of the cache). Outputs:
    ``hidden`` [1, D] after the final norm; ``logits`` [1, V] of the speech-token head;
    ``new_k``/``new_v`` [L, K, 1, Dh] (RoPE applied to the keys, as the cache holds them). The math
    is :mod:`cosycore.lm.qwen2`'s for one position (the same modules are called; attention is
    written out so that it exports as MatMul and Softmax).
    """

    def __init__(self, lm: SpeechLM) -> None:
        super().__init__()
        if lm.quantization is not None:
            raise ValueError("the decode graph is exported from the float LM, not a quantized one")
        self.qwen = lm.qwen
        self.head = lm.llm_decoder
        q = lm.cfg.qwen
        self.heads, self.kv_heads, self.head_dim = q.num_heads, q.num_kv_heads, q.head_dim

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor, bias: Tensor, past_k: Tensor, past_v: Tensor
                ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        h, kvh, dh = self.heads, self.kv_heads, self.head_dim
        p = bias.shape[1] - 1  # traced from the shape: the graph slices the buffers itself
        group = h // kvh
        half = dh // 2
        scale = 1.0 / math.sqrt(dh)

        def rope(t: Tensor) -> Tensor:
            return t * cos + torch.cat((-t[..., half:], t[..., :half]), dim=-1) * sin

        new_k, new_v = [], []
        for i, module in enumerate(self.qwen.layers):
            layer = cast("DecoderLayer", module)
            attn = layer.self_attn
            hx = layer.input_layernorm(x)
            if attn.qkv is not None:
                q, k, v = attn.qkv(hx).split((h * dh, kvh * dh, kvh * dh), dim=-1)
            else:
                q, k, v = attn.q_proj(hx), attn.k_proj(hx), attn.v_proj(hx)
            q = rope(q.reshape(h, dh))
            k = rope(k.reshape(kvh, dh)).reshape(kvh, 1, dh)
            v = v.reshape(kvh, 1, dh)
            keys = torch.cat((past_k[i][:, :p], k), dim=1)  # [K, P+1, Dh]
            values = torch.cat((past_v[i][:, :p], v), dim=1)  # [K, P+1, Dh]
            scores = torch.matmul(q.reshape(kvh, group, dh), keys.transpose(1, 2)) * scale + bias  # [K, G, P+1]
            out = torch.matmul(torch.softmax(scores, dim=-1), values)  # [K, G, Dh]
            x = x + attn.o_proj(out.reshape(1, 1, h * dh))
            x = x + layer.mlp(layer.post_attention_layernorm(x))
            new_k.append(k)
            new_v.append(v)
        hidden = self.qwen.norm(x).reshape(1, -1)
        return hidden, self.head(hidden), torch.stack(new_k), torch.stack(new_v)


def graph_key(weights_file: Path, bits: int) -> str:
    """The cache key of the graph of ``weights_file``: its size, time and first and last MiB, the
    graph's version, ONNX Runtime's version and the weight format. Cheap (no full read)."""
    import onnxruntime

    st = weights_file.stat()
    h = hashlib.sha256(f"{GRAPH_VERSION}|{onnxruntime.__version__}|{bits}|{BLOCK_SIZE}|{st.st_size}|"
                       f"{st.st_mtime_ns}".encode())
    with open(weights_file, "rb") as f:
        h.update(f.read(1 << 20))
        if st.st_size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            h.update(f.read(1 << 20))
    return f"v{GRAPH_VERSION}-int{bits}-{h.hexdigest()[:20]}"


def export_decode_graph(lm: SpeechLM, folder: Path, *, bits: int | None = 4) -> Path:
    """Export ``lm``'s decode step into ``folder`` (``decode.onnx`` and its weights file) and, with
    ``bits=4``, quantize its matrix products to MatMulNBits; ``bits=None`` keeps float32 (tests).

    ``lm`` is changed: its q/k/v and gate/up projections are fused (the same numbers; callers pass a
    model made for the export)."""
    import onnx

    folder.mkdir(parents=True, exist_ok=True)
    for module in lm.qwen.layers:  # q/k/v and gate/up as one matrix each: 4 products a layer, not 7
        layer = cast("DecoderLayer", module)
        if layer.self_attn.qkv is None:
            layer.self_attn.fuse()
        if layer.mlp.gate_up is None:
            layer.mlp.fuse()
    q = lm.cfg.qwen
    graph = DecodeGraph(lm).eval()
    d, dh, layers, kvh = q.hidden_size, q.head_dim, q.num_layers, q.num_kv_heads
    # 2 positions in use in buffers of 5: the export sees a slice that depends on the bias's width
    example = (torch.zeros(1, 1, d), torch.ones(1, dh), torch.zeros(1, dh), torch.zeros(1, 3),
               torch.zeros(layers, kvh, 5, dh), torch.zeros(layers, kvh, 5, dh))
    float_path = folder / ("float.onnx" if bits else GRAPH_FILE)
    # The TorchScript exporter (dynamo=False): the one that needs no extra package, and this graph has no
    # control flow for torch.export to gain from. Its deprecation notice is expected.
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(graph, example, str(float_path), input_names=list(INPUTS), output_names=list(OUTPUTS),
                          opset_version=18, dynamo=False,
                          dynamic_axes={"bias": {1: "seen"}, "past_k": {2: "capacity"},
                                        "past_v": {2: "capacity"}})
    if not bits:
        return float_path
    if bits != 4:
        raise ValueError(f"only 4-bit decode graphs are built, not {bits}-bit")
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    model = onnx.load(str(float_path))
    quantizer = MatMulNBitsQuantizer(model, block_size=BLOCK_SIZE, is_symmetric=True, accuracy_level=4)
    quantizer.process()
    out = folder / GRAPH_FILE
    quantizer.model.save_model_to_file(str(out), True)  # weights in decode.onnx.data beside it
    del model, quantizer
    for leftover in folder.glob("float.onnx*"):  # the float export made just above, in our own folder
        leftover.unlink()
    return out


class OrtDecodeStep:
    """Runs decode steps through a graph of :func:`export_decode_graph` on ONNX Runtime's CPU provider.

    ``threads`` is ONNX Runtime's intra-op pool; its threads do not spin between operators (they
    lost the LM half its speed when another process kept a core busy).
    """

    def __init__(self, path: Path, threads: int) -> None:
        self.path = Path(path)
        self.threads = max(1, int(threads))
        self.session = cpu_session(path, self.threads)
        names = tuple(i.name for i in self.session.get_inputs())
        if names != INPUTS:
            raise ValueError(f"{path} is not a decode graph of this version (inputs {names})")
        self.steps = 0
        # the last step's hidden state (kept, so no other tensor can take its address) and logits
        self._last: tuple[Tensor, Tensor] | None = None

    def __call__(self, x: Tensor, cos: Tensor, sin: Tensor, cache: KVCache) -> Tensor:
        """``x`` [1, 1, D] at position ``cache.length`` -> hidden [1, 1, D]; writes its keys and values
        into ``cache`` (the caller advances ``cache.length``)."""
        pos = cache.length
        if pos + 1 > cache.capacity:
            raise InputError(f"the KV cache holds {cache.capacity} positions and {pos} are used; "
                             "1 more does not fit")
        if cache.k.dtype != torch.float32 or x.dtype != torch.float32:
            raise ValueError("the decode graph runs on float32 inputs and a float32 KV cache")
        # numpy views and numpy copies only: a torch operator here would wake torch's OpenMP threads,
        # which then spin beside ONNX Runtime's on the same cores (measured: 46 against 32 ms a step)
        keys, values = cache.k.numpy(), cache.v.numpy()  # [L, 1, K, S, Dh], shared with the cache
        feeds = {
            "x": x.detach().reshape(1, 1, -1).numpy(),
            "cos": cos.reshape(1, -1).numpy(),
            "sin": sin.reshape(1, -1).numpy(),
            "bias": np.zeros((1, pos + 1), dtype=np.float32),
            "past_k": keys[:, 0],  # [L, K, S, Dh]: whole buffers (views); the graph reads the first pos
            "past_v": values[:, 0],
        }
        hidden, logits, new_k, new_v = self.session.run(list(OUTPUTS), feeds)
        keys[:, 0, :, pos] = new_k[:, :, 0]
        values[:, 0, :, pos] = new_v[:, :, 0]
        self.steps += 1
        out = torch.from_numpy(hidden).reshape(1, 1, -1)
        self._last = (out, torch.from_numpy(logits))
        return out

    def logits_of(self, hidden: Tensor) -> Tensor | None:
        """The head's logits [.., V] the graph computed with ``hidden`` (a view of the last step's
        hidden state, as ``decode_one_token`` returns it), or None for any other tensor."""
        last = self._last
        if last is None or hidden.data_ptr() != last[0].data_ptr() or hidden.numel() != last[0].numel():
            return None
        return last[1].reshape(*hidden.shape[:-1], -1)
