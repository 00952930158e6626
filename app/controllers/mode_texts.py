"""Each mode keeps its own text: writing a script no longer replaces the Clone text, and back in Clone
the preview shows Clone's text. The mode is saved the moment it changes (not only on a clean quit).

The current mode's text is kept by :class:`app.controllers.autosave.EditorAutosave` (``session.json``);
the other modes' texts and the mode are written to ``<data>/mode_texts.json`` (atomically) when the
mode changes.
"""

from __future__ import annotations

import json
import logging

from PySide6.QtCore import QObject

from cosycore.errors import StorageError
from cosycore.safety import UnsafeFileError, loads_strict_json, read_regular_file
from cosycore.voices import write_atomic

from ..session import StudioSession
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor

logger = logging.getLogger(__name__)

MODE_TEXTS_NAME = "mode_texts.json"
MAX_FILE_BYTES = 16 << 20


class ModeTexts(QObject):
    """Swaps the editor's text when the mode changes. Built by the main window before the mode is restored."""

    def __init__(self, session: StudioSession, *, editor: TextEditor, controls: SynthesisControls,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.editor = editor
        self.path = session.settings.paths.data / MODE_TEXTS_NAME
        # The editor's text (restored from session.json) belongs to the mode saved last.
        self.mode = session.settings.mode
        self.texts: dict[str, str] = self._read()
        controls.mode_changed.connect(self._on_mode_changed)

    def _read(self) -> dict[str, str]:
        try:
            raw = loads_strict_json(read_regular_file(self.path, MAX_FILE_BYTES).decode("utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, UnsafeFileError, RecursionError) as e:
            logger.warning("cannot read %s: %s (the other modes start empty)", self.path, e)
            return {}
        texts = raw.get("texts") if isinstance(raw, dict) else None
        if not isinstance(texts, dict):
            return {}
        return {str(k): v for k, v in texts.items() if isinstance(v, str)}

    def text_of(self, mode: str) -> str:
        return self.editor.text() if mode == self.mode else self.texts.get(mode, "")

    def _on_mode_changed(self, mode: str) -> None:
        if mode == self.mode:
            return
        self.texts[self.mode] = self.editor.text()
        self.mode = mode
        self.editor.set_text(self.texts.pop(mode, ""))
        settings = self.session.settings
        settings.mode = mode  # at once: after a crash the text comes back in its own mode
        settings.sync()
        self.save()

    def save(self) -> bool:
        data = {"version": 1, "mode": self.mode, "texts": self.texts}
        try:
            write_atomic(self.path, json.dumps(data, ensure_ascii=False).encode("utf-8"))
        except StorageError as e:
            logger.warning("cannot save the other modes' texts: %s", e)
            return False
        return True
