"""Checkpoint loading: no pickle execution, no second copy, strict keys.

``llm.pt``, ``flow.pt`` and ``hift.pt`` are plain ``torch.save(state_dict)`` files. They are opened
with ``weights_only=True`` (a pickle of anything but tensors and containers is refused, never run)
and memory-mapped, then assigned into modules that were built on the meta device. Every rename of a
key between the release layout and our modules lives in :func:`normalize_keys`.
"""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Mapping
from pathlib import Path
from pickle import UnpicklingError  # only to recognise a refused unsafe pickle

import torch
from torch import nn

from .errors import CheckpointError, ModelNotFoundError, StateDictMismatchError, UnsafeCheckpointError

logger = logging.getLogger(__name__)

StateDict = dict[str, torch.Tensor]

LLM_QWEN_PREFIX = "llm.model.model."  # release prefix of the Qwen2 backbone inside llm.pt


def _detail(e: BaseException) -> str:
    """The useful part of torch's message, without its advice to load with ``weights_only=False``.

    That advice would run whatever code the file holds; this program never gives it. Only lines that
    name what was found (for example ``unsupported GLOBAL posix.system``) are kept.
    """
    keep = [line.strip() for line in str(e).splitlines()
            if line.strip() and "weights_only" not in line and "trusted source" not in line
            and "documentation" not in line.lower()]
    text = " ".join(keep)[:300]
    return f" Detail: {text}" if text else ""


def _compressed_records(path: Path) -> list[str]:
    """The records of a zip checkpoint stored compressed (``torch.save`` stores them uncompressed).

    A memory-mapped load reads each tensor's bytes in place, at its record's offset in the file, so
    a compressed record (a checkpoint re-zipped with DEFLATE) would load its compressed bytes as
    weights: garbage found only at the first synthesis, or torch's "Trying to resize storage".
    Only the zip's central directory is read. A legacy (non-zip) file has none.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            return [i.filename for i in zf.infolist() if i.compress_type != zipfile.ZIP_STORED]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return []  # not a zip (legacy format) or damaged: torch.load says which


def load_checkpoint(path: Path | str) -> StateDict:
    """Open a ``.pt`` state dict safely (``weights_only=True``, memory-mapped where possible).

    A zip checkpoint whose records are compressed (re-zipped with DEFLATE) is read without the
    memory map, which would take the compressed bytes for weights (:func:`_compressed_records`).
    """
    path = Path(path)
    if not path.exists():
        raise ModelNotFoundError(
            f"{path.name} is missing from {path.parent}. The release folder is incomplete: "
            "download the model again or copy the missing file in."
        )
    if path.stat().st_size == 0:
        raise CheckpointError(f"{path} is empty (0 bytes); the download was interrupted. Download it again.")
    compressed = _compressed_records(path)
    if compressed:
        logger.warning("%s holds %d compressed record(s) (%s, ...), as a re-zipped checkpoint does; it is "
                       "read into memory instead of memory-mapped", path, len(compressed), compressed[0])
    try:
        try:
            sd = torch.load(path, map_location="cpu", weights_only=True, mmap=not compressed)
        except RuntimeError as e:
            # Legacy (non-zip) files cannot be memory-mapped; fall back to a normal safe load.
            if "mmap" not in str(e) or compressed:
                raise
            sd = torch.load(path, map_location="cpu", weights_only=True)
    except UnpicklingError as e:
        raise UnsafeCheckpointError(
            f"{path} contains pickled Python objects, not just tensors, so it was not loaded "
            f"(loading it could run code). Use the file from the official release.{_detail(e)}"
        ) from e
    except (RuntimeError, EOFError, zipfile.BadZipFile, OSError, ValueError) as e:
        raise CheckpointError(
            f"{path} is truncated or corrupt and cannot be read.{_detail(e)} Download it again."
        ) from e
    if not isinstance(sd, Mapping) or not all(isinstance(v, torch.Tensor) for v in sd.values()):
        raise CheckpointError(
            f"{path} does not hold a state dict of tensors (found {type(sd).__name__}). "
            "Use the llm.pt / flow.pt / hift.pt files of the release."
        )
    return dict(sd)


def normalize_keys(sd: StateDict, component: str) -> StateDict:
    """Map the release's key spellings onto ours (the one place where keys are renamed).

    - ``hift``: strip a leading ``generator.`` (files saved from GAN training).
    - ``llm``: the Qwen2 backbone, ``llm.model.model.*`` in the release (the wrappers of upstream's
      ``Qwen2Encoder`` and ``Qwen2ForCausalLM``), is ``qwen.*`` in ``cosycore.lm.speech_lm.SpeechLM``. The tied,
      unused ``llm.model.lm_head.weight`` keeps its name; ``cosycore.lm.speech_lm`` checks and drops it.
    - weight norm: the legacy ``weight_g`` / ``weight_v`` pair becomes
      ``parametrizations.weight.original0`` / ``original1`` (same values: g and v).
    """
    out: StateDict = {}
    for key, value in sd.items():
        if component == "hift" and key.startswith("generator."):
            key = key[len("generator.") :]
        if component == "llm" and key.startswith(LLM_QWEN_PREFIX):
            key = "qwen." + key[len(LLM_QWEN_PREFIX) :]
        if key.endswith(".weight_g"):
            key = key[: -len("weight_g")] + "parametrizations.weight.original0"
        elif key.endswith(".weight_v"):
            key = key[: -len("weight_v")] + "parametrizations.weight.original1"
        out[key] = value
    return out


def _format_keys(keys: list[str], limit: int = 12) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f" … and {len(keys) - limit} more" if len(keys) > limit else "")


def check_state_dict(module: nn.Module, sd: StateDict, source: Path | str) -> None:
    """Raise :class:`StateDictMismatchError` listing the keys of ``sd`` that ``module`` lacks, those it
    wants and ``sd`` lacks, and the mis-shaped ones; reads shapes only (works on the meta device)."""
    expected = module.state_dict(keep_vars=True)
    missing = sorted(set(expected) - set(sd))
    unexpected = sorted(set(sd) - set(expected))
    bad_shapes = sorted(
        f"{k} {tuple(sd[k].shape)} (model wants {tuple(expected[k].shape)})"
        for k in set(expected) & set(sd)
        if tuple(sd[k].shape) != tuple(expected[k].shape)
    )
    if missing or unexpected or bad_shapes:
        parts = []
        if missing:
            parts.append(f"missing keys: {_format_keys(missing)}")
        if unexpected:
            parts.append(f"unexpected keys: {_format_keys(unexpected)}")
        if bad_shapes:
            parts.append(f"wrong shapes: {_format_keys(bad_shapes)}")
        raise StateDictMismatchError(
            f"{source} does not fit the architecture described by the yaml ({'; '.join(parts)}). "
            "The checkpoint and the yaml come from different releases; download the folder again."
        )


def assign_state_dict(module: nn.Module, sd: StateDict, source: Path | str) -> None:
    """Load ``sd`` into ``module`` strictly, assigning tensors instead of copying.

    Raises :class:`StateDictMismatchError` listing the missing, unexpected and mis-shaped keys.
    """
    check_state_dict(module, sd, source)
    expected = module.state_dict(keep_vars=True)
    # Match the module's parameter dtypes (a bf16 checkpoint loads into fp32 modules and back).
    cast = {k: (v.to(expected[k].dtype) if v.dtype != expected[k].dtype and v.is_floating_point() else v)
            for k, v in sd.items()}
    module.load_state_dict(cast, strict=True, assign=True)


def embedding(rows: int, dim: int) -> nn.Embedding:
    """``nn.Embedding(rows, dim)``, without its random init when built on the meta device.

    The loaders build each model on the meta device and assign the checkpoint's tensors after. A meta
    tensor holds no numbers, yet initialising one still runs torch's Python reference of ``normal_``,
    whose first call imports torch._dynamo and sympy: seconds of every model load in a fresh process.
    Elsewhere (tests and benches build random models on the CPU) the table is initialised as usual.
    """
    if torch.empty(0).is_meta:  # the default device: a `with torch.device("meta")` block
        return nn.Embedding(rows, dim, _weight=torch.empty(rows, dim))
    return nn.Embedding(rows, dim)
