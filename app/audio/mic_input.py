"""A microphone as a source of blocks, for Convert mode (recording a source, and live conversion).

The sounddevice input callback runs on PortAudio's thread and only queues a copy of each block with
the time it arrived; the GUI drains the queue with :meth:`MicInput.read`. Anything with the same
methods (``start``, ``read``, ``stop``, ``sample_rate``, ``device_name``, ``active``) can stand in
for it: the tests feed pieces from a fake one.
"""

from __future__ import annotations

import logging
import queue
import time
from typing import Any

import numpy as np

from .playback import find_device, load_sounddevice

logger = logging.getLogger(__name__)

PREFERRED_RATE = 48000


class MicInput:
    """One input stream on the named microphone (the system's default when the name is not found)."""

    def __init__(self, device_name: str = "") -> None:
        self._wanted = device_name
        self._sd = load_sounddevice()
        self._stream: Any = None
        self._blocks: queue.SimpleQueue[tuple[np.ndarray, float]] = queue.SimpleQueue()
        self.sample_rate = PREFERRED_RATE
        self.overflows = 0
        device = find_device("input", device_name) if self._sd is not None else None
        self.device_name = device.name if device is not None else ""

    @property
    def active(self) -> bool:
        return self._stream is not None

    def start(self) -> str:
        """Open the stream; returns "" on success, else why it could not (for a message)."""
        if self._sd is None:
            return "the audio library (PortAudio) is not installed"
        device = find_device("input", self._wanted)
        if device is None:
            return "no microphone was found"
        sd = self._sd
        rate = PREFERRED_RATE
        try:
            sd.check_input_settings(device=device.index, channels=1, dtype="float32", samplerate=rate)
        except Exception:  # the device does not take 48 kHz: use its own rate
            rate = int(device.default_samplerate)
        blocks = self._blocks = queue.SimpleQueue()

        def callback(indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
            # PortAudio's thread: queue a copy with its arrival time; nothing else.
            if status.input_overflow:
                self.overflows += 1
            blocks.put((indata[:, 0].copy(), time.perf_counter()))

        try:
            stream = sd.InputStream(samplerate=rate, channels=1, dtype="float32", device=device.index,
                                    callback=callback, latency="low")
            stream.start()
        except Exception as e:  # PortAudio errors: device busy, unplugged, ...
            logger.exception("cannot record from %s", device.name)
            return f"cannot record from {device.name}: {e}"
        self._stream = stream
        self.sample_rate = rate
        self.device_name = device.name
        return ""

    def read(self) -> tuple[np.ndarray, float]:
        """Everything that arrived since the last call, and when its newest sample arrived (perf_counter)."""
        parts = []
        arrived = time.perf_counter()
        while True:
            try:
                block, arrived = self._blocks.get_nowait()
            except queue.Empty:
                break
            parts.append(block)
        return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), arrived

    def stop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            stream.stop()
            stream.close()
        except Exception:  # the device may have vanished; what was recorded is kept
            logger.exception("error while closing the input stream")
