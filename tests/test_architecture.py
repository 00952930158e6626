"""The engine stays GUI-free (cosycore never imports PySide6, sounddevice, pyqtgraph or app) and
runtime code never imports the conformance checks. The import-linter contracts (the layers) are a
step of their own in installer/test.sh, as are ruff and mypy."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def fresh_imports() -> list[str]:
    """What a fresh interpreter has loaded: the GUI packages after importing cosycore's light modules, then
    the conformance modules after importing the engine too (one process for both tests: each import of torch
    costs seconds)."""
    code = (
        "import sys, cosycore, cosycore.config, cosycore.weights;"
        "print(','.join(m for m in ('PySide6','sounddevice','pyqtgraph') if m in sys.modules));"
        "import cosycore.engine, cosycore.model, cosycore.hub, cosycore.lm.vllm_backend;"
        "print(','.join(m for m in sys.modules if m.startswith('cosycore.conformance')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert len(lines) == 3 and lines[2] == "", out.stdout
    return lines[:2]


def test_importing_the_engine_loads_no_conformance_code(fresh_imports: list[str]) -> None:
    assert fresh_imports[1] == ""


def test_importing_cosycore_loads_no_gui(fresh_imports: list[str]) -> None:
    assert fresh_imports[0] == ""


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


def test_the_app_has_no_import_circle() -> None:
    assert import_circles("app") == []


def _app_modules_imported_by(source: str, package: str) -> set[str]:
    """Every app module ``source`` (a module of ``package``) imports: relative imports resolved, those
    under TYPE_CHECKING and inside functions included."""
    parts = package.split(".")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = parts[: len(parts) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in found if m == "app" or m.startswith("app.")}


def _sees_the_window(source: str) -> bool:
    return any(m == "app.main_window" or m.startswith("app.main_window.")
               for m in _app_modules_imported_by(source, "app.controllers"))


def test_no_controller_sees_the_main_window() -> None:
    files = sorted((REPO / "app" / "controllers").glob("*.py"))
    assert len(files) > 8, "app/controllers not found"
    assert [str(f.relative_to(REPO)) for f in files if _sees_the_window(f.read_text(encoding="utf-8"))] == []


def test_the_controller_scan_sees_the_window_however_imported() -> None:
    assert _sees_the_window("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..main_window import W\n")
    assert _sees_the_window("def f():\n    from .. import main_window\n")
    assert _sees_the_window("import app.main_window\n")
    assert not _sees_the_window("from ..session import StudioSession\nfrom .playback import PlaybackController\n")


# Builds the window as app.main does and lists the heavy modules loaded when its first paint event arrives; then
# lets the event loop run until the work put off until after that frame is done, and says whether the plots exist.
_FIRST_PAINT = """
import sys, tempfile, time
from pathlib import Path
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtWidgets import QApplication, QWidget
import app.main
from app.config.settings import AppPaths, Settings
from app.main_window import MainWindow
from app.widgets.waveform import WaveformView
qapp = QApplication([])
root = Path(tempfile.mkdtemp())
settings = Settings(QSettings(str(root / "settings.ini"), QSettings.Format.IniFormat),
                    AppPaths(data=root / "data", cache=root / "cache", logs=root / "logs"))
window = MainWindow(settings)
heavy = HEAVY
loaded = []
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if not loaded and event.type() == QEvent.Type.Paint and isinstance(obj, QWidget) and obj.window() is window:
            loaded.append(",".join(sorted(m for m in heavy if m in sys.modules)))
        return False
spy = FirstPaint()
qapp.installEventFilter(spy)
done = []
window.first_paint_done.connect(lambda: done.append(True))
window.show()
window.repaint()
deadline = time.monotonic() + 60
while not done and time.monotonic() < deadline:
    qapp.processEvents()
views = window.findChildren(WaveformView)
print("first paint:", loaded[0] if loaded else "none")
shown = all(v.plot.isVisible() == v.isVisible() for v in views)  # each plot shows where its placeholder did
print("after:", bool(done), len(views), all(v.is_built for v in views), shown, "pyqtgraph" in sys.modules)
window.close()
"""

# Seconds to import (torch) or tenths of seconds (pyqtgraph, PortAudio through sounddevice, the hub's HTTP and TLS
# modules), none needed for the first frame.
_NOT_BEFORE_FIRST_PAINT = ("torch", "cosycore.engine.core", "transformers", "wetext", "onnxruntime", "librosa",
                           "pyqtgraph", "sounddevice", "soundfile", "cosycore.hub", "http.client", "ssl")


def test_the_window_paints_before_torch_and_pyqtgraph_are_imported() -> None:
    """torch (seconds to import), the engine, wetext and onnxruntime load on the engine thread with the first
    model, after the window is up; pyqtgraph (the waveforms' plots), PortAudio and the model hub load right
    after the first frame, on the GUI thread (issue 25). An import check, not a timing."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    code = _FIRST_PAINT.replace("HEAVY", repr(_NOT_BEFORE_FIRST_PAINT))
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-2:] == ["first paint: ", "after: True 3 True True True"], out.stdout
