"""The engine's error boundary: an unexpected exception becomes a :class:`~cosycore.errors.CosyError`
whose message says what to do (out of memory, a sentence too long for the flow, damaged files)."""

from __future__ import annotations

from pathlib import Path

import torch

from .errors import CosyError, EngineError

OOM_ADVICE = "not enough memory: choose Draft quality or shorter sentences (or close other programs)"


def is_out_of_memory(e: BaseException) -> bool:
    if isinstance(e, (MemoryError, getattr(torch, "OutOfMemoryError", MemoryError))):
        return True
    text = str(e).lower()
    return isinstance(e, RuntimeError) and ("out of memory" in text or "not enough memory" in text
                                             or "can't allocate memory" in text)


def as_engine_error(e: Exception, doing: str, model_dir: Path | str) -> CosyError:
    """The :class:`CosyError` to raise for an unexpected failure while ``doing`` something.

    Out of memory gets the advice to use Draft quality or shorter sentences; the flow's length limit
    gets the advice to split the text; anything else names the step and suggests ``models verify``.
    """
    if isinstance(e, CosyError):
        return e
    if is_out_of_memory(e):
        return EngineError(f"{doing} failed: {OOM_ADVICE}.")
    if isinstance(e, ValueError) and "frame limit" in str(e):
        return EngineError(f"{doing} failed: a sentence is too long for the flow ({e}).")
    return EngineError(
        f"{doing} failed unexpectedly ({type(e).__name__}: {e}). The model files may be damaged: run "
        f"'cosycore models verify {model_dir}'; if they check out, please report this with the log."
    )
