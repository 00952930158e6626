"""What passes between the GUI and the engine thread, in plain values: the take asked for
(:class:`SpeakRequest`), its pieces (:class:`Chunk`), how it went (:class:`SynthesisStats`), the loaded
model (:class:`ModelInfo`) and the message a failure shows (:func:`readable_error`); and the mapping
of the GUI's request onto :class:`cosycore.engine.SynthesisRequest` and of the engine's
:class:`~cosycore.engine.AudioChunk` back onto a :class:`Chunk`.

:mod:`app.worker.engine_thread` runs the jobs and re-exports every name here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cosycore.errors import CosyError
from cosycore.request import ChunkTiming
from cosycore.studio.lexicon import Lexicon
from cosycore.voices import Voice

from ..takes.script_take import ScriptMark


@dataclass(frozen=True, eq=False)
class SpeakRequest:
    """One take the user asked for, in plain values (mapped onto the engine's request in the thread)."""

    text: str
    mode: str = "zero_shot"  # "zero_shot" (clone), "cross_lingual" or "instruct"
    voice: Voice | None = None  # saved voice to speak with
    prompt_audio: np.ndarray | None = None  # or raw prompt audio (float32 [N]) ...
    prompt_sample_rate: int = 0  # ... at this rate
    prompt_text: str = ""  # transcript of raw prompt audio (a saved voice carries its own)
    instruct_text: str = ""  # instruction for "instruct" mode
    speed: float = 1.0
    seed: int | None = None
    stream: bool = True
    max_tokens: int | None = None  # advanced cap on speech tokens per sentence (benchmarks, tests)
    text_reading: str = ""  # "original" or "improved" (cosycore.frontend.text_reading); "" follows the quality mode
    lexicon: Lexicon | None = None  # pronunciation dictionaries (app, voice) applied to the text before the engine


@dataclass(frozen=True, eq=False)
class Chunk(ChunkTiming):
    """One piece of a take as the GUI sees it (copied out of the engine's chunk)."""

    samples: np.ndarray  # float32 [N], mono, read-only
    sample_rate: int
    index: int  # 0, 1, 2, … within the take
    is_final: bool  # the last chunk of the take
    start_time: float  # seconds of the take before this chunk
    sentence_index: int  # which text segment the audio belongs to
    sentence_text: str  # that segment as spoken (normalised)
    sentence_final: bool  # the segment ends with this chunk
    elapsed: float  # seconds from the request to this chunk
    tokens_so_far: int = 0  # speech tokens generated so far in the take
    warnings: tuple[str, ...] = ()  # on the first chunk: things the user should know
    script: ScriptMark | None = None  # a script take's chunk: its segment, line and speaker
    live: Any = None  # a live conversion's chunk: its piece's times (app.worker.convert_jobs.LiveMark)


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


@dataclass(frozen=True)
class ModelInfo:
    """What the status bar shows about the loaded model."""

    model_dir: str
    family: str  # "cosyvoice2" or "cosyvoice3"
    title: str  # "CosyVoice2" or "Fun-CosyVoice3"
    sample_rate: int
    device: str  # e.g. "cpu", "cuda:0"
    load_seconds: float
    quality: str = "exact"  # the engine's quality mode: "exact", "fast" or "draft" (cosycore.perf)
    requested_quality: str = ""  # what the load asked for: the same, or "auto" (which chose ``quality``)

    def __post_init__(self) -> None:
        if not self.requested_quality:
            object.__setattr__(self, "requested_quality", self.quality)


def readable_error(e: BaseException) -> str:
    """The message to show a person: cosycore's own for its errors, the type and text otherwise."""
    if isinstance(e, CosyError):
        return str(e)
    if isinstance(e, MemoryError):
        return "The computer ran out of memory. Close other programs or use a shorter text."
    return f"Unexpected error ({type(e).__name__}): {e}. Details are in the log."



def to_engine_request(engine_mod: Any, request: SpeakRequest) -> Any:
    """Map the GUI's request onto :class:`cosycore.engine.SynthesisRequest`.

    Fields that do not apply to the mode are left out rather than sent empty, because the engine
    refuses (with a message) a transcript outside zero_shot and an instruction outside instruct.
    The pronunciation dictionaries replace their terms here, before the engine's text normalisation,
    as ``cosycore synth --lexicon`` does; the take keeps the text as typed.
    """
    return engine_mod.SynthesisRequest(
        text=request.lexicon.apply(request.text) if request.lexicon is not None else request.text,
        mode=request.mode,
        voice=request.voice,
        prompt_audio=request.prompt_audio,
        prompt_sample_rate=request.prompt_sample_rate or None,
        prompt_text=(request.prompt_text or None) if request.mode == "zero_shot" else None,
        instruct_text=(request.instruct_text or None) if request.mode == "instruct" else None,
        speed=request.speed,
        seed=request.seed,
        stream=request.stream,
        max_tokens=request.max_tokens,
        text_reading=request.text_reading or None,
    )


def to_chunk(raw: Any, elapsed: float) -> Chunk:
    """Copy one :class:`cosycore.engine.AudioChunk` into the GUI's :class:`Chunk`."""
    samples = np.array(raw.samples, dtype=np.float32, copy=True).reshape(-1)  # never alias engine buffers
    samples.setflags(write=False)
    return Chunk(
        samples=samples,
        sample_rate=int(raw.sample_rate),
        index=int(raw.index),
        is_final=bool(raw.is_final),
        start_time=float(raw.start_time),
        sentence_index=int(raw.sentence_index),
        sentence_text=str(raw.sentence_text),
        sentence_final=bool(raw.sentence_final),
        elapsed=elapsed,
        tokens_so_far=int(raw.tokens_so_far),
        warnings=tuple(str(w) for w in raw.warnings),
    )
