"""Work in the editor that is kept: the text, the instruction and a script's cast are saved as they are
typed (a moment after the last key) to ``<data>/session.json`` and put back at start, so quitting or a
crash loses at most the last half second of typing."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer

from cosycore.errors import StorageError
from cosycore.voices import write_atomic

from ..takes.script_take import CastEntry

if TYPE_CHECKING:
    from ..main_window import MainWindow

logger = logging.getLogger(__name__)

SESSION_NAME = "session.json"
SAVE_DELAY_MS = 500


class SessionController(QObject):
    """Saves and restores the editor's text and the instruction. Created by the main window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.path = window.settings.paths.data / SESSION_NAME
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save)
        self._failed = False

    def connect(self) -> None:
        self.restore()
        self.w.editor.text_changed.connect(self._timer.start)
        self.w.controls.instruct_edit.textChanged.connect(self._timer.start)
        self.w.cast_table.changed.connect(self._timer.start)

    def state(self) -> dict[str, Any]:
        return {"text": self.w.editor.text(), "instruction": self.w.controls.instruct_edit.text(),
                "cast": [e.to_json() for e in self.w.cast_table.entries()]}

    def save(self) -> bool:
        """Write the text and the instruction now. On failure the user is told once; typing goes on."""
        self._timer.stop()
        try:
            write_atomic(self.path, json.dumps(self.state(), ensure_ascii=False).encode("utf-8"))
        except StorageError as e:
            logger.warning("cannot save the session: %s", e)
            if not self._failed:
                self._failed = True
                self.w.show_error(self.tr("Cannot save the text"),
                                  self.tr("{0}\nThe text is still in the editor; copy it somewhere safe.").format(e))
            return False
        self._failed = False
        return True

    def restore(self) -> None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            logger.warning("cannot read %s: %s", self.path, e)
            return
        if not isinstance(raw, dict):
            return
        text, instruction = raw.get("text"), raw.get("instruction")
        if isinstance(text, str) and text:
            self.w.editor.set_text(text)
        if isinstance(instruction, str) and instruction:
            self.w.controls.instruct_edit.setText(instruction)
        cast = raw.get("cast")
        if isinstance(cast, list):
            entries = [e for e in (CastEntry.from_json(r) for r in cast) if e is not None]
            if entries:
                self.w.cast_table.set_entries(entries)

    def close(self) -> None:
        self.save()
