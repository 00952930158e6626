"""Export: the File › Export action, the save dialog and writing a take to disk (a script take with its
subtitles and stems)."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from cosycore.errors import CosyError
from cosycore.studio.script_take import ScriptInfo
from cosycore.studio.take import Take, TakeState

from ..session import StudioSession
from ..takes.export import FORMATS, export_take, format_for_path, take_metadata
from ..takes.script_export import plan_export, write_script_export
from ..widgets.script_export_dialog import ScriptExportDialog
from ..widgets.takes_list import TakesList


class ExportController(QObject):
    """Writes takes to files chosen by the user. Built by the main window from the session, the File ›
    Export action and the takes list.

    Exports asked for in the dialog are encoded and written on a worker thread, so a long take never
    freezes the window; :meth:`export` itself (scripts, tests) writes before it returns.
    """

    _written = Signal(object, object, bool)  # Take, Path, partial (from the worker thread, queued)
    _failed = Signal(str)  # message (from the worker thread, queued)
    finished = Signal(bool)  # an export ended: True when the file was written

    def __init__(self, session: StudioSession, *, export_action: QAction, takes_view: TakesList,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.export_action = export_action
        self.takes_view = takes_view
        self.parent_widget = parent  # dialogs open over it
        self._written.connect(self._on_written)
        self._failed.connect(self._on_failed)
        self.running = 0  # background exports not finished yet

    def wire(self) -> None:
        self.export_action.triggered.connect(self._on_export_action_triggered)
        self.takes_view.export_requested.connect(self.export_dialog)

    def _on_export_action_triggered(self) -> None:
        take = self.session.shown_take or self.session.current_take
        if take is None:
            self.session.show_status(self.tr("There is no take to export yet."), 5000)
            return
        self.export_dialog(take)

    def export_dialog(self, take: Take) -> None:
        if take.script is not None:
            self.script_export_dialog(take)
            return
        filters = {
            self.tr("WAV, 16-bit PCM (*.wav)"): "wav16",
            self.tr("WAV, 32-bit float (*.wav)"): "wav_float",
            self.tr("FLAC (*.flac)"): "flac",
            self.tr("MP3 (*.mp3)"): "mp3",
            self.tr("Ogg Vorbis (*.ogg)"): "ogg",
            self.tr("Subtitles, SRT (*.srt)"): "srt",
        }
        folder = self.session.settings.last_export_folder or Path.home()
        suggested = str(folder / f"{take.file_stem()}.wav")
        path, chosen = QFileDialog.getSaveFileName(self.parent_widget, self.tr("Export take {0}").format(take.number),
                                                   suggested, ";;".join(filters))
        if path:
            fmt = filters.get(chosen, "wav16")
            self.export(take, Path(path), format_for_path(Path(path), fmt), background=True)

    def export(self, take: Take, path: Path, fmt: str = "wav16", *, background: bool = False) -> bool:
        """Write ``take`` to ``path``; a take still being made is exported as far as it got, marked partial.

        With ``background`` the file is encoded and written on a worker thread and the status bar says
        when it is done; the return value then says only that the export started.
        """
        spec = FORMATS[fmt]
        if path.suffix.lower() != spec.suffix:
            path = path.with_name(path.name + spec.suffix)
        partial = take.state is TakeState.STREAMING  # a take stopped on purpose is exported whole
        complete = take.state is TakeState.DONE  # subtitles of a stopped take end where its audio does
        # Everything the worker needs, taken now on the GUI thread (the take keeps growing while streaming).
        job = (path, fmt, take.audio(), take.sample_rate, take.sentences(), take_metadata(take), take.text, complete)

        def write() -> bool:
            try:
                export_take(job[0], job[1], job[2], job[3], job[4], job[5], text=job[6], complete=job[7])
            except CosyError as e:
                with contextlib.suppress(RuntimeError):  # the window closed meanwhile
                    self._failed.emit(str(e))
                return False
            with contextlib.suppress(RuntimeError):
                self._written.emit(take, path, partial)
            return True

        if not background:
            return write()
        self.running += 1
        self.session.show_status(self.tr("Exporting {0}…").format(path.name))
        threading.Thread(target=write, name="export", daemon=False).start()
        return True

    def script_export_dialog(self, take: Take) -> None:
        """A script take: the audio, and (asked) SRT/VTT subtitles with the speakers and one file per speaker."""
        assert take.script is not None
        folder = self.session.settings.last_export_folder or Path.home()
        dialog = ScriptExportDialog(folder / f"{take.file_stem()}.wav", self.parent_widget)
        if not dialog.exec():
            return
        path, fmt = dialog.path, dialog.fmt
        plan = plan_export(path, fmt, take.script.speakers(), srt=dialog.srt_check.isChecked(),
                           vtt=dialog.vtt_check.isChecked(), stems=dialog.stems_check.isChecked())
        existing = [p for p in plan.paths() if p.exists()]
        if existing:
            shown = "\n".join(str(p) for p in existing[:10])
            answer = QMessageBox.question(self.parent_widget, self.tr("Replace files?"),
                                          self.tr("These files exist already and would be replaced:\n{0}")
                                          .format(shown))
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.export_script(take, path, fmt, srt=plan.srt is not None, vtt=plan.vtt is not None,
                           stems=bool(plan.stems), background=True)

    def export_script(self, take: Take, path: Path, fmt: str = "wav16", *, srt: bool = True, vtt: bool = False,
                      stems: bool = False, background: bool = False) -> bool:
        """Write a script take's audio to ``path`` and, asked for, ``.srt``/``.vtt`` beside it (one cue per line,
        with the speaker's name) and the stems in the folder ``<name> stems`` beside it."""
        info = take.script
        if info is None:
            raise ValueError(f"take {take.number} is not a script take")
        plan = plan_export(path, fmt, info.speakers(), srt=srt, vtt=vtt, stems=stems)
        partial = take.state is TakeState.STREAMING
        audio = take.audio()
        cues = info.cues(take.sample_rate)
        snapshot = ScriptInfo.from_json(info.to_json())  # the take may stream on or change meanwhile
        metadata = take_metadata(take)

        def write() -> bool:
            try:
                stem_audio = snapshot.stems(audio) if stems else {}
                write_script_export(plan, fmt, audio, take.sample_rate, cues, stem_audio, metadata)
            except CosyError as e:
                with contextlib.suppress(RuntimeError):
                    self._failed.emit(str(e))
                return False
            with contextlib.suppress(RuntimeError):
                self._written.emit(take, plan.audio, partial)
            return True

        if not background:
            return write()
        self.running += 1
        self.session.show_status(self.tr("Exporting {0}…").format(plan.audio.name))
        threading.Thread(target=write, name="export", daemon=False).start()
        return True

    def _on_failed(self, message: str) -> None:
        self.running = max(0, self.running - 1)
        self.session.show_error(self.tr("Export failed"), message)
        self.finished.emit(False)

    def _on_written(self, take: Take, path: Path, partial: bool) -> None:
        s = self.session
        self.running = max(0, self.running - 1)
        if partial:
            take.exported_partial = True
            s.takes.changed(take)
        s.settings.last_export_folder = path.parent
        note = self.tr(" (partial: the take was not complete)") if partial else ""
        s.show_status(self.tr("Exported {0}").format(path.name) + note, 8000)
        self.finished.emit(True)
