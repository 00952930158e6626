"""Takes › Trash…: the removed takes, put back one by one or deleted for good when the user says so.

Removing a take moves its folder into the store's trash (:meth:`app.takes.store.TakeStore.remove`);
nothing empties it but the user, through this dialog and its confirmation.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from cosycore.studio.take import Take

from ..takes.store import TakeStore
from ..takes.take import TakeList
from ..widgets.trash_dialog import TrashDialog


class TrashController(QObject):
    """Owns the Trash action and its dialog. Built by the main window from the store and the takes."""

    def __init__(self, store: TakeStore, takes: TakeList, *, menu: QMenu, parent: QWidget,
                 show_status: Callable[[str, int], None], show_error: Callable[[str, str], None]) -> None:
        super().__init__(parent)
        self.store = store
        self.takes = takes
        self.parent_widget = parent
        self.show_status = show_status
        self.show_error = show_error
        self.dialog: TrashDialog | None = None
        self.action = QAction(self.tr("&Trash…"), parent)
        self.action.setObjectName("trashAction")
        self.action.setToolTip(self.tr("Removed takes: put them back, or empty the trash"))
        self.action.triggered.connect(lambda: self.open_dialog())
        menu.addAction(self.action)

    def open_dialog(self) -> TrashDialog:
        if self.dialog is None:
            self.dialog = TrashDialog(self.parent_widget)
            self.dialog.restore_requested.connect(self.restore)
            self.dialog.empty_requested.connect(self.empty)
        self.refresh()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def refresh(self) -> None:
        if self.dialog is not None:
            takes, problems = self.store.trashed()
            self.dialog.set_takes(takes, problems)

    def restore(self, takes: list[Take]) -> list[Take]:
        """Put takes read from the trash back into the list (the store moves their folders back).

        A take keeps its number unless another take has it meanwhile; then it gets the next one."""
        in_list = {t.uid for t in self.takes}
        numbers = {t.number for t in self.takes}
        restored = []
        for take in takes:
            if take.uid in in_list or not self.store.in_trash(take):
                continue
            take.audio()  # read while the audio is where the take was read from (its folder moves back now)
            if take.number in numbers:
                self.takes.add(take)
            else:
                self.takes.insert(take)
            numbers.add(take.number)
            restored.append(take)
        if restored:
            self.show_status(self.tr("Put back {0} take(s) from the trash.").format(len(restored)), 5000)
        self.refresh()
        return restored

    def empty(self) -> None:
        try:
            kept = self.store.empty_trash()
        except OSError as e:  # the trash folder cannot be listed
            self.show_error(self.tr("Empty trash"), str(e))
            return
        if kept:
            self.show_error(self.tr("Empty trash"),
                            self.tr("These folders in {0} hold files Cosy Studio did not make; they were kept:\n"
                                    "{1}").format(self.store.trash, "\n".join(kept)))
        else:
            self.show_status(self.tr("The trash is empty."), 5000)
        self.refresh()
