"""Capture the grouped instruct-preset picker on a virtual screen (both families, English and Chinese).

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    python -m cosycore.testing.tiny_model /tmp/tiny-cv3 --family cosyvoice3
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.preset_screenshots /tmp/tiny-cv2 docs/screenshots
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.preset_screenshots /tmp/tiny-cv3 docs/screenshots --language zh_CN

Writes ``presets-<family>[-zh].png``: Instruct mode with a dialect and an emotion picked (the info
line shows the prompt the LM receives) and the picker open. The app runs with a throw-away home.
"""

from __future__ import annotations

from docs.screenshots.screen import Step, capture, parse_args, place, run_steps, start_app


def main() -> int:
    args, _work = parse_args("cosy-preset-shots-")

    import torch

    torch.set_num_threads(1)

    from app.config.settings import Settings
    from app.config.user_presets import UserPreset
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    app = start_app(args.language)
    settings = Settings()
    zh = args.language == "zh_CN"
    settings.user_presets = [UserPreset("撒娇" if zh else "Coaxing", "用撒娇的语气说这句话")]
    window = MainWindow(settings, model_dir=args.model, engine=EngineThread(torch_threads=1))
    place(window)
    suffix = "-zh" if zh else ""
    args.out.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        capture(app, args.out / f"{name}{suffix}.png", rounds=5)

    def pick() -> None:
        c = window.controls
        c.set_mode("instruct")
        window.editor.set_text("收到好友从远方寄来的生日礼物，那份意外的惊喜让我心中充满了甜蜜的快乐。")
        c.choose_preset("dialect.sichuanese")
        c.choose_preset("emotion.happy")
        c.preset_button.click()

    steps: list[Step] = []
    family = ""

    def loaded() -> bool:
        nonlocal family
        if window.session.model_info is None:
            return False
        family = window.session.model_info.family
        return True

    steps.append((loaded, pick))
    steps.append((lambda: window.controls.picker.isVisible(), lambda: shot(f"presets-{family}")))
    run_steps(app, steps, 200)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
