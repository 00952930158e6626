"""The speech LM's decode step through ONNX Runtime (:mod:`cosycore.lm.ort_decode`, ``ort_build``).

The float32 graph must give torch's float decode within rounding (the graph's math is the
backbone's); the 4-bit graph must stay close and pick the same greedy tokens on the tiny release;
the cache folder is published whole or not at all. Speed: ``bench/bench_perf.py llm-speed``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import torch

from cosycore.config import load_model_config
from cosycore.lm import ort_build
from cosycore.lm.layout import use_linear_layout
from cosycore.lm.load import load_llm
from cosycore.lm.ort_decode import GRAPH_FILE, GRAPH_VERSION, OrtDecodeStep, export_decode_graph, graph_key
from cosycore.lm.speech_lm import SpeechLM

pytestmark = pytest.mark.usefixtures("single_thread")


def _float_lm(folder: Path) -> SpeechLM:
    lm = load_llm(load_model_config(folder))
    use_linear_layout(lm)
    return lm


def _decode(lm: SpeechLM, tokens: tuple[int, ...] = (1, 2, 3, 4, 5)) -> tuple[torch.Tensor, list[int]]:
    """Prefill a fixed prompt, feed ``tokens`` one at a time; the hidden states of every step, and
    the greedy token of each step's logits."""
    g = torch.Generator().manual_seed(0)
    text = torch.randint(0, 6000, (9,), generator=g).tolist()
    speech = torch.randint(0, 6561, (5,), generator=g).tolist()
    if lm.cfg.family == "cosyvoice3":
        text[-1] = 151646  # <|endofprompt|>
    with torch.inference_mode():
        x = lm.build_lm_input(text, None, speech)
        cache = lm.new_cache(x.shape[1] + len(tokens))
        states = [lm.prefill(x, cache)]
        for tok in tokens:
            states.append(lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], cache))
        hidden = torch.cat(states)
        return hidden, lm.logits(hidden).argmax(-1).tolist()


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory, cv2_dir: Path) -> tuple[Path, SpeechLM, Any]:
    """The engine's first build of the tiny CosyVoice2 LM's 4-bit decode graph into an empty cache (in a
    process of its own, as the engine runs it), once for the module. Returns the home folder, the LM the
    build was attached to, and its job."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COSY_STUDIO_HOME", str(home))
        lm = load_llm(load_model_config(cv2_dir), quantize="int8")
        assert ort_build.attach_decode_graph(lm, cv2_dir, threads=1) is None  # tiny: torch is as fast
        job = ort_build.attach_decode_graph(lm, cv2_dir, threads=1, force=True)
        assert job is not None and job.wait(600), job.error
    return home, lm, job


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory, cv2_dir: Path, cv3_dir: Path,
           first_build: tuple[Path, SpeechLM, Any]) -> dict[str, Path]:
    out = {}
    for family, folder in (("cosyvoice2", cv2_dir), ("cosyvoice3", cv3_dir)):
        out[f"{family}-float"] = export_decode_graph(_float_lm(folder), tmp_path_factory.mktemp(family), bits=None)
    # the engine's build (the quantizer does the same to both families' graphs; the float test covers v3)
    out["cosyvoice2-int4"] = first_build[2].dest / GRAPH_FILE
    return out


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_the_float_graph_decodes_as_torch_within_rounding(family: str, graphs: dict[str, Path],
                                                          cv2_dir: Path, cv3_dir: Path) -> None:
    folder = cv2_dir if family == "cosyvoice2" else cv3_dir
    lm = _float_lm(folder)
    ref, ref_tokens = _decode(lm)
    lm.decode_step = OrtDecodeStep(graphs[f"{family}-float"], threads=1)
    got, tokens = _decode(lm)
    assert lm.decode_step.steps == 5  # every one-position step went through the graph, prefill did not
    torch.testing.assert_close(got, ref, atol=2e-5, rtol=1e-4)
    assert tokens == ref_tokens


def test_a_steps_logits_come_from_the_graph_and_equal_the_heads(graphs: dict[str, Path], cv2_dir: Path) -> None:
    lm = _float_lm(cv2_dir)
    step = OrtDecodeStep(graphs["cosyvoice2-float"], threads=1)
    with torch.inference_mode():
        cache = lm.new_cache(8)
        h0 = lm.prefill(lm.speech_embedding.weight[:3].unsqueeze(0), cache)
        lm.decode_step = step
        assert step.logits_of(h0) is None  # prefill's hidden state is torch's
        h = lm.decode_one_token(lm.speech_embedding.weight[4:5], cache)
        got = lm.logits(h[0])
        assert got.shape == (lm.cfg.speech_vocab_size,) and step.logits_of(h[0]) is not None
        torch.testing.assert_close(got, lm.llm_decoder(h[0]), atol=2e-5, rtol=1e-4)
        assert step.logits_of(h.clone()) is None  # another tensor with the same numbers: the head runs


def test_the_4bit_graph_stays_close_to_the_float_lm(graphs: dict[str, Path], cv2_dir: Path) -> None:
    lm = _float_lm(cv2_dir)
    ref, _ = _decode(lm)
    lm.decode_step = OrtDecodeStep(graphs["cosyvoice2-int4"], threads=1)
    got, _ = _decode(lm)
    assert torch.equal(got[0], ref[0])  # the prefill is torch's
    err = (got[1:] - ref[1:]).abs().max().item()
    scale = ref[1:].abs().max().item()
    assert 0 < err < 0.1 * scale, (err, scale)  # 4-bit weights: close, and not the float graph


def test_a_graph_of_another_version_is_refused(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y]))
    path = tmp_path / GRAPH_FILE
    onnx.save(model, str(path))
    with pytest.raises(ValueError, match="not a decode graph of this version"):
        OrtDecodeStep(path, threads=1)


def test_the_key_follows_the_weights_file(tmp_path: Path) -> None:
    weights = tmp_path / "llm.pt"
    weights.write_bytes(b"a" * 5000)
    first = graph_key(weights, 4)
    assert first == graph_key(weights, 4) and first.startswith(f"v{GRAPH_VERSION}-int4-")
    weights.write_bytes(b"b" * 5000)
    assert graph_key(weights, 4) != first


def test_a_failed_build_leaves_no_folder(tmp_path: Path, cv2_dir: Path) -> None:
    dest = tmp_path / "graphs" / "key"

    def broken() -> SpeechLM:
        raise RuntimeError("no weights")

    with pytest.raises(RuntimeError, match="no weights"):
        ort_build.build_folder(broken, dest)
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_the_engine_builds_once_then_attaches_from_the_cache(first_build: tuple[Path, SpeechLM, Any], cv2_dir: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    home, lm, job = first_build  # built in the background into an empty cache
    monkeypatch.setenv("COSY_STUDIO_HOME", str(home))
    folder = job.dest
    assert folder.parent == ort_build.graphs_dir() and (folder / GRAPH_FILE).is_file()
    assert not list(folder.glob("float.onnx*"))  # the float export is removed once quantized
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no partial folder left
    stamp = os.stat(folder / GRAPH_FILE).st_mtime_ns
    _, tokens = _decode(lm)
    assert lm.decode_step is not None and lm.decode_step.steps == 5
    again = load_llm(load_model_config(cv2_dir), quantize="int8")
    job2 = ort_build.attach_decode_graph(again, cv2_dir, threads=1, force=True)
    assert job2 is not None and job2.ready  # attached at once: no second build
    assert os.stat(folder / GRAPH_FILE).st_mtime_ns == stamp
    assert _decode(again)[1] == tokens
