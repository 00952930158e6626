"""Convert mode's panel: the source recording (a file or the microphone, chosen in the Microphone list),
the target voice, and live conversion (Live, "I use headphones", latency and real-time factor, and the
offer to convert after the recording when this computer cannot keep up). The controller
(app.controllers.convert) does the work."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .waveform import WaveformView

SOURCE_VIEW_SECONDS = 30.0  # a recording's waveform starts with this range and grows with it


class DeviceCombo(QComboBox):
    """A device list that asks for a fresh list each time it opens (devices come and go)."""

    opening = Signal()

    def showPopup(self) -> None:  # noqa: N802 (Qt's name)
        self.opening.emit()
        super().showPopup()


class ConvertPanel(QWidget):
    """Shown in Convert mode in place of the text editor. GUI thread only."""

    open_file_requested = Signal()
    record_clicked = Signal()
    live_clicked = Signal()
    convert_after_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("convertPanel")
        intro = QLabel(self.tr("Say it yourself, hear it in a saved voice: the words, timing and emphasis of the "
                               "source, spoken in the target voice."), self)
        intro.setWordWrap(True)

        self.source_label = QLabel(self.tr("No source yet: open a recording or record one."), self)
        self.source_label.setObjectName("convertSource")
        self.source_label.setWordWrap(True)
        self.source_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton(self.tr("Open file…"), self)
        self.open_button.setObjectName("convertOpenButton")
        self.open_button.setToolTip(self.tr("A recording to convert: WAV, FLAC, OGG or MP3, 16 kHz or more, "
                                            "up to an hour"))
        self.open_button.clicked.connect(self.open_file_requested)
        self.record_button = QPushButton(self.tr("Record"), self)
        self.record_button.setObjectName("convertRecordButton")
        self.record_button.setToolTip(self.tr("Record the source from the microphone; press again to stop"))
        self.record_button.clicked.connect(self.record_clicked)

        self.mic_combo = DeviceCombo(self)
        self.mic_combo.setObjectName("convertMicCombo")
        self.mic_combo.setToolTip(self.tr("The microphone that Record and Live listen to"))
        self.mic_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

        self.source_wave = WaveformView(self, show_axis=False)
        self.source_wave.setObjectName("convertSourceWaveform")
        self.source_wave.setToolTip(self.tr("The source recording"))
        self.source_wave.setMinimumHeight(70)
        self.source_wave.set_placeholder(self.tr("The source recording appears here"))

        self.target_label = QLabel(self)
        self.target_label.setObjectName("convertTarget")
        self.target_label.setToolTip(self.tr("The voice chosen in the list of voices"))
        self.set_target("")

        self.live_button = QPushButton(self.tr("Live"), self)
        self.live_button.setObjectName("convertLiveButton")
        self.live_button.setCheckable(True)
        self.live_button.setToolTip(self.tr("Convert from the microphone while you speak; the converted voice "
                                            "plays a moment later. Press again to stop"))
        self.live_button.clicked.connect(self._on_live_button_clicked)
        self.headphones_check = QCheckBox(self.tr("I use headphones"), self)
        self.headphones_check.setObjectName("headphonesCheck")
        self.headphones_check.setToolTip(self.tr("Live conversion plays what the microphone hears; through "
                                                 "speakers it would hear itself. Wear headphones"))
        self.stats_label = QLabel(self)
        self.stats_label.setObjectName("liveStats")
        self.stats_label.setToolTip(self.tr("Latency: from your speech to its converted sound. RTF: seconds of "
                                            "work per second of speech (above 1 this computer cannot keep up)"))

        self.behind_box = QFrame(self)
        self.behind_box.setObjectName("liveBehind")
        self.behind_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.behind_label = QLabel(self.behind_box)
        self.behind_label.setWordWrap(True)
        self.convert_after_button = QPushButton(self.tr("Convert when I stop"), self.behind_box)
        self.convert_after_button.setObjectName("convertAfterButton")
        self.convert_after_button.setToolTip(self.tr("Stop converting live, keep recording, and convert the whole "
                                                     "recording when you press Live again"))
        self.convert_after_button.clicked.connect(self.convert_after_clicked)
        behind = QHBoxLayout(self.behind_box)
        behind.addWidget(self.behind_label, 1)
        behind.addWidget(self.convert_after_button)
        self.behind_box.hide()

        grid = QGridLayout()
        grid.addWidget(QLabel(self.tr("Source:"), self), 0, 0)
        grid.addWidget(self.source_label, 0, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.record_button)
        grid.addLayout(buttons, 0, 2)
        mic_label = QLabel(self.tr("Microphone:"), self)
        mic_label.setBuddy(self.mic_combo)
        grid.addWidget(mic_label, 1, 0)
        grid.addWidget(self.mic_combo, 1, 1, 1, 2, Qt.AlignmentFlag.AlignLeft)
        grid.addWidget(QLabel(self.tr("Target voice:"), self), 2, 0)
        grid.addWidget(self.target_label, 2, 1, 1, 2)
        grid.setColumnStretch(1, 1)
        live = QHBoxLayout()
        live.addWidget(self.live_button)
        live.addWidget(self.headphones_check)
        live.addWidget(self.stats_label, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addWidget(intro)
        layout.addLayout(grid)
        layout.addWidget(self.source_wave, 1)
        layout.addLayout(live)
        layout.addWidget(self.behind_box)

    # -- state shown -----------------------------------------------------------------------------
    def set_source(self, text: str) -> None:
        self.source_label.setText(text)

    def show_source_audio(self, samples: np.ndarray | None, sample_rate: int) -> None:
        """Draw the source (None: too long to draw here)."""
        if samples is None:
            self.source_wave.clear()
            self.source_wave.set_placeholder(self.tr("(too long to draw)"))
            return
        self.source_wave.set_audio(samples, sample_rate)

    def begin_source(self, sample_rate: int) -> None:
        """A recording starts: its waveform grows as it is made (:meth:`append_source`)."""
        self.source_wave.begin(sample_rate, SOURCE_VIEW_SECONDS)

    def append_source(self, samples: np.ndarray) -> None:
        self.source_wave.append(samples, seam=False)

    def set_microphones(self, choices: list[tuple[str, str]], current: str) -> None:
        """Fill the Microphone list with (label, device name) pairs and select ``current`` ("" is the
        system's default), without emitting a change."""
        combo = self.mic_combo
        combo.blockSignals(True)
        try:
            combo.clear()
            for label, name in choices:
                combo.addItem(label, name)
            combo.setCurrentIndex(max(0, combo.findData(current)))
        finally:
            combo.blockSignals(False)

    @property
    def microphone(self) -> str:
        """The chosen microphone's device name; "" for the system's default."""
        return str(self.mic_combo.currentData() or "")

    def set_target(self, name: str) -> None:
        self.target_label.setText(name or self.tr("none: choose or make a voice on the left"))

    def set_recording(self, recording: bool) -> None:
        self.record_button.setText(self.tr("Stop recording") if recording else self.tr("Record"))
        self.open_button.setEnabled(not recording)
        self.live_button.setEnabled(not recording)
        self.mic_combo.setEnabled(not recording)

    def set_live(self, live: bool) -> None:
        self.live_button.setChecked(live)
        self.live_button.setText(self.tr("Stop live") if live else self.tr("Live"))
        self.record_button.setEnabled(not live)
        self.open_button.setEnabled(not live)
        self.mic_combo.setEnabled(not live)
        if not live:
            self.behind_box.hide()

    def show_stats(self, latency: float | None, rtf: float | None, heard: float = 0.0) -> None:
        if latency is None:
            self.stats_label.setText(self.tr("Listening… {0:.1f} s").format(heard))
            return
        rtf_text = f"{rtf:.2f}" if rtf is not None else "—"
        self.stats_label.setText(self.tr("Latency {0:.1f} s · RTF {1}").format(latency, rtf_text))

    def show_behind(self, rtf: float | None) -> None:
        rtf_text = f"{rtf:.1f}" if rtf is not None else "?"
        self.behind_label.setText(self.tr("This computer converts slower than you speak (RTF {0}), so the "
                                          "converted voice falls further behind. Convert the whole recording "
                                          "when you stop instead?").format(rtf_text))
        self.behind_box.show()

    def hide_behind(self) -> None:
        self.behind_box.hide()

    def _on_live_button_clicked(self) -> None:
        self.live_button.setChecked(not self.live_button.isChecked())  # the controller decides
        self.live_clicked.emit()
