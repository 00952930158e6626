"""Script mode: the dialogue script in the editor checked as it is typed, the cast, Speak as one
streamed take, and each speaker's lines marked on the waveform.

The check runs a moment after the last key (or cast change): :func:`cosycore.studio.script.parse_script`
for the syntax (a bad line is set aside and the rest parsed again, so every problem shows at once),
then the app's own cast check (a speaker without a voice, a voice that is gone), then
:func:`cosycore.studio.cast.plan_lines` for the loaded model's family (a voice of the other family, an
instruction the family cannot take, pronunciation tokens it does not have). It is pure Python on
already-loaded voices and takes milliseconds, so it runs on the GUI thread. Every problem is
underlined in the editor (:class:`app.widgets.script_highlight.ScriptSpans`).

Speak hands the parsed script and the cast to the engine thread (:mod:`app.worker.script_jobs`); the take
is an ordinary take (streamed, played while it is made, saved chunk by chunk, stopped by Stop) that
also carries its :class:`cosycore.studio.script_take.ScriptInfo`.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QTextCursor

from cosycore.errors import CosyError, InputError
from cosycore.studio.cast import Cast, CastMember, plan_lines
from cosycore.studio.lexicon import Lexicon, combine, load_many
from cosycore.studio.script import Script, ScriptError, ScriptProblem, SpeechLine, parse_script, speaker_key
from cosycore.studio.script_take import CastEntry, RenderValues, ScriptChunk, ScriptInfo
from cosycore.studio.take import Take
from cosycore.voices import Voice, VoiceInfo, load_voice

from ..session import StudioSession
from ..takes.take import expected_seconds
from ..widgets.cast_table import CastTable
from ..widgets.script_highlight import ScriptSpans, speaker_color
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor
from ..widgets.waveform import Mark, WaveformView
from ..worker.script_jobs import ScriptJob, ScriptStart

if TYPE_CHECKING:
    from cosycore.engine.info import EngineInfo
    from cosycore.request import AudioChunk

    from .lexicon import LexiconController

logger = logging.getLogger(__name__)

CHECK_DELAY_MS = 300
SHOWN_PROBLEMS = 12  # in the message when Speak is refused


class ScriptController(QObject):
    """Script mode's check, cast and takes. Built by the main window from the session, the widgets it drives
    and the dictionaries (:class:`~app.controllers.lexicon.LexiconController`); GUI thread only."""

    def __init__(self, session: StudioSession, *, editor: TextEditor, cast_table: CastTable,
                 controls: SynthesisControls, waveform: WaveformView, lexicon: LexiconController,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.editor = editor
        self.cast_table = cast_table
        self.controls = controls
        self.waveform = waveform
        self.lexicon = lexicon
        self.spans = ScriptSpans()
        # Where relative [lexicon FILE] paths start (for a script opened from a file: its folder).
        self.base_dir = Path.home()
        self.max_tokens: int | None = None  # advanced cap per sentence (tests)
        self.problems: list[ScriptProblem] = []
        self.script: Script | None = None  # the last check's script (None: it has problems)
        self.cast: Cast | None = None  # and its cast
        self._infos: list[VoiceInfo] = []
        self._infos_stamp: int | None = None  # the voices folder's mtime when _infos was read
        self._voices: dict[str, tuple[Path, int, Voice]] = {}  # voice name -> (file, mtime, loaded voice)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(CHECK_DELAY_MS)
        self._timer.timeout.connect(self.check)

    def wire(self) -> None:
        s = self.session
        self.editor.add_span_provider(self.spans)
        self.editor.text_changed.connect(self._on_editor_text_changed)
        self.cast_table.changed.connect(self._on_editor_text_changed)
        self.controls.mode_changed.connect(self._on_controls_mode_changed)
        s.model_changed.connect(self._on_session_model_changed)
        s.engine.script_started.connect(self._on_engine_script_started)
        s.engine.chunk_ready.connect(self._on_engine_chunk_ready)
        s.shown_take_changed.connect(self._on_session_shown_take_changed)
        s.voice_changed.connect(lambda _voice: self._refresh_voices(force=True))
        self._refresh_voices(force=True)
        self._on_controls_mode_changed(self.controls.mode)

    @property
    def enabled(self) -> bool:
        return self.spans.enabled

    # -- voices --------------------------------------------------------------------------------
    def _refresh_voices(self, *, force: bool = False) -> None:
        """Read the library's list again when its folder changed (files added, removed or replaced)."""
        try:
            stamp: int | None = self.session.library.root.stat().st_mtime_ns
        except OSError:
            stamp = None
        if force or stamp != self._infos_stamp or stamp is None:
            self._infos = self.session.library.list()
            self._infos_stamp = stamp
            self.cast_table.set_voices(self._infos)

    def voice(self, name: str) -> Voice:
        """The saved voice ``name``, loaded once per file version; InputError when there is none."""
        info = next((i for i in self._infos if i.name.casefold() == name.casefold()), None)
        if info is None:
            raise InputError(self.tr("There is no saved voice called “{0}” any more.").format(name))
        try:
            mtime = info.path.stat().st_mtime_ns
        except OSError as e:
            raise InputError(self.tr("The voice “{0}” cannot be read: {1}").format(name, e.strerror or e)) from e
        cached = self._voices.get(info.name)
        if cached is not None and cached[0] == info.path and cached[1] == mtime:
            return cached[2]
        voice = load_voice(info.path)
        self._voices[info.name] = (info.path, mtime, voice)
        return voice

    def cast_of(self, entries: list[CastEntry], speakers: list[SpeechLine] | None = None
                ) -> tuple[Cast, list[ScriptProblem]]:
        """The cast of ``entries`` (loaded voices), and a problem for every line of ``speakers`` whose
        speaker has no usable voice."""
        cast = Cast()
        why: dict[str, str] = {}
        for entry in entries:
            if not entry.voice:
                why[speaker_key(entry.name)] = self.tr(
                    "No voice is cast for {0}: choose one in the cast table below the text.").format(entry.name)
                continue
            try:
                cast.add(CastMember(entry.name, self.voice(entry.voice), entry.instruction.strip() or None))
            except CosyError as e:
                why[speaker_key(entry.name)] = self.tr("{0}'s voice: {1}").format(entry.name, str(e))
        problems = []
        for line in speakers or []:
            if cast.get(line.speaker) is None:
                message = why.get(line.key) or self.tr("No voice is cast for {0}: choose one in the cast table "
                                                       "below the text.").format(line.speaker)
                problems.append(ScriptProblem(line.line, message, 1, len(line.speaker)))
        return cast, problems

    def app_lexicon(self) -> Lexicon | None:
        """The app-wide pronunciation dictionary, the one Tools › Pronunciation dictionary… edits (as the
        command line's: ``$COSY_LEXICON``, else ``lexicon.csv`` in the user data folder). Raises a
        :class:`~cosycore.studio.lexicon.LexiconError` (an InputError) when its file cannot be read."""
        return self.lexicon.app_lexicon()

    # -- the check -----------------------------------------------------------------------------
    def _parse(self, text: str) -> tuple[Script | None, list[ScriptProblem]]:
        """Parse, setting aside each malformed line and parsing the rest again, so every problem shows."""
        problems: list[ScriptProblem] = []
        work = text.splitlines()
        while True:
            try:
                return parse_script("\n".join(work), base_dir=self.base_dir), problems
            except ScriptError as e:
                fresh = [p for p in e.problems
                         if 0 < p.line <= len(work) and not work[p.line - 1].lstrip().startswith("#")]
                if not fresh:
                    return None, problems
                problems.extend(fresh)
                for p in fresh:
                    work[p.line - 1] = "#"

    def check(self) -> list[ScriptProblem]:
        """Check the editor's script now; the problems are underlined and returned."""
        self._timer.stop()
        self._refresh_voices()
        script, problems = self._parse(self.editor.text())
        speakers = script.speakers() if script is not None else []
        self.spans.set_speakers(speakers)
        self.cast_table.set_speakers(speakers)
        self.script = self.cast = None
        if script is not None:
            cast, missing = self.cast_of(self.cast_table.entries(), list(script.lines))
            problems.extend(missing)
            uncast = {p.line for p in missing}
            castable = Script(tuple(i for i in script.items if not (isinstance(i, SpeechLine) and i.line in uncast)),
                              script.lexicon_files, script.name)
            info = self.session.model_info
            if info is not None and castable.lines:
                problems.extend(self._plan_problems(castable, cast, info.family))
            if not problems:
                self.script, self.cast = script, cast
        self.problems = sorted(problems, key=lambda p: (p.line, p.column))
        self.spans.set_problems(self.problems)
        if self.enabled:
            self.editor.refresh_spans()
        self._show_status(script)
        return self.problems

    def _plan_problems(self, script: Script, cast: Cast, family: str) -> list[ScriptProblem]:
        try:
            lexicon = combine(load_many(script.lexicon_files))
            app = self.app_lexicon()
        except InputError as e:
            line = next((n for n, raw in enumerate(self.editor.text().splitlines(), 1)
                         if raw.strip().lower().startswith("[lexicon")), 1)
            return [ScriptProblem(line, str(e))]
        try:
            plan_lines(script, cast, family, lexicon, app_lexicon=app)
        except ScriptError as e:
            return list(e.problems)
        return []

    def _show_status(self, script: Script | None) -> None:
        table = self.cast_table
        if self.problems:
            first = self.problems[0]
            table.set_status(self.tr("%n problem(s), underlined in the text. First: line {0}: {1}", "",
                                     len(self.problems)).format(first.line, first.message), problem=True)
        elif script is None:
            table.set_status(self.tr("Write lines like “Anna: Hello.” or “Ben (whispering): Quiet.”"))
        else:
            seconds = sum(expected_seconds(line.text, self.controls.speed) for line in script.lines)
            if self.session.model_info is None:
                table.set_status(self.tr("%n line(s); load a model to check them against it.", "", len(script.lines)))
            else:
                table.set_status(self.tr("%n line(s), ready to speak (about {0:.0f} s).", "",
                                         len(script.lines)).format(seconds))

    def open_script(self, text: str, path: Path) -> bool:
        """Put a script file's ``text`` into the editor in Script mode, as one edit (Ctrl+Z brings the
        previous text back); its relative ``[lexicon FILE]`` paths then start at the file's folder."""
        self.base_dir = path.parent
        self.controls.set_mode("script")
        cursor = QTextCursor(self.editor.edit.document())
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        self.check()
        self.session.show_status(self.tr("Opened {0} as a script. Ctrl+Z in the editor brings back the text it "
                                            "replaced.").format(path.name), 10000)
        return True

    def _on_editor_text_changed(self) -> None:
        if self.enabled:
            self._timer.start()

    def _on_controls_mode_changed(self, mode: str) -> None:
        on = mode == "script"
        if on == self.spans.enabled:
            return
        self.spans.enabled = on
        self.editor.set_preview_visible(not on)
        if on:
            self._refresh_voices(force=True)
            self.check()
        else:
            self._timer.stop()
            self.editor.refresh_spans()

    def _on_session_model_changed(self, info: EngineInfo | None) -> None:
        if info is None:  # a model is loading: the check waits for it
            return
        self.cast_table.set_family(info.family)
        if self.enabled:
            self.check()

    # -- Speak ---------------------------------------------------------------------------------
    def speak(self) -> int | None:
        """Speak the editor's script as one take; refused, with the problems listed, if it has any."""
        s = self.session
        info = s.model_info
        if info is None:
            if s.model_loading:
                s.show_status(self.tr("The model is still loading; Speak when it is ready."), 5000)
            else:
                s.show_error(self.tr("No model"), self.tr("Load a model first."))
            return None
        text = self.editor.text()
        if not text.strip():
            s.show_status(self.tr("Write a script first: lines like “Anna: Hello.”"), 5000)
            return None
        problems = self.check()
        if problems or self.script is None or self.cast is None:
            shown = "\n".join(str(p) for p in problems[:SHOWN_PROBLEMS])
            more = len(problems) - SHOWN_PROBLEMS
            if more > 0:
                shown += "\n" + self.tr("… and {0} more").format(more)
            s.show_error(self.tr("The script cannot be spoken yet"),
                         self.tr("Fix the underlined lines first (hover them for what to do):\n{0}").format(shown))
            return None
        try:
            app_lexicon = self.app_lexicon()
        except InputError as e:
            s.show_error(self.tr("The dictionary cannot be used"), str(e))
            return None
        controls, table = self.controls, self.cast_table
        render = RenderValues(speed=controls.speed, stream=controls.stream, max_tokens=self.max_tokens)
        job = ScriptJob(self.script, self.cast, render, seed=controls.seed, app_lexicon=app_lexicon)
        s.player.stop()
        request_id = s.engine.speak_script(job)
        entries = [e for e in table.entries() if table.in_script(e.name)]
        voices = list(dict.fromkeys(m.voice.name for m in self.cast if table.in_script(m.name)))
        take = Take(request_id, text, mode="script", voice_name=", ".join(voices), sample_rate=info.sample_rate,
                    seed=controls.seed, speed=controls.speed,
                    expected_seconds=sum(expected_seconds(line.text, controls.speed) + 0.3
                                         for line in self.script.lines),
                    model=f"{info.title} · {Path(info.model_dir).name}", quality=info.quality)
        take.script = ScriptInfo(text, str(self.base_dir), entries, render)
        s.begin_take(take)
        return request_id

    def _on_engine_script_started(self, request_id: int, start: ScriptStart) -> None:
        take = self.session.takes.by_request(request_id)
        if take is None or take.script is None:
            return
        take.script.base_seed = start.base_seed
        take.script.lines = list(start.lines)
        take.seed = start.base_seed
        self.session.takes.changed(take)

    # -- marks ---------------------------------------------------------------------------------
    def marks(self, take: Take) -> list[Mark]:
        """Each spoken line of a script take as a region in its speaker's colour, labelled with the name."""
        if take.script is None or not take.sample_rate:
            return []
        order = {speaker_key(n): i for i, n in enumerate(take.script.speakers())}
        sr = take.sample_rate
        return [Mark(a / sr, b / sr, info.speaker, speaker_color(order.get(speaker_key(info.speaker), 0)).name(),
                     self.tr("Line {0} ({1}): {2}").format(info.index + 1, info.speaker, info.text))
                for a, b, info in take.script.line_marks()]

    def _on_engine_chunk_ready(self, request_id: int, chunk: AudioChunk) -> None:
        if not isinstance(chunk, ScriptChunk) or chunk.script is None:
            return
        take = self.session.takes.by_request(request_id)
        if take is not None and take is self.session.shown_take:
            self.waveform.set_marks(self.marks(take))

    def _on_session_shown_take_changed(self, take: Take | None) -> None:
        if take is not None and take.script is not None:
            self.waveform.set_marks(self.marks(take))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._timer.stop()
