"""Speaking: building a request from the fields, asking the engine thread for a take, and the take's
lifecycle as the engine thread reports it (its chunks, its end, its speed).

The take's place in the session (current, listed, saved) changes through :class:`~app.session.StudioSession`,
whose signals the playback (:mod:`app.controllers.playback`) follows to show and play it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel

from cosycore.errors import CosyError
from cosycore.request import AudioChunk, Mode, SynthesisRequest
from cosycore.studio.take import Take, TakeState

from ..session import StudioSession
from ..takes.take import expected_seconds
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor
from ..widgets.voice_panel import VoicePanel
from ..worker.engine_thread import SynthesisStats
from ..worker.eta import smoothed_rtf, valid_rtf

if TYPE_CHECKING:
    from .lexicon import LexiconController
    from .longform import LongFormController
    from .playback import PlaybackController
    from .script import ScriptController
    from .takes import TakesController
    from .voices import VoicesController
    from .waiting_speak import WaitingSpeak


class SpeakingController(QObject):
    """Makes takes on the engine thread. Built by the main window from the session, the widgets it reads
    and the controllers it asks: the dictionaries, the voices, Script mode, long-form renders, playback
    and the takes list."""

    def __init__(self, session: StudioSession, *, controls: SynthesisControls, editor: TextEditor,
                 voice_panel: VoicePanel, ttfa_label: QLabel, rtf_label: QLabel, lexicon: LexiconController,
                 voices: VoicesController, script: ScriptController, longform: LongFormController,
                 playback: PlaybackController, takes: TakesController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.controls = controls
        self.editor = editor
        self.voice_panel = voice_panel
        self.ttfa_label = ttfa_label
        self.rtf_label = rtf_label
        self.lexicon = lexicon
        self.voices = voices
        self.script = script
        self.longform = longform
        self.playback = playback
        self.takes = takes
        self.converter: Callable[[], int | None] | None = None  # Convert mode's Convert (set by the window)
        self.waiting: WaitingSpeak | None = None  # a Speak pressed while the model loads (set by the window)

    def wire(self) -> None:
        e = self.session.engine
        e.chunk_ready.connect(self._on_engine_chunk_ready)
        e.synthesis_finished.connect(self._on_engine_synthesis_finished)
        e.synthesis_cancelled.connect(self._on_engine_synthesis_cancelled)
        e.synthesis_failed.connect(self._on_engine_synthesis_failed)
        self.session.take_started.connect(self._on_session_take_started)
        self.controls.speak_clicked.connect(self.speak)
        self.controls.stop_clicked.connect(self.stop)

    # -- asking ----------------------------------------------------------------------------------
    def _model_missing(self) -> bool:
        """No model to speak with: said (still loading, or none) and True."""
        s = self.session
        if s.model_info is not None:
            return False
        if s.model_loading:
            s.show_status(self.tr("The model is still loading; Speak when it is ready."), 5000)
        else:
            s.show_error(self.tr("No model"), self.tr("No model is chosen yet: choose a model folder (File › Choose "
                                                      "model folder…) or download one (File › Models…) first."))
        return True

    def build_request(self) -> SynthesisRequest | None:
        """The engine's request for the current fields, or None after telling the user what is missing.

        The pronunciation dictionaries have replaced their terms in its text (before the engine's text
        normalisation, as ``cosycore synth --lexicon`` does); the take keeps the text as typed. Fields that
        do not apply to the mode are left out rather than sent empty: the engine refuses a transcript
        outside zero_shot and an instruction outside instruct.
        """
        s = self.session
        if self._model_missing():
            return None
        info = s.model_info
        assert info is not None
        self.voice_panel.commit_transcript()  # a transcript typed for the voice is kept in it
        text = self.editor.text().strip()
        if not text:
            s.show_status(self.tr("Type some text to speak first."), 5000)
            return None
        voice = s.voice
        if voice is None:
            s.show_error(self.tr("No voice"), self.tr("Record a voice or make one from a file first."))
            return None
        controls = self.controls
        mode = cast(Mode, controls.mode)  # Script mode speaks through ScriptController, never here
        if mode == "instruct" and not controls.instruct_text:
            s.show_error(self.tr("No instruction"),
                         self.tr("Instruct mode needs an instruction: pick a preset or type one."))
            return None
        transcript = self.voice_panel.transcript if mode == "zero_shot" else ""
        if mode == "zero_shot" and not transcript:
            s.show_error(self.tr("No transcript"),
                         self.tr("Clone mode needs the transcript of the voice's recording. Type it, press "
                                 "Transcribe under the field to have it written from the recording, or use "
                                 "Cross-lingual mode, which needs none."))
            return None
        try:  # the app's and the voice's pronunciation dictionaries, checked against the loaded family
            lexicon = self.lexicon.for_take(voice)
        except CosyError as e:
            s.show_error(self.tr("Pronunciation dictionary"), str(e))
            return None
        spoken = lexicon.apply(text) if lexicon is not None else text
        instruction = (controls.instruct_text or None) if mode == "instruct" else None
        reading = s.settings.text_reading or None
        if voice.family != info.family:
            # Features of a voice made for the other family do not fit: re-extract from its audio for this
            # take, and have the engine make the voice again for this family and save it (once).
            self.voices.refresh(voice)
            return SynthesisRequest(spoken, mode=mode, prompt_audio=voice.audio_24k,
                                    prompt_sample_rate=voice.sample_rate, prompt_text=transcript or None,
                                    instruct_text=instruction, speed=controls.speed, seed=controls.seed,
                                    stream=controls.stream, text_reading=reading)
        own = transcript if transcript != voice.transcript else ""
        return SynthesisRequest(spoken, mode=mode, voice=voice, prompt_text=own or None, instruct_text=instruction,
                                speed=controls.speed, seed=controls.seed, stream=controls.stream,
                                text_reading=reading)

    def _wait_for_model(self) -> bool:
        """While the model loads, a Speak waits for it (after the checks that need no model): True if it waits
        or was refused."""
        s = self.session
        if s.model_info is not None or not s.model_loading or self.waiting is None:
            return False
        if self.controls.mode not in ("script", "convert"):
            if not self.editor.text().strip():
                s.show_status(self.tr("Type some text to speak first."), 5000)
                return True
            if s.voice is None:
                s.show_error(self.tr("No voice"), self.tr("Record a voice or make one from a file first."))
                return True
        self.waiting.wait(self.speak)  # the fields as they are when the model is ready
        return True

    def speak(self) -> int | None:
        """Start a take from the current fields; a take still being made is cancelled. While the model loads,
        the Speak waits for it."""
        if self._wait_for_model():
            return None
        if self.controls.mode == "script":
            return self.script.speak()
        if self.controls.mode == "convert" and self.converter is not None:
            return self.converter()
        request = self.build_request()
        if request is None:
            return None
        return self.speak_request(request, typed=self.editor.text().strip())

    def speak_request(self, request: SynthesisRequest, *, typed: str = "") -> int:
        """Ask the engine thread for ``request`` as a new take; ``typed``: the text as the user wrote it (the
        take keeps it; ``request.text`` has the dictionaries' replacements)."""
        s = self.session
        if not isinstance(request.text, str):
            raise TypeError("a take is spoken from a whole text, not from streamed pieces")
        info = s.model_info
        assert info is not None
        s.player.stop()
        self.longform.make_way()  # a long-form render gives way: its segment in progress is made again later
        request_id = s.engine.speak(request)
        voice = request.voice.name if request.voice is not None else (s.voice.name if s.voice else "")
        text = typed or request.text
        take = Take(request_id, text, mode=request.mode, voice_name=voice,
                    sample_rate=info.sample_rate, seed=request.seed, speed=request.speed,
                    expected_seconds=expected_seconds(text, request.speed),
                    instruction=(request.instruct_text or "") if request.mode == "instruct" else "",
                    model=f"{info.title} · {Path(info.model_dir).name}", quality=info.quality)
        s.begin_take(take)
        return request_id

    def _on_session_take_started(self, take: Take) -> None:
        self.session.show_status(self.tr("Speaking take {0}…").format(take.number))

    def stop(self) -> None:
        """Stop making and playing (Esc)."""
        s = self.session
        if self.waiting is not None:
            self.waiting.cancel()
        s.engine.stop()
        s.player.stop()
        self.voices.stop_recording()
        self.playback.update_stop()

    # -- what the engine thread reports --------------------------------------------------------------
    def _on_engine_chunk_ready(self, request_id: int, chunk: AudioChunk) -> None:
        s = self.session
        take = s.takes.by_request(request_id)
        if take is None or take.state is not TakeState.STREAMING:
            return
        if take is s.current_take and take.chunk_count == 0:
            self.ttfa_label.setText(self.tr("First audio {0:.2f} s").format(chunk.timing))
        s.add_chunk(take, chunk)  # saved, its length in the list grows, shown and played
        if chunk.warnings:
            s.show_status(" ".join(chunk.warnings), 10000)

    def _on_engine_synthesis_finished(self, stats: SynthesisStats) -> None:
        s = self.session
        take = s.takes.by_request(stats.request_id)
        if take is None:
            return
        s.end_take(take, TakeState.DONE, wall_seconds=stats.wall_seconds, first_audio=stats.first_audio_seconds)
        rtf = stats.rtf
        if rtf is not None:
            key = s.rtf_key()
            if key is not None and valid_rtf(rtf):  # remembered for the next takes' time-left estimates
                s.settings.set_measured_rtf(key, smoothed_rtf(s.settings.measured_rtf(key), rtf))
            self.rtf_label.setText(self.tr("RTF {0:.2f}").format(rtf))
        if stats.first_audio_seconds is not None:
            self.ttfa_label.setText(self.tr("First audio {0:.2f} s").format(stats.first_audio_seconds))
        if take is s.current_take:
            s.show_status(self.tr("Take {0}: {1:.1f} s of audio in {2:.1f} s").format(
                take.number, stats.audio_seconds, stats.wall_seconds), 8000)
        self.takes.check_storage_limit()

    def _on_engine_synthesis_cancelled(self, stats: SynthesisStats) -> None:
        s = self.session
        take = s.takes.by_request(stats.request_id)
        if take is None:
            return
        if take.chunk_count == 0:
            self._drop(take, TakeState.CANCELLED)
            return
        current = take is s.current_take
        s.end_take(take, TakeState.CANCELLED, wall_seconds=stats.wall_seconds,
                   first_audio=stats.first_audio_seconds)
        if current:
            s.show_status(self.tr("Stopped take {0} after {1:.1f} s.").format(take.number, take.duration), 8000)

    def _on_engine_synthesis_failed(self, request_id: int, message: str) -> None:
        s = self.session
        take = s.takes.by_request(request_id)
        if take is not None:
            if take.chunk_count == 0:
                self._drop(take, TakeState.FAILED)
            else:
                s.end_take(take, TakeState.FAILED, error=message)
        converting = take is not None and take.mode == "convert"
        s.show_error(self.tr("Cannot convert") if converting else self.tr("Cannot speak"), message)

    def _drop(self, take: Take, state: TakeState) -> None:
        """A take that ended before its first chunk leaves the list (its number is used again)."""
        s = self.session
        current = take is s.current_take
        s.drop_take(take, state)
        if current:
            if state is TakeState.CANCELLED:
                s.show_status(self.tr("Stopped before any audio was made."), 8000)
            else:
                s.show_status("")  # the error is shown on its own
