"""The tiny release-folder generator: the folder loads everywhere a release folder loads."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from cosycore.config import load_model_config
from cosycore.flow import load_flow
from cosycore.flow.dit import rope_inv_freq
from cosycore.frontend.tokenizer import get_text_tokenizer
from cosycore.lm.load import load_llm
from cosycore.testing.tiny_model import main, write_tiny_model
from cosycore.vocoder.load import load_hift
from cosycore.weights import load_checkpoint
from tests.conftest import conformance_root

logger = logging.getLogger(__name__)

# Key counts of the official layouts (conformance README): llm, flow, hift.
KEY_COUNTS = {"cosyvoice2": (31, 230, 328), "cosyvoice3": (29, 50, 328)}
VOCAB_SIZES = {"cosyvoice2": 151663, "cosyvoice3": 151924}
SIZE_BUDGET = 30 * 1024 * 1024
TIME_BUDGET_S = 10.0


@pytest.fixture(params=["cosyvoice2", "cosyvoice3"])
def tiny(request: pytest.FixtureRequest) -> tuple[str, Path]:
    family = request.param
    return family, request.getfixturevalue("tiny_cv2_model" if family == "cosyvoice2" else "tiny_cv3_model")


def _hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_release_layout(tiny: tuple[str, Path]) -> None:
    family, folder = tiny
    expected = {
        f"{family}.yaml", "llm.pt", "flow.pt", "hift.pt", "campplus.onnx",
        "speech_tokenizer_v2.onnx" if family == "cosyvoice2" else "speech_tokenizer_v3.onnx",
        "CosyVoice-BlankEN/config.json", "CosyVoice-BlankEN/generation_config.json",
        "CosyVoice-BlankEN/vocab.json", "CosyVoice-BlankEN/merges.txt", "CosyVoice-BlankEN/tokenizer_config.json",
    }
    assert set(_hashes(folder)) == expected
    text = (folder / f"{family}.yaml").read_text()
    assert "!new:cosyvoice.llm.llm." in text and "!ref <chunk_size> * <token_mel_ratio>" in text


def test_config_loads(tiny: tuple[str, Path]) -> None:
    family, folder = tiny
    cfg = load_model_config(folder)
    assert cfg.family == family
    assert cfg.llm.qwen.vocab_size == 151936 and cfg.llm.qwen.hidden_size == 16
    assert cfg.mel.fmax == (8000.0 if family == "cosyvoice2" else None)
    if family == "cosyvoice2":
        assert cfg.flow.encoder is not None and cfg.flow.encoder.output_size == 64
        assert cfg.flow.estimator.static_chunk_size == 50  # type: ignore[union-attr]
    else:
        assert cfg.hift.conv_pre_look_right == 4 and cfg.hift.causal


def test_checkpoints_have_the_official_keys(tiny: tuple[str, Path]) -> None:
    family, folder = tiny
    sds = {name: load_checkpoint(folder / f"{name}.pt") for name in ("llm", "flow", "hift")}
    assert tuple(len(sds[n]) for n in ("llm", "flow", "hift")) == KEY_COUNTS[family]
    reference = conformance_root() / f"{family}-tiny"
    if reference.is_dir():
        for name, sd in sds.items():
            official = load_checkpoint(reference / f"{name}.pt")
            assert set(sd) == set(official), name
    llm = sds["llm"]
    head, embed = llm["llm.model.lm_head.weight"], llm["llm.model.model.embed_tokens.weight"]
    assert head.untyped_storage().data_ptr() == embed.untyped_storage().data_ptr()  # tied, one copy
    assert embed.shape == (151936, 16)
    assert all(v.dtype == torch.float32 for sd in sds.values() for v in sd.values())
    assert any(k.endswith("parametrizations.weight.original0") for k in sds["hift"])
    if family == "cosyvoice3":
        inv_freq = sds["flow"]["decoder.estimator.rotary_embed.inv_freq"]
        assert torch.equal(inv_freq, rope_inv_freq(16))


def test_models_load_and_run(tiny: tuple[str, Path]) -> None:
    _, folder = tiny
    cfg = load_model_config(folder)
    llm = load_llm(cfg)
    text = torch.tensor([[9707, 1879, 13, 151646]])  # ends with <|endofprompt|> (CosyVoice3 needs it)
    with torch.inference_mode():
        lm_input = llm.build_lm_input(text)
        assert lm_input.shape[-1] == 16 and torch.isfinite(lm_input).all()
    flow = load_flow(cfg)
    g = torch.Generator().manual_seed(123)
    tokens = torch.randint(0, 6561, (1, 12), generator=g)
    prompt_tokens = torch.randint(0, 6561, (1, 10), generator=g)
    prompt_feat = torch.randn(1, 20, 80, generator=g) - 5.0
    with torch.inference_mode():  # the 64-wide CosyVoice2 encoder runs end to end
        mel = flow.inference(tokens, prompt_tokens, prompt_feat, torch.randn(1, 192, generator=g),
                             streaming=False, finalize=True, n_steps=2)
    assert mel.shape == (1, 80, 24) and torch.isfinite(mel).all()
    hift = load_hift(cfg)
    mel = torch.linspace(-2.0, -10.0, 80)[None, :, None] + torch.randn(1, 80, 120, generator=g)
    with torch.inference_mode():
        f0 = hift.predict_f0(mel).flatten()
    voiced = float((f0 > 10.0).float().mean())
    assert 0.05 < voiced < 0.95, f"f0 should have voiced and unvoiced frames ({voiced:.2f} voiced)"


def test_tokenizer_special_ids(tiny: tuple[str, Path]) -> None:
    family, folder = tiny
    tok = get_text_tokenizer(folder / "CosyVoice-BlankEN", family)  # type: ignore[arg-type]
    assert tok.endofprompt_id == 151646
    assert tok.special_ids["<|endoftext|>"] == 151643
    assert tok.vocab_size == VOCAB_SIZES[family]
    ids = tok.encode("Hello world.<|endofprompt|>")
    assert ids[-1] == 151646 and max(ids) < 151936
    assert tok.decode(tok.encode("Hello world.")) == "Hello world."


def test_onnx_io(tiny: tuple[str, Path]) -> None:
    family, folder = tiny
    name = "speech_tokenizer_v2.onnx" if family == "cosyvoice2" else "speech_tokenizer_v3.onnx"
    tok = ort.InferenceSession(str(folder / name), providers=["CPUExecutionProvider"])
    assert [(i.name, i.type, len(i.shape)) for i in tok.get_inputs()] == [
        ("feats", "tensor(float)", 3), ("feats_length", "tensor(int32)", 1)]
    assert tok.get_inputs()[0].shape[1] == 128
    assert [(o.name, o.type) for o in tok.get_outputs()] == [("indices", "tensor(int32)")]
    feats = np.random.default_rng(0).standard_normal((1, 128, 103)).astype(np.float32)
    (ids,) = tok.run(None, {"feats": feats, "feats_length": np.array([103], dtype=np.int32)})
    assert ids.shape == (1, 25) and ids.dtype == np.int32
    (short,) = tok.run(None, {"feats": feats, "feats_length": np.array([40], dtype=np.int32)})
    assert np.array_equal(short, ids[:, :10])  # tokens past feats_length are cut off

    spk = ort.InferenceSession(str(folder / "campplus.onnx"), providers=["CPUExecutionProvider"])
    assert [(i.name, i.type, i.shape[-1]) for i in spk.get_inputs()] == [("input", "tensor(float)", 80)]
    (emb,) = spk.run(None, {"input": feats[:, :80, :].transpose(0, 2, 1).copy()})
    assert emb.shape == (1, 192) and spk.get_outputs()[0].name == "output"


def test_families_differ(tiny_cv2_model: Path, tiny_cv3_model: Path) -> None:
    a, b = _hashes(tiny_cv2_model), _hashes(tiny_cv3_model)
    assert a["campplus.onnx"] != b["campplus.onnx"]
    assert a["speech_tokenizer_v2.onnx"] != b["speech_tokenizer_v3.onnx"]


def test_deterministic_small_and_fast(tmp_path: Path) -> None:
    first = write_tiny_model(tmp_path / "a" / "model", "cosyvoice3", seed=7)
    again = write_tiny_model(tmp_path / "b" / "model", "cosyvoice3", seed=7)
    other = write_tiny_model(tmp_path / "c" / "model", "cosyvoice3", seed=8)
    for report in (first, again, other):
        logger.info("tiny %s: %.1f MB in %.2f s", report.family, report.total_bytes / 1e6, report.seconds)
        assert report.total_bytes < SIZE_BUDGET
        assert report.seconds < TIME_BUDGET_S
    a, b, c = (_hashes(r.model_dir) for r in (first, again, other))
    assert a == b
    assert {k for k in a if a[k] != c[k]} >= {"llm.pt", "flow.pt", "hift.pt", "campplus.onnx",
                                               "speech_tokenizer_v3.onnx", "cosyvoice3.yaml"}


def test_global_rng_untouched(tmp_path: Path) -> None:
    torch.manual_seed(1234)
    expected = torch.rand(3)
    torch.manual_seed(1234)
    write_tiny_model(tmp_path, "cosyvoice2", seed=0)
    assert torch.equal(torch.rand(3), expected)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "cv2"), "--family", "cosyvoice2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "llm.pt" in out and "total" in out
    assert load_model_config(tmp_path / "cv2").family == "cosyvoice2"
    assert main([str(tmp_path / "cv2"), "--family", "cosyvoice3"]) == 1  # refuses to mix families
    assert "already holds a cosyvoice2" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "cv2" / "cosyvoice3.yaml")
