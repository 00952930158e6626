"""Speed modes against the exact ones: int8 LM, flow chunk cache, draft flow, warm-up.

Each test states the numerical agreement it expects; none measures speed (that is bench/).
All run on the tiny conformance models with one torch thread.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.config import load_model_config
from cosycore.flow import load_flow
from cosycore.flow.base import FlowModel
from cosycore.flow.cache import FlowCache, KVBuffer, StepCache
from cosycore.lm.load import load_llm
from cosycore.lm.quant import int8_per_channel, logit_agreement
from cosycore.lm.speech_lm import SpeechLM
from cosycore.model import CosyModel
from cosycore.perf import DRAFT_FLOW, warm_up
from cosycore.testing.flow_inputs import random_flow_inputs
from cosycore.token2wav import StreamSchedule, Token2WavStream, prompt_flow_cache

pytestmark = pytest.mark.usefixtures("single_thread")

CACHE_ATOL = 1e-5  # cached vs uncached streaming=True frames (float rounding only)
# int8 LM on the tiny models (measured: rms 0.4-1.4 %, max 1.7 %, top-1 93-100 %, KL < 6e-5 nats)
INT8_RMS_REL = 0.03  # ||logits - float32 logits|| / ||float32 logits||
INT8_MAX_REL = 0.05  # max |logit error| / max |float32 logit|
INT8_TOP1 = 0.85  # same greedy pick, given the same prefix
INT8_KL = 1e-3  # mean KL(float32 || int8), nats


@pytest.fixture(scope="module", params=["cosyvoice2", "cosyvoice3"])
def family_dir(request: pytest.FixtureRequest, cv2_dir: Path, cv3_dir: Path) -> Path:
    return cv2_dir if request.param == "cosyvoice2" else cv3_dir


@pytest.fixture(scope="module", params=["cosyvoice2", "cosyvoice3"])
def tiny_dir(request: pytest.FixtureRequest) -> Path:
    """The family's tiny release folder. The cache, template, draft and warm-up checks below compare the
    flow with itself, whatever its widths; the conformance folder's CosyVoice2 flow keeps the original's
    512-wide encoder (58 MB) and costs several times more per call."""
    return request.getfixturevalue("tiny_cv2_model" if request.param == "cosyvoice2" else "tiny_cv3_model")


@pytest.fixture(scope="module")
def flow(tiny_dir: Path) -> FlowModel:
    return load_flow(load_model_config(tiny_dir))


@pytest.fixture(scope="module")
def lm(family_dir: Path) -> SpeechLM:
    return load_llm(load_model_config(family_dir))


def _release_calls(prompt: int, generated: int) -> list[tuple[int, int]]:
    """(token_offset, tokens given) of the streamed calls of the release schedule."""
    sched = StreamSchedule()
    calls, off, hop = [], 0, sched.chunk
    while True:
        this = hop + (sched.prompt_pad(prompt) if off == 0 else 0)
        if off + this + sched.lookahead > generated:
            return calls
        calls.append((off, off + this + sched.lookahead))
        off, hop = off + this, sched.next_hop(hop)


# --------------------------------------------------------------------------------------------
# int8 LM
# --------------------------------------------------------------------------------------------


def test_int8_per_channel_round_trip() -> None:
    w = torch.randn(37, 19)
    w[3] = 0.0
    q, scale = int8_per_channel(w)
    assert q.dtype == torch.int8 and scale.shape == (37,)
    assert int(q.abs().max()) <= 127 and float(scale[3]) == 1.0
    err = (q.float() * scale[:, None] - w).abs()
    assert bool((err <= scale[:, None] / 2 + 1e-7).all())  # at most half a step per weight


@pytest.mark.parametrize("mode", ["int8", "int8-weight-only"])
def test_int8_logits_follow_float32(lm: SpeechLM, mode: str) -> None:
    g = torch.Generator().manual_seed(5)
    text = torch.randint(0, 5000, (30,), generator=g).tolist()
    ptext = [*torch.randint(0, 5000, (20,), generator=g).tolist(), 151646]
    pspeech = torch.randint(0, 6561, (40,), generator=g).tolist()
    n = 120
    with torch.inference_mode():
        lm_input = lm.build_lm_input(text, ptext, pspeech)
        greedy = list(lm.generate(text, ptext, pspeech, greedy=True, min_len=n, max_len=n))
        ref = lm.teacher_force(lm_input, greedy[:-1], min_len=0).logits
    q = copy.deepcopy(lm)
    q.quantize_int8(mode)
    assert q.quantization == mode and lm.quantization is None
    with torch.inference_mode():
        logits = q.teacher_force(q.build_lm_input(text, ptext, pspeech), greedy[:-1], min_len=0).logits
    agree = logit_agreement(ref, logits)
    assert agree.rms_rel < INT8_RMS_REL, agree.summary()
    assert agree.max_rel < INT8_MAX_REL, agree.summary()
    assert agree.top1 >= INT8_TOP1, agree.summary()
    assert agree.kl_mean < INT8_KL, agree.summary()
    with pytest.raises(ValueError, match="already quantized"):
        q.quantize_int8(mode)


def test_fused_projections_give_the_same_outputs(lm: SpeechLM) -> None:
    """q/k/v and gate/up fused into one matrix each (done before int8): the same numbers, in float32
    and through the int8 kernel (whose input scale is per call, so one call or three see the same)."""
    from cosycore.lm.quant import DynamicInt8Linear
    from cosycore.lm.qwen2 import concat_linears

    g = torch.Generator().manual_seed(1)
    lm_input = torch.randn(1, 24, lm.cfg.qwen.hidden_size, generator=g)
    with torch.inference_mode():
        ref = lm(lm_input)
        fused = copy.deepcopy(lm)
        for layer in fused.qwen.layers:
            layer.self_attn.fuse()
            layer.mlp.fuse()
        assert not hasattr(fused.qwen.layers[0].self_attn, "q_proj")
        torch.testing.assert_close(fused(lm_input), ref, rtol=0, atol=1e-5)
        attn = lm.qwen.layers[0].self_attn
        x = torch.randn(5, attn.q_proj.in_features, generator=g)
        one = DynamicInt8Linear(concat_linears(attn.q_proj, attn.k_proj, attn.v_proj))(x)
        three = torch.cat([DynamicInt8Linear(p)(x) for p in (attn.q_proj, attn.k_proj, attn.v_proj)], dim=-1)
        assert torch.equal(one, three)


def test_unknown_quant_mode_is_refused(lm: SpeechLM) -> None:
    with pytest.raises(ValueError, match="int8-weight-only"):
        copy.deepcopy(lm).quantize_int8("int4")


def test_load_llm_quantize_option(cv2_dir: Path) -> None:
    exact = load_llm(load_model_config(cv2_dir))
    quant = load_llm(load_model_config(cv2_dir), quantize="int8")
    assert exact.quantization is None and quant.quantization == "int8"
    x = exact.build_lm_input([1, 2, 3], None, None)
    with torch.inference_mode():
        a, b = exact(x), quant(quant.build_lm_input([1, 2, 3], None, None))
    assert torch.allclose(a, b, rtol=0.05, atol=0.05 * float(a.abs().max()))


# --------------------------------------------------------------------------------------------
# Flow chunk cache
# --------------------------------------------------------------------------------------------


def test_kv_buffer_grows_and_keeps_history() -> None:
    buf = KVBuffer()
    parts = [torch.randn(2, 3, n, 4) for n in (5, 70, 1, 130)]
    for i, p in enumerate(parts):
        k, v = buf.append(p, -p)
        want = torch.cat(parts[: i + 1], dim=2)
        assert torch.equal(k, want) and torch.equal(v, -want)
    assert buf.length == 206 and buf.k is not None and buf.k.shape[2] % 64 == 0


@pytest.mark.parametrize("prompt", [0, 17])
def test_flow_cache_reproduces_uncached_streaming(flow: FlowModel, prompt: int) -> None:
    generated = 190  # three streamed calls (hops 25 + pad, 50, 100) and the final one
    tok, pt, feat, emb = random_flow_inputs(prompt, generated)
    cache = FlowCache()
    calls = _release_calls(prompt, generated)
    assert len(calls) >= 3
    for off, end in calls:
        want = flow.inference(tok[:, :end], pt, feat, emb, streaming=True, finalize=False)[:, :, 2 * off :]
        got = flow.inference_cached(tok[:, :end], pt, feat, emb, cache=cache, finalize=False)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, atol=CACHE_ATOL, rtol=0)
    final_off = cache.tokens - prompt
    want = flow.inference(tok, pt, feat, emb, streaming=True, finalize=True)[:, :, 2 * final_off :]
    got = flow.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True)
    torch.testing.assert_close(got, want, atol=CACHE_ATOL, rtol=0)
    assert cache.finished
    with pytest.raises(ValueError, match="already finished"):
        flow.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True)


def test_flow_cache_with_draft_settings(flow: FlowModel) -> None:
    tok, pt, feat, emb = random_flow_inputs(20, 120)
    cache = FlowCache()
    for off, end in _release_calls(20, 120):
        want = flow.inference(tok[:, :end], pt, feat, emb, streaming=True, finalize=False, n_steps=3,
                              cfg_rate=0.0)[:, :, 2 * off :]
        got = flow.inference_cached(tok[:, :end], pt, feat, emb, cache=cache, finalize=False, n_steps=3,
                                    cfg_rate=0.0)
        torch.testing.assert_close(got, want, atol=CACHE_ATOL, rtol=0)
    with pytest.raises(ValueError, match="3 steps"):
        flow.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True)  # the release's 10 steps


def test_flow_cache_refuses_a_call_off_the_chunk_grid(flow: FlowModel) -> None:
    tok, pt, feat, emb = random_flow_inputs(10, 60)
    with pytest.raises(ValueError, match="chunk boundary"):
        flow.inference_cached(tok[:, :30], pt, feat, emb, cache=FlowCache(), finalize=False)


def _run_stream(flow: FlowModel, mode: str, prompt: int, generated: int, **options) -> Token2WavStream:
    tok, pt, feat, emb = random_flow_inputs(prompt, generated, seed=3)

    class _NoVocoder:
        def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
            return np.zeros(mel.shape[2], dtype=np.float32)

    stream = Token2WavStream(flow=flow, vocoder=_NoVocoder(), prompt_token=pt, prompt_feat=feat, embedding=emb,
                             flow_cache=mode, record_calls=True, **options)  # type: ignore[arg-type]
    for t in tok[0].tolist():
        list(stream.push(t))
    stream.finish()
    return stream


@pytest.fixture(scope="module")
def stream_of(flow: FlowModel) -> Callable[[str], Token2WavStream]:
    """The 23 + 200-token stream in each cache mode, run once per flow for the tests that only read it."""
    made: dict[str, Token2WavStream] = {}

    def get(mode: str) -> Token2WavStream:
        if mode not in made:
            made[mode] = _run_stream(flow, mode, 23, 200)
        return made[mode]

    return get


def test_stream_cache_modes_against_the_exact_stream(stream_of: Callable[[str], Token2WavStream]) -> None:
    exact, chunks, full = stream_of("off"), stream_of("chunks"), stream_of("full")
    assert exact.cache is None and chunks.cache is None and full.cache is None
    for a, b, c in zip(exact.calls[:-1], chunks.calls[:-1], full.calls[:-1]):
        assert a.token_end == b.token_end == c.token_end and a.streaming and b.streaming and c.streaming
        torch.testing.assert_close(b.mel, a.mel, atol=CACHE_ATOL, rtol=0)
        torch.testing.assert_close(c.mel, a.mel, atol=CACHE_ATOL, rtol=0)
    # "chunks" keeps the exact final call; "full" makes it a cached chunk-causal one.
    assert not chunks.calls[-1].streaming and torch.equal(chunks.calls[-1].mel, exact.calls[-1].mel)
    last = full.calls[-1]
    assert last.streaming and last.finalize and last.mel is not None
    assert exact.calls[-1].mel is not None and last.mel.shape == exact.calls[-1].mel.shape


@pytest.mark.parametrize(("prompt", "cached"), [(60, 50), (53, 50), (77, 50), (27, 0)])
def test_prompt_template_gives_the_same_stream(flow: FlowModel, prompt: int, cached: int) -> None:
    # 110 generated tokens: two streamed calls (the first one starts from the template, the second goes on
    # from the cache) and the final one, for each prompt length
    generated = 110
    _, pt, feat, emb = random_flow_inputs(prompt, generated, seed=3)  # the inputs _run_stream uses
    template = prompt_flow_cache(flow, pt, feat, emb, schedule=StreamSchedule())
    if not cached:  # 27 tokens: the first chunk's look-ahead would be generated tokens
        assert template is None
        return
    assert template is not None and template.tokens == cached and template.frames == 2 * cached
    size = template.nbytes()
    plain = _run_stream(flow, "chunks", prompt, generated)
    warm = _run_stream(flow, "chunks", prompt, generated, prompt_cache=template)
    again = _run_stream(flow, "full", prompt, generated, prompt_cache=template)
    assert template.tokens == cached and template.nbytes() == size  # streams work on clones
    assert len(plain.calls) == len(warm.calls) == 3
    for a, b, c in zip(plain.calls, warm.calls, again.calls):
        assert a.token_end == b.token_end == c.token_end
        torch.testing.assert_close(b.mel, a.mel, atol=CACHE_ATOL, rtol=0)
    for a, c in zip(plain.calls[:-1], again.calls[:-1]):
        torch.testing.assert_close(c.mel, a.mel, atol=CACHE_ATOL, rtol=0)
    assert torch.equal(warm.calls[-1].mel, plain.calls[-1].mel)  # "chunks": the exact final call either way


def _kv_lengths(cache: FlowCache) -> list[int]:
    return [buf.length for state in (cache.encoder, *cache.steps) for buf in state._kv.values()]


def test_the_last_cached_call_keeps_nothing(flow: FlowModel, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stream's last call reads the cached states and adds none (nothing would read them): the
    buffers do not grow for it, and its frames are those of a last call that keeps them, bit for bit."""
    tok, pt, feat, emb = random_flow_inputs(20, 120)

    def last_call(cache: FlowCache) -> tuple[torch.Tensor, list[int]]:
        for _, end in _release_calls(20, 120):
            flow.inference_cached(tok[:, :end], pt, feat, emb, cache=cache, finalize=False)
        streamed = _kv_lengths(cache)
        return flow.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True), streamed

    cache = FlowCache()
    mel, streamed = last_call(cache)
    assert _kv_lengths(cache) == streamed and min(streamed) > 0
    monkeypatch.setattr(StepCache, "keys_values", lambda self, m, k, v: self.kv(m).append(k, v))  # keep them
    kept = FlowCache()
    mel_kept, _ = last_call(kept)
    assert torch.equal(mel_kept, mel)
    assert all(a > b for a, b in zip(_kv_lengths(kept), streamed, strict=True))


def test_a_prompt_template_keeps_no_spare_capacity(flow: FlowModel) -> None:
    _, pt, feat, emb = random_flow_inputs(60, 10, seed=3)
    template = prompt_flow_cache(flow, pt, feat, emb, schedule=StreamSchedule())
    assert template is not None
    bufs = [buf for state in (template.encoder, *template.steps) for buf in state._kv.values()]
    assert bufs and all(buf.k is not None and buf.k.shape[2] == buf.length > 0 for buf in bufs)
    assert max(buf.length for buf in bufs) == 2 * 50  # the estimators' frames of the first 50 prompt tokens


def test_flow_cache_past_its_bound_stops_growing_and_stays_on(flow: FlowModel,
                                                             stream_of: Callable[[str], Token2WavStream]) -> None:
    exact, full = stream_of("off"), stream_of("full")
    # a bound the first streamed call passes: the estimator states freeze there, later calls re-run
    # only the frames after them, and every call still equals the exact one up to float rounding
    bounded = _run_stream(flow, "chunks", 23, 200, cache_limit_bytes=1)
    assert bounded.cache_overflowed and bounded.cache is None  # frozen, then freed at the end
    assert [c.token_end for c in bounded.calls] == [c.token_end for c in exact.calls]
    assert all(c.streaming for c in bounded.calls[:-1]) and len(bounded.calls) > 3
    for a, b in zip(exact.calls[:-1], bounded.calls[:-1]):
        torch.testing.assert_close(b.mel, a.mel, atol=CACHE_ATOL, rtol=0)
    assert torch.equal(bounded.calls[-1].mel, exact.calls[-1].mel)  # "chunks": the exact final call
    frozen_full = _run_stream(flow, "full", 23, 200, cache_limit_bytes=1)
    assert frozen_full.cache_overflowed and frozen_full.calls[-1].streaming  # the cached final call too
    for a, b in zip(full.calls, frozen_full.calls):
        torch.testing.assert_close(b.mel, a.mel, atol=CACHE_ATOL, rtol=0)
    roomy = _run_stream(flow, "full", 23, 200, cache_limit_bytes=10**12)
    assert not roomy.cache_overflowed and roomy.calls[-1].streaming  # within the bound: never frozen


def test_a_frozen_flow_cache_keeps_its_estimator_states_as_they_were(flow: FlowModel) -> None:
    tok, pt, feat, emb = random_flow_inputs(23, 200, seed=3)
    cache = FlowCache()
    ends = [27 + 3, 77 + 3, 177 + 3]  # streamed calls ending on 25-token chunks of prompt + generated
    flow.inference_cached(tok[:, : ends[0]], pt, feat, emb, cache=cache, finalize=False)
    cache.freeze()
    def step_lengths() -> list[int]:
        return [buf.length for state in cache.steps for buf in state._kv.values()]

    lengths = step_lengths()
    frames = cache.frames
    for end in ends[1:]:
        flow.inference_cached(tok[:, :end], pt, feat, emb, cache=cache, finalize=False)
        assert step_lengths() == lengths and cache.frames == frames  # the steps do not grow
        assert cache.tokens == 23 + end - 3 and cache.mu_tail is not None
        assert cache.mu_tail.shape[2] == 2 * cache.tokens - frames  # the frames re-run next time


def test_full_cache_without_streamed_chunks_uses_the_exact_final_call(flow: FlowModel) -> None:
    stream = _run_stream(flow, "full", 30, 20)  # too short for a streamed chunk
    assert [c.streaming for c in stream.calls] == [False]


def test_exact_mode_is_the_default() -> None:
    stream = Token2WavStream(flow=object(), vocoder=object(), prompt_token=torch.zeros(1, 0, dtype=torch.int32),
                             prompt_feat=torch.zeros(1, 0, 80), embedding=torch.zeros(1, 192))  # type: ignore[arg-type]
    assert stream.flow_cache == "off" and stream.n_steps is None and stream.cfg_rate is None
    with pytest.raises(ValueError, match="flow_cache"):
        Token2WavStream(flow=object(), vocoder=object(), prompt_token=torch.zeros(1, 0, dtype=torch.int32),
                        prompt_feat=torch.zeros(1, 0, 80), embedding=torch.zeros(1, 192),
                        flow_cache="sometimes")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Draft flow, warm-up
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("steps", [2, 3, 4])
def test_draft_flow_gives_finite_mel_of_the_right_length(flow: FlowModel, steps: int) -> None:
    tok, pt, feat, emb = random_flow_inputs(15, 40)
    mel = flow.inference(tok, pt, feat, emb, streaming=False, finalize=True, n_steps=steps, cfg_rate=0.0)
    assert mel.shape == (1, 80, 2 * 40) and bool(torch.isfinite(mel).all())
    mel = flow.inference(tok, pt, feat, emb, streaming=True, finalize=False, n_steps=steps, cfg_rate=0.0)
    assert mel.shape == (1, 80, 2 * 37) and bool(torch.isfinite(mel).all())


def test_bf16_estimator_autocast_stays_close_to_float32(flow: FlowModel) -> None:
    tok, pt, feat, emb = random_flow_inputs(15, 60)
    ref = flow.inference(tok, pt, feat, emb, streaming=False, finalize=True)
    mel = flow.inference(tok, pt, feat, emb, streaming=False, finalize=True, autocast=torch.bfloat16)
    assert mel.dtype == torch.float32 and mel.shape == ref.shape and bool(torch.isfinite(mel).all())
    diff = (mel - ref).abs()
    # measured on the tiny models: max 0.016-0.033, rms 0.003-0.007 (mel rms about 1.3)
    assert float(diff.max()) < 0.15 and float(diff.pow(2).mean().sqrt()) < 0.03
    cache = FlowCache()
    off, end = _release_calls(15, 60)[0]
    got = flow.inference_cached(tok[:, :end], pt, feat, emb, cache=cache, finalize=False, autocast=torch.bfloat16)
    want = flow.inference(tok[:, :end], pt, feat, emb, streaming=True, finalize=False, autocast=torch.bfloat16)
    assert float((got - want[:, :, 2 * off :]).abs().max()) < 0.15
    with pytest.raises(ValueError, match="autocast"):
        flow.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True)  # float32 this time


def test_warm_up_leaves_the_model_as_it_was(tiny_dir: Path) -> None:
    model = CosyModel.load(tiny_dir, device="cpu")
    tok, pt, feat, emb = random_flow_inputs(10, 30)
    before = model.flow.inference(tok, pt, feat, emb, streaming=False, finalize=True)
    params = {k: v.clone() for k, v in model.flow.state_dict().items()}
    assert warm_up(model, flow=DRAFT_FLOW, flow_cache="full") > 0
    assert warm_up(model) > 0
    after = model.flow.inference(tok, pt, feat, emb, streaming=False, finalize=True)
    assert torch.equal(before, after)
    assert all(torch.equal(v, model.flow.state_dict()[k]) for k, v in params.items())


# -- the quality modes the engine, the CLI and the app offer --------------------------------------


def test_quality_options_map_onto_the_speed_levers() -> None:
    from cosycore.cli.common import QUALITY_CHOICES as CLI_MODES
    from cosycore.perf import QUALITY_MODES, quality_options

    assert QUALITY_MODES == ("exact", "fast", "draft") and ("auto", *QUALITY_MODES) == CLI_MODES
    exact, fast, draft = (quality_options(q, "cpu") for q in QUALITY_MODES)
    assert exact.exact and not exact.warm_up
    assert (fast.llm_quant, fast.flow_cache, fast.flow.exact, fast.warm_up) == ("int8", "chunks", True, False)
    assert (draft.llm_quant, draft.flow_cache) == ("int8", "full")
    assert fast.llm_decode == draft.llm_decode == "ort-int4" and exact.llm_decode is None  # 4-bit decode graph
    assert (draft.flow.n_steps, draft.flow.cfg_rate) == (DRAFT_FLOW.n_steps, 0.0)
    cuda = quality_options("fast", "cuda")
    # int8 kernels and the 4-bit decode graph are CPU levers; warm-up a GPU one
    assert cuda.llm_quant is None and cuda.llm_decode is None and cuda.warm_up
    with pytest.raises(ValueError, match="auto, exact, fast, draft"):
        quality_options("turbo")
    assert quality_options("auto", "cpu") == draft and quality_options("auto", "cuda") == quality_options("exact")


def test_auto_quality_takes_the_best_mode_measured_live() -> None:
    from cosycore.perf import LIVE_RTF, resolve_quality

    assert resolve_quality("auto", "cuda", {"exact": 9.0}) == "exact"  # a GPU: always exact
    assert resolve_quality("auto", "cpu") == "draft"  # nothing measured yet
    assert resolve_quality("auto", "cpu", {"exact": 3.1, "fast": 1.4, "draft": 0.5}) == "draft"
    assert resolve_quality("auto", "cpu", {"exact": 3.1, "fast": LIVE_RTF, "draft": 0.5}) == "fast"
    assert resolve_quality("auto", "cpu", {"exact": 0.6, "fast": None}) == "exact"
    assert resolve_quality("auto", "cpu", {"exact": float("nan"), "fast": -1.0}) == "draft"
    assert resolve_quality("fast", "cpu", {"draft": 0.1}) == "fast"  # a fixed choice stays


def _engine_audio(engine, voice, text: str = "Hello there, this is a test of the modes.") -> np.ndarray:
    from cosycore.engine import SynthesisRequest

    req = SynthesisRequest(text=text, mode="cross_lingual", voice=voice, stream=True, seed=3,
                           min_tokens=60, max_tokens=60)
    return np.concatenate([c.samples for c in engine.synthesize(req)])


def test_engine_quality_modes(tiny_cv2_model: Path, cv2_engine, espeak_wav: Path) -> None:
    from cosycore.engine import Engine
    from cosycore.lm.quant import DynamicInt8Linear, WeightOnlyInt8Linear

    int8_types = (DynamicInt8Linear, WeightOnlyInt8Linear)
    exact = cv2_engine  # Engine(tiny_cv2_model, device="cpu"), loaded once for the run
    voice = exact.create_voice(espeak_wav, name="v", transcript="")
    reference = _engine_audio(exact, voice)
    assert exact.info().quality == "exact" and not any(isinstance(m, int8_types) for m in exact.model.llm.modules())
    assert np.array_equal(_engine_audio(exact, voice), reference)  # same seed, same audio

    fast = Engine(tiny_cv2_model, device="cpu", quality="fast")
    assert fast.info().quality == "fast" and any(isinstance(m, int8_types) for m in fast.model.llm.modules())
    assert exact.text_reading == "original" and fast.text_reading == "improved"  # the default per mode
    audio = _engine_audio(fast, voice)
    assert audio.shape == reference.shape and np.isfinite(audio).all()

    draft = Engine(tiny_cv2_model, device="cpu", quality="draft", text_reading="original")
    assert draft.text_reading == "original"  # asked for, over the mode's default (improved, as in fast)
    audio = _engine_audio(draft, voice)
    assert audio.shape == reference.shape and np.isfinite(audio).all()
    assert not np.array_equal(audio, reference)  # 4 steps without CFG: another mel

    # The voice's prompt frames were cached by the first request and serve the next one.
    entry = draft._prompt_cache_entry
    assert entry is not None and entry[1].tokens > 0
    assert np.array_equal(_engine_audio(draft, voice), audio) and draft._prompt_cache_entry is entry
    draft.perf = replace(draft.perf, prompt_cache=False)
    np.testing.assert_allclose(_engine_audio(draft, voice), audio, atol=1e-4, rtol=0)  # float rounding only


def test_frontend_warm_up_builds_the_filterbanks_before_the_first_request(
        cv2_engine, espeak_wav: Path, espeak_transcript: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mel filterbanks are built in the load-time warm-up, not by the first request (they were librosa's,
    whose first use imports numba: seconds; they are NumPy's now, and still built once per process)."""
    from cosycore.engine import SynthesisRequest
    from cosycore.frontend import features
    from cosycore.perf import warm_up_frontend

    features.slaney_mel_basis.cache_clear()  # as in a fresh process
    warm_up_frontend(cv2_engine.cfg.mel)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a mel filterbank was built during the request")

    monkeypatch.setattr(features, "slaney_mel_filters", refuse)
    request = SynthesisRequest("Hello there.", mode="zero_shot", prompt_audio=espeak_wav,
                               prompt_text=espeak_transcript, seed=1)
    chunks = list(cv2_engine.synthesize(request))  # a new recording: every prompt feature is extracted
    assert chunks and chunks[-1].is_final
