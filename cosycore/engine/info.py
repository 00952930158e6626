"""What a loaded engine is: :class:`EngineInfo`. Plain values, no torch, so a program can name the
type (the desktop app does, before its first paint) without loading the engine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EngineInfo:
    """Facts about a loaded model, for ``cosycore info`` and the app's status bar."""

    family: str  # "cosyvoice2" or "cosyvoice3"
    title: str  # "CosyVoice2" or "Fun-CosyVoice3"
    model_dir: Path  # the release folder
    device: str  # torch device the networks run on
    dtype: str  # torch dtype of the networks
    sample_rate: int  # output sample rate
    token_rate: int  # speech tokens per second of audio
    parameters: tuple[tuple[str, int], ...]  # (network, parameter count): llm, flow, hift
    onnx_files: tuple[tuple[str, int], ...]  # (file name, bytes) of the frontend models
    text_vocab: int  # text tokenizer ids
    quality: str = "exact"  # "exact", "fast", "draft" or "custom" (see cosycore.perf)
    text_reading: str = "original"  # the default text reading: "original" or "improved"
    requested_quality: str = "exact"  # what was asked for: the above, or "auto" (which chose ``quality``)
    load_seconds: float = 0.0  # how long loading took (the Engine's own load; a caller may add its warm-up)

    @property
    def total_parameters(self) -> int:
        return sum(n for _, n in self.parameters)
