"""CosyVoice2 flow (conformer encoder + causal U-Net CFM) against the original's recorded numbers.

Every recorded call of ``cosyvoice2-tiny/reference/flow.npz`` is rerun and its ``mu``, ``spks``,
``cond``, first estimator call (``est0.*``) and output ``mel`` compared at the README tolerances.
Then two properties: chunked streaming on 25-token boundaries equals one streaming pass, and ids
outside the flow vocabulary are refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.config import load_model_config
from cosycore.conformance.checks import CheckResult, format_results
from cosycore.conformance.flow import _inputs, check_flow_reference
from cosycore.flow import FlowModel, build_flow, load_flow
from cosycore.flow.xvec_flow import CausalMaskedDiffWithXvec
from cosycore.weights import load_checkpoint

RECORDS = ("full", "stream0", "stream1", "stream2", "stream_final_streamingTrue")


@pytest.fixture(scope="module")
def flow(cv2_dir: Path) -> FlowModel:
    return load_flow(load_model_config(cv2_dir), device="cpu")


@pytest.fixture(scope="module")
def reference(cv2_dir: Path) -> dict[str, np.ndarray]:
    with np.load(cv2_dir / "reference" / "flow.npz") as npz:
        return {k: npz[k] for k in npz.files}


@pytest.fixture(scope="module")
def results(cv2_dir: Path) -> list[CheckResult]:
    manifest = json.loads((cv2_dir / "reference" / "manifest.json").read_text(encoding="utf-8"))
    return check_flow_reference(cv2_dir, cv2_dir / "reference" / "flow.npz", manifest)


def test_builds_on_meta_with_release_keys(cv2_dir: Path) -> None:
    cfg = load_model_config(cv2_dir)
    model = build_flow(cfg.flow)
    assert isinstance(model, CausalMaskedDiffWithXvec)
    assert all(p.is_meta for p in model.parameters())
    sd = load_checkpoint(cv2_dir / "flow.pt")
    ours = model.state_dict()
    assert set(ours) == set(sd)
    assert all(tuple(ours[k].shape) == tuple(sd[k].shape) for k in sd)


@pytest.mark.conformance
def test_fixed_noise(results: list[CheckResult]) -> None:
    noise = [r for r in results if r.name == "cfm_noise"]
    assert noise and noise[0].passed and noise[0].max_abs_err == 0.0


@pytest.mark.conformance
@pytest.mark.parametrize("record", RECORDS)
def test_flow_call_matches_reference(results: list[CheckResult], record: str) -> None:
    mine = [r for r in results if r.name.startswith(record + ".")]
    names = {r.name.split(".", 1)[1] for r in mine}
    assert names == {"mu", "spks", "cond", "est0.x", "est0.mask", "est0.mu", "est0.t", "est0.spks",
                     "est0.cond", "est0.out", "mel"}
    print("\n" + format_results(mine))
    assert all(r.passed for r in mine), format_results(mine)
    # The estimator inputs are built from mu/spks/cond and the noise: they match far below tolerance.
    inputs = [r for r in mine if r.name.split(".", 1)[1] in ("est0.x", "est0.mask", "est0.t", "est0.cond")]
    assert max(r.max_abs_err for r in inputs) <= 1e-6


@pytest.mark.conformance
def test_chunked_streaming_equals_one_streaming_pass(
    flow: FlowModel, reference: dict[str, np.ndarray]
) -> None:
    """T8: hops on 25-token boundaries of prompt + tokens, streaming=True throughout."""
    inp = _inputs(reference)
    token, prompt_token = inp["token"], inp["prompt_token"]
    n_prompt, n_total = prompt_token.shape[1], token.shape[1]
    chunk, look = 25, flow.cfg.pre_lookahead_len
    ratio = flow.cfg.token_mel_ratio
    pad = -n_prompt % chunk
    hops, offset, hop = [], 0, chunk
    while True:  # the release schedule: first hop padded to a chunk boundary, hops double up to 100
        this_hop = hop + pad if offset == 0 else hop
        if n_total - offset < this_hop + look:
            break
        hops.append((offset, offset + this_hop))
        offset += this_hop
        hop = min(100, 2 * hop)
    assert len(hops) >= 2 and all((n_prompt + end) % chunk == 0 for _, end in hops)

    def run(end: int, finalize: bool) -> torch.Tensor:
        return flow.inference(token[:, :end], prompt_token, inp["prompt_feat"], inp["embedding"],
                              streaming=True, finalize=finalize)

    pieces = [run(end + look, False)[:, :, ratio * start:] for start, end in hops]
    pieces.append(run(n_total, True)[:, :, ratio * offset:])
    chunked = torch.cat(pieces, dim=2)  # [1, 80, 2 * n_total]
    one_pass = run(n_total, True)
    assert chunked.shape == one_pass.shape == (1, 80, ratio * n_total)
    err = float((chunked - one_pass).abs().max())
    print(f"\nchunked vs one streaming pass: max |err| {err:.3g}")
    assert err <= 1e-4
    # Sanity: the single pass is the recorded streaming reference.
    ref_mel = reference["stream_final_streamingTrue.mel"]
    np.testing.assert_allclose(one_pass.numpy(), ref_mel, atol=1e-3, rtol=1e-3)


def test_out_of_vocabulary_token_is_refused(flow: FlowModel, reference: dict[str, np.ndarray]) -> None:
    inp = _inputs(reference)
    bad = inp["token"][:, :10].clone()
    bad[0, 4] = flow.cfg.vocab_size  # the first LLM stop token
    with pytest.raises(ValueError, match="outside the flow vocabulary"):
        flow.inference(bad, inp["prompt_token"], inp["prompt_feat"], inp["embedding"],
                       streaming=False, finalize=True)


def test_full_attention_bias_is_one_row_with_the_same_result() -> None:
    """Issue 27 (the zalgo peak): the final call's all-allowed bias is held as one row, not B x T x T
    values, and attention gives bit for bit what the dense bias gave."""
    from cosycore.flow.unet import MASK_BIAS, SelfAttention, attention_bias

    t, heads = 300, 2
    mask = torch.ones(2, 1, t)
    row = attention_bias(mask, heads, 0, torch.float32)
    dense = ((1.0 - mask.bool().expand(2, t, t).float()) * MASK_BIAS).unsqueeze(1).expand(2, heads, t, t)
    assert row.shape == dense.shape and torch.equal(row, dense)
    assert row.untyped_storage().nbytes() == 4 * t  # one row of -0.0, shared by every query
    attn = SelfAttention(32, heads, 16).eval()
    x = torch.randn(2, t, 32, generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        assert torch.equal(attn(x, row), attn(x, dense.contiguous()))
    padded = mask.clone()
    padded[1, 0, -10:] = 0  # padding or a chunk mask: the dense bias as before
    assert attention_bias(padded, heads, 0, torch.float32)[1, 0, 0, -1] == MASK_BIAS
    assert attention_bias(mask, heads, 25, torch.float32)[0, 0, 0, -1] == MASK_BIAS


def _rel_shift_by_padding(x: torch.Tensor) -> torch.Tensor:
    """The original's shift (pad a zero column, reshape, slice), as the reference."""
    b, h, l_q, n_pos = x.shape
    padded = torch.cat([x.new_zeros(b, h, l_q, 1), x], dim=-1).view(b, h, n_pos + 1, l_q)
    return padded[:, :, 1:].view_as(x)[:, :, :, : n_pos // 2 + 1]


@pytest.mark.parametrize("length", [1, 2, 5, 64])
def test_rel_shift_is_a_view_with_the_originals_values(length: int) -> None:
    """Issue 27 (the zalgo peak): the encoder's relative-position shift copies nothing."""
    from cosycore.flow.conformer import rel_shift

    x = torch.randn(2, 3, length, 2 * length - 1, generator=torch.Generator().manual_seed(length))
    shifted = rel_shift(x)
    assert torch.equal(shifted, _rel_shift_by_padding(x))
    assert shifted.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert torch.equal(rel_shift(x[1:]), _rel_shift_by_padding(x[1:]))  # a view with an offset too
