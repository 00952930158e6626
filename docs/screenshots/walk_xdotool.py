"""Walk through Cosy Studio with real input events, as a new user would, and start it again.

    /usr/bin/python3 docs/screenshots/walk_xdotool.py --out /tmp/walk [--python .venv/bin/python] [--model DIR]

Unlike ``walk.py`` (which drives widgets through Qt's event queue inside the app's process), this
script stays outside the app: it starts ``python main.py`` as a user would, moves the X pointer and
presses keys with ``xdotool``, and reads what the screen shows through the accessibility bus
(AT-SPI, as a screen reader does), which also says where each button is, so that the mouse can aim
at it. Everything runs in a fresh home folder (``HOME`` and ``XDG_RUNTIME_DIR`` in a temporary
folder, no ``XDG_*`` or ``COSY_STUDIO_*`` overrides), on its own Xvfb screen, with a PulseAudio null
sink as the sound card: it plays in real time, like a real one (ALSA's null device has no clock).

The walk: the no-model screen → "Choose model folder…" (mouse) and the folder typed into the file
dialog → "From file…" (mouse), the clip's path typed, its name and transcript typed, "Save as voice"
and "Close" (mouse) → text typed, take 1 with Ctrl+Enter (keyboard) → take 2 with the Speak button
(mouse) → take 1 clicked in the Takes list and renamed with F2 → an unfinished text typed → Ctrl+Q.
Second start on the same home folder: the two takes (one renamed), the voice and the text are back;
a take clicked and played with its Play button, which turns into Stop while the sink plays it; Stop
clicked; Ctrl+Q. Each step prints what it checked, screenshots go to ``--out``; exit status 1 when
a check failed. The tiny model (random weights, built with ``cosycore.testing.tiny_model`` unless
``--model`` names a folder) makes noise-like speech; the flow is what is walked.

Needs (Debian): xvfb xdotool imagemagick espeak-ng dbus at-spi2-core python3-pyatspi pulseaudio
pulseaudio-utils libasound2-plugins. Run it with the system Python that has ``pyatspi`` (Debian's
``/usr/bin/python3``); the app runs with ``--python`` (default: the repository's ``.venv``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APP_TITLE = "Cosy Studio"
PROMPT = "Hello, this is a short recording of my voice, made for testing the studio."
TEXT = "Hello there. This is my first take, spoken in the new voice."
UNFINISHED = "A text I was still typing when I quit"
TAKE_NAME = "The first take"
TOOLS = ("Xvfb", "xdotool", "import", "espeak-ng", "dbus-daemon", "pulseaudio", "pactl")
ATSPI_LAUNCHER = Path("/usr/libexec/at-spi-bus-launcher")


class WalkError(Exception):
    """A step did not come about in time; the walk stops there."""


_T0 = time.monotonic()


def log(line: str) -> None:
    """One line of the walk's log, with the seconds since the start."""
    print(f"{time.monotonic() - _T0:7.1f}  {line}", flush=True)


# --------------------------------------------------------------------------------------------
# The desktop: screen, session bus, accessibility bus, sound server
# --------------------------------------------------------------------------------------------


class Desktop:
    """A private X screen, D-Bus session with the accessibility bus, and a PulseAudio null sink."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.home = work / "home"
        self.runtime = work / "run"
        self.home.mkdir(parents=True)
        self.runtime.mkdir(mode=0o700)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("XDG_", "COSY_STUDIO_", "DBUS_", "PULSE_", "ALSA_", "QT_"))}
        self.env.update(HOME=str(self.home), XDG_RUNTIME_DIR=str(self.runtime), LANG="C.UTF-8")
        self._procs: list[subprocess.Popen] = []
        self._dbus_pid: int | None = None

    def start(self) -> None:
        read, write = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                                pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        self._procs.append(xvfb)
        with os.fdopen(read) as fh:
            display = fh.readline().strip()
        if not display:
            raise WalkError("Xvfb did not start")
        self.env["DISPLAY"] = f":{display}"
        out = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                             env=self.env, capture_output=True, text=True, check=True).stdout.split()
        self.env["DBUS_SESSION_BUS_ADDRESS"], self._dbus_pid = out[0], int(out[1])
        # The accessibility bus, over which Qt describes its widgets (QT_LINUX_ACCESSIBILITY_ALWAYS_ON).
        self._procs.append(subprocess.Popen([str(ATSPI_LAUNCHER), "--launch-immediately"], env=self.env,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
        subprocess.run(["pulseaudio", "-D", "--exit-idle-time=-1", "-n", "--load=module-null-sink",
                        "--load=module-native-protocol-unix", f"--log-target=file:{self.work / 'pulse.log'}"],
                       env=self.env, check=True)
        conf = self.work / "asound.conf"  # ALSA's default device is PulseAudio (as on a desktop)
        conf.write_text("</usr/share/alsa/alsa.conf>\npcm.!default { type pulse }\nctl.!default { type pulse }\n",
                        encoding="utf-8")
        self.env.update(ALSA_CONFIG_PATH=str(conf), QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1", QT_ACCESSIBILITY="1")
        os.environ.update({k: self.env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")})  # for pyatspi here
        time.sleep(1.0)

    def stop(self) -> None:
        subprocess.run(["pulseaudio", "--kill"], env=self.env, check=False)
        if self._dbus_pid:
            os.kill(self._dbus_pid, signal.SIGTERM)
        for p in reversed(self._procs):
            if p.poll() is None:
                if p.args[0] == str(ATSPI_LAUNCHER):
                    os.killpg(p.pid, signal.SIGTERM)  # its group: the a11y bus daemon and registry it started
                else:
                    p.terminate()
                p.wait(10)

    def run(self, *args: str) -> str:
        return subprocess.run(list(args), env=self.env, capture_output=True, text=True, check=True).stdout


# --------------------------------------------------------------------------------------------
# What the screen shows (AT-SPI) and real input (xdotool)
# --------------------------------------------------------------------------------------------


class Screen:
    def __init__(self, desktop: Desktop, out: Path) -> None:
        import pyatspi  # Debian's python3-pyatspi

        self.at = pyatspi
        self.desktop = desktop
        self.out = out

    # -- finding -----------------------------------------------------------------------------
    def app(self):
        for app in self.at.Registry.getDesktop(0):
            if app is not None and app.name == APP_TITLE:
                return app
        return None

    def window(self, title: str):
        app = self.app()
        if app is None:
            return None
        for i in range(app.childCount):
            w = app.getChildAtIndex(i)
            if w is not None and w.name == title and self.showing(w):
                return w
        return None

    def box(self, acc) -> tuple[int, int, int, int]:
        e = acc.queryComponent().getExtents(self.at.DESKTOP_COORDS)
        return e.x, e.y, e.width, e.height

    def showing(self, acc) -> bool:
        try:
            return acc.getState().contains(self.at.STATE_SHOWING) and self.box(acc)[2] > 0
        except Exception:  # the widget went away while we looked
            return False

    def enabled(self, acc) -> bool:
        return acc.getState().contains(self.at.STATE_SENSITIVE)

    def all(self, root, role: str, name: str | None = None, *, prefix: bool = False) -> Iterator:
        for i in range(root.childCount):
            child = root.getChildAtIndex(i)
            if child is None or not self.showing(child):
                continue
            if child.getRoleName() == role and (name is None or child.name == name
                                                or (prefix and child.name.startswith(name))):
                yield child
            yield from self.all(child, role, name, prefix=prefix)

    def find(self, root, role: str, name: str | None = None, *, prefix: bool = False):
        return next(self.all(root, role, name, prefix=prefix), None) if root is not None else None

    def panel(self, root, title: str):
        """The widget that holds the bold panel title ``title`` (the Voices or Takes panel)."""
        label = self.find(root, "label", title)
        return label.parent if label is not None else None

    def text_of(self, acc) -> str:
        t = acc.queryText()
        return t.getText(0, t.characterCount)

    # -- waiting -----------------------------------------------------------------------------
    def wait(self, what: str, ready: Callable[[], object], timeout: float = 180.0) -> object:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                value = ready()
            except Exception:  # the accessibility tree changed under us; look again
                value = None
            if value:
                return value
            time.sleep(0.5)
        self.shot("timeout")
        raise WalkError(f"timed out waiting for {what}")

    # -- input -------------------------------------------------------------------------------
    def click(self, acc, what: str) -> None:
        x, y, w, h = self.box(acc)
        log(f"  click {what} at ({x + w // 2}, {y + h // 2})")
        # No --sync: it waits for the pointer to move, forever when it is already there (Play, then Stop).
        self.desktop.run("xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "sleep", "0.2", "click", "1")
        time.sleep(0.3)

    def key(self, *keys: str) -> None:
        log(f"  key {' '.join(keys)}")
        self.desktop.run("xdotool", "key", "--delay", "80", *keys)
        time.sleep(0.3)

    def type(self, text: str) -> None:
        log(f"  type {text!r}")
        self.desktop.run("xdotool", "type", "--delay", "30", text)
        time.sleep(0.3)

    def focus(self, title: str) -> None:
        """Give an X window the keyboard (there is no window manager to do it on a click)."""
        wid = self.desktop.run("xdotool", "search", "--onlyvisible", "--name", f"^{title}$").split()
        if wid:
            self.desktop.run("xdotool", "windowfocus", "--sync", wid[-1])

    def shot(self, name: str) -> None:
        time.sleep(0.5)  # the last repaint
        target = self.out / f"{name}.png"
        self.desktop.run("import", "-window", "root", str(target))
        log(f"  screenshot {target}")


# --------------------------------------------------------------------------------------------
# The walk
# --------------------------------------------------------------------------------------------


class Walk:
    def __init__(self, screen: Screen, desktop: Desktop, python: str, model: Path, clip: Path) -> None:
        self.s = screen
        self.d = desktop
        self.python = python
        self.model = model
        self.clip = clip
        self.failures: list[str] = []
        self.app: subprocess.Popen | None = None
        self.data = desktop.home / ".local" / "share" / APP_TITLE  # platformdirs' user data folder on Linux

    def check(self, what: str, ok: bool) -> None:
        log(("  ok    " if ok else "  FAIL  ") + what)
        if not ok:
            self.failures.append(what)

    def start_app(self) -> None:
        log = open(self.d.work / "app.log", "a", encoding="utf-8")  # noqa: SIM115 - closed with the process
        self.app = subprocess.Popen([self.python, "main.py"], cwd=REPO, env=self.d.env, stdout=log,
                                    stderr=subprocess.STDOUT)
        self.s.wait("the main window", lambda: self.s.window(APP_TITLE), timeout=120)

    def main(self):
        return self.s.window(APP_TITLE)

    def quit_with_ctrl_q(self) -> None:
        self.s.focus(APP_TITLE)
        self.s.key("ctrl+q")
        assert self.app is not None
        try:
            code = self.app.wait(60)
        except subprocess.TimeoutExpired:
            self.check("Ctrl+Q quits the app", False)
            self.app.terminate()
            self.app.wait(30)
            return
        self.check(f"Ctrl+Q quits the app (exit status {code})", code == 0)

    def take_rows(self) -> list:
        takes = self.s.panel(self.main(), "Takes")
        return list(self.s.all(takes, "list item")) if takes is not None else []

    def studio_ready(self) -> bool:
        speak = self.s.find(self.main(), "push button", "Speak")
        return speak is not None and self.s.enabled(speak)

    def take_done(self, number: int) -> bool:
        rows = self.take_rows()
        return len(rows) >= number and "making…" not in rows[number - 1].name

    # -- first start -------------------------------------------------------------------------
    def first_run(self) -> None:
        s = self.s
        self.start_app()
        s.wait("the no-model screen", lambda: s.find(self.main(), "push button", "Choose model folder…"))
        s.shot("01-no-model")
        log("load the model (mouse, then the folder typed into the file dialog)")
        s.click(s.find(self.main(), "push button", "Choose model folder…"), "Choose model folder…")
        s.wait("the folder dialog", lambda: s.window("Choose a model release folder"))
        s.type(str(self.model))
        s.key("Return")
        s.wait("the studio (model loaded)", self.studio_ready, timeout=600)
        s.shot("02-studio")

        log("make a voice from a file (mouse; the path, name and transcript typed)")
        voices = s.panel(self.main(), "Voices")
        s.click(s.find(voices, "push button", "From file…"), "From file…")
        s.wait("the file dialog", lambda: s.window("Make a voice from an audio file"))
        s.type(str(self.clip))
        s.key("Return")
        rec = s.wait("the recorder with the clip", lambda: s.window("Record a voice"))
        s.wait("the clip checked", lambda: s.find(rec, "label", "⚠ No transcript", prefix=True))
        self.check("the clip is checked at once (no transcript yet)", True)
        name = s.find(rec, "text", "Name:")
        self.check(f"the name is the file's ({s.text_of(name)!r})", s.text_of(name) == self.clip.stem)
        s.click(name, "Name")
        s.key("ctrl+a")
        s.type("Walker")
        s.key("Tab")
        s.type(PROMPT)
        s.wait("the clip to look good", lambda: s.find(rec, "label", "✔", prefix=True), timeout=30)
        s.shot("03-recorder")
        s.click(s.find(rec, "push button", "Save as voice"), "Save as voice")
        s.wait("the voice Walker in the list",
               lambda: s.find(s.panel(self.main(), "Voices"), "list item", "Walker", prefix=True), timeout=300)
        rec = s.window("Record a voice")
        if rec is not None:
            s.click(s.find(rec, "push button", "Close"), "Close")
        s.wait("the recorder to close", lambda: s.window("Record a voice") is None, timeout=30)

        log("take 1 by keyboard: click into the text, type, Ctrl+Enter")
        editor = max(s.all(self.main(), "text", ""), key=lambda a: s.box(a)[2] * s.box(a)[3])
        s.click(editor, "the text editor")
        s.focus(APP_TITLE)
        s.type(TEXT)
        self.check("the editor holds the typed text", s.text_of(editor) == TEXT)
        s.key("ctrl+Return")
        s.wait("take 1 to start", lambda: len(self.take_rows()) == 1, timeout=60)
        stop = s.find(self.main(), "push button", "Stop")
        self.check("Stop is enabled while take 1 is made (and heard)", s.enabled(stop))
        s.shot("04-take-1-streaming")
        s.wait("take 1 done", lambda: self.take_done(1), timeout=900)

        log("take 2 by mouse: the Speak button")
        s.click(s.find(self.main(), "push button", "Speak"), "Speak")
        s.wait("take 2 to start", lambda: len(self.take_rows()) == 2, timeout=60)
        s.wait("take 2 done", lambda: self.take_done(2), timeout=900)
        s.shot("05-two-takes")

        log("rename take 1: click its row, F2, type the name")
        s.click(self.take_rows()[0], "take 1's row")
        s.key("F2")
        s.wait("the rename dialog", lambda: s.window("Rename take 1"), timeout=30)
        s.key("ctrl+a")
        s.type(TAKE_NAME)
        s.key("Return")
        s.wait("take 1 renamed", lambda: TAKE_NAME in self.take_rows()[0].name, timeout=30)
        self.check("F2 renamed take 1", True)

        log("an unfinished text, then Ctrl+Q")
        s.click(editor, "the text editor")
        s.key("ctrl+a")
        s.type(UNFINISHED)
        time.sleep(1.5)  # the editor text is saved half a second after the last key
        s.shot("06-before-quit")
        rows = [r.name for r in self.take_rows()]
        self.quit_with_ctrl_q()
        saved = sorted(p.name for p in (self.data / "takes").iterdir()) if (self.data / "takes").is_dir() else []
        self.check(f"two takes are on disk ({len(saved)})", len(saved) == 2)
        session = self.data / "session.json"
        text = json.loads(session.read_text(encoding="utf-8")).get("text") if session.is_file() else None
        self.check("the unfinished text is on disk", text == UNFINISHED)
        log("  takes list before quitting: " + " | ".join(r.replace("\n", " / ") for r in rows))

    # -- second start ------------------------------------------------------------------------
    def second_run(self) -> None:
        s = self.s
        self.start_app()
        s.wait("the studio (the model is remembered)", self.studio_ready, timeout=600)
        rows = s.wait("the takes", lambda: self.take_rows() if len(self.take_rows()) == 2 else None, timeout=60)
        names = [r.name for r in rows]
        log("  takes list after restarting: " + " | ".join(n.replace("\n", " / ") for n in names))
        self.check("two takes are back", len(names) == 2)
        self.check("take 1 kept its name", names[0].startswith(f"Take 1 · {TAKE_NAME}"))
        self.check("take 2 is back with its voice", names[1].startswith("Take 2 ·") and "Walker" in names[1])
        editor = max(s.all(self.main(), "text", ""), key=lambda a: s.box(a)[2] * s.box(a)[3])
        self.check("the unfinished text is back", s.text_of(editor) == UNFINISHED)
        self.check("the voice is back", s.find(s.panel(self.main(), "Voices"), "list item", "Walker",
                                               prefix=True) is not None)
        s.shot("07-reopened")

        log("play take 1 with the mouse; its Play turns into Stop; Stop")
        takes = s.panel(self.main(), "Takes")
        s.click(self.take_rows()[0], "take 1's row")
        s.click(s.find(takes, "push button", "Play"), "Play")
        stop_take = s.wait("Play to turn into Stop", lambda: s.find(s.panel(self.main(), "Takes"), "push button",
                                                                      "Stop"), timeout=30)
        streams = self.d.run("pactl", "list", "short", "sink-inputs").strip()
        self.check(f"the sink is playing ({len(streams.splitlines())} stream)", bool(streams))
        main_stop = next(b for b in s.all(self.main(), "push button", "Stop") if b != stop_take)
        self.check("the main Stop is enabled while the take plays", s.enabled(main_stop))
        time.sleep(3.0)  # a few seconds of it (the null sink plays in real time)
        s.shot("08-playing")
        s.click(stop_take, "the take's Stop")
        s.wait("Stop to turn back into Play", lambda: s.find(s.panel(self.main(), "Takes"), "push button", "Play"),
               timeout=30)
        s.wait("the sink to fall silent (the stream closed)",
               lambda: not self.d.run("pactl", "list", "short", "sink-inputs").strip(), timeout=5)
        self.check("the take's Stop stopped it: Play again, and nothing plays", True)
        s.shot("09-stopped")
        self.quit_with_ctrl_q()


def _tiny_model(python: str, folder: Path, env: dict[str, str]) -> Path:
    subprocess.run([python, "-m", "cosycore.testing.tiny_model", str(folder), "--family", "cosyvoice2"],
                   cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the screenshots")
    parser.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"), help="Python that runs the app")
    parser.add_argument("--model", type=Path, help="model folder (default: a tiny random CosyVoice2 one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home folder")
    args = parser.parse_args()
    missing = [t for t in TOOLS if shutil.which(t) is None] + ([] if ATSPI_LAUNCHER.exists() else ["at-spi2-core"])
    try:
        import pyatspi  # noqa: F401
    except ImportError:
        missing.append("python3-pyatspi (run this script with /usr/bin/python3)")
    if missing:
        print("missing: " + ", ".join(missing), file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="cosy-xwalk-"))
    desktop = Desktop(work)
    log(f"fresh home folder: {desktop.home}")
    desktop.start()
    screen = Screen(desktop, args.out)
    try:
        model = args.model or _tiny_model(args.python, work / "models" / "tiny-cv2", desktop.env)
        clip = work / "prompt.wav"
        desktop.run("espeak-ng", "-w", str(clip), PROMPT)
        walk = Walk(screen, desktop, args.python, model, clip)
        try:
            log("== first start")
            walk.first_run()
            log("== second start, same home folder")
            walk.second_run()
        except WalkError as e:
            walk.failures.append(str(e))
        finally:
            if walk.app is not None and walk.app.poll() is None:
                walk.app.terminate()
                walk.app.wait(30)
    finally:
        desktop.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    log("FAILED: " + "; ".join(walk.failures) if walk.failures else "walk passed")
    return 1 if walk.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
