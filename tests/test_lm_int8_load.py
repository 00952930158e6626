"""Loading the LM as int8 one decoder layer at a time (peak memory of fast and draft mode).

``load_llm(..., quantize=mode)`` must give the numbers of loading the float LM and packing it whole
(:meth:`SpeechLM.quantize_int8`), bit for bit, and must not keep the checkpoint's mapping alive.
No test measures memory itself (bench/ does: ``bench_perf.py load``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import torch

from cosycore.config import load_model_config
from cosycore.errors import StateDictMismatchError
from cosycore.lm.load import load_llm
from cosycore.lm.quant import INT8_MAX, QUANT_BLOCK_ROWS, int8_per_channel
from cosycore.lm.speech_lm import SpeechLM
from cosycore.model import CosyModel
from cosycore.perf import PerfOptions, apply_load_options

pytestmark = pytest.mark.usefixtures("single_thread")


@pytest.fixture(scope="module", params=["cosyvoice2", "cosyvoice3"])
def family_dir(request: pytest.FixtureRequest, cv2_dir: Path, cv3_dir: Path) -> Path:
    return cv2_dir if request.param == "cosyvoice2" else cv3_dir


def _outputs(lm: SpeechLM, seed: int = 0) -> list[torch.Tensor]:
    """Hidden states, logits and a prefill + decode through the KV cache, of one made-up prompt."""
    g = torch.Generator().manual_seed(seed)
    text = torch.randint(0, 6000, (9,), generator=g).tolist()
    speech = torch.randint(0, 6561, (5,), generator=g).tolist()
    if lm.cfg.family == "cosyvoice3":
        text[-1] = 151646  # <|endofprompt|>
    with torch.inference_mode():
        x = lm.build_lm_input(text, None, speech)
        cache = lm.new_cache(x.shape[1] + 3)
        h = lm.prefill(x, cache)
        steps = [h]
        for tok in (1, 2, 3):
            steps.append(lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], cache))
        hidden = lm(x)
        return [x, hidden, lm.logits(hidden), *steps, lm.logits(torch.cat(steps))]


def test_int8_per_channel_in_blocks_equals_the_whole_matrix() -> None:
    """The blocked packing gives the codes and scales of the one-shot formula."""
    w = torch.randn(2 * QUANT_BLOCK_ROWS + 37, 24, generator=torch.Generator().manual_seed(1)) * 3
    w[5] = 0.0
    w[QUANT_BLOCK_ROWS + 2] = 0.0
    amax = w.abs().amax(dim=1)
    scale = torch.where(amax > 0, amax / INT8_MAX, torch.ones_like(amax))
    q = torch.round(w / scale[:, None]).clamp(-INT8_MAX, INT8_MAX).to(torch.int8)
    got_q, got_scale = int8_per_channel(w)
    assert torch.equal(got_q, q) and torch.equal(got_scale, scale)
    assert got_q.is_contiguous() and got_scale.dtype == torch.float32
    bf = w.to(torch.bfloat16)  # a bfloat16 LM is packed from its bfloat16 weights
    assert torch.equal(int8_per_channel(bf)[0], int8_per_channel(bf.float())[0])


@pytest.mark.parametrize("mode", ["int8", "int8-weight-only"])
def test_layer_by_layer_int8_load_gives_the_numbers_of_packing_the_float_lm(family_dir: Path, mode: str) -> None:
    cfg = load_model_config(family_dir)
    packed_whole = load_llm(cfg)
    packed_whole.quantize_int8(mode)
    loaded = load_llm(cfg, quantize=mode)
    assert loaded.quantization == mode and not loaded.training
    assert not any(p.requires_grad for p in loaded.parameters())
    assert loaded.state_dict().keys() == packed_whole.state_dict().keys()
    for key, value in packed_whole.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key
    for a, b in zip(_outputs(packed_whole), _outputs(loaded), strict=True):
        assert torch.equal(a, b)


def test_exact_load_is_unchanged(cv2_dir: Path) -> None:
    """The default load keeps float weights read from the checkpoint, as before."""
    lm = load_llm(load_model_config(cv2_dir))
    assert lm.quantization is None
    raw = torch.load(cv2_dir / "llm.pt", map_location="cpu", weights_only=True)
    assert torch.equal(lm.qwen.layers[0].self_attn.q_proj.weight,
                       raw["llm.model.model.layers.0.self_attn.q_proj.weight"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_int8_load_releases_the_checkpoint_mapping(tmp_path: Path, cv2_dir: Path) -> None:
    """Nothing of the int8 LM still points into llm.pt, so its pages leave the process's memory."""
    path = (tmp_path / "llm.pt").resolve()  # a copy of our own: other tests may map the shared file
    shutil.copyfile(cv2_dir / "llm.pt", path)
    cfg = load_model_config(cv2_dir)
    lm = load_llm(cfg, path, quantize="int8")
    assert str(path) not in Path("/proc/self/maps").read_text()
    exact = load_llm(cfg, path)  # the control: the float LM keeps its weights in the mapping
    assert str(path) in Path("/proc/self/maps").read_text()
    del exact, lm


def test_int8_load_of_a_legacy_checkpoint(tmp_path: Path, cv2_dir: Path) -> None:
    """A checkpoint in torch's old (not zip) format cannot be mapped; it loads whole, same numbers."""
    path = tmp_path / "llm.pt"
    sd = torch.load(cv2_dir / "llm.pt", map_location="cpu", weights_only=True)
    torch.save(sd, path, _use_new_zipfile_serialization=False)
    cfg = load_model_config(cv2_dir)
    legacy = load_llm(cfg, path, quantize="int8")
    zipped = load_llm(cfg, quantize="int8")
    for a, b in zip(_outputs(legacy), _outputs(zipped), strict=True):
        assert torch.equal(a, b)


def test_int8_load_checks_the_keys_first(tmp_path: Path, cv2_dir: Path) -> None:
    path = tmp_path / "llm.pt"
    sd = torch.load(cv2_dir / "llm.pt", map_location="cpu", weights_only=True)
    del sd["llm.model.model.layers.1.mlp.up_proj.weight"]
    torch.save(sd, path)
    with pytest.raises(StateDictMismatchError, match=r"layers\.1\.mlp\.up_proj"):
        load_llm(load_model_config(cv2_dir), path, quantize="int8")


def test_model_load_packs_the_lm_once(cv2_dir: Path) -> None:
    model = CosyModel.load(cv2_dir, device="cpu", llm_quant="int8")
    assert model.llm.quantization == "int8"
    llm = model.llm
    apply_load_options(model, PerfOptions(llm_quant="int8"))  # the engine's next step: nothing to redo
    assert model.llm is llm and model.llm.quantization == "int8"
    with pytest.raises(ValueError, match="already quantized"):
        apply_load_options(model, PerfOptions(llm_quant="int8-weight-only"))
