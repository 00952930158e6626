"""Files dropped on the window: an audio clip offers "Make a voice"; a text file opens in the editor; a take
folder (``NAME.wav.take``, saved by ``cosycore synth --script``) is added to the takes as a copy.

The text editor would otherwise insert a dropped file's ``file://`` link into the text, so its viewport
is watched too and a dropped file never becomes text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox, QWidget

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3", ".aiff", ".aif")
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
TAKE_SUFFIX = ".take"


def dropped_file(event: QDropEvent) -> Path | None:
    """The one local file of a drag (audio, text or a take folder by its name), or None."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return None
    files = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
    if len(files) != 1 or files[0].suffix.lower() not in (*AUDIO_SUFFIXES, *TEXT_SUFFIXES, TAKE_SUFFIX):
        return None
    return files[0]


class DropController(QObject):
    """Watches the window and the given widgets for dropped files. Built by the main window."""

    def __init__(self, window: QWidget, watched: list[QWidget], *, make_voice: Callable[[Path], bool],
                 open_text: Callable[[Path], bool], open_take: Callable[[Path], object]) -> None:
        super().__init__(window)
        self.window = window
        self.make_voice = make_voice
        self.open_text = open_text
        self.open_take = open_take
        self.offer: QMessageBox | None = None  # the open "Make a voice?" question
        window.setAcceptDrops(True)
        for widget in (window, *watched):
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(event, QDropEvent):
            if dropped_file(event) is not None:
                event.setDropAction(Qt.DropAction.CopyAction)
                event.accept()
                return True
        elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            path = dropped_file(event)
            if path is not None:
                event.setDropAction(Qt.DropAction.CopyAction)
                event.accept()
                self.handle(path)
                return True
        return super().eventFilter(watched, event)

    def handle(self, path: Path) -> None:
        if path.suffix.lower() in TEXT_SUFFIXES:
            self.open_text(path)
            return
        if path.suffix.lower() == TAKE_SUFFIX:
            self.open_take(path)
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Make a voice?"),
                          self.tr("Make a voice from {0}? The recorder opens with the clip, to trim and "
                                  "name it.").format(path.name),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self.window)
        box.setObjectName("makeVoiceOffer")
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Make a voice"))
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(lambda _result: self._on_offer_finished(box, path))
        self.offer = box
        box.open()

    def _on_offer_finished(self, box: QMessageBox, path: Path) -> None:
        self.offer = None
        if box.clickedButton() is box.button(QMessageBox.StandardButton.Yes):
            self.make_voice(path)
        box.deleteLater()
