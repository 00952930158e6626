"""The public engine: one :class:`Engine` per loaded model, ``synthesize(request) -> chunks``.

    engine = Engine("CosyVoice2-0.5B")
    request = SynthesisRequest("Hello there.", mode="zero_shot", prompt_audio="me.wav",
                               prompt_text="What I say in me.wav.")
    for chunk in engine.synthesize(request):
        play(chunk.samples, chunk.sample_rate)

This package's face is these four names. Inside: :mod:`.core` (the engine and its request loop) and
:mod:`.segments` (the state of one running request). The request's checks live in
:mod:`cosycore.request`, mode planning and the text path in :mod:`cosycore.mode_plan`, the error
boundary's messages in :mod:`cosycore.failures`.
"""

from ..request import AudioChunk, SynthesisRequest
from .core import Engine, EngineInfo

__all__ = ["AudioChunk", "Engine", "EngineInfo", "SynthesisRequest"]
