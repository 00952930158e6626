"""Regenerate one sentence of an ordinary take, and undo that.

Right-click a sentence in the waveform (or Takes › Regenerate sentence…, Ctrl+G, for the sentence at the
playhead): the sentence is spoken again on the engine thread (:mod:`app.worker.sentence_jobs`) as it
was spoken (its text as the engine read it, the take's voice, mode, instruction and speed), with another
seed and/or instruction, and spliced into the take's audio with short crossfades at its two boundaries.
The result is saved as a new version of the take (:meth:`app.takes.store.TakeStore.new_version`); the
version before stays on disk, so Undo brings it back, also after a restart: Ctrl+Z in the waveform or
Takes › Undo regeneration swap the shown take's two versions (again: the newer one), and Ctrl+Z in the
Takes list undoes the newest removal or regeneration (:meth:`TakesController.undo_last`).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu, QWidget

from cosycore.errors import CosyError
from cosycore.request import Mode, SynthesisRequest
from cosycore.studio.cast import resolve_instruction
from cosycore.studio.splice import DEFAULT_CROSSFADE
from cosycore.studio.take import Take, TakeState

from ..session import StudioSession
from ..takes.sentence_splice import SentenceError, regenerable_sentences, sentence_at, sentence_samples, spliced_layout
from ..widgets.sentence_dialog import SEED_MAX, SentenceChoice, SentenceDialog
from ..widgets.waveform import WaveformView
from ..worker.sentence_jobs import SentenceJob, SentenceResult

if TYPE_CHECKING:
    from .playback import PlaybackController
    from .script_regen import RegenController
    from .takes import TakesController

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SentenceActions:
    """Takes › Regenerate sentence… and Takes › Undo regeneration."""

    regenerate: QAction
    undo: QAction


class SentenceRegenController(QObject):
    """Regenerates sentences of ordinary takes. Built by the main window from the session, the Takes menu's two
    actions, the waveform, the playback (to show the new audio), the takes controller (Ctrl+Z in the list) and
    the script lines' regeneration (one regeneration at a time); GUI thread only."""

    finished = Signal(bool)  # a regeneration ended: True when the take was changed

    def __init__(self, session: StudioSession, *, actions: SentenceActions, waveform: WaveformView,
                 playback: PlaybackController, takes: TakesController, lines: RegenController,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.actions = actions
        self.waveform = waveform
        self.playback = playback
        self.takes = takes
        self.lines = lines
        self.parent_widget = parent  # the dialog and the menu open over it
        self.max_tokens: int | None = None  # tests: a bound on the speech tokens of the new sentence
        self.crossfade = DEFAULT_CROSSFADE
        self.dialog_shown: SentenceDialog | None = None
        self.menu_shown: QMenu | None = None
        self._pending: dict[int, Take] = {}  # request id -> take

    def wire(self) -> None:
        s = self.session
        s.engine.line_regenerated.connect(self._on_engine_line_regenerated)
        s.engine.regen_failed.connect(self._on_engine_regen_failed)
        self.waveform.context_menu_requested.connect(self._on_waveform_context_menu_requested)
        self.actions.regenerate.triggered.connect(lambda: self.dialog())
        self.actions.undo.triggered.connect(lambda: self.undo())
        undo_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self.waveform)
        undo_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo_key.activated.connect(lambda: self.undo())
        s.shown_take_changed.connect(lambda _take: self.update_actions())
        s.takes.take_changed.connect(lambda _take: self.update_actions())
        self.update_actions()

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def _shown(self) -> Take | None:
        take = self.session.shown_take
        return take if take is not None and take.script is None else None

    def update_actions(self) -> None:
        take = self._shown()
        self.actions.regenerate.setEnabled(take is not None and take.state is not TakeState.STREAMING)
        self.actions.undo.setEnabled(take is not None and take.previous_version is not None)

    # -- asking --------------------------------------------------------------------------------
    def _choices(self, take: Take) -> list[SentenceChoice]:
        spans = regenerable_sentences(take)
        out = []
        for span in spans:
            done = take.sentence_settings.get(span.index)
            seed = int(done["seed"]) if done else take.seed
            instruction = str(done["instruction"]) if done else take.instruction
            out.append(SentenceChoice(span.index, span.text, seed, instruction))
        return out

    def dialog(self, take: Take | None = None, index: int | None = None) -> SentenceDialog | None:
        """Ask which sentence of ``take`` (default: the shown take's, at the playhead) to speak again, and how."""
        s = self.session
        take = take or self._shown()
        if take is None:
            s.show_status(self.tr("Show a take first (click it in the Takes list)."), 6000)
            return None
        try:
            choices = self._choices(take)
        except SentenceError as e:
            s.show_status(str(e), 8000)
            return None
        if index is None:
            playhead = self.waveform.playhead
            at = sentence_at(take, playhead) if playhead is not None else None
            index = at.index if at is not None else None
        info = s.model_info
        dialog = SentenceDialog(choices, info.family if info is not None else "", index, self.parent_widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted() -> None:
            keep, instruction = dialog.instruction()
            self.regenerate(take, dialog.index, seed=dialog.seed, keep_instruction=keep, instruction=instruction)

        dialog.accepted.connect(accepted)
        dialog.open()
        self.dialog_shown = dialog
        return dialog

    def _on_waveform_context_menu_requested(self, seconds: float, pos: QPoint) -> None:
        take = self._shown()
        if take is None or take.state is TakeState.STREAMING:
            return  # a script take's menu is the line regeneration's
        span = sentence_at(take, seconds)
        menu = QMenu(self.parent_widget)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if span is not None and span.text.strip():
            action = menu.addAction(self.tr("Regenerate sentence {0}…").format(span.index + 1))
            action.setObjectName("regenerateSentence")
            action.triggered.connect(lambda: self.dialog(take, span.index))
        else:
            menu.addAction(self.tr("Regenerate a sentence…")).triggered.connect(lambda: self.dialog(take))
        undo = menu.addAction(self.tr("Undo regeneration"))
        undo.setObjectName("undoRegeneration")
        undo.setEnabled(take.previous_version is not None)
        undo.triggered.connect(lambda: self.undo(take))
        self.menu_shown = menu
        menu.popup(pos)

    # -- regenerating --------------------------------------------------------------------------
    def regenerate(self, take: Take, index: int, *, seed: int | None = None, keep_instruction: bool = True,
                   instruction: str | None = None) -> int | None:
        """Speak sentence ``index`` of ``take`` again on the engine thread; None if refused (said why)."""
        s = self.session
        try:
            job = self._job(take, index, seed, keep_instruction, instruction)
        except (CosyError, SentenceError, KeyError) as e:
            s.show_error(self.tr("Cannot regenerate the sentence"), str(e))
            return None
        if job is None:
            return None
        request_id = s.engine.regenerate_sentence(job)
        self._pending[request_id] = take
        s.set_regenerating(True)  # Stop stays enabled
        s.show_status(self.tr("Regenerating sentence {0} of take {1}…").format(index + 1, take.number))
        return request_id

    def _job(self, take: Take, index: int, seed: int | None, keep: bool, instruction: str | None) -> SentenceJob | None:
        s = self.session
        info = s.model_info
        if info is None:
            raise SentenceError(self.tr("Load a model first."))
        if s.making() or self._pending or self.lines.busy:
            s.show_status(self.tr("Wait until the take or regeneration being made is finished."), 6000)
            return None
        span = next((x for x in regenerable_sentences(take) if x.index == index), None)
        if span is None:
            raise SentenceError(self.tr("Take {0} has no sentence {1} to speak again.").format(take.number, index + 1))
        if not s.store.folder(take).is_dir():
            raise SentenceError(self.tr("Take {0} is not saved on disk, so its sentences cannot be regenerated.")
                                .format(take.number))
        if take.voice_name not in s.library:
            raise SentenceError(self.tr("The voice \u201c{0}\u201d of take {1} is not in the voice library any "
                                        "more; its sentences cannot be spoken again.").format(take.voice_name,
                                                                                            take.number))
        voice = s.library.get(take.voice_name)
        done = take.sentence_settings.get(index)
        old_instruction = str(done["instruction"]) if done else take.instruction
        if keep:
            new_instruction = old_instruction
        else:
            new_instruction = resolve_instruction(instruction, info.family) if instruction else ""
        if new_instruction:
            mode = "instruct"
        elif keep or take.mode != "instruct":
            mode = str(done["mode"]) if done else take.mode
        else:
            mode = "zero_shot" if voice.transcript.strip() else "cross_lingual"
        if seed is None:
            seed = random.randrange(SEED_MAX)
        options: dict[str, Any] = {"voice": voice}
        if voice.family != info.family:  # as Speak does: re-extracted from its audio for this family
            options = {"prompt_audio": voice.audio_24k, "prompt_sample_rate": voice.sample_rate,
                       "prompt_text": (voice.transcript or None) if mode == "zero_shot" else None}
        # The sentence's text as the engine read it (normalised, dictionaries applied): spoken as it is.
        request = SynthesisRequest(span.text, mode=cast(Mode, mode), instruct_text=new_instruction or None,
                                   speed=take.speed, seed=seed, stream=False, text_frontend=False,
                                   max_tokens=self.max_tokens, **options)
        start, end = sentence_samples(take, index)
        return SentenceJob(take.uid, index, request, take.audio(), start, end, take.sample_rate, self.crossfade)

    def _done(self, ok: bool) -> None:
        self.session.set_regenerating(bool(self._pending) or self.lines.busy)
        self.update_actions()
        self.finished.emit(ok)

    def _on_engine_line_regenerated(self, request_id: int, result: object) -> None:
        s = self.session
        take = self._pending.pop(request_id, None)
        if take is None or not isinstance(result, SentenceResult):
            return
        if take not in list(s.takes) or take.uid != result.take_uid:
            self._done(False)  # removed meanwhile: nothing to change
            return
        try:
            seams, spans = spliced_layout(take, result.index, result.splice)
        except SentenceError as e:
            s.show_error(self.tr("Cannot regenerate the sentence"), str(e))
            self._done(False)
            return
        settings = dict(take.sentence_settings)
        settings[result.index] = {"seed": result.seed, "mode": result.mode, "instruction": result.instruction}
        if s.playing_take is take:
            s.player.stop()
        try:
            s.store.new_version(take, result.splice.audio, seams, spans, None, {}, settings)
        except CosyError as e:
            s.show_error(self.tr("Cannot save the regenerated sentence"),
                         self.tr("{0}\nThe take is unchanged.").format(e))
            self._done(False)
            return
        self._changed(take)
        version = take.audio_file
        self.takes.offer_undo(
            self.tr("Sentence {0} of take {1} regenerated with seed {2}; Ctrl+Z puts the previous one back.")
            .format(result.index + 1, take.number, result.seed),
            lambda: take.audio_file == version and self.undo(take))
        self._done(True)

    def _on_engine_regen_failed(self, request_id: int, message: str) -> None:
        if self._pending.pop(request_id, None) is None:
            return
        self.session.show_error(self.tr("Cannot regenerate the sentence"), message)
        self._done(False)

    def _changed(self, take: Take) -> None:
        s = self.session
        s.takes.changed(take)
        if s.shown_take is take:
            self.playback.show_again(take)

    def undo(self, take: Take | None = None) -> bool:
        """Swap the take's current and previous versions (undo the last regeneration, or redo it)."""
        s = self.session
        take = take or s.shown_take
        if take is None or take.previous_version is None:
            s.show_status(self.tr("There is no regeneration to undo."), 5000)
            return False
        if take in self._pending.values():
            s.show_status(self.tr("Wait until the regeneration being made is finished."), 5000)
            return False
        if s.playing_take is take:
            s.player.stop()
        try:
            s.store.swap_versions(take)
        except CosyError as e:
            s.show_error(self.tr("Cannot undo"), str(e))
            return False
        self._changed(take)
        s.show_status(self.tr("Take {0} is back to its previous version; Undo again for the other.")
                      .format(take.number), 8000)
        self.update_actions()
        return True
