"""Pronunciation dictionaries in the app: the app-wide one (a CSV file shared with the command line), each
voice's own (in its ``.cosyvoice`` file), what a take applies, and the terms underlined in the editor.

A take applies the dictionaries as ``cosycore synth`` does (:func:`cosycore.studio.cli.command_lexicon`):
the app's, then the voice's, later winning for the same term, checked against the loaded family
(:meth:`for_take`). A dialogue script adds its ``[lexicon FILE]`` dictionaries over these in
:class:`cosycore.studio.render.ScriptRender`, which is handed :meth:`app_lexicon`.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from cosycore.config import load_model_config
from cosycore.errors import CosyError, StorageError
from cosycore.studio.lexicon import (
    Lexicon,
    LexiconError,
    combine,
    load_csv,
    save_csv,
    voice_lexicon,
    with_voice_lexicon,
)
from cosycore.voices import Voice

from ..session import StudioSession
from ..widgets.lexicon_dialog import LexiconDialog
from ..widgets.lexicon_highlight import LexiconSpans
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor
from ..widgets.voice_panel import VoicePanel
from ..worker.lexicon_preview import PreviewSetup

logger = logging.getLogger(__name__)

SPEAK_MODES = ("zero_shot", "cross_lingual", "instruct")
APP_LEXICON_NAME = "the app dictionary"  # in cosycore's (English) messages, as a voice's is "the voice 'NAME'"


class LexiconController(QObject):
    """Owns the app-wide dictionary as loaded, the editor's dictionary spans and the dictionary dialogs.
    Built by the main window from the session, the editor, the voice panel and the mode buttons; GUI
    thread only."""

    def __init__(self, session: StudioSession, *, editor: TextEditor, voice_panel: VoicePanel,
                 controls: SynthesisControls, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.editor = editor
        self.voice_panel = voice_panel
        self.controls = controls
        self.parent_widget = parent  # the dialogs open over it
        self.path = session.settings.paths.lexicon
        self.spans = LexiconSpans()
        self.dialog: LexiconDialog | None = None  # the dictionary editor while it is open
        self._app: Lexicon | None = None
        self._app_problem = ""  # why the app dictionary file cannot be read ("" when it can)
        self._app_stamp: tuple[int, int] | None = None  # (mtime_ns, size) of the file when it was read
        self._reload_app()

    def wire(self) -> None:
        self.editor.add_span_provider(self.spans)
        self.session.voice_changed.connect(lambda _voice: self.refresh())
        self.voice_panel.lexicon_requested.connect(self.edit_voice_lexicon)
        self.session.model_changed.connect(lambda info: self.refresh() if info is not None else None)
        self.refresh()

    # -- the app-wide dictionary ---------------------------------------------------------------
    def _reload_app(self) -> None:
        """Read the app dictionary again if the file changed (e.g. written by another program)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._app, self._app_problem, self._app_stamp = None, "", None
            return
        except OSError as e:
            self._app, self._app_problem, self._app_stamp = None, f"{self.path}: {e.strerror or e}", None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._app_stamp:
            return
        self._app_stamp = stamp
        try:
            lexicon = load_csv(self.path)
        except CosyError as e:
            logger.warning("the app dictionary cannot be read: %s", e)
            self._app, self._app_problem = None, str(e)
            return
        self._app, self._app_problem = Lexicon(lexicon.entries, name=APP_LEXICON_NAME), ""

    def app_lexicon(self) -> Lexicon | None:
        """The app-wide dictionary as it is on disk now (None: there is none). Raises :class:`LexiconError`
        when its file cannot be read: takes refuse then, as the command line does, rather than speak
        without it."""
        self._reload_app()
        if self._app_problem:
            raise LexiconError(self.tr("The app dictionary {0} cannot be read: {1} Fix the file, or open "
                                       "Tools › Pronunciation dictionary… to start a new one (the file is "
                                       "kept).").format(self.path, self._app_problem))
        return self._app

    def for_take(self, voice: Voice | None) -> Lexicon | None:
        """What a take with ``voice`` applies: the app's dictionary, then the voice's; checked against the
        loaded family. Raises :class:`LexiconError` with the reason when it cannot be used."""
        layers = (self.app_lexicon(), voice_lexicon(voice) if voice is not None else None)
        info = self.session.model_info
        if info is not None:
            for lexicon in layers:  # one by one, so that the message names the dictionary
                if lexicon is not None:
                    lexicon.check(info.family)
        return combine(*layers)

    def _voice_layer(self) -> tuple[str, Lexicon | None]:
        voice = self.session.voice
        if voice is None:
            return ("", None)
        try:
            return (self.tr("voice {0}").format(voice.name), voice_lexicon(voice))
        except LexiconError as e:
            logger.warning("%s", e)
            return ("", None)

    def refresh(self) -> None:
        """Show the active dictionaries' terms in the editor and preview the text with them."""
        self._reload_app()
        layers = [(self.tr("app"), self._app), self._voice_layer()]
        self.spans.set_layers(layers)
        self.editor.refresh_spans()
        combined = self.spans.lexicon
        self.editor.set_spoken_text(combined.apply if combined is not None else None)

    # -- editing ---------------------------------------------------------------------------------
    def _setup(self) -> PreviewSetup:
        """The loaded model (family, tokenizer, text reading, mode) for the editor's checks and Test."""
        info = self.session.model_info
        mode = self.controls.mode if self.controls.mode in SPEAK_MODES else "zero_shot"  # a script's lines: per line
        if info is None:
            return PreviewSetup(None, reading=self.editor.text_reading, mode=mode)
        qwen: str | None = None
        try:
            qwen = str(load_model_config(info.model_dir).qwen_dir)
        except CosyError as e:
            logger.warning("the dictionary test estimates English lengths: %s", e)
        return PreviewSetup(info.family, qwen, self.editor.text_reading, mode)

    def _open(self, dialog: LexiconDialog) -> LexiconDialog:
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = dialog
        dialog.finished.connect(lambda _result: self._on_dialog_finished(dialog))
        dialog.open()
        return dialog

    def _on_dialog_finished(self, dialog: LexiconDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def edit_app_lexicon(self) -> LexiconDialog:
        """Open the editor on the app-wide dictionary (Tools › Pronunciation dictionary…)."""
        self._reload_app()
        note = ""
        if self._app_problem:
            note = self.tr("{0} cannot be read: {1}\nSaving keeps that file under another name and writes a new "
                           "one.").format(self.path.name, self._app_problem)
        voice = self._voice_layer()[1]
        dialog = LexiconDialog(self.tr("Pronunciation dictionary: app"), self._app, save=self.save_app_lexicon,
                               setup=self._setup(), layers=lambda edited: combine(edited, voice),
                               name=APP_LEXICON_NAME, note=note, parent=self.parent_widget)
        return self._open(dialog)

    def edit_voice_lexicon(self) -> LexiconDialog | None:
        """Open the editor on the current voice's own dictionary (Voices › Dictionary…)."""
        voice = self.session.voice
        if voice is None:
            return None
        note = ""
        try:
            voice_lexicon(voice)
        except LexiconError as e:  # an entry that is no longer valid: shown flagged, for the user to fix
            note = str(e)
        app = None
        try:
            app = self.app_lexicon()
        except LexiconError as e:
            note = (note + "\n" + str(e)).strip()
        name = voice.name
        dialog = LexiconDialog(self.tr("Pronunciation dictionary: voice {0}").format(name), voice.lexicon,
                               save=lambda lexicon: self.save_voice_lexicon(name, lexicon), setup=self._setup(),
                               layers=lambda edited: combine(app, edited),
                               name=f"the voice {name!r}", note=note, parent=self.parent_widget)
        return self._open(dialog)

    def save_app_lexicon(self, lexicon: Lexicon) -> None:
        """Write the app dictionary atomically; an unreadable file there is kept under another name first."""
        if self._app_problem and self.path.exists():
            aside = _free_name(self.path)
            try:
                os.replace(self.path, aside)
            except OSError as e:
                raise StorageError(f"could not keep the unreadable {self.path.name} as {aside.name}: "
                                   f"{e.strerror or e}. Nothing was changed.") from e
            logger.info("kept the unreadable app dictionary as %s", aside)
            self.session.show_status(self.tr("The unreadable dictionary was kept as {0}.").format(aside), 10000)
        save_csv(self.path, lexicon)
        self._app_stamp = None
        self.refresh()
        self.session.show_status(self.tr("Saved the app dictionary ({0}).").format(self.path), 8000)

    def save_voice_lexicon(self, name: str, lexicon: Lexicon) -> None:
        """Write ``lexicon`` into the voice file ``name`` (read afresh, so nothing else in it changes)."""
        library = self.session.library
        voice = library.get(name)
        info = library.replace(with_voice_lexicon(voice, lexicon))
        self.voice_panel.reload(select=info.name)  # the panel's voice now carries the entries
        self.refresh()
        self.session.show_status(self.tr("Saved the dictionary of the voice “{0}”.").format(info.name), 8000)


def _free_name(path: Path) -> Path:
    """``lexicon (unreadable).csv``, or with a number, that does not exist yet."""
    for n in range(1, 1000):
        suffix = " (unreadable)" if n == 1 else f" (unreadable {n})"
        candidate = path.with_name(f"{path.stem}{suffix}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise StorageError(f"too many unreadable copies of {path.name} in {path.parent}; remove some.")
