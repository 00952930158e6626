"""``python -m cosycore.conformance`` on small folders, and on doctored ones (must fail).

The command runs in two subprocesses for the whole module, on one xdist worker (one run that
must pass, on the llm-only copy of the tiny Fun-CosyVoice3 folder and the resample cases; one that
must fail, on doctored copies) plus one for an exit status that needs a fresh process; the argument
errors go through the same ``main`` in this process. No whole model is run here: every section is
checked in-process by the tests of its stage (test_llm, test_flow_v2/v3, test_hift, test_features,
test_resample, and the stream section below), and which sections a folder gets is checked through
``sections_for`` without running them. So these runs test the command: its report and its exit status.
"""

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
from cosycore.conformance.runner import main, run, sections_for
from cosycore.conformance.streaming import check_streaming_schedule
from cosycore.errors import InputError, ModelLoadError

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.conformance  # one worker runs the module (tests/conftest.py): each run happens once
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _run(*args: Path | str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MKL_CBWR="COMPATIBLE")
    # the worker's share of the cores (tests/conftest.py): two threads beside a busy second worker spin
    threads = os.environ.get("COSY_THREADS", "2")
    return subprocess.run(
        [sys.executable, "-m", "cosycore.conformance", "--threads", threads, *map(str, args)],
        cwd=REPO, capture_output=True, text=True, timeout=900, env=env,
    )


def _without_timings(out: str) -> str:
    return re.sub(r"\(\d+\.\d s\)", "(s)", out)


def _block(out: str, folder: Path) -> str:
    """The lines the command printed for one folder (from its ``== folder`` header to the next)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"== {folder}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("== ")), len(lines) - 1)
    return "\n".join(lines[start:end])


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


def _resample_dir() -> Path:
    from tests.conftest import conformance_root

    path = conformance_root() / "resample"
    if not (path / "manifest.json").is_file():
        pytest.skip(f"conformance resample data not found at {path}; set COSY_CONFORMANCE_DIR")
    return path


class Folders:
    """The module's folders: the shipped ones, a quick llm-only copy and doctored copies."""

    def __init__(self, cv3_dir: Path, features_dir: Path, root: Path) -> None:
        self.cv3, self.features, self.resample = cv3_dir, features_dir, _resample_dir()
        self.llm = _llm_only_copy(cv3_dir, root / "llm-only")
        self.doctored = _llm_only_copy(cv3_dir, root / "doctored")
        ref = self.doctored / "reference"
        arrays = dict(np.load(ref / "llm.npz"))
        arrays["tf_logits"] = arrays["tf_logits"] + np.float32(1e-2)
        arrays["greedy_tokens"] = arrays["greedy_tokens"].copy()
        arrays["greedy_tokens"][5] += 1
        np.savez(ref / "llm.npz", **arrays)
        # the resample format under another name, with a case whose output is one sample short and one
        # whose samples are off by 1e-4: both must fail
        self.cases = json.loads((self.resample / "manifest.json").read_text(encoding="utf-8"))["cases"]
        self.resample_other = root / "resample-other"
        self.resample_other.mkdir()
        (self.resample_other / "manifest.json").write_text(
            (self.resample / "manifest.json").read_text(encoding="utf-8"), encoding="utf-8")
        arrays = dict(np.load(self.resample / "resample.npz"))
        first, second = self.cases[0]["name"], self.cases[1]["name"]
        arrays[f"{first}.to24000"] = arrays[f"{first}.to24000"][:, :-1]
        arrays[f"{second}.to16000"] = arrays[f"{second}.to16000"] + np.float32(1e-4)
        np.savez(self.resample_other / "data.npz", **arrays)


@pytest.fixture(scope="module")
def folders(cv3_dir: Path, features_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Folders:
    return Folders(cv3_dir, features_dir, tmp_path_factory.mktemp("conformance-cli"))


@pytest.fixture(scope="module")
def passing_run(folders: Folders) -> subprocess.CompletedProcess[str]:
    """The command once, with ``--device cpu``, on the llm-only copy (one quick model section) and the
    resample cases."""
    return _run("--device", "cpu", folders.llm, folders.resample)


@pytest.fixture(scope="module")
def failing_run(folders: Folders) -> subprocess.CompletedProcess[str]:
    """The command once, on the default device, over the doctored folders and the resample cases."""
    return _run(folders.doctored, folders.resample_other, folders.resample)


def test_cli_passes_on_shipped_folders(passing_run: subprocess.CompletedProcess[str], folders: Folders) -> None:
    res = passing_run
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    assert "[llm]" in _block(out, folders.llm)
    assert "[resample]" in _block(out, folders.resample)
    assert "FAIL" not in out.replace("FAILURES", "")
    assert out.strip().endswith("PASS")
    assert "greedy_tokens" in out and "tf_logits" in out


def test_each_kind_of_folder_gets_its_sections(cv2_dir: Path, cv3_dir: Path, features_dir: Path,
                                               folders: Folders) -> None:
    """What the command runs for each shipped folder (the sections themselves run in their stage tests)."""
    def names(target: Path) -> list[str]:
        return [name for name, _ in sections_for(target)]

    assert names(cv2_dir) == names(cv3_dir) == ["llm", "flow", "stream", "hift"]
    assert names(features_dir) == ["features"]
    assert names(folders.resample) == ["resample"]
    assert names(folders.llm) == ["llm"]  # only what the reference manifest lists


def test_stream_section_passes_on_the_shipped_model(cv3_dir: Path) -> None:
    """The [stream] section in-process: the token2wav schedule and its kept mels against the original's."""
    ref = cv3_dir / "reference"
    manifest = json.loads((ref / "manifest.json").read_text(encoding="utf-8"))
    results = check_streaming_schedule(cv3_dir, ref / "flow.npz", manifest)
    assert results and all(r.passed for r in results), [r for r in results if not r.passed]


def test_cli_fails_on_doctored_reference(failing_run: subprocess.CompletedProcess[str], folders: Folders) -> None:
    res = failing_run
    assert res.returncode == 1, res.stdout + res.stderr
    block = _block(res.stdout, folders.doctored)
    assert "[llm]" in block and "[flow]" not in block  # only the listed reference is checked
    names = " ".join(line for line in block.splitlines() if line.strip().startswith("FAIL "))
    assert "tf_logits" in names and "greedy_tokens" in names
    assert res.stdout.strip().endswith("FAIL")


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """``main`` here sets MKL_CBWR for MKL's later calls; it is put back for the tests that follow."""
    monkeypatch.setenv("MKL_CBWR", "COMPATIBLE")


@pytest.mark.usefixtures("in_process")
def test_cli_rejects_a_non_conformance_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 2
    assert "not a conformance folder" in capsys.readouterr().err


def test_cli_checks_every_resample_case(passing_run: subprocess.CompletedProcess[str],
                                        failing_run: subprocess.CompletedProcess[str], folders: Folders) -> None:
    block = _block(passing_run.stdout, folders.resample)
    for case in folders.cases:
        for target in (16000, 24000):
            assert f"ok   {case['name']}.to{target}" in block
    block = _block(failing_run.stdout, folders.resample_other)
    fails = " ".join(line for line in block.splitlines() if line.strip().startswith("FAIL "))
    first, second = folders.cases[0]["name"], folders.cases[1]["name"]
    assert f"{first}.to24000" in fails and f"{second}.to16000" in fails
    assert f"{first}.to16000" not in fails


# -- --device ---------------------------------------------------------------------------------


def test_cli_device_cpu_prints_what_the_default_prints(passing_run: subprocess.CompletedProcess[str],
                                                       failing_run: subprocess.CompletedProcess[str],
                                                       folders: Folders) -> None:
    cpu, default = _block(passing_run.stdout, folders.resample), _block(failing_run.stdout, folders.resample)
    assert _without_timings(cpu) == _without_timings(default)  # same checks, same errors
    assert cpu.startswith(f"== {folders.resample}\n")  # the header names no device on the CPU, as before
    assert "note:" not in passing_run.stdout
    assert "all pass" in cpu and "FAIL" not in cpu.replace("FAILURES", "")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_cli_device_cuda_without_a_gpu_exits_2(tmp_path: Path) -> None:
    res = _run("--device", "cuda", tmp_path)  # the device is checked before the folder
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "no usable CUDA GPU" in lines[0] and "--device cpu" in lines[0]


@pytest.mark.usefixtures("in_process")
@pytest.mark.parametrize("device", ["meta", "tpu:7", "cuda:x"])
def test_cli_rejects_a_name_that_is_not_a_usable_device(device: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--device", device, str(tmp_path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.strip() == (f"error: {device!r} is not a device Cosy Studio can use; "
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
