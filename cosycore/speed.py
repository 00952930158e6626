"""Speaking speed while streaming: a time-stretch of the mel on one grid that runs across chunks.

The original changes speed only offline: the finished mel [1, 80, T] is linearly interpolated to
``int(T / speed)`` frames before the vocoder (:func:`cosycore.token2wav.stretch_mel`), and a
streaming request with ``speed != 1`` is refused, because T is not known until the end.

:class:`MelStretchStream` does the same interpolation one chunk at a time. Output frame ``j`` is
read at the input position ``x_j = (j + 0.5) * speed - 0.5`` (clamped at 0), the half-frame
convention of ``F.interpolate(mode="linear", align_corners=False)`` with scale ``1 / speed``, and is
the linear mix of input frames ``floor(x_j)`` and ``floor(x_j) + 1``. The positions are absolute:
the grid does not restart at a chunk boundary and the fractional phase of the next output frame is
carried over, so the concatenated output of :meth:`~MelStretchStream.push` calls and
:meth:`~MelStretchStream.finish` equals stretching the whole mel at once (the tests compare it with
``F.interpolate``). A frame is emitted as soon as both of its input frames have arrived; the stream
keeps at most two input frames between calls.

Why stretch the mel rather than the waveform (WSOLA and friends): the stretched frames go into the
request's ordinary vocoder stream (CosyVoice2 HiFT with its mel/source caches and Hamming
cross-fade, CosyVoice3's incremental causal HiFT), which sees one continuous mel sequence however
it is cut, so the chunk seams stay exactly as smooth as at speed 1 and no overlap-add artefacts are
added. Pitch is kept: HiFT predicts f0 from each frame and renders a fixed hop of samples per frame,
only the number of frames changes. The speech LM and the flow are not affected.

Shapes: B batch, C mel bins, T frames.
"""

from __future__ import annotations

import logging
import math

import torch

from .config import MAX_SPEED, MIN_SPEED

logger = logging.getLogger(__name__)



def check_speed(speed: float) -> float:
    """``speed`` as a float if it lies in [0.5, 2.0], else ``ValueError``."""
    value = float(speed)
    if not (MIN_SPEED <= value <= MAX_SPEED) or math.isnan(value):
        raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}, got {speed}")
    return value


class MelStretchStream:
    """Linear time-stretch of one mel stream, fed chunk by chunk. Owned by one request's token2wav stream.

    ``speed`` > 1 makes speech faster (fewer frames), < 1 slower. The total output length is
    ``int(T / speed)`` frames, the original's rule.
    """

    def __init__(self, speed: float) -> None:
        self.speed = check_speed(speed)
        self._frames: torch.Tensor | None = None  # [B, C, k] input frames still needed
        self._start = 0  # absolute input index of _frames[..., 0]
        self._received = 0  # input frames received so far
        self._emitted = 0  # output frames produced so far
        self.finished = False

    @property
    def received(self) -> int:
        return self._received

    @property
    def emitted(self) -> int:
        return self._emitted

    def _position(self, j: torch.Tensor) -> torch.Tensor:
        """Input position of output frames ``j`` (float64, clamped at 0)."""
        return ((j.double() + 0.5) * self.speed - 0.5).clamp(min=0.0)

    def _append(self, mel: torch.Tensor) -> None:
        if self.finished:
            raise RuntimeError("this stretch stream has already finished")
        if mel.dim() != 3:
            raise ValueError(f"mel must be [B, C, T], got shape {tuple(mel.shape)}")
        self._frames = mel if self._frames is None else torch.cat([self._frames, mel], dim=2)  # [B, C, k]
        self._received += int(mel.shape[2])

    def _ready_count(self, final: bool) -> int:
        """Output frames that can be produced now (all remaining ones when ``final``)."""
        if final:
            return max(0, int(self._received / self.speed) - self._emitted)
        # Frame j needs input floor(x_j) + 1 <= received - 1, i.e. x_j < received - 1, and must lie
        # below the total int(T / speed) even if no further frame arrives.
        bound = (self._received - 0.5) / self.speed - 0.5  # j < bound
        ready = min(math.ceil(bound), int(self._received / self.speed))
        return max(0, ready - self._emitted)

    def _emit(self, count: int) -> torch.Tensor:
        assert self._frames is not None
        j = torch.arange(self._emitted, self._emitted + count, device=self._frames.device)
        x = self._position(j)  # [count]
        i0 = x.floor().long()
        i1 = (i0 + 1).clamp(max=self._received - 1)
        frac = (x - i0.double()).to(self._frames.dtype)  # [count]
        f0 = self._frames[:, :, i0 - self._start]  # [B, C, count]
        f1 = self._frames[:, :, i1 - self._start]  # [B, C, count]
        self._emitted += count
        return f0 * (1.0 - frac) + f1 * frac

    def _trim(self) -> None:
        """Drop input frames that no future output frame reads."""
        if self._frames is None:
            return
        first_needed = int(self._position(torch.tensor([self._emitted])).floor().item())
        drop = min(max(0, first_needed - self._start), int(self._frames.shape[2]))
        if drop:
            self._frames = self._frames[:, :, drop:]
            self._start += drop

    def _empty(self, like: torch.Tensor) -> torch.Tensor:
        return like.new_zeros(like.shape[0], like.shape[1], 0)

    def push(self, mel: torch.Tensor) -> torch.Tensor:
        """Add new frames [B, C, T_new]; return the stretched frames that are now final [B, C, T_out]."""
        self._append(mel)
        count = self._ready_count(final=False)
        out = self._emit(count) if count else self._empty(mel)
        self._trim()
        return out

    def finish(self, mel: torch.Tensor | None = None) -> torch.Tensor:
        """Add the last frames (if any) and return every remaining output frame."""
        if mel is not None:
            self._append(mel)
        if self._frames is None:
            raise RuntimeError("finish() needs at least one mel frame over the whole stream")
        count = self._ready_count(final=True)
        out = self._emit(count) if count else self._empty(self._frames)
        self.finished = True
        self._frames = None
        logger.debug("stretched %d mel frames to %d at speed %.2f", self._received, self._emitted, self.speed)
        return out
