"""ONNX wrappers: interface checks at load, typed errors naming the file, position-based calls."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper

from cosycore.errors import CheckpointError, ModelLoadError, ModelNotFoundError
from cosycore.frontend.features import speaker_fbank, whisper_log_mel
from cosycore.frontend.onnx_models import (
    CPU_PROVIDER,
    CUDA_PROVIDER,
    SpeakerEncoderONNX,
    SpeechTokenizerONNX,
    choose_providers,
)


@pytest.fixture(scope="module")
def tokenizer_path(tiny_cv2_model: Path) -> Path:
    return tiny_cv2_model / "speech_tokenizer_v2.onnx"


@pytest.fixture(scope="module")
def campplus_path(tiny_cv2_model: Path) -> Path:
    return tiny_cv2_model / "campplus.onnx"


def _chirp(seconds: float, f0: float, sr: int = 16000) -> np.ndarray:
    t = np.arange(int(seconds * sr)) / sr
    return (0.3 * np.sin(2 * np.pi * f0 * t * (1 + 0.5 * t))).astype(np.float32)


def _save(tmp_path: Path, name: str, graph: onnx.GraphProto) -> Path:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path


def _identity_graph(inputs: list[onnx.ValueInfoProto], out: onnx.ValueInfoProto) -> onnx.GraphProto:
    node = helper.make_node("Identity", [inputs[0].name], [out.name])
    return helper.make_graph([node], "g", inputs, [out])


# --------------------------------------------------------------------------------------------
# The tiny release files
# --------------------------------------------------------------------------------------------


def test_speech_tokenizer_interface_and_call(tokenizer_path: Path) -> None:
    tok = SpeechTokenizerONNX(tokenizer_path)
    assert [i.name for i in tok.inputs] == ["feats", "feats_length"]
    assert [i.type for i in tok.inputs] == ["tensor(float)", "tensor(int32)"]
    assert tok.outputs[0].name == "indices"
    assert tok.providers == [CPU_PROVIDER]

    feats = whisper_log_mel(_chirp(2.0, 200.0))  # [1, 128, 200]
    tokens = tok.tokenize(feats)
    assert tokens.dtype == torch.int32 and tokens.shape == (1, feats.shape[2] // 4)
    assert int(tokens.min()) >= 0 and int(tokens.max()) < 6561
    assert torch.equal(tok(feats.numpy()), tokens)  # numpy in, same answer; __call__ = tokenize

    other = tok.tokenize(whisper_log_mel(_chirp(2.0, 900.0)))
    assert not torch.equal(other, tokens), "tokens must depend on the audio"
    odd = tok.tokenize(whisper_log_mel(_chirp(2.07, 200.0)))  # 207 frames -> 51 tokens
    assert odd.shape == (1, 51)


def test_speech_tokenizer_rejects_bad_feature_shape(tokenizer_path: Path) -> None:
    tok = SpeechTokenizerONNX(tokenizer_path)
    with pytest.raises(ValueError, match=r"\[1, 128, T\]"):
        tok.tokenize(torch.zeros(1, 80, 100))


def test_speaker_encoder_interface_and_call(campplus_path: Path) -> None:
    enc = SpeakerEncoderONNX(campplus_path, intra_op_threads=1)
    assert [i.name for i in enc.inputs] == ["input"] and enc.outputs[0].name == "output"
    fbank = speaker_fbank(_chirp(2.0, 200.0))  # [T, 80]
    emb = enc.embed(fbank)
    assert emb.shape == (1, 192) and emb.dtype == torch.float32
    assert torch.equal(enc(fbank[None].numpy()), emb)  # [1, T, 80] accepted as well
    assert not torch.allclose(enc.embed(speaker_fbank(_chirp(2.0, 700.0))), emb)


def test_sha256_is_the_file_hash(tokenizer_path: Path) -> None:
    tok = SpeechTokenizerONNX(tokenizer_path)
    assert tok.sha256 == hashlib.sha256(tokenizer_path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------------------------
# Missing, damaged and wrong files
# --------------------------------------------------------------------------------------------


def test_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"campplus.onnx"):
        SpeakerEncoderONNX(tmp_path / "campplus.onnx")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "speech_tokenizer_v2.onnx"
    path.write_bytes(b"")
    with pytest.raises(CheckpointError, match=r"empty"):
        SpeechTokenizerONNX(path)


@pytest.mark.parametrize("cut", [0.5, 0.97])
def test_truncated_file(tmp_path: Path, tokenizer_path: Path, cut: float) -> None:
    data = tokenizer_path.read_bytes()
    path = tmp_path / "speech_tokenizer_v2.onnx"
    path.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(CheckpointError, match=r"speech_tokenizer_v2\.onnx.*truncated, corrupt"):
        SpeechTokenizerONNX(path)


def test_not_an_onnx_file(tmp_path: Path) -> None:
    path = tmp_path / "campplus.onnx"
    path.write_bytes(b"<html>404 Not Found</html>" * 20)
    with pytest.raises(CheckpointError, match=r"campplus.onnx"):
        SpeakerEncoderONNX(path)


def test_swapped_files_are_refused(tokenizer_path: Path, campplus_path: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"1 inputs, expected 2"):
        SpeechTokenizerONNX(campplus_path)
    with pytest.raises(ModelLoadError, match=r"2 inputs, expected 1"):
        SpeakerEncoderONNX(tokenizer_path)


def test_tokenizer_length_must_be_int32(tmp_path: Path) -> None:
    feats = helper.make_tensor_value_info("feats", TensorProto.FLOAT, [1, 128, "T"])
    length = helper.make_tensor_value_info("feats_length", TensorProto.INT64, [1])
    out = helper.make_tensor_value_info("indices", TensorProto.FLOAT, [1, 128, "T"])
    path = _save(tmp_path, "speech_tokenizer_v3.onnx", _identity_graph([feats, length], out))
    with pytest.raises(ModelLoadError) as info:
        SpeechTokenizerONNX(path)
    message = str(info.value)
    assert "speech_tokenizer_v3.onnx" in message
    assert "'feats_length'" in message and "tensor(int64)" in message
    assert "output 0 ('indices'" in message  # a float output is refused as well


def test_tokenizer_mel_bins_are_checked(tmp_path: Path) -> None:
    feats = helper.make_tensor_value_info("feats", TensorProto.FLOAT, [1, 80, "T"])
    length = helper.make_tensor_value_info("feats_length", TensorProto.INT32, [1])
    out = helper.make_tensor_value_info("indices", TensorProto.INT32, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["feats_length"], ["indices"])], "g",
                              [feats, length], [out])
    with pytest.raises(ModelLoadError, match=r"size 80 on axis 1, expected 128"):
        SpeechTokenizerONNX(_save(tmp_path, "speech_tokenizer_v2.onnx", graph))


def test_speaker_encoder_rank_and_width_are_checked(tmp_path: Path) -> None:
    two_d = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["T", 80])
    out = helper.make_tensor_value_info("output", TensorProto.FLOAT, ["T", 80])
    with pytest.raises(ModelLoadError, match=r"rank 2, expected 3"):
        SpeakerEncoderONNX(_save(tmp_path, "a.onnx", _identity_graph([two_d], out)))

    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, "T", 80])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 256])
    node = helper.make_node("ReduceMean", ["input"], ["pooled"], axes=[1], keepdims=0)
    pad = helper.make_node("Concat", ["pooled", "pooled", "pooled", "pooled"], ["wide"], axis=1)
    shrink = helper.make_node("Slice", ["wide", "s0", "s1", "ax"], ["output"])
    inits = [onnx.numpy_helper.from_array(np.array([v], dtype=np.int64), n)
             for n, v in (("s0", 0), ("s1", 256), ("ax", 1))]
    graph = helper.make_graph([node, pad, shrink], "g", [x], [y], initializer=inits)
    with pytest.raises(ModelLoadError, match=r"embeddings of size 256"):
        SpeakerEncoderONNX(_save(tmp_path, "b.onnx", graph))


# --------------------------------------------------------------------------------------------
# Providers
# --------------------------------------------------------------------------------------------


def test_choose_providers(caplog: pytest.LogCaptureFixture) -> None:
    assert choose_providers("cpu", [CPU_PROVIDER]) == [CPU_PROVIDER]
    assert choose_providers("cuda", [CUDA_PROVIDER, CPU_PROVIDER]) == [CUDA_PROVIDER, CPU_PROVIDER]
    with caplog.at_level(logging.WARNING, logger="cosycore.frontend.onnx_models"):
        assert choose_providers("cuda:1", [CPU_PROVIDER]) == [CPU_PROVIDER]
    assert "no CUDA provider" in caplog.text


def test_cuda_request_falls_back_to_cpu_here(tokenizer_path: Path) -> None:
    tok = SpeechTokenizerONNX(tokenizer_path, device="cuda", intra_op_threads=2)
    assert tok.providers[-1] == CPU_PROVIDER
