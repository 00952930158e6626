"""Token -> mel flow-matching models (CosyVoice2 conformer + U-Net, Fun-CosyVoice3 DiT).

:func:`load_flow` builds the family named by the config on the meta device and fills it from the
release ``flow.pt`` (strict: every key, every shape).
:func:`cosycore.conformance.flow.check_flow_reference` compares a loaded flow with the original
implementation's recorded numbers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import torch

from ..config import FlowConfig, ModelConfig
from ..devices import resolve_device
from ..errors import ConfigError
from ..weights import assign_state_dict, load_checkpoint, normalize_keys
from .base import FlowModel

logger = logging.getLogger(__name__)

__all__ = ["FlowModel", "build_flow", "load_flow"]

FLOW_FILE = "flow.pt"


def _flow_class(kind: str) -> Callable[[FlowConfig], FlowModel]:
    if kind == "unet":
        from .xvec_flow import CausalMaskedDiffWithXvec

        return CausalMaskedDiffWithXvec
    if kind == "dit":
        from .dit_flow import CausalMaskedDiffWithDiT

        return CausalMaskedDiffWithDiT
    raise ConfigError(f"unknown flow kind {kind!r} (expected 'unet' for CosyVoice2 or 'dit' for CosyVoice3)")


def build_flow(cfg: FlowConfig, device: torch.device | str = "meta") -> FlowModel:
    """Construct the flow model of ``cfg`` on ``device`` (meta by default: no memory, no init)."""
    cls = _flow_class(cfg.kind)
    with torch.device(device):
        return cls(cfg)


def load_flow(
    cfg: ModelConfig, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32
) -> FlowModel:
    """Load ``<model_dir>/flow.pt`` into the flow family of ``cfg.flow.kind``, in eval mode."""
    device = resolve_device(device)
    model = build_flow(cfg.flow)
    path = Path(cfg.model_dir) / FLOW_FILE
    sd = normalize_keys(load_checkpoint(path), "flow")
    sd = model.prepare_state_dict(sd, source=str(path))
    assign_state_dict(model, sd, path)
    model = model.to(device=device, dtype=dtype).eval()
    model.requires_grad_(False)
    logger.info("loaded %s (%s flow, %d parameters) on %s as %s", path, cfg.flow.kind,
                sum(p.numel() for p in model.parameters()), device, dtype)
    return model
