"""The speech LM: reference numerics for both families, KV cache, sampling, loading errors."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.config import LLMConfig, QwenConfig, load_model_config
from cosycore.conformance.checks import compare, format_results
from cosycore.conformance.lm import check_llm_reference
from cosycore.errors import ConfigMismatchError, InputError, StateDictMismatchError
from cosycore.lm.load import load_llm
from cosycore.lm.sampling import RasSampler, greedy_sampler, nucleus_candidates, nucleus_sample, random_sample
from cosycore.lm.speech_lm import SpeechLM

FAMILIES = ["cv2", "cv3"]


@pytest.fixture(scope="module", params=FAMILIES)
def tiny(request: pytest.FixtureRequest) -> tuple[SpeechLM, dict[str, np.ndarray], Path]:
    folder: Path = request.getfixturevalue(f"{request.param}_dir")
    model = load_llm(load_model_config(folder))
    with np.load(folder / "reference" / "llm.npz") as z:
        ref = {k: z[k] for k in z.files}
    return model, ref, folder


def _inputs(ref: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return ref["text"], ref["prompt_text"], ref["prompt_speech_token"]


# ---- reference numerics -------------------------------------------------------------------


@pytest.mark.conformance
def test_lm_input_matches_reference(tiny) -> None:
    model, ref, _ = tiny
    got = model.build_lm_input(*_inputs(ref))[0].numpy()
    assert got.shape == ref["lm_input"].shape
    np.testing.assert_allclose(got, ref["lm_input"], atol=1e-4, rtol=1e-4)


@pytest.mark.conformance
def test_length_limits_match_reference(tiny) -> None:
    model, ref, _ = tiny
    assert model.length_limits(ref["text"].shape[1]) == tuple(int(v) for v in ref["min_len_max_len"])


@pytest.mark.conformance
def test_teacher_forced_steps_match_reference(tiny) -> None:
    model, ref, _ = tiny
    lm_input = model.build_lm_input(*_inputs(ref))
    min_len, _ = model.length_limits(ref["text"].shape[1])
    tf = model.teacher_force(lm_input, ref["forced_tokens"], min_len=min_len, eos_rule="upstream")
    np.testing.assert_allclose(tf.step_inputs.numpy(), ref["tf_step_input"], atol=1e-4, rtol=1e-4)
    np.testing.assert_allclose(tf.hidden.numpy(), ref["tf_hidden_last"], atol=1e-4, rtol=1e-4)
    np.testing.assert_allclose(tf.logits.numpy(), ref["tf_logits"], atol=1e-4, rtol=1e-4)
    got, want = tf.scores.numpy(), ref["tf_scores"]
    assert np.array_equal(np.isneginf(got), np.isneginf(want))
    # The reference masks index 6561 on the steps before min_len (sos for CosyVoice3, eos for CosyVoice2).
    assert np.isneginf(want[:min_len, 6561]).all() and np.isfinite(want[min_len:]).all()
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], atol=1e-4, rtol=1e-4)


@pytest.mark.conformance
def test_greedy_tokens_match_reference(tiny) -> None:
    model, ref, _ = tiny
    tokens = list(model.generate(*_inputs(ref), greedy=True, eos_rule="upstream"))
    assert len(tokens) == 180  # the reference run is ended by max_len
    assert tokens == ref["greedy_tokens"].tolist()
    assert tokens[-1] == int(ref["greedy_last_argmax"][0])


@pytest.mark.conformance
def test_check_llm_reference_reports_every_array(tiny) -> None:
    model, _, folder = tiny
    results = check_llm_reference(folder, model=model)
    names = {r.name for r in results}
    assert {"lm_input", "tf_hidden_last", "tf_logits", "tf_scores", "greedy_tokens"} <= names
    assert "min_len_max_len" in names
    assert all(r.passed for r in results), format_results(results)
    assert max(r.max_abs_err for r in results if r.name.startswith("tf_")) < 1e-4


def test_compare_flags_moved_inf_and_integer_mismatch() -> None:
    ref = np.array([0.0, -np.inf, 1.0], dtype=np.float32)
    assert compare("a", np.array([0.0, -np.inf, 1.00005]), ref).passed
    assert not compare("b", np.array([-np.inf, 0.0, 1.0]), ref).passed
    bad = compare("c", np.array([1, 2, 4]), np.array([1, 2, 3]))
    assert not bad.passed and bad.max_abs_err == 1.0 and "index (2,)" in bad.note


# ---- behaviour on the tiny checkpoints --------------------------------------------------


@pytest.mark.conformance
def test_cv3_requires_endofprompt(cv3_dir: Path) -> None:
    model = load_llm(load_model_config(cv3_dir))
    with pytest.raises(InputError, match="151646"):
        model.build_lm_input([11, 12, 13], [21, 22], [])
    assert model.build_lm_input([11, 151646, 13]).shape == (1, 5, 16)  # sos, 3 text, task_id


@pytest.mark.conformance
def test_stop_token_and_all_specials_rule(cv2_dir: Path) -> None:
    model = load_llm(load_model_config(cv2_dir))
    model.llm_decoder.bias = torch.nn.Parameter(model.llm_decoder.bias.clone())
    model.llm_decoder.bias.data[6561] += 1e4  # eos wins every argmax unless masked
    text, ptext, pspeech = [5, 6, 7, 8], [9, 10], [1, 2, 3]
    tokens = list(model.generate(text, ptext, pspeech, greedy=True, eos_rule="all_specials"))
    assert len(tokens) == 8 and all(t < 6561 for t in tokens)  # stops (unyielded) right at min_len
    model.llm_decoder.bias.data[6562] += 2e4  # an unused special that "upstream" leaves sampleable
    assert list(model.generate(text, ptext, pspeech, greedy=True, eos_rule="upstream")) == []
    assert len(list(model.generate(text, ptext, pspeech, greedy=True, eos_rule="all_specials"))) == 8


@pytest.mark.conformance
def test_sampled_generation_is_reproducible_with_seed(cv3_dir: Path) -> None:
    model = load_llm(load_model_config(cv3_dir))
    args = ([5, 6, 151646, 7], [8, 9], [1, 2, 3])
    first = list(model.generate(*args, seed=1234, min_len=40, max_len=40))
    again = list(model.generate(*args, seed=1234, min_len=40, max_len=40))
    other = list(model.generate(*args, seed=4321, min_len=40, max_len=40))
    assert len(first) == 40 and first == again and first != other
    assert all(0 <= t < 6561 for t in first)


# ---- KV cache ---------------------------------------------------------------------------


def _small_cfg(family: str = "cosyvoice2") -> LLMConfig:
    qwen = QwenConfig(hidden_size=32, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=48,
                      rms_norm_eps=1e-6, rope_theta=1e6, vocab_size=300, max_position_embeddings=4096)
    return LLMConfig(family=family, qwen=qwen)  # type: ignore[arg-type]


@pytest.mark.parametrize("static", [False, True])
def test_kv_cache_decode_equals_full_forward(static: bool) -> None:
    torch.manual_seed(0)
    model = SpeechLM(_small_cfg()).eval()
    x = torch.randn(1, 40, 32)
    with torch.inference_mode():
        full = model(x)  # [1, 40, 32]
    cache = model.new_cache(64, static=static)
    last = model.prefill(x[:, :25], cache)
    torch.testing.assert_close(last, full[:, 24], atol=1e-5, rtol=1e-5)
    chunk = model.extend(x[:, 25:30], cache)  # several positions appended to a filled cache
    torch.testing.assert_close(chunk, full[:, 25:30], atol=1e-5, rtol=1e-5)
    for t in range(30, 40):
        h = model.decode_one_token(x[:, t], cache)
        torch.testing.assert_close(h, full[:, t], atol=1e-5, rtol=1e-5)
    assert cache.length == 40 and cache.capacity == 64
    with pytest.raises(InputError, match="do not fit"):
        model.extend(torch.randn(1, 30, 32), cache)


def test_compiled_decode_follows_eager_without_recompiling_per_position() -> None:
    """compile_decode: one graph per input length over a static cache, whatever the position."""
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch.manual_seed(0)
    model = SpeechLM(_small_cfg()).eval()
    x = torch.randn(1, 30, 32)
    with torch.inference_mode():
        full = model(x)
    torch._dynamo.reset()
    model.compile_decode(dynamic=False)
    compiled_frames = []
    cache = model.new_cache(48, static=True)
    torch.testing.assert_close(model.prefill(x[:, :20], cache), full[:, 19], atol=1e-5, rtol=1e-5)
    for t in range(20, 30):
        h = model.decode_one_token(x[:, t], cache)
        torch.testing.assert_close(h, full[:, t], atol=1e-5, rtol=1e-5)
        compiled_frames.append(counters["stats"]["unique_graphs"])
    assert compiled_frames[-1] == compiled_frames[0] <= 2  # the prefill graph and the one decode graph
    eager = model.new_cache(48)  # an ordinary cache stays eager (and gives the same numbers)
    torch.testing.assert_close(model.prefill(x, eager), full[:, 29], atol=1e-5, rtol=1e-5)
    torch._dynamo.reset()


# ---- sampling ---------------------------------------------------------------------------


def _scores(probs: list[float], size: int = 50) -> torch.Tensor:
    p = torch.full((size,), 1e-12)
    p[: len(probs)] = torch.tensor(probs)
    return p.log()


def test_nucleus_keeps_crossing_token_and_caps_at_top_k() -> None:
    probs = torch.tensor([0.15, 0.5, 0.05, 0.2, 0.1])
    ids, kept = nucleus_candidates(probs, top_p=0.8, top_k=25)
    assert ids.tolist() == [1, 3, 0]  # 0.5 + 0.2 = 0.7 < 0.8, so 0.15 (which crosses 0.8) is kept
    torch.testing.assert_close(kept, torch.tensor([0.5, 0.2, 0.15]))  # not renormalised
    uniform = torch.full((100,), 0.01)
    ids, _ = nucleus_candidates(uniform, top_p=0.8, top_k=25)
    assert ids.tolist() == list(range(25))  # top_k cap; stable sort keeps the lowest ids on ties


def test_nucleus_sampling_frequencies() -> None:
    gen = torch.Generator().manual_seed(0)
    scores = _scores([0.5, 0.2, 0.15, 0.1, 0.05])
    counts = Counter(nucleus_sample(scores, 0.8, 25, gen) for _ in range(3000))
    assert set(counts) == {0, 1, 2}
    for tok, p in ((0, 0.5), (1, 0.2), (2, 0.15)):
        assert abs(counts[tok] / 3000 - p / 0.85) < 0.03


def test_ras_never_repeats_a_token_seen_in_the_window() -> None:
    sampler = RasSampler()
    scores = _scores([0.97, 0.01, 0.01, 0.01])
    gen = torch.Generator().manual_seed(1)
    recent = [5, 0, 7]  # token 0 is in the last 10 outputs
    picks = [sampler(scores, recent, gen) for _ in range(300)]
    assert 0 not in picks and set(picks) <= set(range(50))
    assert {1, 2, 3} <= set(picks)  # resampled from the full distribution minus token 0
    old = [0] + [9] * 10  # token 0 is 11 steps back: outside the window
    assert all(sampler(scores, old, gen) == 0 for _ in range(50))
    assert scores[0] > -1  # the caller's scores are not modified


def test_sampling_is_deterministic_for_a_seed() -> None:
    sampler = RasSampler()
    scores = torch.randn(6564, generator=torch.Generator().manual_seed(3)).log_softmax(-1)

    def run(seed: int) -> list[int]:
        gen, out = torch.Generator().manual_seed(seed), []
        for _ in range(40):
            out.append(sampler(scores, out, gen))
        return out

    assert run(7) == run(7) and run(7) != run(8)
    assert greedy_sampler(scores, [], torch.Generator()) == int(scores.argmax())
    masked = scores.clone()
    masked[int(scores.argmax())] = -float("inf")
    gen = torch.Generator().manual_seed(0)
    assert all(random_sample(masked, gen) != int(scores.argmax()) for _ in range(100))


# ---- loading errors ---------------------------------------------------------------------


def _copy_release(src: Path, dst: Path) -> Path:
    """A writable copy of a tiny release: symlinks for big files, real copies of config files."""
    dst.mkdir()
    for item in src.iterdir():
        if item.name in ("CosyVoice-BlankEN", "reference"):
            continue
        (dst / item.name).symlink_to(item)
    (dst / "CosyVoice-BlankEN").mkdir()
    for item in (src / "CosyVoice-BlankEN").iterdir():
        if item.name == "config.json":
            shutil.copy(item, dst / "CosyVoice-BlankEN" / item.name)
        else:
            (dst / "CosyVoice-BlankEN" / item.name).symlink_to(item)
    return dst


@pytest.mark.conformance
def test_config_json_disagreeing_with_llm_pt(cv2_dir: Path, tmp_path: Path) -> None:
    folder = _copy_release(cv2_dir, tmp_path / "release")
    cfg_path = folder / "CosyVoice-BlankEN" / "config.json"
    data = json.loads(cfg_path.read_text())
    data.update(num_hidden_layers=3, intermediate_size=48)
    cfg_path.write_text(json.dumps(data))
    with pytest.raises(ConfigMismatchError) as err:
        load_llm(load_model_config(folder))
    msg = str(err.value)
    assert "config.json" in msg and "llm.pt" in msg
    assert "config.json says num_hidden_layers=3, llm.pt has 2" in msg
    assert "config.json says intermediate_size=48, llm.pt has 32" in msg


@pytest.mark.conformance
def test_missing_key_is_listed(cv2_dir: Path, tmp_path: Path) -> None:
    folder = _copy_release(cv2_dir, tmp_path / "release")
    sd = torch.load(cv2_dir / "llm.pt", map_location="cpu", weights_only=True)
    del sd["llm.model.model.layers.1.mlp.up_proj.weight"], sd["llm_decoder.bias"]
    (folder / "llm.pt").unlink()
    torch.save(sd, folder / "llm.pt")
    with pytest.raises(StateDictMismatchError, match="missing keys") as err:
        load_llm(load_model_config(folder))
    assert "qwen.layers.1.mlp.up_proj.weight" in str(err.value) and "llm_decoder.bias" in str(err.value)


@pytest.mark.conformance
def test_loaded_model_shares_checkpoint_memory(cv2_dir: Path) -> None:
    model = load_llm(load_model_config(cv2_dir))
    assert not model.training and all(p.device.type == "cpu" for p in model.parameters())
    names = {n for n, _ in model.named_parameters()}
    assert "qwen.embed_tokens.weight" in names and not any("lm_head" in n for n in names)
    n_params = sum(p.numel() for p in model.parameters())
    assert n_params == 5083348 - 151936 * 16  # the manifest's count, less the tied lm_head
