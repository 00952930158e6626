"""Fun-CosyVoice3 flow (``CausalMaskedDiffWithDiT`` + ``DiT``) against the original's recorded numbers.

The tiny conformance checkpoint (dim 64, depth 2, 4 heads x 16) and ``reference/flow.npz`` hold,
per call, the decoder inputs (mu, spks, cond), the first estimator call (est0.*) and the final mel.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.config import DiTConfig, load_model_config
from cosycore.errors import StateDictMismatchError
from cosycore.flow.dit import DiT, RotaryEmbedding, apply_partial_rope, rope_inv_freq
from cosycore.flow.dit_flow import CausalMaskedDiffWithDiT
from cosycore.weights import assign_state_dict, load_checkpoint

ATOL = RTOL = 1e-4  # mu / spks / cond / est0
MEL_ATOL = MEL_RTOL = 1e-3
EST0_KEYS = ("x", "mask", "mu", "t", "spks", "cond", "out")
INV_FREQ = "decoder.estimator.rotary_embed.inv_freq"


@pytest.fixture(scope="module")
def ref(cv3_dir: Path) -> dict[str, np.ndarray]:
    with np.load(cv3_dir / "reference" / "flow.npz") as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def calls(cv3_dir: Path) -> list[dict]:
    manifest = json.loads((cv3_dir / "reference" / "manifest.json").read_text())
    return manifest["info"]["flow"]["flow_calls"]


@pytest.fixture(scope="module")
def flow(cv3_dir: Path) -> CausalMaskedDiffWithDiT:
    cfg = load_model_config(cv3_dir).flow
    with torch.device("meta"):
        model = CausalMaskedDiffWithDiT(cfg)
    sd = load_checkpoint(cv3_dir / "flow.pt")
    assign_state_dict(model, model.prepare_state_dict(sd), cv3_dir / "flow.pt")
    return model.eval()


@pytest.fixture(scope="module")
def runs(flow: CausalMaskedDiffWithDiT, ref: dict[str, np.ndarray], calls: list[dict]) -> dict[str, dict]:
    """Each recorded call run once through ``flow.inference`` with a capture."""
    out: dict[str, dict] = {}
    for call in calls:
        capture: dict[str, torch.Tensor] = {}
        mel = _infer(flow, ref, call["token_end"], streaming=call["streaming"], finalize=call["finalize"],
                     capture=capture)
        out[call["name"]] = {"mel": mel, **capture}
    return out


def _t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a))


def _infer(flow: CausalMaskedDiffWithDiT, ref: dict[str, np.ndarray], token_end: int, *, streaming: bool,
           finalize: bool, capture: dict | None = None) -> torch.Tensor:
    return flow.inference(
        _t(ref["token"])[:, :token_end],
        _t(ref["prompt_token"]),
        _t(ref["prompt_feat"]),
        _t(ref["embedding"]),
        streaming=streaming, finalize=finalize, capture=capture,
    )


def _assert_close(name: str, got: torch.Tensor, want: np.ndarray, atol: float, rtol: float) -> float:
    want_t = _t(want).to(got.dtype)
    assert got.shape == want_t.shape, f"{name}: shape {tuple(got.shape)} != {tuple(want_t.shape)}"
    err = float((got - want_t).abs().max()) if got.numel() else 0.0
    torch.testing.assert_close(got, want_t, atol=atol, rtol=rtol, msg=lambda m: f"{name}: {m}")
    return err


# ------------------------------------------------------------------------------------------------
# Estimator alone on the recorded first-step inputs
# ------------------------------------------------------------------------------------------------


@pytest.mark.conformance
@pytest.mark.parametrize("record", ["full", "stream0", "stream1", "stream_final_streamingTrue"])
def test_estimator_on_recorded_inputs(flow, ref, calls, record):
    streaming = {c["name"]: c["streaming"] for c in calls}[record]
    a = {k: _t(ref[f"{record}.est0.{k}"]) for k in EST0_KEYS}
    with torch.inference_mode():
        out = flow.decoder.estimator(a["x"], a["mask"], a["mu"], a["t"], a["spks"], a["cond"], streaming)
    _assert_close(f"{record}.est0.out", out, ref[f"{record}.est0.out"], ATOL, RTOL)


@pytest.mark.conformance
def test_streaming_mask_blocks_future_chunks(flow, ref):
    """Streaming: frames of a chunk never see later chunks; full attention does."""
    a = {k: _t(ref[f"full.est0.{k}"]) for k in EST0_KEYS}
    chunk = flow.cfg.estimator.static_chunk_size
    x2 = a["x"].clone()
    x2[..., chunk:] += 1.0  # perturb everything after the first chunk
    est = flow.decoder.estimator
    with torch.inference_mode():
        s1 = est(a["x"], a["mask"], a["mu"], a["t"], a["spks"], a["cond"], True)
        s2 = est(x2, a["mask"], a["mu"], a["t"], a["spks"], a["cond"], True)
        f1 = est(a["x"], a["mask"], a["mu"], a["t"], a["spks"], a["cond"], False)
        f2 = est(x2, a["mask"], a["mu"], a["t"], a["spks"], a["cond"], False)
    torch.testing.assert_close(s1[..., :chunk], s2[..., :chunk], atol=1e-6, rtol=0)
    assert float((f1[..., :chunk] - f2[..., :chunk]).abs().max()) > 1e-3


# ------------------------------------------------------------------------------------------------
# Whole inference: intermediates and mel for every recorded call
# ------------------------------------------------------------------------------------------------


@pytest.mark.conformance
@pytest.mark.parametrize("record", ["full", "stream0", "stream1", "stream2", "stream_final_streamingTrue"])
def test_flow_inference_matches_reference(runs, ref, record):
    got = runs[record]
    for key in ("mu", "spks", "cond"):
        _assert_close(f"{record}.{key}", got[key], ref[f"{record}.{key}"], ATOL, RTOL)
    for key in EST0_KEYS:
        _assert_close(f"{record}.est0.{key}", got[f"est0.{key}"], ref[f"{record}.est0.{key}"], ATOL, RTOL)
    _assert_close(f"{record}.mel", got["mel"], ref[f"{record}.mel"], MEL_ATOL, MEL_RTOL)


# ------------------------------------------------------------------------------------------------
# Streaming equivalence (model against itself)
# ------------------------------------------------------------------------------------------------


def _aligned_schedule(n_prompt: int, n_tokens: int, chunk: int, lookahead: int) -> list[int]:
    """token_end of each non-final call: hops that keep prompt + emitted tokens on chunk multiples."""
    ends: list[int] = []
    emitted = (-n_prompt) % chunk or chunk  # first hop pads the prompt up to a chunk boundary
    while emitted + lookahead <= n_tokens:
        ends.append(emitted + lookahead)
        emitted += 2 * chunk
    return ends


@pytest.mark.conformance
def test_chunked_streaming_equals_one_streaming_pass(flow, ref, runs):
    cfg = flow.cfg
    n_prompt, n_tokens = ref["prompt_token"].shape[1], ref["token"].shape[1]
    ratio, k = cfg.token_mel_ratio, cfg.pre_lookahead_len
    ends = _aligned_schedule(n_prompt, n_tokens, chunk=25, lookahead=k)
    assert len(ends) >= 2
    pieces, offset = [], 0
    for end in ends:
        mel = _infer(flow, ref, end, streaming=True, finalize=False)  # [1, 80, 2 * (end - k)]
        assert mel.shape[-1] == ratio * (end - k)
        pieces.append(mel[..., offset:])
        offset = mel.shape[-1]
    last = _infer(flow, ref, n_tokens, streaming=True, finalize=True)
    pieces.append(last[..., offset:])
    streamed = torch.cat(pieces, dim=-1)  # [1, 80, 2 * n_tokens]
    one_pass = runs["stream_final_streamingTrue"]["mel"]
    assert streamed.shape == one_pass.shape
    torch.testing.assert_close(streamed, one_pass, atol=1e-4, rtol=1e-4)


# ------------------------------------------------------------------------------------------------
# RoPE and the rotary buffer
# ------------------------------------------------------------------------------------------------


def test_rope_touches_only_the_first_dim_head_channels():
    torch.manual_seed(0)
    heads, dim_head, length = 4, 16, 9
    x = torch.randn(2, length, heads * dim_head)
    cos, sin = RotaryEmbedding(dim_head)(length, x.device)
    y = apply_partial_rope(x, cos, sin)
    assert torch.equal(y[..., dim_head:], x[..., dim_head:])  # heads 1..H-1 untouched
    assert torch.equal(y[:, 0], x[:, 0])  # position 0 has angle 0
    assert float((y[:, 1:, :dim_head] - x[:, 1:, :dim_head]).abs().min(dim=-1).values.max()) > 0
    # Interleaved pairs: (x[2i], x[2i+1]) rotated by the angle n * inv_freq[i].
    inv = rope_inv_freq(dim_head)
    n, i = 5, 3
    ang = n * inv[i]
    a, b = x[:, n, 2 * i], x[:, n, 2 * i + 1]
    torch.testing.assert_close(y[:, n, 2 * i], a * ang.cos() - b * ang.sin())
    torch.testing.assert_close(y[:, n, 2 * i + 1], b * ang.cos() + a * ang.sin())


def test_rope_in_the_dit_attention_changes_only_head_zero(flow):
    """Run a real attention layer; q/k channels past dim_head reach SDPA exactly as projected."""
    attn = flow.decoder.estimator.transformer_blocks[0].attn
    dim_head = attn.dim_head
    x = torch.randn(1, 7, flow.cfg.estimator.dim)
    seen: dict[str, torch.Tensor] = {}
    orig = torch.nn.functional.scaled_dot_product_attention

    def spy(q, k, v, **kw):
        seen["q"], seen["k"] = q, k
        return orig(q, k, v, **kw)

    rope = flow.decoder.estimator.rotary_embed(7, x.device)
    with torch.inference_mode(), pytest.MonkeyPatch.context() as mp:
        mp.setattr(torch.nn.functional, "scaled_dot_product_attention", spy)
        attn(x, rope, None, None)
        q_raw, k_raw = attn.to_q(x), attn.to_k(x)
    for name, raw in (("q", q_raw), ("k", k_raw)):
        merged = seen[name].transpose(1, 2).flatten(2)  # [1, H, T, Dh] -> [1, T, I]
        assert torch.equal(merged[..., dim_head:], raw[..., dim_head:]), name
        assert not torch.equal(merged[..., :dim_head], raw[..., :dim_head]), name


def test_inv_freq_is_optional_and_checked(cv3_dir):
    cfg = load_model_config(cv3_dir).flow
    sd = load_checkpoint(cv3_dir / "flow.pt")
    assert INV_FREQ in sd
    torch.testing.assert_close(sd[INV_FREQ], rope_inv_freq(cfg.estimator.dim_head), atol=0, rtol=1e-6)
    with torch.device("meta"):
        model = CausalMaskedDiffWithDiT(cfg)
    without = {k: v for k, v in sd.items() if k != INV_FREQ}
    assign_state_dict(model, model.prepare_state_dict(without), "flow.pt")  # absent: recomputed
    bad = dict(sd)
    bad[INV_FREQ] = sd[INV_FREQ] * 1.01
    with pytest.raises(StateDictMismatchError):
        model.prepare_state_dict(bad)


def test_dit_builds_on_meta_from_config_sizes():
    cfg = DiTConfig(dim=96, depth=3, heads=3, dim_head=32, ff_mult=2, mel_dim=80, mu_dim=80, spk_dim=80,
                    out_channels=80, static_chunk_size=50)
    with torch.device("meta"):
        est = DiT(cfg)
    sd = est.state_dict()
    assert len(est.transformer_blocks) == 3
    assert sd["transformer_blocks.2.attn_norm.linear.weight"].shape == (6 * 96, 96)
    assert sd["input_embed.conv_pos_embed.conv1.0.weight"].shape == (96, 96 // 16, 31)
    assert not list(est.buffers())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_conv_position_embedding_on_cuda_runs_without_cudnn_and_matches_the_cpu() -> None:
    from cosycore.flow.dit import CausalConvPositionEmbedding

    torch.manual_seed(0)
    layer = CausalConvPositionEmbedding(64).eval()
    x = torch.randn(2, 300, 64)
    with torch.inference_mode():
        want = layer(x)
        got = layer.cuda()(x.cuda())
    assert torch.backends.cudnn.enabled  # only the layer's own call runs without cuDNN
    assert torch.allclose(got.cpu(), want, atol=1e-5)
