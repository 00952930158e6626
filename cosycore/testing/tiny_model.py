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

The yaml comes from :mod:`.tiny_yaml` and the ONNX graphs from :mod:`.tiny_onnx`; this module writes
the folder and the checkpoints. Everything is a function of the family and the seed. Run
``python -m cosycore.testing.tiny_model DIR --family cosyvoice2``; ``--release-sizes`` writes the same
folder at the release's widths (random weights, about 3.1 GB, the speech tokenizer at its released size
from :mod:`.full_tokenizer`; CAM++ stays the small graph), which ``bench/bench_perf.py --model-dir`` and
``bench/bench_convert.py`` load as the app does.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from ..config import QWEN_DIR, Family, ModelConfig, load_model_config
from ..vocoder.hift import CausalHiFTGenerator, HiFTGenerator
from ..weights import LLM_QWEN_PREFIX
from .full_tokenizer import write_full_size_tokenizer
from .tiny_onnx import campplus_graph, save_onnx, speech_tokenizer_graph
from .tiny_tokenizer import write_tiny_qwen_tokenizer
from .tiny_yaml import FAMILIES, RELEASE_SIZES, TinySizes, tiny_yaml

logger = logging.getLogger(__name__)

F0_VOICED_HZ = 10.0  # nsf_voiced_threshold of the releases


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
# The folder
# --------------------------------------------------------------------------------------------


def _yaml_name(family: Family) -> str:
    return f"{family}.yaml"


def _check_destination(dst: Path, family: Family) -> None:
    other = [f for f in FAMILIES if f != family and (dst / _yaml_name(f)).exists()]
    if other:
        raise FileExistsError(f"{dst} already holds a {other[0]} folder; choose an empty folder")


def write_tiny_model(
    dst: Path | str, family: Family, seed: int = 0, sizes: TinySizes = TinySizes(), *,
    full_size_tokenizer: bool = False, eos_bias: float = 0.0,
) -> TinyModelReport:
    """Write a complete tiny ``family`` release folder into ``dst`` (created if needed).

    ``full_size_tokenizer``: the speech tokenizer at the release's size (:mod:`.full_tokenizer`,
    about 0.5 / 1 GB and 2 minutes more) instead of the tiny graph.

    ``eos_bias``: added to the CosyVoice2 head's end-of-speech logit (its ``llm_decoder.bias``; the
    Fun-CosyVoice3 head has no bias, and its 200 stop ids end sentences anyway). A random LM almost
    never picks that one id among 6,564, so every sentence runs to its maximum, 20 speech tokens per
    text token; 1.5 ends most sentences after tens of tokens, as a trained model does. The tests use
    that (a quarter of the synthesis time); the benchmarks keep 0, their workloads as measured."""
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
        llm = llm_state_dict(cfg)
        if eos_bias and cfg.llm.decoder_bias:
            llm["llm_decoder.bias"][cfg.llm.eos_token] += eos_bias
        torch.save(llm, dst / "llm.pt")
        torch.save(flow_state_dict(cfg), dst / "flow.pt")
        torch.save(hift_state_dict(cfg, seed), dst / "hift.pt")
    tokenizer_path = dst / cfg.speech_tokenizer_file
    if full_size_tokenizer:
        write_full_size_tokenizer(tokenizer_path, family, seed)
    else:
        save_onnx(speech_tokenizer_graph(seed, family), tokenizer_path, "cosycore-tiny-speech-tokenizer")
    save_onnx(campplus_graph(seed, family), dst / "campplus.onnx", "cosycore-tiny-campplus")
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
    parser.add_argument("--release-sizes", action="store_true",
                        help="the release's full widths instead of tiny ones, the speech tokenizer included "
                             "(about 3.1 GB for cosyvoice2; for speed and memory benchmarks)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        report = write_tiny_model(args.dir, args.family, args.seed,
                                  RELEASE_SIZES if args.release_sizes else TinySizes(),
                                  full_size_tokenizer=args.release_sizes)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for name, size in report.files:
        print(f"{size:>12,d}  {name}")
    print(f"{report.total_bytes:>12,d}  total ({report.seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
