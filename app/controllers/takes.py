"""Keeping takes: removing, clearing and renaming them, undoing a removal, and the storage limit of
the saved takes (a warning; nothing is ever deleted by itself).

Making a take is :mod:`app.controllers.speaking`; showing and playing one is :mod:`app.controllers.playback`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QInputDialog, QMessageBox, QPushButton, QStatusBar, QWidget

from cosycore.errors import StorageError
from cosycore.studio.take import Take, TakeState

from ..config.settings import TAKES_LIMIT_RANGE_MB
from ..session import StudioSession
from ..widgets.takes_list import TakesList
from .playback import PlaybackController

UNDO_SHOWN_MS = 15000  # how long the status bar offers to undo a removal


class TakesController(QObject):
    """The takes list's remove, rename, clear and undo, and the storage limit. Built by the main window."""

    def __init__(self, session: StudioSession, *, takes_view: TakesList, status_bar: QStatusBar,
                 playback: PlaybackController, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.takes_view = takes_view
        self.status_bar = status_bar
        self.playback = playback
        self.parent_widget = parent  # dialogs open over it
        # What Ctrl+Z in the list (and the status bar's Undo) undoes, the newest last: removed takes, or a new
        # version of a take (a sentence regenerated), as a callable that swaps it back (False: nothing to undo any more)
        self._undo: list[list[Take] | Callable[[], bool]] = []
        self._undo_button: QPushButton | None = None
        self._undo_timer: QTimer | None = None
        self._warned_limit = False

    def wire(self) -> None:
        view = self.takes_view
        view.remove_requested.connect(self.remove_takes)
        view.rename_requested.connect(self.rename_dialog)
        view.clear_requested.connect(self.clear_dialog)
        view.undo_requested.connect(self.undo_last)
        s = self.session
        s.takes_switched.connect(self._forget_removals)  # another project's takes: its trash is its own
        if s.load_problems:
            QTimer.singleShot(0, lambda: s.show_error(
                self.tr("Some saved takes could not be read"),
                self.tr("These take folders in {0} were left as they are:\n{1}").format(
                    s.store.root, "\n".join(s.load_problems))))

    # -- the storage limit -----------------------------------------------------------------------
    def storage_limit_bytes(self) -> int:
        return self.session.settings.takes_limit_mb * 1024 * 1024

    def check_storage_limit(self) -> bool:
        """Warn (once per session) when saved takes use more than the limit; nothing is ever deleted."""
        s = self.session
        used = s.store.size_bytes()
        over = used > self.storage_limit_bytes()
        if over and not self._warned_limit:
            self._warned_limit = True
            s.show_error(self.tr("Saved takes are over the storage limit"),
                         self.tr("Saved takes use {0:.0f} MB, more than the limit of {1} MB. Nothing is deleted "
                                 "and new takes are still saved: remove or clear takes you no longer need, or "
                                 "raise the limit in Settings › Take storage limit.").format(
                             used / (1024 * 1024), s.settings.takes_limit_mb))
        return over

    def limit_dialog(self) -> None:
        s = self.session
        used = s.store.size_bytes() / (1024 * 1024)
        lo, hi = TAKES_LIMIT_RANGE_MB
        value, ok = QInputDialog.getInt(
            self.parent_widget, self.tr("Take storage limit"),
            self.tr("Saved takes use {0:.0f} MB in {1}.\nAbove the limit Cosy Studio warns you; it never deletes a "
                    "take by itself, and new takes are still saved.\nLimit in MB:").format(used, s.store.root),
            s.settings.takes_limit_mb, lo, hi, 100)
        if ok:
            s.settings.takes_limit_mb = value
            s.settings.sync()
            self._warned_limit = False
            self.check_storage_limit()

    # -- removing and undoing --------------------------------------------------------------------
    def remove_takes(self, takes: list[Take]) -> list[Take]:
        """Remove takes (not one being made); the status bar offers to undo it."""
        listed = self.session.takes
        removed = [t for t in takes if t.state is not TakeState.STREAMING and t in list(listed)]
        if not removed:
            return []
        for take in removed:
            self.playback.forget(take)
            listed.remove(take)
        self._undo.append(removed)
        if len(removed) == 1:
            message = self.tr("Removed take {0}.").format(removed[0].number)
        else:
            message = self.tr("Removed {0} takes.").format(len(removed))
        self._offer_undo(message)
        return removed

    def _offer_undo(self, message: str) -> None:
        bar = self.status_bar
        self.session.show_status(message, UNDO_SHOWN_MS)
        button, timer = self._undo_button, self._undo_timer
        if button is None or timer is None:
            button = QPushButton(self.tr("Undo"), bar)
            button.setObjectName("undoRemoveButton")
            button.setToolTip(self.tr("Undo the last removal or regeneration (Ctrl+Z in the Takes list)"))
            button.clicked.connect(self.undo_last)
            # Permanent (the left-most on the right), so the message beside it is never painted under it.
            bar.insertPermanentWidget(0, button)
            self._undo_button = button
            timer = self._undo_timer = QTimer(self)
            timer.setSingleShot(True)
            timer.timeout.connect(button.hide)
        button.show()
        timer.start(UNDO_SHOWN_MS)

    def can_undo(self) -> bool:
        return bool(self._undo)

    def offer_undo(self, message: str, undo: Callable[[], bool]) -> None:
        """A take changed (a new version): Ctrl+Z in the list and the status bar's Undo call ``undo`` (until
        something newer is undone first)."""
        self._undo.append(undo)
        self._offer_undo(message)

    def undo_last(self) -> None:
        """Undo the newest removal or new version that can still be undone (Ctrl+Z in the Takes list)."""
        while self._undo:
            entry = self._undo[-1]
            if isinstance(entry, list):
                self.undo_remove()
                return
            self._undo.pop()
            if entry():
                break
        if self._undo_button is not None and not self._undo:
            self._undo_button.hide()

    def undo_remove(self) -> list[Take]:
        """Put back the takes of the last removal, with their numbers."""
        k = next((i for i in range(len(self._undo) - 1, -1, -1) if isinstance(self._undo[i], list)), None)
        if k is None:
            return []
        removed = self._undo.pop(k)
        assert isinstance(removed, list)
        in_list = {t.uid for t in self.session.takes}  # put back from the trash already, or deleted with it
        takes = [t for t in removed if t.uid not in in_list and t.uid not in self.session.store.emptied]
        for take in takes:
            self.session.takes.insert(take)
        self.session.show_status(self.tr("Put back {0} take(s).").format(len(takes)), 5000)
        if self._undo_button is not None and not self._undo:
            self._undo_button.hide()
        return takes

    def _forget_removals(self) -> None:
        self._undo.clear()
        if self._undo_button is not None:
            self._undo_button.hide()

    def open_take_folder(self, folder: Path) -> Take | None:
        """Add a copy of a take folder (``NAME.wav.take``, saved by ``cosycore synth --script``) to the takes."""
        s = self.session
        number = max((t.number for t in s.takes), default=0) + 1
        try:
            take = s.store.import_take(folder, number)
        except StorageError as e:
            s.show_error(self.tr("Cannot open the take"), str(e))
            return None
        s.takes.add(take)
        s.show_status(self.tr("{0} is take {1} now (a copy; the folder is left as it is).").format(
            folder.name, take.number), 8000)
        return take

    def clear_takes(self) -> list[Take]:
        return self.remove_takes(list(self.session.takes))

    def clear_dialog(self) -> None:
        n = sum(1 for t in self.session.takes if t.state is not TakeState.STREAMING)
        if n == 0:
            return
        answer = QMessageBox.question(
            self.parent_widget, self.tr("Clear takes"),
            self.tr("Remove all {0} takes? They go to the trash: Undo (Ctrl+Z) or Takes › Trash puts them "
                    "back until you empty it.").format(n))
        if answer == QMessageBox.StandardButton.Yes:
            self.clear_takes()

    def rename_dialog(self, take: Take) -> None:
        name, ok = QInputDialog.getText(self.parent_widget, self.tr("Rename take {0}").format(take.number),
                                        self.tr("Name (empty: the start of its text):"), text=take.name)
        if ok:
            self.session.takes.rename(take, name)
