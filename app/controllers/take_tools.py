"""Takes › Edit take… (trim, fades, loudness) and Takes › Export all takes….

An edit is made from the take's original audio, which the store keeps
(:meth:`app.takes.store.TakeStore.apply_edit`); the edited audio is what the take plays and exports.
Export all writes every finished take into one folder through the one atomic writer
(:func:`app.takes.export.export_take`), on a worker thread.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from cosycore.errors import CosyError, StorageError
from cosycore.studio.take import Take, TakeState

from ..config.settings import Settings
from ..takes import edit as take_edit
from ..takes.export import FORMATS, export_take, take_metadata
from ..takes.store import TakeStore
from ..takes.take import TakeList
from ..widgets.export_all_dialog import ExportAllDialog
from ..widgets.take_edit_dialog import TakeEditDialog


class TakeToolsController(QObject):
    """The Edit take and Export all takes actions. Built by the main window from its collaborators."""

    _exported = Signal(int, str)  # files written, folder (from the worker thread, queued)
    _failed = Signal(str)  # message (from the worker thread, queued)
    export_all_finished = Signal(list)  # Paths written

    def __init__(self, store: TakeStore, takes: TakeList, settings: Settings, *, menu: QMenu, parent: QWidget,
                 chosen_take: Callable[[], Take | None], show_again: Callable[[Take], None],
                 show_status: Callable[[str, int], None], show_error: Callable[[str, str], None]) -> None:
        super().__init__(parent)
        self.store = store
        self.takes = takes
        self.settings = settings
        self.parent_widget = parent
        self.chosen_take = chosen_take
        self.show_again = show_again
        self.show_status = show_status
        self.show_error = show_error
        self.edit_dialog: TakeEditDialog | None = None
        self.export_dialog: ExportAllDialog | None = None
        self._written: list[Path] = []
        self._exported.connect(self._on_exported)
        self._failed.connect(lambda message: self.show_error(self.tr("Export failed"), message))
        self.edit_action = QAction(self.tr("&Edit take…"), parent)
        self.edit_action.setObjectName("editTakeAction")
        self.edit_action.setShortcut(QKeySequence("Ctrl+T"))
        self.edit_action.setToolTip(self.tr("Trim, fade and normalise the loudness of the shown take; the "
                                            "original is kept"))
        self.edit_action.triggered.connect(lambda: self.open_edit_dialog())
        self.export_all_action = QAction(self.tr("Export &all takes…"), parent)
        self.export_all_action.setObjectName("exportAllAction")
        self.export_all_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.export_all_action.triggered.connect(lambda: self.open_export_all_dialog())
        menu.addAction(self.edit_action)
        menu.addAction(self.export_all_action)
        menu.addSeparator()

    # -- editing ----------------------------------------------------------------------------------
    def _loudness_text(self, take: Take) -> str:
        try:
            value = take_edit.loudness(take.audio(), take.sample_rate)
        except take_edit.EditError as e:
            return str(e)
        return self.tr("{0:.1f} LUFS").format(value) if value > float("-inf") else self.tr("silence")

    def open_edit_dialog(self, take: Take | None = None) -> TakeEditDialog | None:
        take = take or self.chosen_take()
        if take is None or take.state is TakeState.STREAMING or take.samples == 0:
            self.show_status(self.tr("Choose a finished take to edit."), 5000)
            return None
        try:
            original, _, _ = self.store.original_audio(take)
            current = take_edit.TakeEdit.from_json(take.edit) if take.edit else take_edit.TakeEdit()
        except (CosyError, ValueError, KeyError) as e:
            self.show_error(self.tr("Cannot edit take {0}").format(take.number), str(e))
            return None
        if self.edit_dialog is not None:
            self.edit_dialog.close()
            self.edit_dialog.deleteLater()
        dialog = TakeEditDialog(self.tr("Edit take {0}").format(take.number), original.shape[0] / take.sample_rate,
                                current, self._loudness_text(take), self.parent_widget)
        dialog.apply_requested.connect(lambda edit: self.apply(take, edit))
        self.edit_dialog = dialog
        dialog.show()
        return dialog

    def apply(self, take: Take, edit: take_edit.TakeEdit) -> bool:
        """Make ``take`` its original audio with ``edit`` applied (an identity edit: the original again)."""
        try:
            audio, seams, spans = self.store.original_audio(take)
            if edit.is_identity:
                self.store.apply_edit(take, None, audio, seams, spans)
            else:
                new_audio, new_seams, new_spans = take_edit.apply(edit, audio, take.sample_rate, seams, spans)
                self.store.apply_edit(take, edit.to_json(), new_audio, new_seams, new_spans)
        except (take_edit.EditError, StorageError) as e:
            self.show_error(self.tr("Cannot edit take {0}").format(take.number), str(e))
            return False
        self.takes.changed(take)
        self.show_again(take)
        if self.edit_dialog is not None:
            self.edit_dialog.set_loudness_text(self._loudness_text(take))
        self.show_status(self.tr("Take {0}: back to the original.").format(take.number) if edit.is_identity
                         else self.tr("Take {0} edited; the original is kept.").format(take.number), 5000)
        return True

    # -- exporting every take -------------------------------------------------------------------
    def open_export_all_dialog(self) -> ExportAllDialog | None:
        finished = [t for t in self.takes if t.state is not TakeState.STREAMING and t.samples > 0]
        if not finished:
            self.show_status(self.tr("There are no takes to export yet."), 5000)
            return None
        folder = self.settings.last_export_folder or Path.home()
        dialog = ExportAllDialog(len(finished), folder, "wav16", self.parent_widget)
        dialog.accepted.connect(lambda: self._on_dialog_accepted(dialog))
        self.export_dialog = dialog
        dialog.open()
        return dialog

    def _on_dialog_accepted(self, dialog: ExportAllDialog) -> None:
        folder, fmt = dialog.folder, dialog.fmt
        takes = [t for t in self.takes if t.state is not TakeState.STREAMING and t.samples > 0]
        existing = [p for p in self.targets(takes, folder, fmt) if p.exists()]
        replace = False
        if existing:
            answer = QMessageBox.question(
                self.parent_widget, self.tr("Replace files?"),
                self.tr("{0} of these files exist already:\n{1}\nReplace them? (No: skip those takes.)").format(
                    len(existing), "\n".join(p.name for p in existing[:10])),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No | QMessageBox.StandardButton.Cancel)
            if answer == QMessageBox.StandardButton.Cancel:
                return
            replace = answer == QMessageBox.StandardButton.Yes
        self.export_all(takes, folder, fmt, replace=replace, background=True)

    @staticmethod
    def targets(takes: list[Take], folder: Path, fmt: str) -> list[Path]:
        """One file per take, named after it; two takes of one name get the take number to tell them apart."""
        suffix = FORMATS[fmt].suffix
        seen: set[str] = set()
        paths = []
        for take in takes:
            stem = take.file_stem()
            if stem in seen:
                stem = f"{stem} ({take.uid[-6:]})"
            seen.add(stem)
            paths.append(folder / f"{stem}{suffix}")
        return paths

    def export_all(self, takes: list[Take], folder: Path, fmt: str, *, replace: bool = False,
                   background: bool = False) -> list[Path]:
        """Write ``takes`` into ``folder`` (made if missing); existing files are skipped unless ``replace``.

        Returns the paths to write; with ``background`` they are written on a worker thread."""
        jobs = [(path, take.audio(), take.sample_rate, take_metadata(take))
                for take, path in zip(takes, self.targets(takes, folder, fmt), strict=True)
                if replace or not path.exists()]

        def write() -> None:
            written = 0
            try:
                folder.mkdir(parents=True, exist_ok=True)
                for path, audio, rate, metadata in jobs:
                    export_take(path, fmt, audio, rate, metadata=metadata)
                    written += 1
            except (CosyError, OSError) as e:
                with contextlib.suppress(RuntimeError):
                    self._failed.emit(f"{e}\n{written} of {len(jobs)} takes were written to {folder}.")
            with contextlib.suppress(RuntimeError):
                self._exported.emit(written, str(folder))

        self._written = [job[0] for job in jobs]
        if background:
            self.show_status(self.tr("Exporting {0} takes…").format(len(jobs)), 0)
            threading.Thread(target=write, name="export-all", daemon=False).start()
        else:
            write()
        return self._written

    def _on_exported(self, written: int, folder: str) -> None:
        self.settings.last_export_folder = Path(folder)
        self.show_status(self.tr("Exported {0} takes to {1}").format(written, folder), 8000)
        self.export_all_finished.emit(self._written[:written])
