"""The Fun-CosyVoice3 DiT through its ONNX Runtime graph (cosycore.flow.ort_dit, ort_graph, ort_build).

The tiny conformance DiT is exported once for the module, as the engine exports the release's; its
calls must equal torch's up to float rounding: uncached and streamed calls, the CFG pair, cached calls
(against a torch cache stored in float16 as the graph's is), a cached draft stream (the fixed flow's
time table, a prompt template made by torch, a frozen cache, the final call; against torch's float32
cache, so up to float16 rounding) and the original's recorded flow calls at the conformance
tolerances. Then build-once, attach from the cache, and a broken graph leaving torch running.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.config import load_model_config
from cosycore.conformance.flow import check_flow_reference
from cosycore.flow import FlowModel, load_flow, ort_build
from cosycore.flow.dit import DiT
from cosycore.flow.ort_dit import OrtDiT
from cosycore.flow.ort_estimator import GRAPH_FILE, KV_DTYPE, export_flow_graph, flow_graph_key, use_graph
from cosycore.perf import quality_options
from cosycore.token2wav import StreamSchedule, Token2WavStream, prompt_flow_cache
from tests.flow_graph_checks import cached_calls_both_ways

pytestmark = pytest.mark.usefixtures("single_thread")


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, cv3_dir: Path) -> Path:
    return export_flow_graph(load_flow(load_model_config(cv3_dir), device="cpu"),
                             tmp_path_factory.mktemp("dit-graph"))


def _dit(flow: FlowModel) -> DiT:
    est = flow.decoder.estimator
    assert isinstance(est, DiT)
    return est


def _inputs(batch: int, frames: int, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(batch, 80, frames, generator=g), torch.ones(batch, 1, frames),
            torch.randn(batch, 80, frames, generator=g), torch.rand(batch, generator=g),
            torch.randn(batch, 80, generator=g), torch.randn(batch, 80, frames, generator=g)]


def test_uncached_calls_equal_torchs(cv3_dir: Path, graph: Path) -> None:
    dit = _dit(load_flow(load_model_config(cv3_dir), device="cpu"))
    runner = OrtDiT(graph, dit, threads=1)
    frames = 3 * dit.cfg.static_chunk_size + 7  # not a whole number of chunks
    for batch in (1, 2):
        for streaming in (False, True):
            args = _inputs(batch, frames, seed=batch)
            with torch.inference_mode():
                want = dit(*args, streaming)
            got = runner(*args, streaming)
            assert got.shape == want.shape
            assert float((got - want).abs().max()) < 1e-5, (batch, streaming)
    assert runner.calls == 4
    padded = _inputs(1, frames, seed=0)
    padded[1][..., -3:] = 0
    with pytest.raises(ValueError, match="unpadded"):
        runner(*padded, False)


def test_cached_calls_fill_the_same_state_as_torch(cv3_dir: Path, graph: Path) -> None:
    dit = _dit(load_flow(load_model_config(cv3_dir), device="cpu"))
    runner = OrtDiT(graph, dit, threads=1)
    chunk = dit.cfg.static_chunk_size
    ours, theirs = cached_calls_both_ways(dit, runner, lambda frames, seed: _inputs(2, frames, seed=seed), chunk)
    attn = [block.attn for block in dit.transformer_blocks]
    for m in attn:
        assert ours.kv(m).length == theirs.kv(m).length == 3 * chunk
        k_ours, k_theirs, v_ours, v_theirs = ours.kv(m).k, theirs.kv(m).k, ours.kv(m).v, theirs.kv(m).v
        assert k_ours is not None and k_theirs is not None and v_ours is not None and v_theirs is not None
        assert k_ours.dtype == v_ours.dtype == KV_DTYPE
        n = 3 * chunk
        torch.testing.assert_close(k_ours[:, :, :n].float(), k_theirs[:, :, :n].float(), atol=2e-3, rtol=1e-3)
        torch.testing.assert_close(v_ours[:, :, :n].float(), v_theirs[:, :, :n].float(), atol=2e-3, rtol=1e-3)
    pe = dit.input_embed.conv_pos_embed
    assert set(ours._history) == set(theirs._history) == {pe.conv1, pe.conv2}
    for m, h in theirs._history.items():
        torch.testing.assert_close(ours._history[m], h, atol=1e-5, rtol=1e-5)


class _Null:
    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        return np.zeros(0, dtype=np.float32)


def test_a_draft_stream_equals_torchs_and_mixes_with_it(cv3_dir: Path, graph: Path) -> None:
    """The engine's draft stream on a flow fixed to draft's setting (the time table): the voice's prompt
    template computed by torch, then cached hops and the final call through the graph, with a bound
    small enough that the cache freezes part way (the frozen re-run path)."""
    cfg = load_model_config(cv3_dir)
    opts = quality_options("draft", "cpu")
    flows = []
    for _ in range(2):
        flow = load_flow(cfg, device="cpu")
        assert flow.fix_time_steps(opts.flow)
        flows.append(flow)
    torch_flow, ort_flow = flows
    g = torch.Generator().manual_seed(3)
    ptok = torch.randint(0, cfg.flow.vocab_size, (1, 11), generator=g, dtype=torch.int32)
    feat = torch.randn(1, 2 * 11, cfg.flow.output_size, generator=g)
    emb = torch.randn(1, cfg.flow.spk_embed_dim, generator=g)
    tokens = torch.randint(0, cfg.flow.vocab_size, (60,), generator=g).tolist()
    schedule = StreamSchedule(chunk=cfg.chunk_size, lookahead=cfg.flow.pre_lookahead_len)
    kw = {"n_steps": opts.flow.n_steps, "cfg_rate": opts.flow.cfg_rate}
    runner = None

    def stream(flow: FlowModel, limit: int | None) -> tuple[torch.Tensor, bool]:
        st = Token2WavStream(flow=flow, vocoder=_Null(), prompt_token=ptok, prompt_feat=feat, embedding=emb,
                             token_mel_ratio=cfg.token_mel_ratio, schedule=schedule, flow_cache="full",
                             record_calls=True, cache_limit_bytes=limit, **kw)
        with torch.inference_mode():
            st.prompt_cache = prompt_flow_cache(flow, ptok, feat, emb, schedule=schedule, **kw)
            if flow is ort_flow and runner is not None:
                flow.decoder.runtime_estimator = runner  # the hops through the graph, on torch's template
            for t in tokens:
                list(st.push(t))
            st.finish()
        return torch.cat([c.mel for c in st.calls if c.mel is not None], dim=2), st.cache_overflowed

    for limit in (None, 60_000):
        want, froze = stream(torch_flow, limit)
        ort_flow.decoder.runtime_estimator = None
        runner = runner or OrtDiT(graph, _dit(ort_flow), threads=1)
        got, froze_too = stream(ort_flow, limit)
        assert froze == froze_too == (limit is not None)
        assert got.shape == want.shape
        # the graph's cache is float16, torch's float32
        assert float((got - want).abs().max()) < 2e-3, limit
    assert runner is not None and runner.calls > 0


@pytest.mark.conformance
def test_the_graph_meets_the_conformance_tolerances(cv3_dir: Path, graph: Path) -> None:
    """Every recorded flow call of the original (non-streamed, streamed chunks, final) through the graph."""
    manifest = json.loads((cv3_dir / "reference" / "manifest.json").read_text(encoding="utf-8"))
    runners = []
    results = check_flow_reference(cv3_dir, cv3_dir / "reference" / "flow.npz", manifest,
                                   prepare=lambda flow: runners.append(use_graph(flow, graph, threads=1)))
    assert results and all(r.passed for r in results), [str(r) for r in results if not r.passed]
    assert any(".est0.out" in r.name for r in results)
    assert runners and runners[0].calls > 0


def test_built_once_then_attached_from_the_cache(tmp_path: Path, cv3_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The builder's entry point (what the engine runs in a process of its own) fills the cache; a load
    then attaches at once, drops the weights the graph holds and keeps the time table."""
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    cfg = load_model_config(cv3_dir)
    opts = quality_options("draft", "cpu")
    flow = load_flow(cfg, device="cpu")
    assert ort_build.attach_estimator_graph(flow, cv3_dir, threads=1) is None  # tiny: torch is as fast
    dest = ort_build.graphs_dir() / flow_graph_key(flow, cv3_dir / "flow.pt")
    assert dest.name.startswith("dit-v")
    assert ort_build.main([str(cv3_dir), str(dest)]) == 0
    assert [p.name for p in dest.parent.iterdir()] == [dest.name]  # no partial folder left
    flow.fix_time_steps(opts.flow)
    job = ort_build.attach_estimator_graph(flow, cv3_dir, threads=1, force=True)
    assert job is not None and job.ready and job.dest == dest  # attached at once: no second build
    assert isinstance(flow.decoder.runtime_estimator, OrtDiT)
    dit = _dit(flow)
    assert flow.decoder.estimator_released and dit.time_table is not None
    assert all(p.is_meta for p in dit.parameters())
    assert not any(b.is_meta for b in dit.buffers())  # the table stays
    want_flow = load_flow(cfg, device="cpu")
    want_flow.fix_time_steps(opts.flow)
    g = torch.Generator().manual_seed(7)
    tok = torch.randint(0, cfg.flow.vocab_size, (1, 30), generator=g, dtype=torch.int32)
    ptok = torch.randint(0, cfg.flow.vocab_size, (1, 8), generator=g, dtype=torch.int32)
    feat = torch.randn(1, 16, cfg.flow.output_size, generator=g)
    emb = torch.randn(1, cfg.flow.spk_embed_dim, generator=g)
    kw = {"n_steps": opts.flow.n_steps, "cfg_rate": opts.flow.cfg_rate}
    with torch.inference_mode():
        want = want_flow.inference(tok, ptok, feat, emb, streaming=True, finalize=True, **kw)
        got = flow.inference(tok, ptok, feat, emb, streaming=True, finalize=True, **kw)
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)


def test_a_broken_graph_leaves_torch_running(tmp_path: Path, cv3_dir: Path, graph: Path,
                                             monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    flow = load_flow(load_model_config(cv3_dir), device="cpu")
    dest = ort_build.graphs_dir() / flow_graph_key(flow, cv3_dir / "flow.pt")
    shutil.copytree(graph.parent, dest)
    (dest / GRAPH_FILE).write_bytes(b"not a graph")  # a corrupt cached graph
    with caplog.at_level(logging.WARNING, logger="cosycore.graph_cache"):
        job = ort_build.attach_estimator_graph(flow, cv3_dir, threads=1, force=True)
    assert job is not None and not job.ready and job.error is not None
    assert "could not be loaded" in caplog.text and "torch keeps running" in caplog.text
    assert flow.decoder.runtime_estimator is None and not flow.decoder.estimator_released

    caplog.clear()
    shutil.rmtree(dest)  # missing, and its build fails: logged, torch runs

    def failing(args: list[str], what: str) -> None:
        raise RuntimeError(f"building {what} failed (1): no space left")

    monkeypatch.setattr(ort_build.graph_cache, "build_in_subprocess", failing)
    with caplog.at_level(logging.WARNING, logger="cosycore.graph_cache"):
        job = ort_build.attach_estimator_graph(flow, cv3_dir, threads=1, force=True)
        assert job is not None and not job.wait(60)
    assert "no space left; torch keeps running" in caplog.text
    assert flow.decoder.runtime_estimator is None
    with torch.inference_mode():
        out = _dit(flow)(*_inputs(1, 20, seed=1), False)
    assert torch.isfinite(out).all()
