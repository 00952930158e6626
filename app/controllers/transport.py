"""Transport keys: Space plays and pauses the shown take, Left and Right seek by :data:`SEEK_SECONDS`.

They work while the Takes list or the waveform has the focus (click either, or Tab there); elsewhere
Space types a space or presses the focused button and the arrows move the cursor, as usual.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from cosycore.studio.take import Take, TakeState

from ..audio.playback import Player, PlayState

SEEK_SECONDS = 5.0


class TransportController(QObject):
    """Owns the transport shortcuts. Built by the main window from the player and the take in view."""

    def __init__(self, player: Player, *, window: QWidget, seek_areas: list[QWidget],
                 shown_take: Callable[[], Take | None], play_take: Callable[[Take, float], bool],
                 stop: Callable[[], None], set_playhead: Callable[[float | None], None]) -> None:
        super().__init__(window)
        self.player = player
        self.shown_take = shown_take
        self.play_take = play_take
        self.stop = stop
        self.set_playhead = set_playhead
        self.paused_at: tuple[Take, float] | None = None  # where Space paused (the take and its position)
        self.shortcuts: list[QShortcut] = []
        for area in seek_areas:
            self._add(area, Qt.Key.Key_Space, self.toggle)
            for key, step in ((Qt.Key.Key_Left, -SEEK_SECONDS), (Qt.Key.Key_Right, SEEK_SECONDS)):
                self._add(area, key, functools.partial(self.seek, step))

    def _add(self, area: QWidget, key: Qt.Key, slot: Callable[[], None]) -> None:
        shortcut = QShortcut(QKeySequence(key), area, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(slot)
        self.shortcuts.append(shortcut)

    def _playing(self) -> bool:
        return self.player.state in (PlayState.PLAYING, PlayState.BUFFERING)

    def position(self) -> float:
        take = self.shown_take()
        if self._playing():
            return self.player.position
        if self.paused_at is not None and self.paused_at[0] is take:
            return self.paused_at[1]
        return 0.0

    def toggle(self) -> None:
        """Space: pause the take playing (remembering where), or play the shown take from there."""
        take = self.shown_take()
        if self._playing():
            if take is not None:
                self.paused_at = (take, self.player.position)
            self.stop()
            return
        if take is None or take.state is TakeState.STREAMING or take.samples == 0:
            return
        start = self.position()
        if start >= take.duration - 0.05:
            start = 0.0
        self.paused_at = None
        self.play_take(take, start)

    def seek(self, step: float) -> None:
        """An arrow key: move by ``step`` seconds (playing on from there, or the paused place)."""
        take = self.shown_take()
        if take is None or take.state is TakeState.STREAMING or take.samples == 0:
            return
        target = min(max(0.0, self.position() + step), max(0.0, take.duration - 0.01))
        if self._playing():
            self.play_take(take, target)
        else:
            self.paused_at = (take, target)
            self.set_playhead(target)
