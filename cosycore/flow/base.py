"""Inference shared by both flow families (CosyVoice2 conformer + U-Net, Fun-CosyVoice3 DiT).

Shapes: L = generated speech tokens, P = prompt speech tokens, N = P + L tokens in the call,
D = token embedding width (``FlowConfig.input_size``), C = mel bins (80), T = mel frames of the
call (prompt + generated), T_p = prompt mel frames, S = speaker embedding width (192).

Both families follow the same recipe; only the token -> frame front end differs:

1. ``spks = spk_embed_affine_layer(normalize(embedding))``                     [1, C]
2. ``emb = input_embedding(clamp([prompt_token, token], min=0))``              [1, N, D]
3. ``h = encode(emb, streaming, finalize)``  (family specific)                  [1, T, C]
4. ``cond`` = prompt mel in the first T_p frames, zeros after                   [1, C, T]
5. ``mel = CFM(mu=h^T, spks, cond)[:, :, T_p:]``                                [1, C, T - T_p]

Subclasses build their estimator, pass it to :meth:`FlowModel.__init__` and implement
:meth:`FlowModel.encode` (and may override :meth:`FlowModel.prepare_state_dict`). Module names
follow the release ``flow.pt``: ``input_embedding``, ``spk_embed_affine_layer`` and
``decoder.estimator``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol, cast, runtime_checkable

import torch
import torch.nn.functional as F
from torch import nn

from ..config import FlowConfig
from .cache import FlowCache, StepCache
from .cfm import CFMSampler, Estimator, FlowSettings
from .time_table import TimeTable

logger = logging.getLogger(__name__)


@runtime_checkable
class _FixableEstimator(Protocol):
    """An estimator whose time conditioning can be fixed to one flow setting (the DiT)."""

    time_table: TimeTable | None

    def time_modules(self) -> dict[str, nn.Module]: ...

    def fix_time_steps(self, times: Sequence[torch.Tensor], autocast: torch.dtype | None,
                       description: str) -> None: ...

# Inputs and output of the first estimator call, as recorded for conformance.
EST0_KEYS = ("x", "mask", "mu", "t", "spks", "cond", "out")


def _est0_recorder(capture: dict[str, torch.Tensor]) -> Callable[[dict[str, torch.Tensor]], None]:
    def record(est: dict[str, torch.Tensor]) -> None:
        capture.update({f"est0.{k}": est[k] for k in EST0_KEYS})

    return record


class CFMDecoder(nn.Module):
    """Holds the estimator (key prefix ``decoder.estimator``) and runs the Euler/CFG sampler on it."""

    def __init__(self, cfg: FlowConfig, estimator: nn.Module) -> None:
        super().__init__()
        self.estimator = estimator
        self.sampler = CFMSampler(cfg.cfm, cfg.output_size)
        # Another runtime's estimator with the same calls (cosycore.flow.ort_estimator), used when set
        # and the call has no autocast; the torch estimator keeps its weights (the release's keys).
        self.runtime_estimator: Estimator | None = None
        # True once the torch estimator's weights were dropped for the runtime's (release_estimator_weights)
        self.estimator_released = False

    def release_estimator_weights(self) -> None:
        """Drop the torch estimator's weights: the runtime estimator, which holds its own copy, runs
        every call from now on (autocast calls too, in float32). Only between requests: a call in
        flight on the torch estimator would lose its weights."""
        if self.runtime_estimator is None:
            raise RuntimeError("no runtime estimator to run the calls; the torch weights are kept")
        # the modules whose weights the runtime holds (the DiT's graph: all but its time conditioning)
        held = getattr(self.runtime_estimator, "held_modules", None)
        for module in held() if held is not None else [self.estimator]:
            module.to_empty(device="meta")
        self.estimator_released = True

    def forward(
        self,
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
        """mu, cond: [1, C, T]; spks: [1, C] -> mel [1, C, T] (float32)."""
        runtime = self.runtime_estimator if autocast is None or self.estimator_released else None
        return self.sampler.sample(
            runtime or self.estimator, mu, spks, cond, streaming=streaming, n_steps=n_steps,
            cfg_rate=cfg_rate, on_first_call=on_first_call, cache=cache, autocast=autocast,
        )


class FlowModel(nn.Module):
    """Token -> mel flow model: the common inference path of both families.

    Owned by the pipeline; holds no per-request state, so one instance serves every request.
    Subclasses must implement :meth:`encode` (tokens -> frame-rate ``mu``).
    """

    def __init__(self, cfg: FlowConfig, estimator: nn.Module) -> None:
        super().__init__()
        self.cfg = cfg
        self.input_embedding = nn.Embedding(cfg.vocab_size, cfg.input_size)
        self.spk_embed_affine_layer = nn.Linear(cfg.spk_embed_dim, cfg.output_size)
        self.decoder = CFMDecoder(cfg, estimator)
        self.fixed_settings: FlowSettings | None = None  # the one setting it runs, once fix_time_steps ran

    # -- family specific ---------------------------------------------------------------------

    def encode(self, emb: torch.Tensor, *, streaming: bool, finalize: bool) -> torch.Tensor:
        """emb: [1, N, D] token embeddings (prompt first) -> mu frames h: [1, T, C].

        ``finalize=False``: the last ``pre_lookahead_len`` tokens are look-ahead context only, so
        T = token_mel_ratio * (N - pre_lookahead_len); otherwise T = token_mel_ratio * N.
        ``streaming=True`` switches attention to static chunk masks.
        """
        raise NotImplementedError

    def encode_cached(self, emb: torch.Tensor, state: StepCache, *, finalize: bool) -> torch.Tensor:
        """Cached streaming :meth:`encode`: emb holds the tokens after the ``state.start`` cached
        ones (plus the look-ahead tokens unless ``finalize``); returns only their frames."""
        raise NotImplementedError

    def prepare_state_dict(
        self, sd: dict[str, torch.Tensor], source: str = "flow.pt"
    ) -> dict[str, torch.Tensor]:
        """Hook for :func:`cosycore.flow.load_flow`: adapt the checkpoint before the strict load.

        The default keeps it as it is; a subclass may check and drop entries it recomputes.
        """
        return sd

    # -- one fixed flow setting (a memory option) ----------------------------------------------

    def time_modules(self) -> dict[str, nn.Module]:
        """The estimator's time-conditioning modules by full key prefix (``decoder.estimator.…``):
        what :meth:`fix_time_steps` replaces. Empty for an estimator without the option (the
        CosyVoice2 U-Net) and once fixed."""
        if not isinstance(self.decoder.estimator, _FixableEstimator):
            return {}
        found = self.decoder.estimator.time_modules()
        return {f"decoder.estimator.{name}": m for name, m in found.items()}

    def fix_time_steps(self, settings: FlowSettings) -> bool:
        """Fix this flow to one setting: the estimator's time conditioning is computed once for the
        ODE times of ``settings`` and its weights are dropped (:mod:`cosycore.flow.time_table`; 0.57 GB
        for the Fun-CosyVoice3 DiT). Calls with these settings compute what they computed before; any
        other setting then raises :class:`~cosycore.errors.FlowSettingsError`. Returns False (and
        changes nothing) for an estimator without the option. Only the time modules need weights
        (the loader fixes a flow before reading the rest of ``flow.pt``).
        """
        modules = self.time_modules()
        if not modules:
            return False
        estimator = cast(_FixableEstimator, self.decoder.estimator)
        weight = next(iter(next(iter(modules.values())).parameters()))
        times = self.decoder.sampler.estimator_times(settings, weight.dtype, weight.device)
        n, w = self.decoder.sampler.resolve(settings)
        description = f"{n} steps, CFG {w:g}, autocast {settings.autocast}"
        estimator.fix_time_steps(times, settings.autocast, description)
        self.fixed_settings = settings
        table_mb = estimator.time_table.nbytes() / 1e6 if estimator.time_table is not None else 0.0
        logger.info("flow fixed to %s: its time conditioning is a %.1f MB table", description, table_mb)
        return True

    # -- shared steps ------------------------------------------------------------------------

    def speaker(self, embedding: torch.Tensor) -> torch.Tensor:
        """embedding: [1, S] x-vector -> spks [1, C]."""
        dtype = self.spk_embed_affine_layer.weight.dtype
        return self.spk_embed_affine_layer(F.normalize(embedding.to(dtype), dim=1))

    def embed_tokens(self, prompt_token: torch.Tensor, token: torch.Tensor) -> torch.Tensor:
        """[1, P] and [1, L] token ids -> embeddings [1, P + L, D]. Ids must lie below vocab_size."""
        ids = torch.cat([prompt_token, token], dim=1).long()  # [1, N]
        if ids.numel() and int(ids.max()) >= self.cfg.vocab_size:
            bad = int(ids.max())
            raise ValueError(
                f"speech token id {bad} is outside the flow vocabulary (0..{self.cfg.vocab_size - 1}); "
                "stop/special tokens of the LLM must be removed before the flow"
            )
        return self.input_embedding(ids.clamp(min=0))

    @staticmethod
    def build_cond(prompt_feat: torch.Tensor, frames: int, dtype: torch.dtype) -> torch.Tensor:
        """prompt_feat: [1, T_p, C] -> cond [1, C, T] with the prompt mel in the first T_p frames."""
        _, t_p, c = prompt_feat.shape
        cond = torch.zeros(1, frames, c, device=prompt_feat.device, dtype=dtype)  # [1, T, C]
        cond[:, :t_p] = prompt_feat.to(dtype)
        return cond.transpose(1, 2)  # [1, C, T]

    # -- public entry point ------------------------------------------------------------------

    @torch.inference_mode()
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
        capture: dict[str, torch.Tensor] | None = None,
        autocast: torch.dtype | None = None,
    ) -> torch.Tensor:
        """Generate the mel of ``token`` (prompt frames removed).

        token: [1, L] ids; prompt_token: [1, P] ids (P may be 0); prompt_feat: [1, T_p, C] prompt
        mel, normally T_p = token_mel_ratio * P; embedding: [1, S] speaker x-vector.
        Returns mel [1, C, T - T_p] in float32.

        ``capture``, when given, receives ``mu``, ``spks``, ``cond`` and the first estimator call as
        ``est0.{x,mask,mu,t,spks,cond,out}`` (for conformance checks). ``autocast`` (approximate, off
        by default) runs the estimator's matrix products in that dtype, e.g. ``torch.bfloat16``.
        """
        self._check_inputs(token, prompt_token, prompt_feat, finalize)
        device = self.input_embedding.weight.device
        spks = self.speaker(embedding.to(device))  # [1, C]
        emb = self.embed_tokens(prompt_token.to(device), token.to(device))  # [1, N, D]
        h = self.encode(emb, streaming=streaming, finalize=finalize)  # [1, T, C]
        t_p = prompt_feat.shape[1]
        frames = h.shape[1]
        if frames < t_p:
            raise ValueError(
                f"the call yields {frames} mel frames, fewer than the {t_p} prompt frames; "
                "give more tokens (a non-final streaming call needs its look-ahead tokens too)"
            )
        mu = h.transpose(1, 2).contiguous()  # [1, C, T]
        cond = self.build_cond(prompt_feat.to(device), frames, h.dtype)  # [1, C, T]
        hook: Callable[[dict[str, torch.Tensor]], None] | None = None
        if capture is not None:
            capture.update({"mu": mu.clone(), "spks": spks.clone(), "cond": cond.clone()})
            hook = _est0_recorder(capture)
        mel = self.decoder(mu, spks, cond, streaming=streaming, n_steps=n_steps, cfg_rate=cfg_rate,
                           on_first_call=hook, autocast=autocast)  # [1, C, T]
        return mel[:, :, t_p:].float()  # [1, C, T - T_p]

    @torch.inference_mode()
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
    ) -> torch.Tensor:
        """A ``streaming=True`` call that computes only the frames ``cache`` does not hold yet.

        Same inputs as :meth:`inference` (all tokens so far), but returns only the generated mel
        frames that are new since the previous call with this cache: [1, C, T_new]. These equal
        the matching frames of ``inference(..., streaming=True)`` up to float rounding (the
        per-layer states of the earlier frames are reused, see :mod:`cosycore.flow.cache`).

        Every non-final call must end on a chunk boundary of the whole (prompt + generated)
        sequence, as the release schedule does; ``finalize=True`` ends the stream (no look-ahead
        tokens, chunk-causal attention) and the cache accepts no further call.
        """
        if cache.finished:
            raise ValueError("this flow cache belongs to a stream that has already finished")
        self._check_inputs(token, prompt_token, prompt_feat, finalize)
        device = self.input_embedding.weight.device
        ratio, look = self.cfg.token_mel_ratio, self.cfg.pre_lookahead_len
        n_tokens = prompt_token.shape[1] + token.shape[1]
        end = n_tokens if finalize else n_tokens - look  # tokens that produce frames in this call
        start = cache.tokens
        chunk_tokens = self._chunk_tokens()
        if end < start:
            raise ValueError(f"the flow cache holds {start} tokens but this call covers only {end}")
        if not finalize and end % chunk_tokens:
            raise ValueError(
                f"a cached non-final call must end on a {chunk_tokens}-token chunk boundary of the whole "
                f"sequence (prompt included); this one ends at token {end}. Pad the first hop as the "
                "release schedule does, or stream without the flow cache."
            )
        t_p = prompt_feat.shape[1]
        if ratio * end < t_p:
            raise ValueError(f"the call yields {ratio * end} mel frames, fewer than the {t_p} prompt frames")
        spks = self.speaker(embedding.to(device))  # [1, C]
        emb = self.embed_tokens(prompt_token.to(device), token.to(device))[:, start:]  # [1, n (+K), D]
        n, w = self.decoder.sampler.resolve(FlowSettings(n_steps, cfg_rate))
        cache.bind(n, w, autocast)
        for state in (cache.encoder, *cache.steps):
            # the last call's states would never be read, and a frozen cache's steps no longer grow
            state.keep_new = not finalize and (state is cache.encoder or not cache.frozen)
        cache.encoder.start = start
        h = self.encode_cached(emb, cache.encoder, finalize=finalize)  # [1, T_new, C]
        f_start = ratio * start
        mu = h.transpose(1, 2).contiguous()  # [1, C, T_new]
        d_start = f_start  # first frame the estimator runs on
        if cache.frozen:  # re-run the frames after the frozen ones (FlowCache.freeze)
            d_start = cache.frames
            if cache.mu_tail is not None:
                mu = torch.cat([cache.mu_tail, mu], dim=2)  # [1, C, f_end - d_start]
            cache.mu_tail = None if finalize else mu
        cond = self.build_cond(prompt_feat.to(device), d_start + mu.shape[2], h.dtype)[:, :, d_start:]  # [1, C, T]
        mel = self.decoder(mu, spks, cond, streaming=True, n_steps=n_steps, cfg_rate=cfg_rate,
                           cache=cache, autocast=autocast)  # [1, C, T]
        mel = mel[:, :, f_start - d_start:]  # the frames new in this call
        cache.tokens = end
        if not cache.frozen:
            cache.frames = ratio * end
        cache.finished = finalize
        return mel[:, :, max(0, t_p - f_start):].float()  # generated frames only

    def _chunk_tokens(self) -> int:
        """Static attention chunk of the streaming masks, in tokens."""
        est_chunk = int(getattr(self.cfg.estimator, "static_chunk_size", 0))
        if est_chunk <= 0 or est_chunk % self.cfg.token_mel_ratio:
            raise ValueError(f"the estimator's static chunk ({est_chunk} frames) does not allow caching")
        return est_chunk // self.cfg.token_mel_ratio

    def _check_inputs(self, token: torch.Tensor, prompt_token: torch.Tensor, prompt_feat: torch.Tensor,
                      finalize: bool) -> None:
        if token.dim() != 2 or token.shape[0] != 1 or prompt_token.dim() != 2 or prompt_token.shape[0] != 1:
            raise ValueError(
                f"the flow runs one request at a time: token and prompt_token must be [1, L] "
                f"(got {tuple(token.shape)} and {tuple(prompt_token.shape)})"
            )
        c = self.cfg.output_size
        if prompt_feat.dim() != 3 or prompt_feat.shape[0] != 1 or prompt_feat.shape[2] != c:
            raise ValueError(
                f"prompt_feat must be [1, frames, {c}] (got {tuple(prompt_feat.shape)})"
            )
        n_tokens = token.shape[1] + prompt_token.shape[1]
        if not finalize and n_tokens <= self.cfg.pre_lookahead_len:
            raise ValueError(
                f"a non-final call needs more than {self.cfg.pre_lookahead_len} tokens "
                f"(the last ones are look-ahead only); got {n_tokens}"
            )
        expected = self.cfg.token_mel_ratio * prompt_token.shape[1]
        if prompt_feat.shape[1] != expected:
            # The original silently shifts the output alignment in this case; say so (in the log only: voice
            # conversion's exact mode passes such a prompt on purpose, as the original's frontend_vc does).
            logger.info(
                "prompt_feat has %d frames but %d prompt tokens imply %d; the output is shifted",
                prompt_feat.shape[1], prompt_token.shape[1], expected,
            )
