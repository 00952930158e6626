"""The main window: wires the engine thread, the player and the widgets together.

It owns one :class:`~app.engine_thread.EngineThread`, one :class:`~app.playback.Player`, the session's
:class:`~app.takes.TakeList` and the widgets. Every slot runs on the GUI thread; the engine thread
reports through queued signals, and only the newest take's chunks are shown and played.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from cosycore.config import ModelConfig
from cosycore.errors import CosyError
from cosycore.voices import VoiceLibrary

from .engine_thread import Chunk, EngineThread, ModelInfo, SpeakRequest, SynthesisStats
from .eta import eta_seconds, rtf_key, smoothed_rtf, valid_rtf
from .export import FORMATS, export_take, format_for_path, take_metadata
from .playback import TICK_MS, Player, PlayState, preroll_seconds
from .resources import icon
from .settings import QUALITIES, Settings
from .takes import Take, TakeList, TakeState
from .widgets.hud import LiveHud
from .widgets.model_screen import ModelScreen
from .widgets.recorder import Recorder
from .widgets.synthesis_controls import SynthesisControls
from .widgets.takes_list import TakesList
from .widgets.text_editor import TextEditor
from .widgets.voice_panel import VoicePanel
from .widgets.waveform import WaveformView

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

_CJK_RE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
CJK_CHARS_PER_SECOND = 4.5  # rough speaking rates, only for sizing the view and the pre-roll
OTHER_CHARS_PER_SECOND = 15.0
HUD_REFRESH_MS = TICK_MS  # the HUD and its time-left estimate update as often as the player's position


def expected_seconds(text: str, speed: float = 1.0) -> float:
    """A rough length of the speech for ``text`` (for the waveform's range and the pre-roll)."""
    cjk = len(_CJK_RE.findall(text))
    other = len(text) - cjk
    return (cjk / CJK_CHARS_PER_SECOND + other / OTHER_CHARS_PER_SECOND) / max(0.1, speed)


class MainWindow(QMainWindow):
    """Top-level window. Created by :func:`app.main.main` (or a test) with its settings."""

    model_chosen = Signal(object)  # ModelConfig of a folder that passed the checks

    def __init__(self, settings: Settings | None = None, *, model_dir: str | Path | None = None,
                 engine: EngineThread | None = None, player: Player | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.setWindowTitle(self.tr("Cosy Studio"))
        self.setWindowIcon(icon("app.svg"))
        self.resize(1280, 800)
        self.engine = engine or EngineThread(self)
        self.player = player or Player(self, device_name=self.settings.output_device)
        self.takes = TakeList(self)
        self.library = VoiceLibrary(self.settings.paths.voices)
        self.model_info: ModelInfo | None = None
        self._current: Take | None = None  # the take being made (or last made)
        self._shown: Take | None = None  # the take in the waveform view
        self._playing: Take | None = None  # the take the player is playing
        self._take_started = 0.0  # time.monotonic() when the current take was asked for
        self._take_rtf: float | None = None  # measured real-time factor when it was asked for (None: not yet)
        self.last_message: tuple[str, str] | None = None  # (title, text) of the last error shown
        self._message_box: QMessageBox | None = None
        self._recorder: Recorder | None = None

        self._build_widgets()
        self._build_menus()
        self._build_status_bar()
        self._connect()
        self._restore_settings()
        self._apply_mode(self.controls.mode)
        self._update_audio_status()

        folder = Path(model_dir) if model_dir else self.settings.model_folder
        if folder is not None:
            QTimer.singleShot(0, lambda: self.try_model_dir(folder))

    # ------------------------------------------------------------------------------------------
    # Construction
    # ------------------------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.stack = QStackedWidget(self)
        self.model_screen = ModelScreen(self.stack)
        self.studio = QWidget(self.stack)
        self.stack.addWidget(self.model_screen)
        self.stack.addWidget(self.studio)
        self.setCentralWidget(self.stack)

        self.voice_panel = VoicePanel(self.library, self.studio)
        self.voice_panel.setMinimumWidth(260)
        self.controls = SynthesisControls(self.studio)
        self.editor = TextEditor(self.studio)
        self.waveform = WaveformView(self.studio)
        self.waveform.setObjectName("takeWaveform")
        self.waveform.setToolTip(self.tr("The take: dashed lines mark where chunks joined; "
                                         "click a finished take to play from there"))
        self.waveform.setMinimumHeight(150)
        self.waveform.set_placeholder(self.tr("Takes appear here while they are spoken"))
        self.hud = LiveHud(self.waveform)
        self.hud.hide()
        # Refreshes the HUD while a take is being made, also before its first chunk, when the player
        # has nothing to report yet and the time-left estimate matters most.
        self._hud_timer = QTimer(self)
        self._hud_timer.setInterval(HUD_REFRESH_MS)
        self._hud_timer.timeout.connect(self._refresh_hud)
        self.waveform.installEventFilter(self)
        self.takes_view = TakesList(self.takes, self.studio)
        self.takes_view.setMinimumWidth(230)

        center = QWidget(self.studio)
        center_layout = QVBoxLayout(center)
        center_layout.setContentsMargins(0, 0, 0, 0)
        self.controls.set_body(self.editor)
        center_layout.addWidget(self.controls, 5)
        center_layout.addWidget(self.waveform, 4)

        splitter = QSplitter(Qt.Orientation.Horizontal, self.studio)
        splitter.addWidget(self.voice_panel)
        splitter.addWidget(center)
        splitter.addWidget(self.takes_view)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setStretchFactor(2, 0)
        splitter.setSizes([280, 720, 260])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self.studio)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(splitter)
        self.stack.setCurrentWidget(self.model_screen)

        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.speak)
        QShortcut(QKeySequence("Ctrl+Enter"), self, activated=self.speak)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.stop)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        self.open_model_action = QAction(self.tr("Choose &model folder…"), self)
        self.open_model_action.triggered.connect(self.model_screen.choose_folder)
        self.export_action = QAction(self.tr("&Export take…"), self)
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        self.export_action.triggered.connect(self._on_export_action_triggered)
        quit_action = QAction(self.tr("&Quit"), self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        for a in (self.open_model_action, self.export_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)

        voice_menu = bar.addMenu(self.tr("&Voice"))
        record_action = voice_menu.addAction(self.tr("&Record a voice…"))
        record_action.setShortcut(QKeySequence("Ctrl+R"))
        record_action.triggered.connect(lambda: self.open_recorder())  # not the bool `checked`
        file_action = voice_menu.addAction(self.tr("Voice from &file…"))
        file_action.triggered.connect(self._on_voice_panel_file_requested)

        settings_menu = bar.addMenu(self.tr("&Settings"))
        self.output_menu = settings_menu.addMenu(self.tr("&Output device"))
        self.output_menu.aboutToShow.connect(self._fill_output_menu)
        language_menu = settings_menu.addMenu(self.tr("&Language"))
        group = QActionGroup(self)
        for code, label in (("", self.tr("System")), ("en", "English"), ("zh_CN", "简体中文")):
            action = language_menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(self.settings.language == code)
            action.triggered.connect(lambda _=False, c=code: self._on_language_chosen(c))
            group.addAction(action)
        quality_menu = settings_menu.addMenu(self.tr("&Quality"))
        quality_menu.setToolTipsVisible(True)
        quality_group = QActionGroup(self)
        self.quality_actions: dict[str, QAction] = {}
        for quality in QUALITIES:
            action = quality_menu.addAction(self.quality_name(quality))
            action.setToolTip(self._quality_tooltip(quality))
            action.setCheckable(True)
            action.setChecked(self.settings.quality == quality)
            action.triggered.connect(lambda _=False, q=quality: self.choose_quality(q))
            quality_group.addAction(action)
            self.quality_actions[quality] = action

        help_menu = bar.addMenu(self.tr("&Help"))
        about = help_menu.addAction(self.tr("&About Cosy Studio"))
        about.triggered.connect(self._on_about_triggered)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.model_label = QLabel(self.tr("No model"), self)
        self.model_label.setToolTip(self.tr("The loaded model"))
        self.device_label = QLabel("", self)
        self.device_label.setToolTip(self.tr("Where the model runs"))
        self.quality_label = QLabel("", self)
        self.quality_label.setToolTip(self.tr("The quality mode the model was loaded in (Settings › Quality)"))
        self.ttfa_label = QLabel("", self)
        self.ttfa_label.setToolTip(self.tr("Time to first audio of the last take"))
        self.rtf_label = QLabel("", self)
        self.rtf_label.setToolTip(self.tr("Real-time factor of the last take: seconds of work per second of "
                                          "audio (below 1 is faster than real time)"))
        self.audio_label = QLabel("", self)
        self.audio_label.setToolTip(self.tr("The audio output"))
        for w in (self.model_label, self.device_label, self.quality_label, self.ttfa_label, self.rtf_label,
                  self.audio_label):
            bar.addPermanentWidget(w)

    def _connect(self) -> None:
        e = self.engine
        e.load_started.connect(self._on_engine_load_started)
        e.load_progress.connect(self.model_screen.show_progress)
        e.model_loaded.connect(self._on_engine_model_loaded)
        e.load_failed.connect(self._on_engine_load_failed)
        e.chunk_ready.connect(self._on_engine_chunk_ready)
        e.synthesis_finished.connect(self._on_engine_synthesis_finished)
        e.synthesis_cancelled.connect(self._on_engine_synthesis_cancelled)
        e.synthesis_failed.connect(self._on_engine_synthesis_failed)
        e.voice_created.connect(self._on_engine_voice_created)
        e.voice_failed.connect(self._on_engine_voice_failed)
        self.model_screen.folder_accepted.connect(self._on_model_screen_folder_accepted)
        self.model_screen.download_requested.connect(self._on_model_screen_download_requested)
        self.controls.speak_clicked.connect(self.speak)
        self.controls.stop_clicked.connect(self.stop)
        self.controls.mode_changed.connect(self._apply_mode)
        self.player.position_changed.connect(self._on_player_position_changed)
        self.player.state_changed.connect(self._on_player_state_changed)
        self.player.playback_finished.connect(self._on_player_playback_finished)
        self.player.failed.connect(lambda msg: self.show_error(self.tr("Playback"), msg))
        self.waveform.seek_requested.connect(self._on_waveform_seek_requested)
        self.voice_panel.record_requested.connect(lambda: self.open_recorder())
        self.voice_panel.file_requested.connect(self._on_voice_panel_file_requested)
        self.voice_panel.play_requested.connect(self._on_voice_panel_play_requested)
        self.takes_view.take_activated.connect(self.show_take)
        self.takes_view.play_requested.connect(self.play_take)
        self.takes_view.export_requested.connect(self.export_dialog)
        self.takes_view.compare_requested.connect(self.compare_takes)

    def _restore_settings(self) -> None:
        s = self.settings
        self.controls.attach_settings(s)
        self.voice_panel.presets_for_export = self.controls.presets_for_export
        self.voice_panel.presets_imported.connect(self.controls.add_imported_presets)
        self.controls.set_mode(s.mode)
        self.controls.set_speed(s.speed)
        self.controls.set_seed(s.seed)
        self.controls.set_stream(s.stream)
        if s.voice_name and s.voice_name in self.library:
            self.voice_panel.select(s.voice_name)
        geometry = s.window_geometry
        if geometry is not None:
            self.restoreGeometry(geometry)

    def _save_settings(self) -> None:
        s = self.settings
        s.mode = self.controls.mode
        s.speed = self.controls.speed
        s.seed = self.controls.seed
        s.stream = self.controls.stream
        if self.voice_panel.voice is not None:
            s.voice_name = self.voice_panel.voice.name
        s.window_geometry = self.saveGeometry()
        s.sync()

    # ------------------------------------------------------------------------------------------
    # Messages
    # ------------------------------------------------------------------------------------------
    def show_error(self, title: str, text: str) -> None:
        """Show a readable error without blocking the event loop (the engine keeps reporting)."""
        logger.info("%s: %s", title, text)
        self.last_message = (title, text)
        if self._message_box is not None:
            self._message_box.close()
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self._message_box = box
        box.destroyed.connect(lambda: setattr(self, "_message_box", None))

    # ------------------------------------------------------------------------------------------
    # Model
    # ------------------------------------------------------------------------------------------
    def try_model_dir(self, path: Path) -> bool:
        """Check a release folder and, if it is usable, load it on the engine thread."""
        self.stack.setCurrentWidget(self.model_screen)
        return self.model_screen.check_folder(Path(path)) is not None

    def _on_model_screen_download_requested(self) -> None:
        from .widgets.models_dialog import ModelsDialog

        dialog = ModelsDialog(self.settings.paths.data / "models", self)
        dialog.model_chosen.connect(lambda folder: self.try_model_dir(Path(folder)))
        dialog.exec()

    def _on_model_screen_folder_accepted(self, cfg: ModelConfig) -> None:
        self.settings.model_folder = Path(cfg.model_dir)
        self.settings.sync()
        self.model_chosen.emit(cfg)
        self.model_screen.show_loading(cfg)
        self.engine.load_model(cfg.model_dir, self.settings.device, quality=self.settings.quality)

    def _on_engine_load_started(self, folder: str) -> None:
        self.model_info = None  # the engine thread has dropped the old model; Speak waits for the new one
        self.model_label.setText(self.tr("Loading {0}…").format(Path(folder).name))
        self.device_label.setText("")
        self.quality_label.setText("")

    def _on_engine_model_loaded(self, info: ModelInfo) -> None:
        self.model_info = info
        self.model_label.setText(f"{info.title} · {Path(info.model_dir).name}")
        self.device_label.setText(self.tr("Device: {0}").format(info.device))
        self.quality_label.setText(self.tr("Quality: {0}").format(self.quality_name(info.quality)))
        self.controls.set_family(info.family)
        self.voice_panel.set_family(info.family)
        self.model_screen.reset()
        self.stack.setCurrentWidget(self.studio)
        self.statusBar().showMessage(self.tr("Model loaded in {0:.1f} s").format(info.load_seconds), 5000)
        self.editor.edit.setFocus()

    def _on_engine_load_failed(self, message: str) -> None:
        self.model_info = None
        self.model_label.setText(self.tr("No model"))
        self.stack.setCurrentWidget(self.model_screen)
        self.model_screen.reset()
        self.model_screen.show_error(message)

    def quality_name(self, quality: str) -> str:
        """The quality mode as the menu and the status bar name it."""
        names = {"exact": self.tr("Exact"), "fast": self.tr("Fast"), "draft": self.tr("Draft")}
        return names.get(quality, quality)

    def _quality_tooltip(self, quality: str) -> str:
        tips = {
            "exact": self.tr("The original model's computation: the reference sound, and the slowest."),
            "fast": self.tr("Faster: on the CPU the speech model runs in 8-bit integers, and streamed audio is "
                            "computed only where it is new. The voice can differ slightly from Exact; loading takes "
                            "a little longer for the warm-up."),
            "draft": self.tr("Fastest: Fast plus a 4-step audio decoder without guidance. Audibly rougher; for "
                             "trying out texts and voices before the final take."),
        }
        return tips[quality]

    def choose_quality(self, quality: str) -> None:
        """Switch the quality mode: stored, and the model is loaded again in it (a load-time option).

        A take still being made is stopped first; the engine thread runs the new load after the stop.
        """
        if quality not in QUALITIES:
            raise ValueError(f"quality must be one of {QUALITIES}, got {quality!r}")
        self.quality_actions[quality].setChecked(True)
        if quality == self.settings.quality and (self.model_info is None or self.model_info.quality == quality):
            return  # nothing changes (with no model, the next load uses the setting anyway)
        self.settings.quality = quality
        self.settings.sync()
        folder = Path(self.model_info.model_dir) if self.model_info is not None else self.settings.model_folder
        if folder is None:
            self.statusBar().showMessage(self.tr("Quality {0} applies when a model is loaded.").format(
                self.quality_name(quality)), 8000)
            return
        if self._current is not None and self._current.state is TakeState.STREAMING:
            self.engine.stop()  # the take ends as stopped, with what it made, before the engine reloads
        self.try_model_dir(folder)

    # ------------------------------------------------------------------------------------------
    # Speaking
    # ------------------------------------------------------------------------------------------
    def _apply_mode(self, mode: str) -> None:
        self.voice_panel.set_transcript_visible(mode == "zero_shot")

    def build_request(self) -> SpeakRequest | None:
        """The request for the current fields, or None after telling the user what is missing."""
        if self.model_info is None:
            self.show_error(self.tr("No model"), self.tr("Load a model first."))
            return None
        text = self.editor.text().strip()
        if not text:
            self.statusBar().showMessage(self.tr("Type some text to speak first."), 5000)
            return None
        voice = self.voice_panel.voice
        if voice is None:
            self.show_error(self.tr("No voice"), self.tr("Record a voice or make one from a file first."))
            return None
        mode = self.controls.mode
        if mode == "instruct" and not self.controls.instruct_text:
            self.show_error(self.tr("No instruction"),
                            self.tr("Instruct mode needs an instruction: pick a preset or type one."))
            return None
        transcript = self.voice_panel.transcript if mode == "zero_shot" else ""
        if mode == "zero_shot" and not transcript:
            self.show_error(self.tr("No transcript"),
                            self.tr("Clone mode needs the transcript of the voice's recording. Type it, or use "
                                    "Cross-lingual mode, which needs none."))
            return None
        common = {"text": text, "mode": mode, "instruct_text": self.controls.instruct_text,
                  "speed": self.controls.speed, "seed": self.controls.seed, "stream": self.controls.stream}
        if voice.family != self.model_info.family:
            # Features of a voice made for the other family do not fit: re-extract from its audio.
            return SpeakRequest(prompt_audio=voice.audio_24k, prompt_sample_rate=voice.sample_rate,
                                prompt_text=transcript, **common)
        own = transcript if transcript != voice.transcript else ""
        return SpeakRequest(voice=voice, prompt_text=own, **common)

    def speak(self) -> int | None:
        """Start a take from the current fields; a take still being made is cancelled."""
        request = self.build_request()
        if request is None:
            return None
        return self.speak_request(request)

    def speak_request(self, request: SpeakRequest) -> int:
        assert self.model_info is not None
        self.player.stop()
        request_id = self.engine.speak(request)
        voice = request.voice.name if request.voice is not None else (self.voice_panel.voice.name
                                                                       if self.voice_panel.voice else "")
        take = Take(request_id, request.text, mode=request.mode, voice_name=voice,
                    sample_rate=self.model_info.sample_rate, seed=request.seed, speed=request.speed,
                    expected_seconds=expected_seconds(request.text, request.speed), instruction=request.instruct_text)
        self._current = take
        self._take_started = time.monotonic()
        self._take_rtf = self.measured_rtf()
        self.takes.add(take)
        self._show_take(take, streaming=True)
        self.controls.set_busy(True)
        self.hud.show()
        self._hud_timer.start()
        self._place_hud()
        self._refresh_hud()
        self.statusBar().showMessage(self.tr("Speaking take {0}…").format(take.number))
        return request_id

    def stop(self) -> None:
        """Stop making and playing (Esc)."""
        self.engine.stop()
        self.player.stop()
        if self._recorder is not None and self._recorder.isVisible():
            self._recorder.stop_recording()
        self.controls.set_busy(False)

    def _take_for(self, request_id: int) -> Take | None:
        return self.takes.by_request(request_id)

    def _on_engine_chunk_ready(self, request_id: int, chunk: Chunk) -> None:
        take = self._take_for(request_id)
        if take is None or take.state is not TakeState.STREAMING:
            return
        first = take.chunk_count == 0
        take.add_chunk(chunk)
        if chunk.warnings:
            self.statusBar().showMessage(" ".join(chunk.warnings), 10000)
        self.takes.changed(take)  # its length in the list grows
        if take is not self._current:
            return
        if self._shown is take:
            self.waveform.append(chunk.samples)
        if first:
            self.ttfa_label.setText(self.tr("First audio {0:.2f} s").format(chunk.elapsed))
            preroll = preroll_seconds(self._take_rtf, take.expected_seconds)
            if self.player.begin(chunk.sample_rate, preroll=preroll):
                self._playing = take
        if self._playing is take:
            self.player.feed(chunk.samples)
        self._refresh_hud()

    def _finish_take(self, take: Take, state: TakeState, stats: SynthesisStats | None, error: str = "") -> None:
        take.finish(state, wall_seconds=stats.wall_seconds if stats else 0.0,
                    first_audio=stats.first_audio_seconds if stats else None, error=error)
        self.takes.changed(take)
        if take is self._current:
            self.controls.set_busy(False)
            if state is not TakeState.DONE:
                self.hud.hide()
            if state is TakeState.CANCELLED:
                self.statusBar().showMessage(self.tr("Stopped take {0} after {1:.1f} s.").format(
                    take.number, take.duration), 8000)
            if self._shown is take:
                self.waveform.finish()
            if self._playing is take:
                if state is TakeState.DONE:
                    self.player.end_input()
                else:
                    self.player.stop()
            self._refresh_hud()

    def _on_engine_synthesis_finished(self, stats: SynthesisStats) -> None:
        take = self._take_for(stats.request_id)
        if take is None:
            return
        self._finish_take(take, TakeState.DONE, stats)
        rtf = stats.rtf
        if rtf is not None:
            key = self._rtf_key()
            if key is not None and valid_rtf(rtf):  # remembered for the next takes' time-left estimates
                self.settings.set_measured_rtf(key, smoothed_rtf(self.settings.measured_rtf(key), rtf))
            self.rtf_label.setText(self.tr("RTF {0:.2f}").format(rtf))
        if stats.first_audio_seconds is not None:
            self.ttfa_label.setText(self.tr("First audio {0:.2f} s").format(stats.first_audio_seconds))
        if take is self._current:
            self.statusBar().showMessage(self.tr("Take {0}: {1:.1f} s of audio in {2:.1f} s").format(
                take.number, stats.audio_seconds, stats.wall_seconds), 8000)

    def _on_engine_synthesis_cancelled(self, stats: SynthesisStats) -> None:
        take = self._take_for(stats.request_id)
        if take is None:
            return
        if take.chunk_count == 0:
            self.takes.remove(take)
            if take is self._current:
                self.controls.set_busy(False)
                self._hide_hud()
            return
        self._finish_take(take, TakeState.CANCELLED, stats)

    def _on_engine_synthesis_failed(self, request_id: int, message: str) -> None:
        take = self._take_for(request_id)
        if take is not None:
            if take.chunk_count == 0:
                self.takes.remove(take)
                if take is self._current:
                    self.controls.set_busy(False)
                    self._hide_hud()
            else:
                self._finish_take(take, TakeState.FAILED, None, message)
        self.show_error(self.tr("Cannot speak"), message)

    # ------------------------------------------------------------------------------------------
    # Showing and playing takes
    # ------------------------------------------------------------------------------------------
    def _show_take(self, take: Take, *, streaming: bool = False) -> None:
        self._shown = take
        if streaming:
            self.waveform.begin(take.sample_rate, take.expected_seconds)
        else:
            self.waveform.set_audio(take.audio(), take.sample_rate, take.seams,
                                    finished=take.state is not TakeState.STREAMING)
        self.takes_view.select(take)

    def show_take(self, take: Take) -> None:
        if take is not self._shown:
            self._show_take(take)

    def play_take(self, take: Take, start: float = 0.0) -> bool:
        self.show_take(take)
        if take.samples == 0:
            return False
        ok = self.player.play(take.audio(), take.sample_rate, start=start)
        if ok:
            self._playing = take
        return ok

    def compare_takes(self, first: Take, second: Take) -> None:
        """A/B: play ``second`` from where ``first`` is now (or from the start)."""
        playing_first = self._playing is first and self.player.state is not PlayState.STOPPED
        position = self.player.position if playing_first else 0.0
        self.play_take(second, start=min(position, second.duration))

    def _on_waveform_seek_requested(self, seconds: float) -> None:
        if self._shown is not None and self._shown.state is not TakeState.STREAMING:
            self.play_take(self._shown, start=seconds)

    def _on_player_position_changed(self, seconds: float) -> None:
        if self._playing is not None and self._playing is self._shown:
            self.waveform.set_playhead(seconds)
        self._refresh_hud()

    def _on_player_state_changed(self, state: PlayState) -> None:
        self._refresh_hud()
        self._update_audio_status()

    def _on_player_playback_finished(self) -> None:
        self._refresh_hud()
        if self._current is None or self._current.state is not TakeState.STREAMING:
            self.hud.hide()

    def _rtf_key(self) -> str | None:
        info = self.model_info
        return rtf_key(info.model_dir, info.device, info.quality) if info is not None else None

    def measured_rtf(self) -> float | None:
        """The real-time factor measured on earlier takes with the loaded model, device and quality."""
        key = self._rtf_key()
        return self.settings.measured_rtf(key) if key is not None else None

    def _refresh_hud(self) -> None:
        names = {PlayState.NO_DEVICE: self.tr("no audio"), PlayState.STOPPED: self.tr("stopped"),
                 PlayState.BUFFERING: self.tr("buffering"), PlayState.PLAYING: self.tr("playing")}
        take = self._current
        self.hud.show_values(names[self.player.state], self.player.buffered_seconds,
                             take.chunk_count if take else 0, self.player.underruns)
        if take is not None and take.state is TakeState.STREAMING:
            elapsed = time.monotonic() - self._take_started
            self.hud.show_eta(eta_seconds(take.expected_seconds, self._take_rtf, elapsed))
        else:
            self._hud_timer.stop()
            self.hud.clear_eta()
        self._place_hud()

    def _hide_hud(self) -> None:
        """The current take ended without audio: nothing left to show or to estimate."""
        self._hud_timer.stop()
        self.hud.clear_eta()
        self.hud.hide()

    def _place_hud(self) -> None:
        self.hud.move(max(0, self.waveform.width() - self.hud.width() - 12), 8)
        self.hud.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.waveform and event.type() == QEvent.Type.Resize:
            self._place_hud()
        return super().eventFilter(watched, event)

    def _on_voice_panel_play_requested(self, samples, sample_rate: int) -> None:
        self._playing = None
        self.player.play(samples, sample_rate)

    # ------------------------------------------------------------------------------------------
    # Audio devices
    # ------------------------------------------------------------------------------------------
    def _update_audio_status(self) -> None:
        device = self.player.device
        if device is None:
            self.audio_label.setText(self.tr("No audio device — export still works"))
        else:
            self.audio_label.setText(self.tr("Output: {0}").format(device.name))

    def _fill_output_menu(self) -> None:
        self.output_menu.clear()
        devices = self.player.refresh_devices()
        if not devices:
            action = self.output_menu.addAction(self.tr("No audio device"))
            action.setEnabled(False)
        current = self.player.device.name if self.player.device else ""
        group = QActionGroup(self.output_menu)
        for d in devices:
            action = self.output_menu.addAction(f"{d.name} ({d.hostapi})")
            action.setCheckable(True)
            action.setChecked(d.name == current)
            action.triggered.connect(lambda _=False, n=d.name: self.choose_output_device(n))
            group.addAction(action)
        self._update_audio_status()

    def choose_output_device(self, name: str) -> None:
        self.player.set_device(name)
        self.settings.output_device = name
        self._update_audio_status()

    # ------------------------------------------------------------------------------------------
    # Voices
    # ------------------------------------------------------------------------------------------
    def open_recorder(self, audio: np.ndarray | None = None, sample_rate: int = 0) -> Recorder:
        """Show the recorder; with ``audio``, load that clip into it (a voice made from a file)."""
        if self._recorder is None:
            self._recorder = Recorder(self.player, self.settings, self)
            self._recorder.save_requested.connect(self._on_recorder_save_requested)
            self._recorder.file_requested.connect(self._on_voice_panel_file_requested)
        if audio is not None:
            self._recorder.set_audio(audio, sample_rate)
        self._recorder.show()
        self._recorder.raise_()
        self._recorder.activateWindow()
        # Keyboard users land on the next step: Record for an empty recorder, the name for a clip.
        (self._recorder.record_button if audio is None else self._recorder.name_edit).setFocus()
        return self._recorder

    def _on_voice_panel_file_requested(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Make a voice from an audio file"), "",
                                              self.tr("Audio files (*.wav *.flac *.ogg *.mp3)"))
        if path:
            self.voice_from_file(Path(path))

    def voice_from_file(self, path: Path) -> bool:
        import soundfile as sf

        try:
            audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
        except (RuntimeError, OSError) as e:  # soundfile reports unreadable files as RuntimeError
            self.show_error(self.tr("Cannot read {0}").format(path.name), str(e))
            return False
        recorder = self.open_recorder(audio.mean(axis=1), rate)
        recorder.name_edit.setText(path.stem)
        return True

    def _on_recorder_save_requested(self, audio, sample_rate: int, name: str, transcript: str) -> None:
        if self.model_info is None:
            self.show_error(self.tr("No model"), self.tr("Load a model first: making a voice needs it."))
            return
        self.engine.create_voice(audio, sample_rate, name, transcript)
        if self._recorder is not None:
            self._recorder.set_saving(True)
        self.statusBar().showMessage(self.tr("Making the voice “{0}”…").format(name))

    def _on_engine_voice_created(self, job_id: int, voice, warnings: tuple) -> None:
        if self._recorder is not None:
            self._recorder.set_saving(False)
        try:
            info = self.voice_panel.add_voice(voice)
        except CosyError as e:
            self.show_error(self.tr("Cannot save the voice"), str(e))
            return
        if self._recorder is not None:
            self._recorder.saved(info.name)
        message = self.tr("Saved the voice “{0}”.").format(info.name)
        if warnings:
            message += " " + " ".join(warnings)
        self.statusBar().showMessage(message, 10000)

    def _on_engine_voice_failed(self, job_id: int, message: str) -> None:
        if self._recorder is not None:
            self._recorder.set_saving(False)
        self.show_error(self.tr("Cannot make the voice"), message)

    # ------------------------------------------------------------------------------------------
    # Export
    # ------------------------------------------------------------------------------------------
    def _on_export_action_triggered(self) -> None:
        take = self._shown or self._current
        if take is None:
            self.statusBar().showMessage(self.tr("There is no take to export yet."), 5000)
            return
        self.export_dialog(take)

    def export_dialog(self, take: Take) -> None:
        filters = {
            self.tr("WAV, 16-bit PCM (*.wav)"): "wav16",
            self.tr("WAV, 32-bit float (*.wav)"): "wav_float",
            self.tr("FLAC (*.flac)"): "flac",
            self.tr("Subtitles, SRT (*.srt)"): "srt",
        }
        folder = self.settings.last_export_folder or Path.home()
        suggested = str(folder / f"take-{take.number}.wav")
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export take {0}").format(take.number), suggested,
                                                   ";;".join(filters))
        if path:
            fmt = filters.get(chosen, "wav16")
            self.export(take, Path(path), format_for_path(Path(path), fmt))

    def export(self, take: Take, path: Path, fmt: str = "wav16") -> bool:
        """Write ``take`` to ``path``; a take still being made is exported as far as it got, marked partial."""
        spec = FORMATS[fmt]
        if path.suffix.lower() != spec.suffix:
            path = path.with_name(path.name + spec.suffix)
        partial = take.state is not TakeState.DONE
        try:
            export_take(path, fmt, take.audio(), take.sample_rate, take.sentences(), take_metadata(take))
        except CosyError as e:
            self.show_error(self.tr("Export failed"), str(e))
            return False
        if partial:
            take.exported_partial = True
            self.takes.changed(take)
        self.settings.last_export_folder = path.parent
        note = self.tr(" (partial: the take was not complete)") if partial else ""
        self.statusBar().showMessage(self.tr("Exported {0}").format(path.name) + note, 8000)
        return True

    # ------------------------------------------------------------------------------------------
    # Misc
    # ------------------------------------------------------------------------------------------
    def _on_language_chosen(self, code: str) -> None:
        self.settings.language = code
        self.settings.sync()
        self.statusBar().showMessage(self.tr("The language changes when Cosy Studio is restarted."), 8000)

    def _on_about_triggered(self) -> None:
        QMessageBox.about(self, self.tr("About Cosy Studio"),
                          self.tr("Cosy Studio: voice cloning and instruction-controlled speech on CosyVoice2 "
                                  "and Fun-CosyVoice3."))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        self._save_settings()
        self.player.stop()
        if self._recorder is not None:
            self._recorder.stop_recording()
        self.engine.shutdown()
        super().closeEvent(event)
