"""Int8 weights for the speech LM: a CPU speed option that trades exactness for decode speed.

One decode step of the 0.5B LM reads every linear weight once, so on a CPU its speed is set by
memory bandwidth: about 1.4 GB per token in float32, a quarter of that in int8. This module swaps
the ``nn.Linear`` layers of a loaded :class:`~cosycore.lm.speech_lm.SpeechLM` (the Qwen2 projections and the
``llm_decoder`` head) for int8 versions, and optionally stores the text-token table as int8 rows.

Two kernels, both with symmetric per-output-channel int8 weights (``w ≈ q * scale[row]``):

``"dynamic"``
    The prepacked GEMM of torch's quantized engine (``torch.backends.quantized.engine``, x86/fbgemm
    on Intel and AMD): each call also quantizes its input to uint8 with one scale per call (7-bit
    on CPUs without VNNI), multiplies in integers and rescales. The fastest here; the input
    rounding adds error on top of the weight rounding.
``"weight_only"``
    ``torch._weight_int8pack_mm``: int8 weights, bfloat16 activations, no input quantization. More
    accurate, slower on this machine (the kernel only vectorises the bfloat16 input path).

Both are approximations; the exact (float32) model is the default everywhere and the
conformance checks always run on it. Shapes: N = output features, K = input features,
M = rows (positions) in a call.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

logger = logging.getLogger(__name__)

QuantScheme = Literal["dynamic", "weight_only"]
QUANT_SCHEMES: tuple[QuantScheme, ...] = ("dynamic", "weight_only")
INT8_MAX = 127  # symmetric range [-127, 127]: the code -128 is never used


LLM_QUANT_MODES: dict[str, QuantScheme] = {
    "int8": "dynamic",  # the default int8 kernel
    "int8-dynamic": "dynamic",
    "int8-weight-only": "weight_only",
}


def parse_llm_quant(mode: str) -> QuantScheme:
    """The kernel of an LM quantization mode name (``"int8"``, ``"int8-dynamic"``, ``"int8-weight-only"``)."""
    try:
        return LLM_QUANT_MODES[mode]
    except KeyError:
        raise ValueError(
            f"unknown LM quantization {mode!r}; expected one of {', '.join(LLM_QUANT_MODES)} (or None)"
        ) from None


QUANT_BLOCK_ROWS = 4096  # rows packed at a time (see int8_per_channel)


def int8_per_channel(w: Tensor) -> tuple[Tensor, Tensor]:
    """Symmetric per-row int8 of a weight [N, K]: codes [N, K] int8 and scales [N] float32.

    A zero row gets scale 1 (its codes are all 0), so no scale is ever zero. Every step is per row
    or per element, so the rows are packed :data:`QUANT_BLOCK_ROWS` at a time with the same result:
    the float temporaries then stay a few MB instead of three copies of the 151936-row text table.
    """
    n = w.shape[0]
    q = torch.empty(w.shape, dtype=torch.int8, device=w.device)  # [N, K]
    scale = torch.empty(n, dtype=torch.float32, device=w.device)  # [N]
    for start in range(0, n, QUANT_BLOCK_ROWS):
        rows = w[start : start + QUANT_BLOCK_ROWS].detach().float()  # [n, K]
        amax = rows.abs().amax(dim=1)  # [n]
        block = torch.where(amax > 0, amax / INT8_MAX, torch.ones_like(amax))  # [n]
        scale[start : start + QUANT_BLOCK_ROWS] = block
        q[start : start + QUANT_BLOCK_ROWS] = torch.round(rows / block[:, None]).clamp(-INT8_MAX, INT8_MAX)
    return q, scale


def _check_cpu(t: Tensor, what: str) -> None:
    if t.device.type != "cpu":
        raise ValueError(
            f"int8 {what} is a CPU option (this tensor is on {t.device}); on a GPU run the LM in "
            "float32 or bfloat16 instead"
        )


class DynamicInt8Linear(nn.Module):
    """``nn.Linear`` replacement running the quantized engine's dynamic int8 GEMM (float in, float out).

    Holds only the prepacked int8 weight (and float32 bias) built from the layer it replaces.
    """

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        _check_cpu(linear.weight, "dynamic quantization")
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        q, scale = int8_per_channel(linear.weight)
        zero = torch.zeros_like(scale, dtype=torch.long)
        with warnings.catch_warnings():
            # torch 2.13 flags quantized-tensor constructors as deprecated; the prepacked GEMM is
            # still the fastest int8 CPU kernel it ships. WeightOnlyInt8Linear does not need them.
            warnings.simplefilter("ignore", UserWarning)
            qweight = torch._make_per_channel_quantized_tensor(q, scale.double(), zero, 0)  # qint8 [N, K]
        bias = None if linear.bias is None else linear.bias.detach().float().clone()
        self._packed = torch.ops.quantized.linear_prepack(qweight, bias)
        self.reduce_range = _reduce_range()

    def forward(self, x: Tensor) -> Tensor:
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features).float()  # [M, K]
        y = torch.ops.quantized.linear_dynamic(x2, self._packed, self.reduce_range)  # [M, N]
        return y.view(*lead, self.out_features).to(x.dtype)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8 dynamic"


def _reduce_range() -> bool:
    """7-bit inputs unless the CPU has VNNI.

    Without VNNI the fbgemm/x86 kernels add pairs of uint8 x int8 products in 16-bit lanes, which
    full 8-bit inputs can overflow; VNNI accumulates in 32 bits, so 8-bit inputs are safe there and
    halve the input rounding error (measured: logit rms error 1.3% -> 0.7% on the tiny models).
    """
    if torch.backends.quantized.engine not in ("fbgemm", "x86"):
        return False
    has_vnni = getattr(torch.cpu, "_is_vnni_supported", None)
    return not (callable(has_vnni) and bool(has_vnni()))


class WeightOnlyInt8Linear(nn.Module):
    """``nn.Linear`` replacement with int8 weights and bfloat16 activations (``_weight_int8pack_mm``).

    The output is returned in the input's dtype; the bias is added in float32.
    """

    qweight: Tensor
    scale: Tensor
    bias: Tensor | None

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        _check_cpu(linear.weight, "weight-only quantization")
        self.in_features = linear.in_features
        self.out_features = linear.out_features
        q, scale = int8_per_channel(linear.weight)
        self.register_buffer("qweight", q)  # [N, K] int8
        self.register_buffer("scale", scale.to(torch.bfloat16))  # [N]
        self.register_buffer("bias", None if linear.bias is None else linear.bias.detach().float().clone())

    def forward(self, x: Tensor) -> Tensor:
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features).to(torch.bfloat16)  # [M, K]
        y = torch._weight_int8pack_mm(x2, self.qweight, self.scale).float()  # [M, N]
        if self.bias is not None:
            y = y + self.bias
        return y.view(*lead, self.out_features).to(x.dtype)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8 weight-only"


class Int8Embedding(nn.Module):
    """Embedding table stored as int8 rows with one float32 scale per row, dequantised on lookup."""

    qweight: Tensor
    scale: Tensor

    def __init__(self, emb: nn.Embedding) -> None:
        super().__init__()
        self.num_embeddings = emb.num_embeddings
        self.embedding_dim = emb.embedding_dim
        q, scale = int8_per_channel(emb.weight)
        self.register_buffer("qweight", q)  # [V, D] int8
        self.register_buffer("scale", scale)  # [V]

    def forward(self, ids: Tensor) -> Tensor:
        rows = F.embedding(ids, self.qweight)  # [..., D] int8
        return rows.float() * F.embedding(ids, self.scale[:, None])  # [..., D]


def int8_linear(linear: nn.Linear, scheme: QuantScheme) -> nn.Module:
    """The int8 replacement of one linear layer."""
    if scheme == "dynamic":
        return DynamicInt8Linear(linear)
    if scheme == "weight_only":
        return WeightOnlyInt8Linear(linear)
    raise ValueError(f"unknown int8 scheme {scheme!r}; expected one of {', '.join(QUANT_SCHEMES)}")


def replace_linears(root: nn.Module, scheme: QuantScheme, skip: tuple[str, ...] = ()) -> int:
    """Swap every ``nn.Linear`` under ``root`` (except names in ``skip``) for its int8 version."""
    count = 0
    for name, child in list(root.named_children()):
        if name in skip:
            continue
        if isinstance(child, nn.Linear):
            setattr(root, name, int8_linear(child, scheme))
            count += 1
        else:
            count += replace_linears(child, scheme)
    return count


@dataclass(frozen=True)
class LogitAgreement:
    """How closely one model's logits follow a reference model's over the same steps."""

    steps: int  # positions compared (prefill + teacher-forced steps)
    max_abs: float  # max |logit - reference logit|
    max_rel: float  # max_abs / max |reference logit|
    rms_rel: float  # ||logits - reference|| / ||reference|| over all steps
    top1: float  # fraction of steps with the same argmax
    kl_mean: float  # mean KL(reference || model) of the softmax, nats
    kl_max: float  # worst step

    def summary(self) -> str:
        return (f"{self.steps} steps: max|dlogit| {self.max_abs:.3g} (rel {self.max_rel:.3g}), rms rel "
                f"{self.rms_rel:.3g}, top-1 agreement {100 * self.top1:.1f}%, KL mean {self.kl_mean:.3g} "
                f"max {self.kl_max:.3g} nats")


def logit_agreement(reference: Tensor, logits: Tensor) -> LogitAgreement:
    """Compare logits [N, V] with reference logits [N, V] of the same positions."""
    ref, out = reference.double(), logits.double()
    diff = (out - ref).abs()
    logp_ref = torch.log_softmax(ref, dim=-1)
    logp = torch.log_softmax(out, dim=-1)
    kl = (logp_ref.exp() * (logp_ref - logp)).sum(dim=-1)  # [N]
    return LogitAgreement(
        steps=int(ref.shape[0]),
        max_abs=float(diff.max()),
        max_rel=float(diff.max() / ref.abs().max()),
        rms_rel=float((out - ref).norm() / ref.norm()),
        top1=float((out.argmax(-1) == ref.argmax(-1)).double().mean()),
        kl_mean=float(kl.mean()),
        kl_max=float(kl.max()),
    )
