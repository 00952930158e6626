"""Settings › Performance: how many CPU threads synthesis uses.

Automatic (the default) uses every core; waiting threads sleep instead of spinning, which keeps
takes going when another program keeps a core busy, and from 4 cores on the speech LM and the audio
decoder run side by side with half of them each (README: Performance). A choice is stored in the
settings and applies from the next take (no reload).

The menu also hands the engine thread the settings' measured real-time factors, which Auto quality
(Settings › Quality) chooses from when a model loads.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from cosycore.threads import usable_cores

from ..config.settings import Settings
from ..worker.engine_thread import EngineThread


class PerformanceMenu(QObject):
    """The Performance submenu of a Settings menu, bound to the settings and the engine thread."""

    def __init__(self, settings_menu: QMenu, settings: Settings, engine: EngineThread) -> None:
        super().__init__(settings_menu)
        self.settings = settings
        self.engine = engine
        self.menu = settings_menu.addMenu(self.tr("&Performance"))
        self.menu.setToolTipsVisible(True)
        cores = usable_cores()
        group = QActionGroup(self)
        self.actions: dict[int, QAction] = {}
        choices = [0, *range(1, max(cores, settings.threads) + 1)]
        for n in choices:
            if n == 0:
                label = self.tr("Threads: automatic ({0})").format(cores)
                tip = self.tr("Use every core. Waiting threads sleep instead of spinning, so a busy computer "
                              "slows a take down gently; from 4 cores on, the speech model and the audio decoder "
                              "also run side by side.")
            else:
                label = self.tr("Threads: {0}").format(n)
                tip = self.tr("Use {0} of the {1} cores for synthesis; fewer leaves more for other programs.").format(
                    n, cores)
            action = self.menu.addAction(label)
            action.setToolTip(tip)
            action.setCheckable(True)
            action.setChecked(settings.threads == n)
            action.triggered.connect(lambda _=False, k=n: self.choose(k))
            group.addAction(action)
            self.actions[n] = action
        engine.torch_threads = settings.threads or None
        engine.rtf_lookup = settings.measured_rtf  # what Auto quality chooses from

    def choose(self, threads: int) -> None:
        """Store the thread count and hand it to the engine thread; the next take uses it."""
        self.settings.threads = threads
        self.settings.sync()
        self.actions[threads].setChecked(True)
        self.engine.set_threads(threads or None)
