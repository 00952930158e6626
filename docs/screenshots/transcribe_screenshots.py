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

import shutil
from collections.abc import Callable

from docs.screenshots.screen import Step, capture, parse_args, place, prompt_wav, run_steps, start_app


def main() -> int:
    args, work = parse_args("cosy-asr-shots-", extra=("sensevoice",))

    import torch

    torch.set_num_threads(1)
    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    wav = prompt_wav(work)
    engine = Engine(args.model, device="cpu")
    voice = engine.create_voice(wav, transcript="", name="Narrator" if args.language == "en" else "旁白")
    del engine

    from app.config.settings import Settings
    from app.main_window import MainWindow
    from app.widgets.models_dialog import ModelsDialog
    from app.worker.engine_thread import EngineThread

    app = start_app(args.language)
    settings = Settings()
    shutil.copytree(args.sensevoice, settings.paths.data / "models" / "SenseVoice-Small")
    VoiceLibrary(settings.paths.voices).add(voice)
    window = MainWindow(settings, engine=EngineThread(torch_threads=1))
    place(window)
    suffix = "" if args.language == "en" else "-zh"
    args.out.mkdir(parents=True, exist_ok=True)
    dialogs: list[ModelsDialog] = []

    def shot(name: str) -> None:
        capture(app, args.out / f"{name}{suffix}.png")

    def open_models() -> None:
        dialog = ModelsDialog(settings.paths.data / "models", window)
        dialog.move(300, 60)
        dialog.resize(760, 780)
        dialog.show()
        dialog.asr_section.focus_first()
        dialogs.append(dialog)

    steps: list[Step] = []

    def when(ready: Callable[[], bool], action: Callable[[], None]) -> None:
        steps.append((ready, action))

    panel = window.voice_panel
    when(lambda: True, lambda: window.models_ctl.try_model_dir(args.model))
    when(lambda: window.session.model_info is not None, lambda: window.controls.set_mode("zero_shot"))
    when(lambda: panel.transcribe_row.isVisible(), lambda: shot("transcribe"))
    when(lambda: True, panel.transcribe_row.button.click)
    when(lambda: bool(panel.transcript), lambda: shot("transcribe-done"))
    when(lambda: True, open_models)
    when(lambda: True, lambda: shot("models-asr"))
    when(lambda: True, lambda: dialogs[-1].close())

    run_steps(app, steps, 200)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
