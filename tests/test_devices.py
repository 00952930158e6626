"""One device rule for the engine, the loaders and the benchmarks (cosycore.devices)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from cosycore.config import load_model_config
from cosycore.devices import resolve_device
from cosycore.errors import ModelLoadError
from cosycore.flow import load_flow
from cosycore.lm.load import load_llm
from cosycore.model import CosyModel

no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")


def test_auto_and_explicit_cpu() -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")


@no_cuda
def test_a_missing_gpu_is_an_error_everywhere_never_a_downgrade(cv2_dir: Path) -> None:
    cfg = load_model_config(cv2_dir)
    for load in (lambda: resolve_device("cuda:1"), lambda: load_llm(cfg, cv2_dir / "llm.pt", device="cuda"),
                 lambda: load_flow(cfg, device="cuda"), lambda: CosyModel.load(cv2_dir, device="cuda")):
        with pytest.raises(ModelLoadError, match="no usable CUDA GPU"):
            load()
