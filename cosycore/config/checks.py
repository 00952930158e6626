"""Range checks of every number a :class:`~.model_config.ModelConfig` holds, so that a hand-edited or
hostile yaml is refused before any network is built."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .model_config import QWEN_DIR, ModelConfig

# Settings that may be 0; every other whole number must be at least 1, every number finite.
_ZERO_OK = {"pre_lookahead_len", "num_mid_blocks", "conv_pre_look_right", "noise_seed", "fmin", "tau_r",
            "nsf_alpha", "nsf_sigma", "nsf_voiced_threshold", "lrelu_slope", "inference_cfg_rate", "num_up_blocks"}
_MAX_INT = 1 << 24  # beyond any size a 0.5B release uses (vocab 151,936; noise 15,000 frames)
_MAX_WIDTH = 1 << 16  # hidden sizes, channels and heads: allocation happens from these
_WIDTHS = {"hidden_size", "input_size", "output_size", "attention_heads", "num_heads", "num_kv_heads", "heads",
           "dim", "dim_head", "mel_dim", "mu_dim", "spk_dim", "in_channels", "out_channels", "base_channels",
           "cond_channels", "spk_embed_dim", "attention_head_dim", "num_layers", "num_blocks", "depth", "n_blocks",
           "num_mid_blocks", "num_up_blocks", "ff_mult", "num_mels", "nb_harmonics", "num_class",
           "pre_lookahead_channels"}


def _check_number(name: str, value: Any, where: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, (tuple, list)):
        if not value and name not in ("mix_ratio",):
            return
        for v in value:
            _check_number(name, v, where)
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"{where}: {name} is {value}; it must be a finite number.")
        if value < 0 or (value == 0 and name not in _ZERO_OK):
            raise ConfigError(f"{where}: {name} is {value}; it must be {'≥ 0' if name in _ZERO_OK else '> 0'}.")
        return
    if isinstance(value, int):
        low = 0 if name in _ZERO_OK else 1
        high = _MAX_WIDTH if name in _WIDTHS else _MAX_INT
        if not low <= value <= high:
            raise ConfigError(f"{where}: {name} is {value}; it must be a whole number from {low} to {high:,}.")


def _walk_numbers(obj: Any, where: str) -> None:
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _walk_numbers(value, where)
        elif not isinstance(value, Path):
            _check_number(f.name, value, where)


def check_config_values(cfg: ModelConfig) -> None:
    """Raise :class:`ConfigError` unless every number the engine uses is finite and in range.

    Whole numbers are at least 1 (a few, such as ``pre_lookahead_len``, may be 0) and no larger
    than any release could need; real numbers are finite and positive; attention heads divide the
    width; ``top_p`` is at most 1. A release yaml passes; a hand-edited or hostile one that would
    crash (``chunk_size: 0``), divide by zero (``rope_theta: 0``) or allocate without end is refused.
    """
    where = f"{cfg.yaml_path.name or 'the yaml'} / {QWEN_DIR}/config.json"
    _walk_numbers(cfg, where)
    q = cfg.llm.qwen
    if q.head_dim_override is None and q.hidden_size % q.num_heads:
        raise ConfigError(f"{where}: hidden_size {q.hidden_size} is not a multiple of num_attention_heads "
                          f"{q.num_heads}.")
    if q.num_heads % q.num_kv_heads:
        raise ConfigError(f"{where}: num_attention_heads {q.num_heads} is not a multiple of num_key_value_heads "
                          f"{q.num_kv_heads}.")
    if not 0.0 < cfg.llm.top_p <= 1.0:
        raise ConfigError(f"{where}: top_p is {cfg.llm.top_p}; it must be in (0, 1].")
    if len(cfg.llm.mix_ratio) != 2:
        raise ConfigError(f"{where}: mix_ratio must be two whole numbers, not {cfg.llm.mix_ratio}.")
    if cfg.mel.fmax is not None and cfg.mel.fmax <= cfg.mel.fmin:
        raise ConfigError(f"{where}: fmax {cfg.mel.fmax} is not above fmin {cfg.mel.fmin}.")
