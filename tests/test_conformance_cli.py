"""``python -m cosycore.conformance`` on the shipped folders, and on a doctored one (must fail)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.conformance.device import strict_float32
from cosycore.conformance.runner import run
from cosycore.errors import InputError, ModelLoadError

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.conformance
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _run(*args: Path | str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MKL_CBWR="COMPATIBLE")
    return subprocess.run(
        [sys.executable, "-m", "cosycore.conformance", "--threads", "2", *map(str, args)],
        cwd=REPO, capture_output=True, text=True, timeout=900, env=env,
    )


def _without_timings(out: str) -> str:
    return re.sub(r"\(\d+\.\d s\)", "(s)", out)


@pytest.fixture(scope="module")
def shipped_run(cv3_dir: Path, features_dir: Path) -> subprocess.CompletedProcess[str]:
    """The CLI once over a model folder and the features folder: the module's one whole-model pass.

    Fun-CosyVoice3's tiny folder is the smaller model folder; every section is also checked in-process
    by the tests of its stage (test_llm, test_flow_v3, test_hift, test_features), so this run tests
    the command: its sections, its report and its exit status.
    """
    return _run(cv3_dir, features_dir)


def _llm_only_copy(cv3_dir: Path, dst: Path) -> Path:
    """A copy of the tiny Fun-CosyVoice3 folder whose reference lists only llm.npz: one quick section."""
    shutil.copytree(cv3_dir, dst, symlinks=True)
    ref = dst / "reference"
    for p in ref.iterdir():
        p.chmod(0o644)
    manifest = json.loads((ref / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"] = {k: v for k, v in manifest["files"].items() if k == "llm.npz"}
    (ref / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return dst


def test_cli_passes_on_shipped_folders(shipped_run: subprocess.CompletedProcess[str]) -> None:
    res = shipped_run
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    for section in ("[llm]", "[flow]", "[stream]", "[hift]", "[features]"):
        assert section in out
    assert "FAIL" not in out.replace("FAILURES", "")
    assert out.strip().endswith("PASS")
    assert "greedy_tokens" in out and "tf_logits" in out


def test_cli_fails_on_doctored_reference(cv3_dir: Path, tmp_path: Path) -> None:
    d = _llm_only_copy(cv3_dir, tmp_path / "cv3")
    ref = d / "reference"
    arrays = dict(np.load(ref / "llm.npz"))
    arrays["tf_logits"] = arrays["tf_logits"] + np.float32(1e-2)
    arrays["greedy_tokens"] = arrays["greedy_tokens"].copy()
    arrays["greedy_tokens"][5] += 1
    np.savez(ref / "llm.npz", **arrays)
    res = _run(d)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "[llm]" in res.stdout and "[flow]" not in res.stdout  # only the listed reference is checked
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


# -- --device ---------------------------------------------------------------------------------


def test_cli_device_cpu_prints_what_the_default_prints(cv3_dir: Path, tmp_path: Path) -> None:
    d = _llm_only_copy(cv3_dir, tmp_path / "cv3")  # a model section, kept short
    default = _run(d)
    cpu = _run("--device", "cpu", d)
    assert cpu.returncode == default.returncode == 0, cpu.stdout + cpu.stderr
    assert _without_timings(cpu.stdout) == _without_timings(default.stdout)  # same checks, same errors
    assert f"== {d}\n" in cpu.stdout  # the header names no device on the CPU, as before
    assert "note:" not in cpu.stdout
    assert cpu.stdout.strip().endswith("PASS")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_cli_device_cuda_without_a_gpu_exits_2(tmp_path: Path) -> None:
    res = _run("--device", "cuda", tmp_path)  # the device is checked before the folder
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "no usable CUDA GPU" in lines[0] and "--device cpu" in lines[0]


@pytest.mark.parametrize("device", ["meta", "tpu:7", "cuda:x"])
def test_cli_rejects_a_name_that_is_not_a_usable_device(device: str, tmp_path: Path) -> None:
    res = _run("--device", device, tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip() == (f"error: {device!r} is not a device Cosy Studio can use; "
                                  "use auto, cpu, cuda, cuda:N or mps.")


def test_run_raises_typed_errors_for_bad_devices(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        run([tmp_path], device="meta")
    if not torch.cuda.is_available():
        with pytest.raises(ModelLoadError, match="no usable CUDA GPU"):
            run([tmp_path], device="cuda")
    with pytest.raises(ModelLoadError):
        run([tmp_path], device=f"cuda:{torch.cuda.device_count()}")  # one past the last GPU


def test_strict_float32_turns_tf32_off_on_cuda_and_restores_it() -> None:
    # The flags are plain process settings: they can be read and set without a GPU.
    saved = (torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32,
             torch.backends.cudnn.allow_tf32)
    try:
        torch.set_float32_matmul_precision("high")
        torch.backends.cudnn.allow_tf32 = True
        before = (torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32, True)
        with strict_float32(torch.device("cpu")):
            assert torch.get_float32_matmul_precision() == "high"  # the CPU path changes nothing
        with strict_float32(torch.device("cuda")):
            assert torch.get_float32_matmul_precision() == "highest"
            assert not torch.backends.cuda.matmul.allow_tf32
            assert not torch.backends.cudnn.allow_tf32
        after = (torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32,
                 torch.backends.cudnn.allow_tf32)
        assert after == before
    finally:
        torch.set_float32_matmul_precision(saved[0])
        torch.backends.cuda.matmul.allow_tf32 = saved[1]
        torch.backends.cudnn.allow_tf32 = saved[2]


@needs_cuda
def test_cli_runs_the_model_sections_on_cuda(cv2_dir: Path, cv3_dir: Path, features_dir: Path) -> None:
    res = _run("--device", "cuda", cv2_dir, cv3_dir, features_dir)
    out = res.stdout
    assert res.returncode == 0, out + res.stderr
    name = torch.cuda.get_device_name(torch.cuda.current_device())
    assert f"== {cv2_dir} (device cuda:{torch.cuda.current_device()}, {name})" in out
    for section in ("[llm]", "[flow]", "[stream]", "[hift]", "[features]"):
        assert section in out
    assert "note: [features] checks the CPU frontend and runs on the CPU, not cuda" in out
    assert "FAIL" not in out.replace("FAILURES", "")
    assert out.strip().endswith("PASS")
