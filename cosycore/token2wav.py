"""token2wav streaming: speech tokens in, audio chunks out, as a plain generator with explicit state.

Shapes: P = prompt speech tokens, N = generated tokens so far, C = 80 mel bins, T = mel frames.

The release schedule (both families): the first hop is ``chunk + pad`` tokens where ``pad`` rounds
the prompt up to a multiple of ``chunk`` (25), so that every emitted region ends on an attention
chunk boundary of the full prompt + generated sequence; later hops double up to 100. Each call
needs ``hop + 3`` tokens (3 look-ahead tokens). The last call runs the flow with
``streaming=False, finalize=True`` over everything. Hop growth is per stream: a new request always
starts from the first hop (upstream keeps it on the model and leaks it across requests).

All per-request state lives in :class:`Token2WavStream`; the models hold none.

Flow cache modes (``Token2WavStream.flow_cache``):

* ``"off"`` (default, exact): every streamed call re-runs the flow over the whole prefix, as the
  original does; identical to the original's stream.
* ``"chunks"``: streamed calls reuse the per-layer states of earlier frames
  (:mod:`cosycore.flow.cache`) and compute only their new frames, which equal the uncached ones up
  to float rounding (about 1e-6). The final call is the exact one (``streaming=False``, full
  attention over everything), so it still costs one pass over the whole utterance.
* ``"full"``: the final call is cached too, so every call costs only its new frames. It runs with
  chunk masks (``streaming=True, finalize=True``) instead of the exact final call's full
  attention. Only the last segment (the frames after the last streamed chunk) differs from the
  exact stream: there, each frame attends to the cached chunk-causal states of the earlier frames
  (the exact call recomputes them with full attention, so they have seen the whole utterance) and
  to the frames of the last segment only up to the end of its own 50-frame (25-token) chunk. The
  look-ahead of the last tokens is zero padding in both. README "Performance" gives the measured
  mel difference. A stream that emitted nothing before ``finish()`` uses the exact final call.

With a cache mode, a stream may start from ``prompt_cache``, the prompt's own frames computed once
per voice and flow setting (:func:`prompt_flow_cache`): its first call then runs over the new frames
and the last partial chunk of the prompt only.

Memory bound: ``cache_limit_bytes`` (the engine's default is a quarter of the machine's memory,
between 512 MB and 8 GB: ``cosycore.perf.default_flow_cache_mb``). When a streamed call leaves the
cache above it, the cache stops growing (:meth:`~cosycore.flow.cache.FlowCache.freeze`) but stays on:
every later call attends to the cached frames and re-runs only the frames after them (the cost of
those grows with the length; the frames before the bound cost nothing again). The audio stays the
same up to float rounding and memory stays bounded. The cache needs about 4.6 MB per mel frame in
the exact flow settings (10 steps with CFG) and a fifth of that in draft settings.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
import torch
import torch.nn.functional as F

from .cancel import cancel_point
from .config import MAX_SPEED, MIN_SPEED
from .flow.cache import FlowCache
from .speed import MelStretchStream, check_speed

logger = logging.getLogger(__name__)

# CosyVoice3 "FSQ silent and breath" tokens: runs longer than 5 are dropped before the flow.
CV3_SILENT_TOKENS = frozenset({1, 2, 28, 29, 55, 248, 494, 2241, 2242, 2322, 2323})
MAX_SILENT_RUN = 5


# Close port of CosyVoice (Apache-2.0) cli/model.py (token_hop_len and its growth); see NOTICE.
@dataclass(frozen=True)
class StreamSchedule:
    """Hop sizes of the release streaming schedule (tokens)."""

    chunk: int = 25  # must equal the flow's training static chunk
    max_hop: int = 100
    growth: int = 2
    lookahead: int = 3  # pre_lookahead_len of the flow

    def prompt_pad(self, prompt_tokens: int) -> int:
        return math.ceil(prompt_tokens / self.chunk) * self.chunk - prompt_tokens

    def next_hop(self, hop: int) -> int:
        return min(self.max_hop, hop * self.growth)


class FlowLike(Protocol):
    def inference(
        self,
        token: torch.Tensor,
        prompt_token: torch.Tensor,
        prompt_feat: torch.Tensor,
        embedding: torch.Tensor,
        *,
        streaming: bool,
        finalize: bool,
        n_steps: int | None = None,
        cfg_rate: float | None = None,
        capture: dict[str, Any] | None = None,
        autocast: torch.dtype | None = None,
    ) -> torch.Tensor: ...


FlowCacheMode = Literal["off", "chunks", "full"]
FLOW_CACHE_MODES: tuple[FlowCacheMode, ...] = ("off", "chunks", "full")


class CachedFlowLike(FlowLike, Protocol):
    def inference_cached(
        self,
        token: torch.Tensor,
        prompt_token: torch.Tensor,
        prompt_feat: torch.Tensor,
        embedding: torch.Tensor,
        *,
        cache: FlowCache,
        finalize: bool,
        n_steps: int | None = None,
        cfg_rate: float | None = None,
        autocast: torch.dtype | None = None,
    ) -> torch.Tensor: ...


class VocoderStream(Protocol):
    """Per-stream vocoder state: takes new mel frames, returns the audio that is now final."""

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray: ...


@dataclass
class FlowCall:
    """One flow call made by a stream (kept for tests, conformance and profiling)."""

    token_end: int  # generated tokens given to the flow
    token_offset: int  # generated tokens already turned into audio before this call
    streaming: bool
    finalize: bool
    mel: torch.Tensor | None = None  # the new mel frames kept from this call [1, C, T_new]


@dataclass
class Token2WavStream:
    """State of one request's token -> audio stream. Owned by the caller; never shared."""

    flow: FlowLike
    vocoder: VocoderStream
    prompt_token: torch.Tensor  # [1, P] int32
    prompt_feat: torch.Tensor  # [1, 2P, C]
    embedding: torch.Tensor  # [1, 192]
    token_mel_ratio: int = 2
    schedule: StreamSchedule = field(default_factory=StreamSchedule)
    drop_silent_runs: bool = False  # CosyVoice3 rule
    n_steps: int | None = None  # flow Euler steps (None = the release's 10)
    cfg_rate: float | None = None  # CFG strength (None = the release's 0.7)
    speed: float = 1.0  # speaking speed (0.5-2.0): streamed through cosycore.speed, offline as the original
    streaming: bool = True  # token_audio() emits audio per hop; False: once, from finish()
    flow_cache: FlowCacheMode = "off"  # "off" = exact; see the module docstring
    flow_autocast: torch.dtype | None = None  # e.g. torch.bfloat16: approximate, faster estimator
    prompt_cache: FlowCache | None = None  # the prompt's frames, cached (prompt_flow_cache); cloned, never changed
    cache_limit_bytes: int | None = None  # past this the flow cache is dropped (module docstring); None: no bound
    record_calls: bool = False
    tokens: list[int] = field(default_factory=list)
    token_offset: int = 0
    hop: int = 0
    calls: list[FlowCall] = field(default_factory=list)
    finished: bool = False
    _silent_run: int = 0

    def __post_init__(self) -> None:
        self.hop = self.schedule.chunk
        self._pad = self.schedule.prompt_pad(int(self.prompt_token.shape[1]))
        if self.flow_cache not in FLOW_CACHE_MODES:
            raise ValueError(f"flow_cache must be one of {', '.join(FLOW_CACHE_MODES)}, got {self.flow_cache!r}")
        self.cache: FlowCache | None = None  # created by the first cached call, dropped at the end
        self.speed = check_speed(self.speed)
        # A streamed request stretches as it goes; an offline one stretches the final mel (stretch_mel).
        self.stretch = MelStretchStream(self.speed) if self.streaming and self.speed != 1.0 else None
        self.cache_overflowed = False  # the cache outgrew cache_limit_bytes: frozen there (FlowCache.freeze)

    # -- input --------------------------------------------------------------------------------
    def accept(self, token: int) -> bool:
        """Buffer one generated token (False if dropped by the silent-run rule)."""
        cancel_point()  # every speech token: a cancelled request stops within one LM step
        if self.drop_silent_runs:
            if token in CV3_SILENT_TOKENS:
                self._silent_run += 1
                if self._silent_run > MAX_SILENT_RUN:
                    return False
            else:
                self._silent_run = 0
        self.tokens.append(int(token))
        return True

    @property
    def this_hop(self) -> int:
        return self.hop + (self._pad if self.token_offset == 0 else 0)

    def ready(self) -> bool:
        """True when enough tokens are buffered for the next streamed chunk."""
        return len(self.tokens) - self.token_offset >= self.this_hop + self.schedule.lookahead

    # -- output -------------------------------------------------------------------------------
    def push(self, token: int) -> Iterator[np.ndarray]:
        """Add a token; yield audio chunks that became ready (zero or one)."""
        if self.finished:
            raise RuntimeError("this stream has already finished")
        self.accept(token)
        while self.ready():
            yield self._stream_chunk()

    def _token_tensor(self, end: int) -> torch.Tensor:
        dev = self.prompt_token.device
        return torch.tensor([self.tokens[:end]], dtype=torch.int32, device=dev)  # [1, end]

    def _autocast_kwargs(self) -> dict[str, Any]:
        # Passed only when set, so flows without the option (test doubles) keep working.
        return {} if self.flow_autocast is None else {"autocast": self.flow_autocast}

    def _cached(self, *, streaming: bool) -> bool:
        if self.flow_cache == "off" or not streaming:
            return False
        if not hasattr(self.flow, "inference_cached"):
            raise TypeError(f"flow_cache={self.flow_cache!r} needs a flow with inference_cached()")
        return True

    def _run_flow(self, end: int, *, streaming: bool, finalize: bool) -> torch.Tensor:
        if self._cached(streaming=streaming):
            return self._run_cached_flow(end, finalize=finalize)
        mel = self.flow.inference(
            self._token_tensor(end),
            self.prompt_token,
            self.prompt_feat,
            self.embedding,
            streaming=streaming,
            finalize=finalize,
            n_steps=self.n_steps,
            cfg_rate=self.cfg_rate,
            **self._autocast_kwargs(),
        )  # [1, C, T_gen]
        new = mel[:, :, self.token_offset * self.token_mel_ratio :]
        if self.record_calls:
            self.calls.append(FlowCall(end, self.token_offset, streaming, finalize, new.detach().clone()))
        return new

    def _run_cached_flow(self, end: int, *, finalize: bool) -> torch.Tensor:
        flow: CachedFlowLike = self.flow  # type: ignore[assignment]  # checked by _cached
        if self.cache is None:
            self.cache = self.prompt_cache.clone() if self.prompt_cache is not None else FlowCache()
        cached_before = self.cache.tokens
        new = flow.inference_cached(
            self._token_tensor(end),
            self.prompt_token,
            self.prompt_feat,
            self.embedding,
            cache=self.cache,
            finalize=finalize,
            n_steps=self.n_steps,
            cfg_rate=self.cfg_rate,
            **self._autocast_kwargs(),
        )  # [1, C, T_new]
        first_gen_token = max(0, cached_before - int(self.prompt_token.shape[1]))
        if first_gen_token != self.token_offset:
            raise RuntimeError(
                f"flow cache out of step: it starts the new frames at token {first_gen_token}, "
                f"the stream expects {self.token_offset}"
            )
        if self.record_calls:
            self.calls.append(FlowCall(end, self.token_offset, True, finalize, new.detach().clone()))
        if finalize:
            self.cache = None  # free the keys/values as soon as the stream ends
        elif (self.cache_limit_bytes is not None and not self.cache.frozen
              and self.cache.nbytes() > self.cache_limit_bytes):
            logger.info("flow cache at %.0f MB passed its %.0f MB bound after %d tokens; it stops growing, and "
                        "later calls re-run only the frames after it", self.cache.nbytes() / 1e6,
                        self.cache_limit_bytes / 1e6, end)
            self.cache.freeze()
            self.cache_overflowed = True
        return new

    def _stream_chunk(self) -> np.ndarray:
        hop = self.this_hop
        end = self.token_offset + hop + self.schedule.lookahead
        mel = self._run_flow(end, streaming=True, finalize=False)
        if self.stretch is not None:
            mel = self.stretch.push(mel)
        # A stretched chunk can in principle hold no frame; the vocoder caches must not see it.
        audio = self.vocoder.push(mel, finalize=False) if mel.shape[2] else np.zeros(0, dtype=np.float32)
        self.token_offset += hop
        self.hop = self.schedule.next_hop(self.hop)
        return audio

    def finish(self) -> np.ndarray:
        """Flush: the final flow call over all tokens (``streaming=False, finalize=True``).

        A streaming stream's :attr:`speed` went through its :class:`~cosycore.speed.MelStretchStream`
        and finishes there; an offline one (``streaming=False``) resamples the final mel in time
        (linear), as the original does in non-streaming mode, which needs a stream that emitted nothing.
        """
        if self.finished:
            raise RuntimeError("this stream has already finished")
        self.finished = True
        if not self.tokens:
            return np.zeros(0, dtype=np.float32)
        # "full": the cached, chunk-causal final call, once something was streamed through the cache.
        fast_final = self.flow_cache == "full" and self.cache is not None
        mel = self._run_flow(len(self.tokens), streaming=fast_final, finalize=True)
        self.cache = None
        if self.stretch is not None:
            mel = self.stretch.finish(mel)
        elif self.speed != 1.0:
            if self.token_offset != 0:
                raise ValueError("speed != 1 on the final flow call needs a stream that emitted nothing yet")
            mel = stretch_mel(mel, self.speed)
        return self.vocoder.push(mel, finalize=True)


def token_audio(tokens: Iterable[int], stream: Token2WavStream, *,
                cancelled: Callable[[], bool] | None = None) -> Iterator[tuple[np.ndarray, bool]]:
    """The one driver from speech tokens to audio: ``(audio, is_end)`` pairs, the last one from
    :meth:`Token2WavStream.finish` (``is_end`` True). A streaming stream yields per hop, an offline one
    only at the end; the stream's own :attr:`~Token2WavStream.speed` applies either way. Stops without
    the final call when ``cancelled()`` says so once the tokens end.

    Every path from tokens to audio runs this: the engine's requests and conversions
    (:mod:`cosycore.engine`), :meth:`cosycore.model.CosyModel.tts`, the conformance checks and the benches.
    """
    for tok in tokens:
        if stream.streaming:
            for audio in stream.push(tok):
                yield audio, False
        else:
            stream.accept(tok)
    if cancelled is not None and cancelled():
        return
    yield stream.finish(), True


def prompt_flow_cache(flow: CachedFlowLike, prompt_token: torch.Tensor, prompt_feat: torch.Tensor,
                      embedding: torch.Tensor, *, schedule: StreamSchedule, n_steps: int | None = None,
                      cfg_rate: float | None = None, autocast: torch.dtype | None = None) -> FlowCache | None:
    """The flow states of a prompt's own frames, for streams with that prompt to start from.

    Under the chunk masks a frame sees only its own and earlier chunks, and the fixed noise depends
    on the absolute frame, so the states of the prompt's first ``E`` tokens do not depend on what is
    generated after them, as long as ``E`` ends on a chunk and its ``lookahead`` tokens are prompt
    tokens too: ``E`` is the largest multiple of ``schedule.chunk`` up to ``P - lookahead``. None when
    that is 0 (a prompt shorter than a chunk and its look-ahead). The first streamed call of a stream
    given this (``Token2WavStream.prompt_cache``) then runs only over the remaining prompt frames and
    the new ones; its frames equal the uncached call's up to float rounding, like every cached call.
    """
    p = int(prompt_token.shape[1])
    end = (p - schedule.lookahead) // schedule.chunk * schedule.chunk
    if end <= 0:
        return None
    cache = FlowCache()
    ratio = prompt_feat.shape[1] // max(1, p)
    # The first `end` prompt tokens as "prompt", their look-ahead tokens as the call's tokens.
    flow.inference_cached(prompt_token[:, end : end + schedule.lookahead], prompt_token[:, :end],
                          prompt_feat[:, : ratio * end], embedding, cache=cache, finalize=False,
                          n_steps=n_steps, cfg_rate=cfg_rate, **({} if autocast is None else {"autocast": autocast}))
    cache.shrink()  # kept as it is for the voice's later streams, which clone it: no room to grow
    return cache


def stretch_mel(mel: torch.Tensor, speed: float) -> torch.Tensor:
    """The original's speed change: linear interpolation of the mel to ``int(T / speed)`` frames."""
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}, got {speed}")
    frames = int(mel.shape[2] / speed)
    return F.interpolate(mel, size=frames, mode="linear")  # [1, C, T / speed]

