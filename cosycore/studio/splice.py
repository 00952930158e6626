"""Putting new audio in place of one piece of a take: :func:`splice` (raised-cosine crossfades at both
seams), and :func:`speak_whole`, which speaks one request to the end and returns its samples.

A take is its pieces laid end to end; piece ``k`` lies at ``[start, end)``. :func:`splice` replaces
it with ``new``: the last ``fade`` samples before ``start`` fade out while the first ``fade`` samples of
``new`` fade in over them, and the same at ``end`` (no fade at the take's own start or end). Each
crossfade is at most half of ``new`` and at most what lies beside it, so a short piece is never faded
away. Everything outside the two crossfades is kept sample for sample; what follows the piece moves
by :attr:`Splice.shift`. The fades are the ones :mod:`cosycore.studio.render` uses at a regenerated
script line's seams: a rising and a falling one of the same length sum to exactly one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import InputError, SynthesisError

if TYPE_CHECKING:
    from ..request import AudioChunk, SynthesisRequest


class Speaker(Protocol):
    """What :func:`speak_whole` needs of an :class:`~cosycore.engine.Engine`."""

    def synthesize(self, request: SynthesisRequest) -> Iterable[AudioChunk]: ...

DEFAULT_CROSSFADE = 0.01  # seconds at each seam


def fade(n: int, *, rising: bool) -> np.ndarray:
    """Raised-cosine fade of ``n`` samples; a rising and a falling fade of equal length sum to 1."""
    t = (np.arange(n, dtype=np.float64) + 0.5) / n
    rise = np.sin(0.5 * np.pi * t) ** 2
    return (rise if rising else 1.0 - rise).astype(np.float32)


@dataclass(frozen=True)
class Splice:
    """The audio after :func:`splice`, and where the new piece lies in it."""

    audio: np.ndarray  # float32 mono
    start: int  # the new piece's first sample (its fade-in included)
    end: int  # where the piece after it begins: the new piece's fade-out overlaps what follows from here
    shift: int  # how far what followed the old piece moved (negative: earlier)
    fade_in: int  # samples crossfaded at the first seam
    fade_out: int  # samples crossfaded at the second seam


def splice(audio: np.ndarray, start: int, end: int, new: np.ndarray, fade_samples: int) -> Splice:
    """``audio`` with ``audio[start:end]`` replaced by ``new``, crossfaded over up to ``fade_samples`` at each
    seam (see the module's description). ``audio`` is not changed."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    new = np.asarray(new, dtype=np.float32).reshape(-1)
    total = audio.shape[0]
    if not 0 <= start < end <= total:
        raise InputError(f"the piece to replace ({start}..{end}) is not inside the take's {total} samples.")
    if new.shape[0] == 0:
        raise InputError("the new audio is empty; nothing was spoken, so the take is left as it is.")
    if fade_samples < 0:
        raise InputError("a crossfade cannot be negative.")
    before, after = audio[:start], audio[end:]
    f_in = min(fade_samples, before.shape[0], new.shape[0] // 2)
    f_out = min(fade_samples, after.shape[0], new.shape[0] // 2)
    piece = new.copy()
    if f_in:
        piece[:f_in] *= fade(f_in, rising=True)
    if f_out:
        piece[piece.shape[0] - f_out:] *= fade(f_out, rising=False)
    out = np.empty(total - (end - start) + new.shape[0] - f_in - f_out, dtype=np.float32)
    head = start - f_in
    out[:head] = before[:head]
    tail_before = before[head:] * fade(f_in, rising=False) if f_in else before[head:]
    at = head
    out[at:at + piece.shape[0]] = piece
    out[at:at + f_in] += tail_before
    at += piece.shape[0] - f_out
    if f_out:
        out[at:at + f_out] += after[:f_out] * fade(f_out, rising=True)
    out[at + f_out:] = after[f_out:]
    return Splice(out, head, at, at - end, f_in, f_out)


def speak_whole(engine: Speaker, request: SynthesisRequest) -> np.ndarray:
    """Every sample the engine makes for ``request``, once it has finished; raises
    :class:`~cosycore.errors.SynthesisError` when it was stopped before its end or made no audio."""
    pieces: list[np.ndarray] = []
    finished = False
    for chunk in engine.synthesize(request):
        pieces.append(np.asarray(chunk.samples, dtype=np.float32).reshape(-1))
        finished = chunk.is_final
    if not finished:
        raise SynthesisError("it was stopped before it ended; the take is unchanged.")
    audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    if audio.shape[0] == 0:
        raise SynthesisError("the model made no audio for it; try another seed. The take is unchanged.")
    return audio
