"""The state of one running request, owned by its generator in :meth:`cosycore.engine.Engine.synthesize`:
the segments it speaks (one LM generation each), the chunk bookkeeping (:class:`RequestState`), the
bounded segments of streamed (bistream) text (token2wav over a segment is
:func:`cosycore.token2wav.token_audio`).
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np

from ..config import ModelConfig
from ..errors import EngineError
from ..frontend.segment_bound import MAX_SEGMENT_TOKENS
from ..frontend.sentence_split import EN_MARKS, ZH_MARKS
from ..request import AudioChunk

T = TypeVar("T")


class _EngineView(Protocol):
    """What a request's state reads of its :class:`~cosycore.engine.Engine`."""

    @property
    def cancel_count(self) -> int: ...

    @property
    def cfg(self) -> ModelConfig: ...


def with_last(items: Iterable[T]) -> Iterator[tuple[T, bool]]:
    """``(item, is_last)`` pairs, looking one item ahead."""
    it = iter(items)
    try:
        current = next(it)
    except StopIteration:
        return
    for following in it:
        yield current, False
        current = following
    yield current, True


@dataclass
class Segment:
    """One unit of synthesis: a sentence, or the whole stream of a bistream request."""

    index: int
    text: str
    tokens: Iterator[int]  # speech tokens from the LM
    is_last: bool


@dataclass
class RequestState:
    """Everything one running request keeps between chunks. Owned by its generator."""

    engine: _EngineView
    ticket: int  # cancel counter value when the request was made
    started: float  # perf_counter() at the synthesize() call
    sample_rate: int
    warnings: tuple[str, ...] = ()
    chunk_index: int = 0
    samples_out: int = 0
    tokens_total: int = 0
    new_tokens: list[int] = field(default_factory=list)

    def cancelled(self) -> bool:
        return self.engine.cancel_count != self.ticket

    def take_tokens(self, tokens: Iterator[int]) -> Iterator[int]:
        """Pass tokens through, recording them for the next chunk; stop quietly on cancel."""
        for tok in tokens:
            if self.cancelled():
                return
            self.new_tokens.append(tok)
            self.tokens_total += 1
            yield tok

    def chunk(self, audio: np.ndarray, seg: Segment, *, sentence_final: bool) -> AudioChunk:
        samples = np.ascontiguousarray(audio, dtype=np.float32).reshape(-1)
        if not np.isfinite(samples).all():  # never played, never written
            bad = int(np.count_nonzero(~np.isfinite(samples)))
            raise EngineError(
                f"the model produced invalid audio ({bad} of {samples.size} samples are NaN or infinite), so "
                f"nothing more is played or saved. The model files look damaged: run 'cosycore models verify "
                f"{self.engine.cfg.model_dir}' and download the model again if it reports a problem."
            )
        out = AudioChunk(
            samples=samples,
            sample_rate=self.sample_rate,
            index=self.chunk_index,
            is_final=sentence_final and seg.is_last,
            timing=time.perf_counter() - self.started,
            tokens=tuple(self.new_tokens),
            tokens_so_far=self.tokens_total,
            sentence_index=seg.index,
            sentence_text=seg.text,
            sentence_final=sentence_final,
            start_time=self.samples_out / self.sample_rate,
            warnings=self.warnings if self.chunk_index == 0 else (),
        )
        self.new_tokens.clear()
        self.chunk_index += 1
        self.samples_out += samples.shape[0]
        return out


_SENTENCE_ENDS = frozenset(EN_MARKS | ZH_MARKS | set("\n"))
BISTREAM_SOFT_TOKENS = MAX_SEGMENT_TOKENS * 4 // 5  # a streamed segment may end at a sentence end past this


class StreamedText:
    """Streamed text pieces, handed out as segments of bounded length for bistream decoding.

    A segment ends at the first piece that ends a sentence once it holds
    :data:`BISTREAM_SOFT_TOKENS` text tokens, and at :data:`~cosycore.frontend.text.MAX_SEGMENT_TOKENS`
    tokens at the latest (the rest of that piece starts the next segment). So however long the
    stream runs, each LM generation, its KV cache and its speech tokens stay bounded.
    """

    def __init__(self, pieces: Iterator[tuple[str, list[int]]]) -> None:
        self._pieces = pieces
        self._carry: collections.deque[int] = collections.deque()
        self._sentence_end = False
        self.done = False  # the source has no more pieces
        self.segment_complete = False  # the last segment() ran to its end (the LM took all of it)

    def _pull(self) -> bool:
        item = next(self._pieces, None)
        if item is None:
            self.done = True
            return False
        piece, ids = item
        self._carry.extend(ids)
        stripped = piece.rstrip()
        self._sentence_end = bool(stripped) and stripped[-1] in _SENTENCE_ENDS
        return True

    def has_more(self) -> bool:
        while not self._carry and not self.done:
            self._pull()
        return bool(self._carry)

    def segment(self) -> Iterator[int]:
        self.segment_complete = False
        n = 0
        while True:
            while self._carry:
                if n >= MAX_SEGMENT_TOKENS:
                    self.segment_complete = True
                    return
                yield self._carry.popleft()
                n += 1
            if (n >= BISTREAM_SOFT_TOKENS and self._sentence_end) or self.done or not self._pull():
                self.segment_complete = True
                return

    def stop(self) -> None:
        """The LM stopped before taking all of a segment (its max_len): the request ends there."""
        self.done = True
        self._carry.clear()

    @property
    def exhausted(self) -> bool:
        return self.done and not self._carry


def then_mark_last(tokens: Iterator[int], seg: Segment, text: StreamedText) -> Iterator[int]:
    yield from tokens
    if not text.segment_complete:  # max_tokens reached while text was still arriving, as before
        text.stop()
    seg.is_last = text.exhausted  # known without waiting for more text
