"""Token -> mel flow-matching models (CosyVoice2 conformer + U-Net, Fun-CosyVoice3 DiT).

:func:`load_flow` builds the family named by the config on the meta device and fills it from the
release ``flow.pt`` (strict: every key, every shape).
:func:`cosycore.conformance.flow.check_flow_reference` compares a loaded flow with the original
implementation's recorded numbers.
"""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Callable
from pathlib import Path

import torch

from ..config import FlowConfig, ModelConfig
from ..devices import resolve_device
from ..errors import ConfigError
from ..weights import assign_state_dict, check_state_dict, load_checkpoint, normalize_keys
from .base import FlowModel
from .cfm import FlowSettings

logger = logging.getLogger(__name__)

__all__ = ["FlowModel", "FlowSettings", "build_flow", "load_flow"]

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
    cfg: ModelConfig, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32, *,
    fixed: FlowSettings | None = None,
) -> FlowModel:
    """Load ``<model_dir>/flow.pt`` into the flow family of ``cfg.flow.kind``, in eval mode.

    ``fixed`` (a memory option, draft mode): the flow will only run with these settings, so an
    estimator that supports it computes its time conditioning once and never keeps those weights
    (:meth:`FlowModel.fix_time_steps`). They are read from their own mapping of ``flow.pt``, which is
    dropped before the rest is mapped, so their pages do not stay resident either.
    """
    device = resolve_device(device)
    model = build_flow(cfg.flow)
    path = Path(cfg.model_dir) / FLOW_FILE
    sd = model.prepare_state_dict(normalize_keys(load_checkpoint(path), "flow"), source=str(path))
    if fixed is not None and model.time_modules():
        check_state_dict(model, sd, path)  # the whole file, as an unfixed load checks it
        _fill_time_modules(model, sd, path, device, dtype)
        if zipfile.is_zipfile(path):  # memory-mapped: map the rest afresh (a legacy file is read in whole)
            sd = normalize_keys(load_checkpoint(path), "flow")
        model.fix_time_steps(fixed)
        sd = model.prepare_state_dict(sd, source=str(path))  # now without the time weights
    assign_state_dict(model, sd, path)
    model = model.to(device=device, dtype=dtype).eval()
    model.requires_grad_(False)
    logger.info("loaded %s (%s flow, %d parameters) on %s as %s", path, cfg.flow.kind,
                sum(p.numel() for p in model.parameters()), device, dtype)
    return model


def _fill_time_modules(model: FlowModel, sd: dict[str, torch.Tensor], path: Path, device: torch.device,
                       dtype: torch.dtype) -> None:
    """Assign the time-conditioning weights of ``sd`` into the meta-device ``model``'s time modules
    (on ``device`` in ``dtype``). Its own function, so no local keeps one of them alive afterwards."""
    for prefix, module in model.time_modules().items():
        part = {k[len(prefix) + 1 :]: v for k, v in sd.items() if k.startswith(prefix + ".")}
        assign_state_dict(module, part, path)
        module.to(device=device, dtype=dtype)
