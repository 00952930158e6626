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

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu, QWidget

from cosycore.errors import CosyError
from cosycore.request import Mode, SynthesisRequest
from cosycore.studio.cast import resolve_instruction
from cosycore.studio.splice import DEFAULT_CROSSFADE
from cosycore.studio.take import Take, TakeState

from ..session import StudioSession
from ..takes.sentence_splice import SentenceError, regenerable_sentences, sentence_at, sentence_samples, spliced_layout
from ..widgets.regenerate_dialog import SEED_MAX, Piece, RegenerateDialog
from ..widgets.waveform import WaveformView
from ..worker.sentence_jobs import SentenceJob, SentenceResult
from .piece_regen import PieceRegenController

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


class SentenceRegenController(PieceRegenController):
    """Regenerates sentences of ordinary takes. Built by the main window from the session, the Takes menu's two
    actions, the waveform, the playback (to show the new audio), the takes controller (Ctrl+Z in the list) and
    the script lines' regeneration (one regeneration at a time); GUI thread only."""

    def __init__(self, session: StudioSession, *, actions: SentenceActions, waveform: WaveformView,
                 playback: PlaybackController, takes: TakesController, lines: RegenController,
                 parent: QWidget) -> None:
        super().__init__(session, playback, parent)
        self.actions = actions
        self.waveform = waveform
        self.takes = takes
        self.lines = lines
        self.max_tokens: int | None = None  # tests: a bound on the speech tokens of the new sentence
        self.crossfade = DEFAULT_CROSSFADE
        self.menu_shown: QMenu | None = None
        self._pending: dict[int, Take] = {}  # request id -> take

    def wire(self) -> None:
        s = self.session
        s.engine.line_regenerated.connect(self._on_engine_line_regenerated)
        s.engine.regen_failed.connect(self.failed)
        self.waveform.context_menu_requested.connect(self._on_waveform_context_menu_requested)
        self.actions.regenerate.triggered.connect(lambda: self.dialog())
        self.actions.undo.triggered.connect(lambda: self.undo())
        undo_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self.waveform)
        undo_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo_key.activated.connect(lambda: self.undo())
        s.shown_take_changed.connect(lambda _take: self.update_actions())
        s.takes.take_changed.connect(lambda _take: self.update_actions())
        self.update_actions()

    def cannot_regenerate(self) -> str:
        return self.tr("Cannot regenerate the sentence")

    def still_regenerating(self) -> bool:
        return bool(self._pending) or self.lines.busy

    def _shown(self) -> Take | None:
        take = self.session.shown_take
        return take if take is not None and take.script is None else None

    def update_actions(self) -> None:
        take = self._shown()
        self.actions.regenerate.setEnabled(take is not None and take.state is not TakeState.STREAMING)
        self.actions.undo.setEnabled(take is not None and take.previous_version is not None)

    # -- asking --------------------------------------------------------------------------------
    def _choices(self, take: Take) -> list[Piece]:
        spans = regenerable_sentences(take)
        out = []
        for span in spans:
            done = take.sentence_settings.get(span.index)
            seed = int(done["seed"]) if done else take.seed
            instruction = str(done["instruction"]) if done else take.instruction
            out.append(Piece(span.index, span.text, seed, instruction))
        return out

    def dialog(self, take: Take | None = None, index: int | None = None) -> RegenerateDialog | None:
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
        return self.ask(take, choices, "sentence", index)

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
            s.show_error(self.cannot_regenerate(), str(e))
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

    def _on_engine_line_regenerated(self, request_id: int, result: object) -> None:
        s = self.session
        take = self._pending.pop(request_id, None)
        if take is None or not isinstance(result, SentenceResult):
            return
        if take not in list(s.takes) or take.uid != result.take_uid:
            self.done(False)  # removed meanwhile: nothing to change
            return
        try:
            seams, spans = spliced_layout(take, result.index, result.splice)
        except SentenceError as e:
            s.show_error(self.cannot_regenerate(), str(e))
            self.done(False)
            return
        settings = dict(take.sentence_settings)
        settings[result.index] = {"seed": result.seed, "mode": result.mode, "instruction": result.instruction}
        if not self.save_version(take, lambda: s.store.new_version(take, result.splice.audio, seams, spans, None, {},
                                                                    settings),
                                 self.tr("Cannot save the regenerated sentence")):
            return
        version = take.audio_file
        self.takes.offer_undo(
            self.tr("Sentence {0} of take {1} regenerated with seed {2}; Ctrl+Z puts the previous one back.")
            .format(result.index + 1, take.number, result.seed),
            lambda: take.audio_file == version and self.undo(take))
        self.done(True)

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
        return self.swap_versions(take)
