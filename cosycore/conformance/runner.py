"""``python -m cosycore.conformance [DIR ...]``: compare cosycore with the original implementation's numbers.

DIR is a conformance folder: a release-layout model folder with ``reference/`` (llm.npz, flow.npz,
hift.npz, manifest.json), a ``features/`` folder (features.npz, manifest.json), a ``resample/``
folder (manifest.json listing cases with their rates, and its .npz), a voice-conversion set (vc.npz,
manifest.json: :mod:`cosycore.conformance.vc`), or a folder that holds several of those. Without
DIR it checks the shared conformance folder (``COSY_CONFORMANCE_DIR``, default
``../shared/conformance`` beside the checkout) and the repository's voice-conversion set
(``tests/data/conformance-vc``). A voice-conversion set finds its model folders under ``--models``
(default: the shared conformance folder). Every array is compared at the tolerances of the
conformance README; the command prints the largest errors and exits 0 only if everything passes.

``--device`` (default cpu) runs the model sections (llm, flow, stream, hift) on that torch device,
in IEEE float32 (TF32 off on CUDA); the features and resample sections test the CPU frontend and
stay on the CPU. A device this machine does not have is an error (exit 2), never a fallback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from ..devices import resolve_device
from ..errors import ConformanceError, CosyError, ModelLoadError
from .checks import CheckResult
from .device import CPU, describe
from .resample import is_resample_folder
from .vc import REPO_VC_SET, is_vc_folder, shared_conformance_dir

logger = logging.getLogger(__name__)

Section = tuple[str, Callable[[], list[CheckResult]]]
CPU_SECTIONS = ("features", "resample")  # the CPU frontend: on the CPU whatever the device


def _is_model_folder(d: Path) -> bool:
    return (d / "reference" / "manifest.json").is_file()


def _is_features_folder(d: Path) -> bool:
    return (d / "features.npz").is_file() and (d / "manifest.json").is_file()


def find_targets(root: Path) -> list[Path]:
    """The conformance folders in ``root`` (``root`` itself, or its direct subfolders)."""
    if not root.is_dir():
        raise ConformanceError(f"{root} is not a folder")
    if _is_model_folder(root) or _is_features_folder(root) or is_resample_folder(root) or is_vc_folder(root):
        return [root]
    subs = sorted(d for d in root.iterdir() if d.is_dir() and (
        _is_model_folder(d) or _is_features_folder(d) or is_resample_folder(d) or is_vc_folder(d)))
    if not subs:
        raise ConformanceError(
            f"{root} is not a conformance folder: expected reference/manifest.json (a model folder), "
            "features.npz + manifest.json (a features folder), manifest.json with resample cases + "
            "its .npz (a resample folder), vc.npz + manifest.json (a voice-conversion folder), or subfolders "
            "holding them"
        )
    return subs


def default_targets() -> list[Path]:
    """What ``python -m cosycore.conformance`` checks without a folder: the shared set and the repository's vc set."""
    return [shared_conformance_dir()] + ([REPO_VC_SET] if is_vc_folder(REPO_VC_SET) else [])


def sections_for(target: Path, device: torch.device = CPU, models: Sequence[Path] | None = None) -> list[Section]:
    """The checks of one conformance folder; the model sections run on ``device``.

    ``models``: where a voice-conversion set finds its model folders (:func:`.vc.check_vc_reference`).
    """
    if _is_features_folder(target):
        from .features import check_features_reference

        return [("features", lambda: check_features_reference(target))]
    if is_resample_folder(target):
        from .resample import check_resample_reference

        return [("resample", lambda: check_resample_reference(target))]
    if is_vc_folder(target):
        from .vc import check_vc_reference

        return [("vc", lambda: check_vc_reference(target, device=device, models=models))]
    ref = target / "reference"
    manifest = json.loads((ref / "manifest.json").read_text(encoding="utf-8"))
    files = manifest.get("files", {})
    sections: list[Section] = []
    if "llm.npz" in files:
        from .lm import check_llm_reference

        sections.append(("llm", lambda: check_llm_reference(target, ref / "llm.npz", device=device)))
    if "flow.npz" in files:
        from .flow import check_flow_reference

        sections.append(("flow", lambda: check_flow_reference(target, ref / "flow.npz", manifest, device=device)))
        from .streaming import check_streaming_schedule

        sections.append(("stream", lambda: check_streaming_schedule(
            target, ref / "flow.npz", manifest, device=device)))
    if "hift.npz" in files:
        from .vocoder import check_hift_reference

        sections.append(("hift", lambda: check_hift_reference(target, ref / "hift.npz", device=device)))
    return sections


def _fmt(v: float) -> str:
    return f"{v:.2e}" if np.isfinite(v) else str(v)


def run(paths: Sequence[Path], *, out=None, device: str | torch.device = "cpu",
        models: Sequence[Path] | None = None) -> bool:
    """Check every conformance folder under ``paths``; True if everything passes.

    ``models``: where a voice-conversion set finds its model folders (default: the shared conformance
    folder, :func:`.vc.shared_conformance_dir`).

    ``device`` goes through :func:`cosycore.devices.resolve_device`: a name that is not a device is
    an :class:`~cosycore.errors.InputError`, a missing GPU a :class:`~cosycore.errors.ModelLoadError`.
    """
    out = out or sys.stdout  # looked up per call: a stdout replaced after import (capture, redirect) is used
    dev = resolve_device(device)
    on_cpu = dev.type == "cpu"
    all_ok = True
    for root in paths:
        for target in find_targets(Path(root)):
            print(f"== {target}" if on_cpu else f"== {target} (device {describe(dev)})", file=out)
            for name, fn in sections_for(target, dev, models):
                if name in CPU_SECTIONS and not on_cpu:
                    print(f"  note: [{name}] checks the CPU frontend and runs on the CPU, not {dev}", file=out)
                t0 = time.perf_counter()
                try:
                    results = fn()
                except CosyError as e:
                    print(f"  {name}: ERROR {e}", file=out)
                    all_ok = False
                    continue
                dt = time.perf_counter() - t0
                ok = all(r.passed for r in results)
                all_ok &= ok
                print(f"  [{name}] {len(results)} checks, {'all pass' if ok else 'FAILURES'} ({dt:.1f} s)", file=out)
                width = max(len(r.name) for r in results) if results else 10
                for r in results:
                    flag = "ok  " if r.passed else "FAIL"
                    line = (f"    {flag} {r.name:<{width}}  max|err| {_fmt(r.max_abs_err)}  "
                            f"max rel {_fmt(r.max_rel_err)}  (atol {r.atol:g}, rtol {r.rtol:g})")
                    if r.note:
                        line += f"  {r.note}"
                    print(line, file=out)
    print("PASS" if all_ok else "FAIL", file=out)
    return all_ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cosycore.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path,
                        help="conformance folder(s); default: $COSY_CONFORMANCE_DIR (or ../shared/conformance "
                             "beside the checkout) and the repository's tests/data/conformance-vc")
    parser.add_argument("--models", type=Path, action="append", default=None, metavar="DIR",
                        help="a folder that holds the tiny model folders a voice-conversion set was made with "
                             "(found by their sha256; repeatable); default: $COSY_CONFORMANCE_DIR or "
                             "../shared/conformance")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--device", default="cpu",
                        help="torch device of the llm/flow/stream/hift sections: cpu (default), cuda, cuda:N, "
                             "mps or auto; features and resample always run on the CPU")
    args = parser.parse_args(argv)
    # MKL chooses FFT/GEMM kernels by CPU instruction set; near the log floor of a spectrum that
    # rounding noise exceeds the README's tolerances on AVX-512 CPUs. Compatible mode makes the
    # numbers the same on every x86-64 CPU (it must be set before the first MKL call).
    os.environ.setdefault("MKL_CBWR", "COMPATIBLE")
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        device = resolve_device(args.device)
    except ModelLoadError as e:  # a real device name, but this machine does not have that device
        print(f"error: {e}; run with --device cpu, or on a machine that has this device", file=sys.stderr)
        return 2
    except CosyError as e:  # not a device name (its message lists the names)
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        return 0 if run(args.dirs or default_targets(), device=device, models=args.models) else 1
    except CosyError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

