"""The trash of removed takes: every take the user removed stays here until they empty it.

Restore puts the selected takes back into the Takes list; Empty trash deletes them after asking. The
dialog only shows and asks; :class:`app.controllers.trash.TrashController` does the work.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.studio.take import Take


class TrashDialog(QDialog):
    """Lists the removed takes; asks for restores and for emptying. Built by the trash controller."""

    restore_requested = Signal(list)  # Takes to put back
    empty_requested = Signal()  # the user confirmed: delete every take in the trash

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trashDialog")
        self.setWindowTitle(self.tr("Trash"))
        self.resize(460, 360)
        self.info = QLabel(self.tr("Removed takes stay here until you empty the trash."), self)
        self.info.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.list.itemActivated.connect(lambda _item: self._on_restore_clicked())
        self.restore_button = QPushButton(self.tr("&Restore"), self)
        self.restore_button.setToolTip(self.tr("Put the selected takes back into the Takes list (Enter)"))
        self.restore_button.clicked.connect(self._on_restore_clicked)
        self.empty_button = QPushButton(self.tr("&Empty trash…"), self)
        self.empty_button.setToolTip(self.tr("Delete every take in the trash for good (asks first)"))
        self.empty_button.clicked.connect(self.confirm_empty)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.empty_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.info)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.confirm: QMessageBox | None = None  # the open "Empty trash?" question
        self._update_buttons()

    def set_takes(self, takes: list[Take], problems: list[str] | None = None) -> None:
        self.list.clear()
        for take in takes:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(take.created)) if take.created else ""
            item = QListWidgetItem(self.tr("Take {0} · {1}\n{2:.1f} s · {3}").format(
                take.number, take.title(), take.duration, when))
            item.setData(Qt.ItemDataRole.UserRole, take)
            item.setToolTip(take.text)
            self.list.addItem(item)
        if problems:
            self.info.setText(self.tr("Removed takes stay here until you empty the trash. These folders could "
                                      "not be read and are left as they are:\n{0}").format("\n".join(problems)))
        if takes:
            self.list.setCurrentRow(0)
        self._update_buttons()

    def selected(self) -> list[Take]:
        return [i.data(Qt.ItemDataRole.UserRole) for i in sorted(self.list.selectedItems(), key=self.list.row)]

    def _update_buttons(self) -> None:
        self.restore_button.setEnabled(bool(self.list.selectedItems()))
        self.empty_button.setEnabled(self.list.count() > 0)

    def _on_restore_clicked(self) -> None:
        chosen = self.selected()
        if chosen:
            self.restore_requested.emit(chosen)

    def confirm_empty(self) -> None:
        """Ask before deleting (a window-modal question; Yes empties the trash)."""
        n = self.list.count()
        if n == 0:
            return
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Empty trash"),
                          self.tr("Delete the {0} takes in the trash for good? This cannot be undone.").format(n),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("confirmEmptyTrash")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Delete"))
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(lambda result: self._on_confirm_finished(box, result))
        self.confirm = box
        box.open()

    def _on_confirm_finished(self, box: QMessageBox, _result: int) -> None:
        self.confirm = None
        if box.clickedButton() is box.button(QMessageBox.StandardButton.Yes):
            self.empty_requested.emit()
        box.deleteLater()
