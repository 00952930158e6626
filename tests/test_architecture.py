"""The engine stays GUI-free: cosycore never imports PySide6, sounddevice, pyqtgraph or app."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FORBIDDEN = {"PySide6", "sounddevice", "pyqtgraph", "app"}


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_cosycore_source_imports_no_gui() -> None:
    files = sorted((REPO / "cosycore").rglob("*.py"))
    assert files, "cosycore has no modules?"
    offenders = {str(f.relative_to(REPO)): sorted(_imported_roots(f) & FORBIDDEN) for f in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_import_linter_contracts() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is part of the dev extra; run installer/setup.sh --dev"
    result = subprocess.run([exe], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken" in result.stdout


def test_importing_cosycore_loads_no_gui() -> None:
    code = (
        "import sys, cosycore, cosycore.config, cosycore.weights;"
        "bad=[m for m in ('PySide6','sounddevice','pyqtgraph') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
