"""Fun-CosyVoice3 flow model ``CausalMaskedDiffWithDiT``: tokens -> pre-lookahead -> repeat -> DiT CFM.

Shape legend:
    N  speech tokens in the call (prompt first), K = pre_lookahead_len look-ahead tokens
    D  token embedding width (``input_size`` = 80, equal to the mel width: there is no projection)
    R  token_mel_ratio (2 mel frames per token)
    T  mel frames of the call: R * N when finalizing, R * (N - K) otherwise

The front end is just ``PreLookaheadLayer`` on the raw token embeddings, each token vector then
copied onto R consecutive frames. When the call is not final, the last K embedded tokens are only
look-ahead context for the pre-lookahead convolution and produce no frames.
"""

from __future__ import annotations

import logging

import torch

from ..config import DiTConfig, FlowConfig
from ..errors import ConfigError
from .base import FlowModel
from .cache import StepCache
from .dit import DiT
from .lookahead import PreLookaheadLayer

logger = logging.getLogger(__name__)

ESTIMATOR_PREFIX = "decoder.estimator."


class CausalMaskedDiffWithDiT(FlowModel):
    """Module names follow the release ``flow.pt``: ``input_embedding``, ``spk_embed_affine_layer``,
    ``pre_lookahead_layer`` and ``decoder.estimator``."""

    def __init__(self, cfg: FlowConfig) -> None:
        if not isinstance(cfg.estimator, DiTConfig) or cfg.pre_lookahead_channels is None:
            raise ConfigError(
                "CausalMaskedDiffWithDiT needs a DiT estimator config and pre-lookahead channels"
            )
        if cfg.input_size != cfg.output_size:
            raise ConfigError(
                f"the CosyVoice3 flow feeds token embeddings straight to the decoder, so input_size "
                f"({cfg.input_size}) must equal output_size ({cfg.output_size})"
            )
        super().__init__(cfg, DiT(cfg.estimator))
        self.pre_lookahead_layer = PreLookaheadLayer(
            cfg.input_size, cfg.pre_lookahead_channels, cfg.pre_lookahead_len
        )

    def prepare_state_dict(
        self, sd: dict[str, torch.Tensor], source: str = "flow.pt"
    ) -> dict[str, torch.Tensor]:
        """Check and drop the estimator's rotary ``inv_freq`` buffer (recomputed at run time)."""
        estimator: DiT = self.decoder.estimator  # type: ignore[assignment]
        return estimator.prepare_state_dict(sd, prefix=ESTIMATOR_PREFIX, source=source)

    def encode(self, emb: torch.Tensor, *, streaming: bool, finalize: bool) -> torch.Tensor:
        """emb: [1, N, D] -> h: [1, T, D]. ``streaming`` does not affect this front end."""
        k = self.cfg.pre_lookahead_len
        if finalize:
            h = self.pre_lookahead_layer(emb)  # [1, N, D]
        else:
            h = self.pre_lookahead_layer(emb[:, :-k], context=emb[:, -k:])  # [1, N - K, D]
        return h.repeat_interleave(self.cfg.token_mel_ratio, dim=1)  # [1, R * tokens, D]

    def encode_cached(self, emb: torch.Tensor, state: StepCache, *, finalize: bool) -> torch.Tensor:
        """Cached streaming encode of the new tokens (see :meth:`FlowModel.encode_cached`)."""
        k = self.cfg.pre_lookahead_len
        if finalize:
            h = self.pre_lookahead_layer(emb, state=state)  # [1, n, D]
        else:
            h = self.pre_lookahead_layer(emb[:, :-k], context=emb[:, -k:], state=state)  # [1, n, D]
        return h.repeat_interleave(self.cfg.token_mel_ratio, dim=1)  # [1, R * n, D]
