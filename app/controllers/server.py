"""Settings › Local server: the OpenAI-compatible speech server on the model the app has loaded.

:class:`ServerController` starts and stops ``cosycore.server`` (uvicorn on a thread, on 127.0.0.1
only) and hands it an :class:`AppEngineHost`, which queues every request to the app's
:class:`~app.worker.engine_thread.EngineThread`. So the server speaks with the loaded engine, never loads
a second model, and its requests take turns with the app's own takes on the one thread that owns
torch. :class:`LocalServerDialog` is the switch: start/stop, the port, an optional API key, the URL
to give clients, and what the server is doing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from cosycore.errors import CosyError
from cosycore.voices import VoiceLibrary

from ..config.settings import Settings
from ..worker.engine_thread import EngineThread

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"  # the app serves this machine only; `cosycore serve --host … --api-key …` serves others


class AppEngineHost:
    """The server's :class:`cosycore.server.worker.EngineHost` on the app's engine thread."""

    def __init__(self, engine: EngineThread) -> None:
        self._engine = engine

    def submit(self, job: Any) -> None:
        self._engine.run_on_engine(job)

    def model_facts(self) -> Any:
        from cosycore.server.worker import ModelFacts

        info = self._engine.model_info
        if info is None:
            return None
        return ModelFacts(id=Path(info.model_dir).name, family=info.family, sample_rate=info.sample_rate)


class ServerController(QObject):
    """Owns the running server (at most one); created by the main window."""

    state_changed = Signal()  # started, stopped or failed: read url / error

    def __init__(self, engine: EngineThread, library: VoiceLibrary, settings: Settings,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.library = library
        self.settings = settings
        self.url = ""  # the base URL clients use ("…/v1"), while running
        self.error = ""  # why the last start failed
        self._runner: Any = None
        self._worker: Any = None

    @property
    def running(self) -> bool:
        return self._runner is not None

    def stats(self) -> Any:
        """The queue's counters (cosycore.server.worker.WorkerStats), or None when stopped."""
        return self._worker.stats() if self._worker is not None else None

    def start(self, port: int, api_key: str = "") -> bool:
        """Serve on 127.0.0.1:``port``; False (and :attr:`error`) if it could not start."""
        self.stop()
        try:
            from cosycore.server.app import ServerOptions, create_app
            from cosycore.server.run import ServerThread
            from cosycore.server.worker import SpeechWorker

            worker = SpeechWorker(AppEngineHost(self.engine))
            app = create_app(worker, self.library, ServerOptions(api_key=api_key.strip() or None))
            runner = ServerThread(app, HOST, int(port))
            url = runner.start()
        except (CosyError, ImportError, OSError) as e:
            self.error = str(e)
            logger.warning("the local server did not start: %s", e)
            self.state_changed.emit()
            return False
        self._runner, self._worker = runner, worker
        self.url, self.error = url + "/v1", ""
        self.settings.server_port = int(port)
        self.settings.server_api_key = api_key.strip()
        self.settings.sync()
        logger.info("local server at %s", self.url)
        self.state_changed.emit()
        return True

    def stop(self) -> None:
        """Cancel what the server is doing and stop it (waits a few seconds at most)."""
        runner, worker = self._runner, self._worker
        if runner is None:
            return
        self._runner = self._worker = None
        worker.close()
        if not runner.stop():
            logger.error("the local server thread did not stop")
        self.url = ""
        self.state_changed.emit()


class LocalServerDialog(QDialog):
    """Settings › Local server…: the switch, port, API key, URL and status."""

    def __init__(self, controller: ServerController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle(self.tr("Local server"))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        intro = QLabel(self.tr("Serve the loaded model and your saved voices to other programs on this computer "
                               "through the OpenAI speech API (POST /v1/audio/speech; the voice is a saved "
                               "voice's name)."), self)
        intro.setWordWrap(True)
        self.port = QSpinBox(self)
        self.port.setRange(1024, 65535)
        self.port.setValue(controller.settings.server_port)
        self.api_key = QLineEdit(controller.settings.server_api_key, self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        self.api_key.setPlaceholderText(self.tr("optional"))
        self.api_key.setToolTip(self.tr("Clients must then send the header 'Authorization: Bearer KEY'"))
        self.url = QLineEdit(self)
        self.url.setReadOnly(True)
        self.copy_button = QPushButton(self.tr("Copy"), self)
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.url.text()))
        url_row = QHBoxLayout()
        url_row.addWidget(self.url, 1)
        url_row.addWidget(self.copy_button)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(self.status.fontMetrics().lineSpacing() * 3)  # room for the wrapped counters
        form = QFormLayout()
        form.addRow(self.tr("&Port:"), self.port)
        form.addRow(self.tr("API &key:"), self.api_key)
        form.addRow(self.tr("URL:"), url_row)
        form.addRow(self.tr("Status:"), self.status)
        self.switch = QPushButton(self)
        self.switch.clicked.connect(self.toggle)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        buttons.addButton(self.switch, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()
        controller.state_changed.connect(self.refresh)
        self.refresh()
        self.switch.setFocus()

    def toggle(self) -> None:
        if self.controller.running:
            self.controller.stop()
        else:
            self.controller.start(self.port.value(), self.api_key.text())

    def refresh(self) -> None:
        c = self.controller
        running = c.running
        self.switch.setText(self.tr("&Stop") if running else self.tr("&Start"))
        self.port.setEnabled(not running)
        self.api_key.setEnabled(not running)
        self.url.setText(c.url if running else f"http://{HOST}:{self.port.value()}/v1")
        self.copy_button.setEnabled(running)
        info = c.engine.model_info
        if running and info is None:
            text = self.tr("Running, but no model is loaded yet: requests are refused until one is.")
        elif running and info is not None:
            s = c.stats()
            text = self.tr("Serving {model}: {running} running, {waiting} waiting, {served} served, "
                           "{cancelled} cancelled, {failed} failed.").format(
                model=Path(info.model_dir).name, running=s.running, waiting=s.waiting,
                served=s.served, cancelled=s.cancelled, failed=s.failed)
        elif c.error:
            text = self.tr("Not running: {error}").format(error=c.error)
        else:
            text = self.tr("Not running.")
        self.status.setText(text)
