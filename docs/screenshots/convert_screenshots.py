"""Capture Convert mode on a virtual screen (English and Chinese).

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.convert_screenshots /tmp/tiny-cv2 docs/screenshots
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.convert_screenshots /tmp/tiny-cv2 docs/screenshots --language zh_CN

Writes ``convert-mode[-zh].png`` (a recording converted into a saved voice: the source and the target
in the panel, the take in the waveform and the list) and ``convert-live[-zh].png`` (Live running from
a stand-in microphone that plays an espeak-ng recording in real time, with its latency and real-time
factor). The app runs with a throw-away home folder and a voice made from an espeak-ng recording; the
tiny model has random weights, so the converted speech is noise-like.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from docs.screenshots.screen import Step, capture, null_alsa, parse_args, place, prompt_wav, run_steps, start_app

SOURCE_TEXT = "This is what I said myself, with my own timing and emphasis."


class RecordingMic:
    """A microphone that plays ``signal`` in real time (the screenshots' stand-in for a real one)."""

    def __init__(self, signal: np.ndarray, rate: int) -> None:
        self.signal, self.sample_rate, self.device_name = signal, rate, "Microphone (stand-in)"
        self.active, self._t0, self._pos = False, 0.0, 0

    def start(self) -> str:
        self.active, self._t0, self._pos = True, time.perf_counter(), 0
        return ""

    def read(self) -> tuple[np.ndarray, float]:
        now = time.perf_counter()
        end = min(self.signal.shape[0], int((now - self._t0) * self.sample_rate))
        block, self._pos = self.signal[self._pos:end], max(self._pos, end)
        return block, now

    def stop(self) -> None:
        self.active = False


def main() -> int:
    args, work = parse_args("cosy-convert-shots-")
    null_alsa(work)

    import soundfile as sf
    import torch

    torch.set_num_threads(1)
    from cosycore.engine import Engine
    from cosycore.voices import VoiceLibrary

    engine = Engine(args.model, device="cpu")
    text = "Hello, this is a short recording of my voice."
    voice = engine.create_voice(prompt_wav(work, text, "Fox"), transcript=text, name="Fox")
    del engine
    source = prompt_wav(work, SOURCE_TEXT, "me")
    signal, rate = sf.read(source, dtype="float32")

    from app.config.settings import Settings
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    app = start_app(args.language)
    settings = Settings()
    VoiceLibrary(settings.paths.voices).add(voice)
    window = MainWindow(settings, engine=EngineThread(torch_threads=1))
    place(window)
    suffix = "" if args.language == "en" else "-zh"
    args.out.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        window.waveform.redraw()  # draw now rather than on the next 30 Hz tick
        capture(app, args.out / f"{name}{suffix}.png")

    steps: list[Step] = []

    def when(ready: Callable[[], bool], action: Callable[[], None]) -> None:
        steps.append((ready, action))

    def convert() -> None:
        window.controls.set_mode("convert")
        window.controls.set_seed(7)
        window.voice_panel.select("Fox")
        window.convert_ctl.set_source_file(source)
        window.speaking_ctl.speak()

    def live() -> None:
        window.session.player.stop()
        window.convert_panel.headphones_check.setChecked(True)
        window.convert_ctl.microphone = lambda _name: RecordingMic(np.tile(signal, 3), rate)
        window.convert_ctl.start_live()

    def meter_pieces() -> int:
        meter = window.convert_ctl.meter
        return meter.pieces if meter is not None else 0

    when(lambda: True, lambda: window.models_ctl.try_model_dir(args.model))
    when(lambda: window.session.model_info is not None, convert)
    when(lambda: bool(window.session.takes) and window.session.takes[-1].state.value == "done", lambda: None)
    when(lambda: True, lambda: window.session.player.stop())
    when(lambda: True, lambda: shot("convert-mode"))
    when(lambda: True, live)
    when(lambda: meter_pieces() >= 3, lambda: shot("convert-live"))
    when(lambda: True, window.convert_ctl.stop_live)
    when(lambda: window.session.takes[-1].state.value != "streaming", lambda: None)

    run_steps(app, steps, 200)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
