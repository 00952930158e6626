"""Static checks run with the suite: ruff over the code, mypy over the engine."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    exe = shutil.which(name, path=str(Path(sys.executable).parent))
    assert exe, f"{name} is part of the dev extra; run installer/setup.sh --dev"
    return exe


def test_ruff_is_clean() -> None:
    res = subprocess.run([_tool("ruff"), "check", "cosycore", "app", "bench", "tests", "main.py"],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_is_clean_on_the_engine() -> None:
    res = subprocess.run([_tool("mypy")], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
