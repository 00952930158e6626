"""A complete tiny release folder with random weights, for tests and demos that need every file.

:func:`write_tiny_model` writes, for ``cosyvoice2`` or ``cosyvoice3``:

* ``cosyvoice2.yaml`` / ``cosyvoice3.yaml`` in the release format (HyperPyYAML tags, the release's
  structure, tiny sizes);
* ``llm.pt``, ``flow.pt``, ``hift.pt``: plain state dicts with the release's keys, made by building
  cosycore's own modules from that yaml with seeded random initialisation. ``llm.pt`` carries the
  tied ``llm.model.lm_head.weight`` (same storage as ``embed_tokens``); the CosyVoice3 ``flow.pt``
  carries the DiT's ``rotary_embed.inv_freq`` buffer; the HiFT f0 head is rescaled so that predicted
  f0 has voiced (> 10 Hz) and unvoiced frames;
* ``CosyVoice-BlankEN/``: a Qwen2 ``config.json`` (tiny widths, the full 151936-token vocabulary so
  real ids fit), ``generation_config.json`` and the tiny BPE tokenizer files;
* ``campplus.onnx`` and ``speech_tokenizer_v2.onnx`` / ``speech_tokenizer_v3.onnx``: small graphs
  with the release's input/output names, types and ranks. The tokenizer pools 4 Whisper frames per
  token and quantises 8 projections to 3 levels each (3^8 = 6561 ids, as an FSQ would); the speaker
  encoder averages a tanh projection of the fbank frames to 192 values. Both depend on the audio.

The CosyVoice2 flow encoder is 64 wide here. The original hard-codes 512 in two of its layers, so
this folder runs in cosycore (which reads every width from the yaml) but not in the original; the
shared conformance folders keep 512 for that reason.

Everything is a function of the family and the seed. Run ``python -m cosycore.testing.tiny_model DIR
--family cosyvoice2``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import get_args

import numpy as np
import torch

from ..config import QWEN_DIR, Family, ModelConfig, load_model_config
from ..vocoder.hift import CausalHiFTGenerator, HiFTGenerator
from ..weights import LLM_QWEN_PREFIX
from .tiny_tokenizer import write_tiny_qwen_tokenizer

logger = logging.getLogger(__name__)

FAMILIES: tuple[Family, ...] = get_args(Family)
ONNX_OPSET = 17
ONNX_IR_VERSION = 8  # readable by onnxruntime >= 1.10
F0_VOICED_HZ = 10.0  # nsf_voiced_threshold of the releases
FSQ_DIMS = 8  # 3 ** 8 = 6561 speech tokens
FSQ_LEVELS = 3


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
    unet_mid_blocks: int = 2  # 12
    dit_dim: int = 64  # 1024
    dit_depth: int = 2  # 22
    dit_heads: int = 4  # 16
    dit_head_dim: int = 16  # 64
    pre_lookahead_channels: int = 64  # 1024
    hift_channels: int = 64  # 512
    f0_channels: int = 32  # 512


@dataclass(frozen=True)
class TinyModelReport:
    """What :func:`write_tiny_model` wrote."""

    model_dir: Path
    family: Family
    seed: int
    files: tuple[tuple[str, int], ...]  # (path relative to model_dir, bytes)
    seconds: float

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.files)


# --------------------------------------------------------------------------------------------
# yaml
# --------------------------------------------------------------------------------------------

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

_FLOW_V2 = """
flow: !new:cosyvoice.flow.flow.CausalMaskedDiffWithXvec
    input_size: {flow_token_dim}
    output_size: 80
    spk_embed_dim: !ref <spk_embed_dim>
    output_type: 'mel'
    vocab_size: 6561
    input_frame_rate: !ref <token_frame_rate>
    only_mask_loss: True
    token_mel_ratio: !ref <token_mel_ratio>
    pre_lookahead_len: 3
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
        estimator: !new:cosyvoice.flow.decoder.CausalConditionalDecoder
            in_channels: 320
            out_channels: 80
            channels: [{unet_channels}]
            dropout: 0.0
            attention_head_dim: {unet_head_dim}
            n_blocks: 1
            num_mid_blocks: {unet_mid_blocks}
            num_heads: {unet_heads}
            act_fn: 'gelu'
            static_chunk_size: !ref <chunk_size> * <token_mel_ratio>
            num_decoding_left_chunks: !ref <num_decoding_left_chunks>
"""

_FLOW_V3 = """
flow: !new:cosyvoice.flow.flow.CausalMaskedDiffWithDiT
    input_size: 80
    output_size: 80
    spk_embed_dim: !ref <spk_embed_dim>
    output_type: 'mel'
    vocab_size: 6561
    input_frame_rate: !ref <token_frame_rate>
    only_mask_loss: True
    token_mel_ratio: !ref <token_mel_ratio>
    pre_lookahead_len: 3
    pre_lookahead_layer: !new:cosyvoice.transformer.upsample_encoder.PreLookaheadLayer
        in_channels: 80
        channels: {pre_lookahead_channels}
        pre_lookahead_len: 3
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
        estimator: !new:cosyvoice.flow.DiT.dit.DiT
            dim: {dit_dim}
            depth: {dit_depth}
            heads: {dit_heads}
            dim_head: {dit_head_dim}
            ff_mult: 2
            mel_dim: 80
            mu_dim: 80
            spk_dim: 80
            out_channels: 80
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

_TAIL = """
# gan related module (training only)
mel_spec_transform1: !name:matcha.utils.audio.mel_spectrogram
    n_fft: 1920
    num_mels: 80
    sampling_rate: !ref <sample_rate>
    hop_size: 480
    win_size: 1920
    fmin: 0
    fmax: null
    center: False
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
    n_fft: 1920
    num_mels: 80
    sampling_rate: !ref <sample_rate>
    hop_size: 480
    win_size: 1920
    fmin: 0
    fmax: {fmax}
    center: False
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
        "hift_class": "HiFTGenerator" if v2 else "CausalHiFTGenerator",
        "f0_class": "ConvRNNF0Predictor" if v2 else "CausalConvRNNF0Predictor",
        "hift_extra": "" if v2 else "\n    conv_pre_look_right: 4",
        "tokenizer_extra": "" if v2 else "\n    version: cosyvoice3",
        "truncate_length": 24480 if v2 else 24960,
        "fmax": 8000 if v2 else "null",
    }
    flow = _FLOW_V2 if v2 else _FLOW_V3
    return "".join(part.format(**values) for part in (_HEADER, flow, _HIFT, _TAIL))


# --------------------------------------------------------------------------------------------
# Qwen folder
# --------------------------------------------------------------------------------------------


def qwen_config_json(sizes: TinySizes = TinySizes()) -> dict[str, object]:
    """``CosyVoice-BlankEN/config.json`` of the tiny backbone (Qwen2 layout, tiny widths)."""
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": 151643,
        "eos_token_id": 151643,
        "hidden_act": "silu",
        "hidden_size": sizes.qwen_hidden,
        "initializer_range": 0.02,
        "intermediate_size": sizes.qwen_intermediate,
        "max_position_embeddings": 32768,
        "max_window_layers": sizes.qwen_layers,
        "model_type": "qwen2",
        "num_attention_heads": sizes.qwen_heads,
        "num_hidden_layers": sizes.qwen_layers,
        "num_key_value_heads": sizes.qwen_kv_heads,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000.0,
        "sliding_window": 32768,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.51.3",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": sizes.qwen_vocab,
    }


GENERATION_CONFIG: dict[str, object] = {
    "_from_model_config": True,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "transformers_version": "4.51.3",
}


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def write_qwen_dir(qwen_dir: Path, sizes: TinySizes = TinySizes()) -> None:
    """config.json, generation_config.json and the tiny tokenizer files."""
    qwen_dir.mkdir(parents=True, exist_ok=True)
    _write_json(qwen_dir / "config.json", qwen_config_json(sizes))
    _write_json(qwen_dir / "generation_config.json", GENERATION_CONFIG)
    write_tiny_qwen_tokenizer(qwen_dir)


# --------------------------------------------------------------------------------------------
# Checkpoints
# --------------------------------------------------------------------------------------------


def llm_state_dict(cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """A randomly initialised LM in ``llm.pt`` layout (call under a seeded RNG)."""
    from ..lm.load import LM_HEAD_KEY
    from ..lm.speech_lm import SpeechLM

    ours = SpeechLM(cfg.llm).state_dict()
    sd: dict[str, torch.Tensor] = {}
    for key, value in ours.items():
        sd[LLM_QWEN_PREFIX + key[len("qwen.") :] if key.startswith("qwen.") else key] = value
    sd[LM_HEAD_KEY] = sd[LLM_QWEN_PREFIX + "embed_tokens.weight"]  # tied: one storage, two keys
    return sd


def flow_state_dict(cfg: ModelConfig) -> dict[str, torch.Tensor]:
    """A randomly initialised flow in ``flow.pt`` layout (call under a seeded RNG)."""
    from ..config import DiTConfig
    from ..flow import build_flow
    from ..flow.dit import INV_FREQ_KEY, rope_inv_freq

    sd = dict(build_flow(cfg.flow, device="cpu").state_dict())
    est = cfg.flow.estimator
    if isinstance(est, DiTConfig):  # the original keeps its rotary table as a persistent buffer
        sd["decoder.estimator." + INV_FREQ_KEY] = rope_inv_freq(est.dim_head)
    return sd


def _reference_mel(frames: int, seed: int) -> torch.Tensor:
    """A log-mel-like input [1, 80, frames] (values around -5 with a spectral tilt)."""
    g = torch.Generator().manual_seed(seed)
    tilt = torch.linspace(-1.0, -9.0, 80)[None, :, None]
    return tilt + 1.5 * torch.randn(1, 80, frames, generator=g)


@torch.no_grad()
def rescale_f0_head(hift: HiFTGenerator | CausalHiFTGenerator, seed: int, frames: int = 400) -> float:
    """Scale the f0 classifier so that about half the frames of a reference mel are voiced.

    Random weights give |f0| far below the 10 Hz voicing threshold, which would leave the sine
    source unused. Returns the factor applied.
    """
    predictor = hift.f0_predictor
    f0 = predictor(_reference_mel(frames, seed)).flatten()  # [frames], Hz, >= 0
    median = float(f0.median())
    scale = F0_VOICED_HZ / median if median > 0 else 1.0
    predictor.classifier.weight.mul_(scale)
    predictor.classifier.bias.mul_(scale)
    return scale


def hift_state_dict(cfg: ModelConfig, seed: int) -> dict[str, torch.Tensor]:
    """A randomly initialised vocoder in ``hift.pt`` layout (call under a seeded RNG)."""
    from ..vocoder.load import build_hift

    hift = build_hift(cfg)
    scale = rescale_f0_head(hift, seed)
    logger.debug("f0 classifier rescaled by %.3g", scale)
    return dict(hift.state_dict())


# --------------------------------------------------------------------------------------------
# ONNX models
# --------------------------------------------------------------------------------------------


def _tensor(name: str, array: np.ndarray):  # -> onnx.TensorProto
    from onnx import numpy_helper

    return numpy_helper.from_array(np.ascontiguousarray(array), name)


def _save_onnx(graph, path: Path, producer: str) -> None:  # graph: onnx.GraphProto
    import onnx
    from onnx import helper

    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)], producer_name=producer,
        ir_version=ONNX_IR_VERSION,
    )
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


_ONNX_STREAMS = {"speech_tokenizer": 1, "campplus": 2}


def _rng(seed: int, family: Family, model: str) -> np.random.Generator:
    """Independent streams per (seed, family, model), so v2 and v3 files differ."""
    return np.random.default_rng([seed, FAMILIES.index(family), _ONNX_STREAMS[model]])


def speech_tokenizer_graph(seed: int, family: Family = "cosyvoice2"):  # -> onnx.GraphProto
    """``feats`` [B, 128, T] float, ``feats_length`` [B] int32 → ``indices`` [B, P] int32, P = T // 4.

    A stride-4 convolution projects each group of 4 frames to 8 values, tanh + round quantises each
    to {-1, 0, 1}, and the digits are read as a base-3 number in [0, 6561). Tokens past
    ``feats_length // 4`` are cut off.
    """
    from onnx import TensorProto, helper

    rng = _rng(seed, family, "speech_tokenizer")
    weight = rng.standard_normal((FSQ_DIMS, 128, 4)).astype(np.float32)
    weight -= weight.mean(axis=(1, 2), keepdims=True)  # respond to spectral shape, not level
    weight *= 3.0 / np.sqrt(128 * 4)
    bias = (0.1 * rng.standard_normal(FSQ_DIMS)).astype(np.float32)
    digits = (FSQ_LEVELS ** np.arange(FSQ_DIMS, dtype=np.float32))[:, None]  # [8, 1]
    inits = [
        _tensor("proj_w", weight), _tensor("proj_b", bias), _tensor("digit_scale", np.array(1.49, np.float32)),
        _tensor("one", np.array(1.0, np.float32)), _tensor("digits", digits),
        _tensor("frames_per_token", np.array(4, dtype=np.int64)),
        _tensor("zero", np.array([0], dtype=np.int64)), _tensor("time_axis", np.array([1], dtype=np.int64)),
    ]
    nodes = [
        helper.make_node("Conv", ["feats", "proj_w", "proj_b"], ["proj"], kernel_shape=[4], strides=[4]),
        helper.make_node("Tanh", ["proj"], ["squashed"]),
        helper.make_node("Mul", ["squashed", "digit_scale"], ["scaled"]),
        helper.make_node("Round", ["scaled"], ["levels"]),  # {-1, 0, 1}
        helper.make_node("Add", ["levels", "one"], ["shifted"]),  # {0, 1, 2}
        helper.make_node("Transpose", ["shifted"], ["per_token"], perm=[0, 2, 1]),  # [B, P, 8]
        helper.make_node("MatMul", ["per_token", "digits"], ["code"]),  # [B, P, 1]
        helper.make_node("Squeeze", ["code", "squeeze_axis"], ["code_2d"]),
        helper.make_node("Cast", ["code_2d"], ["all_ids"], to=TensorProto.INT32),
        helper.make_node("Cast", ["feats_length"], ["length64"], to=TensorProto.INT64),
        helper.make_node("Div", ["length64", "frames_per_token"], ["token_counts"]),
        helper.make_node("ReduceMax", ["token_counts"], ["token_count"], keepdims=1),
        helper.make_node("Slice", ["all_ids", "zero", "token_count", "time_axis"], ["indices"]),
    ]
    inits.append(_tensor("squeeze_axis", np.array([2], dtype=np.int64)))
    return helper.make_graph(
        nodes, "tiny_speech_tokenizer",
        inputs=[
            helper.make_tensor_value_info("feats", TensorProto.FLOAT, ["batch", 128, "frames"]),
            helper.make_tensor_value_info("feats_length", TensorProto.INT32, ["batch"]),
        ],
        outputs=[helper.make_tensor_value_info("indices", TensorProto.INT32, ["batch", "tokens"])],
        initializer=inits,
    )


def campplus_graph(seed: int, family: Family = "cosyvoice2"):  # -> onnx.GraphProto
    """``input`` [B, T, 80] float → ``output`` [B, 192] float: mean over time of tanh(x W + b)."""
    from onnx import TensorProto, helper

    rng = _rng(seed, family, "campplus")
    weight = (rng.standard_normal((80, 192)) / np.sqrt(80)).astype(np.float32)
    bias = (0.1 * rng.standard_normal(192)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["input", "proj_w"], ["proj"]),
        helper.make_node("Add", ["proj", "proj_b"], ["proj_biased"]),
        helper.make_node("Tanh", ["proj_biased"], ["frame_embed"]),
        helper.make_node("ReduceMean", ["frame_embed"], ["output"], axes=[1], keepdims=0),
    ]
    return helper.make_graph(
        nodes, "tiny_campplus",
        inputs=[helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "frames", 80])],
        outputs=[helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 192])],
        initializer=[_tensor("proj_w", weight), _tensor("proj_b", bias)],
    )


# --------------------------------------------------------------------------------------------
# The folder
# --------------------------------------------------------------------------------------------


def _yaml_name(family: Family) -> str:
    return f"{family}.yaml"


def _check_destination(dst: Path, family: Family) -> None:
    other = [f for f in FAMILIES if f != family and (dst / _yaml_name(f)).exists()]
    if other:
        raise FileExistsError(f"{dst} already holds a {other[0]} folder; choose an empty folder")


def write_tiny_model(
    dst: Path | str, family: Family, seed: int = 0, sizes: TinySizes = TinySizes()
) -> TinyModelReport:
    """Write a complete tiny ``family`` release folder into ``dst`` (created if needed)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    start = time.perf_counter()
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    _check_destination(dst, family)
    (dst / _yaml_name(family)).write_text(tiny_yaml(family, seed, sizes), encoding="utf-8")
    write_qwen_dir(dst / QWEN_DIR, sizes)
    cfg = load_model_config(dst)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        torch.save(llm_state_dict(cfg), dst / "llm.pt")
        torch.save(flow_state_dict(cfg), dst / "flow.pt")
        torch.save(hift_state_dict(cfg, seed), dst / "hift.pt")
    tokenizer_path = dst / cfg.speech_tokenizer_file
    _save_onnx(speech_tokenizer_graph(seed, family), tokenizer_path, "cosycore-tiny-speech-tokenizer")
    _save_onnx(campplus_graph(seed, family), dst / "campplus.onnx", "cosycore-tiny-campplus")
    files = tuple(
        (p.relative_to(dst).as_posix(), p.stat().st_size) for p in sorted(dst.rglob("*")) if p.is_file()
    )
    report = TinyModelReport(dst, family, seed, files, time.perf_counter() - start)
    logger.info("wrote a tiny %s folder to %s: %d files, %.1f MB, %.1f s", family, dst, len(files),
                report.total_bytes / 1e6, report.seconds)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cosycore.testing.tiny_model",
        description="Write a tiny random-weight CosyVoice2 / Fun-CosyVoice3 release folder.",
    )
    parser.add_argument("dir", type=Path, help="destination folder (created if missing)")
    parser.add_argument("--family", choices=FAMILIES, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        report = write_tiny_model(args.dir, args.family, args.seed)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for name, size in report.files:
        print(f"{size:>12,d}  {name}")
    print(f"{report.total_bytes:>12,d}  total ({report.seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
