"""Models: checking and loading a release folder, the Models dialog, the engine's load reports and
the quality mode (a load-time option, so switching it loads the model again)."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLabel, QProgressBar, QStackedWidget, QStatusBar, QWidget

from cosycore.config import ModelConfig, load_model_config
from cosycore.config.folder import check_model_folder
from cosycore.engine.info import EngineInfo
from cosycore.errors import CosyError

from ..config.settings import QUALITIES
from ..session import StudioSession
from ..widgets.model_screen import ModelScreen
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor
from ..widgets.voice_panel import VoicePanel

logger = logging.getLogger(__name__)


class ModelLabels:
    """The status bar's labels about the loaded model and its last take."""

    def __init__(self, model: QLabel, device: QLabel, quality: QLabel, ttfa: QLabel, rtf: QLabel) -> None:
        self.model, self.device, self.quality, self.ttfa, self.rtf = model, device, quality, ttfa, rtf


class ModelsController(QObject):
    """Loads models on the engine thread and shows their state. Built by the main window from the session,
    the loading screen, the studio page and the widgets that follow the loaded model."""

    model_chosen = Signal(object)  # ModelConfig of a folder that passed the checks, about to load

    def __init__(self, session: StudioSession, *, stack: QStackedWidget, model_screen: ModelScreen,
                 studio: QWidget, labels: ModelLabels, status_bar: QStatusBar, editor: TextEditor,
                 controls: SynthesisControls, voice_panel: VoicePanel, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.stack = stack
        self.model_screen = model_screen
        self.studio = studio
        self.labels = labels
        self.status_bar = status_bar
        self.editor = editor
        self.controls = controls
        self.voice_panel = voice_panel
        self.parent_widget = parent  # dialogs open over it
        self.quality_actions: dict[str, QAction] = {}  # Settings › Quality, set by the window's menu
        # A model replacing a loaded one (another quality, File › Models…) loads "in place": the studio stays
        # usable and the progress shows in the status bar instead of the full-window loading screen.
        self._in_place = False
        self.progress = QProgressBar()
        self.progress.setObjectName("loadProgress")
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()

    def wire(self) -> None:
        e = self.session.engine
        e.load_started.connect(self._on_engine_load_started)
        e.load_progress.connect(self._on_engine_load_progress)
        e.model_loaded.connect(self._on_engine_model_loaded)
        e.load_failed.connect(self._on_engine_load_failed)
        self.model_screen.folder_accepted.connect(self._on_model_screen_folder_accepted)
        self.model_screen.download_requested.connect(self.open_models_dialog)
        # Permanent: a temporary message (the load's stage) would hide an ordinary status-bar widget.
        self.status_bar.insertPermanentWidget(0, self.progress)

    def try_model_dir(self, path: Path, *, at_start: bool = False) -> bool:
        """Check a release folder and, if it is usable, load it on the engine thread.

        With a model loaded or loading, the studio stays in view: a bad folder is reported in a message and
        the loaded model stays; a good one loads with its progress in the status bar. ``at_start``: the
        folder of the last session, loaded the same way, so the studio is usable while it loads (issue 25);
        should it be unusable, the model screen says why.
        """
        s = self.session
        in_studio = (not at_start and self.stack.currentWidget() is self.studio
                     and (s.model_info is not None or s.model_loading))
        if in_studio or at_start:
            try:
                check_model_folder(Path(path))  # every missing file named before anything loads
                cfg = load_model_config(Path(path))
            except CosyError as e:
                if in_studio:
                    s.show_error(self.tr("Cannot use this model folder"), str(e))
                    return False
                s.set_model_loading(False)  # the window expected this folder to load (MainWindow)
            else:
                self._in_place = True
                self.stack.setCurrentWidget(self.studio)
                self._on_model_screen_folder_accepted(cfg)
                return True
        self._in_place = False
        self.stack.setCurrentWidget(self.model_screen)
        return self.model_screen.check_folder(Path(path)) is not None

    def choose_model_folder(self) -> None:
        """File › Choose model folder…: the native folder dialog, then the same checks as any folder."""
        folder = QFileDialog.getExistingDirectory(self.parent_widget, self.tr("Choose a model release folder"))
        if folder:
            self.try_model_dir(Path(folder))

    def open_models_dialog(self, asr: bool = False) -> None:
        """File › Models…: open at any time, also with a model loaded; ``asr``: on the speech-recognition model."""
        from ..widgets.models_dialog import ModelsDialog

        s = self.session
        # The test synthesis runs on the engine thread, the one owner of torch (no second model beside it).
        dialog = ModelsDialog(s.settings.paths.models, self.parent_widget, endpoint=s.settings.hub_endpoint or None,
                              smoke_test=getattr(s.engine, "smoke_test", None), own_folders=s.settings.recent_models)
        # Folders loaded before are listed as the user's own; forgetting one there forgets it here too.
        dialog.own_folders_changed.connect(lambda folders: setattr(s.settings, "recent_models", list(folders)))
        dialog.model_chosen.connect(lambda folder: self.try_model_dir(Path(folder)))
        dialog.endpoint_changed.connect(self._on_dialog_endpoint_changed)
        if asr:
            dialog.show_asr()
        dialog.exec()

    def _on_dialog_endpoint_changed(self, endpoint: str) -> None:
        self.session.settings.hub_endpoint = endpoint
        self.session.settings.sync()

    def _on_model_screen_folder_accepted(self, cfg: ModelConfig) -> None:
        s = self.session
        s.settings.model_folder = Path(cfg.model_dir)
        s.settings.sync()
        self.model_chosen.emit(cfg)
        if self._in_place:
            s.set_model_loading(True)  # a Speak pressed from now on waits for this model
        else:
            self.model_screen.show_loading(cfg)
        s.engine.load_model(cfg.model_dir, s.settings.device, quality=s.settings.quality)

    def _on_engine_load_started(self, folder: str) -> None:
        self.session.set_model_info(None)  # the engine thread has dropped the old model; Speak waits for the new one
        labels = self.labels
        labels.model.setText(self.tr("Loading {0}…").format(Path(folder).name))
        for label in (labels.device, labels.quality, labels.ttfa, labels.rtf):  # the old model's figures
            label.setText("")
        if self._in_place:
            self.progress.setValue(0)
            self.progress.show()
            self.session.set_model_loading(True)

    def _on_engine_load_progress(self, percent: int, what: str) -> None:
        if self._in_place:
            self.progress.setValue(percent)
            self.session.show_status(self.tr("Loading the model: {0} ({1} %)").format(what, percent))
        else:
            self.model_screen.show_progress(percent, what)

    def loading(self) -> bool:
        """A model is being loaded while the studio is in view."""
        return self.session.model_loading

    def _on_engine_model_loaded(self, info: EngineInfo) -> None:
        labels = self.labels
        labels.model.setText(f"{info.title} · {Path(info.model_dir).name}")
        labels.device.setText(self.tr("Device: {0}").format(info.device))
        name = self.quality_name(info.quality)
        auto = info.requested_quality == "auto"  # the status bar says which mode Auto chose
        label = self.tr("Quality: Auto ({0})") if auto else self.tr("Quality: {0}")
        labels.quality.setText(label.format(name))
        try:
            cfg = load_model_config(info.model_dir)
            self.editor.set_model(str(cfg.qwen_dir), cfg.family)  # the preview splits as this model will
        except CosyError as e:
            logger.warning("the preview keeps its estimate: %s", e)
        if self.controls.family != info.family:  # the same family keeps the chosen preset and instruction
            self.controls.set_family(info.family)
        self.voice_panel.set_family(info.family)
        self.progress.hide()
        self._in_place = False
        self.session.set_model_loading(False)
        self.session.set_model_info(info)  # the studio follows: the text reading, the script check, …
        self.model_screen.reset()
        self.stack.setCurrentWidget(self.studio)
        self.session.show_status(self.tr("Model loaded in {0:.1f} s").format(info.load_seconds), 5000)
        if info.load_seconds > 0:  # the next load's estimate of the time left (a waiting Speak shows it)
            self.session.settings.set_load_seconds(info.model_dir, info.load_seconds)
        self.editor.edit.setFocus()

    def _on_engine_load_failed(self, message: str) -> None:
        self.progress.hide()
        self._in_place = False
        self.session.set_model_loading(False)
        self.session.set_model_info(None)
        self.labels.model.setText(self.tr("No model"))
        self.stack.setCurrentWidget(self.model_screen)
        self.model_screen.reset()
        self.model_screen.show_error(message)

    def quality_name(self, quality: str) -> str:
        """The quality mode as the menu and the status bar name it."""
        names = {"auto": self.tr("Auto"), "exact": self.tr("Exact"), "fast": self.tr("Fast"), "draft": self.tr("Draft")}
        return names.get(quality, quality)

    def quality_tooltip(self, quality: str) -> str:
        tips = {
            "auto": self.tr("Exact on a graphics card; on the processor, the best mode this computer has been "
                            "measured to play without gaps (Draft until Fast or Exact has been measured live)."),
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
        s = self.session
        if quality not in QUALITIES:
            raise ValueError(f"quality must be one of {QUALITIES}, got {quality!r}")
        if quality in self.quality_actions:
            self.quality_actions[quality].setChecked(True)
        info = s.model_info
        if quality == s.settings.quality and (info is None or info.requested_quality == quality):
            return  # nothing changes (with no model, the next load uses the setting anyway)
        s.settings.quality = quality
        s.settings.sync()
        folder = Path(info.model_dir) if info is not None else s.settings.model_folder
        if folder is None:
            s.show_status(self.tr("Quality {0} applies when a model is loaded.").format(
                self.quality_name(quality)), 8000)
            return
        if s.making():
            s.engine.stop()  # the take ends as stopped, with what it made, before the engine reloads
        self.try_model_dir(folder)
