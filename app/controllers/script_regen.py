"""Regenerate a single line of a script take, and undo that.

The line is spoken again on the engine thread (:func:`app.worker.script_jobs.run_regen`, which calls
:func:`cosycore.studio.render.regenerate_line`) with another seed and/or instruction, and spliced in
with a short crossfade at both seams; every other segment keeps its samples. The take's new audio,
the line's own samples and its new layout are saved as a new version of the take
(:meth:`app.takes.store.TakeStore.new_version`); the version before stays for Undo, which swaps the
two (so a second Undo brings the new line back).
"""

from __future__ import annotations

import itertools
import logging
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from cosycore.errors import CosyError, InputError
from cosycore.studio.script import parse_script
from cosycore.studio.take import SentenceSpan, Take, TakeState

from ..session import StudioSession
from ..widgets.regenerate_dialog import line_pieces
from ..widgets.waveform import WaveformView
from ..worker.script_jobs import RegenJob, RegenResult, RegenSegment
from .piece_regen import PieceRegenController

if TYPE_CHECKING:
    from .playback import PlaybackController
    from .script import ScriptController

logger = logging.getLogger(__name__)


class RegenController(PieceRegenController):
    """Regenerates lines of script takes. Built by the main window from the session, the Script menu's two
    actions, the waveform, Script mode (the cast) and the playback (to show the new audio); GUI thread only."""

    def __init__(self, session: StudioSession, *, regen_action: QAction, undo_regen_action: QAction,
                 waveform: WaveformView, script: ScriptController, playback: PlaybackController,
                 parent: QWidget) -> None:
        super().__init__(session, playback, parent)
        self.regen_action = regen_action
        self.undo_regen_action = undo_regen_action
        self.waveform = waveform
        self.script = script
        self._pending: dict[int, tuple[Take, int]] = {}  # request id -> (take, line index)

    def wire(self) -> None:
        s = self.session
        s.engine.line_regenerated.connect(self._on_engine_line_regenerated)
        s.engine.regen_failed.connect(self.failed)
        self.waveform.context_menu_requested.connect(self._on_waveform_context_menu_requested)
        self.regen_action.triggered.connect(lambda: self.dialog())
        self.undo_regen_action.triggered.connect(lambda: self.undo())
        s.shown_take_changed.connect(lambda _take: self.update_actions())
        s.takes.take_changed.connect(lambda _take: self.update_actions())
        self.update_actions()

    def cannot_regenerate(self) -> str:
        return self.tr("Cannot regenerate the line")

    def _shown_script_take(self) -> Take | None:
        take = self.session.shown_take
        return take if take is not None and take.script is not None else None

    def update_actions(self) -> None:
        take = self._shown_script_take()
        self.regen_action.setEnabled(take is not None and take.state is not TakeState.STREAMING)
        self.undo_regen_action.setEnabled(take is not None and take.previous_version is not None)

    # -- asking --------------------------------------------------------------------------------
    def dialog(self, take: Take | None = None, line_index: int | None = None) -> None:
        take = take or self._shown_script_take()
        if take is None or take.script is None:
            self.session.show_status(self.tr("Show a script take first (Script mode, Speak)."), 6000)
            return
        lines = take.script.spoken_lines()
        if not lines:
            self.session.show_status(self.tr("This take holds no spoken line yet."), 6000)
            return
        self.ask(take, line_pieces(lines), "line", line_index)

    def _on_waveform_context_menu_requested(self, seconds: float, pos: QPoint) -> None:
        take = self._shown_script_take()
        if take is None or take.script is None or take.state is TakeState.STREAMING:
            return
        info = take.script.line_at(round(seconds * take.sample_rate))
        menu = QMenu(self.parent_widget)
        if info is not None:
            action = menu.addAction(self.tr("Regenerate line {0} ({1})…").format(info.index + 1, info.speaker))
            action.triggered.connect(lambda: self.dialog(take, info.index))
        else:
            menu.addAction(self.tr("Regenerate a line…")).triggered.connect(lambda: self.dialog(take))
        undo = menu.addAction(self.tr("Undo line regeneration"))
        undo.setEnabled(take.previous_version is not None)
        undo.triggered.connect(lambda: self.undo(take))
        menu.popup(pos)

    # -- regenerating --------------------------------------------------------------------------
    def regenerate(self, take: Take, index: int, *, seed: int | None = None, keep_instruction: bool = True,
                   instruction: str | None = None) -> int | None:
        """Speak line ``index`` (0-based) of ``take`` again on the engine thread; None if refused (said why)."""
        s = self.session
        line_index = index
        try:
            job = self._job(take, line_index, seed, keep_instruction, instruction)
        except (CosyError, ValueError, KeyError) as e:
            s.show_error(self.cannot_regenerate(), str(e))
            return None
        if job is None:
            return None
        request_id = s.engine.regenerate_line(job)
        self._pending[request_id] = (take, line_index)
        s.set_regenerating(True)  # Stop stays enabled
        s.show_status(self.tr("Regenerating line {0} of take {1}…").format(line_index + 1, take.number))
        return request_id

    def _job(self, take: Take, line_index: int, seed: int | None, keep: bool,
             instruction: str | None) -> RegenJob | None:
        s = self.session
        info = take.script
        if info is None:
            raise InputError(self.tr("Take {0} is not a script take.").format(take.number))
        if s.model_info is None:
            raise InputError(self.tr("Load a model first."))
        if take.state is TakeState.STREAMING or s.making():
            s.show_status(self.tr("Wait until the take being made is finished."), 6000)
            return None
        if self._pending:
            s.show_status(self.tr("A line is being regenerated; wait until it is done."), 6000)
            return None
        if not s.store.folder(take).is_dir():
            raise InputError(self.tr("Take {0} is not saved on disk, so its lines cannot be regenerated.").format(
                take.number))
        kinds = [s.kind for s in info.segments]
        if any(a == "line" and b == "line" for a, b in itertools.pairwise(kinds)):
            raise InputError(self.tr("Two lines of this take touch without a pause; its lines cannot be "
                                     "regenerated one by one."))
        info.line(line_index)  # KeyError: no such line
        script = parse_script(info.text, base_dir=Path(info.base_dir) if info.base_dir else None)
        cast, problems = self.script.cast_of(info.cast, list(script.lines))
        if problems:
            raise InputError("\n".join(str(p) for p in problems[:8]))
        raws = info.raw_segments(take.audio(), lambda name: s.store.read_raw(take, name))
        segments = []
        for seg, samples in zip(info.segments, raws):
            line = info.line(seg.line_index) if seg.kind == "line" and seg.line_index is not None else None
            segments.append(RegenSegment(seg.kind, samples, seg.line_index, line.seed if line else None,
                                         line.mode if line else "", line.instruction if line else "", seg.spliced))
        return RegenJob(take.uid, script, cast, tuple(segments), info.render, info.base_seed, take.sample_rate,
                        line_index, seed, keep, instruction, self.script.app_lexicon())

    def _on_engine_line_regenerated(self, request_id: int, result: RegenResult) -> None:
        s = self.session
        pending = self._pending.pop(request_id, None)
        if pending is None:
            return
        take, line_index = pending
        if take not in list(s.takes) or take.script is None or take.uid != result.take_uid:
            self.done(False)  # removed meanwhile: nothing to change
            return
        raw_file = f"line-{secrets.token_hex(4)}.f32"
        script = take.script.regenerated(line_index, result.layout, result.spliced, raw_file, result.seed,
                                         result.mode, result.instruction)
        seams = [start for start, _length in result.layout[1:]]
        sr = take.sample_rate
        spans = [SentenceSpan(k, script.line(seg.line_index).text, seg.start / sr, seg.end / sr)
                 for k, seg in enumerate(script.segments) if seg.kind == "line" and seg.line_index is not None]
        if not self.save_version(take, lambda: s.store.new_version(take, result.audio, seams, spans, script,
                                                                    {raw_file: result.line_samples}),
                                 self.tr("Cannot save the regenerated line")):
            return
        s.show_status(self.tr("Line {0} of take {1} regenerated with seed {2}; Script › Undo line "
                              "regeneration puts the previous one back.").format(
            line_index + 1, take.number, result.seed), 10000)
        self.done(True)

    def undo(self, take: Take | None = None) -> bool:
        """Swap the take's current and previous versions (undo the last regeneration, or redo it)."""
        s = self.session
        take = take or self._shown_script_take()
        if take is None or take.previous_version is None:
            s.show_status(self.tr("There is no line regeneration to undo."), 5000)
            return False
        return self.swap_versions(take)
