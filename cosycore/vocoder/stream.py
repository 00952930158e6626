"""Vocoder side of token2wav streaming, for both families.

Streaming: CosyVoice2 keeps the release's 8-frame mel / 3840-sample source / 3840-sample speech
caches and Hamming crossfade (:func:`vocode_chunk_v2`). CosyVoice3 offers the release behaviour
(:class:`CausalHiftReferenceStream`, re-run on all mel so far) and an incremental stream
(:class:`CausalHiftStream`) whose cost per chunk is bounded by the chunk plus the decoder's context.

Shapes: the legend of :mod:`cosycore.vocoder.hift`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..cancel import cancel_point
from .hift import CausalHiFTGenerator, HiFTGenerator
from .nsf import NsfNoise

MEL_CACHE_FRAMES = 8  # CosyVoice2 streaming: mel frames re-fed to the next chunk


# --------------------------------------------------------------------------------------------
# CosyVoice2 streaming: mel / source / speech caches and the Hamming crossfade
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HiftStreamCache:
    """What one CosyVoice2 chunk leaves for the next one."""

    mel: torch.Tensor  # [B, M, 8] last mel frames, re-fed in front of the next chunk
    source: torch.Tensor  # [B, 1, 3840] last source samples, written over the next source's head
    speech: torch.Tensor  # [B, 3840] withheld speech tail, crossfaded into the next chunk


_FADE_WINDOWS: dict[int, torch.Tensor] = {}


# Close port of CosyVoice (Apache-2.0) utils/common.py fade_in_out and cli/model.py (the Hamming window); see NOTICE.
def fade_window(overlap: int) -> torch.Tensor:
    """Symmetric ``np.hamming(2 * overlap)`` in float64 (its halves sum to ~1.08, as upstream)."""
    if overlap not in _FADE_WINDOWS:
        with torch.inference_mode(False):
            _FADE_WINDOWS[overlap] = torch.from_numpy(np.hamming(2 * overlap))
    return _FADE_WINDOWS[overlap]


def fade_in_out(new: torch.Tensor, old: torch.Tensor, window: torch.Tensor) -> torch.Tensor:
    """Crossfade the head of ``new`` [B, L] with the tail of ``old`` [B, >= n]; n = len(window) / 2.

    ``new[:n] * window[:n] + old[-n:] * window[n:]``, computed in float64 on the CPU and rounded
    once, as the original does. A ``new`` shorter than n is faded over its own length.
    """
    n = window.shape[0] // 2
    m = min(n, new.shape[-1])
    w = window.to(torch.float64)
    rising = new[..., :m].double().cpu() * w[:m]
    falling = old[..., old.shape[-1] - n :][..., :m].double().cpu() * w[n : n + m]
    out = new.clone()
    out[..., :m] = (rising + falling).to(device=new.device, dtype=new.dtype)
    return out


# Close port of CosyVoice (Apache-2.0) cli/model.py (CosyVoice2Model.token2wav: mel/source caches); see NOTICE.
@torch.inference_mode()
def vocode_chunk_v2(hift: HiFTGenerator, mel_chunk: torch.Tensor, cache: HiftStreamCache | None,
                    finalize: bool, generator: torch.Generator | None = None, *,
                    noise: NsfNoise | None = None) -> tuple[torch.Tensor, HiftStreamCache | None]:
    """One CosyVoice2 streaming vocoder step (release ``token2wav``, spec 4.3).

    mel_chunk [B, M, T_new] holds only the new frames. Returns (audio to emit [B, n], the cache for
    the next chunk, or None after the final chunk). ``noise`` (for tests) must match the
    8 + T_new frames actually vocoded.
    """
    src_len = MEL_CACHE_FRAMES * hift.cfg.hop_samples
    mel = mel_chunk if cache is None else torch.cat([cache.mel.to(mel_chunk), mel_chunk], dim=2)  # [B, M, T]
    cache_source = None if cache is None else cache.source
    speech, source = hift.inference(mel, cache_source, generator=generator, noise=noise)
    if cache is not None:
        speech = fade_in_out(speech, cache.speech, fade_window(src_len))
    if finalize:
        return speech, None
    new_cache = HiftStreamCache(
        mel=mel[:, :, -MEL_CACHE_FRAMES:].clone(),
        source=source[:, :, -src_len:].clone(),
        speech=speech[:, -src_len:].clone(),
    )
    return speech[:, : max(0, speech.shape[1] - src_len)], new_cache


class HiftStreamV2:
    """Per-stream CosyVoice2 vocoder state for the token2wav scheduler (``push`` new mel frames)."""

    def __init__(self, hift: HiFTGenerator, generator: torch.Generator | None = None) -> None:
        self.hift = hift
        self.generator = generator
        self.cache: HiftStreamCache | None = None
        self.finished = False

    def push_tensor(self, mel: torch.Tensor, *, finalize: bool) -> torch.Tensor:
        if self.finished:
            raise RuntimeError("this vocoder stream has already been finalized")
        audio, self.cache = vocode_chunk_v2(self.hift, mel, self.cache, finalize, self.generator)
        self.finished = finalize
        return audio

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return self.push_tensor(mel, finalize=finalize)[0].float().cpu().numpy()


# --------------------------------------------------------------------------------------------
# CosyVoice3 streaming
# --------------------------------------------------------------------------------------------


class CausalHiftReferenceStream:
    """The release's CosyVoice3 vocoder streaming: re-run ``inference`` on all mel so far and emit
    the samples after those already emitted. Cost grows with the square of the utterance length;
    kept as the reference that :class:`CausalHiftStream` is tested against."""

    def __init__(self, hift: CausalHiFTGenerator) -> None:
        self.hift = hift
        self.mel: torch.Tensor | None = None  # [B, M, T] everything so far
        self.offset = 0  # samples emitted
        self.finished = False

    @torch.inference_mode()
    def push_tensor(self, mel: torch.Tensor, *, finalize: bool) -> torch.Tensor:
        if self.finished:
            raise RuntimeError("this vocoder stream has already been finalized")
        self.finished = finalize
        self.mel = mel if self.mel is None else torch.cat([self.mel, mel], dim=2)
        if not finalize and self.mel.shape[2] <= self.hift.holdback_frames:
            return self.mel.new_zeros(self.mel.shape[0], 0, dtype=torch.float32)
        speech, _ = self.hift.inference(self.mel, finalize)
        out = speech[:, self.offset :]
        self.offset += out.shape[1]
        return out

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return self.push_tensor(mel, finalize=finalize)[0].float().cpu().numpy()


class CausalHiftStream:
    """Incremental CosyVoice3 vocoder for one stream; its output equals the release behaviour
    (:class:`CausalHiftReferenceStream`) up to float32 rounding in the convolutions (<= 3e-7 measured
    over 30 s; the f0, the source and the phase are bit-exact).

    State that depends on absolute time is carried exactly: each frame's f0 is computed once (with
    the predictor's 8 frames of left context), the phase sum continues in float64, and the fixed
    noise is read at absolute sample positions. The decoder is re-run only over the new frames plus
    ``decoder_context_frames`` of left context (its receptive field, from the config), and the
    context part of its output is dropped. Memory and time per chunk are bounded by the chunk size
    (state kept between chunks: about context + 8 mel frames and context x 480 source samples).
    """

    def __init__(self, hift: CausalHiFTGenerator) -> None:
        self.hift = hift
        self.context = hift.decoder_context_frames
        self.mel: torch.Tensor | None = None  # [B, M, t] kept mel frames
        self.mel_start = 0  # absolute frame of mel[..., 0]
        self.frames = 0  # mel frames received
        self.f0_frames = 0  # frames whose source exists
        self.phase: torch.Tensor | None = None  # [B, H] float64 running phase sum
        self.source: torch.Tensor | None = None  # [B, 1, s] kept source samples
        self.source_start = 0  # absolute sample of source[..., 0]
        self.emitted = 0  # frames whose audio was emitted
        self.finished = False

    def _mel(self, start: int, stop: int) -> torch.Tensor:
        assert self.mel is not None and start >= self.mel_start
        return self.mel[:, :, start - self.mel_start : stop - self.mel_start]  # [B, M, stop - start]

    def _extend_source(self, finalize: bool) -> int:
        """Compute the source of every frame whose f0 is now final; returns the f0 frame end."""
        h = self.hift
        end = self.frames if finalize else self.frames - h.f0_lookahead
        if end <= self.f0_frames:
            return end
        start = max(0, self.f0_frames - h.f0_predictor.left_context)
        f0 = h.predict_f0(self._mel(start, self.frames), finalize)[:, self.f0_frames - start :]  # [B, new]
        res = h.nsf_source(f0, start_frame=self.f0_frames, phase=self.phase)
        self.phase = res.phase_end
        self.source = res.source if self.source is None else torch.cat([self.source, res.source], dim=2)
        self.f0_frames = end
        return end

    def _decode_new(self, dec_end: int, out_end: int, finalize: bool) -> torch.Tensor:
        h = self.hift
        hop = h.cfg.hop_samples
        w0 = max(0, self.emitted - self.context)
        assert self.source is not None
        src = self.source[:, :, w0 * hop - self.source_start : dec_end * hop - self.source_start]
        wav = h.decode(self._mel(w0, dec_end), src, finalize)  # [B, hop (out_end - w0)]
        return wav[:, (self.emitted - w0) * hop : (out_end - w0) * hop]

    def _trim(self) -> None:
        keep_dec = max(0, self.emitted - self.context)
        keep_f0 = max(0, self.f0_frames - self.hift.f0_predictor.left_context)
        keep = min(keep_dec, keep_f0)
        if self.mel is not None and keep > self.mel_start:
            self.mel = self.mel[:, :, keep - self.mel_start :]
            self.mel_start = keep
        hop = self.hift.cfg.hop_samples
        if self.source is not None and keep_dec * hop > self.source_start:
            self.source = self.source[:, :, keep_dec * hop - self.source_start :]
            self.source_start = keep_dec * hop

    @torch.inference_mode()
    def push_tensor(self, mel: torch.Tensor, *, finalize: bool) -> torch.Tensor:
        """mel [B, M, T_new] new frames -> the audio now final [B, n]."""
        if self.finished:
            raise RuntimeError("this vocoder stream has already been finalized")
        self.finished = finalize
        self.mel = mel if self.mel is None else torch.cat([self.mel, mel], dim=2)  # [B, M, t]
        self.frames += mel.shape[2]
        dec_end = self._extend_source(finalize)
        out_end = self.frames if finalize else self.frames - self.hift.holdback_frames
        if out_end <= self.emitted:
            return mel.new_zeros(mel.shape[0], 0, dtype=torch.float32)
        out = self._decode_new(dec_end, out_end, finalize)
        self.emitted = out_end
        self._trim()
        return out

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return self.push_tensor(mel, finalize=finalize)[0].float().cpu().numpy()


def vocode_causal_blockwise(hift: CausalHiFTGenerator, mel: torch.Tensor,
                            block_frames: int = 500) -> torch.Tensor:
    """Whole-utterance CosyVoice3 vocoding in blocks (bounded memory); equals ``inference(mel)``."""
    stream = CausalHiftStream(hift)
    t = mel.shape[2]
    if t == 0:
        return mel.new_zeros(mel.shape[0], 0, dtype=torch.float32)
    parts = []
    for s in range(0, t, block_frames):
        cancel_point()  # between the blocks
        parts.append(stream.push_tensor(mel[:, :, s : s + block_frames], finalize=s + block_frames >= t))
    return torch.cat(parts, dim=1)  # [B, 480 T]

