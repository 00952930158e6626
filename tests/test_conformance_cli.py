"""``python -m cosycore.conformance`` on the shipped folders, and on a doctored one (must fail)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.conformance


def _run(*dirs: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MKL_CBWR="COMPATIBLE")
    return subprocess.run(
        [sys.executable, "-m", "cosycore.conformance", "--threads", "2", *map(str, dirs)],
        cwd=REPO, capture_output=True, text=True, timeout=900, env=env,
    )


def test_cli_passes_on_shipped_folders(cv2_dir: Path, cv3_dir: Path, features_dir: Path) -> None:
    res = _run(cv2_dir, cv3_dir, features_dir)
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    for section in ("[llm]", "[flow]", "[stream]", "[hift]", "[features]"):
        assert section in out
    assert "FAIL" not in out.replace("FAILURES", "")
    assert out.strip().endswith("PASS")
    assert "greedy_tokens" in out and "tf_logits" in out


def test_cli_fails_on_doctored_reference(cv2_dir: Path, tmp_path: Path) -> None:
    d = tmp_path / "cv2"
    shutil.copytree(cv2_dir, d, symlinks=True)
    ref = d / "reference"
    for p in ref.iterdir():
        p.chmod(0o644)
    arrays = dict(np.load(ref / "llm.npz"))
    arrays["tf_logits"] = arrays["tf_logits"] + np.float32(1e-2)
    arrays["greedy_tokens"] = arrays["greedy_tokens"].copy()
    arrays["greedy_tokens"][5] += 1
    np.savez(ref / "llm.npz", **arrays)
    res = _run(d)
    assert res.returncode == 1, res.stdout + res.stderr
    fails = [line for line in res.stdout.splitlines() if line.strip().startswith("FAIL ")]
    names = " ".join(fails)
    assert "tf_logits" in names and "greedy_tokens" in names
    assert res.stdout.strip().endswith("FAIL")


def test_cli_rejects_a_non_conformance_folder(tmp_path: Path) -> None:
    res = _run(tmp_path)
    assert res.returncode == 2
    assert "not a conformance folder" in res.stderr


def _resample_dir() -> Path:
    from tests.conftest import conformance_root

    path = conformance_root() / "resample"
    if not (path / "manifest.json").is_file():
        pytest.skip(f"conformance resample data not found at {path}; set COSY_CONFORMANCE_DIR")
    return path


def test_cli_checks_every_resample_case(tmp_path: Path) -> None:
    import json

    src = _resample_dir()
    res = _run(src)
    assert res.returncode == 0, res.stdout + res.stderr
    cases = json.loads((src / "manifest.json").read_text(encoding="utf-8"))["cases"]
    for case in cases:
        for target in (16000, 24000):
            assert f"ok   {case['name']}.to{target}" in res.stdout
    # the same format under another name, with a case whose output is one sample short and one
    # whose samples are off by 1e-4: both must fail
    d = tmp_path / "resample-other"
    d.mkdir()
    (d / "manifest.json").write_text((src / "manifest.json").read_text(encoding="utf-8"), encoding="utf-8")
    arrays = dict(np.load(src / "resample.npz"))
    first, second = cases[0]["name"], cases[1]["name"]
    arrays[f"{first}.to24000"] = arrays[f"{first}.to24000"][:, :-1]
    arrays[f"{second}.to16000"] = arrays[f"{second}.to16000"] + np.float32(1e-4)
    np.savez(d / "data.npz", **arrays)
    res = _run(tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    fails = " ".join(line for line in res.stdout.splitlines() if line.strip().startswith("FAIL "))
    assert f"{first}.to24000" in fails and f"{second}.to16000" in fails
    assert f"{first}.to16000" not in fails
