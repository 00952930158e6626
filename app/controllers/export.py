"""Export: the File › Export action, the save dialog and writing a take to disk."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from cosycore.errors import CosyError

from ..export import FORMATS, export_take, format_for_path, take_metadata
from ..takes import Take, TakeState

if TYPE_CHECKING:
    from ..main_window import MainWindow


class ExportController(QObject):
    """Writes takes to files chosen by the user. Created by the main window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window

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
            self.export(take, Path(path), format_for_path(Path(path), fmt))

    def export(self, take: Take, path: Path, fmt: str = "wav16") -> bool:
        """Write ``take`` to ``path``; a take still being made is exported as far as it got, marked partial."""
        w = self.w
        spec = FORMATS[fmt]
        if path.suffix.lower() != spec.suffix:
            path = path.with_name(path.name + spec.suffix)
        partial = take.state is not TakeState.DONE
        try:
            export_take(path, fmt, take.audio(), take.sample_rate, take.sentences(), take_metadata(take),
                        text=take.text, complete=take.state is TakeState.DONE)
        except CosyError as e:
            w.show_error(self.tr("Export failed"), str(e))
            return False
        if partial:
            take.exported_partial = True
            w.takes.changed(take)
        w.settings.last_export_folder = path.parent
        note = self.tr(" (partial: the take was not complete)") if partial else ""
        w.statusBar().showMessage(self.tr("Exported {0}").format(path.name) + note, 8000)
        return True
