"""The 4-bit ONNX Runtime decode graph (cosycore.lm.ort_build) of the benches' random-weight LM.

``bench_perf.py`` builds its full-size model in memory from seed 0 (``bench_core.build_random_model``),
so there is no ``llm.pt`` to key the engine's cache on; this keys it on the family and the seed
instead, and builds it in a process of its own as the engine does (the float LM never sits in the
bench's process, whose peak memory is reported):

    .venv/bin/python bench/perf_graph.py cosyvoice2 DEST
"""

from __future__ import annotations

import sys
from pathlib import Path

import onnxruntime
import torch

from cosycore.lm.ort_build import DecodeGraphJob, build_folder, graphs_dir
from cosycore.lm.ort_decode import GRAPH_VERSION
from cosycore.lm.speech_lm import SpeechLM
from cosycore.testing.presets import release_config


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


if __name__ == "__main__":
    build_folder(lambda: random_float_lm(sys.argv[1]), Path(sys.argv[2]))
