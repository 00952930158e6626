"""The steps of loading a release folder, and how far a load has got (for a progress bar).

:class:`~cosycore.engine.core.Engine` calls its ``progress(fraction, step)`` callback as each step
begins, and once more with ``(1.0, "ready")``. ``fraction`` is the share of the load done before
that step, weighted by the bytes each step reads from the folder plus a fixed allowance for its
imports and set-up (:data:`STEP_OVERHEAD_BYTES`), so a large LM moves the bar in proportion and
the small steps still show. The step names are stable keys (:data:`LOAD_STEPS`) that a front end
translates. Torch-free: the desktop app names the steps before torch is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["LOAD_STEPS", "READY", "STEP_OVERHEAD_BYTES", "LoadProgress", "LoadSteps", "step_bytes"]

# The order in which the engine loads; "warm_up" is reported only where the quality mode warms up the model.
LOAD_STEPS = ("llm", "flow", "vocoder", "warm_up", "text_tokenizer", "speech_tokenizer", "speaker_encoder")
READY = "ready"
# What a step costs beyond its bytes (imports of transformers and onnxruntime, building the modules):
# about what reading this many bytes costs on a laptop disk, so a tiny model's bar still moves evenly.
STEP_OVERHEAD_BYTES = 64 * 1024 * 1024

LoadProgress = Callable[[float, str], None]


def _size(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.iterdir() if p.is_file())
        return path.stat().st_size
    except OSError:  # the folder check has named missing files already; a share of 0 is enough here
        return 0


def step_bytes(model_dir: Path, speech_tokenizer_file: str, qwen_dir: Path) -> dict[str, int]:
    """Bytes each step reads from a release folder (0 for a file that cannot be read)."""
    return {
        "llm": _size(model_dir / "llm.pt"),
        "flow": _size(model_dir / "flow.pt"),
        "vocoder": _size(model_dir / "hift.pt"),
        "warm_up": 0,
        "text_tokenizer": _size(qwen_dir),
        "speech_tokenizer": _size(model_dir / speech_tokenizer_file),
        "speaker_encoder": _size(model_dir / "campplus.onnx"),
    }


class LoadSteps:
    """Reports the steps of one load to ``progress`` (None: nothing is reported).

    ``sizes``: bytes per step (:func:`step_bytes`); ``skip``: steps this load does not run (their share
    is left out, so the bar still reaches 100 % evenly).
    """

    def __init__(self, progress: LoadProgress | None, sizes: Mapping[str, int], *, skip: tuple[str, ...] = ()) -> None:
        self._progress = progress
        self._weights = {s: sizes.get(s, 0) + STEP_OVERHEAD_BYTES for s in LOAD_STEPS if s not in skip}
        self._total = float(sum(self._weights.values()))

    def fraction_before(self, step: str) -> float:
        """The share of the load done when ``step`` begins (0.0 to 1.0)."""
        if step not in self._weights:
            raise ValueError(f"unknown load step {step!r}; expected one of {tuple(self._weights)}")
        done = 0
        for name, weight in self._weights.items():
            if name == step:
                break
            done += weight
        return done / self._total

    def begin(self, step: str) -> None:
        """``step`` begins now."""
        if self._progress is not None and step in self._weights:
            self._progress(self.fraction_before(step), step)

    def ready(self) -> None:
        if self._progress is not None:
            self._progress(1.0, READY)
