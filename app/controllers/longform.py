"""Long-form work: File › Open (a .txt/.md into the editor), File › Render to file… (a book to WAV/FLAC in the
background, with the progress panel) and File › Unfinished renders (resume, also after a restart).

How a render shares the one engine with takes: it runs on the engine thread in slices
(:class:`~app.worker.render_runner.RenderRunner`) and gives way to everything else. Speak stays enabled; when a
take is asked for, the segment being rendered stops at once, the take is spoken and played, and the render
goes on by itself, making that segment again with the same seed (so the file is as if nothing happened).
Esc stops takes, not the render: the panel has its own Pause and Cancel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QTextCursor
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from cosycore.errors import CosyError
from cosycore.studio.longform import partial_path

from ..session import StudioSession
from ..takes.render_records import RenderProgress, RenderRecord, RenderRecords, RenderSpec, render_progress
from ..takes.text_files import EDITOR_MAX_CHARS, looks_like_script, read_text_file
from ..widgets.render_dialog import RenderChoice, RenderDialog
from ..widgets.render_panel import PanelMode, RenderPanel
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor
from ..widgets.voice_panel import VoicePanel
from ..worker.render_runner import RenderRunner, RenderState, RenderStatus

if TYPE_CHECKING:
    from cosycore.voices import Voice

logger = logging.getLogger(__name__)

CLOCK_MS = 1000  # the panel's elapsed time and ETA tick this often


class LongFormMenu:
    """The File menu's long-form entries: Open…, Render to file… and the Unfinished renders submenu."""

    def __init__(self, open_action: QAction, render_action: QAction, unfinished_menu: QMenu) -> None:
        self.open_action = open_action
        self.render_action = render_action
        self.unfinished_menu = unfinished_menu


class LongFormController(QObject):
    """Opens text files and runs one long-form render at a time. Built by the main window from the session,
    the File menu's entries, the progress panel and the widgets a render takes its values from."""

    def __init__(self, session: StudioSession, *, menu: LongFormMenu, render_panel: RenderPanel,
                 editor: TextEditor, voice_panel: VoicePanel, controls: SynthesisControls,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.menu = menu
        self.render_panel = render_panel
        self.editor = editor
        self.voice_panel = voice_panel
        self.controls = controls
        self.parent_widget = parent  # the dialogs open over it
        self.records = RenderRecords(session.settings.paths.data)
        self.record: RenderRecord | None = None  # the render in the panel
        self.runner: RenderRunner | None = None  # its runner, once it was started in this session
        self.dialog: RenderDialog | None = None
        self.open_path: Path | None = None  # the .txt/.md opened last (rendered from disk by default)
        self.open_markdown = False
        self._opened_text: str | None = None  # the text File › Open put into the editor
        # Script mode sets this to open a script-looking file as a script: (text, path) -> opened.
        self.script_opener: Callable[[str, Path], bool] | None = None
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_MS)
        self._clock.timeout.connect(self._on_clock_timeout)

    @property
    def rendering(self) -> bool:
        """A render is running or waiting for the engine (a paused one is not)."""
        return self.runner is not None and self.runner.active

    def wire(self) -> None:
        self.menu.open_action.triggered.connect(self.open_dialog)
        self.menu.render_action.triggered.connect(lambda: self.render_dialog())
        self.menu.unfinished_menu.aboutToShow.connect(self._fill_unfinished_menu)
        p = self.render_panel
        p.pause_clicked.connect(self.pause)
        p.resume_clicked.connect(self.resume)
        p.cancel_clicked.connect(self.cancel)
        p.restart_clicked.connect(self.restart)
        p.discard_clicked.connect(self.discard)
        p.close_clicked.connect(self.close_panel)
        p.open_folder_clicked.connect(self._on_panel_open_folder_clicked)
        QTimer.singleShot(0, self.offer_unfinished)

    def ask(self, title: str, text: str) -> bool:
        """A yes/no question (tests replace it)."""
        answer = QMessageBox.question(self.parent_widget, title, text)
        return answer == QMessageBox.StandardButton.Yes

    # -- File › Open -----------------------------------------------------------------------------
    def open_dialog(self) -> None:
        folder = self.open_path.parent if self.open_path else (self.session.settings.last_export_folder or Path.home())
        path, _ = QFileDialog.getOpenFileName(self.parent_widget, self.tr("Open text"), str(folder),
                                              self.tr("Text and Markdown (*.txt *.md *.markdown)"))
        if path:
            self.open_file(Path(path))

    def open_file(self, path: Path) -> bool:
        """Put a .txt/.md file's text into the editor (undoable), or, when it is longer than a take, keep it
        for File › Render to file and say so. A file that cannot be used is explained and nothing changes."""
        s = self.session
        try:
            opened = read_text_file(path)
        except CosyError as e:
            s.show_error(self.tr("Cannot open {0}").format(Path(path).name), str(e))
            return False
        self.open_path, self.open_markdown, self._opened_text = opened.path, opened.markdown, opened.text
        if opened.text is None:
            s.show_error(self.tr("{0} is opened for rendering").format(opened.path.name), self.tr(
                "{0} has {1} characters, more than one take can speak ({2}), so it is not put into the editor. "
                "Render it to an audio file in the Render to file dialog, which is open now.").format(
                    opened.path.name, f"{opened.chars:,}", f"{EDITOR_MAX_CHARS:,}"))
            self.render_dialog(source=opened.path)
            return True
        if self.script_opener is not None and looks_like_script(opened.text) and self.ask(
                self.tr("Open as a script?"),
                self.tr("{0} looks like a dialogue script (Name: line). Open it as a script?").format(
                    opened.path.name)):
            return self.script_opener(opened.text, opened.path)
        cursor = QTextCursor(self.editor.edit.document())
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(opened.text)  # one edit: Ctrl+Z in the editor brings the previous text back
        s.show_status(self.tr("Opened {0}. Ctrl+Z in the editor brings back the text it replaced.")
                      .format(opened.path.name), 10000)
        return True

    # -- File › Render to file -------------------------------------------------------------------
    def render_dialog(self, source: Path | None = None) -> RenderDialog:
        """Open the dialog (window-modal, not blocking). The file opened last is the default text when the
        editor still holds it unchanged (or it was too long for the editor); edited text is rendered as shown."""
        text = self.editor.text()
        offered = source or self.open_path
        if source is None and self.open_path is not None and text != self._opened_text and text.strip():
            chosen: Path | None = None  # the editor holds other or edited text: that is what is on screen
        else:
            chosen = offered
        voice = self.session.voice
        controls = self.controls
        instruction = controls.instruct_text if controls.mode == "instruct" else ""
        folder = offered.parent if offered is not None else (self.session.settings.last_export_folder or Path.home())
        dialog = RenderDialog(self.voice_panel.names(), voice=voice.name if voice else "", source=chosen,
                              editor_chars=len(text) if text.strip() else 0,
                              editor_markdown=self._looks_markdown(text), instruction=instruction,
                              speed=controls.speed, folder=folder, parent=self.parent_widget)
        if chosen is None and offered is not None:
            dialog.file_edit.setText(str(offered))  # offered, while the editor's text is chosen
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.start_render(dialog.choice()))
        dialog.finished.connect(lambda _result: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _looks_markdown(self, text: str) -> bool:
        if self.open_path is not None and self.open_markdown:
            return True
        return any(line.startswith("# ") for line in text.splitlines())

    def start_render(self, choice: RenderChoice, *, min_tokens: int | None = None,
                     max_tokens: int | None = None) -> RenderRunner | None:
        """Start what the dialog asked for. ``min_tokens``/``max_tokens`` cap each segment (tests)."""
        s = self.session
        if self.runner is not None and self.runner.active:
            s.show_error(self.tr("A render is running"),
                         self.tr("One render runs at a time: wait until it has finished, or cancel it (it can be "
                                 "resumed later)."))
            return None
        if not self._model_ready():
            return None
        self.voice_panel.commit_transcript()  # a transcript typed for the voice is kept in it (and rendered with)
        voice = self._voice(choice.voice)
        if voice is None:
            return None
        record_id = self.records.new_id()
        spec = RenderSpec(choice.source or Path(), choice.out, choice.voice, chapters=choice.chapters,
                          instruction=choice.instruction, speed=choice.speed, seed=self.controls.seed,
                          from_editor=choice.source is None, min_tokens=min_tokens, max_tokens=max_tokens)
        if any(r.spec.out.resolve() == spec.out.resolve() for r in self.records.load()):
            s.show_error(self.tr("{0} has an unfinished render").format(spec.out.name),
                         self.tr("Resume it from File › Unfinished renders, or choose another file name."))
            return None
        existing = spec.existing_outputs()
        if existing:
            names = "\n".join(str(p) for p in existing)
            if not self.ask(self.tr("Replace files?"),
                            self.tr("These files exist already and would be replaced when the render has "
                                    "finished:\n{0}\nReplace them?").format(names)):
                return None
        if choice.source is None:
            text = self.editor.text()
            if not text.strip():
                s.show_error(self.tr("Nothing to render"), self.tr("The editor is empty."))
                return None
            try:
                source = self.records.keep_text(record_id, text, markdown=choice.markdown)
            except CosyError as e:
                s.show_error(self.tr("Cannot keep the text for the render"), str(e))
                return None
            spec = replace(spec, source=source)
        spec = replace(spec, overwrite=bool(existing))
        s.settings.last_export_folder = spec.out.parent
        return self._start(RenderRecord(record_id, spec), voice)

    def _model_ready(self) -> bool:
        s = self.session
        if s.model_info is None and not s.model_loading:
            s.show_error(self.tr("No model"), self.tr("Load a model first."))
            return False
        return True

    def _voice(self, name: str) -> Voice | None:
        try:
            return self.session.library.get(name)
        except CosyError as e:
            self.session.show_error(self.tr("No voice"), str(e))
            return None

    def _start(self, record: RenderRecord, voice: Voice, *, restart: bool = False) -> RenderRunner | None:
        try:
            self.records.save(record)  # remembered before any audio is made: a crash can be resumed
        except CosyError as e:
            self.session.show_error(self.tr("Cannot start the render"), str(e))
            return None
        # No Qt parent: the runner lives while the controller or a queued slice holds it, and a slice still
        # queued when it is dropped can report to it safely (its reports are then ignored here).
        runner = RenderRunner(self.session.engine, record.spec, voice, restart=restart)
        runner.state_changed.connect(self._on_runner_state_changed)
        runner.status_changed.connect(self._on_runner_status_changed)
        runner.finished.connect(self._on_runner_finished)
        runner.failed.connect(self._on_runner_failed)
        self.record, self.runner = record, runner
        panel = self.render_panel
        panel.set_title(self.tr("Rendering {0} → {1}").format(record.spec.title, record.spec.out.name))
        progress = render_progress(record.spec)
        panel.show_counts(progress.done if progress else 0, progress.total if progress else 0)
        panel.set_mode(PanelMode.RUNNING, self.tr("Starting…"))
        panel.show()
        runner.start()
        self._clock.start()
        return runner

    # -- unfinished renders ----------------------------------------------------------------------
    def unfinished(self) -> list[tuple[RenderRecord, RenderProgress | None]]:
        """Renders that can be resumed, oldest first, with how far each got."""
        return [(r, render_progress(r.spec)) for r in self.records.load()]

    def offer_unfinished(self) -> None:
        """At start: the newest unfinished render is offered in the panel (the others in File › Unfinished renders)."""
        if self.runner is not None and self.runner.active:
            return
        found = self.unfinished()
        if not found:
            return
        record, progress = found[-1]
        self._offer(record, progress)
        if len(found) > 1:
            self.session.show_status(self.tr("%n more unfinished render(s) in File › Unfinished renders.", "",
                                             len(found) - 1), 10000)

    def _offer(self, record: RenderRecord, progress: RenderProgress | None) -> None:
        self.record, self.runner = record, None
        panel = self.render_panel
        done, total = (progress.done, progress.total) if progress else (0, 0)
        panel.set_title(self.tr("Resume rendering {0} — {1}/{2} segments done").format(record.spec.title, done, total))
        panel.show_counts(done, total)
        panel.set_mode(PanelMode.OFFER, self.tr("Saving to {0}. It was stopped before it had finished.").format(
            record.spec.out))
        panel.show()

    def _fill_unfinished_menu(self) -> None:
        menu = self.menu.unfinished_menu
        menu.clear()
        found = self.unfinished()
        running = self.record.id if self.record is not None and self.runner is not None and self.runner.active else ""
        for record, progress in found:
            if record.id == running:
                continue  # in the panel, rendering
            done, total = (progress.done, progress.total) if progress else (0, 0)
            action = menu.addAction(self.tr("Resume rendering {0} — {1}/{2} segments done").format(
                record.spec.title, done, total))
            action.setToolTip(str(record.spec.out))
            action.triggered.connect(lambda _=False, r=record: self.resume_record(r))
        if menu.isEmpty():
            menu.addAction(self.tr("None")).setEnabled(False)

    def resume_record(self, record: RenderRecord) -> RenderRunner | None:
        """Go on with an unfinished render from an earlier session (or one cancelled in this one)."""
        if self.runner is not None and self.runner.active:
            if self.record is not None and self.record.id == record.id:
                return self.runner
            self.session.show_error(self.tr("A render is running"),
                         self.tr("One render runs at a time: wait until it has finished, or cancel it first."))
            return None
        spec = record.spec
        problem = ""
        voice = None
        if not spec.source.is_file():
            problem = self.tr("{0} is not there any more (moved or deleted?). Put it back and press Resume.").format(
                spec.source)
        else:
            try:
                voice = self.session.library.get(spec.voice)
            except CosyError:
                problem = self.tr("The voice '{0}' is not in the voice library any more (deleted or renamed?). Put it "
                                  "back (import its .cosyvoice file) and press Resume.").format(spec.voice)
        if voice is None or not self._model_ready():
            if problem:
                self._offer(record, render_progress(spec))
                self.render_panel.set_mode(PanelMode.FAILED, problem + "\n" + self._kept_note(record), error=True)
            return None
        return self._start(record, voice)

    def _kept_note(self, record: RenderRecord) -> str:
        progress = render_progress(record.spec)
        done = progress.done if progress else 0
        return self.tr("Nothing is lost: the {0} finished segments are kept in {1}.").format(
            done, partial_path(record.spec.out))

    # -- panel buttons ---------------------------------------------------------------------------
    def pause(self) -> None:
        if self.runner is not None and self.runner.active:
            self.runner.pause()
            if self.runner.active:
                self.render_panel.show_pausing()

    def resume(self) -> None:
        runner, record = self.runner, self.record
        if runner is not None and runner.state in (RenderState.PAUSED, RenderState.FAILED):
            if runner.state is RenderState.FAILED or not self._model_ready():
                # A failure may have been fixed meanwhile (space freed, file put back): start from the record.
                if record is not None:
                    self.resume_record(record)
                return
            runner.resume()
        elif record is not None and (runner is None or runner.state is RenderState.CANCELLED):
            self.resume_record(record)

    def cancel(self) -> None:
        if self.runner is not None:
            self.runner.cancel()

    def restart(self) -> None:
        runner = self.runner
        if runner is None or runner.state is not RenderState.NEEDS_RESTART:
            return
        if self.ask(self.tr("Start over?"), self.tr("Render {0} from the beginning? The unfinished audio made so far "
                                                    "is discarded.").format(runner.spec.title)):
            self.render_panel.set_mode(PanelMode.RUNNING, self.tr("Starting over…"))
            runner.restart()
            self._clock.start()

    def discard(self) -> None:
        record = self.record
        if record is None or (self.runner is not None and self.runner.active):
            return
        if not self.ask(self.tr("Discard the unfinished render?"),
                        self.tr("Delete the partial audio of {0} ({1})? This cannot be undone.").format(
                            record.spec.title, partial_path(record.spec.out))):
            return
        try:
            self.records.discard(record)
        except CosyError as e:
            self.session.show_error(self.tr("Cannot discard"), str(e))
            return
        self._clear()

    def close_panel(self) -> None:
        if self.runner is not None and self.runner.active:
            return
        self._clear()

    def _clear(self) -> None:
        self._clock.stop()
        self.render_panel.hide()
        self.record = None
        self.runner = None

    def _on_panel_open_folder_clicked(self) -> None:
        if self.record is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.record.spec.out.parent)))

    # -- the runner ------------------------------------------------------------------------------
    def make_way(self) -> None:
        """A take is about to be spoken: the render's segment in progress stops now (it is made again later)."""
        if self.runner is not None:
            self.runner.make_way()

    def _on_clock_timeout(self) -> None:
        if self.runner is not None and self.runner.state is RenderState.RENDERING:
            self.runner.refresh_status()

    def _current(self) -> bool:
        """The signal being handled comes from the runner in the panel (not one dropped meanwhile)."""
        return self.runner is not None and self.sender() is self.runner

    def _on_runner_status_changed(self, status: RenderStatus) -> None:
        if not self._current():
            return
        self.render_panel.show_progress(status.done, status.total, status.percent, status.audio_seconds,
                                          status.elapsed, status.eta)

    def _on_runner_state_changed(self, state: RenderState) -> None:
        runner = self.runner
        if runner is None or not self._current():
            return
        panel = self.render_panel
        if state is RenderState.WAITING:
            panel.set_mode(PanelMode.RUNNING, self.tr("Waiting for its turn: takes and other work on the engine go "
                                                      "first."))
        elif state is RenderState.RENDERING:
            panel.set_mode(PanelMode.RUNNING)
        elif state is RenderState.PAUSED:
            self._clock.stop()
            panel.set_mode(PanelMode.PAUSED, runner.message or self.tr(
                "Paused. Resume goes on from the last finished segment; closing Cosy Studio keeps it for later."))
        elif state is RenderState.CANCELLED:
            record = self.record
            self._clear()
            if record is not None:
                progress = render_progress(record.spec)
                done, total = (progress.done, progress.total) if progress else (0, 0)
                self.session.show_status(self.tr(
                    "Render of {0} stopped with {1} of {2} segments done; File › Unfinished renders resumes it."
                ).format(record.spec.title, done, total), 15000)

    def _on_runner_finished(self, files: tuple[Path, ...]) -> None:
        if not self._current():
            return
        self._clock.stop()
        if self.record is not None:
            self.records.remove(self.record)
        self.render_panel.set_title(self.tr("Rendered {0}").format(self.runner.spec.title if self.runner else ""))
        self.render_panel.show_files(list(files))
        self.session.show_status(self.tr("Render finished: {0}").format(files[0].name if files else ""), 10000)

    def _on_runner_failed(self, message: str) -> None:
        if not self._current():
            return
        self._clock.stop()
        runner = self.runner
        mode = PanelMode.NEEDS_RESTART if runner is not None and runner.state is RenderState.NEEDS_RESTART \
            else PanelMode.FAILED
        self.render_panel.set_mode(mode, message, error=True)

    def close(self) -> None:
        """The window closes: a running render pauses (its state is on disk; it is offered at the next start)."""
        self._clock.stop()
        if self.runner is not None and self.runner.active:
            self.runner.pause()
