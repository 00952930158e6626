"""Script mode in the text editor: the syntax of a dialogue script coloured, every problem underlined.

:class:`ScriptSpans` is a :class:`~app.widgets.text_editor.SpanProvider`: while it is enabled it
colours each speaker's name (one colour per speaker, the same as their marks on the waveform),
instructions ``(…)``, ``[pause …]`` and ``[lexicon …]`` lines and ``#`` comments, and puts a red wavy
underline, with the message as its tooltip, under every :class:`~cosycore.studio.script.ScriptProblem`
it was given. The problems come from :class:`app.controllers.script.ScriptController`, which parses the
script and plans it against the cast; this module only draws.

The patterns here only colour; what is valid is decided by :mod:`cosycore.studio.script`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from PySide6.QtGui import QColor, QFont, QTextCharFormat

from cosycore.studio.script import ScriptProblem, speaker_key

from .text_editor import Span

# Colours that stay apart from each other on a light background (and from the red of the underlines).
SPEAKER_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#393b79")
PROBLEM_COLOR = "#d62728"

_COMMENT_RE = re.compile(r"^\s*#")
_DIRECTIVE_RE = re.compile(r"^\s*\[\s*(?:pause|lexicon)\b[^\]]*\]\s*$", re.IGNORECASE)
_SPEAKER_RE = re.compile(
    r"^\s*(?P<name>[^:：()（）\[\]#\s][^:：()（）\[\]]*?)\s*(?P<instr>[(（][^()（）]*[)）])?\s*[:：]")


def speaker_color(index: int) -> QColor:
    """The colour of the ``index``-th speaker (in order of first appearance)."""
    return QColor(SPEAKER_COLORS[index % len(SPEAKER_COLORS)])


class ScriptSpans:
    """Formats of a script in the editor. Owned by the script controller; GUI thread only."""

    def __init__(self) -> None:
        self.enabled = False  # Script mode is on
        self._problems: dict[int, list[ScriptProblem]] = {}  # line number (1-based) -> its problems
        self._colors: dict[str, QColor] = {}  # speaker key -> colour
        self.comment_format = QTextCharFormat()
        self.comment_format.setForeground(QColor("#808080"))
        self.comment_format.setFontItalic(True)
        self.directive_format = QTextCharFormat()
        self.directive_format.setForeground(QColor("#00838f"))
        self.directive_format.setFontWeight(QFont.Weight.DemiBold)
        self.instruction_format = QTextCharFormat()
        self.instruction_format.setForeground(QColor("#6a5acd"))
        self.instruction_format.setFontItalic(True)
        self.problem_format = QTextCharFormat()
        self.problem_format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        self.problem_format.setUnderlineColor(QColor(PROBLEM_COLOR))

    # -- what to show --------------------------------------------------------------------------
    def set_problems(self, problems: Iterable[ScriptProblem]) -> None:
        self._problems = {}
        for p in problems:
            self._problems.setdefault(p.line, []).append(p)

    def problems(self) -> list[ScriptProblem]:
        return [p for line in sorted(self._problems) for p in self._problems[line]]

    def set_speakers(self, names: Sequence[str]) -> None:
        """The speakers in order of first appearance; each gets the colour of its position."""
        self._colors = {speaker_key(n): speaker_color(i) for i, n in enumerate(names)}

    def color_of(self, name: str) -> QColor:
        return self._colors.get(speaker_key(name), QColor(SPEAKER_COLORS[-1]))

    def speaker_format(self, name: str) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setForeground(self.color_of(name))
        fmt.setFontWeight(QFont.Weight.Bold)
        return fmt

    # -- SpanProvider --------------------------------------------------------------------------
    def spans(self, block: int, text: str) -> list[Span]:
        if not self.enabled:
            return []
        spans = self._syntax(text)
        indent = len(text) - len(text.lstrip())
        for p in self._problems.get(block + 1, ()):
            start = min(len(text), indent + max(0, p.column - 1))
            length = p.length if p.length > 0 else len(text) - start
            if length <= 0 or start >= len(text):  # e.g. "says nothing" at the very end: mark the last character
                start, length = max(0, len(text) - 1), 1
            spans.append(Span(start, length, self.problem_format, p.message))
        return spans

    def _syntax(self, text: str) -> list[Span]:
        if _COMMENT_RE.match(text):
            return [Span(0, len(text), self.comment_format)]
        if _DIRECTIVE_RE.match(text):
            return [Span(0, len(text), self.directive_format)]
        m = _SPEAKER_RE.match(text)
        if m is None:
            return []
        spans = [Span(m.start("name"), m.end("name") - m.start("name"), self.speaker_format(m.group("name")))]
        if m.group("instr"):
            spans.append(Span(m.start("instr"), m.end("instr") - m.start("instr"), self.instruction_format))
        return spans
