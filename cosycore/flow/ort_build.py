"""Building, caching and attaching the flow estimator's ONNX Runtime graph (the CosyVoice2 U-Net's,
:mod:`.ort_estimator`, or the Fun-CosyVoice3 DiT's, :mod:`.ort_dit`).

Built once per ``flow.pt``, in a process of its own (``python -m cosycore.flow.ort_build MODEL_DIR
DEST``: it loads the flow, exports its estimator and exits), into ``<user cache>/flow-estimator/<key>/``
(:mod:`cosycore.graph_cache`: atomic, never half-written). Until the graph is there, and if its build
fails (logged), torch runs the estimator: the same numbers up to float rounding, a little slower.

Used where it pays: CPU, a U-Net at least :data:`MIN_WIDTH` channels wide or a DiT at least
:data:`MIN_DIT_WIDTH` (the tiny test models keep torch unless a caller asks for it), and no bfloat16
autocast (a CPU with native bfloat16 keeps torch's autocast estimator, which the graph does not replace).
"""

from __future__ import annotations

import logging
from pathlib import Path

from .. import graph_cache
from .base import FlowModel
from .dit import DiT
from .ort_estimator import GRAPH_FILE, estimator_of, export_flow_graph, flow_graph_key, use_graph
from .ort_graph import StatefulRunner

logger = logging.getLogger(__name__)

MIN_WIDTH = 128  # the release's U-Net is 256 wide; a narrower test model runs as fast in torch
MIN_DIT_WIDTH = 256  # the release's DiT is 1024 wide, the tiny test model's 64
KIND = "flow-estimator"


def graphs_dir() -> Path:
    return graph_cache.graphs_dir(KIND)


def worth_it(flow: FlowModel) -> bool:
    est = estimator_of(flow)
    if isinstance(est, DiT):
        return est.cfg.dim >= MIN_DIT_WIDTH
    return est is not None and est.cfg.channels[0] >= MIN_WIDTH


class EstimatorGraphJob(graph_cache.GraphJob):
    """Puts ``flow``'s estimator graph to use now (cached) or when a background build finishes."""

    def __init__(self, flow: FlowModel, dest: Path, threads: int, build_args: list[str], what: str) -> None:
        self.flow, self.threads = flow, threads
        self.runner: StatefulRunner | None = None
        super().__init__(dest, GRAPH_FILE, build_args, f"the flow estimator graph of {what}", self._use)

    def _use(self, path: Path, at_load: bool) -> None:
        # At load the torch estimator's weights go (the graph holds its own); a graph built in the
        # background arrives while requests may run on them, so they stay until the next load.
        self.runner = use_graph(self.flow, path, self.threads, release=at_load)
        logger.info("flow estimator calls run in ONNX Runtime (float32, %s%s)", path.parent.name,
                    "; torch's copy of its weights dropped" if at_load else "")


def build_folder(flow: FlowModel, dest: Path) -> Path:
    """Export ``flow``'s estimator into ``dest`` (atomically), unless it is already there."""
    return graph_cache.build_folder(lambda folder: export_flow_graph(flow, folder), dest, GRAPH_FILE)


def attach_estimator_graph(flow: FlowModel, model_dir: Path, threads: int, *, force: bool = False
                           ) -> EstimatorGraphJob | None:
    """Start running ``flow``'s estimator (the release in ``model_dir``) through its graph (CPU).

    None for a flow whose estimator has no graph, and where it does not pay (:func:`worth_it`) unless ``force``."""
    if estimator_of(flow) is None or not (force or worth_it(flow)):
        return None
    dest = graphs_dir() / flow_graph_key(flow, Path(model_dir) / "flow.pt")
    return EstimatorGraphJob(flow, dest, threads, ["-m", "cosycore.flow.ort_build", str(model_dir), str(dest)],
                             str(model_dir))


def main(argv: list[str] | None = None) -> int:
    def build(model_dir: Path, dest: Path) -> None:
        from ..config import load_model_config
        from . import load_flow

        build_folder(load_flow(load_model_config(model_dir), device="cpu"), dest)

    return graph_cache.builder_main(argv, "cosycore.flow.ort_build",
                                    "Build the ONNX Runtime graph of a release's flow estimator.", build)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
