"""Walk through the app as a new user would, under Xvfb, from a fresh home folder; then start it again.

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.walk /tmp/tiny-cv2 /tmp/walk

Keys and mouse clicks go through Qt's event queue (``QTest``), one step at a time, on the real app
(real engine thread, ALSA's null device as the sound card). File dialogs are answered as a user would
answer them (the path of the file). First run: make a voice from a file in the recorder, type a text,
speak two takes (Ctrl+Enter), stop one with Esc, rename a take (F2), play a finished take and stop it
with its own button, type an unfinished text, and quit with Ctrl+Q. Second run on the same home
folder: the takes, their names and audio, and the text are back. Each step prints what it checked;
screenshots of both runs go to the output folder. Exits non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from docs.screenshots.screen import PROMPT, null_alsa, place, prompt_wav

TEXT = "Hello there. This is my first take, spoken in the new voice."
UNFINISHED = "A text I was still typing when I quit"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--home", type=Path, default=None, help="reuse this home folder (default: a new one)")
    parser.add_argument("--second-run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cosy-walk-"))
    home = args.home or work / "home"
    if not args.second_run:
        # Run 1 in this process; run 2 as a new process on the same home folder (a real restart).
        code = _run(args.model, args.out, home, work, first=True)
        if code:
            return code
        return subprocess.run([sys.executable, "-m", "docs.screenshots.walk", str(args.model), str(args.out),
                               "--home", str(home), "--second-run"], check=False).returncode
    return _run(args.model, args.out, home, work, first=False)


def _run(model: Path, out: Path, home: Path, work: Path, *, first: bool) -> int:
    os.environ["COSY_STUDIO_HOME"] = str(home)
    null_alsa(work)
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog

    from app.config.settings import Settings
    from app.main import install_translators, prepare_interpreter
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    prepare_interpreter()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    install_translators(app, "en")
    window = MainWindow(Settings(), model_dir=model if first else None, engine=EngineThread(torch_threads=1))
    place(window)
    window.activateWindow()  # shortcuts need the active window (there is no window manager to give it)
    QTest.qWaitForWindowActive(window, 5000)
    failures: list[str] = []
    steps: list[tuple[str, Callable[[], bool], Callable[[], None]]] = []

    def step(name: str, ready: Callable[[], bool], action: Callable[[], None]) -> None:
        steps.append((name, ready, action))

    def check(what: str, ok: bool) -> None:
        print(("  ok    " if ok else "  FAIL  ") + what, flush=True)
        if not ok:
            failures.append(what)

    def shot(name: str) -> None:
        window.waveform.redraw()
        for _ in range(3):
            app.processEvents()
        subprocess.run(["import", "-window", "root", str(out / f"{name}.png")], check=True)

    def key(widget, k, mod=Qt.KeyboardModifier.NoModifier) -> None:
        QTest.keyClick(widget, k, mod)

    def click(widget) -> None:
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton)

    if first:
        wav = prompt_wav(work)

        def open_clip() -> None:
            QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: (str(wav), ""))  # the user picks the clip
            key(app.focusWidget() or window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # Voice › Record…
            rec = window.voices_ctl.recorder
            check("Ctrl+R opens an empty recorder", rec is not None and rec.isVisible() and rec.trimmed().size == 0)
            click(rec.open_button)  # Open file… (mouse)

        def name_voice() -> None:
            rec = window.voices_ctl.recorder
            check("the clip is checked at once", "No transcript" in rec.messages.text())
            check("the name is the file's", rec.name_edit.text() == wav.stem)
            rec.name_edit.setFocus()
            rec.name_edit.selectAll()  # typing replaces it
            QTest.keyClicks(rec.name_edit, "Walker")
            key(rec.name_edit, Qt.Key.Key_Tab)
            QTest.keyClicks(rec.transcript_edit, PROMPT)
            check("with a transcript the clip looks good", "looks good" in rec.messages.text())
            check("Save as voice is enabled", rec.save_button.isEnabled())
            click(rec.save_button)  # Save as voice (mouse)
            check("the voice is being made", "Making" in rec.messages.text() or "Saved" in rec.messages.text())

        def close_recorder() -> None:
            rec = window.voices_ctl.recorder
            check("the voice was saved", "Walker" in window.voice_panel.names())
            click(rec.close_button)

        def type_and_speak() -> None:
            window.activateWindow()  # a window manager would do this when the recorder closes
            QTest.qWaitForWindowActive(window, 5000)
            window.controls.set_mode("cross_lingual")
            window.editor.edit.setFocus()
            QTest.keyClicks(window.editor.edit, TEXT)
            key(window.editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
            check("Ctrl+Enter starts take 1",
                  len(window.session.takes) == 1 and window.controls.stop_button.isEnabled())

        def speak_again_and_stop() -> None:
            key(window.editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

        def esc() -> None:
            key(window.editor.edit, Qt.Key.Key_Escape)

        def rename() -> None:
            check("Esc stopped take 2", window.session.takes[1].state.value == "cancelled")
            QInputDialog.getText = staticmethod(lambda *a, **k: ("The first take", True))  # the user types a name
            view = window.takes_view
            view.list.setFocus()
            view.list.setCurrentRow(0)
            key(view.list, Qt.Key.Key_F2)
            check("F2 renamed take 1", window.session.takes[0].name == "The first take")

        def play() -> None:
            view = window.takes_view
            click(view.play_button)
            check(f"Play turns into Stop ({window.session.player.state.name}, {view.play_button.text()}, "
                  f"selected {[t.number for t in view.selected()]})",
                  view.play_button.text() == "Stop" and window.controls.stop_button.isEnabled())

        def stop_play() -> None:
            if window.takes_view.play_button.text() != "Stop":  # ALSA's null device has no clock
                print("  note  the take had already played to its end", flush=True)
                return
            click(window.takes_view.play_button)
            check("…and stops it", window.takes_view.play_button.text() == "Play"
                  and window.session.player.state.name == "STOPPED")

        def type_unfinished() -> None:
            window.editor.edit.selectAll()
            QTest.keyClicks(window.editor.edit, UNFINISHED)
            QTest.qWait(800)  # saved half a second after the last key
            shot("walk-1")
            window.activateWindow()
            key(window.editor.edit, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)  # File › Quit

        step("model loaded", lambda: window.session.model_info is not None, open_clip)
        step("clip in the recorder",
             lambda: bool(window.voices_ctl.recorder and window.voices_ctl.recorder.trimmed().size), name_voice)
        step("voice made", lambda: "Walker" in window.voice_panel.names(), close_recorder)
        step("type and speak", lambda: True, type_and_speak)
        step("take 1 done", lambda: len(window.session.takes) > 0 and window.session.takes[0].state.value == "done",
             speak_again_and_stop)
        takes = window.session.takes
        step("take 2 streaming", lambda: len(takes) == 2 and takes[1].chunk_count >= 1, esc)
        step("take 2 stopped", lambda: not window.session.engine.busy, rename)
        step("rename done", lambda: True, play)
        step("playing", lambda: True, stop_play)
        step("unfinished text", lambda: True, type_unfinished)
    else:
        def found() -> None:
            takes = list(window.session.takes)
            check("two takes are back", len(takes) == 2)
            check("take 1 kept its name and audio", takes[0].name == "The first take" and takes[0].samples > 0)
            check("take 2 is back as stopped", takes[1].state.value == "cancelled" and takes[1].samples > 0)
            check("the voice and mode are kept", takes[0].voice_name == "Walker" and takes[0].mode == "cross_lingual")
            check("the unfinished text is back", window.editor.text() == UNFINISHED)
            check("the newest take is shown", window.session.shown_take is takes[-1])
            shot("walk-2")
            window.close()

        step("model loaded again", lambda: window.session.model_info is not None, found)

    def tick() -> None:
        if not steps:
            return
        name, ready, action = steps[0]
        if ready():
            steps.pop(0)
            print(name, flush=True)
            action()

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(200)
    def give_up() -> None:
        rec = window.voices_ctl.recorder
        failures.append(f"timed out at {steps[0][0] if steps else '?'} (recorder: "
                        f"{rec.messages.text() if rec else '-'}; voices: {window.voice_panel.names()}; "
                        f"status: {window.statusBar().currentMessage()})")
        app.quit()

    QTimer.singleShot(240_000, give_up)
    app.exec()
    if steps:
        failures.append(f"stopped before: {steps[0][0]} (last message: {window.last_message})")
    print("FAILED: " + "; ".join(failures) if failures else "walk passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
