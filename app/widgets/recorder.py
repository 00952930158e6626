"""Recording a voice: microphone picker, live level, 3-30 s recording, checks, trimming, saving.

The sounddevice input callback runs on PortAudio's thread and only puts copies of the incoming
blocks into a queue. A ~30 Hz timer on the GUI thread drains the queue, feeds the level meter and
the waveform, and stops the recording at :data:`MAX_SECONDS`. The same dialog also takes audio from
a file (:meth:`Recorder.set_audio`), so both paths share the checks and the trim handles.
"""

from __future__ import annotations

import logging
import queue
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..audio.clip_checks import MAX_SECONDS, check_clip
from ..audio.playback import Player, find_device, list_devices, load_sounddevice
from ..config.settings import Settings
from .level_meter import LevelMeter
from .transcribe_row import TranscribeRow
from .waveform import WaveformView

logger = logging.getLogger(__name__)

TICK_MS = 33
PREFERRED_RATE = 48000


check_recording = check_clip  # (problems that block saving, warnings), with the engine's thresholds


SPEECH_FRAME_S = 0.02
SPEECH_BELOW_PEAK_DB = 40.0  # frames this far below the loudest frame count as silence
SPEECH_FLOOR_DBFS = -55.0  # ... and so does anything quieter than this
SPEECH_PAD_S = 0.2  # kept on each side of the speech


def speech_span(audio: np.ndarray, sample_rate: int) -> tuple[float, float]:
    """Where the speech is in a recording (seconds), with a little margin: the default trim.

    Frames of 20 ms count as speech when their RMS level is within 40 dB of the loudest frame and
    above -55 dBFS. A recording without such frames keeps its full length.
    """
    x = np.asarray(audio, dtype=np.float64).reshape(-1)
    duration = x.size / sample_rate if sample_rate > 0 else 0.0
    hop = max(1, round(SPEECH_FRAME_S * sample_rate))
    n = x.size // hop
    if n == 0:
        return 0.0, duration
    level = 10.0 * np.log10(np.mean(x[: n * hop].reshape(n, hop) ** 2, axis=1) + 1e-20)
    loud = np.flatnonzero(level >= max(level.max() - SPEECH_BELOW_PEAK_DB, SPEECH_FLOOR_DBFS))
    if loud.size == 0:
        return 0.0, duration
    start = max(0.0, loud[0] * hop / sample_rate - SPEECH_PAD_S)
    end = min(duration, (loud[-1] + 1) * hop / sample_rate + SPEECH_PAD_S)
    return start, end


class _InputCounters:
    """Written by the input callback, read by the GUI."""

    def __init__(self) -> None:
        self.overflows = 0


class Recorder(QDialog):
    """Dialog that makes a new voice from the microphone or a file. Owned by the main window."""

    save_requested = Signal(object, int, str, str)  # audio float32 [N], sample rate, name, transcript
    file_requested = Signal()  # the user wants to load a recording from a file
    asr_models_requested = Signal()  # Transcribe needs the speech-recognition model: open Models… on it
    recording_finished = Signal()

    def __init__(self, player: Player, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Record a voice"))
        self.setObjectName("recorder")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.setStyleSheet("QDialog#recorder { border: 1px solid palette(mid); }")  # visible even without a frame
        self.player = player
        self.settings = settings
        self._sd = load_sounddevice()
        self._stream: Any = None
        self._blocks: queue.SimpleQueue[np.ndarray] = queue.SimpleQueue()
        self._recorded: list[np.ndarray] = []
        self._recorded_samples = 0
        self._rate = PREFERRED_RATE
        self._audio = np.zeros(0, np.float32)
        self._speech = (0.0, 0.0)  # where the speech is in the clip (seconds)
        self._error = ""  # the engine's answer to the last Save, shown until the clip or its fields change
        self._attempted = False  # a recording was made (maybe stopped before any audio arrived)
        self._counters = _InputCounters()

        self.mic_combo = QComboBox(self)
        self.mic_combo.setObjectName("micCombo")
        self.mic_combo.setToolTip(self.tr("The microphone to record from"))
        self.mic_combo.setMinimumContentsLength(24)
        self.refresh_button = QPushButton(self.tr("Refresh"), self)
        self.refresh_button.setToolTip(self.tr("Look for microphones again (after plugging one in)"))
        self.refresh_button.clicked.connect(self.refresh_devices)
        self.meter = LevelMeter(self)
        self.record_button = QPushButton(self.tr("Record"), self)
        self.record_button.setObjectName("recordButton")
        self.record_button.setToolTip(self.tr("Start recording; read a sentence or two naturally (3-30 s)"))
        self.record_button.clicked.connect(self._on_record_clicked)
        self.time_label = QLabel(self)
        self.time_label.setObjectName("recordTime")
        self.time_label.setToolTip(self.tr("Recorded time; recording stops by itself at 30 s"))
        self.open_button = QPushButton(self.tr("Open file…"), self)
        self.open_button.setToolTip(self.tr("Use an audio file instead of the microphone"))
        self.open_button.clicked.connect(self.file_requested)

        self.waveform = WaveformView(self)
        self.waveform.setObjectName("recordingWaveform")
        self.waveform.setToolTip(self.tr("Drag the shaded area's edges to trim the recording"))
        self.waveform.setMinimumHeight(110)
        self.waveform.build_plot()  # the trim handles live on the plot
        import pyqtgraph as pg  # loaded by build_plot; not a module import, so the first frame needs none

        self.region = pg.LinearRegionItem(values=(0.0, 0.0), brush=pg.mkBrush(QColor(47, 125, 209, 40)))
        self.region.setZValue(10)
        self.region.setVisible(False)
        self.region.sigRegionChanged.connect(self._on_region_changed)
        self.waveform.plot.addItem(self.region)

        self.messages = QLabel(self)
        self.messages.setObjectName("recorderMessages")
        self.messages.setWordWrap(True)
        self.play_button = QPushButton(self.tr("Play"), self)
        self.play_button.setToolTip(self.tr("Listen to the trimmed recording"))
        self.play_button.clicked.connect(self._on_play_clicked)
        self.name_edit = QLineEdit(self)
        self.name_edit.setObjectName("voiceName")
        self.name_edit.setPlaceholderText(self.tr("e.g. Anna, calm"))
        self.name_edit.setToolTip(self.tr("A name for the new voice"))
        self.transcript_edit = QLineEdit(self)
        self.transcript_edit.setObjectName("recordTranscript")
        self.transcript_edit.setPlaceholderText(self.tr("Exactly what is said in the recording"))
        self.transcript_edit.setToolTip(self.tr("Needed for Clone mode; may stay empty for Cross-lingual and "
                                                "Instruct"))
        self.transcript_edit.textEdited.connect(self._on_field_edited)
        self.name_edit.textEdited.connect(self._on_field_edited)
        self.asr_text = ""  # the words Transcribe gave for this clip ("" when none): saved as recognised
        self.transcribe_row = TranscribeRow(self)
        self.transcribe_row.set_source(self._transcribe_source)
        self.transcribe_row.transcribed.connect(self._on_transcribe_row_transcribed)
        self.transcribe_row.models_requested.connect(self.asr_models_requested)
        self.transcribe_row.hide()  # until the main window gives it a transcriber
        self.save_button = QPushButton(self.tr("Save as voice"), self)
        self.save_button.setObjectName("saveVoiceButton")
        self.save_button.setToolTip(self.tr("Make the voice from the trimmed recording and add it to the library"))
        self.save_button.clicked.connect(self._on_save_clicked)
        self.close_button = QPushButton(self.tr("Close"), self)
        self.close_button.setToolTip(self.tr("Close the recorder"))
        self.close_button.clicked.connect(self.close)
        for field in (self.name_edit, self.transcript_edit):  # Enter saves, as in any form
            field.returnPressed.connect(self._on_return_pressed)

        mic_row = QHBoxLayout()
        mic_row.addWidget(QLabel(self.tr("Microphone:"), self))
        mic_row.addWidget(self.mic_combo, 1)
        mic_row.addWidget(self.refresh_button)
        rec_row = QHBoxLayout()
        rec_row.addWidget(self.record_button)
        rec_row.addWidget(self.meter, 1)
        rec_row.addWidget(self.time_label)
        rec_row.addWidget(self.open_button)
        form = QFormLayout()
        form.addRow(self.tr("Name:"), self.name_edit)
        form.addRow(self.tr("Transcript:"), self.transcript_edit)
        form.addRow("", self.transcribe_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.play_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(mic_row)
        layout.addLayout(rec_row)
        layout.addWidget(self.waveform, 1)
        layout.addWidget(self.messages)
        layout.addLayout(form)
        layout.addLayout(buttons)
        self.resize(640, 420)
        # Tab from the fields reaches Save next (the transcribe row's buttons come after it).
        QWidget.setTabOrder(self.name_edit, self.transcript_edit)
        QWidget.setTabOrder(self.transcript_edit, self.save_button)
        QWidget.setTabOrder(self.save_button, self.close_button)

        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_tick)
        self._problems: list[str] = []
        self._saving = False
        self.refresh_devices()
        self._update_time()
        self._update_buttons()

    # -- devices ---------------------------------------------------------------------------
    def refresh_devices(self) -> None:
        self.mic_combo.clear()
        devices = list_devices("input")
        chosen = find_device("input", self.settings.input_device)
        for d in devices:
            self.mic_combo.addItem(f"{d.name} ({d.hostapi})", d.name)
        if chosen is not None:
            self.mic_combo.setCurrentIndex(max(0, self.mic_combo.findData(chosen.name)))
        if not devices:
            self.mic_combo.addItem(self.tr("No microphone found"), "")
            self.mic_combo.setEnabled(False)
        else:
            self.mic_combo.setEnabled(True)
        self._update_buttons()

    @property
    def has_microphone(self) -> bool:
        return bool(self.mic_combo.currentData())

    # -- recording -------------------------------------------------------------------------
    @property
    def recording(self) -> bool:
        return self._stream is not None

    @property
    def sample_rate(self) -> int:
        return self._rate

    def start_recording(self) -> bool:
        if self.recording or not self.has_microphone or self._sd is None:
            return False
        device = find_device("input", self.mic_combo.currentData())
        if device is None:
            return False
        sd = self._sd
        rate = PREFERRED_RATE
        try:
            sd.check_input_settings(device=device.index, channels=1, dtype="float32", samplerate=rate)
        except Exception:  # the device does not take 48 kHz: use its own rate
            rate = int(device.default_samplerate)
        blocks = self._blocks = queue.SimpleQueue()
        counters = self._counters = _InputCounters()

        def callback(indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
            # PortAudio's thread: queue a copy and count overflows; nothing else.
            if status.input_overflow:
                counters.overflows += 1
            blocks.put(indata[:, 0].copy())

        try:
            stream = sd.InputStream(samplerate=rate, channels=1, dtype="float32", device=device.index,
                                    callback=callback)
            stream.start()
        except Exception as e:  # PortAudio errors: device busy, unplugged, …
            logger.exception("cannot record from %s", device.name)
            self.messages.setText(self.tr("Cannot record from {0}: {1}").format(device.name, e))
            return False
        self.settings.input_device = device.name
        self._stream = stream
        self._rate = rate
        self._recorded = []
        self._recorded_samples = 0
        self._attempted = True
        self.player.stop()
        self.waveform.begin(rate, MAX_SECONDS)
        self.region.setVisible(False)
        self.meter.reset()
        self.messages.setText(self.tr("Recording… speak now."))
        self.record_button.setText(self.tr("Stop"))
        self.record_button.setToolTip(self.tr("Stop recording"))
        self._timer.start()
        self._update_buttons()
        return True

    def stop_recording(self) -> None:
        if not self.recording:
            return
        stream, self._stream = self._stream, None
        self._timer.stop()
        try:
            stream.stop()
            stream.close()
        except Exception:  # the device may have vanished; what was recorded is kept
            logger.exception("error while closing the input stream")
        self._drain()
        self.record_button.setText(self.tr("Record"))
        self.record_button.setToolTip(self.tr("Start recording; read a sentence or two naturally (3-30 s)"))
        audio = np.concatenate(self._recorded) if self._recorded else np.zeros(0, np.float32)
        self.set_audio(audio[: int(MAX_SECONDS * self._rate)], self._rate)
        if not self.problems and self.record_button.hasFocus():
            self.name_edit.setFocus()  # the keyboard's next step: name the voice
        self.recording_finished.emit()

    def _drain(self) -> None:
        new = []
        while True:
            try:
                new.append(self._blocks.get_nowait())
            except queue.Empty:
                break
        if not new:
            return
        x = np.concatenate(new)
        room = int(MAX_SECONDS * self._rate) - self._recorded_samples
        x = x[: max(0, room)]
        if x.size:
            self._recorded.append(x)
            self._recorded_samples += x.size
            self.waveform.append(x)
            self.meter.set_block(float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))), float(np.max(np.abs(x))))

    def _on_timer_tick(self) -> None:
        self._drain()
        self._update_time()
        if self._recorded_samples >= int(MAX_SECONDS * self._rate):
            self.stop_recording()

    def _update_time(self) -> None:
        if self.recording:
            seconds = self._recorded_samples / self._rate
        else:
            seconds = self.trimmed().shape[0] / self._rate if self._audio.size else 0.0
        self.time_label.setText(self.tr("{0:.1f} s / {1:g} s").format(seconds, MAX_SECONDS))

    # -- the recording -----------------------------------------------------------------------
    def reset(self) -> None:
        """Start clean: no clip, no name, no transcript, no messages (each new voice begins here)."""
        self.stop_recording()
        self._audio = np.zeros(0, np.float32)
        self._speech = (0.0, 0.0)
        self._error = ""
        self._attempted = False
        self._saving = False
        self.waveform.clear()
        self.region.setVisible(False)
        self.meter.reset()
        self.name_edit.clear()
        self.transcript_edit.clear()
        self.asr_text = ""
        self.transcribe_row.reset()
        self._check()

    def set_audio(self, audio: np.ndarray, sample_rate: int) -> None:
        """Take a finished recording (from the microphone or a file) for checking and trimming."""
        self._audio = np.asarray(audio, dtype=np.float32).reshape(-1)
        self._rate = int(sample_rate)
        self._error = ""
        self.asr_text = ""  # words recognised from another clip are not this one's
        duration = self._audio.shape[0] / self._rate
        self.waveform.set_audio(self._audio, self._rate)
        self.region.setBounds((0.0, duration))
        start, end = speech_span(self._audio, self._rate)  # leading and trailing silence trimmed off
        self._speech = (start, end)
        self.region.setRegion((start, min(end, start + MAX_SECONDS)))
        self.region.setVisible(duration > 0)
        self._check()

    def trimmed(self) -> np.ndarray:
        """The part of the recording between the trim handles."""
        if not self._audio.size:
            return self._audio
        lo, hi = self.region.getRegion()
        a = max(0, round(lo * self._rate))
        b = min(self._audio.shape[0], round(hi * self._rate))
        return self._audio[a:b]

    def set_trim(self, start: float, end: float) -> None:
        self.region.setRegion((start, end))

    def _on_region_changed(self) -> None:
        if not self.recording:
            self._check()

    def _on_field_edited(self) -> None:
        if not self.recording and not self._saving:
            self._check()

    # -- transcription ---------------------------------------------------------------------
    def set_transcriber(self, transcriber: Any) -> None:
        """Offer Transcribe for the clip (an :class:`app.worker.transcriber.Transcriber`; None: never)."""
        self.transcribe_row.attach(transcriber)
        self.transcribe_row.setVisible(transcriber is not None)

    def _transcribe_source(self) -> tuple[np.ndarray, int, None] | None:
        audio = self.trimmed()
        return (audio, self._rate, None) if audio.size and not self.recording else None

    def _on_transcribe_row_transcribed(self, text: str, _language: str, _tag: object) -> None:
        if self.transcript_edit.text().strip():
            return  # typed while it was being transcribed: the user's words stay
        self.asr_text = text
        self.transcript_edit.setText(text)
        self.transcript_edit.setCursorPosition(0)
        self._on_field_edited()

    def _check(self) -> None:
        audio = self.trimmed()
        if audio.size or self._attempted:  # a recording stopped at once is "0.0 s long", not "nothing yet"
            self._problems, warnings = check_clip(audio, self._rate)
            warnings += self._selection_warnings() if audio.size else []
        else:
            self._problems, warnings = [self.tr("Nothing recorded yet.")], []
        if audio.size and not self.transcript_edit.text().strip():
            warnings.append(self.tr("No transcript: the voice will speak in Cross-lingual and Instruct modes only. "
                                    "Type exactly what is said in the selection to use Clone mode."))
        lines = [f"✖ {p}" for p in self._problems] + [f"⚠ {w}" for w in warnings]
        if self._error:
            lines.insert(0, f"✖ {self._error}")
        self.messages.setText("\n".join(lines) if lines else self.tr("✔ The recording looks good."))
        self._update_time()
        self._update_buttons()

    def _selection_warnings(self) -> list[str]:
        """Speech left outside the selection: the transcript must then match the selected part only."""
        lo, hi = self.region.getRegion()
        start, end = self._speech
        duration = self._audio.shape[0] / self._rate if self._rate else 0.0
        if duration > MAX_SECONDS + 1e-6:
            return [self.tr("The clip is {0:.1f} s long and a voice can use {1:g} s, so only {2:.1f}–{3:.1f} s is "
                            "selected: the transcript must cover exactly that part (drag the shaded area to choose "
                            "another).").format(duration, MAX_SECONDS, lo, hi)]
        if start < lo - 0.3 or end > hi + 0.3:
            return [self.tr("The selection ({0:.1f}–{1:.1f} s) leaves out some of the speech: the transcript must "
                            "cover only the selected part.").format(lo, hi)]
        return []

    @property
    def overflows(self) -> int:
        """Input blocks PortAudio reported as overflowed during the last recording."""
        return self._counters.overflows

    @property
    def problems(self) -> list[str]:
        return list(self._problems)

    def _update_buttons(self) -> None:
        has_audio = self._audio.size > 0 and not self.recording
        self.record_button.setEnabled(self.has_microphone and not self._saving)
        self.play_button.setEnabled(has_audio and self.player.available)
        self.save_button.setEnabled(has_audio and not self._problems and not self._saving)
        self.open_button.setEnabled(not self.recording)

    # -- buttons ---------------------------------------------------------------------------
    def _on_record_clicked(self) -> None:
        if self.recording:
            self.stop_recording()
        else:
            self.start_recording()

    def _on_play_clicked(self) -> None:
        audio = self.trimmed()
        if audio.size:
            self.player.play(audio, self._rate)

    def _on_return_pressed(self) -> None:
        if self.save_button.isEnabled():
            self._on_save_clicked()

    def _on_save_clicked(self) -> None:
        name = self.name_edit.text().strip()
        if not name:
            self.messages.setText(self.tr("✖ Give the voice a name."))
            self.name_edit.setFocus()
            return
        self.save_requested.emit(self.trimmed().copy(), self._rate, name, self.transcript_edit.text().strip())

    def set_saving(self, saving: bool) -> None:
        self._saving = saving
        if saving:
            self._error = ""
            self.messages.setText(self.tr("Making the voice…"))
        self._update_buttons()

    def failed(self, message: str) -> None:
        """The engine could not make the voice: say why here, where the user is looking."""
        self._saving = False
        self._error = message
        self._check()

    def saved(self, name: str) -> None:
        self.messages.setText(self.tr("✔ Saved as “{0}”.").format(name))
        self.name_edit.clear()
        self.transcript_edit.clear()
        self.asr_text = ""
        self.transcribe_row.reset()
        self._audio = np.zeros(0, np.float32)  # the next voice starts from a new clip
        self.waveform.clear()
        self.region.setVisible(False)
        self._update_buttons()

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.stop_recording()
        super().closeEvent(event)
