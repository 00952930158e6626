"""The app's takes, oldest first, and a rough length of speech for sizing the view.

A take (:class:`cosycore.studio.take.Take`) is saved as it is made by :class:`app.takes.store.TakeStore`
(the session connects the list's signals to it), so the list outlives the session.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from cosycore.studio.take import SentenceSpan, Take, TakeState, take_file_stem

# The take itself lives with its format in cosycore.studio; the app's code imports it from there, and
# these names stay importable from here for the app's tests and tools.
__all__ = ["SentenceSpan", "Take", "TakeList", "TakeState", "expected_seconds", "take_file_stem"]

if TYPE_CHECKING:
    from cosycore.request import AudioChunk

_CJK_RE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
CJK_CHARS_PER_SECOND = 4.5  # rough speaking rates, only for sizing the view and the pre-roll
OTHER_CHARS_PER_SECOND = 15.0


def expected_seconds(text: str, speed: float = 1.0) -> float:
    """A rough length of the speech for ``text`` (for the waveform's range and the pre-roll)."""
    cjk = len(_CJK_RE.findall(text))
    other = len(text) - cjk
    return (cjk / CJK_CHARS_PER_SECOND + other / OTHER_CHARS_PER_SECOND) / max(0.1, speed)


class TakeList(QObject):
    """The takes, oldest first. Owned by the studio session (:class:`app.session.StudioSession`).

    Numbers follow on from the highest number in the list, so a take that ends without audio (and is
    removed again) leaves no gap.
    """

    take_added = Signal(object)  # Take
    take_changed = Signal(object)  # Take (state, partial flag, name)
    take_removed = Signal(object)  # Take
    chunk_added = Signal(object, object)  # Take, float32 samples: the new audio at the take's end

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._takes: list[Take] = []

    def __len__(self) -> int:
        return len(self._takes)

    def __iter__(self):
        return iter(list(self._takes))

    def __getitem__(self, i: int) -> Take:
        return self._takes[i]

    def add(self, take: Take) -> None:
        """Add a new take at the end, numbered after the others."""
        take.number = max((t.number for t in self._takes), default=0) + 1
        self._takes.append(take)
        self.take_added.emit(take)

    def insert(self, take: Take) -> None:
        """Put back a take that keeps its number (restored at start, or a removal undone), in number order."""
        row = next((i for i, t in enumerate(self._takes) if t.number > take.number), len(self._takes))
        self._takes.insert(row, take)
        self.take_added.emit(take)

    def index(self, take: Take) -> int:
        return self._takes.index(take)

    def add_chunk(self, take: Take, chunk: AudioChunk) -> None:
        take.add_chunk(chunk)
        self.chunk_added.emit(take, chunk.samples)
        self.take_changed.emit(take)

    def changed(self, take: Take) -> None:
        self.take_changed.emit(take)

    def rename(self, take: Take, name: str) -> None:
        take.name = " ".join(name.split())
        self.take_changed.emit(take)

    def remove(self, take: Take) -> None:
        self._takes.remove(take)
        self.take_removed.emit(take)

    def by_request(self, request_id: int) -> Take | None:
        return next((t for t in reversed(self._takes) if t.request_id == request_id), None)
