"""HiFT vocoder (mel -> 24 kHz waveform): CosyVoice2 ``HiFTGenerator`` and Fun-CosyVoice3
``CausalHiFTGenerator``.

Shapes: B = batch, M = mel bins (80), T = mel frames, L = samples (hop_samples * T = 480 T),
H = sine components (f0 plus nb_harmonics = 9), C = channels, N = STFT frames (L / hop + 1),
F = STFT bins (n_fft / 2 + 1 = 9), K = 2 F (real and imaginary parts stacked).

Pipeline: f0 predictor (mel -> f0 per frame, Hz) -> NSF source (f0 -> excitation at the sample rate)
-> decoder (mel plus the STFT of the source -> log-magnitude and phase -> iSTFT).

The NSF source is in :mod:`.nsf` (with its randomness), the streams in :mod:`.stream`, loading in
:mod:`.load`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..cancel import cancel_point
from ..config import HiftConfig
from .f0 import F0Predictor
from .layers import (
    CausalConv1d,
    CausalConv1dDownsample,
    CausalConv1dUpsample,
    ResBlock,
    causal_padding,
    resblock_left_extent,
    with_weight_norm,
)
from .nsf import (
    CausalNoiseBank,
    CausalNoiseRecipe,
    NsfNoise,
    NsfParams,
    NsfResult,
    SourceModule,
    float64_device,
    frame_phase,
    harmonic_rad,
    per_sample,
    voicing,
)

logger = logging.getLogger(__name__)

CONV_POST_KERNEL = 7
V2_CONV_PRE_KERNEL = 7


def source_down_rates(upsample_rates: Sequence[int]) -> list[int]:
    """Decimation of each source_downs layer (STFT frames per stage position): [15, 3, 1]."""
    rates = [1, *reversed(upsample_rates[1:])]
    cum = list(np.cumprod(rates))
    return [int(c) for c in reversed(cum)]


# Close port of CosyVoice (Apache-2.0) hifigan/generator.py (HiFTGenerator, CausalHiFTGenerator); see NOTICE.
class _HiftBase(nn.Module):
    """Layers and decoder shared by both generators; subclasses choose the conv flavours."""

    causal: bool = False

    def __init__(self, cfg: HiftConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.nsf = NsfParams.from_config(cfg)
        self.n_stages = len(cfg.upsample_rates)
        self.n_kernels = len(cfg.resblock_kernel_sizes)
        n_bins = cfg.istft_n_fft // 2 + 1
        self.m_source = SourceModule(self.nsf.harmonics)
        self.conv_pre = with_weight_norm(self._make_conv_pre())
        self.ups = nn.ModuleList(
            with_weight_norm(self._make_up(cfg.base_channels // 2**i, cfg.base_channels // 2 ** (i + 1), k, u))
            for i, (u, k) in enumerate(zip(cfg.upsample_rates, cfg.upsample_kernel_sizes))
        )
        downs = source_down_rates(cfg.upsample_rates)
        self.source_downs = nn.ModuleList(
            self._make_down(2 * n_bins, self._stage_channels(i), u) for i, u in enumerate(downs)
        )
        source_kernels = zip(cfg.source_resblock_kernel_sizes, cfg.source_resblock_dilation_sizes)
        self.source_resblocks = nn.ModuleList(
            ResBlock(self._stage_channels(i), k, d, self.causal) for i, (k, d) in enumerate(source_kernels)
        )
        self.resblocks = nn.ModuleList(
            ResBlock(self._stage_channels(i), k, d, self.causal)
            for i in range(self.n_stages)
            for k, d in zip(cfg.resblock_kernel_sizes, cfg.resblock_dilation_sizes)
        )
        self.conv_post = with_weight_norm(self._make_conv_post(self._stage_channels(self.n_stages - 1), 2 * n_bins))
        self.f0_predictor = F0Predictor(cfg.f0_predictor)
        self._windows: dict[torch.device, torch.Tensor] = {}
        # Another runtime's :meth:`body` (cosycore.vocoder.ort_body), used for float32 decodes when set
        self.runtime_body: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None

    def _stage_channels(self, i: int) -> int:
        return self.cfg.base_channels // 2 ** (i + 1)

    # Layer flavours ------------------------------------------------------------------------
    def _make_conv_pre(self) -> nn.Conv1d:
        raise NotImplementedError

    def _make_up(self, cin: int, cout: int, kernel: int, rate: int) -> nn.Module:
        raise NotImplementedError

    def _make_down(self, cin: int, cout: int, rate: int) -> nn.Conv1d:
        raise NotImplementedError

    def _make_conv_post(self, cin: int, cout: int) -> nn.Conv1d:
        raise NotImplementedError

    # Helpers -------------------------------------------------------------------------------
    @property
    def weight_dtype(self) -> torch.dtype:
        """dtype of the convolutions (the NSF source and the STFTs stay float32)."""
        bias = self.conv_post.bias
        assert isinstance(bias, torch.Tensor)
        return bias.dtype

    def _window(self, device: torch.device) -> torch.Tensor:
        """Periodic Hann window (computed in float64, stored float32), built once per device."""
        if device not in self._windows:
            with torch.inference_mode(False):  # a normal tensor, usable with autograd too
                w = torch.hann_window(self.cfg.istft_n_fft, periodic=True, dtype=torch.float64)
                self._windows[device] = w.to(device=device, dtype=torch.float32)
        return self._windows[device]

    def _stft(self, source: torch.Tensor) -> torch.Tensor:
        """source [B, 1, L] -> [B, K, N] real parts then imaginary parts (float32)."""
        x = source.squeeze(1).float()  # [B, L]
        n_fft = self.cfg.istft_n_fft
        spec = torch.stft(x, n_fft, self.cfg.istft_hop, n_fft, window=self._window(x.device),
                          return_complex=True)  # [B, F, N]
        spec = torch.view_as_real(spec)  # [B, F, N, 2]
        return torch.cat([spec[..., 0], spec[..., 1]], dim=1)  # [B, K, N]

    def _istft(self, magnitude: torch.Tensor, phase: torch.Tensor) -> torch.Tensor:
        """[B, F, N] each -> waveform [B, (N - 1) hop]."""
        magnitude = torch.clip(magnitude, max=1e2)
        real = magnitude * torch.cos(phase)
        imag = magnitude * torch.sin(phase)
        n_fft = self.cfg.istft_n_fft
        return torch.istft(torch.complex(real, imag), n_fft, self.cfg.istft_hop, n_fft,
                           window=self._window(real.device))

    def _conv_pre_forward(self, mel: torch.Tensor, finalize: bool) -> torch.Tensor:
        return self.conv_pre(mel)

    def _trim_stft(self, s_stft: torch.Tensor, finalize: bool) -> torch.Tensor:
        return s_stft

    def _trim_wave(self, wav: torch.Tensor, finalize: bool) -> torch.Tensor:
        return wav

    def decode(self, mel: torch.Tensor, source: torch.Tensor, finalize: bool = True) -> torch.Tensor:
        """mel [B, M, T], source [B, 1, 480 T] -> waveform [B, 480 T] (v3 non-final: 480 (T - 5)).

        For the causal model with ``finalize=False`` the last ``conv_pre_look_right`` frames of the
        mel are look-ahead only and one more frame is held back after the iSTFT.
        """
        dt = self.weight_dtype
        s_stft = self._trim_stft(self._stft(source), finalize).to(dt)  # [B, K, N]
        x = self._conv_pre_forward(mel.to(dt), finalize)  # [B, C0, T]
        runtime = self.runtime_body  # one graph call (float32 only): a cancel point before it
        if runtime is not None and dt == torch.float32:
            cancel_point()
            x = runtime(x, s_stft)  # [B, K, N]
        else:
            x = self.body(x, s_stft).float()
        n_bins = self.cfg.istft_n_fft // 2 + 1
        wav = self._istft(torch.exp(x[:, :n_bins]), torch.sin(x[:, n_bins:]))  # [B, L]
        wav = self._trim_wave(wav, finalize)
        return torch.clamp(wav, -self.cfg.audio_limit, self.cfg.audio_limit)

    def body(self, x: torch.Tensor, s_stft: torch.Tensor) -> torch.Tensor:
        """The convolution body: conv_pre's output x [B, C0, T] and the source's STFT [B, K, N]
        -> conv_post's output [B, K, N] (log-magnitudes, then phases before their sine)."""
        for i in range(self.n_stages):
            cancel_point()  # between the upsampling blocks
            x = F.leaky_relu(x, self.cfg.lrelu_slope)
            x = self.ups[i](x)  # [B, C_i, T * prod(rates[:i+1])]
            if i == self.n_stages - 1:
                x = F.pad(x, (1, 0), mode="reflect")  # [B, C, N]
            x = x + self.source_resblocks[i](self.source_downs[i](s_stft))
            acc = self.resblocks[i * self.n_kernels](x)
            for j in range(1, self.n_kernels):
                acc = acc + self.resblocks[i * self.n_kernels + j](x)
            x = acc / self.n_kernels
        x = F.leaky_relu(x)  # default slope 0.01 here
        return self.conv_post(x)  # [B, K, N]

    def _source_from_sines(self, sines: torch.Tensor, uv: torch.Tensor, noise_amp: torch.Tensor,
                           noise: torch.Tensor) -> torch.Tensor:
        """Per-sample [B, L, H] sines and noise, [B, L, 1] uv / amplitude -> source [B, 1, L]."""
        sine_waves = sines * uv + noise_amp * noise  # [B, L, H]
        w = self.m_source.l_linear.weight
        s = self.m_source(sine_waves.to(w.dtype)).float()  # [B, L, 1]
        return s.transpose(1, 2)  # [B, 1, L]


class HiFTGenerator(_HiftBase):
    """CosyVoice2 vocoder: non-causal convs, ConvTranspose upsampling, fresh NSF noise per call.

    Holds no per-request state: the caller owns the streaming cache (:class:`HiftStreamCache`) and
    the random generator.
    """

    causal = False

    def _make_conv_pre(self) -> nn.Conv1d:
        k = V2_CONV_PRE_KERNEL
        return nn.Conv1d(self.cfg.in_channels, self.cfg.base_channels, k, padding=(k - 1) // 2)

    def _make_up(self, cin: int, cout: int, kernel: int, rate: int) -> nn.Module:
        return nn.ConvTranspose1d(cin, cout, kernel, rate, padding=(kernel - rate) // 2)

    def _make_down(self, cin: int, cout: int, rate: int) -> nn.Conv1d:
        if rate == 1:
            return nn.Conv1d(cin, cout, 1)
        return nn.Conv1d(cin, cout, 2 * rate, rate, padding=rate // 2)

    def _make_conv_post(self, cin: int, cout: int) -> nn.Conv1d:
        return nn.Conv1d(cin, cout, CONV_POST_KERNEL, padding=(CONV_POST_KERNEL - 1) // 2)

    def predict_f0(self, mel: torch.Tensor) -> torch.Tensor:
        """mel [B, M, T] -> f0 [B, T] (Hz, float32)."""
        w = self.f0_predictor.classifier.weight
        return self.f0_predictor(mel.to(w.dtype)).float()

    def nsf_source(self, f0: torch.Tensor, *, generator: torch.Generator | None = None,
                   noise: NsfNoise | None = None) -> NsfResult:
        """f0 [B, T] -> excitation. Noise is ``noise`` if given, else drawn from ``generator``
        (the global RNG when None) in the original's order."""
        p = self.nsf
        f0 = f0.float()
        b, t = f0.shape
        if noise is None:
            noise = NsfNoise.draw(b, t * p.upsample, p.harmonics, device=f0.device, generator=generator)
        phase, end = frame_phase(harmonic_rad(f0, p), None, p)  # [B, T, H]
        phase = F.interpolate(phase.transpose(1, 2), scale_factor=float(p.upsample),
                              mode="linear")  # [B, H, L]
        sines = torch.sin(phase.transpose(1, 2)) * p.sine_amp  # [B, L, H]
        uv, amp = voicing(f0, p)  # [B, T, 1]
        uv_s, amp_s = per_sample(uv, p), per_sample(amp, p)  # [B, L, 1]
        source = self._source_from_sines(sines, uv_s, amp_s, noise.sine.to(sines.device, sines.dtype))
        return NsfResult(source, uv_s, end)

    @torch.inference_mode()
    def inference(self, mel: torch.Tensor, cache_source: torch.Tensor | None = None, *,
                  generator: torch.Generator | None = None,
                  noise: NsfNoise | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """mel [B, M, T] -> (speech [B, 480 T], source [B, 1, 480 T]).

        ``cache_source`` [B, 1, S] overwrites the first S source samples (streaming continuity).
        """
        source = self.nsf_source(self.predict_f0(mel), generator=generator, noise=noise).source
        if cache_source is not None and cache_source.shape[-1] > 0:
            n = min(cache_source.shape[-1], source.shape[-1])
            source[:, :, :n] = cache_source[:, :, :n].to(source)
        return self.decode(mel, source), source


class CausalHiFTGenerator(_HiftBase):
    """Fun-CosyVoice3 vocoder: causal convs, a float64 f0 predictor with 3 frames of look-ahead,
    a 4-frame look-ahead in conv_pre and fixed NSF noise (:class:`CausalNoiseBank`).

    ``inference(mel[:, :, :n], finalize=False)`` is a prefix of ``inference(mel)``: the first
    480 (n - 8) samples. Holds no per-request state; streams are :class:`CausalHiftStream`.
    """

    causal = True

    def __init__(self, cfg: HiftConfig, noise: CausalNoiseRecipe) -> None:
        self.look_right = cfg.conv_pre_look_right
        super().__init__(cfg)
        self.noise_bank = CausalNoiseBank.shared(noise)

    def _make_conv_pre(self) -> nn.Conv1d:
        return CausalConv1d(self.cfg.in_channels, self.cfg.base_channels, self.look_right + 1, side="right")

    def _make_up(self, cin: int, cout: int, kernel: int, rate: int) -> nn.Module:
        return CausalConv1dUpsample(cin, cout, kernel, rate)

    def _make_down(self, cin: int, cout: int, rate: int) -> nn.Conv1d:
        if rate == 1:
            return CausalConv1d(cin, cout, 1, side="left")
        return CausalConv1dDownsample(cin, cout, 2 * rate, rate)

    def _make_conv_post(self, cin: int, cout: int) -> nn.Conv1d:
        return CausalConv1d(cin, cout, CONV_POST_KERNEL, side="left")

    # Look-ahead bookkeeping -------------------------------------------------------------------
    @property
    def f0_lookahead(self) -> int:
        return self.f0_predictor.lookahead

    @property
    def holdback_frames(self) -> int:
        """Frames at the end of a non-final call that produce no audio yet (3 + 4 + 1 = 8)."""
        return self.f0_lookahead + self.look_right + 1

    @property
    def decoder_context_frames(self) -> int:
        return causal_decoder_context_frames(self.cfg)

    def _conv_pre_forward(self, mel: torch.Tensor, finalize: bool) -> torch.Tensor:
        if finalize:
            return self.conv_pre(mel)
        r = self.look_right
        return self.conv_pre(mel[:, :, :-r], mel[:, :, -r:])

    def _trim_stft(self, s_stft: torch.Tensor, finalize: bool) -> torch.Tensor:
        if finalize:
            return s_stft
        return s_stft[:, :, : -math.prod(self.cfg.upsample_rates) * self.look_right]

    def _trim_wave(self, wav: torch.Tensor, finalize: bool) -> torch.Tensor:
        return wav if finalize else wav[:, : -self.cfg.hop_samples]

    # f0 in float64 ----------------------------------------------------------------------------
    def _f0_float64(self) -> F0Predictor:
        """The original converts the predictor to float64 in place on use; so do we (once)."""
        p = self.f0_predictor
        w = p.classifier.weight
        dev = float64_device(w.device)
        if w.dtype != torch.float64 or w.device != dev:
            p.to(device=dev, dtype=torch.float64)
        return p

    def predict_f0(self, mel: torch.Tensor, finalize: bool = True) -> torch.Tensor:
        """mel [B, M, T] -> f0 [B, T'] float64 (T' = T - 3 unless finalize)."""
        p = self._f0_float64()
        return p(mel.to(p.classifier.weight.device, torch.float64), finalize).to(mel.device)

    def nsf_source(self, f0: torch.Tensor, *, start_frame: int = 0,
                   phase: torch.Tensor | None = None) -> NsfResult:
        """f0 [B, T] of frames ``start_frame ...`` -> excitation.

        ``phase`` is the float64 running sum returned for the frames before ``start_frame`` (None
        at the start of an utterance); the fixed noise is read at the absolute sample positions.
        """
        p = self.nsf
        f0 = f0.float()
        phase_f, end = frame_phase(harmonic_rad(f0, p), phase, p)  # [B, T, H]
        sines = per_sample(torch.sin(phase_f) * p.sine_amp, p)  # nearest upsampling: [B, L, H]
        uv, amp = voicing(f0, p)
        uv_s, amp_s = per_sample(uv, p), per_sample(amp, p)  # [B, L, 1]
        start = start_frame * p.upsample
        noise = self.noise_bank.rows(start, start + sines.shape[1]).to(sines.device)  # [1, L, H]
        source = self._source_from_sines(sines, uv_s, amp_s, noise)
        return NsfResult(source, uv_s, end)

    @torch.inference_mode()
    def inference(self, mel: torch.Tensor, finalize: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
        """mel [B, M, T] -> (speech [B, 480 T] or [B, 480 (T - 8)], source [B, 1, 480 T'])."""
        source = self.nsf_source(self.predict_f0(mel, finalize)).source
        dec_mel = mel if finalize else mel[:, :, : -self.f0_lookahead]
        return self.decode(dec_mel, source, finalize), source


def causal_decoder_context_frames(cfg: HiftConfig) -> int:
    """Mel frames of left context after which the causal decoder's output no longer depends on
    where its input starts: a conservative bound on its receptive field, from the config.

    Walks the decoder backwards adding every left reach in samples: the iSTFT overlap, conv_post,
    and per stage the ResBlocks, the source ResBlock, the source decimator plus the STFT frame it
    reads, and the upsampler (its kernel plus one input position). The f0 predictor and the source
    are not included: a stream computes them exactly with its own state.
    """
    hop, n_fft = cfg.istft_hop, cfg.istft_n_fft
    reach = n_fft + causal_padding(CONV_POST_KERNEL) * hop
    step = hop  # samples per position at the stage being walked
    downs = source_down_rates(cfg.upsample_rates)
    kernels = zip(cfg.resblock_kernel_sizes, cfg.resblock_dilation_sizes)
    rb = max(resblock_left_extent(k, d) for k, d in kernels)
    for i in reversed(range(len(cfg.upsample_rates))):
        srb = resblock_left_extent(cfg.source_resblock_kernel_sizes[i], cfg.source_resblock_dilation_sizes[i])
        down_kernel = 2 * downs[i] if downs[i] > 1 else 1
        reach += (rb + srb) * step + down_kernel * hop + n_fft
        reach += (cfg.upsample_kernel_sizes[i] - 1 + cfg.upsample_rates[i]) * step
        if i == len(cfg.upsample_rates) - 1:
            reach += step  # the reflection pad shifts the last stage by one position
        step *= cfg.upsample_rates[i]
    return math.ceil(reach / cfg.hop_samples) + 1
