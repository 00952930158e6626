"""The two ONNX frontend models of a tiny folder: small graphs with the release's input and output
names, types and ranks (the speech tokenizer and the CAM++ speaker encoder), seeded per family."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..config import Family
from .tiny_yaml import FAMILIES

ONNX_OPSET = 17
ONNX_IR_VERSION = 8  # readable by onnxruntime >= 1.10
FSQ_DIMS = 8  # 3 ** 8 = 6561 speech tokens
FSQ_LEVELS = 3


def _tensor(name: str, array: np.ndarray):  # -> onnx.TensorProto
    from onnx import numpy_helper

    return numpy_helper.from_array(np.ascontiguousarray(array), name)


def save_onnx(graph, path: Path, producer: str) -> None:  # graph: onnx.GraphProto
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
