"""Voices and the recorder: opening the recorder, making a voice from a file, the engine's answer, and
the :class:`~app.worker.transcriber.Transcriber` behind the Transcribe buttons (voice panel, editor, recorder)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from cosycore.errors import CosyError
from cosycore.voices import Voice

from ..audio.clip_checks import rate_problem
from ..session import StudioSession
from ..widgets.recorder import Recorder
from ..widgets.voice_panel import VoicePanel
from ..worker.transcriber import Transcriber

FILE_VOICE_SECONDS = 300.0  # "Voice > From file…" reads at most this much of a file (the recorder trims to 30 s)

if TYPE_CHECKING:
    import numpy as np


class VoicesController(QObject):
    """Makes voices from recordings and files on the engine thread. Built by the main window from the
    session and the voice panel; the recorder is made here when it is first opened."""

    asr_models_requested = Signal()  # a Transcribe button found no speech-recognition model

    def __init__(self, session: StudioSession, *, voice_panel: VoicePanel, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.voice_panel = voice_panel
        self.parent_widget = parent  # the recorder and the file dialog open over it
        self.recorder: Recorder | None = None
        self._refreshing: dict[int, str] = {}  # job id -> name of a voice being made again for this model
        self.transcriber = Transcriber(session.engine, lambda: session.settings.paths.models, self)

    def wire(self) -> None:
        s = self.session
        s.engine.voice_created.connect(self._on_engine_voice_created)
        s.engine.voice_failed.connect(self._on_engine_voice_failed)
        panel = self.voice_panel
        panel.record_requested.connect(lambda: self.open_recorder())
        panel.file_requested.connect(self.choose_file)
        panel.message.connect(lambda text: s.show_status(text, 8000))
        s.engine.voice_refreshed.connect(self._on_engine_voice_refreshed)
        panel.set_transcriber(self.transcriber)
        panel.asr_models_requested.connect(self.open_asr_models)

    def open_asr_models(self) -> None:
        """A Transcribe button found no speech-recognition model: the Models dialog, on that model."""
        self.asr_models_requested.emit()

    def refresh(self, voice: Voice) -> None:
        """Make a voice of the other model family again for the loaded one, once, and save it."""
        if voice.name in self._refreshing.values():
            return
        self._refreshing[self.session.engine.refresh_voice(voice)] = voice.name

    def _on_engine_voice_refreshed(self, job_id: int, voice: Voice) -> None:
        s = self.session
        self._refreshing.pop(job_id, None)
        try:
            info = s.library.replace(voice)
        except CosyError as e:
            s.show_error(self.tr("Cannot save the voice"), str(e))
            return
        current = self.voice_panel.voice
        self.voice_panel.reload(select=current.name if current is not None else info.name)
        s.show_status(self.tr("The voice “{0}” was made again for this model and saved.").format(
            info.name), 8000)

    def open_recorder(self, audio: np.ndarray | None = None, sample_rate: int = 0) -> Recorder:
        """Show the recorder; with ``audio``, load that clip into it (a voice made from a file)."""
        if self.recorder is None:
            self.recorder = Recorder(self.session.player, self.session.settings, self.parent_widget)
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
        path, _ = QFileDialog.getOpenFileName(self.parent_widget, self.tr("Make a voice from an audio file"), "",
                                              self.tr("Audio files (*.wav *.flac *.ogg *.mp3)"))
        if path:
            self.voice_from_file(Path(path))

    def voice_from_file(self, path: Path) -> bool:
        from cosycore.frontend.audio_file import read_audio

        try:  # only the first minutes are decoded (block by block, mono): bounded memory for any file
            audio, rate, _total = read_audio(path, FILE_VOICE_SECONDS)
        except CosyError as e:
            self.session.show_error(self.tr("Cannot read {0}").format(path.name), str(e))
            return False
        problem = rate_problem(rate)
        if problem:  # refused now, not after Save
            self.session.show_error(self.tr("Cannot use {0}").format(path.name), problem)
            return False
        recorder = self.open_recorder(audio, rate)
        recorder.name_edit.setText(path.stem)
        return True

    def _on_recorder_save_requested(self, audio, sample_rate: int, name: str, transcript: str) -> None:
        s = self.session
        if s.model_info is None:
            s.show_error(self.tr("No model"), self.tr("Load a model first: making a voice needs it."))
            return
        s.engine.create_voice(audio, sample_rate, name, transcript)
        if self.recorder is not None:
            self.recorder.set_saving(True)
        s.show_status(self.tr("Making the voice “{0}”…").format(name))

    def _on_engine_voice_created(self, job_id: int, voice, warnings: tuple) -> None:
        s = self.session
        if self.recorder is not None:
            self.recorder.set_saving(False)
            if voice.transcript:  # who wrote it: Transcribe (unchanged since) or the user
                source = "asr" if voice.transcript == self.recorder.asr_text else "typed"
                voice = replace(voice, transcript_source=source)
        try:
            info = self.voice_panel.add_voice(voice)
        except CosyError as e:
            s.show_error(self.tr("Cannot save the voice"), str(e))
            return
        if self.recorder is not None:
            self.recorder.saved(info.name)
        message = self.tr("Saved the voice “{0}”.").format(info.name)
        if warnings:
            message += " " + " ".join(warnings)
        s.show_status(message, 10000)

    def _on_engine_voice_failed(self, job_id: int, message: str) -> None:
        name = self._refreshing.pop(job_id, None)
        if name is not None:  # the take itself re-made the features from the audio; nothing is lost
            self.session.show_status(self.tr("Could not save “{0}” for this model: {1}").format(
                name, message), 10000)
            return
        if self.recorder is not None and self.recorder.isVisible():
            self.recorder.failed(message)  # said in the recorder, where the user is looking
            self.session.show_status(self.tr("Cannot make the voice: {0}").format(message), 10000)
            return
        self.session.show_error(self.tr("Cannot make the voice"), message)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.stop_recording()
