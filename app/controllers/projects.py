"""Projects: File › New project, Open project, Open recent, Save, Save as and Close project.

A project (:mod:`app.project`) holds each mode's text (the script is Script mode's), the instruction, the
cast, the chosen voice, the voices it uses and its takes (a take store's folder beside the project file).
With no project open the studio works in the *Untitled* project: the session in the app's data folder,
kept as it always was (the texts as they are typed, the takes as they are made), so it never asks to
be saved and an existing session opens as Untitled with nothing lost.

In a named project the takes are written into its ``takes`` folder as they are made; the texts, the cast,
the instruction and the voice are written to the project file by Save. Until then they are kept (as the
Untitled session's are) in a recovery folder under the app's data folder, so a crash loses nothing: the
project opens again with the unsaved work and the modified mark. Leaving a modified project (opening
another, closing it, quitting) asks Save / Don't save / Cancel.

Save as copies the takes into the new project's folder (the old ones stay where they were) on a worker
thread, behind a progress dialog with Cancel, and never writes into a folder that already holds files; a
failed or cancelled Save as removes what it made. The project's takes count as its work: a take made,
removed or renamed marks the project modified until it is saved. Nothing switches projects while a take is
made, a Speak waits for the model, or a long-form render runs.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from cosycore.studio.script_take import CastEntry

from ..project import (
    MODE_TEXTS_NAME,
    PROJECT_SUFFIX,
    SESSION_NAME,
    Project,
    ProjectError,
    ProjectState,
    SaveCancelledError,
    TakeRef,
    VoiceRef,
    copy_folders,
    file_sha256,
    load_project,
    project_paths,
    read_session_state,
    save_project,
)
from ..session import StudioSession
from ..widgets.cast_table import CastTable
from ..widgets.synthesis_controls import SynthesisControls
from ..widgets.text_editor import TextEditor
from ..widgets.voice_panel import VoicePanel
from .autosave import EditorAutosave
from .background_work import run_with_progress
from .mode_texts import ModeTexts

logger = logging.getLogger(__name__)

RECOVERY_FOLDER = "projects"  # under the data folder: one folder of unsaved work per project
CHECK_DELAY_MS = 200  # the modified mark follows typing this long after the last key


@dataclass(frozen=True)
class ProjectMenu:
    """The File menu's project entries (made by the window, driven here)."""

    new_action: QAction
    open_action: QAction
    save_action: QAction
    save_as_action: QAction
    close_action: QAction
    recent_menu: QMenu


@dataclass(frozen=True)
class ProjectWidgets:
    """What a project's state is read from and put back into."""

    editor: TextEditor
    controls: SynthesisControls
    cast_table: CastTable
    voice_panel: VoicePanel


class ProjectsController(QObject):
    """Opens, saves and switches projects. Built by the main window from the session, the editor's two
    autosaves and the widgets that show a project's state."""

    title_changed = Signal(str, bool)  # the project's name ("Untitled"), modified

    def __init__(self, session: StudioSession, *, autosave: EditorAutosave, mode_texts: ModeTexts,
                 widgets: ProjectWidgets, menu: ProjectMenu, dialog_parent: QWidget,
                 rendering: Callable[[], bool] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.autosave = autosave
        self.mode_texts = mode_texts
        self.w = widgets
        self.menu = menu
        self.dialog_parent = dialog_parent
        self._rendering = rendering or (lambda: False)  # a long-form render runs (it holds the engine)
        self.project: Project | None = None  # None: the Untitled project
        self._saved: ProjectState | None = None  # the state the project file holds
        self._saved_takes: list[tuple[str, int, str]] = []  # the takes as they were at the last open or save
        self._modified = False
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.check_modified)

    # -- wiring ------------------------------------------------------------------------------------
    def wire(self) -> None:
        m = self.menu
        m.new_action.triggered.connect(lambda: self.new_project())
        m.open_action.triggered.connect(lambda: self.open_dialog())
        m.save_action.triggered.connect(lambda: self.save())
        m.save_as_action.triggered.connect(lambda: self.save_as())
        m.close_action.triggered.connect(lambda: self.close_project())
        m.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        m.recent_menu.setToolTipsVisible(True)
        w = self.w
        for signal in (w.editor.text_changed, w.controls.instruct_edit.textChanged, w.cast_table.changed,
                       w.controls.mode_changed, w.voice_panel.voice_changed):
            signal.connect(self._check_timer.start)
        takes = self.session.takes
        for signal in (takes.take_added, takes.take_removed, takes.take_changed):
            signal.connect(self._check_timer.start)
        self.fill_recent_menu()
        self._update()

    def reopen_last(self) -> None:
        """At start: open the project that was open when the app last ran (its unsaved work comes back)."""
        path = self.session.settings.project
        if path is not None:
            self.open(path, ask=False, flush=False)

    # -- the state -----------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.project.name if self.project is not None else self.tr("Untitled")

    @property
    def modified(self) -> bool:
        return self._modified

    def state(self) -> ProjectState:
        """What the editor shows now."""
        w, modes = self.w, self.mode_texts
        texts = dict(modes.texts)
        texts[modes.mode] = w.editor.text()
        voice = w.voice_panel.voice
        return ProjectState(mode=modes.mode, texts=texts, instruction=w.controls.instruct_edit.text(),
                            cast=[e.to_json() for e in w.cast_table.entries()],
                            voice=voice.name if voice is not None else "")

    def apply(self, state: ProjectState) -> None:
        """Show ``state`` in the editor (and keep it in the current autosave files)."""
        w, modes = self.w, self.mode_texts
        modes.mode = state.mode  # before the mode buttons move: the text below is that mode's
        modes.texts = {m: t for m, t in state.texts.items() if m != state.mode and t}
        w.controls.set_mode(state.mode)
        w.editor.set_text(state.texts.get(state.mode, ""))
        w.controls.instruct_edit.setText(state.instruction)
        w.cast_table.set_entries([e for e in (CastEntry.from_json(c) for c in state.cast) if e is not None])
        if state.voice and state.voice in self.session.library:
            try:
                w.voice_panel.select(state.voice)
            except KeyError:
                logger.info("voice %r is not listed", state.voice)
        settings = self.session.settings
        settings.mode = state.mode
        settings.sync()
        self._flush()

    def _take_refs(self) -> list[tuple[str, int, str]]:
        return [(t.uid, t.number, t.name) for t in self.session.takes]

    def check_modified(self) -> None:
        self._check_timer.stop()
        modified = self._saved is not None and (not self.state().same_as(self._saved)
                                                or self._take_refs() != self._saved_takes)
        if modified != self._modified:
            self._modified = modified
            self._update()

    def _update(self) -> None:
        self.menu.close_action.setEnabled(self.project is not None)
        self.title_changed.emit(self.name, self._modified)

    def _flush(self) -> None:
        self.autosave.save()
        self.mode_texts.save()

    # -- where the unsaved work is kept ------------------------------------------------------------------
    def recovery_folder(self, project: Project | None) -> Path:
        data = self.session.settings.paths.data
        if project is None:
            return data  # the Untitled project's files, where they always were
        key = hashlib.sha256(str(project.path.resolve()).encode("utf-8")).hexdigest()[:16]
        return data / RECOVERY_FOLDER / key

    def _point_autosave(self, project: Project | None) -> None:
        folder = self.recovery_folder(project)
        self.autosave.path = folder / SESSION_NAME
        self.mode_texts.path = folder / MODE_TEXTS_NAME

    def _recovered(self, project: Project) -> ProjectState | None:
        """Work on ``project`` that was not saved (the app quit or crashed with the project modified)."""
        folder = self.recovery_folder(project)
        state = read_session_state(folder)
        if state is None:
            return None
        try:
            newer = (folder / SESSION_NAME).stat().st_mtime >= project.path.stat().st_mtime
        except OSError:
            newer = False
        if not newer:
            return None
        state.voice = project.state.voice
        return state

    # -- asking ----------------------------------------------------------------------------------------
    def may_leave(self) -> bool:
        """Before another project opens or the app quits: a modified project asks Save / Don't save / Cancel.
        False: stay (cancelled, or the save failed)."""
        self.check_modified()
        if not self._modified or self.project is None:
            return True
        answer = self.ask_unsaved()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            assert self._saved is not None
            self.apply(self._saved)
            self._saved_takes = self._take_refs()  # the takes stay in its folder either way
            self._modified = False
            self._update()
            return True
        return False

    def ask_unsaved(self) -> QMessageBox.StandardButton:
        """Save / Don't save / Cancel about the modified project."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Unsaved changes"),
                          self.tr("Save the changes to the project “{0}”?").format(self.name),
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.dialog_parent)
        box.setObjectName("unsavedChangesBox")
        box.setInformativeText(self.tr("The takes are kept either way; Don't save goes back to the texts as "
                                       "they were last saved."))
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        return QMessageBox.StandardButton(box.exec())

    def _check_idle(self) -> bool:
        s = self.session
        if self._rendering():
            s.show_error(self.tr("Projects"),
                         self.tr("A long text is being rendered to a file. Pause or cancel it in the render "
                                 "panel, or wait until it ends, then try again."))
            return False
        if s.making() or s.regenerating or s.speak_waiting:
            s.show_error(self.tr("Projects"),
                         self.tr("A take is being made, or a Speak waits for the model. Stop it (Esc), or wait "
                                 "until it ends, then try again."))
            return False
        return True

    # -- opening -----------------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        if not self._check_idle():  # said before a file is chosen
            return
        start = str(self.project.folder.parent) if self.project is not None else ""
        path, _ = QFileDialog.getOpenFileName(self.dialog_parent, self.tr("Open project"), start,
                                              self.tr("Cosy Studio projects (*{0})").format(PROJECT_SUFFIX))
        if path:
            self.open(Path(path))

    def open(self, path: Path, *, ask: bool = True, flush: bool = True) -> bool:
        """Open the project file ``path`` (after asking about unsaved changes). On failure nothing changes."""
        path = Path(path)
        if self.project is not None and path.resolve() == self.project.path.resolve():
            return True
        try:
            project = load_project(path)
        except ProjectError as e:
            self.session.show_error(self.tr("Cannot open the project"), str(e))
            if self.session.settings.project == path:
                self.session.settings.project = None
            return False
        if not self._check_idle() or (ask and not self.may_leave()):
            return False
        if flush:
            self._flush()
        self._switch(project, project.takes_folder, self._recovered(project) or project.state)
        self._report_missing(project)
        return True

    def close_project(self) -> bool:
        """Back to the Untitled project, as it was left."""
        if self.project is None or not self._check_idle() or not self.may_leave():
            return False
        self._flush()
        state = read_session_state(self.recovery_folder(None)) or ProjectState(mode=self.w.controls.mode)
        self._switch(None, self.session.settings.paths.data / "takes", state)
        return True

    def _switch(self, project: Project | None, takes_folder: Path, state: ProjectState | None) -> None:
        """Make ``project`` the open one: its takes in the list, ``state`` (None: keep the editor's) in the editor."""
        problems = self.session.switch_takes(takes_folder)
        self.project = project
        self._point_autosave(project)
        if state is not None:
            self.apply(state)
        else:
            self._flush()
        self._saved = project.state if project is not None else None
        self._saved_takes = self._take_refs()  # the takes found in its folder: listed at the next save
        settings = self.session.settings
        settings.project = project.path if project is not None else None
        if project is not None:
            settings.recent_projects = [project.path, *settings.recent_projects]
        settings.sync()
        self._modified = False
        self.check_modified()
        self._update()
        self.fill_recent_menu()
        if problems:
            self.session.show_error(self.tr("Some takes could not be read"),
                                    self.tr("These take folders in {0} were left as they are:\n{1}").format(
                                        takes_folder, "\n".join(problems)))
        self.session.show_status(self.tr("Project: {0}").format(self.name), 5000)

    def _report_missing(self, project: Project) -> None:
        """Say which of the project's voices this machine lacks (or has in another version), and which
        takes the project listed that are not in its folder."""
        infos = {info.name.casefold(): info for info in self.session.library.list()}
        missing = [v.name for v in project.voices if v.name.casefold() not in infos]
        changed = [v.name for v in project.voices if v.name.casefold() in infos and v.sha256
                   and file_sha256(infos[v.name.casefold()].path) != v.sha256]
        here = {t.uid for t in self.session.takes}
        gone = [t for t in project.takes if t.uid not in here]
        lines = []
        if missing:
            lines.append(self.tr("These voices of the project are not in your voice library: {0}. Add them "
                                 "(Voice › Voice from file…, or copy their .cosyvoice files into {1}); until then "
                                 "their takes still play, but new takes cannot use them.").format(
                                     ", ".join(missing), self.session.library.root))
        if changed:
            lines.append(self.tr("These voices differ from the ones the project was saved with (same name, "
                                 "another file): {0}.").format(", ".join(changed)))
        if gone:
            lines.append(self.tr("These takes of the project are not in its takes folder {0}: {1}.").format(
                project.takes_folder, ", ".join(str(t.number) for t in gone)))
        if lines:
            self.session.show_error(self.tr("Project “{0}”").format(project.name), "\n\n".join(lines))

    # -- saving ------------------------------------------------------------------------------------------
    def save(self) -> bool:
        """Write the project file (Untitled: Save as). False when it was not saved (the user was told why)."""
        if self.project is None:
            return self.save_as()
        project = self.project
        project.state = self.state()
        project.voices = self._voice_refs(project.state)
        project.takes = [TakeRef(t.uid, t.number, t.name) for t in self.session.takes]
        try:
            save_project(project)
        except ProjectError as e:
            self.session.show_error(self.tr("Cannot save the project"), str(e))
            return False
        self._saved = project.state
        self._saved_takes = [(t.uid, t.number, t.name) for t in project.takes]
        self._modified = False
        self._update()
        self.session.show_status(self.tr("Saved {0}.").format(project.path), 5000)
        return True

    def _voice_refs(self, state: ProjectState) -> list[VoiceRef]:
        names = [state.voice, *(c.get("voice", "") for c in state.cast), *(t.voice_name for t in self.session.takes)]
        infos = {info.name.casefold(): info for info in self.session.library.list()}
        refs: dict[str, VoiceRef] = {}
        for name in names:
            if not name or name.casefold() in refs:
                continue
            info = infos.get(name.casefold())
            refs[name.casefold()] = (VoiceRef(info.name, info.path.name, file_sha256(info.path)) if info is not None
                                     else VoiceRef(name))
        return list(refs.values())

    def _ask_new_path(self, title: str) -> Path | None:
        start = str(self.project.folder.parent) if self.project is not None else str(Path.home())
        chosen, _ = QFileDialog.getSaveFileName(
            self.dialog_parent, title, start, self.tr("Cosy Studio projects (*{0})").format(PROJECT_SUFFIX),
            options=QFileDialog.Option.DontConfirmOverwrite)  # a new folder is made; nothing is written over
        if not chosen:
            return None
        try:
            path = project_paths(Path(chosen))
        except ProjectError as e:
            self.session.show_error(title, str(e))
            return None
        folder = path.parent
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            self.session.show_error(title, self.tr(
                "{0} already exists and holds files. A project gets a folder of its own, and Cosy Studio never "
                "writes over files it did not make: choose another name, or another place.").format(folder))
            return None
        return path

    def save_as(self) -> bool:
        """Save the work under a new name, in a new folder: the takes are copied there (the originals stay)."""
        if not self._check_idle():
            return False
        path = self._ask_new_path(self.tr("Save project as"))
        if path is None:
            return False
        return self.save_to(path)

    def save_to(self, path: Path) -> bool:
        """Save as ``path`` (a project file in a folder that does not exist or is empty)."""
        folder, made = path.parent, not path.parent.exists()
        project = Project(path=path, state=self.state())
        takes = list(self.session.takes)
        made_takes = False
        try:
            folder.mkdir(parents=True, exist_ok=True)
            project.takes_folder.mkdir()  # raises if it exists: then nothing in it is ours
            made_takes = True
            pairs = [(self.session.store.folder(t), project.takes_folder / t.uid) for t in takes]
            pairs = [(source, target) for source, target in pairs if source.is_dir()]
            if pairs:  # off the GUI thread, with progress and Cancel
                run_with_progress(lambda progress, cancelled: copy_folders(pairs, progress, cancelled),
                                  parent=self.dialog_parent, title=self.tr("Save project as"),
                                  label=self.tr("Copying the takes into {0}…").format(folder))
            if self.session.making() or [t.uid for t in self.session.takes] != [t.uid for t in takes]:
                raise ProjectError(self.tr("The takes changed while they were being copied."))
            project.voices = self._voice_refs(project.state)
            project.takes = [TakeRef(t.uid, t.number, t.name) for t in takes]
            save_project(project)
        except SaveCancelledError:
            self._undo_partial(folder, made, project.takes_folder if made_takes else None)
            self.session.show_status(self.tr("Save as cancelled; nothing was saved."), 5000)
            return False
        except (OSError, ProjectError) as e:
            self._undo_partial(folder, made, project.takes_folder if made_takes else None)
            self.session.show_error(self.tr("Cannot save the project"),
                                    self.tr("{0}\nNothing was saved; the work is still open as it was.").format(e))
            return False
        if self.project is not None:
            self.apply(self._saved or project.state)  # the old project keeps its saved texts…
        else:
            self._flush()  # the Untitled project keeps the work too, as it was
        self._switch(project, project.takes_folder, project.state)  # …and the work goes on in the new one
        self._saved = project.state
        self.check_modified()
        self.session.show_status(self.tr("Saved {0}.").format(path), 5000)
        return True

    @staticmethod
    def _undo_partial(folder: Path, made: bool, takes_folder: Path | None) -> None:
        """Remove what a failed Save as made: the project folder if this save created it, else the takes
        folder it created. The project file needs nothing: it is written atomically and last, so a
        failed save never placed it (and a file already there is not ours)."""
        target = folder if made else takes_folder
        if target is not None:
            shutil.rmtree(target, ignore_errors=True)

    def new_project(self) -> bool:
        """A new, empty project in a folder of its own (the current one is asked about first)."""
        if not self._check_idle() or not self.may_leave():
            return False
        path = self._ask_new_path(self.tr("New project"))
        if path is None:
            return False
        voice = self.w.voice_panel.voice
        project = Project(path=path, state=ProjectState(mode=self.mode_texts.mode,
                                                        voice=voice.name if voice is not None else ""))
        try:
            project.takes_folder.mkdir(parents=True)
            save_project(project)
        except (OSError, ProjectError) as e:
            self.session.show_error(self.tr("Cannot make the project"), str(e))
            return False
        self._flush()
        self._switch(project, project.takes_folder, project.state)
        return True

    # -- Open recent ---------------------------------------------------------------------------------------
    def fill_recent_menu(self) -> None:
        menu = self.menu.recent_menu
        menu.clear()
        recent = self.session.settings.recent_projects
        for path in recent:
            action = menu.addAction(f"{path.stem} — {path.parent}")
            if path.is_file():
                action.setToolTip(str(path))
                action.triggered.connect(lambda _=False, p=path: self.open_recent(p))
            else:
                action.setText(self.tr("{0} (not found)").format(action.text()))
                action.setToolTip(self.tr("{0} is not there any more (moved, renamed, or on a drive that is not "
                                          "connected)").format(path))
                action.setEnabled(False)
        if not recent:
            menu.addAction(self.tr("No recent projects")).setEnabled(False)
            return
        menu.addSeparator()
        menu.addAction(self.tr("Clear list")).triggered.connect(self.clear_recent)

    def open_recent(self, path: Path) -> bool:
        if not path.is_file():  # gone since the menu was filled
            settings = self.session.settings
            settings.recent_projects = [p for p in settings.recent_projects if p != path]
            self.fill_recent_menu()
        return self.open(path)

    def clear_recent(self) -> None:
        self.session.settings.recent_projects = []
        self.session.settings.sync()
        self.fill_recent_menu()
