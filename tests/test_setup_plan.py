"""installer/setup.sh picks the torch build that fits the machine (its --print-plan; nothing is installed).

A fake ``nvidia-smi`` stands in for the GPU, and a throwaway find-links folder for pip's local wheels.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "installer" / "setup.sh"
TORCH = "2.13.0"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="setup.sh needs bash")

SMI_WITH_GPU = """#!/bin/sh
if [ "$1" = -L ]; then echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0123)"; exit 0; fi
echo "| NVIDIA-SMI 580.65   Driver Version: 580.65   CUDA Version: {cuda}     |"
"""
SMI_NO_DRIVER = """#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
exit 9
"""


def _fake_wheel(folder: Path, version: str) -> None:
    """A minimal wheel named torch-VERSION: enough for pip to resolve it, never installed."""
    dist_info = f"torch-{version}.dist-info"
    with zipfile.ZipFile(folder / f"torch-{version}-py3-none-any.whl", "w") as z:
        z.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        z.writestr(f"{dist_info}/WHEEL",
                   "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{dist_info}/RECORD", "")


def plan(tmp_path: Path, *args: str, smi: str | None = None, proc_gpu: bool = False, local_cpu_wheel: bool = False,
         venv_torch: str | None = None, uname: tuple[str, str] = ("Linux", "x86_64"),
         check: bool = True) -> dict[str, str] | subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    smi_path = bin_dir / "nvidia-smi"
    if smi is not None:
        smi_path.write_text(smi)
        smi_path.chmod(0o755)
    proc = tmp_path / "proc-gpus"
    proc.mkdir(exist_ok=True)
    if proc_gpu:
        (proc / "0000:01:00.0").mkdir(exist_ok=True)
    links = tmp_path / "links"
    links.mkdir(exist_ok=True)
    if local_cpu_wheel:
        _fake_wheel(links, f"{TORCH}+cpu")
    venv = tmp_path / "venv"
    if venv_torch is not None:  # a venv whose python reports this torch version through its metadata
        site = tmp_path / "site"
        (site / f"torch-{venv_torch}.dist-info").mkdir(parents=True, exist_ok=True)
        (site / f"torch-{venv_torch}.dist-info" / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: torch\nVersion: {venv_torch}\n")
        (venv / "bin").mkdir(parents=True, exist_ok=True)
        py = venv / "bin" / "python"
        py.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" -S "$@"\n')
        py.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHON": sys.executable,
        "COSY_VENV": str(venv),
        "COSY_NVIDIA_SMI": str(smi_path),
        "COSY_NVIDIA_PROC": str(proc),
        "COSY_UNAME_S": uname[0],
        "COSY_UNAME_M": uname[1],
        # pip sees only the throwaway find-links folder: no config files, no index, no network
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_FIND_LINKS": str(links),
        "PIP_NO_CACHE_DIR": "1",
    }
    res = subprocess.run(["bash", str(SETUP), "--print-plan", *args], capture_output=True, text=True, env=env,
                         timeout=120)
    if not check:
        return res
    assert res.returncode == 0, res.stderr
    out = dict(line.split("=", 1) for line in res.stdout.splitlines() if "=" in line)
    out["stderr"] = res.stderr
    return out


def test_no_gpu_and_no_local_wheel_takes_the_pytorch_cpu_index(tmp_path: Path) -> None:
    p = plan(tmp_path)
    assert (p["gpu"], p["build"]) == ("none", "cpu")
    assert p["spec"] == f"torch=={TORCH}+cpu"
    assert p["index"] == "--index-url https://download.pytorch.org/whl/cpu"
    assert p["action"] == "install"


def test_a_local_cpu_wheel_is_used_without_any_index(tmp_path: Path) -> None:
    p = plan(tmp_path, local_cpu_wheel=True)
    assert (p["build"], p["spec"], p["index"]) == ("cpu", f"torch=={TORCH}+cpu", "")
    assert "find-links" in p["source"]


def test_nvidia_smi_that_fails_means_no_gpu(tmp_path: Path) -> None:
    p = plan(tmp_path, smi=SMI_NO_DRIVER)
    assert (p["gpu"], p["build"]) == ("none", "cpu")


def test_a_gpu_gets_the_cuda_build_from_pypi(tmp_path: Path) -> None:
    p = plan(tmp_path, smi=SMI_WITH_GPU.format(cuda="13.0"), local_cpu_wheel=True)
    assert (p["gpu"], p["build"]) == ("nvidia", "cuda")
    assert "H100" in p["why"]
    assert p["spec"] == f"torch==={TORCH}"  # '===' so that the local +cpu wheel cannot satisfy it
    assert p["index"] == ""
    assert "warning" not in p["stderr"]


def test_an_old_driver_is_told_which_index_to_use(tmp_path: Path) -> None:
    p = plan(tmp_path, smi=SMI_WITH_GPU.format(cuda="12.4"))
    assert p["build"] == "cuda"
    assert "CUDA 12.4" in p["stderr"] and "--torch-index https://download.pytorch.org/whl/cu126" in p["stderr"]


def test_the_driver_in_proc_counts_as_a_gpu(tmp_path: Path) -> None:
    p = plan(tmp_path, proc_gpu=True)
    assert (p["gpu"], p["build"]) == ("nvidia", "cuda")


def test_cpu_and_cuda_override_the_detection(tmp_path: Path) -> None:
    p = plan(tmp_path, "--cpu", smi=SMI_WITH_GPU.format(cuda="13.0"))
    assert (p["gpu"], p["build"], p["why"]) == ("nvidia", "cpu", "--cpu")
    other = tmp_path / "no-gpu"
    other.mkdir()
    p = plan(other, "--cuda")
    assert (p["gpu"], p["build"], p["spec"]) == ("none", "cuda", f"torch==={TORCH}")
    assert "no NVIDIA GPU was detected" in p["stderr"]


def test_torch_index_overrides_the_source(tmp_path: Path) -> None:
    url = "https://download.pytorch.org/whl/cu126"
    p = plan(tmp_path, "--torch-index", url, smi=SMI_WITH_GPU.format(cuda="12.4"))
    assert (p["build"], p["spec"], p["index"]) == ("cuda", f"torch=={TORCH}", f"--index-url {url}")
    assert "warning" not in p["stderr"]


def test_macos_takes_pypi_and_refuses_cuda(tmp_path: Path) -> None:
    p = plan(tmp_path, uname=("Darwin", "arm64"))
    assert (p["build"], p["spec"], p["index"]) == ("cpu", f"torch=={TORCH}", "")
    res = plan(tmp_path, "--cuda", uname=("Darwin", "arm64"), check=False)
    assert isinstance(res, subprocess.CompletedProcess)
    assert res.returncode == 2 and "macOS has no CUDA" in res.stderr


def test_linux_arm_cpu_is_pypi_and_cuda_needs_an_index(tmp_path: Path) -> None:
    p = plan(tmp_path, uname=("Linux", "aarch64"))
    assert (p["build"], p["spec"], p["index"]) == ("cpu", f"torch=={TORCH}", "")
    res = plan(tmp_path, uname=("Linux", "aarch64"), smi=SMI_WITH_GPU.format(cuda="13.0"), check=False)
    assert isinstance(res, subprocess.CompletedProcess)
    assert res.returncode == 2 and "--torch-index" in res.stderr


def test_windows_shells_are_sent_to_the_readme(tmp_path: Path) -> None:
    res = plan(tmp_path, uname=("MINGW64_NT-10.0-22631", "x86_64"), check=False)
    assert isinstance(res, subprocess.CompletedProcess)
    assert res.returncode == 2 and "installer/README.md" in res.stderr


@pytest.mark.parametrize(("installed", "args", "action"), [
    (f"{TORCH}+cpu", (), "keep"),
    ("2.12.0+cpu", (), "install"),
    (f"{TORCH}+cpu", ("--cuda",), "install"),
    (TORCH, ("--cuda",), "keep"),            # PyPI's Linux x86-64 wheel is the CUDA build
    (TORCH, ("--cpu",), "install"),
])
def test_an_installed_torch_is_kept_only_when_it_is_the_wanted_build(
        tmp_path: Path, installed: str, args: tuple[str, ...], action: str) -> None:
    p = plan(tmp_path, *args, venv_torch=installed, local_cpu_wheel=True)
    assert p["installed"] == installed
    assert p["action"] == action


def test_unknown_option_is_a_usage_error(tmp_path: Path) -> None:
    res = plan(tmp_path, "--gpu", check=False)
    assert isinstance(res, subprocess.CompletedProcess)
    assert res.returncode == 2 and "unknown option --gpu" in res.stderr
