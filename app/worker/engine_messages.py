"""What passes between the GUI and the engine thread besides the engine's own types: how a take went
(:class:`SynthesisStats`), the message a failure shows (:func:`readable_error`), and the GUI's copy of
an engine chunk (:func:`detached_chunk`).

The take asked for is the engine's :class:`~cosycore.request.SynthesisRequest`, its pieces the engine's
:class:`~cosycore.request.AudioChunk` (a script take's: :class:`cosycore.studio.script_take.ScriptChunk`), and
the loaded model the engine's :class:`~cosycore.engine.info.EngineInfo`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cosycore.errors import CosyError
from cosycore.request import AudioChunk


@dataclass(frozen=True)
class SynthesisStats:
    """How one take went."""

    request_id: int
    audio_seconds: float = 0.0
    wall_seconds: float = 0.0
    first_audio_seconds: float | None = None  # time to first audio; None if nothing came
    chunks: int = 0
    cancelled: bool = False

    @property
    def rtf(self) -> float | None:
        """Real-time factor: seconds of work per second of audio."""
        return self.wall_seconds / self.audio_seconds if self.audio_seconds > 0 else None


def readable_error(e: BaseException) -> str:
    """The message to show a person: cosycore's own for its errors, the type and text otherwise."""
    if isinstance(e, CosyError):
        return str(e)
    if isinstance(e, MemoryError):
        return "The computer ran out of memory. Close other programs or use a shorter text."
    return f"Unexpected error ({type(e).__name__}): {e}. Details are in the log."


def detached_chunk(raw: AudioChunk, timing: float) -> AudioChunk:
    """``raw`` with its own read-only copy of the samples (never an alias of an engine buffer) and
    ``timing``: the seconds from the request to this chunk, as the engine thread measured them."""
    samples = np.array(raw.samples, dtype=np.float32, copy=True).reshape(-1)
    samples.setflags(write=False)
    return replace(raw, samples=samples, timing=timing)
