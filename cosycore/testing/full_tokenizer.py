"""A speech tokenizer ONNX at the release's size, with random weights, for speed benchmarks.

The released ``speech_tokenizer_v2.onnx`` (about 496 MB) and ``speech_tokenizer_v3.onnx`` (about
969 MB) cannot be downloaded where the benchmarks run, and the tiny graph of :mod:`.tiny_onnx` costs
next to nothing, so a benchmark of voice conversion (whose frontend runs the tokenizer on every
source piece) would leave out one of its stages. :func:`write_full_size_tokenizer` writes a graph
with the released architecture, widths and operators and random weights; its tokens mean nothing,
its cost is the real one.

The architecture is the S3Tokenizer v2 / v3 encoder as described by its public re-implementations
(xingchensong/S3Tokenizer ``model_v2.py`` / ``model_v3.py``; written here from that description, not
copied): Whisper log-mel [B, 128, T] → two GELU convolutions (kernel 3, stride 2 each, 1280 wide, so
25 frames per second) → ``layers`` pre-norm transformer blocks (20 heads of 64, rotary position on
the queries and keys, an FSMN memory: a depthwise convolution of kernel 31 over the values added to
the attention's output, a 4x GELU MLP) → FSQ: a 1280→8 projection, tanh, × 0.999, round, + 1, read as
8 base-3 digits (6561 ids). v2 has 6 blocks and no key bias; v3 has 12 blocks, biases everywhere.
Frames past ``feats_length`` are masked out of the attention as the original's padding mask does.

    python -m cosycore.testing.full_tokenizer OUT.onnx --family cosyvoice2
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from ..atomic_write import fsync_dir
from ..config import Family
from .tiny_yaml import FAMILIES

N_MELS = 128
WIDTH = 1280
HEADS = 20
FSMN_KERNEL = 31
FSQ_DIMS = 8
FSQ_SCALE = 0.9990000128746033  # the released graph's constant before rounding
ROPE_POSITIONS = 2048
ONNX_OPSET = 17


@dataclass(frozen=True)
class TokenizerShape:
    layers: int
    key_bias: bool
    attn_ln_eps: float


SHAPES: dict[str, TokenizerShape] = {
    "cosyvoice2": TokenizerShape(layers=6, key_bias=False, attn_ln_eps=1e-6),
    "cosyvoice3": TokenizerShape(layers=12, key_bias=True, attn_ln_eps=1e-5),
}


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class _Block(nn.Module):
    def __init__(self, shape: TokenizerShape) -> None:
        super().__init__()
        self.attn_ln = nn.LayerNorm(WIDTH, eps=shape.attn_ln_eps)
        self.query = nn.Linear(WIDTH, WIDTH)
        self.key = nn.Linear(WIDTH, WIDTH, bias=shape.key_bias)
        self.value = nn.Linear(WIDTH, WIDTH)
        self.out = nn.Linear(WIDTH, WIDTH)
        self.fsmn = nn.Conv1d(WIDTH, WIDTH, FSMN_KERNEL, padding=FSMN_KERNEL // 2, groups=WIDTH, bias=False)
        self.mlp_ln = nn.LayerNorm(WIDTH, eps=1e-5)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))

    def forward(self, x: torch.Tensor, bias: torch.Tensor, keep: torch.Tensor, cos: torch.Tensor,
                sin: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        h = self.attn_ln(x)
        q = self.query(h).view(b, t, HEADS, -1)
        k = self.key(h).view(b, t, HEADS, -1)
        v = self.value(h).view(b, t, HEADS, -1)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        memory = v.reshape(b, t, WIDTH) * keep  # FSMN over the (masked) values
        memory = (self.fsmn(memory.transpose(1, 2)).transpose(1, 2) + memory) * keep
        scale = (WIDTH // HEADS) ** -0.25
        att = (q.permute(0, 2, 1, 3) * scale) @ (k.permute(0, 2, 3, 1) * scale) + bias
        wv = (att.softmax(dim=-1) @ v.permute(0, 2, 1, 3)).permute(0, 2, 1, 3).reshape(b, t, WIDTH)
        x = x + self.out(wv) + memory
        return x + self.mlp(self.mlp_ln(x))


class FullSizeSpeechTokenizer(nn.Module):
    """The released tokenizer's architecture with random weights (see the module's docstring)."""

    cos: torch.Tensor  # buffers: [ROPE_POSITIONS, 64] rotary tables, and the FSQ digits' weights
    sin: torch.Tensor
    digits: torch.Tensor

    def __init__(self, family: Family) -> None:
        super().__init__()
        shape = SHAPES[family]
        self.conv1 = nn.Conv1d(N_MELS, WIDTH, 3, stride=2, padding=1)
        self.conv2 = nn.Conv1d(WIDTH, WIDTH, 3, stride=2, padding=1)
        self.blocks = nn.ModuleList(_Block(shape) for _ in range(shape.layers))
        self.project_down = nn.Linear(WIDTH, FSQ_DIMS)
        head = WIDTH // HEADS
        inv = 1.0 / (10000.0 ** (torch.arange(0, head, 2, dtype=torch.float32) / head))
        angles = torch.outer(torch.arange(ROPE_POSITIONS, dtype=torch.float32), inv)
        angles = torch.cat((angles, angles), dim=-1)  # [positions, 64]
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        self.register_buffer("digits", 3.0 ** torch.arange(FSQ_DIMS, dtype=torch.float32), persistent=False)

    def forward(self, feats: torch.Tensor, feats_length: torch.Tensor) -> torch.Tensor:
        x = nn.functional.gelu(self.conv1(feats))
        x = nn.functional.gelu(self.conv2(x)).transpose(1, 2)  # [B, P, 1280]
        length = (feats_length.to(torch.int64) + 1) // 2
        length = (length + 1) // 2  # [B] tokens per item
        steps = torch.arange(x.shape[1], device=x.device)
        keep_bool = steps[None, :] < length[:, None]  # [B, P]
        keep = keep_bool.to(x.dtype)[:, :, None]
        bias = (1.0 - keep_bool.to(x.dtype))[:, None, None, :] * -1e10
        cos = self.cos[: x.shape[1]][None, :, None, :]
        sin = self.sin[: x.shape[1]][None, :, None, :]
        for block in self.blocks:
            x = block(x, bias, keep, cos, sin)
        h = (self.project_down(x).tanh() * FSQ_SCALE).round() + 1.0
        return (h @ self.digits).to(torch.int32)  # [B, P]


def write_full_size_tokenizer(path: Path | str, family: Family, seed: int = 0) -> Path:
    """Write the random-weight full-size tokenizer of ``family`` to ``path`` (atomically)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    path = Path(path)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = FullSizeSpeechTokenizer(family).eval()
    feats = torch.randn(1, N_MELS, 400)
    length = torch.tensor([400], dtype=torch.int32)
    tmp = path.with_name(path.name + ".export")
    try:
        with torch.inference_mode():
            torch.onnx.export(
                model, (feats, length), str(tmp), input_names=["feats", "feats_length"], output_names=["indices"],
                dynamic_axes={"feats": {0: "batch", 2: "frames"}, "feats_length": {0: "batch"},
                              "indices": {0: "batch", 1: "tokens"}},
                opset_version=ONNX_OPSET, dynamo=False,
            )
        os.replace(tmp, path)  # a whole file or none: the export goes to a temporary name first
        fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cosycore.testing.full_tokenizer",
                                     description="Write a random-weight speech tokenizer ONNX at the release's size.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--family", choices=FAMILIES, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        path = write_full_size_tokenizer(args.out, args.family, args.seed)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{path}: {path.stat().st_size:,d} bytes ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
