"""The public engine: one :class:`Engine` per loaded model, ``synthesize(request) -> chunks``.

    engine = Engine("CosyVoice2-0.5B")
    request = SynthesisRequest("Hello there.", mode="zero_shot", prompt_audio="me.wav",
                               prompt_text="What I say in me.wav.")
    for chunk in engine.synthesize(request):
        play(chunk.samples, chunk.sample_rate)

This package's face is these four names. Inside: :mod:`.core` (the engine and its request loop),
:mod:`.segments` (the state of one running request) and :mod:`.info` (what a loaded engine is). The
request's checks live in :mod:`cosycore.request`, mode planning and the text path in
:mod:`cosycore.mode_plan`, the error boundary's messages in :mod:`cosycore.failures`.

:class:`Engine` is imported on first use: the plain values (the request, its chunks, the engine's
facts) need no torch, so a program can name them before it loads the engine (the desktop app paints
its window first and loads torch on its engine thread).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..request import AudioChunk, SynthesisRequest
from .info import EngineInfo

if TYPE_CHECKING:
    from .core import Engine

__all__ = ["AudioChunk", "Engine", "EngineInfo", "SynthesisRequest"]


def __getattr__(name: str) -> Any:
    if name == "Engine":
        from .core import Engine

        return Engine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
