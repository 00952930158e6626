"""A warning shown without blocking the event loop: one box at a time per window, the last message kept.

:class:`WarningBox` serves the main window (errors while the engine keeps reporting) and the dictionary
editor (messages while its Test preview keeps running); tests read :attr:`WarningBox.last`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


class WarningBox:
    """Shows warnings over ``parent``, each replacing the one still open; owned by that window."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent
        self._box: QMessageBox | None = None
        self.last: tuple[str, str] | None = None  # (title, text) of the last warning shown

    def show(self, title: str, text: str) -> None:
        self.last = (title, text)
        if self._box is not None:
            self._box.close()
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self._parent)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self._box = box
        box.destroyed.connect(self._on_box_destroyed)

    def _on_box_destroyed(self) -> None:
        self._box = None
