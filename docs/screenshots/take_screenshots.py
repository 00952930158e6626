"""Drive the real app on a virtual screen and capture the screenshots in this folder.

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.take_screenshots /tmp/tiny-cv2 docs/screenshots
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.take_screenshots /tmp/tiny-cv2 docs/screenshots --language zh_CN

Each shot is the whole X screen (``import -window root``). The app runs with a throw-away home
folder, a voice made from an espeak-ng recording, and ALSA's null device as the sound card. It
starts without a model (``no-model``), loads the tiny one, speaks and stops a take (``streaming``),
opens the recorder, then closes the window and opens a new one on the same home folder: the takes,
the text and the instruction come back from disk (``takes-restored``). Last, it opens a Markdown book
(File › Open) and renders it to a FLAC file in the background (``render``: the progress panel).
The tiny model has random weights, so the speech is noise-like; the layout is what matters here.
"""

from __future__ import annotations

from collections.abc import Callable

from docs.screenshots.screen import (
    PROMPT,
    Step,
    capture,
    null_alsa,
    parse_args,
    place,
    prompt_wav,
    run_steps,
    start_app,
)

TEXT = ("Welcome to Cosy Studio. [breath] This take is being spoken while you read it, "
        "chunk by chunk, <strong>straight</strong> from the engine. The dashed lines mark where "
        "the chunks were joined. [laughter] It works in Chinese too.")
TEXT_ZH = "欢迎使用 Cosy Studio。[breath] 这段话正在一边生成一边播放。虚线标出了分块衔接的位置。[laughter]"
BOOK = ("# The Lighthouse\n\nThe keeper climbed the stairs every evening at dusk.\n\nHe lit the lamp and "
        "watched the ships.\n\nNobody remembered when he had come.\n\n# The Storm\n\nOne night the wind rose "
        "over the bay.\n\nThe waves broke on the rocks.\n\nThe light kept turning until morning.\n\n"
        "# Morning\n\nThe sea was calm again.\n\nThe keeper slept.\n")
BOOK_ZH = ("# 灯塔\n\n守塔人每天黄昏都爬上楼梯。\n\n他点亮灯，看着来往的船。\n\n没有人记得他是什么时候来的。\n\n"
           "# 风暴\n\n一天夜里，海湾上起了大风。\n\n浪打在礁石上。\n\n灯一直转到天亮。\n\n"
           "# 早晨\n\n海又平静了。\n\n守塔人睡着了。\n")


def main() -> int:
    args, work = parse_args("cosy-shots-")
    null_alsa(work)

    import soundfile as sf
    import torch

    torch.set_num_threads(1)
    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    wav = prompt_wav(work)
    engine = Engine(args.model, device="cpu")
    voice = engine.create_voice(wav, transcript=PROMPT, name="Narrator" if args.language == "en" else "旁白")
    del engine

    from app.config.settings import Settings
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    app = start_app(args.language)
    app.setQuitOnLastWindowClosed(False)  # the script reopens the window, then quits itself
    settings = Settings()
    VoiceLibrary(settings.paths.voices).add(voice)
    window = MainWindow(settings, engine=EngineThread(torch_threads=1))
    place(window)
    suffix = "" if args.language == "en" else "-zh"
    args.out.mkdir(parents=True, exist_ok=True)
    windows = [window]

    def shot(name: str) -> None:
        window = windows[-1]
        window.waveform.redraw()  # draw now rather than on the next 30 Hz tick
        capture(app, args.out / f"{name}{suffix}.png")

    steps: list[Step] = []

    def when(ready: Callable[[], bool], action: Callable[[], None]) -> None:
        steps.append((ready, action))

    def speak() -> None:
        window.controls.set_mode("cross_lingual")
        window.editor.set_text(TEXT if args.language == "en" else TEXT_ZH)
        window.editor.refresh_preview_now()
        window.speaking_ctl.speak()

    def open_recorder() -> None:
        audio, rate = sf.read(wav, dtype="float32")
        rec = window.voices_ctl.open_recorder(audio, rate)
        rec.name_edit.setText("Narrator 2" if args.language == "en" else "旁白 2")
        rec.transcript_edit.setText(PROMPT)
        rec.set_trim(0.3, audio.shape[0] / rate - 0.2)
        rec.move(380, 200)

    def render() -> None:  # File › Open a book, then File › Render to file… (with a few tokens per segment)
        from app.widgets.render_dialog import RenderChoice

        window = windows[-1]
        book = work / ("book.md" if args.language == "en" else "灯塔.md")
        book.write_text(BOOK if args.language == "en" else BOOK_ZH, encoding="utf-8")
        window.longform_ctl.open_file(book)
        choice = RenderChoice(source=book, markdown=True, voice=voice.name, out=book.with_suffix(".flac"),
                              chapters="cue", instruction="", speed=1.0)
        window.longform_ctl.start_render(choice, min_tokens=40, max_tokens=50)

    def _rendered() -> int:
        runner = windows[-1].longform_ctl.runner
        return runner.status.done if runner is not None and runner.status is not None else 0

    def reopen() -> None:  # as after quitting and starting again: everything comes from the home folder
        windows[-1].close()
        again = MainWindow(Settings(), engine=EngineThread(torch_threads=1))
        place(again)
        windows.append(again)

    when(lambda: True, lambda: shot("no-model"))
    when(lambda: True, lambda: window.models_ctl.try_model_dir(args.model))
    when(lambda: window.session.model_info is not None and window.editor.sentences == [], lambda: shot("main-empty"))
    when(lambda: True, speak)
    when(lambda: bool(window.session.takes) and window.session.takes[-1].chunk_count >= 2, lambda: shot("streaming"))
    when(lambda: window.session.takes[-1].chunk_count >= 4, window.speaking_ctl.stop)
    when(lambda: not window.session.engine.busy, lambda: None)
    when(lambda: True, open_recorder)
    when(lambda: True, lambda: shot("recorder"))
    when(lambda: True, lambda: window.voices_ctl.recorder.close())
    when(lambda: True, reopen)
    when(lambda: windows[-1].model_info is not None and len(windows[-1].takes) > 0, lambda: shot("takes-restored"))
    when(lambda: True, render)
    when(lambda: _rendered() >= 3, lambda: shot("render"))
    when(lambda: True, lambda: windows[-1].longform_ctl.pause())
    when(lambda: not windows[-1].longform_ctl.runner.active, app.quit)

    run_steps(app, steps, 150)
    windows[-1].close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
