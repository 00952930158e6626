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

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cosy-preset-shots-"))
    os.environ["COSY_STUDIO_HOME"] = str(work / "home")

    import torch

    torch.set_num_threads(1)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.engine_thread import EngineThread
    from app.main import install_translators, prepare_interpreter
    from app.main_window import MainWindow
    from app.settings import Settings
    from app.user_presets import UserPreset

    prepare_interpreter()
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Cosy Studio")
    install_translators(app, args.language)
    settings = Settings()
    zh = args.language == "zh_CN"
    settings.user_presets = [UserPreset("撒娇" if zh else "Coaxing", "用撒娇的语气说这句话")]
    window = MainWindow(settings, model_dir=args.model, engine=EngineThread(torch_threads=1))
    window.move(10, 10)
    window.resize(1380, 870)
    window.show()
    suffix = "-zh" if zh else ""
    args.out.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        for _ in range(5):
            app.processEvents()
        target = args.out / f"{name}{suffix}.png"
        subprocess.run(["import", "-window", "root", str(target)], check=True)
        print("wrote", target)

    def pick() -> None:
        c = window.controls
        c.set_mode("instruct")
        window.editor.set_text("收到好友从远方寄来的生日礼物，那份意外的惊喜让我心中充满了甜蜜的快乐。")
        c.choose_preset("dialect.sichuanese")
        c.choose_preset("emotion.happy")
        c.preset_button.click()

    steps: list[tuple[Callable[[], bool], Callable[[], None]]] = []
    family = ""

    def loaded() -> bool:
        nonlocal family
        if window.model_info is None:
            return False
        family = window.model_info.family
        return True

    steps.append((loaded, pick))
    steps.append((lambda: window.controls.picker.isVisible(), lambda: shot(f"presets-{family}")))
    steps.append((lambda: True, app.quit))

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
