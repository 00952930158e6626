"""Runtime graphs built once per weights file and kept in the user cache (ONNX Runtime, CPU).

The LM's 4-bit decode graph (:mod:`cosycore.lm.ort_build`) and the flow estimator's graph
(:mod:`cosycore.flow.ort_build`) are exported from the release's float weights the first time a
model runs with them, in a process of their own (the engine's process never holds a second copy
of the weights while it runs), into ``<user cache>/<kind>/<key>/``. The folder is written under a
temporary name and renamed when complete, so a crash or a second engine building the same graph
leaves no half-written graph behind. Until the graph is there, and if its build fails (logged),
the engine runs torch's kernels: the same request, a little slower.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .paths.folders import user_cache_dir

logger = logging.getLogger(__name__)

BUILD_TIMEOUT_S = 1800.0


def graphs_dir(kind: str) -> Path:
    """``<user cache>/<kind>``: e.g. ``lm-decode``, ``flow-estimator``."""
    return user_cache_dir() / kind


def weights_digest(weights_file: Path, version: int, *extra: object) -> str:
    """20 hex digits that change with ``weights_file`` (its size, time, first and last MiB: no full
    read), the graph's ``version``, ONNX Runtime's version and ``extra`` (e.g. a weight format): the
    cache key's part that says which weights a built graph belongs to."""
    import onnxruntime

    st = weights_file.stat()
    salt = "".join(f"{e}|" for e in extra)
    h = hashlib.sha256(f"{version}|{onnxruntime.__version__}|{salt}{st.st_size}|{st.st_mtime_ns}".encode())
    with open(weights_file, "rb") as f:
        h.update(f.read(1 << 20))
        if st.st_size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            h.update(f.read(1 << 20))
    return h.hexdigest()[:20]


def cpu_session(path: Path, threads: int, *, memory_arena: bool = True) -> Any:
    """An ONNX Runtime CPU session on the graph at ``path`` with ``threads`` intra-op threads that do not
    spin between operators: spinning threads fought torch's and a busy machine's competitor (issue 28,
    fourth pass: draft's flow 4.11 -> 3.30 s quiet and 7.47 -> 4.84 s with one core busy; the LM graph
    16.0 -> 29.1 tokens/s busy for 34.6 -> 32.4 quiet)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, int(threads))
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # The arena keeps the largest set of intermediate tensors a call ever needed, for good; a graph whose
    # calls grow with the stream (the flow estimator's attention over its past) runs without it.
    opts.enable_cpu_mem_arena = memory_arena
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def cached_file(folder: Path, name: str) -> Path | None:
    """``folder/name`` if the folder was published (a folder is published only once complete)."""
    path = folder / name
    return path if path.is_file() else None


def publish(partial: Path, dest: Path, name: str) -> None:
    """Rename the finished ``partial`` folder to ``dest``; if another process got there first, keep its
    graph and remove ours (both folders are ours: made by :func:`build_folder`)."""
    try:
        os.rename(partial, dest)
    except OSError:
        if cached_file(dest, name) is None:
            raise
        shutil.rmtree(partial, ignore_errors=True)


def build_folder(export: Callable[[Path], object], dest: Path, name: str) -> Path:
    """Run ``export(folder)``, which writes ``folder/name``, into ``dest`` (atomically); returns the file."""
    done = cached_file(dest, name)
    if done is not None:
        return done
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)  # a leftover of this same pid: ours
    try:
        export(partial)
        publish(partial, dest, name)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    path = cached_file(dest, name)
    if path is None:
        raise RuntimeError(f"the graph was built but {dest} is incomplete")
    return path


def builder_main(argv: list[str] | None, module: str, description: str,
                 build: Callable[[Path, Path], object]) -> int:
    """The command line of a graph builder, ``python -m MODULE MODEL_DIR DEST`` (what :class:`GraphJob`
    runs in a process of its own): ``build(model_dir, dest)`` fills the cache folder ``dest``."""
    import argparse

    ap = argparse.ArgumentParser(prog=f"python -m {module}", description=description)
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("dest", type=Path, help="the cache folder to create")
    args = ap.parse_args(argv)
    build(args.model_dir, args.dest)
    return 0


def build_in_subprocess(args: list[str], what: str) -> None:
    """Run ``python ARGS`` (a builder's command line) at low priority; raise with its last lines on failure."""
    cmd = [sys.executable, *args]
    logger.info("building %s (once per weights)", what)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
                          preexec_fn=(lambda: os.nice(5)) if hasattr(os, "nice") else None)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"building {what} failed ({proc.returncode}): {' | '.join(tail)}")


class GraphJob:
    """Attaches a cached graph now, or builds it in the background and attaches it when it is there.

    ``attach(path, at_load)`` puts the graph to use (it may raise: logged, and torch keeps running);
    ``at_load`` is True when the graph was cached and is attached in this constructor, before any
    request can run on torch's weights, so those may be dropped then, and not for a graph a background
    build delivers later.
    """

    def __init__(self, dest: Path, name: str, build_args: list[str], what: str,
                 attach: Callable[[Path, bool], object]) -> None:
        self.dest, self.name, self.what = dest, name, what
        self._attach_fn = attach
        self.error: BaseException | None = None
        self.attached = False
        self._done = threading.Event()
        path = cached_file(dest, name)
        if path is not None:
            self._attach(path, at_load=True)
            return
        self._thread = threading.Thread(target=self._build, args=(build_args,), daemon=True,
                                        name=f"cosy-graph-{dest.parent.name}")
        self._thread.start()

    def _attach(self, path: Path, *, at_load: bool) -> None:
        try:
            self._attach_fn(path, at_load)
            self.attached = True
        except Exception as exc:
            self.error = exc
            logger.warning("%s (%s) could not be loaded (%s); torch keeps running", self.what, path, exc)
        finally:
            self._done.set()

    def _build(self, build_args: list[str]) -> None:
        try:
            build_in_subprocess(build_args, self.what)
        except Exception as exc:
            self.error = exc
            logger.warning("%s; torch keeps running", exc)
            self._done.set()
            return
        path = cached_file(self.dest, self.name)
        if path is None:
            self.error = RuntimeError(f"the build left no graph in {self.dest}")
            self._done.set()
            return
        self._attach(path, at_load=False)

    @property
    def ready(self) -> bool:
        return self._done.is_set() and self.attached

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the build (benches); True when the graph is attached."""
        self._done.wait(timeout)
        return self.ready
