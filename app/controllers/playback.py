"""Playback: showing a take in the waveform, playing it as it is made and when it is finished, A/B
comparison, the Stop button's state and the live HUD over the waveform.

It follows the session's take signals (a take started, grew, ended or was dropped); what makes the
take is :mod:`app.controllers.speaking`.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, QTimer

from cosycore.request import AudioChunk
from cosycore.studio.take import Take, TakeState

from ..audio.playback import TICK_MS, PlayState, preroll_seconds
from ..session import StudioSession
from ..widgets.hud import LiveHud
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.takes_list import TakesList
from ..widgets.waveform import WaveformView
from ..worker.eta import eta_seconds

HUD_REFRESH_MS = TICK_MS  # the HUD and its time-left estimate update as often as the player's position


class PlaybackController(QObject):
    """Shows and plays takes. Built by the main window from the session and the widgets it drives."""

    def __init__(self, session: StudioSession, *, waveform: WaveformView, hud: LiveHud, takes_view: TakesList,
                 controls: SynthesisControls, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.waveform = waveform
        self.hud = hud
        self.takes_view = takes_view
        self.controls = controls
        self._take_started = 0.0  # time.monotonic() when the current take was asked for
        self._take_rtf: float | None = None  # measured real-time factor when it was asked for (None: not yet)
        # Refreshes the HUD while a take is being made, also before its first chunk, when the player
        # has nothing to report yet and the time-left estimate matters most.
        self.hud_timer = QTimer(self)
        self.hud_timer.setInterval(HUD_REFRESH_MS)
        self.hud_timer.timeout.connect(self.refresh_hud)

    def wire(self) -> None:
        s = self.session
        s.take_started.connect(self._on_session_take_started)
        s.take_grew.connect(self._on_session_take_grew)
        s.take_ended.connect(self._on_session_take_ended)
        s.take_dropped.connect(self._on_session_take_dropped)
        s.activity_changed.connect(self.update_stop)
        player = s.player
        player.position_changed.connect(self._on_player_position_changed)
        player.state_changed.connect(self._on_player_state_changed)
        player.playback_finished.connect(self._on_player_playback_finished)
        self.waveform.seek_requested.connect(self._on_waveform_seek_requested)
        self.takes_view.take_activated.connect(self.show_take)
        self.takes_view.play_requested.connect(self.play_take)
        self.takes_view.compare_requested.connect(self.compare_takes)
        self.takes_view.stop_requested.connect(self.stop_playing)
        s.takes_switched.connect(self._show_newest)  # another project: its newest take, as after a start
        if len(s.takes):  # the newest saved take is in view after a start, ready to play
            QTimer.singleShot(0, lambda: self._show_newest() if len(s.takes) else None)

    def _show_newest(self) -> None:
        """The newest take in view (none: an empty waveform, not the take of the project left behind)."""
        takes = self.session.takes
        if len(takes):
            self.show_take(takes[len(takes) - 1])
        else:
            self.waveform.clear()

    # -- the take being made ---------------------------------------------------------------------
    def _on_session_take_started(self, take: Take) -> None:
        """A take was asked of the engine thread: show it as it grows, play it as it comes."""
        self._take_started = time.monotonic()
        self._take_rtf = self.session.measured_rtf()
        self._show_take(take, streaming=True)
        self.update_stop()
        self.hud.show()
        self.hud_timer.start()
        self.place_hud()
        self.refresh_hud()

    def _on_session_take_grew(self, take: Take, chunk: AudioChunk, first: bool) -> None:
        s = self.session
        if s.shown_take is take:
            self.waveform.append(chunk.samples)
        if first:
            preroll = preroll_seconds(self._take_rtf, take.expected_seconds)
            if s.player.begin(chunk.sample_rate, preroll=preroll):
                s.set_playing_take(take)
                self.update_stop()  # begin() announced its state before the take was known: Play → Stop now
        if s.playing_take is take:
            s.player.feed(chunk.samples)
        self.refresh_hud()

    def _on_session_take_ended(self, take: Take) -> None:
        s = self.session
        if take.state is not TakeState.DONE:
            self.hud.hide()
        if s.shown_take is take:
            self.waveform.finish()
        if s.playing_take is take:
            if take.state is TakeState.DONE:
                s.player.end_input()
            else:
                s.player.stop()
        self.refresh_hud()
        self.update_stop()

    def _on_session_take_dropped(self, _take: Take) -> None:
        self.update_stop()
        self.hide_hud()

    def update_stop(self) -> None:
        """Stop is enabled while anything is being made or heard; a playing take's Play button says Stop."""
        s = self.session
        sounding = s.player.state in (PlayState.PLAYING, PlayState.BUFFERING)
        self.controls.set_busy(s.making() or sounding or s.regenerating or s.speak_waiting)
        self.takes_view.set_playing(s.playing_take if sounding else None)

    def stop_playing(self) -> None:
        self.session.player.stop()
        self.update_stop()

    def forget(self, take: Take) -> None:
        """``take`` leaves the list: out of the view, and no longer played."""
        s = self.session
        if take is s.shown_take:
            s.set_shown_take(None)
            self.waveform.clear()
        if take is s.playing_take:
            s.player.stop()
            s.set_playing_take(None)

    # -- showing and playing ----------------------------------------------------------------------
    def _show_take(self, take: Take, *, streaming: bool = False) -> None:
        if streaming:
            self.waveform.begin(take.sample_rate, take.expected_seconds)
        else:
            self.waveform.set_audio(take.audio(), take.sample_rate, take.seams,
                                    finished=take.state is not TakeState.STREAMING)
        self.takes_view.select(take)
        self.session.set_shown_take(take)

    def show_again(self, take: Take) -> None:
        """Show ``take`` afresh (its audio changed: a line regenerated)."""
        self._show_take(take)

    def show_take(self, take: Take) -> None:
        if take is not self.session.shown_take:
            self._show_take(take)

    def play_take(self, take: Take, start: float = 0.0) -> bool:
        self.show_take(take)
        if take.samples == 0:
            return False
        ok = self.session.player.play(take.audio(), take.sample_rate, start=start)
        if ok:
            self.session.set_playing_take(take)
        self.update_stop()  # the player reported its state before it was known which take plays
        return ok

    def compare_takes(self, first: Take, second: Take) -> None:
        """A/B: play ``second`` from where ``first`` is now (or from the start)."""
        player = self.session.player
        playing_first = self.session.playing_take is first and player.state is not PlayState.STOPPED
        position = player.position if playing_first else 0.0
        self.play_take(second, start=min(position, second.duration))

    def play_voice(self, samples: np.ndarray, sample_rate: int) -> None:
        """Audition a voice's recording (not a take)."""
        self.session.set_playing_take(None)
        self.session.player.play(samples, sample_rate)
        self.update_stop()

    def _on_waveform_seek_requested(self, seconds: float) -> None:
        shown = self.session.shown_take
        if shown is not None and shown.state is not TakeState.STREAMING:
            self.play_take(shown, start=seconds)

    def _on_player_position_changed(self, seconds: float) -> None:
        s = self.session
        if s.playing_take is not None and s.playing_take is s.shown_take:
            self.waveform.set_playhead(seconds)
        self.refresh_hud()

    def _on_player_state_changed(self, _state: PlayState) -> None:
        self.refresh_hud()
        self.update_stop()

    def _on_player_playback_finished(self) -> None:
        self.refresh_hud()
        current = self.session.current_take
        if current is None or current.state is not TakeState.STREAMING:
            self.hud.hide()

    # -- HUD -------------------------------------------------------------------------------------
    def refresh_hud(self) -> None:
        player = self.session.player
        names = {PlayState.NO_DEVICE: self.tr("no audio"), PlayState.STOPPED: self.tr("stopped"),
                 PlayState.BUFFERING: self.tr("buffering"), PlayState.PLAYING: self.tr("playing")}
        take = self.session.current_take
        self.hud.show_values(names[player.state], player.buffered_seconds, take.chunk_count if take else 0,
                             player.underruns)
        if take is not None and take.state is TakeState.STREAMING:
            elapsed = time.monotonic() - self._take_started
            self.hud.show_eta(eta_seconds(take.expected_seconds, self._take_rtf, elapsed))
        else:
            self.hud_timer.stop()
            self.hud.clear_eta()
        self.place_hud()

    def hide_hud(self) -> None:
        """The current take ended without audio: nothing left to show or to estimate."""
        self.hud_timer.stop()
        self.hud.clear_eta()
        self.hud.hide()

    def place_hud(self) -> None:
        self.hud.move(max(0, self.waveform.width() - self.hud.width() - 12), 8)
        self.hud.raise_()
