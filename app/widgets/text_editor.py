"""The text to speak: an editor with tag highlighting, a tag palette, a character count and a
preview of how the engine will split the text into sentences.

The preview runs the engine's own text path, :func:`cosycore.mode_plan.spoken_sentences` (text
normalisation, no model state), on a worker thread a moment after typing stops, because the first call
loads text-normalisation data and can take seconds. Results of an outdated text are dropped by a generation counter.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from cosycore.frontend.tags import PAIRED_TAGS, PROTECTED_TAGS
from cosycore.frontend.text_checks import DEFAULT_MAX_CHARS, japanese_note
from cosycore.frontend.tokenizer import PARALINGUISTIC_TOKENS

logger = logging.getLogger(__name__)

PREVIEW_DELAY_MS = 400
QUICK_TAGS = ("[breath]", "[laughter]", "<strong>", "[sigh]")  # get their own buttons; the rest are in a menu
_TAG_RE = re.compile("|".join(re.escape(t) for t in sorted(PROTECTED_TAGS, key=len, reverse=True)))
_SPAN_RE = re.compile("|".join(f"{re.escape(o)}(.*?){re.escape(c)}" for o, c in PAIRED_TAGS.items()), re.DOTALL)


_SENTENCE_END_RE = re.compile(r"[.!?。！？…]+[\"'”’)）」』]*(?=\s|$)|[。！？]+")


def typed_sentence_count(text: str) -> int:
    """Sentences as the user typed them: runs of text ended by . ! ? … (or their CJK forms), or by the end."""
    pieces = [p for p in _SENTENCE_END_RE.split(text) if any(c.isalnum() for c in p)]
    return len(pieces)


@dataclass(frozen=True)
class Span:
    """A stretch of one line (text block) to format, and what its tooltip says ("": none)."""

    start: int  # offset in the block's text
    length: int
    format: QTextCharFormat
    tooltip: str = ""


class SpanProvider(Protocol):
    """Anything that formats stretches of lines in the editor (script syntax and problems, dictionary
    terms, …). :class:`TagHighlighter` lays every provider's spans over the tags, in the order the
    providers were added; where spans overlap their formats are merged (a later one wins per property),
    so an underline from one provider and a colour from another both show."""

    def spans(self, block: int, text: str) -> Sequence[Span]:
        """The spans of line ``block`` (0-based), whose text is ``text``."""
        ...


def _apply_layered(highlighter: QSyntaxHighlighter, spans: Sequence[Span]) -> None:
    """Give every stretch of the block the merge of the formats of the spans that cover it."""
    edges = sorted({e for s in spans if s.length > 0 for e in (s.start, s.start + s.length)})
    for a, b in itertools.pairwise(edges):
        fmt = QTextCharFormat()
        for s in spans:
            if s.start <= a and b <= s.start + s.length:
                fmt.merge(s.format)
        if not fmt.isEmpty():
            highlighter.setFormat(a, b - a, fmt)


class TagHighlighter(QSyntaxHighlighter):
    """Colours every tag the models know and emphasises the text inside paired tags; then lays the
    spans of its :attr:`providers` over them."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.providers: list[SpanProvider] = []
        self.tag_format = QTextCharFormat()
        self.tag_format.setForeground(QColor("#9a4fd1"))
        self.tag_format.setBackground(QColor(154, 79, 209, 30))
        self.tag_format.setFontWeight(QFont.Weight.DemiBold)
        self.span_format = QTextCharFormat()
        self.span_format.setFontUnderline(True)
        self.span_format.setForeground(QColor("#1f6fb2"))

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt override)
        spans: list[Span] = []
        for m in _SPAN_RE.finditer(text):
            group = next(i for i in range(1, (m.lastindex or 0) + 1) if m.group(i) is not None)
            spans.append(Span(m.start(group), m.end(group) - m.start(group), self.span_format))
        for m in _TAG_RE.finditer(text):
            spans.append(Span(m.start(), m.end() - m.start(), self.tag_format))
        block = self.currentBlock().blockNumber()
        for provider in self.providers:
            spans.extend(provider.spans(block, text))
        _apply_layered(self, spans)


def find_tags(text: str) -> list[str]:
    """The known tags in ``text``, in order (what the highlighter colours)."""
    return _TAG_RE.findall(text)


class _PreviewRelay(QObject):
    """Carries preview results from the worker thread to the GUI thread (queued signal)."""

    done = Signal(int, object, str)  # generation, list of sentences, error message ("" if none)


class _PreviewWorker:
    """One thread for every preview: it splits only the newest request and drops the ones overtaken.

    It splits as the engine does, through the engine's own :func:`cosycore.mode_plan.spoken_sentences`:
    in the text reading the engine will use, for the loaded model's family and the chosen mode (Fun-CosyVoice3
    speaks a cross-lingual text as one segment in the original reading), bounded to the segment length the
    speech LM takes, with the loaded model's text tokenizer (which measures English sentences in tokens),
    or a word-count estimate before a model is loaded. Pure Python; no torch.
    """

    def __init__(self, relay: _PreviewRelay) -> None:
        self._relay = relay
        self._cond = threading.Condition()
        self._request: tuple[int, str] | None = None  # the newest (generation, text) not yet split
        self._model: tuple[str, str] | None = None  # (Qwen tokenizer folder, family)
        self._reading = "improved"  # "original" or "improved", as the engine will read the text
        self._mode = "zero_shot"  # the synthesis mode the text will be spoken in
        self._thread: threading.Thread | None = None
        self.splits = 0  # texts split so far (stale requests are never split)

    def set_model(self, qwen_dir: str, family: str) -> None:
        with self._cond:
            self._model = (qwen_dir, family)

    def set_reading(self, reading: str) -> None:
        with self._cond:
            self._reading = reading

    def set_mode(self, mode: str) -> None:
        with self._cond:
            self._mode = mode

    def submit(self, generation: int, text: str) -> None:
        with self._cond:
            self._request = (generation, text)  # an older request still waiting is dropped
            self._cond.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="sentence-preview", daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        tokenizers: dict[tuple[str, str], object] = {}
        while True:
            with self._cond:
                while self._request is None:
                    self._cond.wait()
                (generation, text), self._request = self._request, None
                model, reading, mode = self._model, self._reading, self._mode
            try:
                tokenizer = None
                if model is not None:
                    if model not in tokenizers:
                        from cosycore.frontend.tokenizer import get_text_tokenizer

                        tokenizers[model] = get_text_tokenizer(model[0], model[1])  # type: ignore[arg-type]
                    tokenizer = tokenizers[model]
                from cosycore.mode_plan import spoken_sentences  # imports torch: on this thread, not at startup

                family = model[1] if model is not None else "cosyvoice2"  # no model yet: no family's own rule
                sentences = list(spoken_sentences(text, reading=reading, family=family,  # type: ignore[arg-type]
                                                  mode=mode, tokenizer=tokenizer))  # type: ignore[arg-type]
                error = ""
            except Exception as e:  # a preview must never take the app down; show why it failed
                logger.exception("sentence preview failed")
                sentences, error = [], str(e)
            self.splits += 1
            with contextlib.suppress(RuntimeError):  # the editor was closed while this ran
                self._relay.done.emit(generation, sentences, error)


class TextEditor(QWidget):
    """Editor for the text to speak. Owned by the main window; GUI thread only."""

    text_changed = Signal()
    preview_updated = Signal(list)  # the sentences the engine will speak, one string each

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QPlainTextEdit(self)
        self.edit.setObjectName("textEdit")
        self.edit.setPlaceholderText(self.tr("Type or paste the text to speak…"))
        self.edit.setToolTip(self.tr("The text to speak. Tags such as [laughter] or <strong>…</strong> "
                                     "are spoken as sounds or emphasis."))
        self.edit.setTabChangesFocus(True)
        self.highlighter = TagHighlighter(self.edit.document())
        self.edit.viewport().installEventFilter(self)  # tooltips of the providers' spans

        palette_row = QHBoxLayout()
        palette_row.setContentsMargins(0, 0, 0, 0)
        palette_row.addWidget(QLabel(self.tr("Insert:"), self))
        self.tag_buttons: dict[str, QToolButton] = {}
        for tag in QUICK_TAGS:
            button = QToolButton(self)
            button.setText(f"{tag}…" if tag in PAIRED_TAGS else tag)  # short: the row fits a 1024-px window
            button.setToolTip(self._tag_tooltip(tag))
            button.clicked.connect(lambda _=False, t=tag: self.insert_tag(t))
            palette_row.addWidget(button)
            self.tag_buttons[tag] = button
        self.more_tags = QToolButton(self)
        self.more_tags.setText(self.tr("More tags") + " ▾")
        self.more_tags.setStyleSheet("QToolButton::menu-indicator { image: none; }")  # the ▾ says it instead
        self.more_tags.setToolTip(self.tr("Every sound and emphasis tag the models understand"))
        self.more_tags.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.more_tags)
        closers = set(PAIRED_TAGS.values())
        for tag in PARALINGUISTIC_TOKENS:
            if tag in closers:
                continue
            action = menu.addAction(f"{tag}…{PAIRED_TAGS[tag]}" if tag in PAIRED_TAGS else tag)
            action.setToolTip(self._tag_tooltip(tag))
            action.triggered.connect(lambda _=False, t=tag: self.insert_tag(t))
        self.more_tags.setMenu(menu)
        palette_row.addWidget(self.more_tags)
        palette_row.addStretch(1)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("charCount")
        self.count_label.setToolTip(self.tr("Characters in the text, and the sentences it will be spoken in"))

        self.note_label = QLabel(self)
        self.note_label.setObjectName("textNote")
        self.note_label.setWordWrap(True)
        self.note_label.setStyleSheet("color: #a05a00;")
        self.note_label.hide()

        self.preview = QListWidget(self)
        self.preview.setObjectName("sentencePreview")
        self.preview.setToolTip(self.tr("How the text will be split and read, after normalisation "
                                        "(numbers and dates are written out)"))
        self.preview.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.preview.setAlternatingRowColors(True)
        self.preview.setWordWrap(True)
        preview_box = QWidget(self)
        preview_layout = QVBoxLayout(preview_box)
        preview_layout.setContentsMargins(0, 0, 0, 0)
        self.preview_title = QLabel(self.tr("Sentence preview"), preview_box)
        title_row = QHBoxLayout()
        title_row.addWidget(self.preview_title)
        title_row.addStretch(1)
        title_row.addWidget(self.count_label)
        preview_layout.addLayout(title_row)
        preview_layout.addWidget(self.preview)

        self.preview_box = preview_box
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.edit)
        splitter.addWidget(preview_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(palette_row)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.note_label)

        self._sentences: list[str] = []
        self._refreshing = False  # refresh_spans() is re-formatting: the text itself did not change
        self._spoken: Callable[[str], str] | None = None  # what happens to the text before the engine reads it
        self._generation = 0
        self._relay = _PreviewRelay(self)
        self._relay.done.connect(self._on_preview_done)
        self._worker = _PreviewWorker(self._relay)
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self._start_preview)
        self.edit.textChanged.connect(self._on_edit_text_changed)
        self._update_count()

    # -- text ------------------------------------------------------------------------------
    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)

    def set_preview_visible(self, visible: bool) -> None:
        """Show or hide the sentence preview (Script mode hides it: a script is not split as one text)."""
        self.preview_box.setVisible(visible)

    # -- spans of other features (script mode, dictionary terms) ---------------------------
    def add_span_provider(self, provider: SpanProvider) -> None:
        """Lay ``provider``'s spans over the text from now on (see :class:`SpanProvider`)."""
        self.highlighter.providers.append(provider)
        self.refresh_spans()

    def refresh_spans(self) -> None:
        """Ask every provider again (call after what a provider shows has changed). Formats are no edit:
        :attr:`text_changed` is not emitted for them."""
        self._refreshing = True
        try:
            self.highlighter.rehighlight()
        finally:
            self._refreshing = False

    def tooltips_at(self, block: int, column: int) -> list[str]:
        """The tooltips of the providers' spans over character ``column`` of line ``block`` (0-based)."""
        text = self.edit.document().findBlockByNumber(block).text()
        return [s.tooltip for p in self.highlighter.providers for s in p.spans(block, text)
                if s.tooltip and s.start <= column < s.start + max(1, s.length)]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.edit.viewport() and event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            cursor = self.edit.cursorForPosition(event.pos())
            column = cursor.positionInBlock()
            if self.edit.cursorRect(cursor).center().x() > event.pos().x():
                column -= 1  # the caret is right of the pointer: the character under it is the one before
            tips = self.tooltips_at(cursor.blockNumber(), max(0, column)) if column >= 0 else []
            if tips:
                QToolTip.showText(event.globalPos(), "\n".join(dict.fromkeys(tips)), self.edit.viewport())
                return True
        return super().eventFilter(watched, event)

    @property
    def sentences(self) -> list[str]:
        """The last finished sentence preview."""
        return list(self._sentences)

    def _tag_tooltip(self, tag: str) -> str:
        if tag in PAIRED_TAGS:
            return self.tr("Wrap the selection in {0}…{1}").format(tag, PAIRED_TAGS[tag])
        return self.tr("Insert {0} at the cursor").format(tag)

    def insert_tag(self, tag: str) -> None:
        """Insert ``tag`` at the cursor; paired tags wrap the selection (or an empty span to type into)."""
        cursor = self.edit.textCursor()
        if tag in PAIRED_TAGS:
            selected = cursor.selectedText()
            cursor.insertText(f"{tag}{selected}{PAIRED_TAGS[tag]}")
            if not selected:
                cursor.movePosition(QTextCursor.MoveOperation.Left, n=len(PAIRED_TAGS[tag]))
        else:
            cursor.insertText(tag)
        self.edit.setTextCursor(cursor)
        self.edit.setFocus()

    # -- count and preview -------------------------------------------------------------------
    def _update_count(self) -> None:
        n = len(self.text())
        parts = [self.tr("%n character(s)", "", n)]
        typed = typed_sentence_count(self.text())
        if typed:
            parts.append(self.tr("%n sentence(s)", "", typed))
        if self._sentences and len(self._sentences) != typed:
            # The engine joins short sentences (and splits long ones) into the pieces it speaks at once.
            parts.append(self.tr("spoken in %n part(s)", "", len(self._sentences)))
        self.count_label.setText(" · ".join(parts))
        too_long = n > DEFAULT_MAX_CHARS
        self.count_label.setStyleSheet("color: #c0392b;" if too_long else "")

    def _on_edit_text_changed(self) -> None:
        if self._refreshing:
            return
        self._update_count()
        text = self.text()
        note = japanese_note(text)
        self.note_label.setText(note or "")
        self.note_label.setVisible(bool(note))
        self._preview_timer.start()
        self.text_changed.emit()

    def refresh_preview_now(self) -> None:
        """Start the preview without waiting for typing to pause."""
        self._preview_timer.stop()
        self._start_preview()

    def set_model(self, qwen_dir: str, family: str) -> None:
        """Split the preview with this model's text tokenizer from now on (exactly as the engine will)."""
        self._worker.set_model(str(qwen_dir), family)
        if self.text().strip():
            self.refresh_preview_now()

    @property
    def text_reading(self) -> str:
        return self._worker._reading

    def set_text_reading(self, reading: str) -> None:
        """Preview the text as ``reading`` ("original" or "improved") reads it."""
        if reading not in ("original", "improved"):
            raise ValueError(f"text reading must be 'original' or 'improved', got {reading!r}")
        if reading != self._worker._reading:
            self._worker.set_reading(reading)
            self._preview_timer.start()

    @property
    def mode(self) -> str:
        return self._worker._mode

    def set_mode(self, mode: str) -> None:
        """Preview the text as a request in ``mode`` speaks it (Fun-CosyVoice3's cross-lingual text is one
        segment in the original reading)."""
        if mode != self._worker._mode:
            self._worker.set_mode(mode)
            if self.text().strip():
                self._preview_timer.start()

    def set_spoken_text(self, spoken: Callable[[str], str] | None) -> None:
        """Preview ``spoken(text)`` instead of the text as typed: what the engine is given (the active
        pronunciation dictionaries replace their terms before the engine reads the text). None: as typed."""
        self._spoken = spoken
        if self.text().strip():
            self._preview_timer.start()

    def _start_preview(self) -> None:
        self._generation += 1
        text = self.text()
        self._worker.submit(self._generation, self._spoken(text) if self._spoken is not None else text)

    def _on_preview_done(self, generation: int, sentences: list[str], error: str) -> None:
        if generation != self._generation:
            return
        self._sentences = sentences
        self.preview.clear()
        for i, sentence in enumerate(sentences, 1):
            self.preview.addItem(f"{i}. {sentence}")
        if error:
            self.preview.addItem(self.tr("Cannot preview: {0}").format(error))
        self._update_count()
        self.preview_updated.emit(sentences)
