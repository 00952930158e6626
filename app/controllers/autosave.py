"""Work in the editor that is kept: the text, the instruction and a script's cast are saved as they are
typed (a moment after the last key) to ``<data>/session.json`` and put back at start, so quitting or a
crash loses at most the last half second of typing."""

from __future__ import annotations

import json
import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer

from cosycore.errors import StorageError
from cosycore.studio.script_take import CastEntry
from cosycore.voices import write_atomic

from ..session import StudioSession
from ..widgets.cast_table import CastTable
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor

logger = logging.getLogger(__name__)

SESSION_NAME = "session.json"
SAVE_DELAY_MS = 500


class EditorAutosave(QObject):
    """Saves and restores the editor's text, the instruction and the cast. Built by the main window from the
    session and those three widgets."""

    def __init__(self, session: StudioSession, *, editor: TextEditor, controls: SynthesisControls,
                 cast_table: CastTable, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.editor = editor
        self.controls = controls
        self.cast_table = cast_table
        self.path = session.settings.paths.data / SESSION_NAME
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save)
        self._failed = False

    def wire(self) -> None:
        self.restore()
        self.editor.text_changed.connect(self._timer.start)
        self.controls.instruct_edit.textChanged.connect(self._timer.start)
        self.cast_table.changed.connect(self._timer.start)

    def state(self) -> dict[str, Any]:
        return {"text": self.editor.text(), "instruction": self.controls.instruct_edit.text(),
                "cast": [e.to_json() for e in self.cast_table.entries()]}

    def save(self) -> bool:
        """Write the text and the instruction now. On failure the user is told once; typing goes on."""
        self._timer.stop()
        try:
            write_atomic(self.path, json.dumps(self.state(), ensure_ascii=False).encode("utf-8"))
        except StorageError as e:
            logger.warning("cannot save the session: %s", e)
            if not self._failed:
                self._failed = True
                self.session.show_error(
                    self.tr("Cannot save the text"),
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
            self.editor.set_text(text)
        if isinstance(instruction, str) and instruction:
            self.controls.instruct_edit.setText(instruction)
        cast = raw.get("cast")
        if isinstance(cast, list):
            entries = [e for e in (CastEntry.from_json(r) for r in cast) if e is not None]
            if entries:
                self.cast_table.set_entries(entries)

    def close(self) -> None:
        self.save()
