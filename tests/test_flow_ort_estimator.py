"""The CosyVoice2 flow estimator through its ONNX Runtime graph (cosycore.flow.ort_estimator, ort_build).

The tiny conformance U-Net is exported as the engine exports the release's; its calls must equal
torch's up to float rounding: uncached and streamed calls, the CFG pair, cached calls (against a
torch cache stored in float16 as the graph's is), a cached stream (prompt template, frozen cache,
final call; against torch's float32 cache, so up to float16 rounding) and the original's recorded flow
calls at the conformance tolerances. Then the build-once cache.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore import graph_cache
from cosycore.config import load_model_config
from cosycore.conformance.flow import check_flow_reference
from cosycore.flow import FlowModel, load_flow, ort_build
from cosycore.flow.ort_estimator import GRAPH_FILE, KV_DTYPE, OrtEstimator, use_graph
from cosycore.flow.unet import CausalConditionalDecoder
from cosycore.perf import quality_options
from cosycore.token2wav import StreamSchedule, Token2WavStream, prompt_flow_cache
from tests.flow_graph_checks import cached_calls_both_ways

pytestmark = pytest.mark.usefixtures("single_thread")


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory,
                cv2_dir: Path) -> tuple[Path, FlowModel, ort_build.EstimatorGraphJob]:
    """The engine's first build of the tiny U-Net's graph into an empty cache (in a process of its own, as
    the engine runs it), once for the module: the graph the tests below run is the one it exported.
    Returns the home folder, the flow the build was attached to, and its job."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COSY_STUDIO_HOME", str(home))
        flow = load_flow(load_model_config(cv2_dir), device="cpu")
        assert isinstance(flow.decoder.estimator, CausalConditionalDecoder)
        assert ort_build.attach_estimator_graph(flow, cv2_dir, threads=1) is None  # tiny: torch is as fast
        job = ort_build.attach_estimator_graph(flow, cv2_dir, threads=1, force=True)
        assert job is not None and job.wait(600), job.error
    return home, flow, job


@pytest.fixture(scope="module")
def graph(first_build: tuple[Path, FlowModel, ort_build.EstimatorGraphJob]) -> Path:
    return first_build[2].dest / GRAPH_FILE


def _flows(cv2_dir: Path, graph: Path) -> tuple[FlowModel, FlowModel]:
    """The torch flow and one whose estimator runs through the graph (same weights)."""
    cfg = load_model_config(cv2_dir)
    ort_flow = load_flow(cfg, device="cpu")
    use_graph(ort_flow, graph, threads=1)
    return load_flow(cfg, device="cpu"), ort_flow


def _inputs_of(est: CausalConditionalDecoder, batch: int, frames: int, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    c = est.final_proj.out_channels
    return [torch.randn(batch, c, frames, generator=g), torch.ones(batch, 1, frames),
            torch.randn(batch, c, frames, generator=g), torch.rand(batch, generator=g),
            torch.randn(batch, c, generator=g), torch.randn(batch, c, frames, generator=g)]


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("batch", [1, 2])
def test_an_uncached_call_equals_torchs(cv2_dir: Path, graph: Path, streaming: bool, batch: int) -> None:
    torch_flow, _ = _flows(cv2_dir, graph)
    est = torch_flow.decoder.estimator
    assert isinstance(est, CausalConditionalDecoder)
    runner = OrtEstimator(graph, est, threads=1)
    frames = 3 * est.cfg.static_chunk_size + 7  # not a whole number of chunks
    args = _inputs_of(est, batch, frames, seed=batch)
    with torch.inference_mode():
        want = est(*args, streaming)
    got = runner(*args, streaming)
    assert got.shape == want.shape
    assert float((got - want).abs().max()) < 1e-5
    assert runner.calls == 1


def test_cached_calls_fill_the_same_state_as_torch(cv2_dir: Path, graph: Path) -> None:
    torch_flow, _ = _flows(cv2_dir, graph)
    est = torch_flow.decoder.estimator
    assert isinstance(est, CausalConditionalDecoder)
    runner = OrtEstimator(graph, est, threads=1)
    chunk = est.cfg.static_chunk_size
    ours, theirs = cached_calls_both_ways(est, runner, lambda frames, seed: _inputs_of(est, 2, frames, seed), chunk)
    attn = [m for m in est.modules() if m in theirs._kv]
    assert attn and all(ours.kv(m).length == theirs.kv(m).length == 3 * chunk for m in attn)
    for m in attn:
        n = theirs.kv(m).length
        k_ours, k_theirs = ours.kv(m).k, theirs.kv(m).k
        assert k_ours is not None and k_theirs is not None
        assert k_ours.dtype == KV_DTYPE
        torch.testing.assert_close(k_ours[:, :, :n].float(), k_theirs[:, :, :n].float(), atol=2e-3, rtol=1e-3)
    assert set(ours._history) == set(theirs._history)
    for m, h in theirs._history.items():
        torch.testing.assert_close(ours._history[m], h, atol=1e-4, rtol=1e-4)  # deep activations, ~10


@pytest.mark.parametrize("quality", ["exact", "draft"])
def test_a_cached_stream_equals_torchs(cv2_dir: Path, graph: Path, quality: str) -> None:
    """The engine's stream: the voice's prompt template, then cached hops, then the final call; with a
    bound small enough that the cache freezes part way (the frozen re-run path)."""
    torch_flow, ort_flow = _flows(cv2_dir, graph)
    cfg = load_model_config(cv2_dir)
    opts = quality_options(quality, "cpu")
    g = torch.Generator().manual_seed(3)
    ptok = torch.randint(0, cfg.flow.vocab_size, (1, 11), generator=g, dtype=torch.int32)
    feat = torch.randn(1, 2 * 11, cfg.flow.output_size, generator=g)
    emb = torch.randn(1, cfg.flow.spk_embed_dim, generator=g)
    tokens = torch.randint(0, cfg.flow.vocab_size, (90,), generator=g).tolist()

    def stream(flow: FlowModel, limit: int | None) -> tuple[torch.Tensor, bool]:
        schedule = StreamSchedule(chunk=cfg.chunk_size, lookahead=cfg.flow.pre_lookahead_len)
        st = Token2WavStream(flow=flow, vocoder=_Null(), prompt_token=ptok, prompt_feat=feat, embedding=emb,
                             token_mel_ratio=cfg.token_mel_ratio, schedule=schedule, n_steps=opts.flow.n_steps,
                             cfg_rate=opts.flow.cfg_rate, flow_cache="full", record_calls=True,
                             cache_limit_bytes=limit)
        with torch.inference_mode():
            st.prompt_cache = prompt_flow_cache(flow, ptok, feat, emb, schedule=schedule, n_steps=opts.flow.n_steps,
                                                cfg_rate=opts.flow.cfg_rate)
            for t in tokens:
                list(st.push(t))
            st.finish()
        return torch.cat([c.mel for c in st.calls if c.mel is not None], dim=2), st.cache_overflowed

    for limit in (None, 200_000):
        want, froze = stream(torch_flow, limit)
        got, froze_too = stream(ort_flow, limit)
        assert froze == froze_too == (limit is not None)
        assert got.shape == want.shape
        # the graph's cache is float16, torch's float32: 3e-4 apart on this model's mel of about 1
        assert float((got - want).abs().max()) < 2e-3, limit
    runner = ort_flow.decoder.runtime_estimator
    assert isinstance(runner, OrtEstimator) and runner.calls > 0


class _Null:
    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return np.zeros(0, dtype=np.float32)


@pytest.mark.conformance
def test_the_graph_meets_the_conformance_tolerances(cv2_dir: Path, graph: Path) -> None:
    """Every recorded flow call of the original (non-streamed, streamed chunks, final) through the graph."""
    manifest = json.loads((cv2_dir / "reference" / "manifest.json").read_text(encoding="utf-8"))
    runners: list[OrtEstimator] = []
    results = check_flow_reference(cv2_dir, cv2_dir / "reference" / "flow.npz", manifest,
                                   prepare=lambda flow: runners.append(use_graph(flow, graph, threads=1)))
    assert results and all(r.passed for r in results), [str(r) for r in results if not r.passed]
    assert any(".est0.out" in r.name for r in results)
    assert runners and runners[0].calls > 0


def test_autocast_calls_keep_torchs_estimator(cv2_dir: Path, graph: Path) -> None:
    _, flow = _flows(cv2_dir, graph)
    runner = flow.decoder.runtime_estimator
    assert isinstance(runner, OrtEstimator)
    cfg = load_model_config(cv2_dir)
    g = torch.Generator().manual_seed(5)
    tok = torch.randint(0, cfg.flow.vocab_size, (1, 30), generator=g, dtype=torch.int32)
    ptok = torch.randint(0, cfg.flow.vocab_size, (1, 8), generator=g, dtype=torch.int32)
    feat = torch.randn(1, 16, cfg.flow.output_size, generator=g)
    emb = torch.randn(1, cfg.flow.spk_embed_dim, generator=g)
    with torch.inference_mode():
        flow.inference(tok, ptok, feat, emb, streaming=False, finalize=True, n_steps=2, cfg_rate=0.0,
                       autocast=torch.bfloat16)
    assert runner.calls == 0
    with torch.inference_mode():
        flow.inference(tok, ptok, feat, emb, streaming=False, finalize=True, n_steps=2, cfg_rate=0.0)
    assert runner.calls == 2


def test_a_graph_of_another_flow_is_refused(tmp_path: Path, cv2_dir: Path, graph: Path) -> None:
    flow = load_flow(load_model_config(cv2_dir), device="cpu")
    est = flow.decoder.estimator
    assert isinstance(est, CausalConditionalDecoder)
    est.mid_blocks = est.mid_blocks[:-1]  # one stage less: fewer state inputs
    with pytest.raises(ValueError, match="not an estimator graph of this flow"):
        OrtEstimator(graph, est, threads=1)


def test_a_failed_build_leaves_no_folder(tmp_path: Path) -> None:
    dest = tmp_path / "graphs" / "key"

    def broken(folder: Path) -> None:
        folder.mkdir()
        (folder / "half.onnx").write_bytes(b"x")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError, match="export failed"):
        graph_cache.build_folder(broken, dest, GRAPH_FILE)
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_the_engine_builds_once_then_attaches_from_the_cache(
        first_build: tuple[Path, FlowModel, ort_build.EstimatorGraphJob], cv2_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    home, flow, job = first_build  # built in the background into an empty cache
    monkeypatch.setenv("COSY_STUDIO_HOME", str(home))
    folder = job.dest
    assert folder.parent == ort_build.graphs_dir() and (folder / GRAPH_FILE).is_file()
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no partial folder left
    assert flow.decoder.runtime_estimator is job.runner
    stamp = os.stat(folder / GRAPH_FILE).st_mtime_ns
    again = load_flow(load_model_config(cv2_dir), device="cpu")
    job2 = ort_build.attach_estimator_graph(again, cv2_dir, threads=1, force=True)
    assert job2 is not None and job2.ready  # attached at once: no second build
    assert os.stat(folder / GRAPH_FILE).st_mtime_ns == stamp
    # built in the background, the torch weights stay (a request may run on them); attached at load they go
    assert not flow.decoder.estimator_released
    assert again.decoder.estimator_released
    assert all(p.is_meta for p in again.decoder.estimator.parameters())
    cfg = load_model_config(cv2_dir)
    g = torch.Generator().manual_seed(7)
    tok = torch.randint(0, cfg.flow.vocab_size, (1, 30), generator=g, dtype=torch.int32)
    ptok = torch.randint(0, cfg.flow.vocab_size, (1, 8), generator=g, dtype=torch.int32)
    feat = torch.randn(1, 16, cfg.flow.output_size, generator=g)
    emb = torch.randn(1, cfg.flow.spk_embed_dim, generator=g)
    with torch.inference_mode():
        want = flow.inference(tok, ptok, feat, emb, streaming=False, finalize=True)
        got = again.inference(tok, ptok, feat, emb, streaming=False, finalize=True)
        # an autocast call runs the graph too (in float32) once torch's weights are gone
        again.inference(tok, ptok, feat, emb, streaming=False, finalize=True, autocast=torch.bfloat16)
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
