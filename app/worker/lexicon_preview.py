"""How a text will be spoken with a pronunciation dictionary: what ``cosycore text --lexicon`` prints,
computed for the dictionary editor's *Test* field on a worker thread.

:func:`spoken_preview` follows ``cosycore text`` step by step (:func:`cosycore.studio.cli.run_text`): the
dictionary is checked against the model family, its matches are listed, it replaces its terms, and the
engine's own :func:`cosycore.engine.spoken_sentences` normalises and splits the result with the loaded
model's text tokenizer. ``tests/gui/test_gui_lexicon.py`` compares the two outputs.

:class:`SpokenPreviewWorker` runs it on one thread that only ever works on the newest request: the
first call imports the engine module and loads the tokenizer, which takes seconds, and typing must not
wait for it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from cosycore.errors import CosyError, InputError
from cosycore.studio.lexicon import Lexicon

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PreviewSetup:
    """What the text is read with: the loaded model's family and tokenizer, the text reading, the mode."""

    family: str | None  # "cosyvoice2" or "cosyvoice3"; None: no model loaded
    qwen_dir: str | None = None  # the model's text tokenizer folder; None: English lengths are estimated
    reading: str = "improved"  # "original" or "improved" (cosycore.frontend.text_reading)
    mode: str = "zero_shot"  # the request's mode (Fun-CosyVoice3's original reading depends on it)


@dataclass(frozen=True)
class SpokenPreview:
    """The result: what the dictionary replaced and the segments the engine will speak."""

    matches: tuple[tuple[str, str], ...] = ()  # (the text matched, its replacement), in order
    sentences: tuple[str, ...] = ()  # one LM request each, as `cosycore text` prints them
    error: str = ""  # why the text cannot be spoken ("" when it can)


def spoken_preview(text: str, lexicon: Lexicon | None, setup: PreviewSetup, tokenizer: object | None = None
                   ) -> SpokenPreview:
    """``text`` as the engine will speak it with ``lexicon`` (the steps of ``cosycore text --lexicon``).

    Raises :class:`~cosycore.errors.CosyError` for what ``cosycore text`` refuses (an entry the family
    cannot take, a text without anything to speak).
    """
    from cosycore.frontend.text_checks import check_spoken_text
    from cosycore.mode_plan import spoken_sentences

    matches: tuple[tuple[str, str], ...] = ()
    if lexicon is not None:
        if setup.family is None:
            raise InputError("a dictionary's tokens depend on the model: load a model first.")
        lexicon.check(setup.family)
        matches = tuple((text[start:end], entry.replacement) for start, end, entry in lexicon.matches(text))
        text = lexicon.apply(text)
    check_spoken_text(text)
    sentences = spoken_sentences(text, reading=setup.reading, family=setup.family,  # type: ignore[arg-type]
                                 mode=setup.mode, tokenizer=tokenizer)  # type: ignore[arg-type]
    return SpokenPreview(matches, tuple(sentences))


class _Relay(QObject):
    """Carries results from the worker thread to the GUI thread (a queued signal)."""

    done = Signal(int, object)  # generation, SpokenPreview


class SpokenPreviewWorker(QObject):
    """One thread for every *Test* of a dictionary editor: it computes only the newest request.

    Owned by the dialog, which calls :meth:`close` when it closes. :attr:`preview_ready` is emitted on
    the GUI thread with the request's generation, so the caller can drop overtaken results.
    """

    preview_ready = Signal(int, object)  # generation, SpokenPreview

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay = _Relay(self)
        self._relay.done.connect(self.preview_ready)
        self._cond = threading.Condition()
        self._request: tuple[int, str, Lexicon | None, PreviewSetup] | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self.runs = 0  # requests computed so far (overtaken ones are never computed)

    def submit(self, generation: int, text: str, lexicon: Lexicon | None, setup: PreviewSetup) -> None:
        with self._cond:
            if self._closed:
                return
            self._request = (generation, text, lexicon, setup)  # an older request still waiting is dropped
            self._cond.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="lexicon-test", daemon=True)
                self._thread.start()

    def close(self) -> None:
        """End the thread after the request it is working on (if any)."""
        with self._cond:
            self._closed = True
            self._request = None
            self._cond.notify()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._request is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                assert self._request is not None
                (generation, text, lexicon, setup), self._request = self._request, None
            try:
                tokenizer = None
                if setup.qwen_dir and setup.family:
                    from cosycore.frontend.tokenizer import get_text_tokenizer  # cached per folder

                    tokenizer = get_text_tokenizer(setup.qwen_dir, setup.family)  # type: ignore[arg-type]
                result = spoken_preview(text, lexicon, setup, tokenizer)
            except CosyError as e:  # what `cosycore text` would refuse: said in the dialog
                result = SpokenPreview(error=str(e))
            except Exception as e:  # a preview must never take the app down; show why it failed
                logger.exception("dictionary test failed")
                result = SpokenPreview(error=f"{type(e).__name__}: {e}")
            self.runs += 1
            with contextlib.suppress(RuntimeError):  # the dialog was closed while this ran
                self._relay.done.emit(generation, result)
