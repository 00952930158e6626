"""Convert mode: a recording (a file, or one recorded here) spoken again in the chosen voice, and live
conversion from the microphone.

The controller is built from the session (:class:`~app.session.StudioSession`: the engine thread, the
player, the settings, the chosen voice and the loaded model, the takes, the messages), the panel and the
synthesis controls it drives, and the voices controller (a voice of the other model family is made again).
A conversion is a take of mode ``"convert"``, begun through the session, so the speaking and playback
controllers list, show, play and keep it like any other: its text names the source, its voice the target.

Live: the microphone's blocks go through :class:`cosycore.studio.live_convert.PieceCutter` into a
:class:`~cosycore.studio.live_convert.LiveFeed` that one engine-thread job converts piece by piece
(:func:`app.worker.convert_jobs.live_chunks`); each chunk's times feed a
:class:`~cosycore.studio.live_convert.LatencyMeter`, whose latency and real-time factor the panel shows.
The whole recording is kept too, so it can be converted in one go afterwards.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QFileDialog, QWidget

from cosycore.errors import CosyError
from cosycore.studio.live_convert import LatencyMeter, LiveFeed, PieceCutter, same_device
from cosycore.studio.take import Take
from cosycore.voices import Voice

from ..audio.mic_input import MicInput
from ..audio.playback import AudioDevice, list_devices
from ..audio.playback_feed import MIN_PREROLL
from ..session import StudioSession
from ..widgets.convert_panel import ConvertPanel
from ..widgets.synthesis_controls import SynthesisControls
from ..worker.convert_jobs import ConvertJob, LiveJob
from ..worker.engine_messages import SynthesisStats

if TYPE_CHECKING:
    from cosycore.engine.info import EngineInfo
    from cosycore.request import AudioChunk

    from .voices import VoicesController

logger = logging.getLogger(__name__)

TICK_MS = 30  # how often the microphone's queue is read
MAX_RECORD_SECONDS = 600.0  # a recording (also a live one) stops by itself after ten minutes
MAX_SOURCE_SECONDS = 3600.0  # cosycore.engine.convert.MAX_SOURCE_SECONDS (not imported here: it pulls in torch)
DRAW_SECONDS = 600.0  # a source file's waveform is drawn up to this length (read whole, on the GUI thread)
AUDIO_FILTER = "Audio (*.wav *.flac *.ogg *.mp3 *.m4a *.aiff *.aif);;All files (*)"


class Microphone(Protocol):
    """What the controller uses of :class:`app.audio.mic_input.MicInput` (tests give a fake)."""

    sample_rate: int
    device_name: str

    @property
    def active(self) -> bool: ...

    def start(self) -> str: ...

    def read(self) -> tuple[np.ndarray, float]: ...

    def stop(self) -> None: ...


class ConvertController(QObject):
    """Convert mode's work. Built by the main window from the session and the widgets; GUI thread only."""

    def __init__(self, session: StudioSession, *, panel: ConvertPanel, controls: SynthesisControls,
                 voices: VoicesController, dialog_parent: QWidget | None = None,
                 microphone: Callable[[str], Microphone] = MicInput,
                 input_devices: Callable[[], list[AudioDevice]] = lambda: list_devices("input"),
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.engine = session.engine
        self.player = session.player
        self.settings = session.settings
        self.panel = panel
        self.controls = controls
        self.voices = voices
        self._show_error = session.show_error
        self._show_status = session.show_status
        self._dialog_parent = dialog_parent
        self.microphone = microphone  # device name -> a microphone (tests give fakes)
        self.input_devices = input_devices  # the input devices found now (tests give fakes)
        self.max_source_seconds = MAX_SOURCE_SECONDS  # longer sources are refused (the engine's limit)
        self.source: Path | np.ndarray | None = None  # a file, or recorded samples at source_rate
        self.source_rate = 0
        self.source_name = ""
        self.source_seconds = 0.0
        self.mic: Microphone | None = None
        self._recorded: list[np.ndarray] = []
        self._recorded_samples = 0
        self._live = False  # a live conversion is running (the microphone feeds it)
        self._convert_after = False  # the live conversion gave way: convert the recording when it ends
        self.live_request = 0  # request id of the live take
        self.feed: LiveFeed | None = None
        self.cutter: PieceCutter | None = None
        self.meter: LatencyMeter | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_tick)

    def wire(self) -> None:
        p = self.panel
        p.open_file_requested.connect(self.choose_file)
        p.record_clicked.connect(self.toggle_recording)
        p.live_clicked.connect(self.toggle_live)
        p.convert_after_clicked.connect(self.convert_after)
        self.show_saved_microphone()
        p.mic_combo.opening.connect(self.refresh_microphones)
        p.mic_combo.currentIndexChanged.connect(self._on_microphone_chosen)
        p.headphones_check.setChecked(self.settings.headphones)
        p.headphones_check.toggled.connect(self._on_headphones_toggled)
        self.controls.stop_clicked.connect(self.stop)
        self.engine.chunk_ready.connect(self._on_engine_chunk_ready)
        for signal in (self.engine.synthesis_finished, self.engine.synthesis_cancelled):
            signal.connect(self._on_engine_take_ended)
        self.engine.synthesis_failed.connect(lambda rid, _msg: self._on_live_ended(rid))
        self.session.voice_changed.connect(self.voice_changed)
        self.voice_changed(self.session.voice)

    def voice_changed(self, voice: Voice | None) -> None:
        self.panel.set_target(voice.name if voice is not None else "")

    @property
    def recording(self) -> bool:
        return self.mic is not None and self.mic.active and not self._live

    @property
    def live(self) -> bool:
        return self._live

    # -- the microphone ----------------------------------------------------------------------------
    def show_saved_microphone(self) -> None:
        """The saved choice, without asking PortAudio for its devices (that waits until the list opens)."""
        saved = self.settings.input_device
        choices = [(self.tr("System default"), "")] + ([(saved, saved)] if saved else [])
        self.panel.set_microphones(choices, saved)

    def refresh_microphones(self) -> None:
        """Fill the Microphone list: the system's default, the input devices found now, and the saved choice
        even when it is not plugged in (so that it is not lost)."""
        saved = self.panel.microphone
        devices = self.input_devices()
        choices = [(self.tr("System default"), "")] + [(f"{d.name} ({d.hostapi})", d.name) for d in devices]
        if saved and all(d.name != saved for d in devices):
            choices.append((self.tr("{0} (not found)").format(saved), saved))
        self.panel.set_microphones(choices, saved)

    def _on_microphone_chosen(self, _index: int) -> None:
        self.settings.input_device = self.panel.microphone

    # -- the source --------------------------------------------------------------------------------
    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._dialog_parent, self.tr("Recording to convert"), "",
                                              self.tr(AUDIO_FILTER))
        if path:
            self.set_source_file(Path(path))

    def set_source_file(self, path: Path) -> bool:
        """Use ``path`` as the source; a file the engine would refuse (not audio, damaged, below 16 kHz, too
        short or too long) is refused now, with what to do."""
        from cosycore.engine.convert import probe_source  # torch is loaded by now (a model is)

        try:
            info = probe_source(str(path), None, max_seconds=self.max_source_seconds)
        except CosyError as e:
            self._show_error(self.tr("Cannot use this recording"), str(e))
            return False
        self._set_source(Path(path), info.sample_rate, Path(path).name, info.seconds or 0.0)
        self.panel.show_source_audio(_read_for_display(Path(path), info.seconds), info.sample_rate)
        return True

    def set_source_audio(self, samples: np.ndarray, sample_rate: int, name: str = "") -> None:
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        seconds = samples.shape[0] / sample_rate if sample_rate else 0.0
        label = name or self.tr("Recording of {0:.1f} s ({1})").format(seconds, time.strftime("%H:%M"))
        self._set_source(samples, sample_rate, label, seconds)
        self.panel.show_source_audio(samples, sample_rate)

    def _set_source(self, source: Path | np.ndarray, rate: int, name: str, seconds: float) -> None:
        self.source, self.source_rate, self.source_name, self.source_seconds = source, rate, name, seconds
        self.panel.set_source(self.tr("{0} · {1:.1f} s").format(name, seconds))

    # -- recording a source ------------------------------------------------------------------------
    def toggle_recording(self) -> None:
        if self.recording:
            self.stop_recording()
        else:
            self.start_recording()

    def start_recording(self) -> bool:
        if self._live or not self._open_mic():
            return False
        self.panel.set_recording(True)
        self.panel.set_source(self.tr("Recording… speak now."))
        return True

    def stop_recording(self) -> None:
        if not self.recording:
            return
        self._close_mic()
        self.panel.set_recording(False)
        self._keep_recording()

    def _open_mic(self, mic: Microphone | None = None) -> bool:
        self.player.stop()
        mic = mic if mic is not None else self.microphone(self.panel.microphone)
        error = mic.start()
        if error:
            self._show_error(self.tr("Cannot record"),
                             self.tr("Cannot record: {0}. Plug in a microphone, or choose another one in the "
                                     "Microphone list, then try again.").format(error))
            return False
        self.mic = mic
        self._recorded, self._recorded_samples = [], 0
        self.panel.begin_source(mic.sample_rate)
        self._timer.start()
        return True

    def _close_mic(self) -> None:
        self._timer.stop()
        if self.mic is not None:
            self._take_input()
            self.mic.stop()

    def _keep_recording(self) -> None:
        """The recording just made becomes the source (a Convert converts it)."""
        if self.mic is None or not self._recorded:
            return
        self.set_source_audio(np.concatenate(self._recorded), self.mic.sample_rate)

    def _take_input(self) -> None:
        """Read what the microphone delivered: keep it, and in live mode cut it into pieces for the feed."""
        assert self.mic is not None
        block, arrived = self.mic.read()
        if block.size == 0:
            return
        room = int(MAX_RECORD_SECONDS * self.mic.sample_rate) - self._recorded_samples
        block = block[: max(0, room)]
        self._recorded.append(block)
        self._recorded_samples += block.shape[0]
        self.panel.append_source(block)
        if self._live and self.cutter is not None and self.feed is not None and not self._convert_after:
            for piece in self.cutter.push(block, arrived):
                self.feed.put(piece)

    def _on_timer_tick(self) -> None:
        if self.mic is None:
            return
        self._take_input()
        heard = self._recorded_samples / self.mic.sample_rate
        if self._live:
            self.panel.set_source(self.tr("Microphone, live · {0:.1f} s").format(heard))
            if self.meter is not None and self.meter.last_latency is None:
                self.panel.show_stats(None, None, heard)
        else:
            self.panel.set_source(self.tr("Recording… {0:.1f} s").format(heard))
        if heard >= MAX_RECORD_SECONDS:
            self._show_status(self.tr("Recording stopped at the limit of {0:g} minutes.").format(
                MAX_RECORD_SECONDS / 60), 8000)
            self.stop_live() if self._live else self.stop_recording()

    # -- converting --------------------------------------------------------------------------------
    def _target(self) -> tuple[EngineInfo, dict[str, Any]] | None:
        """The loaded model and the target's fields of a job, or None after telling the user what is missing."""
        info = self.session.model_info
        if info is None:
            self._show_error(self.tr("No model"), self.tr("Load a model first."))
            return None
        voice = self.session.voice
        if voice is None:
            self._show_error(self.tr("No target voice"),
                             self.tr("Choose the voice to convert into in the list of voices, or record or "
                                     "make one first."))
            return None
        if voice.family != info.family:
            # Made for the other family: this conversion uses its recording, and the voice is made again
            # for the loaded model and saved (as Speak does).
            self.voices.refresh(voice)
            return info, {"prompt_audio": voice.audio_24k, "prompt_sample_rate": voice.sample_rate}
        return info, {"voice": voice}

    def convert(self) -> int | None:
        """Convert the source into the chosen voice as a new take (the Convert button)."""
        if self.recording:
            self.stop_recording()
        if self._live:
            self._show_status(self.tr("Stop live conversion first."), 5000)
            return None
        if self.source is None:
            self._show_error(self.tr("No source"), self.tr("Open a recording or record one first, then press "
                                                           "Convert."))
            return None
        target = self._target()
        if target is None:
            return None
        info, fields = target
        speed = self.controls.speed
        rate = self.source_rate if isinstance(self.source, np.ndarray) else None
        job = ConvertJob(self.source, rate, speed=speed, seed=self.controls.seed, stream=self.controls.stream,
                         max_source_seconds=self.max_source_seconds, **fields)
        self.player.stop()
        request_id = self.engine.convert(job)
        self._begin(request_id, info, self.source_name, self.source_seconds / speed, speed)
        return request_id

    def _begin(self, request_id: int, info: EngineInfo, text: str, expected: float, speed: float) -> None:
        voice = self.session.voice
        take = Take(request_id, text, mode="convert", voice_name=voice.name if voice is not None else "",
                    sample_rate=info.sample_rate, seed=self.controls.seed, speed=speed, expected_seconds=expected,
                    model=f"{info.title} · {Path(info.model_dir).name}", quality=info.quality)
        self.session.begin_take(take)

    # -- live ----------------------------------------------------------------------------------------
    def toggle_live(self) -> None:
        if self._live:
            self.stop_live()
        else:
            self.start_live()

    def start_live(self) -> bool:
        """Start converting from the microphone; refused (with why) when it would not work or would echo."""
        if self._live:
            return False
        if self.recording:
            self.stop_recording()
        target = self._target()
        if target is None:
            return False
        info, fields = target
        mic = self.microphone(self.panel.microphone)  # the picked microphone and the player's output
        out = self.player.device
        if out is not None and same_device(mic.device_name, out.name) and not self.panel.headphones_check.isChecked():
            self._show_error(self.tr("Headphones needed"),
                             self.tr("The microphone and the output are the same device ({0}), so the converted "
                                     "voice would play into the microphone and be converted again. Wear headphones "
                                     "and tick “I use headphones”, or choose another microphone in the Microphone "
                                     "list or another output in Settings › Output device.").format(out.name))
            return False
        if not self._open_mic(mic):
            return False
        assert self.mic is not None
        try:
            self.cutter = PieceCutter(self.mic.sample_rate)
        except CosyError as e:
            self._close_mic()
            self.mic = None
            self._show_error(self.tr("Cannot convert live"), str(e))
            return False
        self.feed = LiveFeed()
        self.meter = LatencyMeter(output_delay=MIN_PREROLL)
        self._live, self._convert_after = True, False
        self.live_request = self.engine.convert_live(LiveJob(self.feed, seed=self.controls.seed, **fields))
        self._begin(self.live_request, info, self.tr("Live {0}").format(time.strftime("%H:%M:%S")), 0.0, 1.0)
        self.panel.set_live(True)
        self.panel.show_stats(None, None, 0.0)
        return True

    def stop_live(self) -> None:
        """Stop listening: the pieces heard so far are converted and played out; with "Convert when I stop"
        chosen, the whole recording is converted now instead."""
        if not self._live:
            return
        self._close_mic()
        if self.cutter is not None and self.feed is not None and not self._convert_after:
            last = self.cutter.flush()
            if last is not None:
                self.feed.put(last)
        if self.feed is not None:
            self.feed.close()
        self._live = False
        self.panel.set_live(False)
        self._keep_recording()
        if self._convert_after:
            self._convert_after = False
            self.convert()

    def convert_after(self) -> None:
        """The machine cannot keep up: stop converting live, keep recording, convert it all at the end."""
        if not self._live or self._convert_after:
            return
        self._convert_after = True
        if self.feed is not None:
            self.feed.close()
        self.engine.stop()  # the live take keeps what was converted
        self.panel.hide_behind()
        self.panel.stats_label.setText(self.tr("Recording; press Stop live to convert the whole recording."))

    def _on_engine_chunk_ready(self, request_id: int, chunk: AudioChunk) -> None:
        mark = getattr(chunk, "live", None)  # a LiveChunk's
        if request_id != self.live_request or mark is None or self.meter is None:
            return
        self.meter.add(mark.converted(chunk.samples))
        if self._convert_after:
            return
        self.panel.show_stats(self.meter.last_latency, self.meter.rtf)
        if self._live and self.meter.falling_behind and not self.panel.behind_box.isVisible():
            self.panel.show_behind(self.meter.rtf)

    def _on_engine_take_ended(self, stats: SynthesisStats) -> None:
        self._on_live_ended(stats.request_id)

    def _on_live_ended(self, request_id: int) -> None:
        """The live take ended by itself (an error, or Stop): stop listening too, unless converting afterwards."""
        if request_id == self.live_request and self._live and not self._convert_after:
            self.stop_live()

    def stop(self) -> None:
        """Stop (the Stop button, Esc): recording and live conversion end; the engine thread is stopped by
        the takes controller."""
        self._convert_after = False
        if self._live:
            self.stop_live()
        elif self.recording:
            self.stop_recording()

    def _on_headphones_toggled(self, on: bool) -> None:
        self.settings.headphones = on

    def close(self) -> None:
        self._timer.stop()
        if self.mic is not None:
            self.mic.stop()
        if self.feed is not None:
            self.feed.close()
        self._live = False



def _read_for_display(path: Path, seconds: float | None) -> np.ndarray | None:
    """A source file's samples, mono, to draw; None when it is long or cannot be read here (the engine reads
    more formats; a file it refuses was refused already)."""
    if seconds is None or seconds > DRAW_SECONDS:
        return None
    import soundfile as sf

    try:
        data, _ = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.SoundFileError, RuntimeError, OSError) as e:
        logger.info("not drawing %s: %s", path, e)
        return None
    return np.ascontiguousarray(data.mean(axis=1, dtype=np.float32))
