"""HiFT vocoder (mel -> 24 kHz waveform): CosyVoice2 ``HiFTGenerator`` and Fun-CosyVoice3
``CausalHiFTGenerator``, plus the vocoder side of token2wav streaming.

Shapes: B = batch, M = mel bins (80), T = mel frames, L = samples (hop_samples * T = 480 T),
H = sine components (f0 plus nb_harmonics = 9), C = channels, N = STFT frames (L / hop + 1),
F = STFT bins (n_fft / 2 + 1 = 9), K = 2 F (real and imaginary parts stacked).

Pipeline: f0 predictor (mel -> f0 per frame, Hz) -> NSF source (f0 -> excitation at the sample rate)
-> decoder (mel plus the STFT of the source -> log-magnitude and phase -> iSTFT).

The NSF sine generator works at the frame rate wherever the original's per-sample computation is
constant within a frame: the original linearly downsamples a per-sample ``rad`` that is constant
inside every frame (so each frame reads its own value) and, in the causal model, upsamples the phase
by nearest neighbour. ``tests/test_hift.py`` checks this shortcut against the per-sample chain
(bit-exact for v2, within 1e-7 for v3, where sin is taken once per frame). The phase is a cumulative
sum over all frames; it is accumulated in float64 and rounded to float32, which is exactly what
torch's CPU ``cumsum`` does for float32 input (on CUDA the original's float32 scan is less precise),
and it lets a stream carry the running sum from one chunk to the next without changing any number.

Streaming: CosyVoice2 keeps the release's 8-frame mel / 3840-sample source / 3840-sample speech
caches and Hamming crossfade (:func:`vocode_chunk_v2`). CosyVoice3 offers the release behaviour
(:class:`CausalHiftReferenceStream`, re-run on all mel so far) and an incremental stream
(:class:`CausalHiftStream`) whose cost per chunk is bounded by the chunk plus the decoder's context.

Randomness:
- CosyVoice2 draws fresh noise on every call, in the original's order ``rand(B, H)`` (initial phase,
  no effect on the output), ``randn(B, L, H)`` (additive noise) and ``randn(B, L, 1)`` (an unused
  branch). The draws come from the ``torch.Generator`` the caller passes (one per stream), or the
  noise can be given explicitly (:class:`NsfNoise`).
- CosyVoice3 uses fixed buffers that the original draws at construction time from the global RNG
  right after its flow seeds it. :class:`CausalNoiseBank` replays that draw sequence on a private
  generator (the process RNG is never touched) and produces the 300 s buffer lazily, block by block.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, cast

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import init
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import weight_norm

from ..config import F0PredictorConfig, HiftConfig, ModelConfig, load_model_config
from ..conformance.checks import CheckResult, compare
from ..errors import SynthesisError
from ..weights import assign_state_dict, load_checkpoint, normalize_keys

logger = logging.getLogger(__name__)

MEL_CACHE_FRAMES = 8  # CosyVoice2 streaming: mel frames re-fed to the next chunk
F0_LAYERS = 5  # convolutions in the f0 predictor's condnet
CONV_POST_KERNEL = 7
V2_CONV_PRE_KERNEL = 7
NOISE_SECONDS = 300  # length of the CosyVoice3 noise buffer (per call limit of the original)


# --------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------


def _wn(module: nn.Module) -> nn.Module:
    """Weight norm over dim 0, in the ``parametrizations.weight.original0/1`` key form."""
    return weight_norm(module, name="weight", dim=0)


def causal_padding(kernel_size: int, dilation: int = 1) -> int:
    """Frames a causal conv pads on one side (the original's formula; (k - 1) d for every layer used)."""
    return (kernel_size * dilation - dilation) // 2 * 2 + (kernel_size + 1) % 2


class CausalConv1d(nn.Conv1d):
    """Stride-1 Conv1d padded on one side only: ``left`` (causal) or ``right`` (look-ahead).

    ``context`` replaces the zero padding: the frames just before the input for ``left``, the
    look-ahead frames just after it for ``right``. Output length = input length.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, dilation: int = 1,
                 side: str = "left") -> None:
        super().__init__(in_channels, out_channels, kernel_size, dilation=dilation)
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', not {side!r}")
        self.side = side
        self.pad = causal_padding(kernel_size, dilation)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        if context is None:
            x = F.pad(x, (self.pad, 0) if self.side == "left" else (0, self.pad))
        else:
            if context.shape[2] != self.pad:
                raise ValueError(f"context has {context.shape[2]} frames; this conv needs {self.pad}")
            x = torch.cat([context, x] if self.side == "left" else [x, context], dim=2)
        return self._conv_forward(x, self.weight, self.bias)


class CausalConv1dUpsample(nn.Conv1d):
    """Nearest-neighbour upsampling by ``factor``, then a causal Conv1d (left padding k - 1)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, factor: int) -> None:
        super().__init__(in_channels, out_channels, kernel_size)
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.repeat_interleave(self.factor, dim=2)  # [B, C, T * u]
        x = F.pad(x, (self.kernel_size[0] - 1, 0))
        return self._conv_forward(x, self.weight, self.bias)


class CausalConv1dDownsample(nn.Conv1d):
    """Strided Conv1d with ``stride - 1`` frames of left padding (causal decimation)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.pad(x, (self.stride[0] - 1, 0))
        return self._conv_forward(x, self.weight, self.bias)


class Snake(nn.Module):
    """``x + sin(alpha x)^2 / (alpha + 1e-9)``, alpha per channel on a linear scale."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        alpha = self.alpha[None, :, None]  # [1, C, 1]
        return x + (1.0 / (alpha + 1e-9)) * torch.sin(x * alpha).pow(2)


def _conv(channels: int, kernel_size: int, dilation: int, causal: bool) -> nn.Conv1d:
    if causal:
        return CausalConv1d(channels, channels, kernel_size, dilation, side="left")
    pad = (kernel_size * dilation - dilation) // 2  # 'same' length
    return nn.Conv1d(channels, channels, kernel_size, dilation=dilation, padding=pad)


class ResBlock(nn.Module):
    """Snake -> dilated conv -> Snake -> conv, with a residual connection, once per dilation."""

    def __init__(self, channels: int, kernel_size: int, dilations: Sequence[int], causal: bool) -> None:
        super().__init__()
        self.convs1 = nn.ModuleList(_wn(_conv(channels, kernel_size, d, causal)) for d in dilations)
        self.convs2 = nn.ModuleList(_wn(_conv(channels, kernel_size, 1, causal)) for _ in dilations)
        self.activations1 = nn.ModuleList(Snake(channels) for _ in dilations)
        self.activations2 = nn.ModuleList(Snake(channels) for _ in dilations)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv1, conv2, act1, act2 in zip(self.convs1, self.convs2, self.activations1, self.activations2):
            x = conv2(act2(conv1(act1(x)))) + x
        return x


def resblock_left_extent(kernel_size: int, dilations: Sequence[int]) -> int:
    """Positions of left context a causal ResBlock reads."""
    return sum(causal_padding(kernel_size, d) + causal_padding(kernel_size, 1) for d in dilations)


class F0Predictor(nn.Module):
    """``ConvRNNF0Predictor`` (v2) / ``CausalConvRNNF0Predictor`` (v3): five convs with ELU, a linear
    head and ``abs``. The causal one looks 3 frames ahead (first conv) and 8 frames back."""

    def __init__(self, cfg: F0PredictorConfig) -> None:
        super().__init__()
        self.causal = cfg.causal
        layers: list[nn.Module] = []
        for i in range(F0_LAYERS):
            cin = cfg.in_channels if i == 0 else cfg.cond_channels
            conv: nn.Conv1d
            if not cfg.causal:
                conv = nn.Conv1d(cin, cfg.cond_channels, 3, padding=1)
            elif i == 0:
                conv = CausalConv1d(cin, cfg.cond_channels, 4, side="right")
            else:
                conv = CausalConv1d(cin, cfg.cond_channels, 3, side="left")
            layers += [_wn(conv), nn.ELU()]
        self.condnet = nn.Sequential(*layers)
        self.classifier = nn.Linear(cfg.cond_channels, cfg.num_class)

    @property
    def lookahead(self) -> int:
        """Frames of right context (0 for the non-causal predictor, whose convs are centred)."""
        first = self.condnet[0]
        return first.pad if isinstance(first, CausalConv1d) else 0

    @property
    def left_context(self) -> int:
        """Frames of left context the causal predictor reads."""
        return sum(m.pad for m in list(self.condnet)[2:] if isinstance(m, CausalConv1d))

    def forward(self, mel: torch.Tensor, finalize: bool = True) -> torch.Tensor:
        """mel [B, M, T] -> f0 [B, T'] in Hz; T' = T, or T - lookahead when not ``finalize``."""
        x = mel
        la = self.lookahead
        for i, layer in enumerate(self.condnet):
            look_ahead = i == 0 and la > 0 and not finalize  # the last la frames are context only
            x = layer(x[:, :, :-la], x[:, :, -la:]) if look_ahead else layer(x)
        x = x.transpose(1, 2)  # [B, T', C]
        return torch.abs(self.classifier(x).squeeze(-1))  # [B, T']


class SourceModule(nn.Module):
    """``SourceModuleHnNSF``: merges the H sine components into one excitation with tanh(Linear)."""

    def __init__(self, harmonics: int) -> None:
        super().__init__()
        self.l_linear = nn.Linear(harmonics, 1)

    def forward(self, sine_waves: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.l_linear(sine_waves))  # [B, L, H] -> [B, L, 1]


# --------------------------------------------------------------------------------------------
# NSF sine source (SineGen2)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NsfParams:
    """Constants of the sine generator, from the hift config."""

    harmonics: int  # H = nb_harmonics + 1
    sampling_rate: int
    sine_amp: float  # nsf_alpha
    noise_std: float  # nsf_sigma
    voiced_threshold: float  # Hz
    upsample: int  # samples per mel frame (480)

    @classmethod
    def from_config(cls, cfg: HiftConfig) -> NsfParams:
        return cls(cfg.nb_harmonics + 1, cfg.sampling_rate, cfg.nsf_alpha, cfg.nsf_sigma,
                   cfg.nsf_voiced_threshold, cfg.hop_samples)


@dataclass(frozen=True)
class NsfNoise:
    """Explicit CosyVoice2 noise for one call (the original draws it inside the call).

    ``rand_ini`` has no effect on the output (the original adds it to sample 0, which its linear
    downsampling never reads); it is accepted so that recorded draws can be fed back as they are.
    """

    sine: torch.Tensor  # [B, L, H] standard normal, scaled by the noise amplitude
    rand_ini: torch.Tensor | None = None  # [B, H]
    branch: torch.Tensor | None = None  # [B, L, 1] (the unused noise branch)

    @classmethod
    def draw(cls, batch: int, samples: int, harmonics: int, *, device: torch.device | str,
             generator: torch.Generator | None = None) -> NsfNoise:
        """Draw in the original's order: rand(B, H), randn(B, L, H), randn(B, L, 1)."""
        rand_ini = torch.rand(batch, harmonics, generator=generator, device=device)
        rand_ini[:, 0] = 0
        sine = torch.randn(batch, samples, harmonics, generator=generator, device=device)
        branch = torch.randn(batch, samples, 1, generator=generator, device=device)
        return cls(sine, rand_ini, branch)


@dataclass(frozen=True)
class NsfResult:
    """Output of the NSF source for a run of frames."""

    source: torch.Tensor  # [B, 1, L] excitation handed to the decoder
    uv: torch.Tensor  # [B, L, 1] voiced (1) / unvoiced (0) per sample
    phase_end: torch.Tensor  # [B, H] float64 running phase sum after the last frame (in cycles)


def _float64_device(device: torch.device) -> torch.device:
    """Where float64 work can run (MPS has no float64; such work goes to the CPU)."""
    return torch.device("cpu") if device.type == "mps" else device


def harmonic_rad(f0: torch.Tensor, p: NsfParams) -> torch.Tensor:
    """f0 [B, T] -> per-sample phase increment (cycles) of each harmonic [B, T, H], mod 1."""
    mult = torch.arange(1, p.harmonics + 1, dtype=f0.dtype, device=f0.device)  # [H]
    fn = f0[:, :, None] * mult  # [B, T, H]
    return (fn / p.sampling_rate) % 1


def frame_phase(rad: torch.Tensor, start: torch.Tensor | None,
                p: NsfParams) -> tuple[torch.Tensor, torch.Tensor]:
    """Phase at each frame, times the frame length, as the original computes it.

    rad [B, T, H] float32; start [B, H] float64 running sum carried from earlier frames (None = 0).
    Returns (phase [B, T, H] float32, the float64 running sum after the last frame [B, H]).
    """
    dev = _float64_device(rad.device)
    r = rad.to(dev, torch.float64)
    if start is not None:
        r = torch.cat([start.to(dev)[:, None, :], r], dim=1)  # [B, 1 + T, H]
    cum = torch.cumsum(r, dim=1)  # sequential float64 sum, as torch's CPU cumsum of float32
    if start is not None:
        cum = cum[:, 1:]
    if cum.shape[1]:
        end = cum[:, -1]  # [B, H]
    else:
        end = start.to(dev) if start is not None else r.new_zeros(r.shape[0], r.shape[2])
    phase = cum.to(rad.device, torch.float32) * 2 * math.pi  # [B, T, H]
    return phase * p.upsample, end


def _voicing(f0: torch.Tensor, p: NsfParams) -> tuple[torch.Tensor, torch.Tensor]:
    """f0 [B, T] -> (uv [B, T, 1], noise amplitude [B, T, 1])."""
    uv = (f0 > p.voiced_threshold).to(torch.float32)[:, :, None]  # [B, T, 1]
    return uv, uv * p.noise_std + (1 - uv) * p.sine_amp / 3


def _per_sample(x: torch.Tensor, p: NsfParams) -> torch.Tensor:
    return x.repeat_interleave(p.upsample, dim=1)  # [B, T, X] -> [B, L, X]


# --------------------------------------------------------------------------------------------
# CosyVoice3 fixed noise buffers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CausalNoiseRecipe:
    """What decides the CosyVoice3 NSF buffers.

    The original seeds the global RNG with 0 inside the flow's CFM constructor, draws the CFM noise,
    then the default initialisation of the flow's token embedding and speaker projection and of the
    HiFT f0 predictor, and only then the sine generator's ``rand_ini`` and ``sine_waves``. The sizes
    of those layers therefore decide the buffers, and they all come from the model's yaml.
    """

    seed: int
    cfm_noise_shape: tuple[int, int, int]  # (1, mel bins, frames)
    token_vocab: int  # flow input_embedding rows
    token_dim: int  # flow input_size
    spk_embed_dim: int  # flow spk_embed_affine_layer in
    spk_out: int  # flow spk_embed_affine_layer out (output_size)
    f0_in: int
    f0_cond: int
    f0_classes: int
    harmonics: int  # H
    samples: int  # rows of the sine_waves buffer (300 s)

    @classmethod
    def from_model_config(cls, cfg: ModelConfig) -> CausalNoiseRecipe:
        fl, h = cfg.flow, cfg.hift
        return cls(
            seed=fl.cfm.noise_seed,
            cfm_noise_shape=(1, fl.output_size, fl.cfm.noise_frames),
            token_vocab=fl.vocab_size,
            token_dim=fl.input_size,
            spk_embed_dim=fl.spk_embed_dim,
            spk_out=fl.output_size,
            f0_in=h.f0_predictor.in_channels,
            f0_cond=h.f0_predictor.cond_channels,
            f0_classes=h.f0_predictor.num_class,
            harmonics=h.nb_harmonics + 1,
            samples=NOISE_SECONDS * h.sampling_rate,
        )


def _skip_default_init(g: torch.Generator, weight_shape: tuple[int, ...]) -> None:
    """Consume the RNG exactly as the default init of a Linear / Conv1d of this weight shape."""
    w = torch.empty(weight_shape)
    init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
    fan_in = math.prod(weight_shape[1:])
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    init.uniform_(torch.empty(weight_shape[0]), -bound, bound, generator=g)


def _replay_construction_draws(r: CausalNoiseRecipe) -> tuple[torch.Tensor, torch.Tensor]:
    """Returns (rand_ini [1, H], generator state at the first row of sine_waves)."""
    g = torch.Generator(device="cpu").manual_seed(r.seed)
    torch.randn(r.cfm_noise_shape, generator=g)  # the CFM's fixed noise
    init.normal_(torch.empty(r.token_vocab, r.token_dim), generator=g)  # nn.Embedding
    _skip_default_init(g, (r.spk_out, r.spk_embed_dim))  # nn.Linear
    _skip_default_init(g, (r.f0_cond, r.f0_in, 4))  # f0 predictor condnet.0
    for _ in range(F0_LAYERS - 1):
        _skip_default_init(g, (r.f0_cond, r.f0_cond, 3))
    _skip_default_init(g, (r.f0_classes, r.f0_cond))  # classifier
    rand_ini = torch.rand(1, r.harmonics, generator=g)
    rand_ini[0, 0] = 0
    return rand_ini, g.get_state()


class CausalNoiseBank:
    """The CosyVoice3 ``rand_ini`` and uniform ``sine_waves`` buffer, produced lazily.

    The original holds the whole (1, 7.2 M, 9) float32 buffer (259 MB). torch's CPU ``rand`` fills a
    tensor serially from the generator, so any block of rows can be drawn on its own from the
    generator state at the block's first row (checked against one-shot draws in the tests). We keep
    one ~5 KB generator state per block and a small LRU of drawn blocks: about 28 MB at most by
    default, whatever the utterance length. Shared per recipe and thread-safe.
    """

    _shared: ClassVar[dict[CausalNoiseRecipe, CausalNoiseBank]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, recipe: CausalNoiseRecipe, *, block_rows: int = 96_000,
                 cached_blocks: int = 8) -> None:
        self.recipe = recipe
        self.block_rows = block_rows
        self.cached_blocks = cached_blocks
        self._lock = threading.Lock()
        self._rand_ini: torch.Tensor | None = None
        self._states: list[torch.Tensor] = []  # generator state at the first row of block j
        self._blocks: OrderedDict[int, torch.Tensor] = OrderedDict()

    @classmethod
    def shared(cls, recipe: CausalNoiseRecipe) -> CausalNoiseBank:
        with cls._shared_lock:
            if recipe not in cls._shared:
                cls._shared[recipe] = cls(recipe)
            return cls._shared[recipe]

    def _ensure_start(self) -> None:
        if self._rand_ini is None:
            self._rand_ini, state = _replay_construction_draws(self.recipe)
            self._states = [state]

    def rand_ini(self) -> torch.Tensor:
        """The fixed initial phase [1, H] (column 0 is 0; it has no effect on the output)."""
        with self._lock:
            self._ensure_start()
            assert self._rand_ini is not None
            return self._rand_ini.clone()

    def _draw_block(self, j: int) -> torch.Tensor:
        g = torch.Generator(device="cpu")
        g.set_state(self._states[j])
        rows = min(self.block_rows, self.recipe.samples - j * self.block_rows)
        block = torch.rand(1, rows, self.recipe.harmonics, generator=g)  # [1, rows, H]
        if j + 1 == len(self._states):
            self._states.append(g.get_state())
        return block

    def _block(self, j: int) -> torch.Tensor:
        if j in self._blocks:
            self._blocks.move_to_end(j)
            return self._blocks[j]
        while len(self._states) <= j:  # walk the generator forward to block j once
            self._draw_block(len(self._states) - 1)
        block = self._draw_block(j)
        self._blocks[j] = block
        while len(self._blocks) > self.cached_blocks:
            self._blocks.popitem(last=False)
        return block

    def rows(self, start: int, stop: int) -> torch.Tensor:
        """``sine_waves[:, start:stop]`` of the original: [1, stop - start, H] float32 on the CPU."""
        if not 0 <= start <= stop <= self.recipe.samples:
            raise SynthesisError(
                f"the CosyVoice3 vocoder can render at most {self.recipe.samples} samples "
                f"({NOISE_SECONDS} s) per utterance; samples {start}..{stop} were asked for. "
                "Split the text into shorter parts."
            )
        if start == stop:
            return torch.zeros(1, 0, self.recipe.harmonics)
        with self._lock:
            self._ensure_start()
            first, last = start // self.block_rows, (stop - 1) // self.block_rows
            parts = [self._block(j) for j in range(first, last + 1)]
        joined = parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)  # [1, rows, H]
        offset = first * self.block_rows
        return joined[:, start - offset : stop - offset]


# --------------------------------------------------------------------------------------------
# Generators
# --------------------------------------------------------------------------------------------


def source_down_rates(upsample_rates: Sequence[int]) -> list[int]:
    """Decimation of each source_downs layer (STFT frames per stage position): [15, 3, 1]."""
    rates = [1, *reversed(upsample_rates[1:])]
    cum = list(np.cumprod(rates))
    return [int(c) for c in reversed(cum)]


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
        self.conv_pre = _wn(self._make_conv_pre())
        self.ups = nn.ModuleList(
            _wn(self._make_up(cfg.base_channels // 2**i, cfg.base_channels // 2 ** (i + 1), k, u))
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
        self.conv_post = _wn(self._make_conv_post(self._stage_channels(self.n_stages - 1), 2 * n_bins))
        self.f0_predictor = F0Predictor(cfg.f0_predictor)
        self._windows: dict[torch.device, torch.Tensor] = {}

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
        for i in range(self.n_stages):
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
        x = self.conv_post(x).float()  # [B, K, N]
        n_bins = self.cfg.istft_n_fft // 2 + 1
        wav = self._istft(torch.exp(x[:, :n_bins]), torch.sin(x[:, n_bins:]))  # [B, L]
        wav = self._trim_wave(wav, finalize)
        return torch.clamp(wav, -self.cfg.audio_limit, self.cfg.audio_limit)

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
        uv, amp = _voicing(f0, p)  # [B, T, 1]
        uv_s, amp_s = _per_sample(uv, p), _per_sample(amp, p)  # [B, L, 1]
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
        dev = _float64_device(w.device)
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
        sines = _per_sample(torch.sin(phase_f) * p.sine_amp, p)  # nearest upsampling: [B, L, H]
        uv, amp = _voicing(f0, p)
        uv_s, amp_s = _per_sample(uv, p), _per_sample(amp, p)  # [B, L, 1]
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


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def build_hift(cfg: ModelConfig) -> HiFTGenerator | CausalHiFTGenerator:
    """The vocoder for this release, with initialised (random) weights on the current device."""
    if cfg.hift.causal:
        return CausalHiFTGenerator(cfg.hift, CausalNoiseRecipe.from_model_config(cfg))
    return HiFTGenerator(cfg.hift)


def fold_weight_norm(module: nn.Module) -> int:
    """Replace every weight-norm parametrization by its plain weight (faster). Returns the count.

    The folded weight stays a Parameter (torch would leave a buffer when grads are off), so
    ``parameters()`` and dtype / device moves see it as before; the key becomes ``<mod>.weight``.
    """
    targets = [m for m in module.modules() if parametrize.is_parametrized(m, "weight")]
    with torch.no_grad():
        for m in targets:
            requires_grad = any(p.requires_grad for p in m.parameters(recurse=True))
            parametrize.remove_parametrizations(m, "weight", leave_parametrized=True)
            folded = cast(torch.Tensor, m.weight).detach()
            delattr(m, "weight")
            m.weight = nn.Parameter(folded, requires_grad=requires_grad)
    return len(targets)


def load_hift(cfg: ModelConfig, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32, *,
              fold: bool = True) -> HiFTGenerator | CausalHiFTGenerator:
    """Build the vocoder on the meta device, assign ``hift.pt`` strictly, move it and set eval.

    The NSF source and the STFTs always run in float32; ``dtype`` sets the convolutions. The
    CosyVoice3 f0 predictor runs in float64 as in the original. ``fold`` folds weight norm into
    plain weights after loading (outputs change by < 1e-6).
    """
    path = cfg.model_dir / "hift.pt"
    with torch.device("meta"):
        model = build_hift(cfg)
    sd = normalize_keys(load_checkpoint(path), "hift")
    assign_state_dict(model, sd, path)
    model.to(device=device, dtype=dtype)
    model.m_source.float()  # the NSF source always runs in float32
    if isinstance(model, CausalHiFTGenerator):
        model._f0_float64()  # as the original: the f0 predictor in float64
    else:
        model.f0_predictor.float()
    if fold:
        n = fold_weight_norm(model)
        logger.debug("folded weight norm into %d layers of %s", n, path)
    model.eval()
    model.requires_grad_(False)
    return model


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
    parts = [stream.push_tensor(mel[:, :, s : s + block_frames], finalize=s + block_frames >= t)
             for s in range(0, t, block_frames)]
    return torch.cat(parts, dim=1)  # [B, 480 T]


# --------------------------------------------------------------------------------------------
# Conformance
# --------------------------------------------------------------------------------------------

_F0_TOL = (1e-3, 1e-4)
_WAVE_TOL = (1e-4, 0.0)
_E2E_TOL = (5e-4, 0.0)  # CosyVoice2 end to end from our own float32 f0 (see _check_v2)
_EXACT = (0.0, 0.0)


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


def _recorded_noise(ref: dict[str, np.ndarray], p: str) -> NsfNoise:
    return NsfNoise(_t(ref[f"{p}.random1_randn_like"]), _t(ref[f"{p}.random0_rand"]),
                    _t(ref[f"{p}.random2_randn_like"]))


@torch.inference_mode()
def _check_v2_call(hift: HiFTGenerator, ref: dict[str, np.ndarray], p: str) -> list[CheckResult]:
    mel = _t(ref[f"{p}.mel"])
    f0 = hift.predict_f0(mel)
    noise = _recorded_noise(ref, p)
    given = hift.nsf_source(_t(ref[f"{p}.f0"]), noise=noise)  # the recorded f0 and draws
    own = hift.nsf_source(f0, noise=noise)
    if f"{p}.cache_source" in ref:
        cache = _t(ref[f"{p}.cache_source"])
        for res in (given, own):
            res.source[:, :, : cache.shape[2]] = cache
    ref_speech = ref[f"{p}.speech"]
    return [
        compare(f"{p}.f0", f0, ref[f"{p}.f0"], *_F0_TOL),
        compare(f"{p}.f0_upsampled", _per_sample(f0[:, :, None], hift.nsf), ref[f"{p}.f0_upsampled"],
                *_F0_TOL),
        compare(f"{p}.uv", own.uv, ref[f"{p}.uv"], *_EXACT),
        compare(f"{p}.source", given.source, ref[f"{p}.source"], *_WAVE_TOL),
        compare(f"{p}.speech", hift.decode(mel, _t(ref[f"{p}.source"])), ref_speech, *_WAVE_TOL),
        compare(f"{p}.source[own f0]", own.source, ref[f"{p}.source"], *_E2E_TOL),
        compare(f"{p}.speech[own f0]", hift.decode(mel, own.source), ref_speech, *_E2E_TOL),
    ]


def _check_v2_stream(hift: HiFTGenerator, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    """The release glue: chunk0 (not final), then chunk1 = 8 cached frames + the new frames."""
    n_cache = MEL_CACHE_FRAMES
    mel0, mel1 = _t(ref["chunk0.mel"]), _t(ref["chunk1.mel"][:, :, n_cache:])
    emitted0, cache = vocode_chunk_v2(hift, mel0, None, False, noise=_recorded_noise(ref, "chunk0"))
    assert cache is not None
    faded, _ = vocode_chunk_v2(hift, mel1, cache, True, noise=_recorded_noise(ref, "chunk1"))
    overlap = n_cache * hift.cfg.hop_samples
    tail = _t(ref["chunk0.speech"][:, -overlap:])
    given_fade = fade_in_out(_t(ref["chunk1.speech"]), tail, fade_window(overlap))
    return [
        compare("chunk0.speech_emitted", emitted0, ref["chunk0.speech_emitted"], *_E2E_TOL),
        compare("chunk1.cache_source", cache.source, ref["chunk1.cache_source"], *_E2E_TOL),
        compare("chunk1.mel[:8]", cache.mel, ref["chunk1.mel"][:, :, :n_cache], *_EXACT),
        compare("chunk1.speech_faded", faded, ref["chunk1.speech_faded"], *_E2E_TOL),
        compare("chunk1.speech_faded[given speech]", given_fade, ref["chunk1.speech_faded"], 1e-6, 0.0),
    ]


def _check_v2(hift: HiFTGenerator, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    """CosyVoice2: per call f0, source (from the recorded f0 and random draws) and speech (from the
    recorded source); then the same end to end from our own f0, and the release streaming glue.

    The float32 f0 of the tiny model is ill-conditioned (its rescaled head cancels terms up to
    ~500x), so our f0 and the original's each sit ~5e-5 relative from the float64 value; through
    the phase sum that moves the end-to-end source / speech by up to ~2.5e-4, hence _E2E_TOL.
    """
    out = [r for p in ("full", "chunk0", "chunk1") for r in _check_v2_call(hift, ref, p)]
    return out + _check_v2_stream(hift, ref)


@torch.inference_mode()
def _check_v3_call(hift: CausalHiFTGenerator, ref: dict[str, np.ndarray], p: str) -> list[CheckResult]:
    mel = _t(ref[f"{p}.mel"])
    finalize = ref[f"{p}.speech"].shape[1] == hift.cfg.hop_samples * mel.shape[2]
    f0 = hift.predict_f0(mel, finalize)  # float64
    res = hift.nsf_source(f0)
    dec_mel = mel if finalize else mel[:, :, : -hift.f0_lookahead]
    ref_speech = ref[f"{p}.speech"]
    f0_up = _per_sample(f0.float()[:, :, None], hift.nsf)
    return [
        compare(f"{p}.f0", f0, ref[f"{p}.f0"], *_F0_TOL),
        compare(f"{p}.f0_upsampled", f0_up, ref[f"{p}.f0_upsampled"], *_F0_TOL),
        compare(f"{p}.uv", res.uv, ref[f"{p}.uv"], *_EXACT),
        compare(f"{p}.source", res.source, ref[f"{p}.source"], *_WAVE_TOL),
        compare(f"{p}.speech", hift.decode(dec_mel, _t(ref[f"{p}.source"]), finalize), ref_speech,
                *_WAVE_TOL),
        compare(f"{p}.speech[own source]", hift.inference(mel, finalize)[0], ref_speech, *_WAVE_TOL),
    ]


def _check_v3(hift: CausalHiFTGenerator, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    """CosyVoice3: the fixed noise (exact), per call f0 / uv / source / speech, and the release
    stream (chunk0 not final, then the whole mel final) through both stream implementations."""
    bank = hift.noise_bank
    out = [
        compare("rand_ini", bank.rand_ini(), ref["rand_ini"], *_EXACT),
        compare("sine_noise", bank.rows(0, ref["sine_noise"].shape[1]), ref["sine_noise"], *_EXACT),
    ]
    out += [r for p in ("full", "chunk0", "chunk1") for r in _check_v3_call(hift, ref, p)]
    split = ref["chunk0.mel"].shape[2]
    mel = _t(ref["chunk1.mel"])
    streams: dict[str, CausalHiftReferenceStream | CausalHiftStream] = {
        "reference": CausalHiftReferenceStream(hift), "incremental": CausalHiftStream(hift)}
    for name, stream in streams.items():
        a = stream.push_tensor(mel[:, :, :split], finalize=False)
        b = stream.push_tensor(mel[:, :, split:], finalize=True)
        wave = torch.cat([a, b], dim=1)  # [1, 480 T]
        out.append(compare(f"stream_concat[{name}]", wave, ref["stream_concat"], *_WAVE_TOL))
    return out


def check_hift_reference(model_dir: Path, ref_npz: Path) -> list[CheckResult]:
    """Compare the vocoder of the release folder ``model_dir`` with the original's ``hift.npz``."""
    cfg = load_model_config(model_dir)
    hift = load_hift(cfg, "cpu")
    with np.load(ref_npz) as z:
        ref = {k: z[k] for k in z.files}
    if isinstance(hift, CausalHiFTGenerator):
        return _check_v3(hift, ref)
    return _check_v2(hift, ref)
