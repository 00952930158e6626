"""Conformance of exact-mode prompt loading with the original's: the ``resample/`` folder format.

A folder of this format (../shared/conformance/README.md, "resample/") holds ``manifest.json``,
whose ``cases`` list names each case ``rNNNN`` with its input ``rate``, and one ``.npz`` with, per
case, ``NAME.input`` (the file's float32 samples [C, T]), ``NAME.mono`` (the mix [1, T]) and
``NAME.toRATE`` (the original's output at RATE Hz, [1, T']). Nothing here assumes which rates,
targets or seeds a folder holds.

Each case's input goes through the path exact mode uses for a prompt file: written to an in-memory
float WAV, read and mixed by :func:`cosycore.frontend.audio_file.load_audio`, resampled by
:func:`cosycore.frontend.prompt.prompt_waveforms`. Lengths must match exactly, samples within atol 1e-5.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import soundfile as sf

from ..errors import ConformanceError
from .checks import CheckResult, compare

ATOL = 1e-5
_TARGET_RE = re.compile(r"^(?P<case>.+)\.to(?P<rate>\d+)$")


def _npz_path(folder: Path) -> Path | None:
    preferred = folder / "resample.npz"
    if preferred.is_file():
        return preferred
    found = sorted(folder.glob("*.npz"))
    return found[0] if len(found) == 1 else None


def is_resample_folder(folder: Path) -> bool:
    """A folder with manifest.json listing ``cases`` that carry a ``rate``, and its .npz."""
    manifest = folder / "manifest.json"
    if not manifest.is_file() or _npz_path(folder) is None:
        return False
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    cases = data.get("cases") if isinstance(data, dict) else None
    return isinstance(cases, list) and bool(cases) and all(isinstance(c, dict) and "rate" in c for c in cases)


def _mono_as_loaded(samples: np.ndarray, rate: int) -> tuple[np.ndarray, int]:
    from ..frontend.audio_file import load_audio

    buf = io.BytesIO()
    sf.write(buf, np.ascontiguousarray(samples.T), rate, format="WAV", subtype="FLOAT")
    buf.seek(0)
    return load_audio(buf)


def check_resample_reference(folder: Path) -> list[CheckResult]:
    """Every case of a ``resample/``-format folder: the mix, and each recorded output rate."""
    from ..frontend.prompt import prompt_waveforms

    npz_path = _npz_path(folder)
    if npz_path is None or not (folder / "manifest.json").is_file():
        raise ConformanceError(f"{folder} is not a resample conformance folder (manifest.json + one .npz)")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    results: list[CheckResult] = []
    with np.load(npz_path) as ref:
        targets: dict[str, list[int]] = {}
        for key in ref.files:
            m = _TARGET_RE.match(key)
            if m:
                targets.setdefault(m.group("case"), []).append(int(m.group("rate")))
        for case in manifest["cases"]:
            name, rate = str(case["name"]), int(case["rate"])
            if f"{name}.input" not in ref.files:
                raise ConformanceError(f"{npz_path} has no array {name}.input for the case {name}")
            mono, file_rate = _mono_as_loaded(ref[f"{name}.input"], rate)
            if file_rate != rate:
                raise ConformanceError(f"{name}: the WAV round trip changed the rate {rate} to {file_rate}")
            if f"{name}.mono" in ref.files:
                results.append(compare(f"{name}.mono", mono[None], ref[f"{name}.mono"], ATOL, 0.0))
            rates = sorted(targets.get(name, []))
            if not rates:
                raise ConformanceError(f"{npz_path} has no {name}.toRATE output for the case {name}")
            for new in rates:
                # prompt_waveforms gives (16 kHz, mel rate); any other target rate goes in as the mel rate
                wav16, other = prompt_waveforms(mono, rate, new)
                got = wav16 if new == 16000 else other
                results.append(compare(f"{name}.to{new}", got[None], ref[f"{name}.to{new}"], ATOL, 0.0))
    return results
