"""Building, caching and attaching HiFT's body graph (:mod:`.ort_body`).

Built once per ``hift.pt``, in a process of its own (``python -m cosycore.vocoder.ort_build MODEL_DIR
DEST``: it loads the vocoder, exports its body and exits), into ``<user cache>/vocoder-body/<key>/``
(:mod:`cosycore.graph_cache`: atomic, never half-written). Until the graph is there, and if its build
fails (logged), torch runs the body: the same numbers up to float rounding, slower.

Used where it pays: CPU, a vocoder at least :data:`MIN_CHANNELS` wide (the tiny test models keep
torch unless a caller asks for it).
"""

from __future__ import annotations

import logging
from pathlib import Path

from .. import graph_cache
from .ort_body import GRAPH_FILE, Hift, OrtBody, export_body_graph, graph_key, use_body_graph

logger = logging.getLogger(__name__)

MIN_CHANNELS = 256  # the releases' body is 512 wide; a narrower test model runs as fast in torch
KIND = "vocoder-body"


def graphs_dir() -> Path:
    return graph_cache.graphs_dir(KIND)


def worth_it(hift: Hift) -> bool:
    return hift.cfg.base_channels >= MIN_CHANNELS


class BodyGraphJob(graph_cache.GraphJob):
    """Puts ``hift``'s body graph to use now (cached) or when a background build finishes."""

    def __init__(self, hift: Hift, dest: Path, threads: int, build_args: list[str], what: str) -> None:
        self.hift, self.threads = hift, threads
        self.runner: OrtBody | None = None
        super().__init__(dest, GRAPH_FILE, build_args, f"the vocoder body graph of {what}", self._use)

    def _use(self, path: Path, at_load: bool) -> None:
        # At load torch's copy of the body's weights goes (the graph holds its own); a graph built in
        # the background arrives while requests may run on them, so they stay until the next load.
        self.runner = use_body_graph(self.hift, path, self.threads, release=at_load)
        logger.info("the vocoder's body runs in ONNX Runtime (float32, %s%s)", path.parent.name,
                    "; torch's copy of its weights dropped" if at_load else "")


def build_folder(hift: Hift, dest: Path) -> Path:
    """Export ``hift``'s body into ``dest`` (atomically), unless it is already there."""
    return graph_cache.build_folder(lambda folder: export_body_graph(hift, folder), dest, GRAPH_FILE)


def attach_vocoder_graph(hift: Hift, model_dir: Path, threads: int, *, force: bool = False) -> BodyGraphJob | None:
    """Start running ``hift``'s body (the release in ``model_dir``) through its graph (CPU).

    None where it does not pay (:func:`worth_it`) unless ``force``."""
    if not (force or worth_it(hift)):
        return None
    dest = graphs_dir() / graph_key(Path(model_dir) / "hift.pt")
    return BodyGraphJob(hift, dest, threads, ["-m", "cosycore.vocoder.ort_build", str(model_dir), str(dest)],
                        str(model_dir))


def main(argv: list[str] | None = None) -> int:
    def build(model_dir: Path, dest: Path) -> None:
        from ..config import load_model_config
        from .load import load_hift

        build_folder(load_hift(load_model_config(model_dir), device="cpu"), dest)

    return graph_cache.builder_main(argv, "cosycore.vocoder.ort_build",
                                    "Build the ONNX Runtime graph of a release's vocoder body.", build)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
