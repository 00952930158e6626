"""Takes and playback: building a request from the fields, the take's lifecycle as the engine thread
reports it, showing a take in the waveform, playing it, A/B comparison and the live HUD."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QInputDialog, QMessageBox, QPushButton

from cosycore.errors import CosyError, StorageError

from ..audio.playback import TICK_MS, PlayState, preroll_seconds
from ..config.settings import TAKES_LIMIT_RANGE_MB
from ..takes.store import TakeStore
from ..takes.take import Take, TakeState
from ..worker.engine_thread import Chunk, SpeakRequest, SynthesisStats
from ..worker.eta import eta_seconds, rtf_key, smoothed_rtf, valid_rtf

if TYPE_CHECKING:
    from ..main_window import MainWindow

_CJK_RE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
CJK_CHARS_PER_SECOND = 4.5  # rough speaking rates, only for sizing the view and the pre-roll
OTHER_CHARS_PER_SECOND = 15.0
HUD_REFRESH_MS = TICK_MS  # the HUD and its time-left estimate update as often as the player's position
UNDO_SHOWN_MS = 15000  # how long the status bar offers to undo a removal


def expected_seconds(text: str, speed: float = 1.0) -> float:
    """A rough length of the speech for ``text`` (for the waveform's range and the pre-roll)."""
    cjk = len(_CJK_RE.findall(text))
    other = len(text) - cjk
    return (cjk / CJK_CHARS_PER_SECOND + other / OTHER_CHARS_PER_SECOND) / max(0.1, speed)


class TakesController(QObject):
    """Owns the take being made, the take shown and the take playing. Created by the main window."""

    take_shown = Signal(object)  # Take now in the waveform (its audio set, or begun for streaming)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.current: Take | None = None  # the take being made (or last made)
        self.shown: Take | None = None  # the take in the waveform view
        self.playing: Take | None = None  # the take the player is playing
        self._take_started = 0.0  # time.monotonic() when the current take was asked for
        self._take_rtf: float | None = None  # measured real-time factor when it was asked for (None: not yet)
        # Refreshes the HUD while a take is being made, also before its first chunk, when the player
        # has nothing to report yet and the time-left estimate matters most.
        self.hud_timer = QTimer(self)
        self.hud_timer.setInterval(HUD_REFRESH_MS)
        self.hud_timer.timeout.connect(self.refresh_hud)
        self._undo: list[list[Take]] = []  # removals that can be undone, the newest last
        self._warned_limit = False
        # Takes saved by earlier sessions come back first; the store saves every change from then on.
        self.store = TakeStore(window.settings.paths.data / "takes")
        self.store.empty_trash()  # takes removed in an earlier session
        restored, self.load_problems = self.store.load()
        for take in restored:
            window.takes.insert(take)
        self.store.attach(window.takes, self._on_store_failed)

    def connect(self) -> None:
        w = self.w
        e = w.engine
        e.chunk_ready.connect(self._on_engine_chunk_ready)
        e.synthesis_finished.connect(self._on_engine_synthesis_finished)
        e.synthesis_cancelled.connect(self._on_engine_synthesis_cancelled)
        e.synthesis_failed.connect(self._on_engine_synthesis_failed)
        w.controls.speak_clicked.connect(self.speak)
        w.controls.stop_clicked.connect(self.stop)
        w.player.position_changed.connect(self._on_player_position_changed)
        w.player.state_changed.connect(self._on_player_state_changed)
        w.player.playback_finished.connect(self._on_player_playback_finished)
        w.waveform.seek_requested.connect(self._on_waveform_seek_requested)
        w.voice_panel.play_requested.connect(self._on_voice_panel_play_requested)
        w.takes_view.take_activated.connect(self.show_take)
        w.takes_view.play_requested.connect(self.play_take)
        w.takes_view.compare_requested.connect(self.compare_takes)
        w.takes_view.remove_requested.connect(self.remove_takes)
        w.takes_view.rename_requested.connect(self.rename_dialog)
        w.takes_view.clear_requested.connect(self.clear_dialog)
        w.takes_view.undo_requested.connect(self.undo_remove)
        w.takes_view.stop_requested.connect(self.stop_playing)
        if len(w.takes):  # the newest saved take is in view after a start, ready to play
            QTimer.singleShot(0, lambda: self.show_take(w.takes[len(w.takes) - 1]) if len(w.takes) else None)
        if self.load_problems:
            QTimer.singleShot(0, lambda: w.show_error(
                self.tr("Some saved takes could not be read"),
                self.tr("These take folders in {0} were left as they are:\n{1}").format(
                    self.store.root, "\n".join(self.load_problems))))

    # -- speaking ------------------------------------------------------------------------------
    def build_request(self) -> SpeakRequest | None:
        """The request for the current fields, or None after telling the user what is missing."""
        w = self.w
        if w.model_info is None:
            if w.models_ctl.loading():
                w.statusBar().showMessage(self.tr("The model is still loading; Speak when it is ready."), 5000)
            else:
                w.show_error(self.tr("No model"), self.tr("Load a model first."))
            return None
        w.voice_panel.commit_transcript()  # a transcript typed for the voice is kept in it
        text = w.editor.text().strip()
        if not text:
            w.statusBar().showMessage(self.tr("Type some text to speak first."), 5000)
            return None
        voice = w.voice_panel.voice
        if voice is None:
            w.show_error(self.tr("No voice"), self.tr("Record a voice or make one from a file first."))
            return None
        mode = w.controls.mode
        if mode == "instruct" and not w.controls.instruct_text:
            w.show_error(self.tr("No instruction"),
                         self.tr("Instruct mode needs an instruction: pick a preset or type one."))
            return None
        transcript = w.voice_panel.transcript if mode == "zero_shot" else ""
        if mode == "zero_shot" and not transcript:
            w.show_error(self.tr("No transcript"),
                         self.tr("Clone mode needs the transcript of the voice's recording. Type it, press "
                                 "Transcribe under the field to have it written from the recording, or use "
                                 "Cross-lingual mode, which needs none."))
            return None
        try:  # the app's and the voice's pronunciation dictionaries, checked against the loaded family
            lexicon = w.lexicon_ctl.for_take(voice)
        except CosyError as e:
            w.show_error(self.tr("Pronunciation dictionary"), str(e))
            return None
        common = {"text": text, "mode": mode, "instruct_text": w.controls.instruct_text,
                  "speed": w.controls.speed, "seed": w.controls.seed, "stream": w.controls.stream,
                  "text_reading": w.settings.text_reading, "lexicon": lexicon}
        if voice.family != w.model_info.family:
            # Features of a voice made for the other family do not fit: re-extract from its audio for this
            # take, and have the engine make the voice again for this family and save it (once).
            w.voices_ctl.refresh(voice)
            return SpeakRequest(prompt_audio=voice.audio_24k, prompt_sample_rate=voice.sample_rate,
                                prompt_text=transcript, **common)
        own = transcript if transcript != voice.transcript else ""
        return SpeakRequest(voice=voice, prompt_text=own, **common)

    def speak(self) -> int | None:
        """Start a take from the current fields; a take still being made is cancelled."""
        if self.w.controls.mode == "script":
            return self.w.script_ctl.speak()
        if self.w.controls.mode == "convert":
            return self.w.convert_ctl.convert()
        request = self.build_request()
        if request is None:
            return None
        return self.speak_request(request)

    def speak_request(self, request: SpeakRequest) -> int:
        w = self.w
        assert w.model_info is not None
        w.player.stop()
        w.longform_ctl.make_way()  # a long-form render gives way: its segment in progress is made again later
        request_id = w.engine.speak(request)
        voice = request.voice.name if request.voice is not None else (w.voice_panel.voice.name
                                                                       if w.voice_panel.voice else "")
        info = w.model_info
        take = Take(request_id, request.text, mode=request.mode, voice_name=voice,
                    sample_rate=info.sample_rate, seed=request.seed, speed=request.speed,
                    expected_seconds=expected_seconds(request.text, request.speed),
                    instruction=request.instruct_text if request.mode == "instruct" else "",
                    model=f"{info.title} · {Path(info.model_dir).name}", quality=info.quality)
        self.begin_take(take)
        return request_id

    def begin_take(self, take: Take) -> None:
        """A take was asked of the engine thread: list it, show it as it grows, play it as it comes."""
        w = self.w
        self.current = take
        self._take_started = time.monotonic()
        self._take_rtf = self.measured_rtf()
        w.takes.add(take)
        self._show_take(take, streaming=True)
        self.update_stop()
        w.hud.show()
        self.hud_timer.start()
        self.place_hud()
        self.refresh_hud()
        w.statusBar().showMessage(self.tr("Speaking take {0}…").format(take.number))

    def stop(self) -> None:
        """Stop making and playing (Esc)."""
        w = self.w
        w.engine.stop()
        w.player.stop()
        w.voices_ctl.stop_recording()
        self.update_stop()

    def making(self) -> bool:
        """A take is being made (asked for, not yet finished)."""
        return self.current is not None and self.current.state is TakeState.STREAMING

    def update_stop(self) -> None:
        """Stop is enabled while anything is being made or heard; a playing take's Play button says Stop."""
        w = self.w
        sounding = w.player.state in (PlayState.PLAYING, PlayState.BUFFERING)
        w.controls.set_busy(self.making() or sounding or w.regen_ctl.busy)
        w.takes_view.set_playing(self.playing if sounding else None)

    def stop_playing(self) -> None:
        self.w.player.stop()
        self.update_stop()

    def _take_for(self, request_id: int) -> Take | None:
        return self.w.takes.by_request(request_id)

    def _on_engine_chunk_ready(self, request_id: int, chunk: Chunk) -> None:
        w = self.w
        take = self._take_for(request_id)
        if take is None or take.state is not TakeState.STREAMING:
            return
        first = take.chunk_count == 0
        w.takes.add_chunk(take, chunk)  # saved, and its length in the list grows
        if chunk.warnings:
            w.statusBar().showMessage(" ".join(chunk.warnings), 10000)
        if take is not self.current:
            return
        if self.shown is take:
            w.waveform.append(chunk.samples)
        if first:
            w.ttfa_label.setText(self.tr("First audio {0:.2f} s").format(chunk.elapsed))
            preroll = preroll_seconds(self._take_rtf, take.expected_seconds)
            if w.player.begin(chunk.sample_rate, preroll=preroll):
                self.playing = take
                self.update_stop()  # begin() announced its state before the take was known: Play → Stop now
        if self.playing is take:
            w.player.feed(chunk.samples)
        self.refresh_hud()

    def _finish_take(self, take: Take, state: TakeState, stats: SynthesisStats | None, error: str = "") -> None:
        w = self.w
        take.finish(state, wall_seconds=stats.wall_seconds if stats else 0.0,
                    first_audio=stats.first_audio_seconds if stats else None, error=error)
        w.takes.changed(take)
        if take is self.current:
            if state is not TakeState.DONE:
                w.hud.hide()
            if state is TakeState.CANCELLED:
                w.statusBar().showMessage(self.tr("Stopped take {0} after {1:.1f} s.").format(
                    take.number, take.duration), 8000)
            if self.shown is take:
                w.waveform.finish()
            if self.playing is take:
                if state is TakeState.DONE:
                    w.player.end_input()
                else:
                    w.player.stop()
            self.refresh_hud()
            self.update_stop()

    def _on_engine_synthesis_finished(self, stats: SynthesisStats) -> None:
        w = self.w
        take = self._take_for(stats.request_id)
        if take is None:
            return
        self._finish_take(take, TakeState.DONE, stats)
        rtf = stats.rtf
        if rtf is not None:
            key = self._rtf_key()
            if key is not None and valid_rtf(rtf):  # remembered for the next takes' time-left estimates
                w.settings.set_measured_rtf(key, smoothed_rtf(w.settings.measured_rtf(key), rtf))
            w.rtf_label.setText(self.tr("RTF {0:.2f}").format(rtf))
        if stats.first_audio_seconds is not None:
            w.ttfa_label.setText(self.tr("First audio {0:.2f} s").format(stats.first_audio_seconds))
        if take is self.current:
            w.statusBar().showMessage(self.tr("Take {0}: {1:.1f} s of audio in {2:.1f} s").format(
                take.number, stats.audio_seconds, stats.wall_seconds), 8000)
        self.check_storage_limit()

    def _drop_empty(self, take: Take, state: TakeState) -> None:
        """A take that ended before its first chunk leaves the list (its number is used again)."""
        w = self.w
        take.finish(state)  # no longer being made: Stop greys out
        w.takes.remove(take)
        if take is self.current:
            self.current = None
            if state is TakeState.CANCELLED:
                w.statusBar().showMessage(self.tr("Stopped before any audio was made."), 8000)
            else:
                w.statusBar().clearMessage()  # the error is shown on its own
            self.update_stop()
            self.hide_hud()

    def _on_engine_synthesis_cancelled(self, stats: SynthesisStats) -> None:
        take = self._take_for(stats.request_id)
        if take is None:
            return
        if take.chunk_count == 0:
            self._drop_empty(take, TakeState.CANCELLED)
            return
        self._finish_take(take, TakeState.CANCELLED, stats)

    def _on_engine_synthesis_failed(self, request_id: int, message: str) -> None:
        w = self.w
        take = self._take_for(request_id)
        if take is not None:
            if take.chunk_count == 0:
                self._drop_empty(take, TakeState.FAILED)
            else:
                self._finish_take(take, TakeState.FAILED, None, message)
        converting = take is not None and take.mode == "convert"
        w.show_error(self.tr("Cannot convert") if converting else self.tr("Cannot speak"), message)

    # -- keeping takes -----------------------------------------------------------------------------
    def _on_store_failed(self, take: Take, error: StorageError) -> None:
        w = self.w
        w.show_error(self.tr("Cannot save take {0}").format(take.number),
                     self.tr("{0}\nThe take stays in this session only; export it to keep it.").format(error))

    def storage_limit_bytes(self) -> int:
        return self.w.settings.takes_limit_mb * 1024 * 1024

    def check_storage_limit(self) -> bool:
        """Warn (once per session) when saved takes use more than the limit; nothing is ever deleted."""
        used = self.store.size_bytes()
        over = used > self.storage_limit_bytes()
        if over and not self._warned_limit:
            self._warned_limit = True
            w = self.w
            w.show_error(self.tr("Saved takes are over the storage limit"),
                         self.tr("Saved takes use {0:.0f} MB, more than the limit of {1} MB. Nothing is deleted "
                                 "and new takes are still saved: remove or clear takes you no longer need, or "
                                 "raise the limit in Settings › Take storage limit.").format(
                             used / (1024 * 1024), w.settings.takes_limit_mb))
        return over

    def remove_takes(self, takes: list[Take]) -> list[Take]:
        """Remove takes (not one being made); the status bar offers to undo it."""
        removed = [t for t in takes if t.state is not TakeState.STREAMING and t in list(self.w.takes)]
        if not removed:
            return []
        for take in removed:
            if take is self.shown:
                self.shown = None
                self.w.waveform.clear()
            if take is self.playing:
                self.w.player.stop()
                self.playing = None
            self.w.takes.remove(take)
        self._undo.append(removed)
        if len(removed) == 1:
            message = self.tr("Removed take {0}.").format(removed[0].number)
        else:
            message = self.tr("Removed {0} takes.").format(len(removed))
        self._offer_undo(message)
        return removed

    def _offer_undo(self, message: str) -> None:
        bar = self.w.statusBar()
        bar.showMessage(message, UNDO_SHOWN_MS)
        button = getattr(self, "_undo_button", None)
        if button is None:
            button = QPushButton(self.tr("Undo"), bar)
            button.setObjectName("undoRemoveButton")
            button.setToolTip(self.tr("Put the removed takes back (Ctrl+Z in the Takes list)"))
            button.clicked.connect(self.undo_remove)
            bar.addWidget(button)
            self._undo_button = button
            self._undo_timer = QTimer(self)
            self._undo_timer.setSingleShot(True)
            self._undo_timer.timeout.connect(button.hide)
        button.show()
        self._undo_timer.start(UNDO_SHOWN_MS)

    def can_undo(self) -> bool:
        return bool(self._undo)

    def undo_remove(self) -> list[Take]:
        """Put back the takes of the last removal, with their numbers."""
        if not self._undo:
            return []
        takes = self._undo.pop()
        for take in takes:
            self.w.takes.insert(take)
        self.w.statusBar().showMessage(self.tr("Put back {0} take(s).").format(len(takes)), 5000)
        button = getattr(self, "_undo_button", None)
        if button is not None and not self._undo:
            button.hide()
        return takes

    def clear_takes(self) -> list[Take]:
        return self.remove_takes(list(self.w.takes))

    def clear_dialog(self) -> None:
        n = sum(1 for t in self.w.takes if t.state is not TakeState.STREAMING)
        if n == 0:
            return
        answer = QMessageBox.question(
            self.w, self.tr("Clear takes"),
            self.tr("Remove all {0} takes? Until you quit, Undo puts them back.").format(n))
        if answer == QMessageBox.StandardButton.Yes:
            self.clear_takes()

    def limit_dialog(self) -> None:
        w = self.w
        used = self.store.size_bytes() / (1024 * 1024)
        lo, hi = TAKES_LIMIT_RANGE_MB
        value, ok = QInputDialog.getInt(
            w, self.tr("Take storage limit"),
            self.tr("Saved takes use {0:.0f} MB in {1}.\nAbove the limit Cosy Studio warns you; it never deletes a "
                    "take by itself, and new takes are still saved.\nLimit in MB:").format(used, self.store.root),
            w.settings.takes_limit_mb, lo, hi, 100)
        if ok:
            w.settings.takes_limit_mb = value
            w.settings.sync()
            self._warned_limit = False
            self.check_storage_limit()

    def close(self) -> None:
        """The window closes: a take still being made is kept as stopped, with what it holds."""
        take = self.current
        if take is not None and take.state is TakeState.STREAMING:
            if take.chunk_count:
                take.finish(TakeState.CANCELLED)
                self.w.takes.changed(take)
            else:
                self.w.takes.remove(take)
        self.store.close()

    def rename_dialog(self, take: Take) -> None:
        name, ok = QInputDialog.getText(self.w, self.tr("Rename take {0}").format(take.number),
                                        self.tr("Name (empty: the start of its text):"), text=take.name)
        if ok:
            self.w.takes.rename(take, name)

    # -- showing and playing ----------------------------------------------------------------------
    def _show_take(self, take: Take, *, streaming: bool = False) -> None:
        w = self.w
        self.shown = take
        if streaming:
            w.waveform.begin(take.sample_rate, take.expected_seconds)
        else:
            w.waveform.set_audio(take.audio(), take.sample_rate, take.seams,
                                 finished=take.state is not TakeState.STREAMING)
        w.takes_view.select(take)
        self.take_shown.emit(take)

    def show_again(self, take: Take) -> None:
        """Show ``take`` afresh (its audio changed: a line regenerated)."""
        self._show_take(take)

    def show_take(self, take: Take) -> None:
        if take is not self.shown:
            self._show_take(take)

    def play_take(self, take: Take, start: float = 0.0) -> bool:
        self.show_take(take)
        if take.samples == 0:
            return False
        ok = self.w.player.play(take.audio(), take.sample_rate, start=start)
        if ok:
            self.playing = take
        self.update_stop()  # the player reported its state before it was known which take plays
        return ok

    def compare_takes(self, first: Take, second: Take) -> None:
        """A/B: play ``second`` from where ``first`` is now (or from the start)."""
        player = self.w.player
        playing_first = self.playing is first and player.state is not PlayState.STOPPED
        position = player.position if playing_first else 0.0
        self.play_take(second, start=min(position, second.duration))

    def _on_waveform_seek_requested(self, seconds: float) -> None:
        if self.shown is not None and self.shown.state is not TakeState.STREAMING:
            self.play_take(self.shown, start=seconds)

    def _on_player_position_changed(self, seconds: float) -> None:
        if self.playing is not None and self.playing is self.shown:
            self.w.waveform.set_playhead(seconds)
        self.refresh_hud()

    def _on_player_state_changed(self, state: PlayState) -> None:
        self.refresh_hud()
        self.update_stop()
        self.w.devices_ctl.update_audio_status()

    def _on_player_playback_finished(self) -> None:
        self.refresh_hud()
        if self.current is None or self.current.state is not TakeState.STREAMING:
            self.w.hud.hide()

    def _on_voice_panel_play_requested(self, samples, sample_rate: int) -> None:
        self.playing = None
        self.w.player.play(samples, sample_rate)
        self.update_stop()

    # -- HUD -------------------------------------------------------------------------------------
    def _rtf_key(self) -> str | None:
        info = self.w.model_info
        return rtf_key(info.model_dir, info.device, info.quality) if info is not None else None

    def measured_rtf(self) -> float | None:
        """The real-time factor measured on earlier takes with the loaded model, device and quality."""
        key = self._rtf_key()
        return self.w.settings.measured_rtf(key) if key is not None else None

    def refresh_hud(self) -> None:
        w = self.w
        names = {PlayState.NO_DEVICE: self.tr("no audio"), PlayState.STOPPED: self.tr("stopped"),
                 PlayState.BUFFERING: self.tr("buffering"), PlayState.PLAYING: self.tr("playing")}
        take = self.current
        w.hud.show_values(names[w.player.state], w.player.buffered_seconds,
                          take.chunk_count if take else 0, w.player.underruns)
        if take is not None and take.state is TakeState.STREAMING:
            elapsed = time.monotonic() - self._take_started
            w.hud.show_eta(eta_seconds(take.expected_seconds, self._take_rtf, elapsed))
        else:
            self.hud_timer.stop()
            w.hud.clear_eta()
        self.place_hud()

    def hide_hud(self) -> None:
        """The current take ended without audio: nothing left to show or to estimate."""
        self.hud_timer.stop()
        self.w.hud.clear_eta()
        self.w.hud.hide()

    def place_hud(self) -> None:
        w = self.w
        w.hud.move(max(0, w.waveform.width() - w.hud.width() - 12), 8)
        w.hud.raise_()
