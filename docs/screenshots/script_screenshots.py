"""Capture Script mode and the cast table on a virtual screen (English and Chinese).

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.script_screenshots /tmp/tiny-cv2 docs/screenshots
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.script_screenshots /tmp/tiny-cv2 docs/screenshots --language zh_CN

Writes ``script-mode[-zh].png`` (a script with its speakers coloured, one speaker not cast yet and
one instruction the model family cannot take, both underlined; the cast table below the text) and
``script-take[-zh].png`` (the script, fixed, spoken as one take: each line marked on the waveform in
its speaker's colour, the take in the list). The app runs with a throw-away home folder and two
voices made from espeak-ng recordings; the tiny model has random weights, so the speech is noise-like.
"""

from __future__ import annotations

from collections.abc import Callable

from docs.screenshots.screen import Step, capture, null_alsa, parse_args, place, prompt_wav, run_steps, start_app

SCRIPT = """# radio-play.txt
Anna: Did you hear that?
Ben (whispering): Quiet. Someone is at the door.
[pause 800ms]
Anna (volume.loud): Who is it?
Cleo: Only me!

Ben: Nobody. Just the wind.
"""
SCRIPT_ZH = """# 广播剧
小安: 你听到了吗？
老本 (emotion.sad): 安静，门口有人。
[pause 800ms]
小安 (volume.loud): 是谁？
小克: 是我！

老本: 没有人，只是风。
"""
PROMPTS = (("Fox", "Hello, this is a short recording of my voice.", "en"),
           ("Owl", "Good evening, this is another voice for testing.", "en"))


def main() -> int:
    args, work = parse_args("cosy-script-shots-")
    null_alsa(work)

    import torch

    torch.set_num_threads(1)
    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    engine = Engine(args.model, device="cpu")
    voices = []
    for name, text, _lang in PROMPTS:
        voices.append(engine.create_voice(prompt_wav(work, text, name), transcript=text, name=name))
    del engine

    from app.config.settings import Settings
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    app = start_app(args.language)
    settings = Settings()
    library = VoiceLibrary(settings.paths.voices)
    for voice in voices:
        library.add(voice)
    window = MainWindow(settings, engine=EngineThread(torch_threads=1))
    place(window)
    window.script_ctl.max_tokens = 25  # short lines: the tiny model is quick
    suffix = "" if args.language == "en" else "-zh"
    zh = args.language != "en"
    names = ("小安", "老本", "小克") if zh else ("Anna", "Ben", "Cleo")
    args.out.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        window.waveform.redraw()  # draw now rather than on the next 30 Hz tick
        capture(app, args.out / f"{name}{suffix}.png")

    steps: list[Step] = []

    def when(ready: Callable[[], bool], action: Callable[[], None]) -> None:
        steps.append((ready, action))

    def write_script() -> None:
        window.controls.set_mode("script")
        window.controls.set_seed(7)
        window.editor.set_text(SCRIPT_ZH if zh else SCRIPT)
        window.script_ctl.check()
        window.cast_table.set_voice(names[0], "Fox")
        window.cast_table.set_voice(names[1], "Owl")
        window.cast_table.set_instruction(names[1], "speed.slow")
        window.script_ctl.check()
        cursor = window.editor.edit.textCursor()
        cursor.setPosition(0)
        window.editor.edit.setTextCursor(cursor)

    def fix_and_speak() -> None:
        text = window.editor.text().replace(" (volume.loud)", " (emotion.fearful)")
        window.editor.set_text(text)
        window.script_ctl.check()
        window.cast_table.set_voice(names[2], "Fox")
        window.script_ctl.check()
        window.speaking_ctl.speak()

    when(lambda: True, lambda: window.models_ctl.try_model_dir(args.model))
    when(lambda: window.session.model_info is not None, write_script)
    when(lambda: True, lambda: shot("script-mode"))
    when(lambda: True, fix_and_speak)
    when(lambda: bool(window.session.takes) and window.session.takes[-1].state.value == "done", lambda: None)
    when(lambda: True, lambda: window.session.player.stop())
    when(lambda: True, lambda: shot("script-take"))

    run_steps(app, steps, 200)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
