"""The engine stays GUI-free (cosycore never imports PySide6, sounddevice, pyqtgraph or app), its
packages keep their layers, and runtime code never imports the conformance checks."""

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
    assert "Contracts: 5 kept, 0 broken" in result.stdout


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


def import_circles(*packages: str) -> list[list[str]]:
    """Every import circle among the modules of ``packages``: the strongly connected components of
    their import graph with more than one module (or a module importing itself). Imports inside
    functions and under ``TYPE_CHECKING`` count: a circle through an annotation is still one that a
    reader has to untangle."""
    import grimp

    graph = grimp.build_graph(*packages, cache_dir=None, exclude_type_checking_imports=False)
    modules = sorted(m for m in graph.modules if m.split(".")[0] in packages)
    edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i.split(".")[0] in packages)
             for m in modules}
    # Tarjan's algorithm, iterative (no recursion limit on a deep import chain).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    circles.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return circles


def test_the_engine_has_no_import_circle() -> None:
    assert import_circles("cosycore") == []


def test_the_circle_scan_sees_a_circle_through_type_checking(tmp_path: Path, monkeypatch) -> None:
    pkg = tmp_path / "circles_demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n")
    (pkg / "c.py").write_text("def f():\n    from .a import b\n")
    (pkg / "d.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_circles("circles_demo") == [["circles_demo.a", "circles_demo.b", "circles_demo.c"]]
