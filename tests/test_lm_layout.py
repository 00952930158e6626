"""The float LM's decode layout on a CPU (:mod:`cosycore.lm.layout`): the wide matrices are stored
input-major, which changes the products by float summation order only and keeps every state-dict
name and shape. Its speed is measured by ``bench/bench_perf.py llm-speed``, not here."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from cosycore.config import load_model_config
from cosycore.lm.layout import InputMajorLinear, use_decode_layout, use_linear_layout
from cosycore.lm.load import load_llm
from cosycore.lm.speech_lm import SpeechLM
from cosycore.weights import assign_state_dict, load_checkpoint, normalize_keys

pytestmark = pytest.mark.usefixtures("single_thread")


@pytest.mark.parametrize("bias", [True, False])
def test_input_major_linear_gives_the_linear_layers_products(bias: bool) -> None:
    g = torch.Generator().manual_seed(3)
    linear = nn.Linear(24, 56, bias=bias)
    with torch.no_grad():
        linear.weight.copy_(torch.randn(56, 24, generator=g))
        if bias:
            linear.bias.copy_(torch.randn(56, generator=g))
    im = InputMajorLinear.from_linear(linear)
    assert im.weight_t.shape == (24, 56) and im.weight_t.is_contiguous()
    for shape in ((1, 24), (2, 7, 24)):
        x = torch.randn(*shape, generator=g)
        torch.testing.assert_close(im(x), linear(x), atol=1e-5, rtol=1e-5)
    sd, ref = im.state_dict(), linear.state_dict()
    assert sd.keys() == ref.keys()
    for key in ref:
        assert torch.equal(sd[key], ref[key]), key


def test_input_major_linear_loads_a_linear_state_dict_and_names_a_wrong_shape() -> None:
    linear = nn.Linear(8, 12)
    im = InputMajorLinear(8, 12, bias=True)
    im.load_state_dict(linear.state_dict())
    assert torch.equal(im.weight, linear.weight) and torch.equal(im.bias, linear.bias)
    with pytest.raises(RuntimeError, match=r"size mismatch for weight"):
        im.load_state_dict(nn.Linear(12, 8).state_dict())
    with pytest.raises(RuntimeError, match=r"Missing key"):
        im.load_state_dict({"bias": linear.bias})


def test_only_wide_float_linears_change_and_the_swap_undoes_bit_for_bit() -> None:
    model = nn.Sequential(nn.Linear(8, 32), nn.Linear(32, 8), nn.Linear(8, 8), nn.Linear(8, 16).to(torch.float64))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    assert use_decode_layout(model) == 1  # only the float32 8 -> 32 layer is wider than deep
    assert isinstance(model[0], InputMajorLinear)
    assert all(type(m) is nn.Linear for m in model[1:])
    assert use_linear_layout(model) == 1 and type(model[0]) is nn.Linear
    after = model.state_dict()
    assert after.keys() == before.keys() and all(torch.equal(after[k], before[k]) for k in before)


def _prompt_logits(lm: SpeechLM) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    text = torch.randint(0, 6000, (9,), generator=g).tolist()
    speech = torch.randint(0, 6561, (5,), generator=g).tolist()
    if lm.cfg.family == "cosyvoice3":
        text[-1] = 151646  # <|endofprompt|>
    with torch.inference_mode():
        x = lm.build_lm_input(text, None, speech)
        cache = lm.new_cache(x.shape[1] + 3)
        steps = [lm.prefill(x, cache)]
        for tok in (1, 2, 3):
            steps.append(lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], cache))
        return lm.logits(torch.cat(steps))


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_the_loaded_float_lm_decodes_in_the_layout_within_rounding(family: str, cv2_dir: Path,
                                                                    cv3_dir: Path) -> None:
    folder = cv2_dir if family == "cosyvoice2" else cv3_dir
    cfg = load_model_config(folder)
    lm = load_llm(cfg)
    swapped = [m for m in lm.modules() if isinstance(m, InputMajorLinear)]
    assert swapped, "a release's LM has wide matrices (gate, up, the head)"
    assert all(m.out_features > m.in_features for m in swapped)
    with torch.device("meta"):
        plain = SpeechLM(cfg.llm)
    sd = normalize_keys(load_checkpoint(folder / "llm.pt"), "llm")
    assign_state_dict(plain, {k: v for k, v in sd.items() if k in plain.state_dict()}, folder / "llm.pt")
    plain.eval()
    assert lm.state_dict().keys() == plain.state_dict().keys()
    torch.testing.assert_close(_prompt_logits(lm), _prompt_logits(plain), atol=1e-5, rtol=1e-5)
