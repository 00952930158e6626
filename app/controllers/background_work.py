"""Long file work (Save as copying a project's takes) off the GUI thread, behind a progress dialog with Cancel.

:func:`run_with_progress` starts the work on a worker thread and waits for it in a local event loop, so
the window keeps painting and the caller still gets the result in order (Save as returns whether it
saved). The dialog is window-modal: nothing in the window can start new work meanwhile. It appears only
when the work takes longer than :data:`SHOW_AFTER_MS`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QProgressDialog, QWidget

SHOW_AFTER_MS = 300  # quicker work shows no dialog
POLL_MS = 40  # how often the dialog follows the worker's progress
STEPS = 1000  # the progress bar's resolution

Work = Callable[[Callable[[int, int], None], Callable[[], bool]], None]  # work(progress(done, total), cancelled)


def run_with_progress(work: Work, *, parent: QWidget, title: str, label: str,
                      dialog_made: Callable[[QProgressDialog], None] | None = None) -> None:
    """Run ``work(progress, cancelled)`` on a worker thread while a progress dialog (``title``, ``label``)
    follows ``progress(done, total)``; its Cancel button makes ``cancelled()`` True, and the work is expected
    to stop at its next step by raising. Returns when the work has ended; re-raises what the work raised.
    ``dialog_made`` is told the dialog (for tests)."""
    done_total = [0, 0]
    cancel = threading.Event()
    errors: list[BaseException] = []

    def progress(done: int, total: int) -> None:
        done_total[0], done_total[1] = done, total  # read by the GUI thread's poll; ints are swapped whole

    def run() -> None:
        try:
            work(progress, cancel.is_set)
        except BaseException as e:
            errors.append(e)

    dialog = QProgressDialog(label, QCoreApplication.translate("background_work", "Cancel"), 0, STEPS, parent)
    dialog.setObjectName("backgroundWorkProgress")
    dialog.setWindowTitle(title)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(SHOW_AFTER_MS)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.canceled.connect(cancel.set)
    if dialog_made is not None:
        dialog_made(dialog)
    thread = threading.Thread(target=run, name="background-work", daemon=True)
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(POLL_MS)

    def poll() -> None:
        done, total = done_total
        if total > 0 and not cancel.is_set():
            dialog.setValue(min(STEPS - 1, int(STEPS * done / total)))  # the dialog closes itself at STEPS
        if not thread.is_alive():
            loop.quit()

    timer.timeout.connect(poll)
    thread.start()
    dialog.setValue(0)  # starts the dialog's own show-after timer
    timer.start()
    loop.exec()
    timer.stop()
    thread.join()
    dialog.close()
    dialog.deleteLater()
    if errors:
        raise errors[0]
