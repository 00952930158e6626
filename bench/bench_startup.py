"""Time to window and time to the first usable Speak, from a cold process (issue 25 items 1 and 2).

    .venv/bin/python -m bench.bench_startup --runs 3
    .venv/bin/python -m bench.bench_startup --runs 3 --checkout /tmp/base --checkout .   # compare commits

Each run starts the studio in a fresh process, as ``cosy-studio`` does (the interpreter settings, the
translations, the main window on the last session's model), with a copy of one prepared home (a
tiny CosyVoice2 model, a saved voice, Cross-lingual mode) and ALSA's null device. As soon as the
window has painted, the run presses Speak the way a user can: at once where the studio waits for the
model, else as soon as the studio appears. Measured from just before the process is started (wall
clock, ``CLOCK_MONOTONIC``), per run:

- window: the first paint of the main window;
- window_cpu: the CPU seconds the process used until then (user + system, all its threads): what a busy
  machine changes least, so the figure to compare when the machine cannot be had quiet;
- studio: the studio page (text, voices, takes) in view;
- model: the model loaded;
- first audio: the first chunk of the Speak's take, which is the time to the first usable Speak.

A ``--checkout`` is a source tree (``git worktree add /tmp/base <commit>``): its ``app`` and ``cosycore``
are imported, with this file as the driver, so an older commit is measured by the same code. A first
run per checkout warms the disk cache and is not counted. Nothing is asserted: the medians are printed.
Run it on a quiet machine and note ``uptime``'s load beside the figures.

Bytecode: an installed app, or a checkout that has run once, starts from its ``.pyc`` files. So each
checkout's runs get a bytecode cache of their own (``PYTHONPYCACHEPREFIX`` in the bench's scratch
folder, written by the uncounted first run), whatever ``PYTHONDONTWRITEBYTECODE`` says in the caller's
environment. ``--no-bytecode-cache`` measures the other case, as the test machine's shells run
(``PYTHONDONTWRITEBYTECODE=1``): installed packages start from their ``.pyc`` files, but a checkout
without ``__pycache__`` folders compiles every one of its modules at every start.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEXT = "Hello there."
STAGES = ("window", "window_cpu", "studio", "model", "first_audio")


def _prepare(work: Path) -> None:
    """The prepared home: a tiny model, a voice made by the engine, and the settings of a last session."""
    os.environ["COSY_STUDIO_HOME"] = str(work / "home")
    from cosycore.testing.tiny_model import write_tiny_model

    model = write_tiny_model(work / "tiny-cv2", "cosyvoice2", seed=0).model_dir
    import numpy as np

    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    t = np.arange(4 * 24000) / 24000
    audio = (0.3 * np.sin(2 * np.pi * 140 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 4 * t))).astype(np.float32)
    voice = Engine(model, device="cpu").create_voice(audio, 24000, transcript="Hello, this is me.", name="Bench")
    from app.config.settings import Settings

    settings = Settings()
    VoiceLibrary(settings.paths.voices).add(voice)
    settings.model_folder = model
    settings.voice_name = "Bench"
    settings.mode = "cross_lingual"
    settings.sync()


def _child(home: Path, started: float) -> None:
    """One start of the studio; prints the stages' times (seconds since ``started``) as JSON."""
    os.environ["COSY_STUDIO_HOME"] = str(home)
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    from app.main import install_translators, prepare_interpreter

    prepare_interpreter()
    app = QApplication(sys.argv[:1])
    from app.config.settings import Settings

    settings = Settings()
    install_translators(app, "en")
    from app.main_window import MainWindow

    times: dict[str, float] = {}

    def mark(stage: str) -> None:
        times.setdefault(stage, time.clock_gettime(time.CLOCK_MONOTONIC) - started)

    window = MainWindow(settings)

    def speak_when_possible() -> None:
        studio = window.stack.currentWidget() is window.studio
        waits = getattr(window.session, "speak_waiting", None) is not None  # this commit queues a Speak
        if studio:
            mark("studio")
        if (studio and waits) or window.session.model_info is not None:
            window.editor.set_text(TEXT)
            window.controls.speak_button.click()
            mark("speak")
            return
        QTimer.singleShot(10, speak_when_possible)

    class FirstPaint(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
            first = "window" not in times
            if first and event.type() == QEvent.Type.Paint and isinstance(obj, QWidget) and obj.window() is window:
                mark("window")
                times["window_cpu"] = time.process_time()  # the process's CPU seconds until then
                QTimer.singleShot(0, speak_when_possible)
            return False

    painted = FirstPaint()
    app.installEventFilter(painted)
    window.stack.currentChanged.connect(lambda _i: window.stack.currentWidget() is window.studio and mark("studio"))
    window.session.model_changed.connect(lambda info: info is not None and mark("model"))

    def on_grew(_take: object, _chunk: object, first: bool) -> None:
        if first:
            mark("first_audio")
            print("BENCH " + json.dumps(times), flush=True)
            window.session.engine.stop()
            window.close()
            app.quit()

    window.session.take_grew.connect(on_grew)
    window.show()
    QTimer.singleShot(600_000, app.quit)
    app.exec()


def _run(checkout: Path, template: Path, scratch: Path, pycache: Path | None) -> dict[str, float]:
    home = scratch / "home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(template / "home", home)
    env = {**os.environ, "PYTHONPATH": str(checkout), "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "ALSA_CONFIG_PATH": str(template / "asound.conf")}
    env.pop("PYTHONPYCACHEPREFIX", None)
    if pycache is None:  # installed packages keep their .pyc files; a checkout without __pycache__ compiles
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    started = time.clock_gettime(time.CLOCK_MONOTONIC)
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(home), repr(started)],
                         cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    lines = [line for line in out.stdout.splitlines() if line.startswith("BENCH ")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"the studio did not speak (exit {out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(lines[-1][len("BENCH "):])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="counted runs per checkout (after one warm-up run)")
    parser.add_argument("--checkout", type=Path, action="append", help="source tree to measure (default: this one)")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile every module from its source at every start (no .pyc files read or written)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(Path(args.child[0]), float(args.child[1]))
        return 0
    if args.prepare:
        _prepare(args.prepare)
        return 0
    checkouts = [c.resolve() for c in (args.checkout or [REPO])]
    work = Path(tempfile.mkdtemp(prefix="cosy-startup-"))
    (work / "asound.conf").write_text('pcm.!default { type plug slave.pcm "nullsink" }\npcm.nullsink { type null }\n',
                                      encoding="utf-8")
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--prepare", str(work)], cwd=REPO,
                   env={**os.environ, "PYTHONPATH": str(REPO)}, check=True, capture_output=True)
    results: dict[Path, list[dict[str, float]]] = {c: [] for c in checkouts}
    caches = {c: None if args.no_bytecode_cache else work / f"pycache-{k}" for k, c in enumerate(checkouts)}
    for c in checkouts:
        _run(c, work, work / "scratch", caches[c])  # warms the disk cache (and writes the .pyc files); not counted
    for _ in range(args.runs):
        for c in checkouts:  # interleaved, so a change in the machine's load touches every checkout alike
            results[c].append(_run(c, work, work / "scratch", caches[c]))
            print(f"{c}: " + "  ".join(f"{s} {results[c][-1][s]:.2f}" for s in STAGES), flush=True)
    bytecode = "compiled at every start" if args.no_bytecode_cache else "from cached .pyc files"
    print(f"median of {args.runs} runs, seconds from the process start, modules {bytecode} "
          f"(stages: {', '.join(STAGES)})")
    for c, runs in results.items():
        medians = {s: statistics.median(r[s] for r in runs) for s in STAGES}
        spread = {s: (min(r[s] for r in runs), max(r[s] for r in runs)) for s in STAGES}
        print(f"{c}: " + "  ".join(f"{s} {medians[s]:.2f} ({spread[s][0]:.2f}-{spread[s][1]:.2f})" for s in STAGES))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
