"""Audio output: a sounddevice stream fed from a thread-safe ring buffer.

:class:`Player` lives on the GUI thread and owns one output stream at a time. Synthesised chunks go
into a :class:`RingBuffer`; PortAudio's callback, which runs on PortAudio's own thread, only copies
samples out of that buffer. It never touches a widget or a Qt object: when the buffer runs dry
before the end of the take it writes silence and counts an underrun. A ~30 Hz timer on the GUI
thread tops the ring up, publishes the play position and notices when the stream has played out.

Consecutive chunks of a take are written into the same ring, so playback is gapless. Before the
first sample plays (and again after an underrun) the player waits until ``preroll`` seconds are
buffered; :func:`preroll_seconds` sizes that from the engine's measured real-time factor.
The ring, the feed the callback reads, the pending queue and the pre-roll rule are in
:mod:`app.audio.playback_feed`, free of Qt and of PortAudio.

Without PortAudio or without any output device the player is in :attr:`PlayState.NO_DEVICE`;
everything else in the app (synthesis, export) keeps working.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

# The feed, the ring, the pending queue and the pre-roll rule are Qt-free (bench/bench_playback.py runs them);
# their names stay importable from here.
from .playback_feed import (
    DEFAULT_PREROLL,
    MAX_PREROLL,
    MIN_PREROLL,
    PREROLL_MARGIN,
    RING_SECONDS,
    STREAM_CHUNK_SECONDS,
    UNMEASURED_RTF,
    Feed,
    PendingQueue,
    RingBuffer,
    hop_growth_need,
    preroll_seconds,
)

logger = logging.getLogger(__name__)

TICK_MS = 33  # ~30 Hz: top-up and position updates
_Feed = Feed  # the feed's earlier name

__all__ = [
    "DEFAULT_PREROLL", "MAX_PREROLL", "MIN_PREROLL", "PREROLL_MARGIN", "RING_SECONDS", "STREAM_CHUNK_SECONDS",
    "TICK_MS", "UNMEASURED_RTF", "AudioDevice", "Feed", "PendingQueue", "PlayState", "Player", "RingBuffer", "_Feed",
    "default_device", "find_device", "hop_growth_need", "list_devices", "load_sounddevice", "preroll_seconds",
]


class PlayState(enum.Enum):
    NO_DEVICE = "no_device"  # no PortAudio or no output device: playback is unavailable
    STOPPED = "stopped"
    BUFFERING = "buffering"  # stream open, waiting for the pre-roll
    PLAYING = "playing"


@dataclass(frozen=True)
class AudioDevice:
    """One PortAudio device as offered in a device picker."""

    index: int  # PortAudio device index (valid until PortAudio is re-initialised)
    name: str
    hostapi: str
    channels: int  # max output (or input) channels
    default_samplerate: float


def load_sounddevice() -> Any | None:
    """The sounddevice module, or None when the PortAudio library is missing."""
    try:
        import sounddevice
    except OSError as e:  # raised by sounddevice when libportaudio cannot be loaded
        logger.warning("audio is unavailable: %s", e)
        return None
    return sounddevice


def list_devices(kind: str) -> list[AudioDevice]:
    """Devices with ``kind`` ("output" or "input") channels; empty without PortAudio or devices."""
    sd = load_sounddevice()
    if sd is None:
        return []
    key = "max_output_channels" if kind == "output" else "max_input_channels"
    try:
        devices = sd.query_devices()
        apis = sd.query_hostapis()
    except Exception as e:  # PortAudio reports device problems with its own error type
        logger.warning("cannot list audio devices: %s", e)
        return []
    found = []
    for index, info in enumerate(devices):
        if int(info[key]) > 0:
            api = apis[info["hostapi"]]["name"] if info["hostapi"] < len(apis) else ""
            found.append(AudioDevice(index, str(info["name"]), str(api), int(info[key]),
                                     float(info["default_samplerate"])))
    return found


def default_device(kind: str) -> AudioDevice | None:
    """The system's default device of ``kind``, else the first one, else None."""
    devices = list_devices(kind)
    if not devices:
        return None
    sd = load_sounddevice()
    try:
        pair = sd.default.device if sd is not None else (-1, -1)
        wanted = int(pair[1] if kind == "output" else pair[0])
    except (TypeError, ValueError, IndexError):
        wanted = -1
    return next((d for d in devices if d.index == wanted), devices[0])


def find_device(kind: str, name: str) -> AudioDevice | None:
    """The device called ``name`` (settings store names, since indices change), or the default."""
    if name:
        match = next((d for d in list_devices(kind) if d.name == name), None)
        if match is not None:
            return match
    return default_device(kind)


def _make_callback(sd: Any, feed: Feed):
    """The PortAudio callback: a closure over the feed only, so it cannot reach the player or any Qt object."""

    def callback(outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if not feed.fill(outdata[:, 0]):
            raise sd.CallbackStop

    return callback


class Player(QObject):
    """Plays takes on the chosen output device. Owned by the studio session; GUI thread only.

    Use :meth:`begin` / :meth:`feed` / :meth:`end_input` to play a take while it is synthesised, or
    :meth:`play` for finished audio.
    """

    state_changed = Signal(object)  # PlayState
    position_changed = Signal(float)  # seconds into the take
    playback_finished = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, device_name: str = "", *, find_now: bool = True) -> None:
        super().__init__(parent)
        self._device_name = device_name
        self._sd: Any = None
        self._device: AudioDevice | None = None
        self._found = False
        self._state = PlayState.STOPPED
        self._stream: Any = None
        self._feed: Feed | None = None
        self._pending = PendingQueue()  # samples waiting for room in the ring
        self._resampler: Any = None
        self._sample_rate = 0  # of the take
        self._device_rate = 0  # of the open stream
        self._offset = 0.0  # seconds into the take where this playback started
        self._underruns_total = 0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_tick)
        if find_now:
            self.find_device()

    # -- devices ---------------------------------------------------------------------------
    @property
    def found(self) -> bool:
        """Whether PortAudio was loaded and the output device chosen (:meth:`find_device`)."""
        return self._found

    def find_device(self) -> None:
        """Load PortAudio and choose the output device; once. The constructor does it unless ``find_now`` is False
        (the studio does it after the window's first frame: PortAudio's start can take a tenth of a second and
        more), and anything that needs the device does it first."""
        if self._found:
            return
        self._found = True
        self._sd = load_sounddevice()
        self._device = find_device("output", self._device_name)
        self._set_state(PlayState.STOPPED if self._device is not None else PlayState.NO_DEVICE)

    @property
    def device(self) -> AudioDevice | None:
        self.find_device()
        return self._device

    def refresh_devices(self) -> list[AudioDevice]:
        """Re-read the device list (after a device was plugged in) and keep the chosen one if present."""
        self.find_device()
        name = self._device.name if self._device else ""
        self._device = find_device("output", name)
        if self._device is None:
            self.stop()
            self._set_state(PlayState.NO_DEVICE)
        elif self._state is PlayState.NO_DEVICE:
            self._set_state(PlayState.STOPPED)
        return list_devices("output")

    def set_device(self, name: str) -> None:
        self.find_device()
        self.stop()
        self._device = find_device("output", name)
        self._set_state(PlayState.STOPPED if self._device is not None else PlayState.NO_DEVICE)

    # -- state -----------------------------------------------------------------------------
    @property
    def state(self) -> PlayState:
        self.find_device()
        return self._state

    @property
    def available(self) -> bool:
        self.find_device()
        return self._device is not None and self._sd is not None

    @property
    def buffered_seconds(self) -> float:
        """Audio waiting to be played (ring and pending queue), in seconds of the take."""
        if self._feed is None or not self._device_rate:
            return 0.0
        # Pending samples are already at the device rate (resampled in feed()).
        return (self._feed.ring.available + self._pending.samples) / self._device_rate

    @property
    def underruns(self) -> int:
        """Underruns since the player was created."""
        return self._underruns_total + (self._feed.underruns if self._feed else 0)

    @property
    def position(self) -> float:
        """Seconds into the take of the sample last handed to the device."""
        if self._feed is None or not self._device_rate:
            return self._offset
        return self._offset + self._feed.frames_played / self._device_rate

    def _set_state(self, state: PlayState) -> None:
        if state is not self._state:
            self._state = state
            self.state_changed.emit(state)

    # -- playing ---------------------------------------------------------------------------
    def begin(self, sample_rate: int, preroll: float = DEFAULT_PREROLL, offset: float = 0.0) -> bool:
        """Open a stream for a new take; samples follow with :meth:`feed`. False if there is no device."""
        self.stop()
        if not self.available:
            self._set_state(PlayState.NO_DEVICE)
            return False
        self._sample_rate = int(sample_rate)
        self._offset = float(offset)
        try:
            self._open_stream(preroll)
        except Exception as e:  # PortAudio errors have their own type; any failure means no playback
            logger.exception("cannot open the output device")
            self._close_stream()
            self.failed.emit(f"Cannot play on {self._device.name if self._device else 'the output device'}: {e}")
            return False
        self._set_state(PlayState.BUFFERING)
        self._timer.start()
        return True

    def _open_stream(self, preroll: float) -> None:
        assert self._device is not None and self._sd is not None
        sd = self._sd
        rates = [self._sample_rate]
        if int(self._device.default_samplerate) not in rates:
            rates.append(int(self._device.default_samplerate))
        last_error: Exception | None = None
        for rate in rates:
            feed = Feed.for_stream(rate, preroll, RING_SECONDS)
            try:
                stream = sd.OutputStream(samplerate=rate, channels=1, dtype="float32", device=self._device.index,
                                         callback=_make_callback(sd, feed), latency="high")
            except Exception as e:  # this rate is not supported: try the device's own
                last_error = e
                continue
            self._device_rate = rate
            self._resampler = None
            if rate != self._sample_rate:
                import soxr

                self._resampler = soxr.ResampleStream(self._sample_rate, rate, 1, dtype="float32")
                logger.info("resampling playback %d -> %d Hz for %s", self._sample_rate, rate, self._device.name)
            self._feed, self._stream = feed, stream
            stream.start()
            return
        raise RuntimeError(str(last_error) if last_error else "no usable sample rate")

    def feed(self, samples: np.ndarray) -> None:
        """Queue more samples of the current take (GUI thread)."""
        if self._feed is None or self._feed.end_of_input:
            return
        x = np.ascontiguousarray(samples, dtype=np.float32).reshape(-1)
        if self._resampler is not None:
            x = self._resampler.resample_chunk(x)
        self._pending.put(x)
        self._top_up()

    def end_input(self) -> None:
        """No more samples will come for this take: play out what is buffered, then stop."""
        if self._feed is None:
            return
        if self._resampler is not None:
            self._pending.put(self._resampler.resample_chunk(np.zeros(0, np.float32), last=True))
        self._pending.end()  # the feed's input ends once everything pending is in the ring
        self._top_up()

    def play(self, samples: np.ndarray, sample_rate: int, start: float = 0.0) -> bool:
        """Play finished audio from ``start`` seconds."""
        first = int(max(0.0, start) * sample_rate)
        if not self.begin(sample_rate, preroll=MIN_PREROLL, offset=first / sample_rate):
            return False
        self.feed(np.asarray(samples, dtype=np.float32)[first:])
        self.end_input()
        return True

    def stop(self) -> None:
        """Stop at once and drop what is buffered."""
        self._timer.stop()
        if self._feed is not None:
            self._underruns_total += self._feed.underruns
        self._close_stream()
        self._pending.clear()
        if self._state not in (PlayState.NO_DEVICE, PlayState.STOPPED):
            self._set_state(PlayState.STOPPED)

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        self._feed = None
        self._resampler = None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception:  # closing a stream whose device vanished can fail; nothing is left to do
                logger.exception("error while closing the output stream")

    def _top_up(self) -> None:
        if self._feed is not None:
            self._pending.top_up(self._feed)

    def _on_timer_tick(self) -> None:
        feed = self._feed
        if feed is None:
            return
        self._top_up()
        self._set_state(PlayState.PLAYING if feed.started else PlayState.BUFFERING)
        self.position_changed.emit(self.position)
        stream_done = self._stream is not None and not self._stream.active
        if feed.drained and stream_done:
            position = self.position
            self._timer.stop()
            self._underruns_total += feed.underruns
            self._close_stream()
            self._offset = position
            self._set_state(PlayState.STOPPED)
            self.playback_finished.emit()
