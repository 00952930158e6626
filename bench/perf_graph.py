"""The ONNX Runtime graphs of the benches' random-weight model: the LM's 4-bit decode graph
(cosycore.lm.ort_build) and the flow estimator's float32 graph (cosycore.flow.ort_build: the CosyVoice2
U-Net's or the Fun-CosyVoice3 DiT's).

``bench_perf.py`` builds its full-size model in memory from seed 0 (``bench_core.build_random_model``),
so there is no ``llm.pt`` to key the engine's cache on; this keys it on the family and the seed
instead, and builds it in a process of its own as the engine does (the float LM never sits in the
bench's process, whose peak memory is reported):

    .venv/bin/python bench/perf_graph.py cosyvoice2 DEST
    .venv/bin/python bench/perf_graph.py --flow cosyvoice2 DEST
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal, cast

import onnxruntime
import torch

from cosycore.flow import FlowModel, build_flow
from cosycore.flow.ort_build import EstimatorGraphJob
from cosycore.flow.ort_build import build_folder as build_flow_folder
from cosycore.flow.ort_build import graphs_dir as flow_graphs_dir
from cosycore.flow.ort_dit import DIT_GRAPH_VERSION
from cosycore.flow.ort_estimator import GRAPH_VERSION as FLOW_GRAPH_VERSION
from cosycore.lm.ort_build import DecodeGraphJob, build_folder, graphs_dir
from cosycore.lm.ort_decode import GRAPH_VERSION
from cosycore.lm.speech_lm import SpeechLM
from cosycore.testing.presets import release_config

Family = Literal["cosyvoice2", "cosyvoice3"]


def random_graph_dir(family: str) -> Path:
    return graphs_dir() / f"random-{family}-seed0-v{GRAPH_VERSION}-ort{onnxruntime.__version__}"


def random_float_lm(family: str) -> SpeechLM:
    """The float LM that ``build_random_model`` packs to int8: seed 0, built first."""
    torch.manual_seed(0)
    lm = SpeechLM(release_config(family).llm)
    return lm.eval().requires_grad_(False)


def attach_random_graph(llm: SpeechLM, family: str, threads: int) -> DecodeGraphJob:
    dest = random_graph_dir(family)
    return DecodeGraphJob(llm, dest, threads, [str(Path(__file__).resolve()), family, str(dest)],
                          f"the random {family} LM")


def random_flow_graph_dir(family: str) -> Path:
    version = DIT_GRAPH_VERSION if family == "cosyvoice3" else FLOW_GRAPH_VERSION  # the DiT's graph or the U-Net's
    return flow_graphs_dir() / f"random-{family}-seed0-v{version}-ort{onnxruntime.__version__}"


def random_flow(family: Family) -> FlowModel:
    """The flow ``build_random_model`` builds: seed 0, after the float LM (the same random draws)."""
    cfg = release_config(family)
    torch.manual_seed(0)
    SpeechLM(cfg.llm)
    return build_flow(cfg.flow, device="cpu").eval().requires_grad_(False)


def attach_random_flow_graph(flow: FlowModel, family: str, threads: int) -> EstimatorGraphJob:
    dest = random_flow_graph_dir(family)
    return EstimatorGraphJob(flow, dest, threads, [str(Path(__file__).resolve()), "--flow", family, str(dest)],
                             f"the random {family} flow")


if __name__ == "__main__":
    if sys.argv[1] == "--flow":
        build_flow_folder(random_flow(cast(Family, sys.argv[2])), Path(sys.argv[3]))
    else:
        build_folder(lambda: random_float_lm(sys.argv[1]), Path(sys.argv[2]))
