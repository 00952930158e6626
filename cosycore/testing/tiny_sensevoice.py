"""A tiny SenseVoice model with random weights in the file layout of sherpa-onnx's SenseVoice releases.

:func:`write_tiny_sensevoice` writes a folder laid out like ``sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17``:

* ``model.int8.onnx`` (or ``model.onnx``): a graph with the release's interface, which sherpa-onnx's
  ``OfflineSenseVoiceModel`` runs unchanged. Inputs ``x`` float32 [N, T, 560] (7 stacked 80-bin
  fbank frames, CMVN applied), ``x_length`` int32 [N], ``language`` int32 [N] and ``text_norm``
  int32 [N]; output ``logits`` float32 [N, T + 4, V]. The first four output frames answer the four
  queries the real model prepends (language, emotion, event, text normalisation): here a lookup
  table makes them name the requested language (``auto`` answers ``<|en|>``), ``<|NEUTRAL|>``,
  ``<|Speech|>`` and ``<|withitn|>``/``<|woitn|>``. The other frames go through a random
  two-layer network, so the "words" depend on the audio but mean nothing. The int8 file is made
  with onnxruntime's ``quantize_dynamic`` (QUInt8 MatMuls), as the release's is.
* the metadata sherpa-onnx reads (``vocab_size``, ``lfr_window_size``, ``lfr_window_shift``,
  ``normalize_samples``, ``with_itn``, ``without_itn``, ``lang_*``, ``neg_mean``, ``inv_stddev``)
  plus the release's descriptive keys;
* ``tokens.txt``: ``piece id`` per line, as the release's (``<unk>`` is the CTC blank, id 0).

Run ``python -m cosycore.testing.tiny_sensevoice DIR``. Everything is a function of the seed.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

FEATURE_DIM = 80  # fbank bins (sherpa-onnx's default feature_dim)
LFR_WINDOW = 7  # lfr_m of the release
LFR_SHIFT = 6  # lfr_n of the release
INPUT_DIM = FEATURE_DIM * LFR_WINDOW  # 560
HIDDEN = 32  # the release's encoder is 512 wide and 50 layers deep
QUERY_IDS = 16  # rows of the query embedding (SenseVoice's embed table)
# SenseVoice's lid_dict and textnorm_dict (the values sherpa-onnx's export writes into the metadata).
LANGUAGE_IDS = {"auto": 0, "zh": 3, "en": 4, "yue": 7, "ja": 11, "ko": 12, "nospeech": 13}
WITH_ITN, WITHOUT_ITN = 14, 15
EVENT_QUERY, EMOTION_QUERY = 1, 2  # the two fixed queries the export prepends after the language
ONNX_OPSET = 17
ONNX_IR_VERSION = 8
MODEL_INT8 = "model.int8.onnx"
MODEL_FLOAT = "model.onnx"
TOKENS = "tokens.txt"

# Word pieces of the tiny vocabulary ("▁" starts a word, as in SentencePiece).
_PIECES = ("▁cosy", "▁studio", "▁voice", "▁hello", "▁world", "▁the", "▁a", "▁speech", "▁model", "▁test",
           "s", "ing", "ed", "er", "你", "好", "世", "界", "声", "音", "こ", "ん", "に", "ち", "は", "안", "녕")
_SPECIALS = ("<|zh|>", "<|en|>", "<|yue|>", "<|ja|>", "<|ko|>", "<|nospeech|>", "<|NEUTRAL|>", "<|HAPPY|>",
             "<|Speech|>", "<|BGM|>", "<|withitn|>", "<|woitn|>")


def tiny_vocabulary() -> list[str]:
    """The pieces of ``tokens.txt`` in id order: blank/unk, BOS, EOS, word pieces, then the tags."""
    return ["<unk>", "<s>", "</s>", *_PIECES, *_SPECIALS]


def _query_table(vocab: list[str]) -> np.ndarray:
    """[QUERY_IDS, V] logits the four query frames answer with: one token each, by a wide margin."""
    table = np.full((QUERY_IDS, len(vocab)), -10.0, np.float32)
    language_tag = {"auto": "<|en|>", "zh": "<|zh|>", "en": "<|en|>", "yue": "<|yue|>", "ja": "<|ja|>",
                    "ko": "<|ko|>", "nospeech": "<|nospeech|>"}
    for language, query in LANGUAGE_IDS.items():
        table[query, vocab.index(language_tag[language])] = 10.0
    table[EVENT_QUERY, vocab.index("<|NEUTRAL|>")] = 10.0
    table[EMOTION_QUERY, vocab.index("<|Speech|>")] = 10.0
    table[WITH_ITN, vocab.index("<|withitn|>")] = 10.0
    table[WITHOUT_ITN, vocab.index("<|woitn|>")] = 10.0
    return table


def build_graph(vocab_size: int, query_table: np.ndarray, seed: int):  # -> onnx.GraphProto
    """The SenseVoice interface around a random two-layer frame classifier."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w1 = rng.normal(0.0, 1.0 / np.sqrt(INPUT_DIM), (INPUT_DIM, HIDDEN)).astype(np.float32)
    b1 = rng.normal(0.0, 0.1, HIDDEN).astype(np.float32)
    w2 = rng.normal(0.0, 3.0 / np.sqrt(HIDDEN), (HIDDEN, vocab_size)).astype(np.float32)
    b2 = np.zeros(vocab_size, np.float32)
    b2[0] = 1.0  # the blank wins some frames, as in real CTC output
    b2[len(b2) - len(_SPECIALS):] = -20.0  # tags only ever come from the query frames

    def const(name: str, array: np.ndarray):  # -> onnx.TensorProto
        return numpy_helper.from_array(np.ascontiguousarray(array), name)

    nodes = [
        # queries: [N, 4] ids = (language, event, emotion, text_norm)
        helper.make_node("Unsqueeze", ["language", "axis1"], ["language_2d"]),  # [N, 1]
        helper.make_node("Unsqueeze", ["text_norm", "axis1"], ["text_norm_2d"]),  # [N, 1]
        helper.make_node("Shape", ["language"], ["batch"]),  # [1] = N
        helper.make_node("Concat", ["batch", "two"], ["fixed_shape"], axis=0),  # [2] = (N, 2)
        helper.make_node("Expand", ["fixed_queries", "fixed_shape"], ["fixed_2d"]),  # [N, 2]
        helper.make_node("Concat", ["language_2d", "fixed_2d", "text_norm_2d"], ["queries"], axis=1),  # [N, 4]
        helper.make_node("Gather", ["query_table", "queries"], ["query_logits"], axis=0),  # [N, 4, V]
        # frames: [N, T, 560] -> [N, T, V]
        helper.make_node("MatMul", ["x", "w1"], ["h_raw"]),
        helper.make_node("Add", ["h_raw", "b1"], ["h_biased"]),
        helper.make_node("Tanh", ["h_biased"], ["h"]),  # [N, T, H]
        helper.make_node("MatMul", ["h", "w2"], ["frame_raw"]),
        helper.make_node("Add", ["frame_raw", "b2"], ["frame_logits"]),  # [N, T, V]
        helper.make_node("Concat", ["query_logits", "frame_logits"], ["logits"], axis=1),  # [N, T + 4, V]
    ]
    inits = [
        const("axis1", np.array([1], np.int64)),
        const("two", np.array([2], np.int64)),
        const("fixed_queries", np.array([[EVENT_QUERY, EMOTION_QUERY]], np.int32)),
        const("query_table", query_table),
        const("w1", w1), const("b1", b1), const("w2", w2), const("b2", b2),
    ]
    return helper.make_graph(
        nodes, "tiny_sensevoice",
        inputs=[
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "T", INPUT_DIM]),
            helper.make_tensor_value_info("x_length", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("language", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("text_norm", TensorProto.INT32, ["N"]),
        ],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", "T_out", vocab_size])],
        initializer=inits,
    )


def metadata(vocab_size: int) -> dict[str, str]:
    """The metadata keys sherpa-onnx's export writes (every value a string, vectors comma-separated)."""
    neg_mean = np.full(INPUT_DIM, -12.0, np.float32)  # log-mel energies of int16-scaled speech are around 12
    inv_stddev = np.full(INPUT_DIM, 0.25, np.float32)
    meta: dict[str, object] = {
        "lfr_window_size": LFR_WINDOW, "lfr_window_shift": LFR_SHIFT, "normalize_samples": 0,
        "neg_mean": ",".join(f"{v:g}" for v in neg_mean), "inv_stddev": ",".join(f"{v:g}" for v in inv_stddev),
        "model_type": "sense_voice_ctc", "version": "2", "model_author": "cosy-studio", "maintainer": "cosy-studio",
        "vocab_size": vocab_size, "comment": "tiny random-weight SenseVoice for tests (cosycore.testing)",
        **{f"lang_{k}": v for k, v in LANGUAGE_IDS.items()},
        "with_itn": WITH_ITN, "without_itn": WITHOUT_ITN,
        "url": "https://huggingface.co/FunAudioLLM/SenseVoiceSmall",
    }
    return {k: str(v) for k, v in meta.items()}


def _model_proto(vocab: list[str], seed: int, meta: dict[str, str]):  # -> onnx.ModelProto
    import onnx
    from onnx import helper

    graph = build_graph(len(vocab), _query_table(vocab), seed)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)],
                              producer_name="cosycore.testing.tiny_sensevoice", ir_version=ONNX_IR_VERSION)
    for key, value in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    return model


def write_tiny_sensevoice(folder: Path | str, *, seed: int = 0, int8: bool = True,
                          meta_overrides: dict[str, str | None] | None = None) -> Path:
    """Write ``model.int8.onnx`` (or ``model.onnx`` when not ``int8``) and ``tokens.txt`` into ``folder``.

    ``meta_overrides`` changes metadata values (None deletes a key); tests use it to make damaged models.
    """
    import onnx

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = tiny_vocabulary()
    meta = metadata(len(vocab))
    for key, value in (meta_overrides or {}).items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    model = _model_proto(vocab, seed, meta)
    target = folder / (MODEL_INT8 if int8 else MODEL_FLOAT)
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with tempfile.TemporaryDirectory() as tmp:
            plain = Path(tmp) / MODEL_FLOAT
            onnx.save(model, plain)
            quantize_dynamic(plain, target, op_types_to_quantize=["MatMul"], weight_type=QuantType.QUInt8)
        quantized = onnx.load(target)  # quantize_dynamic keeps the metadata; make sure of it
        kept = {p.key: p.value for p in quantized.metadata_props}
        if kept != meta:
            del quantized.metadata_props[:]
            for key, value in meta.items():
                entry = quantized.metadata_props.add()
                entry.key, entry.value = key, value
            onnx.save(quantized, target)
    else:
        onnx.save(model, target)
    (folder / TOKENS).write_text("".join(f"{piece} {i}\n" for i, piece in enumerate(vocab)), encoding="utf-8")
    logger.info("wrote a tiny SenseVoice model to %s", folder)
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write a tiny random-weight SenseVoice model folder.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--float", action="store_true", help="write model.onnx instead of model.int8.onnx")
    args = parser.parse_args(argv)
    write_tiny_sensevoice(args.folder, seed=args.seed, int8=not args.float)
    print(args.folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
