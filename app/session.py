"""The studio's session: what the window shows and the controllers work on, in one object.

:class:`StudioSession` owns the engine thread, the player, the takes and their store, the voice library
and the settings, and holds the current state: the loaded model, the voice, the take being made, the
take in view and the take playing. Every change of that state is a signal, so a controller reacts to
what happened instead of reaching into the window or into another controller. The controllers
(:mod:`app.controllers`) are built from a session and the widgets they drive; the main window
builds the session, the widgets and the controllers, and wires them.

Messages for the user also go through the session (:meth:`StudioSession.show_error`,
:meth:`StudioSession.show_status`): the window shows them in its warning box and status bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from cosycore.errors import StorageError
from cosycore.studio.take import Take, TakeState
from cosycore.voices import Voice, VoiceLibrary

from .audio.playback import Player
from .config.settings import Settings
from .takes.store import TakeStore
from .takes.take import TakeList
from .worker.engine_thread import EngineThread
from .worker.eta import rtf_key

if TYPE_CHECKING:
    from cosycore.engine.info import EngineInfo
    from cosycore.request import AudioChunk

__all__ = ["StudioSession"]


class StudioSession(QObject):
    """The studio's state and the objects that hold it. Created by the main window (or a test)."""

    model_changed = Signal(object)  # EngineInfo of the loaded model; None while none is (or one loads)
    voice_changed = Signal(object)  # Voice now current (None: no voice)
    current_take_changed = Signal(object)  # the take being made (or last made); None when it ended empty
    shown_take_changed = Signal(object)  # Take put into the waveform (again: its audio changed), or None
    playing_take_changed = Signal(object)  # Take the player plays, or None
    take_started = Signal(object)  # Take just asked of the engine (now the current take)
    take_grew = Signal(object, object, bool)  # current Take, its new Chunk, True for its first chunk
    take_ended = Signal(object)  # Take that ended with audio (its state: done, cancelled or failed)
    take_dropped = Signal(object)  # current Take that ended before its first chunk (removed from the list)
    activity_changed = Signal()  # something that Stop stops started or ended (a line regeneration, a waiting Speak)
    model_loading_changed = Signal(bool)  # a model loads while the studio stays in view (or stopped doing so)
    error_shown = Signal(str, str)  # title, text: a problem the user must read
    status_shown = Signal(str, int)  # text ("" clears), milliseconds to show it (0: until replaced)
    takes_switched = Signal()  # the takes now come from another folder (another project was opened)

    def __init__(self, settings: Settings, *, engine: EngineThread | None = None, player: Player | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.engine = engine or EngineThread(self, torch_threads=settings.threads or None)
        # PortAudio starts when something first needs the device, or when the window has drawn its first frame.
        self.player = player or Player(self, device_name=settings.output_device, find_now=False)
        self.library = VoiceLibrary(settings.paths.voices)
        self.takes = TakeList(self)
        # Takes saved by earlier sessions come back first; the store saves every change from then on.
        self.store = TakeStore(settings.paths.data / "takes")  # removed takes stay in its trash until emptied
        restored, self.load_problems = self.store.load()
        for take in restored:
            self.takes.insert(take)
        # The store saves what happens to the takes through a feed that is paused while projects switch.
        self._store_feed = TakeList(self)
        for name in ("take_added", "chunk_added", "take_changed", "take_removed"):
            getattr(self.takes, name).connect(getattr(self._store_feed, name))
        self.store.attach(self._store_feed, self._on_store_failed)
        self._model: EngineInfo | None = None
        self._voice: Voice | None = None
        self._current: Take | None = None
        self._shown: Take | None = None
        self._playing: Take | None = None
        self._model_loading = False
        self._regenerating = False
        self._speak_waiting = False

    # -- messages --------------------------------------------------------------------------------
    def show_error(self, title: str, text: str) -> None:
        """Tell the user about a problem (the window shows it without blocking the event loop)."""
        self.error_shown.emit(title, text)

    def show_status(self, text: str, ms: int = 0) -> None:
        """A passing message in the status bar (``ms`` 0: until the next one; ``text`` "": clear it)."""
        self.status_shown.emit(text, ms)

    def _on_store_failed(self, take: Take, error: StorageError) -> None:
        self.show_error(self.tr("Cannot save take {0}").format(take.number),
                        self.tr("{0}\nThe take stays in this session only; export it to keep it.").format(error))

    # -- the model -------------------------------------------------------------------------------
    @property
    def model_info(self) -> EngineInfo | None:
        """The loaded model (None before the first load, while one loads, and after a failed load)."""
        return self._model

    def set_model_info(self, info: EngineInfo | None) -> None:
        self._model = info
        self.model_changed.emit(info)

    @property
    def model_loading(self) -> bool:
        """A model is being loaded while the studio is in view (Speak waits for it)."""
        return self._model_loading

    def set_model_loading(self, loading: bool) -> None:
        if loading != self._model_loading:
            self._model_loading = loading
            self.model_loading_changed.emit(loading)

    def rtf_key(self) -> str | None:
        """Where measured speeds of the loaded model, device and quality are kept (None: no model)."""
        info = self._model
        return rtf_key(info.model_dir, info.device, info.quality) if info is not None else None

    def measured_rtf(self) -> float | None:
        """The real-time factor measured on earlier takes with the loaded model, device and quality."""
        key = self.rtf_key()
        return self.settings.measured_rtf(key) if key is not None else None

    # -- the voice -------------------------------------------------------------------------------
    @property
    def voice(self) -> Voice | None:
        return self._voice

    def set_voice(self, voice: Voice | None) -> None:
        """The voice now current (the voice panel's choice, or the same voice saved again)."""
        self._voice = voice
        self.voice_changed.emit(voice)

    # -- takes -----------------------------------------------------------------------------------
    @property
    def current_take(self) -> Take | None:
        """The take being made, or the one made last."""
        return self._current

    def set_current_take(self, take: Take | None) -> None:
        if take is not self._current:
            self._current = take
            self.current_take_changed.emit(take)

    def making(self) -> bool:
        """A take is being made (asked for, not yet finished)."""
        return self._current is not None and self._current.state is TakeState.STREAMING

    @property
    def shown_take(self) -> Take | None:
        """The take in the waveform view."""
        return self._shown

    def set_shown_take(self, take: Take | None) -> None:
        """``take`` is now in view; said also when the same take is shown again (its audio changed)."""
        self._shown = take
        self.shown_take_changed.emit(take)

    @property
    def playing_take(self) -> Take | None:
        """The take the player plays (or played last)."""
        return self._playing

    def set_playing_take(self, take: Take | None) -> None:
        if take is not self._playing:
            self._playing = take
            self.playing_take_changed.emit(take)

    def begin_take(self, take: Take) -> None:
        """A take was asked of the engine thread: it joins the list (numbered) and becomes the current take."""
        self.takes.add(take)
        self.set_current_take(take)
        self.take_started.emit(take)

    def add_chunk(self, take: Take, chunk: AudioChunk) -> None:
        """A chunk of a take being made: saved, listed, and (for the current take) shown and played."""
        first = take.chunk_count == 0
        self.takes.add_chunk(take, chunk)
        if take is self._current:
            self.take_grew.emit(take, chunk, first)

    def end_take(self, take: Take, state: TakeState, *, wall_seconds: float = 0.0,
                 first_audio: float | None = None, error: str = "") -> None:
        """A take with audio ended (finished, stopped or failed)."""
        take.finish(state, wall_seconds=wall_seconds, first_audio=first_audio, error=error)
        self.takes.changed(take)
        if take is self._current:
            self.take_ended.emit(take)

    def drop_take(self, take: Take, state: TakeState) -> None:
        """A take that ended before its first chunk leaves the list (its number is used again)."""
        take.finish(state)  # no longer being made: Stop greys out
        self.takes.remove(take)
        if take is self._current:
            self.set_current_take(None)
            self.take_dropped.emit(take)

    @property
    def regenerating(self) -> bool:
        """A line of a script take is being spoken again (Stop stays enabled meanwhile)."""
        return self._regenerating

    def set_regenerating(self, busy: bool) -> None:
        self._regenerating = busy
        self.activity_changed.emit()

    def switch_takes(self, root: Path) -> list[str]:
        """Show the takes saved in ``root`` (another project's folder) instead of the current ones, which
        stay where they are on disk. Nothing may be being made. Returns the folders that could not be read."""
        self.player.stop()
        self.set_playing_take(None)
        self.set_shown_take(None)
        self.set_current_take(None)
        self._store_feed.blockSignals(True)  # leaving the list is not a removal: the files stay
        try:
            for take in list(self.takes):
                self.takes.remove(take)
            self.store.close()
            self.store.root = Path(root)
            self.store.emptied.clear()
            restored, self.load_problems = self.store.load()
            for take in restored:
                self.takes.insert(take)
        finally:
            self._store_feed.blockSignals(False)
        self.takes_switched.emit()
        return self.load_problems

    @property
    def speak_waiting(self) -> bool:
        """A Speak pressed while the model loads waits for it (Stop cancels it)."""
        return self._speak_waiting

    def set_speak_waiting(self, waiting: bool) -> None:
        if waiting != self._speak_waiting:
            self._speak_waiting = waiting
            self.activity_changed.emit()

    def close(self) -> None:
        """The studio closes: a take still being made is kept as stopped, with what it holds."""
        take = self._current
        if take is not None and take.state is TakeState.STREAMING:
            if take.chunk_count:
                take.finish(TakeState.CANCELLED)
                self.takes.changed(take)
            else:
                self.takes.remove(take)
        self.store.close()
