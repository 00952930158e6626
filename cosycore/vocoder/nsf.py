"""HiFT's neural source-filter (NSF) excitation: the sine source (SineGen2), the source module and the
CosyVoice3 fixed noise buffers.

The NSF sine generator works at the frame rate wherever the original's per-sample computation is
constant within a frame: the original linearly downsamples a per-sample ``rad`` that is constant
inside every frame (so each frame reads its own value) and, in the causal model, upsamples the phase
by nearest neighbour. ``tests/test_hift.py`` checks this shortcut against the per-sample chain
(bit-exact for v2, within 1e-7 for v3, where sin is taken once per frame). The phase is a cumulative
sum over all frames; it is accumulated in float64 and rounded to float32, which is exactly what
torch's CPU ``cumsum`` does for float32 input (on CUDA the original's float32 scan is less precise),
and it lets a stream carry the running sum from one chunk to the next without changing any number.

Randomness:
- CosyVoice2 draws fresh noise on every call, in the original's order ``rand(B, H)`` (initial phase,
  no effect on the output), ``randn_like`` of a [B, L, H] view laid out as [B, H, L] (additive noise)
  and ``randn(B, L, 1)`` (an unused branch). The draws come from the ``torch.Generator`` the caller
  passes (one per stream), or the noise can be given explicitly (:class:`NsfNoise`).
- CosyVoice3 uses fixed buffers that the original draws at construction time from the global RNG
  right after its flow seeds it. :class:`CausalNoiseBank` replays that draw sequence on a private
  generator (the process RNG is never touched) and produces the 300 s buffer lazily, block by block.

Shapes: the legend of :mod:`cosycore.vocoder.hift`.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import nn
from torch.nn import init

from ..config import HiftConfig, ModelConfig
from ..errors import SynthesisError
from .f0 import F0_LAYERS

NOISE_SECONDS = 300  # length of the CosyVoice3 noise buffer (per call limit of the original)


# Close port of CosyVoice (Apache-2.0) hifigan/generator.py (SineGen, SineGen2, SourceModuleHnNSF); see NOTICE.
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
        """Draw in the original's order and memory layout: rand(B, H), N(0, 1) [B, L, H], N(0, 1) [B, L, 1].

        The original's sine waves are a transposed view of a [B, H, L] tensor, and ``randn_like``
        keeps that layout, so its normal draw fills memory harmonic by harmonic (and, the view not
        being contiguous, through torch's one-value-at-a-time kernel rather than the vectorised one
        that ``randn(B, L, H)`` uses). Drawing into the same transposed view gives the original's
        numbers and leaves the generator in the original's state (``tests/test_hift.py`` compares with
        a recorded draw of the original, ``tests/data/nsf_noise_original.npz``). The noise branch
        is [B, L, 1], whose layout is the plain one either way.
        """
        rand_ini = torch.rand(batch, harmonics, generator=generator, device=device)
        rand_ini[:, 0] = 0
        sine = torch.empty(batch, harmonics, samples, device=device).transpose(1, 2)  # [B, L, H] view
        sine.normal_(generator=generator)
        branch = torch.randn(batch, samples, 1, generator=generator, device=device)
        return cls(sine, rand_ini, branch)


@dataclass(frozen=True)
class NsfResult:
    """Output of the NSF source for a run of frames."""

    source: torch.Tensor  # [B, 1, L] excitation handed to the decoder
    uv: torch.Tensor  # [B, L, 1] voiced (1) / unvoiced (0) per sample
    phase_end: torch.Tensor  # [B, H] float64 running phase sum after the last frame (in cycles)


def float64_device(device: torch.device) -> torch.device:
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
    dev = float64_device(rad.device)
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


def voicing(f0: torch.Tensor, p: NsfParams) -> tuple[torch.Tensor, torch.Tensor]:
    """f0 [B, T] -> (uv [B, T, 1], noise amplitude [B, T, 1])."""
    uv = (f0 > p.voiced_threshold).to(torch.float32)[:, :, None]  # [B, T, 1]
    return uv, uv * p.noise_std + (1 - uv) * p.sine_amp / 3


def per_sample(x: torch.Tensor, p: NsfParams) -> torch.Tensor:
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

