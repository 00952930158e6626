"""What regenerating a piece of a take shares, whether the piece is a line of a script take
(:mod:`app.controllers.script_regen`) or a sentence of an ordinary take (:mod:`app.controllers.sentence_regen`):
the dialog that asks which piece and how, saving the result as a new version of the take (the version before
stays for Undo), Undo (swapping the two versions), a failed regeneration and the end of one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QWidget

from cosycore.errors import CosyError
from cosycore.studio.take import Take

from ..session import StudioSession
from ..widgets.regenerate_dialog import Piece, PieceKind, RegenerateDialog

if TYPE_CHECKING:
    from .playback import PlaybackController


class PieceRegenController(QObject):
    """The part of a regeneration controller that does not depend on the piece; GUI thread only."""

    finished = Signal(bool)  # a regeneration ended: True when the take was changed

    def __init__(self, session: StudioSession, playback: PlaybackController, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.playback = playback
        self.parent_widget = parent  # the dialog and the menu open over it
        self.dialog_shown: RegenerateDialog | None = None
        self._pending: dict[int, Any] = {}  # request id -> what the controller needs when the result comes

    # -- what each kind of piece says ------------------------------------------------------------
    def update_actions(self) -> None:
        raise NotImplementedError

    def regenerate(self, take: Take, index: int, *, seed: int | None = None, keep_instruction: bool = True,
                   instruction: str | None = None) -> int | None:
        raise NotImplementedError

    def cannot_regenerate(self) -> str:
        """The title of the message shown when a regeneration fails."""
        raise NotImplementedError

    def still_regenerating(self) -> bool:
        return bool(self._pending)

    # -- shared ------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def ask(self, take: Take, pieces: list[Piece], kind: PieceKind, index: int | None) -> RegenerateDialog:
        """Open the dialog over the window; when accepted, regenerate the piece chosen."""
        info = self.session.model_info
        dialog = RegenerateDialog(pieces, info.family if info is not None else "", kind, index, self.parent_widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted() -> None:
            keep, instruction = dialog.instruction()
            self.regenerate(take, dialog.index, seed=dialog.seed, keep_instruction=keep, instruction=instruction)

        dialog.accepted.connect(accepted)
        dialog.open()
        self.dialog_shown = dialog
        return dialog

    def done(self, ok: bool) -> None:
        self.session.set_regenerating(self.still_regenerating())
        self.update_actions()
        self.finished.emit(ok)

    def failed(self, request_id: int, message: str) -> None:
        """The engine thread could not regenerate the piece of ``request_id``."""
        if self._pending.pop(request_id, None) is None:
            return
        self.session.show_error(self.cannot_regenerate(), message)
        self.done(False)

    def changed(self, take: Take) -> None:
        s = self.session
        s.takes.changed(take)
        if s.shown_take is take:
            self.playback.show_again(take)

    def save_version(self, take: Take, save: Callable[[], None], title: str) -> bool:
        """Stop playing ``take`` and ``save`` its new version; on failure say so under ``title`` and end the
        regeneration unchanged."""
        s = self.session
        if s.playing_take is take:
            s.player.stop()
        try:
            save()
        except CosyError as e:
            s.show_error(title, self.tr("{0}\nThe take is unchanged.").format(e))
            self.done(False)
            return False
        self.changed(take)
        return True

    def swap_versions(self, take: Take) -> bool:
        """Undo (or redo) the last regeneration of ``take``: its current and previous versions swap."""
        s = self.session
        if s.playing_take is take:
            s.player.stop()
        try:
            s.store.swap_versions(take)
        except CosyError as e:
            s.show_error(self.tr("Cannot undo"), str(e))
            return False
        self.changed(take)
        s.show_status(self.tr("Take {0} is back to its previous version; Undo again for the other.")
                      .format(take.number), 8000)
        self.update_actions()
        return True
