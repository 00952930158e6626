"""Script mode's offer to re-make voices made for the other model family (the cast table's button).

Each voice is made again from its recording by the engine thread and saved over the old file (the same
path the speaking modes take for one voice); the script is checked again as each one arrives.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, SignalInstance

from cosycore.errors import CosyError
from cosycore.voices import Voice, VoiceLibrary

from ..widgets.cast_table import CastTable


class RemakeController(QObject):
    """Connects the cast table's offer to the voices controller's refresh. Built by the main window."""

    def __init__(self, cast_table: CastTable, library: VoiceLibrary, *, refresh: Callable[[Voice], None],
                 voice_refreshed: SignalInstance, recheck: Callable[[], object],
                 show_status: Callable[[str, int], None], show_error: Callable[[str, str], None],
                 parent: QObject) -> None:
        super().__init__(parent)
        self.library = library
        self.refresh = refresh
        self.recheck = recheck
        self.show_status = show_status
        self.show_error = show_error
        self.pending: set[str] = set()
        cast_table.remake_requested.connect(self.remake)
        voice_refreshed.connect(self._on_voice_refreshed)

    def remake(self, names: list[str]) -> None:
        for name in names:
            try:
                voice = self.library.get(name)
            except CosyError as e:
                self.show_error(self.tr("Cannot re-make “{0}”").format(name), str(e))
                continue
            self.pending.add(voice.name)
            self.refresh(voice)
        if self.pending:
            self.show_status(self.tr("Re-making %n voice(s) for the loaded model…", "", len(self.pending)), 0)

    def _on_voice_refreshed(self, _job: int, voice: Voice) -> None:
        if voice.name not in self.pending:
            return
        self.pending.discard(voice.name)
        # After the voices controller saved it (its slot runs first): the script sees the new family.
        QTimer.singleShot(0, self.recheck)
        if not self.pending:
            QTimer.singleShot(0, lambda: self.show_status(self.tr("The cast's voices were made for the loaded "
                                                                  "model."), 8000))
