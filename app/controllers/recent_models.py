"""File › Recent models: every model folder loaded before, one click to switch to it.

Each folder that loads is remembered (:attr:`app.config.settings.Settings.recent_models`, the newest
first); the Models dialog lists them too (as folders the user brought).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from ..session import StudioSession


class RecentModelsController(QObject):
    """Fills the Recent models menu and remembers loaded folders. Built by the main window."""

    def __init__(self, session: StudioSession, *, menu: QMenu, try_model_dir: Callable[[Path], bool],
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.menu = menu
        self.try_model_dir = try_model_dir
        menu.setObjectName("recentModelsMenu")
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self.fill)
        session.model_changed.connect(self._on_model_changed)
        self.fill()

    def _on_model_changed(self, info: object) -> None:
        folder = getattr(info, "model_dir", None)
        if folder:
            settings = self.session.settings
            settings.add_recent_model(Path(folder))
            settings.sync()
            self.fill()

    def fill(self) -> list[QAction]:
        self.menu.clear()
        info = self.session.model_info
        current = Path(info.model_dir) if info is not None else None
        actions = []
        for i, folder in enumerate(self.session.settings.recent_models):
            label = f"&{i + 1} {folder.name}" if i < 9 else folder.name
            action = self.menu.addAction(label)
            action.setToolTip(str(folder))
            action.setCheckable(True)
            action.setChecked(current is not None and folder == current)
            if not folder.is_dir():
                action.setText(self.tr("{0} (missing)").format(label))
                action.setEnabled(False)
            action.triggered.connect(lambda _=False, f=folder: self.switch(f))
            actions.append(action)
        if not actions:
            empty = self.menu.addAction(self.tr("(none yet)"))
            empty.setEnabled(False)
        self.menu.setEnabled(True)
        return actions

    def switch(self, folder: Path) -> bool:
        """Load ``folder`` (the studio stays in view while it loads); the loaded one is left as it is."""
        info = self.session.model_info
        if info is not None and Path(info.model_dir) == folder:
            self.session.show_status(self.tr("{0} is loaded already.").format(folder.name), 4000)
            return False
        return self.try_model_dir(folder)
