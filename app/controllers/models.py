"""Models: checking and loading a release folder, the Models dialog, the engine's load reports and
the quality mode (a load-time option, so switching it loads the model again)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QProgressBar

from cosycore.config import ModelConfig, load_model_config
from cosycore.config.folder import check_model_folder
from cosycore.errors import CosyError

from ..config.settings import QUALITIES
from ..takes.take import TakeState
from ..worker.engine_thread import ModelInfo

if TYPE_CHECKING:
    from ..main_window import MainWindow

logger = logging.getLogger(__name__)


class ModelsController(QObject):
    """Loads models on the engine thread and shows their state. Created by the main window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        # A model replacing a loaded one (another quality, File › Models…) loads "in place": the studio stays
        # usable and the progress shows in the status bar instead of the full-window loading screen.
        self._in_place = False
        self.progress = QProgressBar()
        self.progress.setObjectName("loadProgress")
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()

    def connect(self) -> None:
        w = self.w
        e = w.engine
        e.load_started.connect(self._on_engine_load_started)
        e.load_progress.connect(self._on_engine_load_progress)
        e.model_loaded.connect(self._on_engine_model_loaded)
        e.load_failed.connect(self._on_engine_load_failed)
        w.model_screen.folder_accepted.connect(self._on_model_screen_folder_accepted)
        w.model_screen.download_requested.connect(self.open_models_dialog)
        w.statusBar().addWidget(self.progress)

    def try_model_dir(self, path: Path) -> bool:
        """Check a release folder and, if it is usable, load it on the engine thread.

        With a model loaded, the studio stays in view: a bad folder is reported in a message and the loaded
        model stays; a good one loads with its progress in the status bar.
        """
        w = self.w
        if w.stack.currentWidget() is w.studio and w.model_info is not None:
            try:
                check_model_folder(Path(path))  # every missing file named before anything loads
                cfg = load_model_config(Path(path))
            except CosyError as e:
                w.show_error(self.tr("Cannot use this model folder"), str(e))
                return False
            self._in_place = True
            self._on_model_screen_folder_accepted(cfg)
            return True
        self._in_place = False
        w.stack.setCurrentWidget(w.model_screen)
        return w.model_screen.check_folder(Path(path)) is not None

    def choose_model_folder(self) -> None:
        """File › Choose model folder…: the native folder dialog, then the same checks as any folder."""
        folder = QFileDialog.getExistingDirectory(self.w, self.tr("Choose a model release folder"))
        if folder:
            self.try_model_dir(Path(folder))

    def open_models_dialog(self, asr: bool = False) -> None:
        """File › Models…: open at any time, also with a model loaded; ``asr``: on the speech-recognition model."""
        from ..widgets.models_dialog import ModelsDialog

        w = self.w
        # The test synthesis runs on the engine thread, the one owner of torch (no second model beside it).
        dialog = ModelsDialog(w.settings.paths.models, w, endpoint=w.settings.hub_endpoint or None,
                              smoke_test=getattr(w.engine, "smoke_test", None))
        dialog.model_chosen.connect(lambda folder: self.try_model_dir(Path(folder)))
        dialog.endpoint_changed.connect(self._on_dialog_endpoint_changed)
        if asr:
            dialog.show_asr()
        dialog.exec()

    def _on_dialog_endpoint_changed(self, endpoint: str) -> None:
        self.w.settings.hub_endpoint = endpoint
        self.w.settings.sync()

    def _on_model_screen_folder_accepted(self, cfg: ModelConfig) -> None:
        w = self.w
        w.settings.model_folder = Path(cfg.model_dir)
        w.settings.sync()
        w.model_chosen.emit(cfg)
        if not self._in_place:
            w.model_screen.show_loading(cfg)
        w.engine.load_model(cfg.model_dir, w.settings.device, quality=w.settings.quality)

    def _on_engine_load_started(self, folder: str) -> None:
        w = self.w
        w.model_info = None  # the engine thread has dropped the old model; Speak waits for the new one
        w.model_label.setText(self.tr("Loading {0}…").format(Path(folder).name))
        for label in (w.device_label, w.quality_label, w.ttfa_label, w.rtf_label):  # the old model's figures
            label.setText("")
        if self._in_place:
            self.progress.setValue(0)
            self.progress.show()

    def _on_engine_load_progress(self, percent: int, what: str) -> None:
        w = self.w
        if self._in_place:
            self.progress.setValue(percent)
            w.statusBar().showMessage(self.tr("Loading the model: {0}").format(what))
        else:
            w.model_screen.show_progress(percent, what)

    def loading(self) -> bool:
        """A model is being loaded while the studio is in view."""
        return self._in_place and self.progress.isVisible()

    def _on_engine_model_loaded(self, info: ModelInfo) -> None:
        w = self.w
        w.model_info = info
        w.model_label.setText(f"{info.title} · {Path(info.model_dir).name}")
        w.device_label.setText(self.tr("Device: {0}").format(info.device))
        name = self.quality_name(info.quality)
        auto = info.requested_quality == "auto"  # the status bar says which mode Auto chose
        label = self.tr("Quality: Auto ({0})") if auto else self.tr("Quality: {0}")
        w.quality_label.setText(label.format(name))
        try:
            cfg = load_model_config(info.model_dir)
            w.editor.set_model(str(cfg.qwen_dir), cfg.family)  # the preview splits as this model will
        except CosyError as e:
            logger.warning("the preview keeps its estimate: %s", e)
        if w.controls.family != info.family:  # the same family keeps the chosen preset and instruction
            w.controls.set_family(info.family)
        w.voice_panel.set_family(info.family)
        w.preview_reading()
        self.progress.hide()
        self._in_place = False
        w.model_screen.reset()
        w.stack.setCurrentWidget(w.studio)
        w.statusBar().showMessage(self.tr("Model loaded in {0:.1f} s").format(info.load_seconds), 5000)
        w.editor.edit.setFocus()

    def _on_engine_load_failed(self, message: str) -> None:
        w = self.w
        self.progress.hide()
        self._in_place = False
        w.model_info = None
        w.model_label.setText(self.tr("No model"))
        w.stack.setCurrentWidget(w.model_screen)
        w.model_screen.reset()
        w.model_screen.show_error(message)

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
        w = self.w
        if quality not in QUALITIES:
            raise ValueError(f"quality must be one of {QUALITIES}, got {quality!r}")
        w.quality_actions[quality].setChecked(True)
        info = w.model_info
        if quality == w.settings.quality and (info is None or info.requested_quality == quality):
            return  # nothing changes (with no model, the next load uses the setting anyway)
        w.settings.quality = quality
        w.settings.sync()
        folder = Path(w.model_info.model_dir) if w.model_info is not None else w.settings.model_folder
        if folder is None:
            w.statusBar().showMessage(self.tr("Quality {0} applies when a model is loaded.").format(
                self.quality_name(quality)), 8000)
            return
        current = w.takes_ctl.current
        if current is not None and current.state is TakeState.STREAMING:
            w.engine.stop()  # the take ends as stopped, with what it made, before the engine reloads
        self.try_model_dir(folder)
