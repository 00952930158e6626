"""Building, caching and attaching the speech LM's ONNX Runtime decode graph (:mod:`.ort_decode`).

The graph is built once per weights file, in a process of its own (``python -m cosycore.lm.ort_build
MODEL_DIR DEST``: it loads the float LM, exports and quantizes it, and exits, so the engine's process
never holds the float weights beside its int8 ones), into ``<user cache>/lm-decode/<key>/``. The
folder is written under a temporary name and renamed when complete, so a crash or a second engine
building the same graph leaves no half-written graph behind. Until the graph is there, the engine
decodes with torch's int8 kernels (the same request, a little slower); a failed build is logged and
changes nothing else.

The graph is used only where it pays: CPU, and an LM whose decode step is bound by reading its
weights (:data:`MIN_HIDDEN`); a tiny test model keeps torch's path unless a caller asks for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import graph_cache
from .ort_decode import GRAPH_FILE, OrtDecodeStep, export_decode_graph, graph_key

if TYPE_CHECKING:
    from .speech_lm import SpeechLM

logger = logging.getLogger(__name__)

MIN_HIDDEN = 512  # the released 0.5B backbones are 896 wide; below this, torch's int8 step is as fast
KIND = "lm-decode"


def graphs_dir() -> Path:
    return graph_cache.graphs_dir(KIND)


def worth_it(llm: SpeechLM) -> bool:
    """Whether the graph pays for this LM: wide enough that reading weights dominates a step."""
    return llm.cfg.qwen.hidden_size >= MIN_HIDDEN


def cached_graph(folder: Path) -> Path | None:
    """The graph file of a cache folder, or None (a folder is published only once complete)."""
    return graph_cache.cached_file(folder, GRAPH_FILE)


def build_folder(make_float_lm: Callable[[], SpeechLM], dest: Path) -> Path:
    """Export and quantize the float LM that ``make_float_lm`` returns into ``dest`` (atomically)."""
    return graph_cache.build_folder(lambda folder: export_decode_graph(make_float_lm(), folder), dest, GRAPH_FILE)


class DecodeGraphJob(graph_cache.GraphJob):
    """Attaches the decode graph to ``llm`` now (cached) or when a background build finishes."""

    def __init__(self, llm: SpeechLM, dest: Path, threads: int, build_args: list[str], what: str) -> None:
        self.llm, self.threads = llm, threads
        super().__init__(dest, GRAPH_FILE, build_args, f"the LM decode graph of {what}", self._use)

    def _use(self, path: Path, at_load: bool) -> None:
        self.llm.decode_step = OrtDecodeStep(path, self.threads)
        logger.info("LM decode steps run in ONNX Runtime (4-bit weights, %s)", path.parent.name)

    @property
    def ready(self) -> bool:
        return super().ready and self.llm.decode_step is not None


def attach_decode_graph(llm: SpeechLM, model_dir: Path, threads: int, *, force: bool = False
                        ) -> DecodeGraphJob | None:
    """Start using the 4-bit decode graph of the release in ``model_dir`` for ``llm`` (CPU).

    None when it does not pay (:func:`worth_it`) and ``force`` is off."""
    if not (force or worth_it(llm)):
        return None
    weights = Path(model_dir) / "llm.pt"
    dest = graphs_dir() / graph_key(weights, 4)
    return DecodeGraphJob(llm, dest, threads, ["-m", "cosycore.lm.ort_build", str(model_dir), str(dest)],
                          str(model_dir))


def main(argv: list[str] | None = None) -> int:
    def build(model_dir: Path, dest: Path) -> None:
        from ..config import load_model_config
        from .layout import use_linear_layout
        from .load import load_llm

        def float_lm() -> SpeechLM:
            llm = load_llm(load_model_config(model_dir), device="cpu")
            use_linear_layout(llm)
            return llm

        build_folder(float_lm, dest)

    return graph_cache.builder_main(argv, "cosycore.lm.ort_build",
                                    "Build the 4-bit ONNX Runtime decode graph of a release's LM.", build)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
