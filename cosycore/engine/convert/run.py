"""Running one voice conversion: the source's speech tokens through the flow and the vocoder in the target voice.

As the original's ``inference_vc`` (CosyVoice ``cli/cosyvoice.py``, ``frontend.frontend_vc`` and
``model.tts`` with ``source_speech_token``; see NOTICE), for both families:

1. the source at 16 kHz (the original's resampler) → Whisper log-mel → speech tokenizer → tokens [1, N];
2. no LM: those tokens are what token2wav gets, all of them (the Fun-CosyVoice3 rule that drops long
   runs of silent tokens applies to the LM's output only, as in the original's ``vc_job``);
3. the flow conditions on the target's prompt tokens, prompt mel and speaker embedding, streamed on the
   release schedule or in one call, then the vocoder, exactly as for speech
   (:class:`~cosycore.token2wav.Token2WavStream`).

The target's features: a saved voice's, as stored (aligned 2:1); a target recording's as the original's
``frontend_vc`` extracts them, without the 2:1 alignment of the zero-shot frontend, in exact mode (so
exact mode equals the original), and aligned in the other modes (their flow cache needs whole tokens).

A source longer than 30 s comes in pieces (:mod:`cosycore.engine.convert.source`), each converted like a
sentence of a synthesis: its own token2wav stream, one vocoder noise generator for the request. A
silent piece after the first becomes silence of its length without running the model. The chunks are
:class:`~cosycore.request.AudioChunk` objects, with ``sentence_index`` the piece and ``sentence_text`` "".
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Protocol

import numpy as np
import torch

from ...config import ModelConfig
from ...errors import InputError
from ...flow.cache import FlowCache
from ...frontend.features import whisper_log_mel
from ...frontend.onnx_models import SpeakerEncoderONNX, SpeechTokenizerONNX
from ...frontend.prompt import TOKENIZER_SAMPLE_RATE, PromptFeatures, extract_prompt, prompt_from_voice
from ...frontend.resample import resample_original
from ...model import CosyModel, SynthesisKnobs
from ...perf import PerfOptions
from ...request import AudioChunk
from ...threads import set_torch_threads
from ...token2wav import Token2WavStream, token_audio
from ..segments import RequestState, Segment
from .request import ConversionRequest
from .source import SourceInfo, SourcePiece, is_silent, iter_pieces, level_warnings

logger = logging.getLogger(__name__)


class ConverterEngine(Protocol):
    """What a conversion uses of its :class:`~cosycore.engine.Engine`."""

    cfg: ModelConfig
    model: CosyModel
    speech_tokenizer: SpeechTokenizerONNX
    speaker_encoder: SpeakerEncoderONNX
    perf: PerfOptions
    threads: int
    last_warnings: tuple[str, ...]

    @property
    def cancel_count(self) -> int: ...

    def _prompt_flow_cache(self, t2w: Token2WavStream) -> FlowCache | None: ...


def flow_is_exact(perf: PerfOptions) -> bool:
    """Whether the flow runs as the original's (a conversion has no LM, so its options do not matter)."""
    return perf.flow.exact and perf.flow_cache in ("off", "chunks")


def target_prompt(engine: ConverterEngine, req: ConversionRequest) -> PromptFeatures:
    """The target voice's features: a saved voice's (checked against the model's family and tokenizer),
    or extracted from the target recording (unaligned in exact mode, as the original's ``frontend_vc``)."""
    if req.voice is not None:
        sha = engine.speech_tokenizer.sha256 if req.voice.speech_tokenizer_sha256 else None
        return prompt_from_voice(req.voice, engine.cfg, speech_tokenizer_sha256=sha)
    assert req.prompt_audio is not None  # validate_conversion
    return extract_prompt(req.prompt_audio, req.prompt_sample_rate, engine.cfg, engine.speech_tokenizer,
                          engine.speaker_encoder, with_checksum=False, align=not flow_is_exact(engine.perf))


def source_tokens(samples: np.ndarray, sr: int, tokenizer: SpeechTokenizerONNX) -> torch.Tensor:
    """A piece of at most 30 s → its speech tokens int32 [1, N], as the original's ``_extract_speech_token``."""
    wav_16k = resample_original(samples, sr, TOKENIZER_SAMPLE_RATE)  # [N16]
    if wav_16k.shape[0] > 30 * TOKENIZER_SAMPLE_RATE:
        raise InputError("a piece of the source is longer than the speech tokenizer's 30 s")  # iter_pieces cuts
    return tokenizer.tokenize(whisper_log_mel(wav_16k, n_mels=128)).to(torch.int32).reshape(1, -1)  # [1, N]


def conversion_knobs(perf: PerfOptions, req: ConversionRequest) -> SynthesisKnobs:
    return SynthesisKnobs(stream=req.stream, seed=req.seed, speed=float(req.speed), n_steps=perf.flow.n_steps,
                          cfg_rate=perf.flow.cfg_rate, flow_cache=perf.flow_cache, flow_autocast=perf.flow.autocast)


def piece_stream(engine: ConverterEngine, prompt: PromptFeatures, knobs: SynthesisKnobs,
                 generator: torch.Generator) -> Token2WavStream:
    """A token2wav stream of one piece, in the target voice, with the engine's flow options."""
    t2w = engine.model.token2wav_stream(prompt.speech_tokens, prompt.prompt_mel, prompt.embedding, knobs=knobs,
                                        generator=generator)
    t2w.drop_silent_runs = False  # the original's vc_job hands every source token to the flow
    t2w.cache_limit_bytes = int(engine.perf.flow_cache_mb * 1e6)
    aligned = prompt.prompt_mel.shape[1] == engine.cfg.token_mel_ratio * prompt.num_tokens
    if not aligned:  # exact mode's target recording (the original's frontend_vc): the flow cache needs
        t2w.flow_cache = "off"  # two prompt frames per token, so this stream runs the original's calls
    if knobs.stream and engine.perf.flow_cache != "off" and engine.perf.prompt_cache and aligned:
        t2w.prompt_cache = engine._prompt_flow_cache(t2w)
    return t2w


def _silence(piece: SourcePiece, sample_rate: int, speed: float) -> np.ndarray:
    return np.zeros(round(piece.duration * sample_rate / speed), np.float32)


@torch.inference_mode()
def run_conversion(engine: ConverterEngine, req: ConversionRequest, info: SourceInfo,
                   state: RequestState) -> Iterator[AudioChunk]:
    """The chunks of one conversion (the engine wraps this in its cancel scope and error boundary)."""
    engine.last_warnings = ()
    prompt = target_prompt(engine, req)
    knobs = conversion_knobs(engine.perf, req)
    _, g_voc = engine.model.generators(req.seed)
    threads_before = torch.get_num_threads()
    set_torch_threads(engine.threads)
    pieces = iter_pieces(req.source, info, max_seconds=req.max_source_seconds)
    try:
        for piece in pieces:
            if state.cancelled():
                break
            if piece.index == 0:
                if is_silent(piece):
                    what = "is silent" if piece.is_last else "is silent for its first 30 s"
                    raise InputError(f"{info.name} {what}; choose or record a clip with speech in it.")
                state.warnings = (*prompt.warnings, *level_warnings(piece))
                engine.last_warnings = state.warnings
            seg = Segment(piece.index, "", iter(()), piece.is_last)
            if piece.index > 0 and is_silent(piece):
                yield state.chunk(_silence(piece, state.sample_rate, float(req.speed)), seg, sentence_final=True)
                continue
            tokens = source_tokens(piece.samples, piece.sample_rate, engine.speech_tokenizer)
            logger.info("converting piece %d: %.1f s from %.1f s, %d tokens", piece.index, piece.duration,
                        piece.start, tokens.shape[1])
            t2w = piece_stream(engine, prompt, knobs, g_voc)
            ids = state.take_tokens(iter(tokens[0].tolist()))
            for audio, seg_end in token_audio(ids, t2w, cancelled=state.cancelled):
                if state.cancelled():
                    break
                if audio.size or (seg_end and seg.is_last):
                    yield state.chunk(audio, seg, sentence_final=seg_end)
    finally:
        pieces.close()
        set_torch_threads(threads_before)
    if state.cancelled():
        logger.info("conversion stopped after %d chunks (cancelled)", state.chunk_index)
