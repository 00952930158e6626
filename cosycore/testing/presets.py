"""The published architectures as :class:`ModelConfig` values, for benchmarks with random weights.

Values are those of the CosyVoice2-0.5B / Fun-CosyVoice3-0.5B release yamls and the Qwen2-0.5B
``config.json`` of ``CosyVoice-BlankEN`` (spec: llm-frontend-orchestration.md §2-3,
flow-hift-streaming.md §1-2).
"""

from __future__ import annotations

from pathlib import Path

from ..config import (
    CFMConfig,
    ConformerEncoderConfig,
    DiTConfig,
    F0PredictorConfig,
    Family,
    FlowConfig,
    HiftConfig,
    LLMConfig,
    MelConfig,
    ModelConfig,
    QwenConfig,
    UNetConfig,
)

QWEN2_0_5B = QwenConfig(
    hidden_size=896,
    num_layers=24,
    num_heads=14,
    num_kv_heads=2,
    intermediate_size=4864,
    rms_norm_eps=1e-6,
    rope_theta=1_000_000.0,
    vocab_size=151936,
    max_position_embeddings=32768,
)


def release_config(family: Family, model_dir: Path = Path("<random-weights>")) -> ModelConfig:
    """The full-size architecture of a release, with no files behind it."""
    llm = LLMConfig(family=family, qwen=QWEN2_0_5B)
    cfm = CFMConfig()
    if family == "cosyvoice2":
        flow = FlowConfig(
            kind="unet", input_size=512, output_size=80, spk_embed_dim=192, vocab_size=6561,
            token_mel_ratio=2, pre_lookahead_len=3, cfm=cfm,
            encoder=ConformerEncoderConfig(input_size=512, output_size=512, attention_heads=8,
                                           linear_units=2048, num_blocks=6, static_chunk_size=25),
            estimator=UNetConfig(in_channels=320, out_channels=80, channels=(256,), attention_head_dim=64,
                                 n_blocks=4, num_mid_blocks=12, num_heads=8, act_fn="gelu",
                                 static_chunk_size=50),
        )
    else:
        flow = FlowConfig(
            kind="dit", input_size=80, output_size=80, spk_embed_dim=192, vocab_size=6561,
            token_mel_ratio=2, pre_lookahead_len=3, cfm=cfm, pre_lookahead_channels=1024,
            estimator=DiTConfig(dim=1024, depth=22, heads=16, dim_head=64, ff_mult=2, mel_dim=80,
                                mu_dim=80, spk_dim=80, out_channels=80, static_chunk_size=50),
        )
    causal = family == "cosyvoice3"
    hift = HiftConfig(
        causal=causal, in_channels=80, base_channels=512, nb_harmonics=8, sampling_rate=24000,
        nsf_alpha=0.1, nsf_sigma=0.003, nsf_voiced_threshold=10, upsample_rates=(8, 5, 3),
        upsample_kernel_sizes=(16, 11, 7), istft_n_fft=16, istft_hop=4,
        resblock_kernel_sizes=(3, 7, 11), resblock_dilation_sizes=((1, 3, 5),) * 3,
        source_resblock_kernel_sizes=(7, 7, 11), source_resblock_dilation_sizes=((1, 3, 5),) * 3,
        lrelu_slope=0.1, audio_limit=0.99,
        f0_predictor=F0PredictorConfig(causal=causal, in_channels=80, cond_channels=512),
        conv_pre_look_right=4 if causal else 0,
    )
    mel = MelConfig(n_fft=1920, num_mels=80, sampling_rate=24000, hop_size=480, win_size=1920, fmin=0,
                    fmax=8000.0 if family == "cosyvoice2" else None, center=False)
    return ModelConfig(family=family, model_dir=model_dir, sample_rate=24000, token_frame_rate=25,
                       token_mel_ratio=2, chunk_size=25, llm=llm, flow=flow, hift=hift, mel=mel)
