"""Walk the studio as a new user, from a fresh home folder, on a real X window with a real-time sound card.

    .venv/bin/python -m docs.screenshots.studio_walk /tmp/studio-walk [--model DIR]

The launcher starts its own Xvfb screen (1400x900), a PulseAudio daemon whose only output is a null sink
(ALSA's default device points at it, so playback runs in real time), and a home folder of its own
(``HOME`` and every ``XDG_*`` folder in a new temporary folder; no ``COSY_STUDIO_*`` overrides). The
model is a tiny random-weight CosyVoice2 folder made by :mod:`cosycore.testing.tiny_model` unless
``--model`` names one (noise-like speech: the flow and the screens are what is walked), and the voice is
made from an espeak-ng recording. Then the app runs twice, each time in a new process, driven from inside
by keys and clicks through Qt's event queue (``QTest``) on the real widgets; file dialogs are answered as
a user would answer them (the path typed).

First run (no model yet): choose the model folder → make a voice from the clip in the recorder (Ctrl+R,
Open file…, name, transcript, Save as voice) → type three sentences, Ctrl+Enter, Esc while it streams →
Speak again to the end → Ctrl+G on the take, Regenerate the second sentence → Ctrl+T, trim the take and
Apply → Ctrl+E, export MP3 → Ctrl+Shift+S, save the project → Ctrl+Q.

Second run (same home folder): the project and its takes (the trim, the regenerated version) are back
while the model loads; Ctrl+Enter pressed during the load waits under the bar and speaks when the model is
ready → Script mode: a two-speaker script, both cast as the voice, Speak → Ctrl+E, export the script
take with SRT subtitles → Ctrl+S → Ctrl+Q.

Every step prints what it checked; a screenshot of the whole X screen is taken at each step into the
output folder (``NN-name.png``). Exit status 1 when a check failed.
Needs (Debian): xvfb imagemagick espeak-ng pulseaudio pulseaudio-utils libasound2-plugins.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROMPT = "Hello, this is a short recording of my voice, made for testing the studio."
TEXT = "The lighthouse stood on the cliff. Its lamp turned all night long. Ships passed it safely."
SCRIPT = "Anna: Did you see the light last night?\nBen: I did. It never stopped turning.\n"
VOICE = "Walker"
PROJECT = "Lighthouse"


# -- the launcher: screen, sound server, fresh home --------------------------------------------------------

def _desktop(work: Path) -> tuple[dict[str, str], list[subprocess.Popen]]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XDG_", "COSY_STUDIO_", "DBUS_", "PULSE_", "ALSA_", "QT_", "DISPLAY"))}
    home = work / "home"
    for sub in ("home", "run", "home/.config", "home/.local/share", "home/.cache"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    (work / "run").chmod(0o700)
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(work / "run"), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), XDG_CACHE_HOME=str(home / ".cache"), LANG="C.UTF-8",
               PYTHONPATH=str(REPO))
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as fh:
        env["DISPLAY"] = ":" + fh.readline().strip()
    subprocess.run(["pulseaudio", "-D", "--exit-idle-time=-1", "-n", "--load=module-null-sink",
                    "--load=module-native-protocol-unix", f"--log-target=file:{work / 'pulse.log'}"],
                   env=env, check=True)
    conf = work / "asound.conf"  # ALSA's default device is PulseAudio, as on a desktop
    conf.write_text("</usr/share/alsa/alsa.conf>\npcm.!default { type pulse }\nctl.!default { type pulse }\n",
                    encoding="utf-8")
    env["ALSA_CONFIG_PATH"] = str(conf)
    return env, [xvfb]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--run", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        return _app_run(args.run, args.work, args.out)
    work = Path(tempfile.mkdtemp(prefix="cosy-studio-walk-"))
    args.out.mkdir(parents=True, exist_ok=True)
    env, procs = _desktop(work)
    try:
        model = args.model
        if model is None:
            model = work / "tiny-cv2"
            subprocess.run([sys.executable, "-m", "cosycore.testing.tiny_model", str(model), "--family", "cosyvoice2"],
                           env=env, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        subprocess.run(["espeak-ng", "-w", str(work / "clip.wav"), PROMPT], check=True)
        (work / "walk.json").write_text(json.dumps({"model": str(model.resolve())}), encoding="utf-8")
        for run in (1, 2):
            print(f"== run {run} ==", flush=True)
            code = subprocess.run([sys.executable, "-m", "docs.screenshots.studio_walk", str(args.out.resolve()),
                                   "--run", str(run), "--work", str(work)], env=env, cwd=REPO, check=False).returncode
            if code:
                print(f"run {run} ended with status {code}", flush=True)
                return 1
        print("walk passed; screenshots in", args.out, flush=True)
        return 0
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, check=False)
        for p in procs:
            p.terminate()
            p.wait(10)


# -- inside the app ------------------------------------------------------------------------------------

class Walk:
    """The app's window, the steps still to do, the checks that failed, and the screenshots taken."""

    def __init__(self, app, window, out: Path, first_shot: int) -> None:
        self.app, self.w, self.out = app, window, out
        self.steps: list[tuple[str, Callable[[], bool], Callable[[], None]]] = []
        self.failures: list[str] = []
        self.shot_number = first_shot
        self.t0 = time.monotonic()

    def step(self, name: str, ready: Callable[[], bool], action: Callable[[], None]) -> None:
        self.steps.append((name, ready, action))

    def check(self, what: str, ok: bool) -> None:
        print(("  ok    " if ok else "  FAIL  ") + what, flush=True)
        if not ok:
            self.failures.append(what)

    def shot(self, name: str) -> None:
        self.w.waveform.redraw()
        for _ in range(4):
            self.app.processEvents()
        target = self.out / f"{self.shot_number:02d}-{name}.png"
        self.shot_number += 1
        subprocess.run(["import", "-window", "root", str(target)], check=True)
        print(f"  shot  {target.name}  ({time.monotonic() - self.t0:.1f} s)", flush=True)

    def key(self, widget, key, modifiers=None) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        window = widget.window()
        if not window.isActiveWindow():  # no window manager gives it back after a dialog closes
            window.activateWindow()
            QTest.qWaitForWindowActive(window, 3000)
        QTest.keyClick(widget, key, modifiers or Qt.KeyboardModifier.NoModifier)

    def click(self, widget, pos=None) -> None:
        from PySide6.QtCore import QPoint, Qt
        from PySide6.QtTest import QTest

        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos or QPoint())

    def modal(self, kind):
        from PySide6.QtWidgets import QApplication

        box = QApplication.activeModalWidget()
        return box if isinstance(box, kind) else None

    def run(self, timeout_s: float) -> int:
        from PySide6.QtCore import QTimer

        def tick() -> None:
            if not self.steps:
                return
            name, ready, action = self.steps[0]
            if ready():
                self.steps.pop(0)
                print(f"{time.monotonic() - self.t0:6.1f}  {name}", flush=True)
                try:
                    action()
                except Exception as e:
                    self.failures.append(f"{name}: {type(e).__name__}: {e}")
                    self.steps.clear()
                    self.app.quit()

        timer = QTimer()
        timer.timeout.connect(tick)
        timer.start(150)

        def give_up() -> None:
            status = self.w.statusBar().currentMessage()
            self.failures.append(f"timed out at {self.steps[0][0] if self.steps else '?'} "
                                 f"(status: {status!r}; last error: {self.w.last_message})")
            self.shot("timed-out")
            self.app.quit()

        QTimer.singleShot(int(timeout_s * 1000), give_up)
        self.app.exec()
        if self.steps and not self.failures:
            self.failures.append(f"stopped before: {self.steps[0][0]}")
        print("FAILED: " + "; ".join(self.failures) if self.failures else "run passed", flush=True)
        return 1 if self.failures else 0


def _app_run(run: int, work: Path, out: Path) -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QFileDialog

    from app.config.settings import APP_AUTHOR, APP_NAME, Settings
    from app.main import install_translators, prepare_interpreter

    prepare_interpreter()
    app = QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_AUTHOR)
    settings = Settings()
    install_translators(app, "en")
    from app.main_window import MainWindow

    window = MainWindow(settings)  # as `cosy-studio` starts it: the last model and project come back by themselves
    window.move(10, 10)
    window.show()
    window.activateWindow()
    walk = Walk(app, window, out, first_shot=1 if run == 1 else 20)
    model = Path(json.loads((work / "walk.json").read_text(encoding="utf-8"))["model"])
    answers: dict[str, str] = {}  # what the user types into the next file dialog, by dialog
    QFileDialog.getExistingDirectory = staticmethod(lambda *a, **k: answers.pop("folder"))
    QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: (answers.pop("open"), ""))
    QFileDialog.getSaveFileName = staticmethod(lambda *a, **k: (answers.pop("save"), answers.pop("filter", "")))
    ctrl = Qt.KeyboardModifier.ControlModifier
    from docs.screenshots.studio_walk_steps import first_run, second_run

    if run == 1:
        first_run(walk, work, model, answers, ctrl)
    else:
        second_run(walk, work, answers, ctrl)
    return walk.run(600)


if __name__ == "__main__":
    raise SystemExit(main())
