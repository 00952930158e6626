"""Voices and the recorder: opening the recorder, making a voice from a file, the engine's answer, and
the :class:`~app.worker.transcriber.Transcriber` behind the Transcribe buttons (voice panel, editor, recorder)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from cosycore.errors import CosyError
from cosycore.voices import Voice

from ..audio.clip_checks import rate_problem
from ..widgets.recorder import Recorder
from ..worker.transcriber import Transcriber

FILE_VOICE_SECONDS = 300.0  # "Voice > From file…" reads at most this much of a file (the recorder trims to 30 s)

if TYPE_CHECKING:
    import numpy as np

    from ..main_window import MainWindow


class VoicesController(QObject):
    """Makes voices from recordings and files on the engine thread. Created by the main window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.recorder: Recorder | None = None
        self._refreshing: dict[int, str] = {}  # job id -> name of a voice being made again for this model
        self.transcriber = Transcriber(window.engine, lambda: window.settings.paths.models, self)

    def connect(self) -> None:
        w = self.w
        w.engine.voice_created.connect(self._on_engine_voice_created)
        w.engine.voice_failed.connect(self._on_engine_voice_failed)
        w.voice_panel.record_requested.connect(lambda: self.open_recorder())
        w.voice_panel.file_requested.connect(self.choose_file)
        w.voice_panel.message.connect(lambda text: w.statusBar().showMessage(text, 8000))
        w.engine.voice_refreshed.connect(self._on_engine_voice_refreshed)
        w.voice_panel.set_transcriber(self.transcriber)
        w.voice_panel.asr_models_requested.connect(self.open_asr_models)

    def open_asr_models(self) -> None:
        """A Transcribe button found no speech-recognition model: the Models dialog, on that model."""
        self.w.models_ctl.open_models_dialog(asr=True)

    def refresh(self, voice: Voice) -> None:
        """Make a voice of the other model family again for the loaded one, once, and save it."""
        if voice.name in self._refreshing.values():
            return
        self._refreshing[self.w.engine.refresh_voice(voice)] = voice.name

    def _on_engine_voice_refreshed(self, job_id: int, voice: Voice) -> None:
        w = self.w
        self._refreshing.pop(job_id, None)
        try:
            info = w.library.replace(voice)
        except CosyError as e:
            w.show_error(self.tr("Cannot save the voice"), str(e))
            return
        current = w.voice_panel.voice
        w.voice_panel.reload(select=current.name if current is not None else info.name)
        w.statusBar().showMessage(self.tr("The voice “{0}” was made again for this model and saved.").format(
            info.name), 8000)

    def open_recorder(self, audio: np.ndarray | None = None, sample_rate: int = 0) -> Recorder:
        """Show the recorder; with ``audio``, load that clip into it (a voice made from a file)."""
        if self.recorder is None:
            self.recorder = Recorder(self.w.player, self.w.settings, self.w)
            self.recorder.save_requested.connect(self._on_recorder_save_requested)
            self.recorder.file_requested.connect(self.choose_file)
            self.recorder.set_transcriber(self.transcriber)
            self.recorder.asr_models_requested.connect(self.open_asr_models)
        if not self.recorder.isVisible() or audio is not None:
            self.recorder.reset()  # a new voice starts clean: no old clip, name or transcript
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
        from cosycore.frontend.audio_file import read_audio

        try:  # only the first minutes are decoded (block by block, mono): bounded memory for any file
            audio, rate, _total = read_audio(path, FILE_VOICE_SECONDS)
        except CosyError as e:
            self.w.show_error(self.tr("Cannot read {0}").format(path.name), str(e))
            return False
        problem = rate_problem(rate)
        if problem:  # refused now, not after Save
            self.w.show_error(self.tr("Cannot use {0}").format(path.name), problem)
            return False
        recorder = self.open_recorder(audio, rate)
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
            if voice.transcript:  # who wrote it: Transcribe (unchanged since) or the user
                source = "asr" if voice.transcript == self.recorder.asr_text else "typed"
                voice = replace(voice, transcript_source=source)
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
        name = self._refreshing.pop(job_id, None)
        if name is not None:  # the take itself re-made the features from the audio; nothing is lost
            self.w.statusBar().showMessage(self.tr("Could not save “{0}” for this model: {1}").format(
                name, message), 10000)
            return
        if self.recorder is not None and self.recorder.isVisible():
            self.recorder.failed(message)  # said in the recorder, where the user is looking
            self.w.statusBar().showMessage(self.tr("Cannot make the voice: {0}").format(message), 10000)
            return
        self.w.show_error(self.tr("Cannot make the voice"), message)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.stop_recording()
