"""Screenshots of Transcribe (voice panel) and of the speech-recognition section of Models.

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    python -m cosycore.testing.tiny_sensevoice /tmp/tiny-sensevoice
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.transcribe_screenshots /tmp/tiny-cv2 /tmp/tiny-sensevoice \\
        docs/screenshots [--language zh_CN]

The app runs with a throw-away home folder holding one voice without a transcript (made from an
espeak-ng recording) and the tiny SenseVoice installed where Models… puts it. Shots: ``transcribe``
(the voice panel offers Transcribe), ``transcribe-done`` (the words, random ones from the tiny
model, are in the field and saved), and ``models-asr`` (Models…, its speech-recognition section,
with the recognizer installed). The tiny models' words mean nothing; the layout is what matters.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PROMPT = "Hello, this is a short recording of my voice, made for testing the studio."


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", type=Path)
    parser.add_argument("sensevoice", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cosy-asr-shots-"))
    os.environ["COSY_STUDIO_HOME"] = str(work / "home")

    import torch

    torch.set_num_threads(1)
    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    wav = work / "prompt.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), PROMPT], check=True)
    engine = Engine(args.model, device="cpu")
    voice = engine.create_voice(wav, transcript="", name="Narrator" if args.language == "en" else "旁白")
    del engine

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.engine_thread import EngineThread
    from app.main import install_translators, prepare_interpreter
    from app.main_window import MainWindow
    from app.settings import Settings
    from app.widgets.models_dialog import ModelsDialog

    prepare_interpreter()
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Cosy Studio")
    install_translators(app, args.language)
    settings = Settings()
    shutil.copytree(args.sensevoice, settings.paths.data / "models" / "SenseVoice-Small")
    VoiceLibrary(settings.paths.voices).add(voice)
    window = MainWindow(settings, engine=EngineThread(torch_threads=1))
    window.move(10, 10)
    window.resize(1380, 870)
    window.show()
    suffix = "" if args.language == "en" else "-zh"
    args.out.mkdir(parents=True, exist_ok=True)
    dialogs: list[ModelsDialog] = []

    def shot(name: str) -> None:
        for _ in range(3):
            app.processEvents()
        target = args.out / f"{name}{suffix}.png"
        subprocess.run(["import", "-window", "root", str(target)], check=True)
        print("wrote", target)

    def open_models() -> None:
        dialog = ModelsDialog(settings.paths.data / "models", window)
        dialog.move(300, 60)
        dialog.resize(760, 780)
        dialog.show()
        dialog.asr_section.focus_first()
        dialogs.append(dialog)

    steps: list[tuple[Callable[[], bool], Callable[[], None]]] = []

    def when(ready: Callable[[], bool], action: Callable[[], None]) -> None:
        steps.append((ready, action))

    panel = window.voice_panel
    when(lambda: True, lambda: window.try_model_dir(args.model))
    when(lambda: window.model_info is not None, lambda: window.controls.set_mode("zero_shot"))
    when(lambda: panel.transcribe_row.isVisible(), lambda: shot("transcribe"))
    when(lambda: True, panel.transcribe_row.button.click)
    when(lambda: bool(panel.transcript), lambda: shot("transcribe-done"))
    when(lambda: True, open_models)
    when(lambda: True, lambda: shot("models-asr"))
    when(lambda: True, lambda: dialogs[-1].close())
    when(lambda: True, app.quit)

    def tick() -> None:
        if steps and steps[0][0]():
            steps.pop(0)[1]()

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(200)
    app.exec()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
