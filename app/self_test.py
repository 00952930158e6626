"""``cosy-studio --self-test``: check that an installed or bundled app can do its whole job, then exit.

The check needs no model download and no display: it starts Qt (any platform plugin, including
``offscreen``), finds the bundled resources, writes a tiny random-weight model into a temporary
folder (:func:`cosycore.testing.tiny_model.write_tiny_model`) after checking that wetext's English
text normalisation spells out a number (it needs its grammar files and the contractions package's
data, both data files a bundle must carry), loads it with the engine, speaks one
sentence through the text frontend, transcribes the test prompt with a tiny random-weight SenseVoice
model through sherpa-onnx (:func:`cosycore.testing.tiny_sensevoice.write_tiny_sensevoice`; a build
without sherpa-onnx's libraries fails here), and plays the audio on the default output device. A
machine without any output device passes with a note; a build whose PortAudio library is missing fails.

Each step prints one line with its time; the exit code is 0 when everything worked, 1 otherwise.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

logger = logging.getLogger(__name__)

SENTENCE = "Cosy Studio is ready to speak."
MAX_TOKENS = 60  # the tiny model's speech, capped so the check stays quick


def _say(out: IO[str], line: str) -> None:
    out.write(line + "\n")
    out.flush()  # each step appears when it happens, also through a pipe


class SelfTestError(Exception):
    """A step found the build broken; the message says which part is missing."""


def _check_qt(out: IO[str]) -> Any:
    from PySide6.QtWidgets import QApplication

    from .config.resources import icon, resource_root

    app = QApplication.instance() or QApplication(sys.argv[:1])
    root = resource_root()
    if icon("app.svg").isNull():
        raise SelfTestError(f"the app icon in {root / 'icons'} could not be loaded (Qt's svg plugin missing?)")
    _say(out, f"qt: {QApplication.platformName()} platform, resources in {root}")
    return app


NORMALISE_SAMPLE = "I've got 25 apples."  # wetext reads it as "I've got twenty five apples."


def _check_text(out: IO[str]) -> None:
    from cosycore.frontend.text_original import wetext_normalize

    start = time.perf_counter()
    text = wetext_normalize(NORMALISE_SAMPLE, "en")  # falls back to word by word, then to the text as it is
    if any(c.isdigit() for c in text):
        raise SelfTestError(f"text normalisation left {NORMALISE_SAMPLE!r} as {text!r}: wetext or its data "
                            "(its grammar files, the contractions package's json files) is missing from this build")
    _say(out, f"text: {NORMALISE_SAMPLE!r} reads {text!r} ({time.perf_counter() - start:.1f} s)")


def _synthesise(out: IO[str], folder: Path) -> tuple[np.ndarray, int]:
    from cosycore.engine import Engine
    from cosycore.errors import SynthesisError
    from cosycore.hub.verification import smoke_speech
    from cosycore.testing.tiny_model import write_tiny_model

    start = time.perf_counter()
    write_tiny_model(folder, "cosyvoice2", seed=0)
    _say(out, f"model: tiny CosyVoice2 written in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    engine = Engine(folder, device="cpu")
    _say(out, f"engine: loaded on {engine.device} in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    try:  # the model check's synthesis (cosycore.hub.verification), streamed as the app speaks
        audio, chunks = smoke_speech(engine, text=SENTENCE, min_tokens=None, max_tokens=MAX_TOKENS, stream=True)
    except SynthesisError as e:
        raise SelfTestError(str(e)) from e
    _say(out, f"speech: {audio.size / engine.sample_rate:.2f} s of audio in {chunks} chunk(s), "
         f"{time.perf_counter() - start:.1f} s")
    return audio, engine.sample_rate


def _transcribe(out: IO[str], folder: Path) -> None:
    """Speech recognition as the app's Transcribe does it: sherpa-onnx loads a SenseVoice folder and decodes."""
    from cosycore.asr.sensevoice import SenseVoice
    from cosycore.hub.verification import SMOKE_PROMPT_RATE, smoke_prompt
    from cosycore.testing.tiny_sensevoice import write_tiny_sensevoice

    start = time.perf_counter()
    # model.onnx (float): the int8 file would need onnxruntime's quantizer, which only this check would use
    write_tiny_sensevoice(folder, seed=0, int8=False)
    recognizer = SenseVoice.load(folder, threads=1)
    transcript = recognizer.transcribe(smoke_prompt(), SMOKE_PROMPT_RATE, what="the test prompt")
    if transcript.language != "en":  # the tiny model answers "auto" with <|en|>; anything else is a broken decode
        raise SelfTestError(f"speech recognition heard the language {transcript.language!r} instead of 'en' "
                            "(sherpa-onnx or its onnxruntime in this build is broken)")
    _say(out, f"asr: tiny SenseVoice via sherpa-onnx, {len(transcript.text.split())} word(s) in "
         f"{time.perf_counter() - start:.1f} s")


def _play(out: IO[str], audio: np.ndarray, sample_rate: int) -> None:
    from .audio.playback import default_device, load_sounddevice

    sd = load_sounddevice()
    if sd is None:
        raise SelfTestError("the PortAudio library could not be loaded; the build is missing libportaudio")
    device = default_device("output")
    if device is None:
        _say(out, "audio: no output device on this machine; playback skipped")
        return
    start = time.perf_counter()
    sd.play(audio, sample_rate, device=device.index, blocking=True)
    _say(out, f"audio: played on '{device.name}' ({device.hostapi}) via {getattr(sd, '_libname', 'PortAudio')} "
         f"in {time.perf_counter() - start:.1f} s")


def _report_stream() -> IO[str]:
    # A windowed Windows/macOS build has no stdout; the report then goes to a file beside the temp files.
    if sys.stdout is not None:
        return sys.stdout
    path = Path(tempfile.gettempdir()) / "cosy-studio-self-test.txt"
    return open(path, "w", encoding="utf-8")  # stays open until the process ends


def run_self_test(out: IO[str] | None = None, *, play: Callable[[IO[str], np.ndarray, int], None] = _play) -> int:
    """Run the checks, printing one line per step; 0 when all passed, 1 when one failed."""
    import torch

    stream = out or _report_stream()
    begin = time.perf_counter()
    threads = torch.get_num_threads()
    # The tiny model gains nothing from more threads, and on a busy machine they spin against each
    # other (seconds instead of a fraction of one), which would make the check slow for no reason.
    torch.set_num_threads(1)
    try:
        app = _check_qt(stream)
        _check_text(stream)
        with tempfile.TemporaryDirectory(prefix="cosy-self-test-") as tmp:
            audio, rate = _synthesise(stream, Path(tmp) / "tiny-cosyvoice2")
            _transcribe(stream, Path(tmp) / "tiny-sensevoice")
        play(stream, audio, rate)
        del app
    except Exception as e:  # the whole point is to report any failure as a result, not a crash
        traceback.print_exc(file=stream)
        _say(stream, f"self-test FAILED: {e}")
        return 1
    finally:
        torch.set_num_threads(threads)
    _say(stream, f"self-test OK in {time.perf_counter() - begin:.1f} s")
    return 0
