"""Pronunciation-dictionary terms in the text editor: a dotted underline in their own colour, and a tooltip
saying what is said instead and which dictionary says so.

:class:`LexiconSpans` is a :class:`~app.widgets.text_editor.SpanProvider`. It is given the active
dictionaries in the order they apply (the app's, then the voice's, then a script's; see
:func:`cosycore.studio.lexicon.combine`) and marks exactly the matches the engine will replace: the
combined dictionary's :meth:`~cosycore.studio.lexicon.Lexicon.matches`, longest term first, one pass.
Owned by :class:`app.controllers.lexicon.LexiconController`; GUI thread only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QTextCharFormat

from cosycore.studio.lexicon import Lexicon, LexiconEntry, combine

from .text_editor import Span

TERM_COLOR = "#b35900"  # apart from the tags' purple, the paired tags' blue and the problems' red


class LexiconSpans:
    """The active dictionaries' terms as editor spans (see the module docstring)."""

    def __init__(self) -> None:
        self._lexicon: Lexicon | None = None  # the layers combined: what a take applies
        self._source: dict[LexiconEntry, str] = {}  # entry -> the label of the dictionary it comes from
        self.format = QTextCharFormat()
        self.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
        self.format.setUnderlineColor(QColor(TERM_COLOR))
        self.format.setForeground(QColor(TERM_COLOR))

    @property
    def lexicon(self) -> Lexicon | None:
        """The combined dictionary (None when no dictionary is active)."""
        return self._lexicon

    def set_layers(self, layers: Sequence[tuple[str, Lexicon | None]]) -> None:
        """The active dictionaries as ``(label, dictionary)``, in the order they apply (later wins).

        The label names the dictionary in the tooltip ("app", "voice Anna"). The caller refreshes the
        editor's formats afterwards (:meth:`app.widgets.text_editor.TextEditor.refresh_spans`).
        """
        self._source = {}
        for label, lexicon in layers:
            for entry in lexicon or ():
                self._source.pop(entry, None)  # re-inserted: the later dictionary names it
                self._source[entry] = label
        self._lexicon = combine(*(lexicon for _, lexicon in layers))

    def source(self, entry: LexiconEntry) -> str:
        """The label of the dictionary ``entry`` comes from."""
        return self._source.get(entry, "")

    def tooltip(self, entry: LexiconEntry) -> str:
        return QCoreApplication.translate("LexiconSpans", "{0} → {1} (dictionary: {2})").format(
            entry.term, entry.replacement, self.source(entry))

    def spans(self, block: int, text: str) -> list[Span]:
        """The terms in one line of the editor (a term never spans two lines)."""
        if self._lexicon is None or not text:
            return []
        if not unicodedata.is_normalized("NFC", text):
            # The dictionary matches the NFC form (as the engine does); its offsets would not fit the
            # line as typed (decomposed accents). Rare: pasted from some macOS programs.
            return []
        return [Span(start, end - start, self.format, self.tooltip(entry))
                for start, end, entry in self._lexicon.matches(text)]
