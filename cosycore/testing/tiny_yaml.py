"""The release yaml of a tiny folder: the release's structure and HyperPyYAML tags with the sizes
shrunk (:class:`TinySizes`, :func:`tiny_yaml`); :mod:`cosycore.testing.tiny_model` writes it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import get_args

from ..config import Family

FAMILIES: tuple[Family, ...] = get_args(Family)


@dataclass(frozen=True)
class TinySizes:
    """Widths of the tiny models (the release values are in comments)."""

    qwen_hidden: int = 16  # 896
    qwen_layers: int = 2  # 24
    qwen_heads: int = 4  # 14
    qwen_kv_heads: int = 2  # 2
    qwen_intermediate: int = 32  # 4864
    qwen_vocab: int = 151936  # 151936
    flow_token_dim: int = 64  # CosyVoice2 input_size / encoder width, 512
    encoder_heads: int = 4  # 8
    encoder_ffn: int = 64  # 2048
    encoder_blocks: int = 1  # 6
    unet_channels: int = 64  # 256
    unet_head_dim: int = 16  # 64
    unet_heads: int = 2  # 8
    unet_blocks: int = 1  # 4
    unet_mid_blocks: int = 2  # 12
    dit_dim: int = 64  # 1024
    dit_depth: int = 2  # 22
    dit_heads: int = 4  # 16
    dit_head_dim: int = 16  # 64
    pre_lookahead_channels: int = 64  # 1024
    hift_channels: int = 64  # 512
    f0_channels: int = 32  # 512


# The release widths: a full-size folder with random weights (benchmarks of loading and memory).
RELEASE_SIZES = TinySizes(
    qwen_hidden=896, qwen_layers=24, qwen_heads=14, qwen_kv_heads=2, qwen_intermediate=4864, qwen_vocab=151936,
    flow_token_dim=512, encoder_heads=8, encoder_ffn=2048, encoder_blocks=6, unet_channels=256, unet_head_dim=64,
    unet_heads=8, unet_blocks=4, unet_mid_blocks=12, dit_dim=1024, dit_depth=22, dit_heads=16, dit_head_dim=64,
    pre_lookahead_channels=1024, hift_channels=512, f0_channels=512,
)


_HEADER = """\
# Tiny {family} release folder written by cosycore.testing.tiny_model (random weights, seed {seed}).
# Same structure and tags as the release yaml; only the sizes are shrunk.
__set_seed1: !apply:random.seed [{seed}]
__set_seed2: !apply:numpy.random.seed [{seed}]
__set_seed3: !apply:torch.manual_seed [{seed}]
__set_seed4: !apply:torch.cuda.manual_seed_all [{seed}]

# fixed params
sample_rate: 24000
llm_input_size: {qwen_hidden}
llm_output_size: {qwen_hidden}
spk_embed_dim: 192
qwen_pretrain_path: ''
token_frame_rate: 25
token_mel_ratio: 2

# stream related params
chunk_size: 25 # streaming chunk, in tokens
num_decoding_left_chunks: -1 # <0: every left chunk

llm: !new:cosyvoice.llm.llm.{llm_class}
    llm_input_size: !ref <llm_input_size>
    llm_output_size: !ref <llm_output_size>
    speech_token_size: 6561
    length_normalized_loss: True
    lsm_weight: 0
    mix_ratio: [5, 15]
    llm: !new:cosyvoice.llm.llm.Qwen2Encoder
        pretrain_path: !ref <qwen_pretrain_path>
    sampling: !name:cosyvoice.utils.common.ras_sampling
        top_p: 0.8
        top_k: 25
        win_size: 10
        tau_r: 0.1
"""

# The flow: its head, then CosyVoice2's conformer encoder or CosyVoice3's pre-lookahead layer, then the
# CFM decoder with CosyVoice2's U-Net or CosyVoice3's DiT as its estimator.
_FLOW_HEAD = """
flow: !new:cosyvoice.flow.flow.{flow_class}
    input_size: {flow_input_size}
    output_size: 80
    spk_embed_dim: !ref <spk_embed_dim>
    output_type: 'mel'
    vocab_size: 6561
    input_frame_rate: !ref <token_frame_rate>
    only_mask_loss: True
    token_mel_ratio: !ref <token_mel_ratio>
    pre_lookahead_len: 3
"""

_ENCODER_V2 = """\
    encoder: !new:cosyvoice.transformer.upsample_encoder.UpsampleConformerEncoder
        output_size: {flow_token_dim}
        attention_heads: {encoder_heads}
        linear_units: {encoder_ffn}
        num_blocks: {encoder_blocks}
        dropout_rate: 0.1
        positional_dropout_rate: 0.1
        attention_dropout_rate: 0.1
        normalize_before: True
        input_layer: 'linear'
        pos_enc_layer_type: 'rel_pos_espnet'
        selfattention_layer_type: 'rel_selfattn'
        input_size: {flow_token_dim}
        use_cnn_module: False
        macaron_style: False
        static_chunk_size: !ref <chunk_size>
"""

_PRE_LOOKAHEAD_V3 = """\
    pre_lookahead_layer: !new:cosyvoice.transformer.upsample_encoder.PreLookaheadLayer
        in_channels: 80
        channels: {pre_lookahead_channels}
        pre_lookahead_len: 3
"""

_DECODER = """\
    decoder: !new:cosyvoice.flow.flow_matching.CausalConditionalCFM
        in_channels: 240
        n_spks: 1
        spk_emb_dim: 80
        cfm_params: !new:omegaconf.DictConfig
            content:
                sigma_min: 1e-06
                solver: 'euler'
                t_scheduler: 'cosine'
                training_cfg_rate: 0.2
                inference_cfg_rate: 0.7
                reg_loss_type: 'l1'
        estimator: !new:cosyvoice.flow.{estimator_class}
"""

_UNET_V2 = """\
            in_channels: 320
            out_channels: 80
            channels: [{unet_channels}]
            dropout: 0.0
            attention_head_dim: {unet_head_dim}
            n_blocks: {unet_blocks}
            num_mid_blocks: {unet_mid_blocks}
            num_heads: {unet_heads}
            act_fn: 'gelu'
"""

_DIT_V3 = """\
            dim: {dit_dim}
            depth: {dit_depth}
            heads: {dit_heads}
            dim_head: {dit_head_dim}
            ff_mult: 2
            mel_dim: 80
            mu_dim: 80
            spk_dim: 80
            out_channels: 80
"""

_ESTIMATOR_CHUNKS = """\
            static_chunk_size: !ref <chunk_size> * <token_mel_ratio>
            num_decoding_left_chunks: !ref <num_decoding_left_chunks>
"""

_HIFT = """
hift: !new:cosyvoice.hifigan.generator.{hift_class}
    in_channels: 80
    base_channels: {hift_channels}
    nb_harmonics: 8
    sampling_rate: !ref <sample_rate>
    nsf_alpha: 0.1
    nsf_sigma: 0.003
    nsf_voiced_threshold: 10
    upsample_rates: [8, 5, 3]
    upsample_kernel_sizes: [16, 11, 7]
    istft_params:
        n_fft: 16
        hop_len: 4
    resblock_kernel_sizes: [3, 7, 11]
    resblock_dilation_sizes: [[1, 3, 5], [1, 3, 5], [1, 3, 5]]
    source_resblock_kernel_sizes: [7, 7, 11]
    source_resblock_dilation_sizes: [[1, 3, 5], [1, 3, 5], [1, 3, 5]]
    lrelu_slope: 0.1
    audio_limit: 0.99{hift_extra}
    f0_predictor: !new:cosyvoice.hifigan.f0_predictor.{f0_class}
        num_class: 1
        in_channels: 80
        cond_channels: {f0_channels}
"""

# The mel spectrogram's parameters, for the GAN's transform (fmax null) and the prompt's features.
_MEL = """\
    n_fft: 1920
    num_mels: 80
    sampling_rate: !ref <sample_rate>
    hop_size: 480
    win_size: 1920
    fmin: 0
    fmax: {fmax}
    center: False
"""

_TAIL = """
# gan related module (training only)
mel_spec_transform1: !name:matcha.utils.audio.mel_spectrogram
{gan_mel}\
hifigan: !new:cosyvoice.hifigan.hifigan.HiFiGan
    generator: !ref <hift>
    discriminator: !new:cosyvoice.hifigan.discriminator.MultipleDiscriminator
        mpd: !new:matcha.hifigan.models.MultiPeriodDiscriminator
        mrd: !new:cosyvoice.hifigan.discriminator.MultiResSpecDiscriminator
    mel_spec_transform: [
        !ref <mel_spec_transform1>
    ]

# processor functions
get_tokenizer: !name:cosyvoice.tokenizer.tokenizer.get_qwen_tokenizer
    token_path: !ref <qwen_pretrain_path>
    skip_special_tokens: True{tokenizer_extra}
allowed_special: 'all'
tokenize: !name:cosyvoice.dataset.processor.tokenize
    get_tokenizer: !ref <get_tokenizer>
    allowed_special: !ref <allowed_special>
truncate: !name:cosyvoice.dataset.processor.truncate
    truncate_length: {truncate_length} # a multiple of hop_size
feat_extractor: !name:matcha.utils.audio.mel_spectrogram
{prompt_mel}\
compute_fbank: !name:cosyvoice.dataset.processor.compute_fbank
    feat_extractor: !ref <feat_extractor>
    num_frames: 960
compute_whisper_fbank: !name:cosyvoice.dataset.processor.compute_whisper_fbank
    num_frames: 960
data_pipeline: [
    !ref <tokenize>,
    !ref <compute_fbank>,
    !ref <compute_whisper_fbank>,
]
"""


def tiny_yaml(family: Family, seed: int = 0, sizes: TinySizes = TinySizes()) -> str:
    """The release yaml of a tiny ``family`` model (text)."""
    v2 = family == "cosyvoice2"
    values = {
        **asdict(sizes),
        "family": family,
        "seed": seed,
        "llm_class": "Qwen2LM" if v2 else "CosyVoice3LM",
        "flow_class": "CausalMaskedDiffWithXvec" if v2 else "CausalMaskedDiffWithDiT",
        "flow_input_size": sizes.flow_token_dim if v2 else 80,
        "estimator_class": "decoder.CausalConditionalDecoder" if v2 else "DiT.dit.DiT",
        "hift_class": "HiFTGenerator" if v2 else "CausalHiFTGenerator",
        "f0_class": "ConvRNNF0Predictor" if v2 else "CausalConvRNNF0Predictor",
        "hift_extra": "" if v2 else "\n    conv_pre_look_right: 4",
        "tokenizer_extra": "" if v2 else "\n    version: cosyvoice3",
        "truncate_length": 24480 if v2 else 24960,
        "gan_mel": _MEL.format(fmax="null"),
        "prompt_mel": _MEL.format(fmax=8000 if v2 else "null"),
    }
    flow = (_FLOW_HEAD, _ENCODER_V2 if v2 else _PRE_LOOKAHEAD_V3, _DECODER, _UNET_V2 if v2 else _DIT_V3,
            _ESTIMATOR_CHUNKS)
    return "".join(part.format(**values) for part in (_HEADER, *flow, _HIFT, _TAIL))
