"""Building and loading the HiFT vocoder of a release folder (``hift.pt``)."""

from __future__ import annotations

import logging
from typing import cast

import torch
from torch import nn
from torch.nn.utils import parametrize

from ..config import ModelConfig
from ..weights import assign_state_dict, load_checkpoint, normalize_keys
from .hift import CausalHiFTGenerator, HiFTGenerator
from .nsf import CausalNoiseRecipe

logger = logging.getLogger(__name__)


def build_hift(cfg: ModelConfig) -> HiFTGenerator | CausalHiFTGenerator:
    """The vocoder for this release, with initialised (random) weights on the current device."""
    if cfg.hift.causal:
        return CausalHiFTGenerator(cfg.hift, CausalNoiseRecipe.from_model_config(cfg))
    return HiFTGenerator(cfg.hift)


def fold_weight_norm(module: nn.Module) -> int:
    """Replace every weight-norm parametrization by its plain weight (faster). Returns the count.

    The folded weight stays a Parameter (torch would leave a buffer when grads are off), so
    ``parameters()`` and dtype / device moves see it as before; the key becomes ``<mod>.weight``.
    """
    targets = [m for m in module.modules() if parametrize.is_parametrized(m, "weight")]
    with torch.no_grad():
        for m in targets:
            requires_grad = any(p.requires_grad for p in m.parameters(recurse=True))
            parametrize.remove_parametrizations(m, "weight", leave_parametrized=True)
            folded = cast(torch.Tensor, m.weight).detach()
            delattr(m, "weight")
            m.weight = nn.Parameter(folded, requires_grad=requires_grad)
    return len(targets)


def load_hift(cfg: ModelConfig, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32, *,
              fold: bool = True) -> HiFTGenerator | CausalHiFTGenerator:
    """Build the vocoder on the meta device, assign ``hift.pt`` strictly, move it and set eval.

    The NSF source and the STFTs always run in float32; ``dtype`` sets the convolutions. The
    CosyVoice3 f0 predictor runs in float64 as in the original. ``fold`` folds weight norm into
    plain weights after loading (outputs change by < 1e-6).
    """
    path = cfg.model_dir / "hift.pt"
    with torch.device("meta"):
        model = build_hift(cfg)
    sd = normalize_keys(load_checkpoint(path), "hift")
    assign_state_dict(model, sd, path)
    model.to(device=device, dtype=dtype)
    model.m_source.float()  # the NSF source always runs in float32
    if isinstance(model, CausalHiFTGenerator):
        model._f0_float64()  # as the original: the f0 predictor in float64
    else:
        model.f0_predictor.float()
    if fold:
        n = fold_weight_norm(model)
        logger.debug("folded weight norm into %d layers of %s", n, path)
    model.eval()
    model.requires_grad_(False)
    return model

