"""The Models dialog: installed models, downloads with progress, verify, delete, and folders of one's own.

Downloads and verifications run on a :class:`~app.widgets.model_task.ModelTask` (a ``QThread``)
that calls :mod:`cosycore.hub`; its signals carry plain values. One task runs at a time. The
speech-recognition model that writes voice transcripts has a section of its own
(:class:`~app.widgets.asr_models_section.AsrModelsSection`), downloaded the same way. Cancel sets
the task's event; the download stops within one chunk and keeps what arrived, so the row offers
"Resume" (also after the app was closed). Nothing touches the network until the user presses
Download or Resume.

The main window (or the first-run screen) opens the dialog and connects :attr:`ModelsDialog.model_chosen`
to loading the model; :attr:`ModelsDialog.own_folders_changed` lets it remember folders the user brought.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cosycore import hub as dl
from cosycore.errors import CosyError
from cosycore.hub.catalog import SOURCE_TITLES, SOURCES, Source, entries_of_kind

from .asr_models_section import AsrModelsSection
from .catalog_row import FAMILY_TITLES, PROGRESS_STEPS, CatalogRow
from .model_task import ModelTask, TaskBody, folder_problem, keep_alive

logger = logging.getLogger(__name__)

__all__ = ["FAMILY_TITLES", "PROGRESS_STEPS", "ModelTask", "ModelsDialog", "folder_problem"]

QUIT_WAIT_MS = 10_000


class ModelsDialog(QDialog):
    """Manage the models folder. Owned by whoever opens it; GUI thread only.

    ``models_dir`` is where downloads go (default :func:`cosycore.hub.default_models_dir`);
    ``own_folders`` are model folders elsewhere that the user brought; ``smoke_test`` is what
    "Verify" runs when its test-synthesis box is ticked (default: load with ``CosyModel`` and
    synthesise a few tokens).
    """

    model_chosen = Signal(object)  # Path of the model folder to load
    endpoint_changed = Signal(str)  # the Hugging Face mirror typed by the user ("" for huggingface.co)
    models_changed = Signal()  # something was installed, deleted or forgotten
    models_dir_changed = Signal(object)  # Path: the user chose another models folder
    own_folders_changed = Signal(object)  # tuple[Path, ...]: the folders the user brought
    download_finished = Signal(object)  # InstalledModel
    download_failed = Signal(str)  # message (also for a cancel: the row then offers Resume)
    verify_finished = Signal(object)  # VerifyReport

    def __init__(self, models_dir: Path | None = None, parent: QWidget | None = None, *,
                 source: Source = "huggingface", endpoint: str | None = None,
                 own_folders: Iterable[Path] = (), smoke_test: dl.SmokeTest | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Models"))
        self.setObjectName("modelsDialog")
        self.resize(760, 620)
        self.models_dir = Path(models_dir) if models_dir is not None else dl.default_models_dir()
        self.endpoint = endpoint
        self.own_folders: list[Path] = [Path(p) for p in own_folders]
        self.smoke_test: dl.SmokeTest = smoke_test or dl.synthesis_smoke_test
        self.task: ModelTask | None = None
        self._installed: list[dl.InstalledModel] = []
        self._asr_installed: list[dl.InstalledModel] = []
        self._select_after_task: Path | None = None  # the folder a finished download installed
        self._problems: dict[Path, str] = {}  # folder -> why it cannot be loaded (never offered for use)

        # -- where --------------------------------------------------------------------------
        self.folder_label = QLabel(self)
        self.folder_label.setObjectName("modelsFolder")
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.change_folder_button = QPushButton(self.tr("Change…"), self)
        self.change_folder_button.setToolTip(self.tr("Download models into another folder"))
        self.change_folder_button.clicked.connect(self._on_change_folder_clicked)
        self.source_combo = QComboBox(self)
        self.source_combo.setObjectName("sourceCombo")
        for s in SOURCES:
            self.source_combo.addItem(SOURCE_TITLES[s], s)
        self.source_note = QLabel(self)
        self.source_note.setObjectName("sourceNote")
        self.source_note.setWordWrap(True)
        self.source_note.hide()
        if importlib.util.find_spec("modelscope") is None:
            index = self.source_combo.findData("modelscope")
            model = self.source_combo.model()
            item = model.item(index) if isinstance(model, QStandardItemModel) else None  # it is by default
            why = self.tr("ModelScope is greyed out because the modelscope package is not installed: "
                          "pip install 'cosy-studio[modelscope]', then restart Cosy Studio.")
            if item is not None:
                item.setEnabled(False)
                item.setToolTip(why)
                item.setText(self.tr("%1 (not installed)").replace("%1", SOURCE_TITLES["modelscope"]))
            self.source_note.setText(why)
            self.source_note.show()
        self.source_combo.setCurrentIndex(max(0, self.source_combo.findData(source)))
        self.source_combo.currentIndexChanged.connect(self._on_source_changed)
        self.endpoint_edit = QLineEdit(endpoint or "", self)
        self.endpoint_edit.setObjectName("endpointEdit")
        self.endpoint_edit.setPlaceholderText(self.tr("huggingface.co, or a mirror such as https://hf-mirror.com"))
        self.endpoint_edit.setToolTip(self.tr("Where Hugging Face downloads come from; type a mirror's address if "
                                              "huggingface.co cannot be reached from here"))
        self.endpoint_edit.editingFinished.connect(self._on_endpoint_edited)
        where = QGridLayout()
        where.addWidget(QLabel(self.tr("Models folder:"), self), 0, 0)
        where.addWidget(self.folder_label, 0, 1)
        where.addWidget(self.change_folder_button, 0, 2)
        where.addWidget(QLabel(self.tr("Download from:"), self), 1, 0)
        source_row = QHBoxLayout()
        source_row.addWidget(self.source_combo)
        source_row.addWidget(QLabel(self.tr("Mirror:"), self))
        source_row.addWidget(self.endpoint_edit, 1)
        where.addLayout(source_row, 1, 1, 1, 2)
        where.addWidget(self.source_note, 2, 1, 1, 2)
        where.setColumnStretch(1, 1)

        # -- installed ----------------------------------------------------------------------
        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("installedTable")
        self.table.setHorizontalHeaderLabels([self.tr("Model"), self.tr("Family"), self.tr("Size"), self.tr("Folder")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._on_selection_changed)
        self.table.itemDoubleClicked.connect(lambda _item: self._on_use_clicked())
        self.use_button = QPushButton(self.tr("Use"), self)
        self.use_button.setToolTip(self.tr("Load the selected model"))
        self.use_button.clicked.connect(self._on_use_clicked)
        self.verify_button = QPushButton(self.tr("Verify"), self)
        self.verify_button.setToolTip(self.tr("Check the selected model's files against what was installed"))
        self.verify_button.clicked.connect(self._on_verify_clicked)
        self.smoke_box = QCheckBox(self.tr("with a test synthesis"), self)
        self.smoke_box.setToolTip(self.tr("Also load the model and synthesise a few sounds (takes a while)"))
        self.delete_button = QPushButton(self.tr("Delete…"), self)
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self.own_button = QPushButton(self.tr("Use a folder I already have…"), self)
        self.own_button.setObjectName("useOwnFolderButton")
        self.own_button.setToolTip(self.tr("Pick a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder on disk"))
        self.own_button.clicked.connect(self._on_own_folder_clicked)
        actions = QHBoxLayout()
        for w in (self.use_button, self.verify_button, self.smoke_box, self.delete_button):
            actions.addWidget(w)
        actions.addStretch(1)
        actions.addWidget(self.own_button)
        installed_box = QGroupBox(self.tr("Installed"), self)
        ib = QVBoxLayout(installed_box)
        ib.addWidget(self.table)
        ib.addLayout(actions)

        # -- downloads ----------------------------------------------------------------------
        self.rows: dict[str, CatalogRow] = {}  # every catalogue entry's row, the recognizer's included
        download_box = QGroupBox(self.tr("Download"), self)
        db = QVBoxLayout(download_box)
        for entry in entries_of_kind("tts"):
            self.rows[entry.id] = CatalogRow(entry, download_box)
            db.addWidget(self.rows[entry.id])
        self.asr_section = AsrModelsSection(entries_of_kind("asr"), self)
        self.asr_section.verify_requested.connect(lambda model: self.verify_model(model, smoke=True))
        self.asr_section.delete_requested.connect(lambda model: self.delete_model(model))
        self.rows.update(self.asr_section.rows)
        for model_id, row in self.rows.items():
            row.action.clicked.connect(lambda _checked=False, i=model_id: self._on_row_action_clicked(i))
            row.discard.clicked.connect(lambda _checked=False, i=model_id: self._on_row_discard_clicked(i))

        # -- messages -----------------------------------------------------------------------
        self.error_label = QLabel(self)
        self.error_label.setObjectName("modelsError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b;")
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.status_label = QLabel(self)
        self.status_label.setObjectName("modelsStatus")
        self.status_label.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(where)
        layout.addWidget(installed_box, 1)
        layout.addWidget(download_box)
        layout.addWidget(self.asr_section)
        layout.addWidget(self.error_label)
        layout.addWidget(self.status_label)
        layout.addWidget(buttons)
        self.refresh()

    # -- state --------------------------------------------------------------------------------
    @property
    def source(self) -> Source:
        return self.source_combo.currentData()

    @property
    def busy(self) -> bool:
        return self.task is not None

    def installed(self) -> tuple[dl.InstalledModel, ...]:
        return tuple(self._installed)

    def refresh(self) -> None:
        """Re-read the models folder and redraw the table and the rows."""
        self.folder_label.setText(str(self.models_dir))
        self._installed = list(dl.list_installed(self.models_dir, self.own_folders))
        selected = self.selected_model()
        self.table.setRowCount(len(self._installed))
        self._problems = {m.folder: problem for m in self._installed if (problem := folder_problem(m.folder))}
        for r, m in enumerate(self._installed):
            name = m.name if m.managed else self.tr("%1 (your folder)").replace("%1", m.name)
            problem = self._problems.get(m.folder)
            if problem:
                name = self.tr("✖ %1 (incomplete)").replace("%1", name)
            tip = problem or str(m.folder)
            if m.unverified:  # never shown as verified: the hub published no hash for these files
                name = self.tr("%1 (unverified)").replace("%1", name)
                tip += "\n" + self.tr("No published hash for: %1").replace("%1", ", ".join(m.unverified))
            cells = (name, FAMILY_TITLES.get(m.family, m.family), dl.format_bytes(m.size_bytes), str(m.folder))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                if problem:
                    item.setForeground(QColor("#c0392b"))
                self.table.setItem(r, c, item)
            if selected is not None and m.folder == selected.folder:
                self.table.selectRow(r)
        if self._installed and self.selected_model() is None:
            self.table.selectRow(0)
        self._asr_installed = list(dl.list_installed(self.models_dir, kind="asr"))
        partial = {p.model_id: p for p in dl.list_partial(self.models_dir)}
        have = {m.model_id for m in (*self._installed, *self._asr_installed) if m.model_id}
        # a recognizer put into its folder by hand is the one Transcribe uses: installed, though not ours to delete
        have |= {i for i, row in self.asr_section.rows.items()
                 if any(m.folder == self.models_dir / row.entry.folder for m in self._asr_installed)}
        for model_id, row in self.rows.items():
            running = self.task is not None and self.task.kind == "download" and self.task.key == model_id
            row.draw(installed=model_id in have, partial=partial.get(model_id), running=running, busy=self.busy,
                     models_dir=self.models_dir)
        self.asr_section.set_installed(self._asr_installed, idle=not self.busy)
        self._update_buttons()

    def _update_buttons(self) -> None:
        model = self.selected_model()
        idle = not self.busy
        problem = self._problems.get(model.folder) if model is not None else None
        self.use_button.setEnabled(idle and model is not None and not problem)

        self.verify_button.setEnabled(idle and model is not None)
        self.delete_button.setEnabled(idle and model is not None)
        if model is not None and not model.managed:
            self.delete_button.setText(self.tr("Forget"))
            self.delete_button.setToolTip(self.tr("Remove this folder from the list; nothing is deleted from disk"))
        else:
            self.delete_button.setText(self.tr("Delete…"))
            self.delete_button.setToolTip(self.tr("Delete the selected model from disk"))
        self.own_button.setEnabled(idle)
        self.change_folder_button.setEnabled(idle)
        self.source_combo.setEnabled(idle)
        self.endpoint_edit.setEnabled(idle and self.source == "huggingface")

    def selected_model(self) -> dl.InstalledModel | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self._installed):
            return None
        return self._installed[rows[0].row()]

    def select_folder(self, folder: Path) -> bool:
        for r, m in enumerate(self._installed):
            if m.folder == Path(folder):
                self.table.selectRow(r)
                return True
        return False

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))

    # -- actions ------------------------------------------------------------------------------
    def start_download(self, model_id: str) -> None:
        """Download (or resume) ``model_id`` on a task thread."""
        if self.busy:
            return
        models_dir, source, endpoint = self.models_dir, self.source, self.endpoint or None

        def body(progress: Callable[[dl.DownloadProgress], None], cancel: threading.Event) -> object:
            return dl.download_model(model_id, models_dir, source=source, endpoint=endpoint,
                                     progress=progress, cancel=cancel)

        self._show_error("")
        self.status_label.setText(self.tr("Asking %1 for the file list…").replace("%1", SOURCE_TITLES[source]))
        self._start_task("download", model_id, body, self._on_download_succeeded)

    def cancel(self) -> None:
        """Stop the running download or verification (it keeps what was downloaded)."""
        if self.task is not None:
            self.task.cancel()
            self.status_label.setText(self.tr("Stopping…"))

    def verify_selected(self) -> None:
        model = self.selected_model()
        if model is not None:
            self.verify_model(model, smoke=self.smoke_box.isChecked())

    def verify_model(self, model: dl.InstalledModel, *, smoke: bool) -> None:
        """Check ``model``'s files (and, with ``smoke``, synthesise or transcribe a little) on a task thread.

        The speech recognizer's test transcription runs on the task thread: it is sherpa-onnx, not torch,
        and a recognizer of its own (the Transcribe button's lives on the engine thread).
        """
        if self.busy:
            return
        test = dl.transcription_smoke_test if model.kind == "asr" else self.smoke_test
        folder, smoke_test = model.folder, (test if smoke else None)

        def body(progress: Callable[[dl.DownloadProgress], None], cancel: threading.Event) -> object:
            return dl.verify(folder, hashes=True, smoke_test=smoke_test, progress=progress, cancel=cancel)

        self._show_error("")
        self.status_label.setText(self.tr("Checking %1…").replace("%1", model.name))
        self._start_task("verify", str(folder), body, self._on_verify_succeeded)

    def use_folder(self, folder: Path) -> bool:
        """Take a model folder the user already has: check it, list it and emit :attr:`model_chosen`."""
        try:
            model = dl.describe_folder(folder)
        except CosyError as e:
            self._show_error(str(e))
            return False
        problem = folder_problem(model.folder)
        if problem:  # said here, in the dialog; the folder is not loaded
            self._show_error(self.tr("%1 cannot be used: %2").replace("%1", str(model.folder)).replace("%2", problem))
            return False
        self._show_error("")
        inside = model.folder.resolve().parent == self.models_dir.resolve()
        if not inside and model.folder not in self.own_folders:
            self.own_folders.append(model.folder)
            self.own_folders_changed.emit(tuple(self.own_folders))
        self.refresh()
        self.select_folder(model.folder)
        self.models_changed.emit()
        self.model_chosen.emit(model.folder)
        return True

    def delete_selected(self, *, confirm: bool = True) -> bool:
        model = self.selected_model()
        return model is not None and self.delete_model(model, confirm=confirm)

    def delete_model(self, model: dl.InstalledModel, *, confirm: bool = True) -> bool:
        if self.busy:
            return False
        if not model.managed:  # a folder the user brought: forget it, never delete it
            self.own_folders = [p for p in self.own_folders if p != model.folder]
            self.own_folders_changed.emit(tuple(self.own_folders))
            self.refresh()
            self.models_changed.emit()
            return True
        if confirm:
            answer = QMessageBox.question(
                self, self.tr("Delete model"),
                self.tr("Delete %1 (%2) from %3?").replace("%1", model.name)
                .replace("%2", dl.format_bytes(model.size_bytes)).replace("%3", str(model.folder)))
            if answer != QMessageBox.StandardButton.Yes:
                return False
        try:
            dl.remove(model.folder)
        except CosyError as e:
            self._show_error(str(e))
            self.refresh()
            return False
        self.status_label.setText(self.tr("Deleted %1.").replace("%1", model.name))
        self.refresh()
        self.models_changed.emit()
        return True

    def show_asr(self) -> None:
        """Point at the speech-recognition model (the dialog was opened from a Transcribe button)."""
        self.asr_section.focus_first()
        if not self._asr_installed:
            self.status_label.setText(self.tr("Transcribe needs the speech-recognition model: press its "
                                              "Download button below."))

    def set_models_dir(self, folder: Path) -> None:
        if self.busy:
            return
        self.models_dir = Path(folder)
        self.refresh()
        self.models_dir_changed.emit(self.models_dir)

    # -- task plumbing ------------------------------------------------------------------------
    def _start_task(self, kind: str, key: str, body: TaskBody, on_success: Callable[..., None]) -> ModelTask:
        task = ModelTask(kind, key, body, self)
        task.succeeded.connect(on_success)
        task.progressed.connect(self._on_task_progressed)
        task.failed.connect(self._on_task_failed)
        task.finished.connect(self._on_task_finished)
        self.task = task
        self.refresh()
        task.start()
        return task

    def _on_task_progressed(self, p: dl.DownloadProgress) -> None:
        self.status_label.setText(p.describe())
        task = self.task
        if task is not None and task.kind == "download" and task.key in self.rows:
            row = self.rows[task.key]
            row.progress.setValue(int(PROGRESS_STEPS * p.fraction))
            row.status.setText(p.describe())

    def _on_download_succeeded(self, model: dl.InstalledModel) -> None:
        self.status_label.setText(self.tr("%1 is installed (%2).").replace("%1", model.name)
                                  .replace("%2", dl.format_bytes(model.size_bytes)))
        self._select_after_task = model.folder
        self.download_finished.emit(model)
        self.models_changed.emit()

    def _on_verify_succeeded(self, report: dl.VerifyReport) -> None:
        if report.ok:
            self.status_label.setText(report.summary())
        else:
            self.status_label.setText(self.tr("%1 needs attention.").replace("%1", report.folder.name))
            self._show_error("\n".join(report.problems))
        self.verify_finished.emit(report)

    def _on_task_failed(self, kind: str, message: str) -> None:
        task = self.task
        if kind == "DownloadCancelledError":
            self.status_label.setText(self.tr("Stopped. What was downloaded is kept; press Resume to continue.")
                                      if task is not None and task.kind == "download" else self.tr("Stopped."))
        else:
            self.status_label.setText("")
            if kind == "HubUnreachableError":  # the engine's advice names an environment variable and a flag
                where = message.split(". Check", 1)[0]
                message = self.tr("%1. Check the internet connection and proxy settings, type a mirror under "
                                  "Mirror (for example https://hf-mirror.com) or download from the other source; "
                                  "if the model is already on disk, press “Use a folder I already have…”.").replace(
                    "%1", where)
            self._show_error(message)
        if task is not None and task.kind == "download":
            self.download_failed.emit(message)

    def _on_task_finished(self) -> None:
        task, self.task = self.task, None
        if task is not None:
            task.deleteLater()
        self.refresh()
        if self._select_after_task is not None:
            self.select_folder(self._select_after_task)
            self._select_after_task = None

    def _on_row_action_clicked(self, model_id: str) -> None:
        if self.task is not None and self.task.kind == "download" and self.task.key == model_id:
            self.cancel()
        else:
            self.start_download(model_id)

    def _on_row_discard_clicked(self, model_id: str) -> None:
        if self.busy:
            return
        try:
            dl.discard_partial(model_id, self.models_dir)
        except CosyError as e:
            self._show_error(str(e))
        self.refresh()

    def _on_selection_changed(self) -> None:
        """Selecting a broken folder says why it cannot be used, here in the dialog."""
        self._update_buttons()
        model = self.selected_model()
        problem = self._problems.get(model.folder) if model is not None else None
        if problem and model is not None:
            self._show_error(self.tr("%1 cannot be used: %2").replace("%1", model.name).replace("%2", problem))
        elif self.error_label.text().endswith(tuple(self._problems.values()) or ("\0",)):
            self._show_error("")

    def _on_source_changed(self) -> None:
        self._update_buttons()

    def _on_endpoint_edited(self) -> None:
        text = self.endpoint_edit.text().strip()
        if text and "://" not in text:
            text = "https://" + text
            self.endpoint_edit.setText(text)
        if text != (self.endpoint or ""):
            self.endpoint = text or None
            self.endpoint_changed.emit(text)

    def _on_use_clicked(self) -> None:
        model = self.selected_model()
        if model is not None and not self.busy and model.folder not in self._problems:
            self.model_chosen.emit(model.folder)
            self.accept()

    def _on_verify_clicked(self) -> None:
        self.verify_selected()

    def _on_delete_clicked(self) -> None:
        self.delete_selected()

    def _on_own_folder_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a model release folder"), str(Path.home()))
        if folder:
            self.use_folder(Path(folder))

    def _on_change_folder_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose where models are downloaded"),
                                                  str(self.models_dir.parent))
        if folder:
            self.set_models_dir(Path(folder))

    # -- closing ------------------------------------------------------------------------------
    def done(self, result: int) -> None:
        """Closing the dialog cancels a running task (a download keeps what arrived) and waits for it."""
        task = self.task
        if task is not None:
            task.cancel()
            if not task.wait(QUIT_WAIT_MS):
                # Still inside a network read; let it end on its own without its parent.
                logger.warning("%s %s is still stopping; it will end in the background", task.kind, task.key)
                keep_alive(task)
            self.task = None
        super().done(result)
