"""Voices and the recorder: opening the recorder, making a voice from a file, and the engine's answer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from cosycore.errors import CosyError

from ..widgets.recorder import Recorder

if TYPE_CHECKING:
    import numpy as np

    from ..main_window import MainWindow


class VoicesController(QObject):
    """Makes voices from recordings and files on the engine thread. Created by the main window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.recorder: Recorder | None = None

    def connect(self) -> None:
        w = self.w
        w.engine.voice_created.connect(self._on_engine_voice_created)
        w.engine.voice_failed.connect(self._on_engine_voice_failed)
        w.voice_panel.record_requested.connect(lambda: self.open_recorder())
        w.voice_panel.file_requested.connect(self.choose_file)

    def open_recorder(self, audio: np.ndarray | None = None, sample_rate: int = 0) -> Recorder:
        """Show the recorder; with ``audio``, load that clip into it (a voice made from a file)."""
        if self.recorder is None:
            self.recorder = Recorder(self.w.player, self.w.settings, self.w)
            self.recorder.save_requested.connect(self._on_recorder_save_requested)
            self.recorder.file_requested.connect(self.choose_file)
        if audio is not None:
            self.recorder.set_audio(audio, sample_rate)
        self.recorder.show()
        self.recorder.raise_()
        self.recorder.activateWindow()
        # Keyboard users land on the next step: Record for an empty recorder, the name for a clip.
        (self.recorder.record_button if audio is None else self.recorder.name_edit).setFocus()
        return self.recorder

    def stop_recording(self) -> None:
        if self.recorder is not None and self.recorder.isVisible():
            self.recorder.stop_recording()

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.w, self.tr("Make a voice from an audio file"), "",
                                              self.tr("Audio files (*.wav *.flac *.ogg *.mp3)"))
        if path:
            self.voice_from_file(Path(path))

    def voice_from_file(self, path: Path) -> bool:
        import soundfile as sf

        try:
            audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
        except (RuntimeError, OSError) as e:  # soundfile reports unreadable files as RuntimeError
            self.w.show_error(self.tr("Cannot read {0}").format(path.name), str(e))
            return False
        recorder = self.open_recorder(audio.mean(axis=1), rate)
        recorder.name_edit.setText(path.stem)
        return True

    def _on_recorder_save_requested(self, audio, sample_rate: int, name: str, transcript: str) -> None:
        w = self.w
        if w.model_info is None:
            w.show_error(self.tr("No model"), self.tr("Load a model first: making a voice needs it."))
            return
        w.engine.create_voice(audio, sample_rate, name, transcript)
        if self.recorder is not None:
            self.recorder.set_saving(True)
        w.statusBar().showMessage(self.tr("Making the voice “{0}”…").format(name))

    def _on_engine_voice_created(self, job_id: int, voice, warnings: tuple) -> None:
        w = self.w
        if self.recorder is not None:
            self.recorder.set_saving(False)
        try:
            info = w.voice_panel.add_voice(voice)
        except CosyError as e:
            w.show_error(self.tr("Cannot save the voice"), str(e))
            return
        if self.recorder is not None:
            self.recorder.saved(info.name)
        message = self.tr("Saved the voice “{0}”.").format(info.name)
        if warnings:
            message += " " + " ".join(warnings)
        w.statusBar().showMessage(message, 10000)

    def _on_engine_voice_failed(self, job_id: int, message: str) -> None:
        if self.recorder is not None:
            self.recorder.set_saving(False)
        self.w.show_error(self.tr("Cannot make the voice"), message)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.stop_recording()
