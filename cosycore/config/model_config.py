"""The architecture of one release as frozen dataclasses (:class:`ModelConfig` and its parts), built
once from the yaml (:mod:`.release`); derived values are properties."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Family = Literal["cosyvoice2", "cosyvoice3"]

YAML_NAMES: dict[str, Family] = {"cosyvoice2.yaml": "cosyvoice2", "cosyvoice3.yaml": "cosyvoice3"}
QWEN_DIR = "CosyVoice-BlankEN"


@dataclass(frozen=True)
class QwenConfig:
    """The Qwen2 decoder backbone, read from ``CosyVoice-BlankEN/config.json``."""

    hidden_size: int  # model width D
    num_layers: int  # decoder blocks
    num_heads: int  # query heads
    num_kv_heads: int  # key/value heads (GQA)
    intermediate_size: int  # SwiGLU width
    rms_norm_eps: float
    rope_theta: float
    vocab_size: int  # rows of embed_tokens (151936 in the releases)
    max_position_embeddings: int
    tie_word_embeddings: bool = True
    head_dim_override: int | None = None  # config.json "head_dim", when present

    @property
    def head_dim(self) -> int:
        return self.head_dim_override or self.hidden_size // self.num_heads


@dataclass(frozen=True)
class LLMConfig:
    """The speech language model: Qwen2 backbone plus speech embedding and decoder head."""

    family: Family
    qwen: QwenConfig
    speech_token_size: int = 6561  # FSQ codes; ids >= this are specials
    mix_ratio: tuple[int, int] = (5, 15)  # bistream: text tokens : speech tokens
    top_p: float = 0.8  # RAS nucleus mass
    top_k: int = 25  # RAS nucleus size cap
    win_size: int = 10  # RAS repetition window
    tau_r: float = 0.1  # RAS repetition ratio
    min_token_text_ratio: float = 2.0
    max_token_text_ratio: float = 20.0

    @property
    def speech_vocab_size(self) -> int:
        """Rows of ``speech_embedding`` / outputs of ``llm_decoder``."""
        return self.speech_token_size + (3 if self.family == "cosyvoice2" else 200)

    @property
    def decoder_bias(self) -> bool:
        return self.family == "cosyvoice2"

    @property
    def eos_token(self) -> int:
        return self.speech_token_size + (0 if self.family == "cosyvoice2" else 1)

    @property
    def fill_token(self) -> int:
        return self.speech_token_size + (2 if self.family == "cosyvoice2" else 3)

    @property
    def sos_index(self) -> int:
        """Row of sos: in ``llm_embedding`` (CV2) or ``speech_embedding`` (CV3)."""
        return 0 if self.family == "cosyvoice2" else self.speech_token_size

    @property
    def task_id_index(self) -> int:
        """Row of task_id: in ``llm_embedding`` (CV2) or ``speech_embedding`` (CV3)."""
        return 1 if self.family == "cosyvoice2" else self.speech_token_size + 2

    @property
    def stop_token_ids(self) -> tuple[int, ...]:
        return tuple(range(self.speech_token_size, self.speech_vocab_size))


@dataclass(frozen=True)
class ConformerEncoderConfig:
    """CosyVoice2 ``UpsampleConformerEncoder`` (token rate -> mel frame rate)."""

    input_size: int  # token embedding width (512 in the release)
    output_size: int  # conformer width (512)
    attention_heads: int
    linear_units: int  # FFN width
    num_blocks: int  # conformer layers at token rate
    num_up_blocks: int = 4  # conformer layers after upsampling (hard-coded upstream)
    static_chunk_size: int = 25  # tokens per attention chunk when streaming
    upsample_stride: int = 2  # = token_mel_ratio
    pre_lookahead_len: int = 3


@dataclass(frozen=True)
class UNetConfig:
    """CosyVoice2 ``CausalConditionalDecoder`` (1-D causal U-Net with transformer blocks)."""

    in_channels: int  # 320 = x, mu, spks, cond
    out_channels: int  # 80
    channels: tuple[int, ...]  # (256,) in the release
    attention_head_dim: int
    n_blocks: int  # transformer blocks per stage
    num_mid_blocks: int
    num_heads: int
    act_fn: str  # "gelu"
    static_chunk_size: int  # frames per attention chunk when streaming (50)


@dataclass(frozen=True)
class DiTConfig:
    """Fun-CosyVoice3 ``DiT`` estimator."""

    dim: int
    depth: int
    heads: int
    dim_head: int
    ff_mult: int
    mel_dim: int
    mu_dim: int
    spk_dim: int
    out_channels: int
    static_chunk_size: int


@dataclass(frozen=True)
class CFMConfig:
    """Conditional flow-matching sampler."""

    inference_cfg_rate: float = 0.7
    n_timesteps: int = 10
    t_scheduler: str = "cosine"
    noise_frames: int = 15000  # length of the fixed initial noise (300 s incl. prompt)
    noise_seed: int = 0


@dataclass(frozen=True)
class FlowConfig:
    """Token -> mel flow model (``CausalMaskedDiffWithXvec`` or ``CausalMaskedDiffWithDiT``)."""

    kind: Literal["unet", "dit"]
    input_size: int  # token embedding width
    output_size: int  # mel bins (80)
    spk_embed_dim: int  # 192
    vocab_size: int  # 6561
    token_mel_ratio: int  # 2
    pre_lookahead_len: int  # 3
    estimator: UNetConfig | DiTConfig
    cfm: CFMConfig
    encoder: ConformerEncoderConfig | None = None  # CV2 only
    pre_lookahead_channels: int | None = None  # CV3 only


@dataclass(frozen=True)
class F0PredictorConfig:
    causal: bool
    in_channels: int  # 80
    cond_channels: int  # 512 in the release
    num_class: int = 1


@dataclass(frozen=True)
class HiftConfig:
    """HiFT vocoder (``HiFTGenerator`` or ``CausalHiFTGenerator``)."""

    causal: bool
    in_channels: int
    base_channels: int
    nb_harmonics: int
    sampling_rate: int
    nsf_alpha: float
    nsf_sigma: float
    nsf_voiced_threshold: float
    upsample_rates: tuple[int, ...]
    upsample_kernel_sizes: tuple[int, ...]
    istft_n_fft: int
    istft_hop: int
    resblock_kernel_sizes: tuple[int, ...]
    resblock_dilation_sizes: tuple[tuple[int, ...], ...]
    source_resblock_kernel_sizes: tuple[int, ...]
    source_resblock_dilation_sizes: tuple[tuple[int, ...], ...]
    lrelu_slope: float
    audio_limit: float
    f0_predictor: F0PredictorConfig
    conv_pre_look_right: int = 0  # CV3: right context frames of conv_pre

    @property
    def hop_samples(self) -> int:
        """Output samples per mel frame (480)."""
        return math.prod(self.upsample_rates) * self.istft_hop


@dataclass(frozen=True)
class MelConfig:
    """Prompt mel extractor (Matcha-style log mel)."""

    n_fft: int
    num_mels: int
    sampling_rate: int
    hop_size: int
    win_size: int
    fmin: float
    fmax: float | None  # None = Nyquist
    center: bool


@dataclass(frozen=True)
class ModelConfig:
    """Everything the engine needs to know about one release folder."""

    family: Family
    model_dir: Path
    sample_rate: int
    token_frame_rate: int
    token_mel_ratio: int
    chunk_size: int  # streaming hop base, tokens
    llm: LLMConfig
    flow: FlowConfig
    hift: HiftConfig
    mel: MelConfig
    yaml_path: Path = field(default=Path())

    @property
    def qwen_dir(self) -> Path:
        return self.model_dir / QWEN_DIR

    @property
    def speech_tokenizer_file(self) -> str:
        return "speech_tokenizer_v2.onnx" if self.family == "cosyvoice2" else "speech_tokenizer_v3.onnx"

    @property
    def tokenizer_version(self) -> str:
        return self.family
