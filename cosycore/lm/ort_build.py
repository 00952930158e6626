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

import argparse
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths.folders import user_cache_dir
from .ort_decode import GRAPH_FILE, OrtDecodeStep, export_decode_graph, graph_key

if TYPE_CHECKING:
    from .speech_lm import SpeechLM

logger = logging.getLogger(__name__)

MIN_HIDDEN = 512  # the released 0.5B backbones are 896 wide; below this, torch's int8 step is as fast
BUILD_TIMEOUT_S = 1800.0


def graphs_dir() -> Path:
    return user_cache_dir() / "lm-decode"


def worth_it(llm: SpeechLM) -> bool:
    """Whether the graph pays for this LM: wide enough that reading weights dominates a step."""
    return llm.cfg.qwen.hidden_size >= MIN_HIDDEN


def cached_graph(folder: Path) -> Path | None:
    """The graph file of a cache folder, or None (a folder is published only once complete)."""
    path = folder / GRAPH_FILE
    return path if path.is_file() else None


def publish(partial: Path, dest: Path) -> None:
    """Rename the finished ``partial`` folder to ``dest``; if another process got there first, keep its
    graph and remove ours (both folders are ours: made by :func:`build_folder`)."""
    try:
        os.rename(partial, dest)
    except OSError:
        if cached_graph(dest) is None:
            raise
        shutil.rmtree(partial, ignore_errors=True)


def build_folder(make_float_lm: Callable[[], SpeechLM], dest: Path) -> Path:
    """Export and quantize the float LM that ``make_float_lm`` returns into ``dest`` (atomically)."""
    done = cached_graph(dest)
    if done is not None:
        return done
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)  # a leftover of this same pid: ours
    try:
        export_decode_graph(make_float_lm(), partial)
        publish(partial, dest)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    path = cached_graph(dest)
    if path is None:
        raise RuntimeError(f"the decode graph was built but {dest} is incomplete")
    return path


def build_in_subprocess(args: list[str], what: str) -> None:
    """Run ``python -m cosycore.lm.ort_build ARGS`` (or another module's builder) at low priority."""
    cmd = [sys.executable, *args]
    logger.info("building the LM decode graph of %s (once per weights)", what)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
                          preexec_fn=(lambda: os.nice(5)) if hasattr(os, "nice") else None)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"building the LM decode graph failed ({proc.returncode}): {' | '.join(tail)}")


class DecodeGraphJob:
    """Attaches the decode graph to ``llm`` now (cached) or when a background build finishes."""

    def __init__(self, llm: SpeechLM, dest: Path, threads: int, build_args: list[str], what: str) -> None:
        self.llm, self.dest, self.threads = llm, dest, threads
        self.error: BaseException | None = None
        self._done = threading.Event()
        path = cached_graph(dest)
        if path is not None:
            self._attach(path)
            return
        self._thread = threading.Thread(target=self._build, args=(build_args, what), daemon=True,
                                        name="cosy-lm-graph")
        self._thread.start()

    def _attach(self, path: Path) -> None:
        try:
            self.llm.decode_step = OrtDecodeStep(path, self.threads)
            logger.info("LM decode steps run in ONNX Runtime (4-bit weights, %s)", path.parent.name)
        except Exception as exc:
            self.error = exc
            logger.warning("the LM decode graph %s could not be loaded (%s); torch decodes", path, exc)
        finally:
            self._done.set()

    def _build(self, build_args: list[str], what: str) -> None:
        try:
            build_in_subprocess(build_args, what)
        except Exception as exc:
            self.error = exc
            logger.warning("%s; torch's int8 kernels keep decoding", exc)
            self._done.set()
            return
        path = cached_graph(self.dest)
        if path is None:
            self.error = RuntimeError(f"the build left no graph in {self.dest}")
            self._done.set()
            return
        self._attach(path)

    @property
    def ready(self) -> bool:
        return self._done.is_set() and self.llm.decode_step is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the build (benches); True when the graph is attached."""
        self._done.wait(timeout)
        return self.ready


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
    ap = argparse.ArgumentParser(prog="python -m cosycore.lm.ort_build",
                                 description="Build the 4-bit ONNX Runtime decode graph of a release's LM.")
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("dest", type=Path, help="the cache folder to create")
    args = ap.parse_args(argv)
    from ..config import load_model_config
    from .layout import use_linear_layout
    from .load import load_llm

    def float_lm() -> SpeechLM:
        llm = load_llm(load_model_config(args.model_dir), device="cpu")
        use_linear_layout(llm)
        return llm

    build_folder(float_lm, args.dest)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    raise SystemExit(main())
