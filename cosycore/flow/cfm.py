"""Conditional flow matching sampler (Euler, cosine schedule, classifier-free guidance).

Shapes: B = 1 request (the CFG pair makes the estimator batch 2), C = 80 mel bins, T = frames of
prompt + generated mel in the call.

The initial noise is fixed: the original draws ``randn(1, 80, 15000)`` right after seeding with 0
and every call uses its first T frames, so the noise under a frame depends on its absolute index.
We draw it from a private generator, so loading a model never touches the process's global RNG.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar

import torch

from ..cancel import cancel_point
from ..config import CFMConfig
from .cache import FlowCache, StepCache

# estimator(x, mask, mu, t, spks, cond, streaming) -> velocity; all batch 2 (cond row 0, uncond row 1)
Estimator = Callable[..., torch.Tensor]


@dataclass(frozen=True)
class FlowSettings:
    """Euler steps, CFG strength and estimator autocast of the flow (None = the release's 10, 0.7, float32)."""

    n_steps: int | None = None
    cfg_rate: float | None = None
    autocast: torch.dtype | None = None  # e.g. torch.bfloat16 for the estimator's matrix products

    @property
    def exact(self) -> bool:
        return self.n_steps is None and self.cfg_rate is None and self.autocast is None


class FixedNoise:
    """The original's fixed initial noise, built once per process and shared read-only."""

    _cache: ClassVar[dict[tuple[int, int, int], torch.Tensor]] = {}

    @classmethod
    def get(cls, channels: int, frames: int, seed: int) -> torch.Tensor:
        key = (channels, frames, seed)
        if key not in cls._cache:
            gen = torch.Generator(device="cpu").manual_seed(seed)
            cls._cache[key] = torch.randn(1, channels, frames, generator=gen)  # [1, C, 15000]
        return cls._cache[key]


def cosine_t_span(n_steps: int, dtype: torch.dtype, device: torch.device | str) -> torch.Tensor:
    """``1 - cos(linspace(0, 1, n+1) * pi/2)`` computed in ``dtype`` as the original does."""
    t = torch.linspace(0, 1, n_steps + 1, device=device, dtype=dtype)
    return 1 - torch.cos(t * 0.5 * math.pi)


def euler_steps(t_span: torch.Tensor) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """(t, dt) of each Euler step over ``t_span`` [n + 1], as the original computes them: t advances by
    dt, and the next dt is ``t_span[i + 1] - t`` (not the difference of two span entries)."""
    n = t_span.shape[0] - 1
    t = t_span[0]
    dt = t_span[1] - t_span[0]
    for step in range(1, n + 1):
        yield t, dt
        t = t + dt
        if step < n:
            dt = t_span[step + 1] - t


class CFMSampler:
    """Runs the 10-step Euler ODE with CFG on a given estimator. Holds no per-request state."""

    def __init__(self, cfg: CFMConfig, mel_channels: int = 80) -> None:
        self.cfg = cfg
        self.mel_channels = mel_channels

    def resolve(self, settings: FlowSettings) -> tuple[int, float]:
        """The Euler steps and CFG strength of ``settings`` (None: the release's)."""
        n = self.cfg.n_timesteps if settings.n_steps is None else settings.n_steps
        w = self.cfg.inference_cfg_rate if settings.cfg_rate is None else settings.cfg_rate
        return n, w

    def estimator_times(self, settings: FlowSettings, dtype: torch.dtype,
                        device: torch.device | str) -> list[torch.Tensor]:
        """The ``t`` input [B] of every estimator call :meth:`sample` makes with ``settings`` (the same
        values in every call: they depend on the step only), for a flow whose weights are ``dtype``."""
        n, w = self.resolve(settings)
        b = 2 if w != 0.0 else 1
        out = []
        for t, _ in euler_steps(cosine_t_span(n, dtype, device)):
            t_in = torch.zeros(b, device=device, dtype=dtype)
            t_in[:] = t
            out.append(t_in)
        return out

    def noise(self, frames: int, device: torch.device | str, dtype: torch.dtype) -> torch.Tensor:
        if frames > self.cfg.noise_frames:
            raise ValueError(
                f"{frames} mel frames exceed the flow's {self.cfg.noise_frames}-frame limit "
                f"({self.cfg.noise_frames // 50} s including the prompt); split the text into shorter parts"
            )
        z = FixedNoise.get(self.mel_channels, self.cfg.noise_frames, self.cfg.noise_seed)
        return z[:, :, :frames].to(device=device, dtype=dtype)  # [1, C, T]

    def sample(
        self,
        estimator: Estimator,
        mu: torch.Tensor,
        spks: torch.Tensor,
        cond: torch.Tensor,
        *,
        streaming: bool,
        n_steps: int | None = None,
        cfg_rate: float | None = None,
        on_first_call: Callable[[dict[str, torch.Tensor]], None] | None = None,
        cache: FlowCache | None = None,
        autocast: torch.dtype | None = None,
    ) -> torch.Tensor:
        """mu, cond: [1, C, T]; spks: [1, C]. Returns the mel [1, C, T] in float32.

        ``cfg_rate=0`` skips the unconditional branch (batch 1), a faster approximate mode.
        ``on_first_call`` receives the estimator inputs/outputs of the first step (conformance).
        With ``cache`` (cached streaming) mu and cond hold only the T frames after the
        ``cache.frames`` cached ones; each ODE step runs the estimator with its own layer states.
        ``autocast`` (e.g. ``torch.bfloat16``, approximate) runs the estimator's matrix products in
        that dtype; the ODE state, the time steps and the guidance stay float32.
        """
        n, w = self.resolve(FlowSettings(n_steps, cfg_rate))
        _, c, t_len = mu.shape
        start = 0
        if cache is not None:
            cache.bind(n, w, autocast)
            start = cache.frames
        x = self.noise(start + t_len, mu.device, mu.dtype)[:, :, start:]  # noise of the absolute frames
        t_span = cosine_t_span(n, mu.dtype, mu.device)
        guided = w != 0.0
        b = 2 if guided else 1
        dtype = spks.dtype
        # Preallocated CFG batch; row 1 (unconditional) keeps zero mu/spks/cond.
        x_in = torch.zeros(b, c, t_len, device=mu.device, dtype=dtype)
        mask_in = torch.ones(b, 1, t_len, device=mu.device, dtype=dtype)
        mu_in = torch.zeros(b, c, t_len, device=mu.device, dtype=dtype)
        t_in = torch.zeros(b, device=mu.device, dtype=dtype)
        spks_in = torch.zeros(b, c, device=mu.device, dtype=dtype)
        cond_in = torch.zeros(b, c, t_len, device=mu.device, dtype=dtype)
        mu_in[0] = mu[0]
        spks_in[0] = spks[0]
        cond_in[0] = cond[0]
        # Ported from CosyVoice (Apache-2.0) / Matcha-TTS (MIT); see NOTICE: the Euler loop with CFG.
        for step, (t, dt) in enumerate(euler_steps(t_span), start=1):
            cancel_point()  # a cancelled request stops here, between two estimator calls
            x_in[:] = x
            t_in[:] = t
            kwargs: dict[str, StepCache] = {}
            if cache is not None:
                kwargs["state"] = state = cache.steps[step - 1]
                state.start = start
            if autocast is None:
                v = estimator(x_in, mask_in, mu_in, t_in, spks_in, cond_in, streaming, **kwargs)  # [b, C, T]
            else:
                with torch.autocast(mu.device.type, dtype=autocast):
                    v = estimator(x_in, mask_in, mu_in, t_in, spks_in, cond_in, streaming, **kwargs)
                v = v.to(x_in.dtype)
            if on_first_call is not None and step == 1:
                on_first_call({"x": x_in.clone(), "mask": mask_in.clone(), "mu": mu_in.clone(),
                               "t": t_in.clone(), "spks": spks_in.clone(), "cond": cond_in.clone(),
                               "out": v.clone()})
            v_hat = (1.0 + w) * v[:1] - w * v[1:] if guided else v
            x = x + dt * v_hat
        return x.float()
