"""Set-up shared by the desktop-app benchmarks: a throw-away home, ALSA's null device, a tiny model,
a voice, and a main window with the real engine thread."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np


def prepare_environment(work: Path) -> None:
    """Offscreen Qt (unless a display is set), a private home and the null ALSA device; before Qt/sounddevice load."""
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["COSY_STUDIO_HOME"] = str(work / "home")
    conf = work / "asound.conf"
    if os.environ.get("COSY_BENCH_AUDIO") == "pulse":
        # A PulseAudio null sink plays in real time, like a sound card (ALSA's null device has no
        # clock: its callbacks run back to back and compete with the GUI for the GIL). Start one with
        #   pulseaudio -D --exit-idle-time=-1 -n --load=module-null-sink --load=module-native-protocol-unix
        conf.write_text("</usr/share/alsa/alsa.conf>\npcm.!default { type pulse }\nctl.!default { type pulse }\n",
                        encoding="utf-8")
    else:
        # A plain null sink: unlike the tests' tee to a file, nothing is written (re-opening that
        # file truncates it, which costs the GUI thread time that a real sound card never would).
        conf.write_text(  # without the system's alsa.conf, whose plugins could take the default device
            'pcm.!default { type plug slave.pcm "nullsink" }\n'
            "pcm.nullsink { type null }\n",
            encoding="utf-8",
        )
    os.environ["ALSA_CONFIG_PATH"] = str(conf)


def speechlike(seconds: float, sr: int = 24000) -> np.ndarray:
    t = np.arange(int(seconds * sr)) / sr
    phase = 2 * np.pi * np.cumsum(120 + 20 * np.sin(2 * np.pi * 0.7 * t)) / sr
    x = sum(np.sin(k * phase) / k for k in range(1, 12)) * (0.5 * (1 + np.sin(2 * np.pi * 4 * t))) ** 2
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


def build_window(model: Path | None, torch_threads: int):
    """(QApplication, MainWindow, work folder) with the model loaded and one voice in the library."""
    work = Path(tempfile.mkdtemp(prefix="cosy-bench-"))
    prepare_environment(work)
    from cosycore.testing.tiny_model import write_tiny_model

    if model is None:
        model = write_tiny_model(work / "tiny-cv2", "cosyvoice2", seed=0).model_dir
    import torch

    torch.set_num_threads(torch_threads)
    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    voice = Engine(model, device="cpu").create_voice(speechlike(4.0), 24000, transcript="Hello, this is me.",
                                                     name="Bench")
    from PySide6.QtWidgets import QApplication

    from app.config.settings import Settings
    from app.main import prepare_interpreter
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    prepare_interpreter()  # as app.main does
    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings = Settings()
    VoiceLibrary(settings.paths.voices).add(voice)
    window = MainWindow(settings, model_dir=model, engine=EngineThread(torch_threads=torch_threads))
    window.resize(1280, 800)
    window.show()
    wait_until(app, lambda: window.session.model_info is not None, 300)
    window.controls.set_mode("cross_lingual")
    return app, window, work


def wait_until(app, condition, timeout_s: float) -> None:
    """Run the real event loop (not a polling loop, which would distort timings) until ``condition()``."""
    import time

    from PySide6.QtCore import QEventLoop, QTimer

    end = time.perf_counter() + timeout_s
    loop = QEventLoop()
    check = QTimer()
    check.setInterval(10)

    def on_check() -> None:
        if condition() or time.perf_counter() > end:
            loop.quit()

    check.timeout.connect(on_check)
    check.start()
    if not condition():
        loop.exec()
    check.stop()
    if not condition():
        raise TimeoutError("condition not met in time")
