"""Weight layout of the float LM for decoding on a CPU.

A decode step multiplies one row of activations by every weight matrix of the LM: it reads the
whole 0.5B-parameter backbone (about 1.4 GB in float32) per token, so its speed is the speed at
which the matrix-vector kernel streams weights. For a matrix wider than it is deep (``out >
in``: gate and up of the SwiGLU, 4864 x 896, and the 6561 x 896 speech-token head), torch's CPU
kernel streams an ``[in, out]`` (input-major) weight at about twice the rate of the ``[out, in]``
layout ``nn.Linear`` keeps; for the square and deep ones (q/k/v, o, down) the usual layout is as
fast or faster. Measured on a 2-core AMD EPYC (AVX2), random full-size CosyVoice2 LM, float32:
6.3 -> 9.8 tokens/s (docs/performance.md, issue 28).

The products are the same up to float summation order (logits differ by about 1e-6, inside the
conformance tolerance of 1e-4). :class:`InputMajorLinear` keeps the ``nn.Linear`` state-dict
names and shapes, so checkpoints load into it and exports read from it as before.
"""

from __future__ import annotations

import logging
from typing import Any

import torch
from torch import Tensor, nn

logger = logging.getLogger(__name__)


class InputMajorLinear(nn.Module):
    """``y = x @ weight_t + bias`` with the weight kept as ``weight_t`` [in, out] (contiguous).

    Its state dict holds ``weight`` [out, in] and ``bias`` as ``nn.Linear``'s does.
    """

    def __init__(self, in_features: int, out_features: int, *, bias: bool,
                 device: torch.device | None = None, dtype: torch.dtype | None = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight_t = nn.Parameter(torch.empty(in_features, out_features, device=device, dtype=dtype),
                                     requires_grad=False)
        self.bias = (nn.Parameter(torch.empty(out_features, device=device, dtype=dtype), requires_grad=False)
                     if bias else None)

    @classmethod
    def from_linear(cls, linear: nn.Linear) -> InputMajorLinear:
        w = linear.weight
        out = cls(linear.in_features, linear.out_features, bias=linear.bias is not None,
                  device=w.device, dtype=w.dtype)
        with torch.no_grad():
            out.weight_t.copy_(w.t())
            if linear.bias is not None and out.bias is not None:
                out.bias.copy_(linear.bias)
        return out

    @property
    def weight(self) -> Tensor:
        """The weight as ``nn.Linear`` holds it, [out, in] (a transposed view, not a copy)."""
        return self.weight_t.t()

    def forward(self, x: Tensor) -> Tensor:
        y = torch.matmul(x, self.weight_t)
        return y if self.bias is None else y + self.bias

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        w = self.weight_t if keep_vars else self.weight_t.detach()
        destination[prefix + "weight"] = w.t()
        if self.bias is not None:
            destination[prefix + "bias"] = self.bias if keep_vars else self.bias.detach()

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any],
                              strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        key = prefix + "weight"
        if key not in state_dict:
            missing_keys.append(key)
        else:
            w = state_dict[key]
            if tuple(w.shape) != (self.out_features, self.in_features):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {tuple(w.shape)}, "
                                  f"the model has {(self.out_features, self.in_features)}")
            else:
                with torch.no_grad():
                    self.weight_t.copy_(w.t())
        if self.bias is not None:
            bkey = prefix + "bias"
            if bkey not in state_dict:
                missing_keys.append(bkey)
            elif tuple(state_dict[bkey].shape) != (self.out_features,):
                error_msgs.append(f"size mismatch for {bkey}: copying a param with shape "
                                  f"{tuple(state_dict[bkey].shape)}, the model has {(self.out_features,)}")
            else:
                with torch.no_grad():
                    self.bias.copy_(state_dict[bkey])

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def wide(linear: nn.Module) -> bool:
    """A float ``nn.Linear`` with more outputs than inputs: the shapes that decode faster input-major."""
    return (type(linear) is nn.Linear and linear.out_features > linear.in_features
            and linear.weight.dtype == torch.float32 and linear.weight.device.type == "cpu")


def use_decode_layout(model: nn.Module) -> int:
    """Swap every wide float32 CPU ``nn.Linear`` of ``model`` for an :class:`InputMajorLinear`, in place.

    Returns how many were swapped. Each swap copies one matrix (the old one is dropped), so the
    extra memory is one matrix at a time.
    """
    targets = [(name, m) for name, m in model.named_modules() if wide(m)]
    for name, linear in targets:
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, attr, InputMajorLinear.from_linear(linear))
    if targets:
        logger.debug("decode layout: %d linear layers stored input-major", len(targets))
    return len(targets)


def use_linear_layout(model: nn.Module) -> int:
    """Undo :func:`use_decode_layout`: every :class:`InputMajorLinear` back to an ``nn.Linear``."""
    targets = [(name, m) for name, m in model.named_modules() if isinstance(m, InputMajorLinear)]
    for name, im in targets:
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        w = im.weight_t
        linear = nn.Linear(im.in_features, im.out_features, bias=im.bias is not None, device=w.device, dtype=w.dtype)
        with torch.no_grad():
            linear.weight.copy_(im.weight)
            if im.bias is not None:
                linear.bias.copy_(im.bias)
        setattr(parent, attr, linear.requires_grad_(False))
    return len(targets)
