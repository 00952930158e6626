"""The engine stays GUI-free (cosycore never imports PySide6, sounddevice, pyqtgraph or app) and
runtime code never imports the conformance checks. The import-linter contracts (the layers) are a
step of their own in installer/test.sh, as are ruff and mypy."""

from __future__ import annotations

import ast
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


# Not runtime: the reference comparisons themselves, the test fixtures and the CLI, which runs them.
NOT_RUNTIME = ("cosycore/conformance/", "cosycore/testing/", "cosycore/__main__.py")


def _imported_cosycore_modules(source: str, package: str) -> set[str]:
    """Every cosycore module ``source`` (a module of ``package``) imports: relative imports resolved,
    imports inside functions included."""
    pkg = package.split(".")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in found if m == "cosycore" or m.startswith("cosycore.")}


def test_runtime_modules_never_import_conformance() -> None:
    files = [f for f in sorted((REPO / "cosycore").rglob("*.py"))
             if not str(f.relative_to(REPO).as_posix()).startswith(NOT_RUNTIME)]
    assert len(files) > 20, "cosycore's runtime modules not found"
    offenders = {}
    for f in files:
        package = ".".join(f.relative_to(REPO).parent.parts)
        imported = _imported_cosycore_modules(f.read_text(encoding="utf-8"), package)
        offenders[str(f.relative_to(REPO))] = sorted(
            m for m in imported if m == "cosycore.conformance" or m.startswith("cosycore.conformance."))
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_import_scan_sees_relative_and_lazy_imports() -> None:
    source = "import cosycore.conformance.lm\ndef f():\n    from ..conformance import checks\n    from . import cache\n"
    got = _imported_cosycore_modules(source, "cosycore.flow")
    assert {"cosycore.conformance.lm", "cosycore.conformance", "cosycore.conformance.checks",
            "cosycore.flow.cache"} <= got
    assert _imported_cosycore_modules("from .checks import compare\n", "cosycore.conformance") == {
        "cosycore.conformance.checks", "cosycore.conformance.checks.compare"}


def test_importing_the_engine_loads_no_conformance_code() -> None:
    code = (
        "import sys, cosycore.engine, cosycore.model, cosycore.hub, cosycore.lm.vllm_backend;"
        "print(','.join(m for m in sys.modules if m.startswith('cosycore.conformance')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_importing_cosycore_loads_no_gui() -> None:
    code = (
        "import sys, cosycore, cosycore.config, cosycore.weights;"
        "bad=[m for m in ('PySide6','sounddevice','pyqtgraph') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
