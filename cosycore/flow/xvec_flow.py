"""CosyVoice2 flow ``CausalMaskedDiffWithXvec``: conformer token encoder + causal U-Net CFM estimator.

Shapes: N = prompt + generated tokens in the call, D = token embedding width (512 in the release),
E = encoder width, C = mel bins (80), K = ``pre_lookahead_len`` look-ahead tokens,
T = frames = ``token_mel_ratio`` * (N or N - K).

Module names match the release ``flow.pt`` exactly: ``input_embedding``, ``spk_embed_affine_layer``,
``encoder.*``, ``encoder_proj``, ``decoder.estimator.*``.
"""

from __future__ import annotations

import logging

import torch
from torch import nn

from ..config import ConformerEncoderConfig, FlowConfig, UNetConfig
from ..errors import ConfigError
from .base import FlowModel
from .cache import StepCache
from .conformer import UpsampleConformerEncoder
from .unet import CausalConditionalDecoder

logger = logging.getLogger(__name__)


class CausalMaskedDiffWithXvec(FlowModel):
    """CosyVoice2 token -> mel flow. Build on the meta device, then fill from ``flow.pt``."""

    def __init__(self, cfg: FlowConfig) -> None:
        enc = cfg.encoder
        if not isinstance(cfg.estimator, UNetConfig) or not isinstance(enc, ConformerEncoderConfig):
            raise ConfigError("CausalMaskedDiffWithXvec needs a conformer encoder and a U-Net estimator")
        if enc.input_size != cfg.input_size:
            raise ConfigError(
                f"flow input_size {cfg.input_size} differs from the encoder input_size {enc.input_size}"
            )
        super().__init__(cfg, CausalConditionalDecoder(cfg.estimator))
        self.encoder = UpsampleConformerEncoder(enc)
        self.encoder_proj = nn.Linear(enc.output_size, cfg.output_size)

    def encode(self, emb: torch.Tensor, *, streaming: bool, finalize: bool) -> torch.Tensor:
        """emb: [1, N, D] -> h [1, T, C]. Not finalize: the last K tokens are look-ahead context only."""
        if finalize:
            h = self.encoder(emb, streaming=streaming)  # [1, 2N, E]
        else:
            k = self.cfg.pre_lookahead_len
            h = self.encoder(emb[:, :-k], emb[:, -k:], streaming=streaming)  # [1, 2(N-K), E]
        return self.encoder_proj(h)  # [1, T, C]

    def encode_cached(self, emb: torch.Tensor, state: StepCache, *, finalize: bool) -> torch.Tensor:
        """Cached streaming encode of the new tokens (see :meth:`FlowModel.encode_cached`)."""
        enc_chunk = self.encoder.cfg.static_chunk_size
        if enc_chunk != self._chunk_tokens():
            raise ValueError(f"encoder chunk {enc_chunk} tokens differs from the estimator's; cannot cache")
        if finalize:
            h = self.encoder(emb, streaming=True, state=state)  # [1, 2n, E]
        else:
            k = self.cfg.pre_lookahead_len
            h = self.encoder(emb[:, :-k], emb[:, -k:], streaming=True, state=state)  # [1, 2n, E]
        return self.encoder_proj(h)  # [1, 2n, C]
