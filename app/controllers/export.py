"""Export: the File › Export action, the save dialog and writing a take to disk."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog

from cosycore.errors import CosyError

from ..export import FORMATS, export_take, format_for_path, take_metadata
from ..takes import Take, TakeState

if TYPE_CHECKING:
    from ..main_window import MainWindow


class ExportController(QObject):
    """Writes takes to files chosen by the user. Created by the main window.

    Exports asked for in the dialog are encoded and written on a worker thread, so a long take never
    freezes the window; :meth:`export` itself (scripts, tests) writes before it returns.
    """

    _written = Signal(object, object, bool)  # Take, Path, partial (from the worker thread, queued)
    _failed = Signal(str)  # message (from the worker thread, queued)
    finished = Signal(bool)  # an export ended: True when the file was written

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self._written.connect(self._on_written)
        self._failed.connect(self._on_failed)
        self.running = 0  # background exports not finished yet

    def connect(self) -> None:
        self.w.export_action.triggered.connect(self._on_export_action_triggered)
        self.w.takes_view.export_requested.connect(self.export_dialog)

    def _on_export_action_triggered(self) -> None:
        w = self.w
        take = w.takes_ctl.shown or w.takes_ctl.current
        if take is None:
            w.statusBar().showMessage(self.tr("There is no take to export yet."), 5000)
            return
        self.export_dialog(take)

    def export_dialog(self, take: Take) -> None:
        filters = {
            self.tr("WAV, 16-bit PCM (*.wav)"): "wav16",
            self.tr("WAV, 32-bit float (*.wav)"): "wav_float",
            self.tr("FLAC (*.flac)"): "flac",
            self.tr("Subtitles, SRT (*.srt)"): "srt",
        }
        folder = self.w.settings.last_export_folder or Path.home()
        suggested = str(folder / f"{take.file_stem()}.wav")
        path, chosen = QFileDialog.getSaveFileName(self.w, self.tr("Export take {0}").format(take.number), suggested,
                                                   ";;".join(filters))
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
        partial = take.state is not TakeState.DONE
        # Everything the worker needs, taken now on the GUI thread (the take keeps growing while streaming).
        job = (path, fmt, take.audio(), take.sample_rate, take.sentences(), take_metadata(take), take.text, not partial)

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
        self.w.statusBar().showMessage(self.tr("Exporting {0}…").format(path.name))
        threading.Thread(target=write, name="export", daemon=False).start()
        return True

    def _on_failed(self, message: str) -> None:
        self.running = max(0, self.running - 1)
        self.w.show_error(self.tr("Export failed"), message)
        self.finished.emit(False)

    def _on_written(self, take: Take, path: Path, partial: bool) -> None:
        w = self.w
        self.running = max(0, self.running - 1)
        if partial:
            take.exported_partial = True
            w.takes.changed(take)
        w.settings.last_export_folder = path.parent
        note = self.tr(" (partial: the take was not complete)") if partial else ""
        w.statusBar().showMessage(self.tr("Exported {0}").format(path.name) + note, 8000)
        self.finished.emit(True)
