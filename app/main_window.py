"""The main window: the layout, the menus and the status bar, and the wiring of the studio's parts.

The window builds one :class:`~app.session.StudioSession` (the engine thread, the player, the takes,
the voice library, the settings and the current model, voice and take), the widgets, and one
controller per job (:mod:`app.controllers`), each from the session and the widgets it drives:
speaking, playback and the takes list, export, audio devices, voices and the recorder, models,
pronunciation dictionaries, Script mode, long-form renders. No controller sees the window. Every
slot runs on the GUI thread; the engine thread reports through queued signals, and only the newest
take's chunks are shown and played.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
    QPaintEvent,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from .audio.playback import Player
from .config.resources import icon
from .config.settings import QUALITIES, Settings
from .controllers.autosave import EditorAutosave
from .controllers.convert import ConvertController
from .controllers.devices import DevicesController
from .controllers.drops import DropController
from .controllers.export import ExportController
from .controllers.lexicon import LexiconController
from .controllers.longform import LongFormController, LongFormMenu
from .controllers.mode_texts import ModeTexts
from .controllers.models import ModelLabels, ModelsController
from .controllers.performance import PerformanceMenu
from .controllers.playback import PlaybackController
from .controllers.projects import ProjectMenu, ProjectsController, ProjectWidgets
from .controllers.recent_models import RecentModelsController
from .controllers.remake import RemakeController
from .controllers.script import ScriptController
from .controllers.script_regen import RegenController
from .controllers.sentence_regen import SentenceActions, SentenceRegenController
from .controllers.server import LocalServerDialog, ServerController
from .controllers.speaking import SpeakingController
from .controllers.take_tools import TakeToolsController
from .controllers.takes import TakesController
from .controllers.transport import TransportController
from .controllers.trash import TrashController
from .controllers.voices import VoicesController
from .controllers.waiting_speak import WaitingSpeak
from .session import StudioSession
from .widgets.cast_table import CastTable
from .widgets.convert_panel import ConvertPanel
from .widgets.hud import LiveHud
from .widgets.model_screen import ModelScreen
from .widgets.render_panel import RenderPanel
from .widgets.shortcuts_dialog import ShortcutsDialog
from .widgets.synthesis_controls import SynthesisControls
from .widgets.tab_order import order_tabs_by_layout
from .widgets.takes_list import TakesList
from .widgets.text_editor import TextEditor
from .widgets.text_reading_menu import add_text_reading_menu, effective_reading
from .widgets.voice_panel import VoicePanel
from .widgets.waiting_speak_bar import WaitingSpeakBar
from .widgets.warning_box import WarningBox
from .widgets.waveform import WaveformView
from .worker.engine_thread import EngineThread

logger = logging.getLogger(__name__)

__all__ = ["MainWindow"]

CLOSE_WAIT_MS = 1000  # how long closing waits for the engine thread before hiding and closing later
START_LOAD_LATEST_MS = 1000  # the last session's model loads after the first paint, or after this at the latest


class MainWindow(QMainWindow):
    """Top-level window. Created by :func:`app.main.main` (or a test) with its settings."""

    model_chosen = Signal(object)  # ModelConfig of a folder that passed the checks
    first_paint_done = Signal()  # the work put off until after the first frame is done (tests wait for it)

    def __init__(self, settings: Settings | None = None, *, model_dir: str | Path | None = None,
                 engine: EngineThread | None = None, player: Player | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.setWindowTitle(self.tr("Cosy Studio"))
        self.setWindowIcon(icon("app.svg"))
        self._fit_to_screen(1280, 800)
        self.session = StudioSession(self.settings, engine=engine, player=player, parent=self)
        s = self.session
        self.server = ServerController(s.engine, s.library, s.settings, self)  # Settings › Local server
        self._warnings = WarningBox(self)
        self._close_when_finished = False
        self._painted = False

        self._build_widgets()
        self._build_status_bar()
        self._make_actions()
        self._build_controllers()
        self._build_menus()
        self._connect()
        self._build_keys()
        self._restore_settings()
        self._apply_mode(self.controls.mode)
        self.projects_ctl.reopen_last()  # the project open when the app last ran (else Untitled)
        self.devices_ctl.update_audio_status()

        folder = Path(model_dir) if model_dir else self.settings.model_folder
        self._start_folder = folder
        if folder is not None:
            # The studio is usable while the last session's model loads (issue 25); Speak waits for it. The load
            # (torch's import on the engine thread) starts after the first paint, so the two do not share the GIL.
            self.stack.setCurrentWidget(self.studio)  # the model screen says why, should the folder be unusable
            self.session.set_model_loading(True)  # a Speak pressed before the load starts waits for it too
            QTimer.singleShot(START_LOAD_LATEST_MS, self._start_load)  # for a window that is never painted

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

        self.voice_panel = VoicePanel(self.session.library, self.studio)
        self.voice_panel.setMinimumWidth(240)
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
        self.takes_view = TakesList(self.session.takes, self.studio)
        self.takes_view.setMinimumWidth(220)

        center = QWidget(self.studio)
        center_layout = QVBoxLayout(center)
        center_layout.setContentsMargins(0, 0, 0, 0)
        self.controls.set_body(self.editor)
        self.cast_table = CastTable(self.studio)
        self.cast_table.setMaximumHeight(190)
        self.controls.set_script_panel(self.cast_table)
        self.convert_panel = ConvertPanel(self.studio)
        self.controls.set_convert_panel(self.convert_panel)
        center_layout.addWidget(self.controls, 5)
        self.waiting_bar = WaitingSpeakBar(center)  # a Speak waiting for the model; hidden while none waits
        center_layout.addWidget(self.waiting_bar)
        center_layout.addWidget(self.waveform, 4)
        self.render_panel = RenderPanel(center)  # a long-form render's progress; hidden while there is none
        self.render_panel.hide()
        center_layout.addWidget(self.render_panel)

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

    def _make_actions(self) -> None:
        """The menu entries the controllers drive (placed in the menus by :meth:`_build_menus`)."""
        self.project_menu = ProjectMenu(
            QAction(self.tr("&New project…"), self), QAction(self.tr("&Open project…"), self),
            QAction(self.tr("&Save project"), self), QAction(self.tr("Save project &as…"), self),
            QAction(self.tr("&Close project"), self), QMenu(self.tr("Open &recent"), self))
        pm = self.project_menu
        keys = QKeySequence.StandardKey
        for action, key in ((pm.new_action, keys.New), (pm.open_action, keys.Open), (pm.save_action, keys.Save)):
            action.setShortcut(key)
        pm.save_as_action.setShortcut(QKeySequence("Ctrl+Shift+S"))
        pm.close_action.setToolTip(self.tr("Back to the Untitled session, as you left it"))
        self.open_action = QAction(self.tr("Open &text…"), self)
        self.open_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.open_action.setToolTip(self.tr("Open a .txt or .md file into the editor"))
        self.render_action = QAction(self.tr("&Render to file…"), self)
        self.render_action.setToolTip(self.tr("Speak a long text or a book into a WAV or FLAC file, in the background"))
        self.unfinished_menu = QMenu(self.tr("&Unfinished renders"), self)
        self.unfinished_menu.setToolTipsVisible(True)
        self.export_action = QAction(self.tr("&Export take…"), self)
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        self.regen_action = QAction(self.tr("&Regenerate a line…"), self)
        self.regen_action.setToolTip(self.tr("Speak one line of the shown script take again (another seed or "
                                             "instruction) and splice it in"))
        self.regen_action.setShortcut(QKeySequence("Ctrl+Shift+R"))
        self.undo_regen_action = QAction(self.tr("&Undo line regeneration"), self)
        self.undo_regen_action.setToolTip(self.tr("Put the shown take's previous version back (again: the newer one)"))
        self.sentence_actions = SentenceActions(QAction(self.tr("Re&generate sentence…"), self),
                                                QAction(self.tr("&Undo regeneration"), self))
        self.sentence_actions.regenerate.setObjectName("regenerateSentenceAction")
        self.sentence_actions.regenerate.setShortcut(QKeySequence("Ctrl+G"))
        self.sentence_actions.regenerate.setToolTip(self.tr("Speak the sentence at the playhead of the shown take "
                                                            "again (another seed or instruction); also a right-click "
                                                            "on the waveform"))
        self.sentence_actions.undo.setObjectName("undoRegenerationAction")
        self.sentence_actions.undo.setToolTip(self.tr("Put the shown take's previous version back (Ctrl+Z in the "
                                                      "waveform; again: the newer one)"))
        self.output_menu = QMenu(self.tr("&Output device"), self)

    def _build_controllers(self) -> None:
        """One controller per job, each from the session and the widgets it drives (dependencies first)."""
        s = self.session
        self.playback_ctl = PlaybackController(s, waveform=self.waveform, hud=self.hud, takes_view=self.takes_view,
                                               controls=self.controls, parent=self)
        self.takes_ctl = TakesController(s, takes_view=self.takes_view, status_bar=self.statusBar(),
                                         playback=self.playback_ctl, parent=self)
        self.export_ctl = ExportController(s, export_action=self.export_action, takes_view=self.takes_view,
                                           parent=self)
        self.devices_ctl = DevicesController(s, output_menu=self.output_menu, audio_label=self.audio_label,
                                             parent=self)
        self.voices_ctl = VoicesController(s, voice_panel=self.voice_panel, parent=self)
        labels = ModelLabels(self.model_label, self.device_label, self.quality_label, self.ttfa_label,
                             self.rtf_label)
        self.models_ctl = ModelsController(s, stack=self.stack, model_screen=self.model_screen, studio=self.studio,
                                           labels=labels, status_bar=self.statusBar(), editor=self.editor,
                                           controls=self.controls, voice_panel=self.voice_panel, parent=self)
        self.lexicon_ctl = LexiconController(s, editor=self.editor, voice_panel=self.voice_panel,
                                             controls=self.controls, parent=self)
        self.script_ctl = ScriptController(s, editor=self.editor, cast_table=self.cast_table, controls=self.controls,
                                           waveform=self.waveform, lexicon=self.lexicon_ctl, parent=self)
        self.regen_ctl = RegenController(s, regen_action=self.regen_action, undo_regen_action=self.undo_regen_action,
                                         waveform=self.waveform, script=self.script_ctl, playback=self.playback_ctl,
                                         parent=self)
        self.sentence_ctl = SentenceRegenController(s, actions=self.sentence_actions, waveform=self.waveform,
                                                   playback=self.playback_ctl, takes=self.takes_ctl,
                                                   lines=self.regen_ctl, parent=self)
        self.autosave_ctl = EditorAutosave(s, editor=self.editor, controls=self.controls, cast_table=self.cast_table,
                                           parent=self)
        menu = LongFormMenu(self.open_action, self.render_action, self.unfinished_menu)
        # File › Open, Render to file, Unfinished renders
        self.longform_ctl = LongFormController(s, menu=menu, render_panel=self.render_panel, editor=self.editor,
                                               voice_panel=self.voice_panel, controls=self.controls, parent=self)
        self.speaking_ctl = SpeakingController(
            s, controls=self.controls, editor=self.editor, voice_panel=self.voice_panel, ttfa_label=self.ttfa_label,
            rtf_label=self.rtf_label, lexicon=self.lexicon_ctl, voices=self.voices_ctl, script=self.script_ctl,
            longform=self.longform_ctl, playback=self.playback_ctl, takes=self.takes_ctl, parent=self)
        self.waiting_speak = WaitingSpeak(s, bar=self.waiting_bar, parent=self)
        self.speaking_ctl.waiting = self.waiting_speak
        self.convert_ctl = ConvertController(s, panel=self.convert_panel, controls=self.controls,
                                             voices=self.voices_ctl, dialog_parent=self, parent=self)
        self.speaking_ctl.converter = self.convert_ctl.convert  # Convert mode's Convert button (and Ctrl+Enter)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        pm = self.project_menu
        for action in (pm.new_action, pm.open_action):
            file_menu.addAction(action)
        file_menu.addMenu(pm.recent_menu)
        for action in (pm.save_action, pm.save_as_action, pm.close_action):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.render_action)
        file_menu.addMenu(self.unfinished_menu)
        file_menu.addSeparator()
        self.open_model_action = QAction(self.tr("Choose &model folder…"), self)
        self.open_model_action.triggered.connect(self.models_ctl.choose_model_folder)
        self.models_action = QAction(self.tr("&Models…"), self)
        self.models_action.setToolTip(self.tr("Installed models, downloads, and folders you already have"))
        self.models_action.triggered.connect(lambda: self.models_ctl.open_models_dialog())
        quit_action = QAction(self.tr("&Quit"), self)
        # The platform's Quit keys; Windows (and Qt's offscreen platform) have none, so Ctrl+Q there.
        quit_action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Quit) or [QKeySequence("Ctrl+Q")])
        quit_action.triggered.connect(self.close)
        file_menu.addAction(self.models_action)
        self.recent_models_ctl = RecentModelsController(self.session, menu=file_menu.addMenu(self.tr("Recent mo&dels")),
                                                        try_model_dir=self.models_ctl.try_model_dir, parent=self)
        for a in (self.open_model_action, self.export_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        self._build_takes_menu(bar.addMenu(self.tr("Ta&kes")))

        script_menu = bar.addMenu(self.tr("S&cript"))
        script_menu.addAction(self.regen_action)
        script_menu.addAction(self.undo_regen_action)

        voice_menu = bar.addMenu(self.tr("&Voice"))
        record_action = voice_menu.addAction(self.tr("&Record a voice…"))
        record_action.setShortcut(QKeySequence("Ctrl+R"))
        record_action.triggered.connect(lambda: self.voices_ctl.open_recorder())  # not the bool `checked`
        file_action = voice_menu.addAction(self.tr("Voice from &file…"))
        file_action.triggered.connect(self.voices_ctl.choose_file)

        tools_menu = bar.addMenu(self.tr("&Tools"))
        self.lexicon_action = tools_menu.addAction(self.tr("Pronunciation &dictionary…"))
        self.lexicon_action.setToolTip(self.tr("Terms and how to say them, for every voice"))
        self.lexicon_action.triggered.connect(lambda: self.lexicon_ctl.edit_app_lexicon())

        settings_menu = bar.addMenu(self.tr("&Settings"))
        settings_menu.addMenu(self.output_menu)
        limit_action = settings_menu.addAction(self.tr("&Take storage limit…"))
        limit_action.triggered.connect(self.takes_ctl.limit_dialog)
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
            action = quality_menu.addAction(self.models_ctl.quality_name(quality))
            action.setToolTip(self.models_ctl.quality_tooltip(quality))
            action.setCheckable(True)
            action.setChecked(self.settings.quality == quality)
            action.triggered.connect(lambda _=False, q=quality: self.models_ctl.choose_quality(q))
            quality_group.addAction(action)
            self.quality_actions[quality] = action
        self.models_ctl.quality_actions = self.quality_actions
        self.text_reading_actions = add_text_reading_menu(settings_menu, self.settings, self.preview_reading)
        settings_menu.addAction(self.tr("Local &server…")).triggered.connect(
            lambda: LocalServerDialog(self.server, self).open())
        self.performance_menu = PerformanceMenu(settings_menu, self.settings, self.session.engine)

        help_menu = bar.addMenu(self.tr("&Help"))
        keys_action = help_menu.addAction(self.tr("&Keyboard shortcuts"))
        keys_action.setObjectName("shortcutsAction")
        keys_action.setShortcut(QKeySequence("Ctrl+/"))
        keys_action.triggered.connect(lambda: ShortcutsDialog(self.menuBar(), self).show())
        about = help_menu.addAction(self.tr("&About Cosy Studio"))
        about.triggered.connect(self._on_about_triggered)

    def _fit_to_screen(self, width: int, height: int) -> None:
        """A first window of ``width`` x ``height``, or the screen's free area where that is smaller (1024x768)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        free = screen.availableGeometry() if screen is not None else None
        if free is not None and free.isValid():
            width, height = min(width, free.width() - 8), min(height, free.height() - 40)  # the frame
        self.resize(width, height)

    def _build_takes_menu(self, menu: QMenu) -> None:
        """Takes: edit (trim, fades, loudness), export all, and the trash of removed takes."""
        s = self.session
        self.takes_menu = menu
        menu.addAction(self.sentence_actions.regenerate)
        menu.addAction(self.sentence_actions.undo)
        menu.addSeparator()
        self.take_tools = TakeToolsController(
            s.store, s.takes, s.settings, menu=menu, parent=self,
            chosen_take=lambda: next(iter(self.takes_view.selected()), None) or s.shown_take,
            show_again=self.playback_ctl.show_again, show_status=s.show_status, show_error=s.show_error)
        self.trash_ctl = TrashController(s.store, s.takes, menu=menu, parent=self, show_status=s.show_status,
                                         show_error=s.show_error)

    def _build_keys(self) -> None:
        """Space and the arrows (transport), files dropped in, Script mode's re-make offer, and a tab order
        that follows the layout."""
        s = self.session
        self.transport = TransportController(
            s.player, window=self, seek_areas=[self.takes_view, self.waveform],
            shown_take=lambda: s.shown_take, play_take=self.playback_ctl.play_take,
            stop=self.playback_ctl.stop_playing, set_playhead=self.waveform.set_playhead)
        self.drops = DropController(self, [self.editor.edit, self.editor.edit.viewport()],
                                    make_voice=self.voices_ctl.voice_from_file, open_text=self.longform_ctl.open_file,
                                    open_take=self.takes_ctl.open_take_folder)
        self.remake_ctl = RemakeController(
            self.cast_table, s.library, refresh=self.voices_ctl.refresh, voice_refreshed=s.engine.voice_refreshed,
            recheck=lambda: self.script_ctl.enabled and self.script_ctl.check(),
            show_status=s.show_status, show_error=s.show_error, parent=self)
        self.controls.mode_changed.connect(lambda _mode: QTimer.singleShot(0, self.order_tabs))
        self.mode_texts = ModeTexts(s, editor=self.editor, controls=self.controls, parent=self)  # before the mode
        self.projects_ctl = ProjectsController(
            s, autosave=self.autosave_ctl, mode_texts=self.mode_texts, menu=self.project_menu, dialog_parent=self,
            widgets=ProjectWidgets(self.editor, self.controls, self.cast_table, self.voice_panel),
            rendering=lambda: self.longform_ctl.rendering, parent=self)
        self.projects_ctl.title_changed.connect(self._show_title)
        self.projects_ctl.wire()

    def _start_load(self) -> None:
        folder, self._start_folder = self._start_folder, None
        if folder is not None:
            self.models_ctl.try_model_dir(folder, at_start=True)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self, self._after_first_paint)  # once the first frame is on screen

    def _after_first_paint(self) -> None:
        """What the first frame does without: the audio device, the waveforms' plots, then the last model's load."""
        self.session.player.find_device()
        self.devices_ctl.update_audio_status()
        for view in self.findChildren(WaveformView):
            view.build_plot()
        self._start_load()
        self.first_paint_done.emit()

    def order_tabs(self) -> list[QWidget]:
        areas = [self.voice_panel, self.controls.parentWidget(), self.takes_view]
        return order_tabs_by_layout([a for a in areas if a is not None])

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        QTimer.singleShot(0, self.order_tabs)  # once the layout has placed the widgets

    def _connect(self) -> None:
        s = self.session
        s.error_shown.connect(self.show_error)
        s.status_shown.connect(self._show_status)
        s.model_changed.connect(lambda _info: self.preview_reading())
        s.set_voice(self.voice_panel.voice)
        self.voice_panel.voice_changed.connect(s.set_voice)
        self.voice_panel.play_requested.connect(self.playback_ctl.play_voice)
        self.voices_ctl.asr_models_requested.connect(lambda: self.models_ctl.open_models_dialog(asr=True))
        self.models_ctl.model_chosen.connect(self.model_chosen)
        self.longform_ctl.script_opener = self.script_ctl.open_script  # File › Open offers a script to Script mode
        for controller in (self.speaking_ctl, self.playback_ctl, self.takes_ctl, self.export_ctl, self.devices_ctl,
                           self.voices_ctl, self.models_ctl, self.script_ctl, self.regen_ctl, self.sentence_ctl,
                           self.autosave_ctl,
                           self.lexicon_ctl, self.longform_ctl, self.convert_ctl, self.waiting_speak):
            controller.wire()
        self.controls.mode_changed.connect(self._apply_mode)
        s.player.failed.connect(lambda msg: self.show_error(self.tr("Playback"), msg))
        self.waveform.installEventFilter(self)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self).activated.connect(self.speaking_ctl.speak)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.activated.connect(self.speaking_ctl.stop)
        escape.activated.connect(self.convert_ctl.stop)

    def _apply_mode(self, mode: str) -> None:
        self.voice_panel.set_transcript_visible(mode == "zero_shot")
        self.editor.set_mode(mode)

    def _restore_settings(self) -> None:
        s = self.settings
        self.controls.attach_settings(s)
        self.voice_panel.presets_for_export = self.controls.presets_for_export
        self.voice_panel.presets_imported.connect(self.controls.add_imported_presets)
        self.controls.set_mode(s.mode)
        self.controls.set_speed(s.speed)
        self.controls.set_seed(s.seed)
        self.controls.set_stream(s.stream)
        if s.voice_name and s.voice_name in self.session.library:
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
        self._warnings.show(title, text)

    def _show_title(self, project: str, modified: bool) -> None:
        self.setWindowTitle(self.tr("{0}[*] — Cosy Studio").format(project))
        self.setWindowModified(modified)

    def _show_status(self, text: str, ms: int) -> None:
        if text:
            self.statusBar().showMessage(text, ms)
        else:
            self.statusBar().clearMessage()

    @property
    def last_message(self) -> tuple[str, str] | None:
        """(title, text) of the last error shown."""
        return self._warnings.last

    # ------------------------------------------------------------------------------------------
    # Wiring
    # ------------------------------------------------------------------------------------------
    def preview_reading(self) -> None:
        """Preview the text as the next take will read it (Settings › Text reading, else the quality's)."""
        info = self.session.model_info
        quality = info.quality if info is not None else self.settings.quality
        self.editor.set_text_reading(effective_reading(self.settings.text_reading, quality))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.waveform and event.type() == QEvent.Type.Resize:
            self.playback_ctl.place_hud()
        return super().eventFilter(watched, event)

    def _on_language_chosen(self, code: str) -> None:
        self.settings.language = code
        self.settings.sync()
        self.statusBar().showMessage(self.tr("The language changes when Cosy Studio is restarted."), 8000)

    def _on_about_triggered(self) -> None:
        QMessageBox.about(self, self.tr("About Cosy Studio"),
                          self.tr("Cosy Studio: voice cloning and instruction-controlled speech on CosyVoice2 "
                                  "and Fun-CosyVoice3."))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        """Save everything, stop, and end the engine thread; a running QThread is never destroyed.

        The engine stops at its next cancel check (inside the flow's steps and between vocoder
        blocks), well within :data:`CLOSE_WAIT_MS`, and a model load at its next step. Should a call still be
        running then, the window hides and closes itself when the thread has finished, without saving
        again (a new studio may have started meanwhile).
        """
        s = self.session
        if not self._close_when_finished and not self.projects_ctl.may_leave():
            event.ignore()  # Cancel, or the save failed
            return
        self._start_folder = None  # closed before the first paint: no load starts now
        if not self._close_when_finished:  # closed again once the engine thread ends: all was saved then
            self._save_settings()
            s.player.stop()
            self.voices_ctl.close()
            self.convert_ctl.close()
            self.autosave_ctl.close()
            self.script_ctl.close()
            s.close()  # a take still being made is kept as stopped
            self.longform_ctl.close()  # a running render pauses; it is offered again at the next start
            self.server.stop()  # before the engine thread it queues to
        if not s.engine.shutdown(CLOSE_WAIT_MS):
            logger.warning("the engine is still finishing a call; closing when it has")
            event.ignore()
            self.hide()
            if not self._close_when_finished:
                self._close_when_finished = True
                s.engine.finished.connect(self.close, Qt.ConnectionType.QueuedConnection)
            return
        super().closeEvent(event)
