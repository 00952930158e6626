"""The Models dialog's worker: one download or verification on its own thread, and folder checks.

:class:`ModelTask` is a ``QThread`` that calls :mod:`cosycore.hub`; its signals carry plain values
(:class:`~cosycore.hub.DownloadProgress`, :class:`~cosycore.hub.InstalledModel`,
:class:`~cosycore.hub.VerifyReport`, strings). :func:`keep_alive` holds a task whose dialog went
away until it ends by itself. :func:`folder_problem` says why a release folder cannot be loaded.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QThread, Signal
from PySide6.QtWidgets import QWidget

from cosycore import hub as dl
from cosycore.config import load_model_config
from cosycore.errors import CosyError
from cosycore.hub.catalog import required_files_for

logger = logging.getLogger(__name__)

_RUNNING: set[ModelTask] = set()  # tasks whose dialog went away before they ended; kept alive until they do

TaskBody = Callable[[Callable[[dl.DownloadProgress], None], threading.Event], object]


def folder_problem(folder: Path) -> str | None:
    """Why a model folder cannot be loaded (its config, or a file its family needs is missing), or None."""
    try:
        cfg = load_model_config(folder)
    except CosyError as e:
        return str(e)
    missing = [name for name in required_files_for(cfg.family) if not (Path(folder) / name).is_file()]
    if missing:
        return QCoreApplication.translate("ModelsDialog", "%1 is missing. Download the model again (Resume keeps "
                                          "what is there) or choose a complete folder.").replace(
            "%1", ", ".join(missing))
    return None


class ModelTask(QThread):
    """Runs one download or verification off the GUI thread and reports through signals.

    ``body(progress, cancel)`` does the work; it is given a progress callback (emitting
    :attr:`progressed`) and the cancel event :meth:`cancel` sets. Errors become :attr:`failed`.
    """

    progressed = Signal(object)  # DownloadProgress
    succeeded = Signal(object)  # whatever the body returned (InstalledModel, VerifyReport)
    failed = Signal(str, str)  # error kind (class name), message for people

    def __init__(self, kind: str, key: str, body: TaskBody, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind  # "download" or "verify"
        self.key = key  # catalogue id or folder path
        self._body = body
        self._cancel = threading.Event()

    def cancel(self) -> None:
        """Ask the work to stop (thread-safe); it ends at the next chunk with a cancel error."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> None:
        try:
            result = self._body(self.progressed.emit, self._cancel)
        except CosyError as e:
            logger.warning("%s %s stopped: %s", self.kind, self.key, e)
            self.failed.emit(type(e).__name__, str(e))
            return
        except Exception as e:  # the thread boundary: report, never let it pass silently
            logger.exception("%s %s failed", self.kind, self.key)
            self.failed.emit(type(e).__name__, f"Unexpected error: {e}")
            return
        self.succeeded.emit(result)


def keep_alive(task: ModelTask) -> None:
    """Keep ``task`` (parentless now) referenced until it has finished on its own."""
    task.setParent(None)
    _RUNNING.add(task)
    task.finished.connect(lambda t=task: _RUNNING.discard(t))
