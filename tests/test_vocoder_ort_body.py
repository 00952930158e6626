"""HiFT's convolution body through its ONNX Runtime graph (cosycore.vocoder.ort_body, ort_build).

Each family's tiny conformance vocoder is exported once for the module, as the engine exports the
release's; the body, a CosyVoice2 chunked stream and a CosyVoice3 incremental stream through it must
equal torch's up to float rounding. Then the build-once cache, the fallback to torch and the modes.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from cosycore import graph_cache
from cosycore.config import load_model_config
from cosycore.perf import PerfOptions, apply_load_options, quality_options
from cosycore.vocoder import ort_build
from cosycore.vocoder.hift import CausalHiFTGenerator, HiFTGenerator
from cosycore.vocoder.load import load_hift
from cosycore.vocoder.ort_body import (
    GRAPH_FILE,
    body_released,
    export_body_graph,
    graph_key,
    release_body_weights,
    use_body_graph,
)
from cosycore.vocoder.stream import CausalHiftStream, HiftStreamV2

pytestmark = pytest.mark.usefixtures("single_thread")

Hift = HiFTGenerator | CausalHiFTGenerator


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory, cv2_dir: Path, cv3_dir: Path) -> dict[str, Path]:
    """One exported body graph per family (tiny conformance vocoders)."""
    out = {}
    for family, folder in (("cosyvoice2", cv2_dir), ("cosyvoice3", cv3_dir)):
        out[family] = export_body_graph(load_hift(load_model_config(folder)), tmp_path_factory.mktemp(family))
    return out


def _dirs(cv2_dir: Path, cv3_dir: Path) -> dict[str, Path]:
    return {"cosyvoice2": cv2_dir, "cosyvoice3": cv3_dir}


def _pair(model_dir: Path, graph: Path) -> tuple[Hift, Hift]:
    """The torch vocoder and one whose body runs through the graph (same weights)."""
    cfg = load_model_config(model_dir)
    ours = load_hift(cfg)
    use_body_graph(ours, graph, threads=1)
    return load_hift(cfg), ours


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_the_body_equals_torchs(cv2_dir: Path, cv3_dir: Path, graphs: dict[str, Path], family: str) -> None:
    hift, ours = _pair(_dirs(cv2_dir, cv3_dir)[family], graphs[family])
    cfg = hift.cfg
    g = torch.Generator().manual_seed(3)
    frames = 17  # not the export's
    x = torch.randn(2, cfg.base_channels, frames, generator=g)
    s_stft = torch.randn(2, cfg.istft_n_fft + 2, frames * 120 + 1, generator=g)
    with torch.inference_mode():
        want = hift.body(x, s_stft)
    assert ours.runtime_body is not None
    got = ours.runtime_body(x, s_stft)
    assert got.shape == want.shape and got.dtype == torch.float32
    assert float((got - want).abs().max()) < 1e-5


def _streamed(stream: HiftStreamV2 | CausalHiftStream, mel: torch.Tensor, cuts: tuple[int, ...]) -> torch.Tensor:
    """The stream's audio of ``mel`` pushed in pieces ending at ``cuts`` and at its end (the last one final)."""
    ends = [*cuts, mel.shape[2]]
    starts = [0, *cuts]
    return torch.cat([stream.push_tensor(mel[:, :, a:b], finalize=b == ends[-1]) for a, b in zip(starts, ends)], dim=1)


def test_a_cosyvoice2_stream_equals_torchs(cv2_dir: Path, graphs: dict[str, Path]) -> None:
    hift, ours = _pair(cv2_dir, graphs["cosyvoice2"])
    assert isinstance(hift, HiFTGenerator) and isinstance(ours, HiFTGenerator)
    mel = torch.randn(1, 80, 70, generator=torch.Generator().manual_seed(5))
    audio = [_streamed(HiftStreamV2(v, torch.Generator().manual_seed(0)), mel, (20, 50)) for v in (hift, ours)]
    assert audio[0].shape == audio[1].shape == (1, 70 * hift.cfg.hop_samples)
    assert float((audio[0] - audio[1]).abs().max()) < 1e-5
    assert ours.runtime_body is not None and ours.runtime_body.calls == 3  # type: ignore[attr-defined]


def test_a_cosyvoice3_incremental_stream_equals_torchs(cv3_dir: Path, graphs: dict[str, Path]) -> None:
    hift, ours = _pair(cv3_dir, graphs["cosyvoice3"])
    assert isinstance(hift, CausalHiFTGenerator) and isinstance(ours, CausalHiFTGenerator)
    mel = torch.randn(1, 80, 60, generator=torch.Generator().manual_seed(6))
    audio = [_streamed(CausalHiftStream(v), mel, (25, 45)) for v in (hift, ours)]
    assert audio[0].shape == audio[1].shape == (1, 60 * hift.cfg.hop_samples)
    assert float((audio[0] - audio[1]).abs().max()) < 1e-5


def test_the_engine_builds_once_then_attaches_from_the_cache(tmp_path: Path, cv2_dir: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    built: list[list[str]] = []

    def build_here(args: list[str], what: str) -> None:  # the builder's command line, in this process
        assert args[:2] == ["-m", "cosycore.vocoder.ort_build"]
        built.append(args)
        assert ort_build.main(args[2:]) == 0

    monkeypatch.setattr(graph_cache, "build_in_subprocess", build_here)
    cfg = load_model_config(cv2_dir)
    hift = load_hift(cfg)
    assert ort_build.attach_vocoder_graph(hift, cv2_dir, threads=1) is None  # tiny: torch is as fast
    job = ort_build.attach_vocoder_graph(hift, cv2_dir, threads=1, force=True)
    assert job is not None and job.wait(600), job.error
    assert len(built) == 1
    folder = job.dest
    assert folder == ort_build.graphs_dir() / graph_key(cv2_dir / "hift.pt") and (folder / GRAPH_FILE).is_file()
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no partial folder left
    assert hift.runtime_body is job.runner
    # built in the background, torch's weights stay (a request may run on them); attached at load they go
    assert not body_released(hift)
    again = load_hift(cfg)
    job2 = ort_build.attach_vocoder_graph(again, cv2_dir, threads=1, force=True)
    assert job2 is not None and job2.ready and len(built) == 1  # attached at once: no second build
    assert body_released(again) and all(p.is_meta for p in again.conv_post.parameters())
    assert not again.conv_pre.weight.is_meta  # conv_pre, the f0 predictor and the source stay in torch
    mel = torch.randn(1, 80, 30, generator=torch.Generator().manual_seed(8))
    g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(1)
    want, _ = hift.inference(mel, generator=g1)
    got, _ = again.inference(mel, generator=g2)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)


def test_a_broken_graph_leaves_torch_running(tmp_path: Path, cv2_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    hift = load_hift(load_model_config(cv2_dir))
    dest = ort_build.graphs_dir() / graph_key(cv2_dir / "hift.pt")
    dest.mkdir(parents=True)
    (dest / GRAPH_FILE).write_bytes(b"not an onnx graph")
    with caplog.at_level(logging.WARNING):
        job = ort_build.attach_vocoder_graph(hift, cv2_dir, threads=1, force=True)
    assert job is not None and not job.ready and job.error is not None
    assert "torch keeps running" in caplog.text
    assert hift.runtime_body is None and not body_released(hift)
    with pytest.raises(RuntimeError, match="torch weights are kept"):
        release_body_weights(hift)
    wav, _ = hift.inference(torch.randn(1, 80, 10), generator=torch.Generator().manual_seed(0))
    assert wav.shape == (1, 10 * hift.cfg.hop_samples) and bool(torch.isfinite(wav).all())


def test_a_graph_of_another_width_is_refused(cv2_dir: Path, graphs: dict[str, Path]) -> None:
    hift = load_hift(load_model_config(cv2_dir))
    hift.cfg = dataclasses.replace(hift.cfg, base_channels=2 * hift.cfg.base_channels)
    with pytest.raises(ValueError, match="another vocoder"):
        use_body_graph(hift, graphs["cosyvoice2"], threads=1, release=True)
    assert hift.runtime_body is None and not body_released(hift)


def test_fast_and_draft_use_the_graph_on_a_cpu(tmp_path: Path, cv2_dir: Path, graphs: dict[str, Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    assert quality_options("draft", "cpu").vocoder_graph and quality_options("fast", "cpu").vocoder_graph
    assert not quality_options("exact", "cpu").vocoder_graph
    assert not quality_options("draft", "cuda").vocoder_graph
    # the engine's load step attaches a cached graph and drops torch's copy of the body's weights
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(ort_build, "MIN_CHANNELS", 1)
    dest = ort_build.graphs_dir() / graph_key(cv2_dir / "hift.pt")
    dest.mkdir(parents=True)
    shutil.copy(graphs["cosyvoice2"], dest / GRAPH_FILE)
    model = SimpleNamespace(device=torch.device("cpu"), has_llm=False, hift=load_hift(load_model_config(cv2_dir)),
                            cfg=SimpleNamespace(model_dir=cv2_dir), vocoder_graph=None)
    apply_load_options(model, PerfOptions(vocoder_graph=True))  # type: ignore[arg-type]
    assert model.vocoder_graph is not None and model.vocoder_graph.ready
    assert body_released(model.hift)
