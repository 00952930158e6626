"""What the screenshot scripts share: their command line and throw-away home folder, ALSA's null
device as the sound card, a recorded prompt, the app on the virtual screen (``Xvfb :99``), capturing
the whole screen, and stepping through a script of ``(ready, action)`` pairs on a Qt timer.

Qt and the app are imported inside the functions: a script sets its environment (home folder,
ALSA configuration) first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROMPT = "Hello, this is a short recording of my voice, made for testing the studio."
WINDOW_POS = (10, 10)
WINDOW_SIZE = (1380, 870)  # the screen is 1400x900

Step = tuple[Callable[[], bool], Callable[[], None]]  # (ready?, then do this)


def parse_args(prefix: str, extra: tuple[str, ...] = ()) -> tuple[argparse.Namespace, Path]:
    """``model [EXTRA…] out [--language en|zh_CN]`` (``extra`` names more folders, given after the model),
    and a new work folder whose ``home`` the app will use."""
    parser = argparse.ArgumentParser()
    parser.add_argument("model", type=Path)
    for name in extra:
        parser.add_argument(name, type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["COSY_STUDIO_HOME"] = str(work / "home")
    return args, work


def null_alsa(folder: Path) -> None:
    """Make ALSA's default device a null sink (what is played goes to ``folder/PLAYED.raw``)."""
    conf = folder / "asound.conf"
    conf.write_text(
        'pcm.!default { type plug slave.pcm "tee2file" }\n'
        f'pcm.tee2file {{ type file slave.pcm "nullsink" file "{folder / "PLAYED.raw"}" format "raw" }}\n'
        "pcm.nullsink { type null }\n",
        encoding="utf-8",
    )
    os.environ["ALSA_CONFIG_PATH"] = str(conf)


def prompt_wav(folder: Path, text: str = PROMPT, name: str = "prompt") -> Path:
    """An espeak-ng recording of ``text`` (``folder/name.wav``), for making a voice."""
    wav = folder / f"{name}.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), text], check=True)
    return wav


def start_app(language: str) -> Any:
    """The QApplication, named as the app names itself, with the app's translators for ``language``."""
    from PySide6.QtWidgets import QApplication

    from app.main import install_translators, prepare_interpreter

    prepare_interpreter()
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Cosy Studio")
    install_translators(app, language)
    return app


def place(window: Any) -> None:
    """Show ``window`` at the same place and size in every shot."""
    window.move(*WINDOW_POS)
    window.resize(*WINDOW_SIZE)
    window.show()


def capture(app: Any, target: Path, *, rounds: int = 3) -> None:
    """Let Qt paint (``rounds`` passes of the event loop), then save the whole X screen to ``target``."""
    for _ in range(rounds):
        app.processEvents()
    subprocess.run(["import", "-window", "root", str(target)], check=True)
    print("wrote", target)


def run_steps(app: Any, steps: list[Step], interval_ms: int) -> None:
    """Run the app's event loop; every ``interval_ms`` the first step's action runs once it is ready, and
    the loop ends at the tick after the last step."""
    from PySide6.QtCore import QTimer

    def tick() -> None:
        if not steps:
            app.quit()
        elif steps[0][0]():
            steps.pop(0)[1]()

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(interval_ms)
    app.exec()
