"""Audio devices: the Settings › Output device menu and the status bar's audio label."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QActionGroup

if TYPE_CHECKING:
    from ..main_window import MainWindow


class DevicesController(QObject):
    """Chooses the player's output device and says which one is in use. Created by the main window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window

    def connect(self) -> None:
        self.w.output_menu.aboutToShow.connect(self._fill_output_menu)

    def update_audio_status(self) -> None:
        w = self.w
        device = w.player.device
        if device is None:
            w.audio_label.setText(self.tr("No audio device — export still works"))
        else:
            w.audio_label.setText(self.tr("Output: {0}").format(device.name))

    def _fill_output_menu(self) -> None:
        menu = self.w.output_menu
        player = self.w.player
        menu.clear()
        devices = player.refresh_devices()
        if not devices:
            action = menu.addAction(self.tr("No audio device"))
            action.setEnabled(False)
        current = player.device.name if player.device else ""
        group = QActionGroup(menu)
        for d in devices:
            action = menu.addAction(f"{d.name} ({d.hostapi})")
            action.setCheckable(True)
            action.setChecked(d.name == current)
            action.triggered.connect(lambda _=False, n=d.name: self.choose_output_device(n))
            group.addAction(action)
        self.update_audio_status()

    def choose_output_device(self, name: str) -> None:
        self.w.player.set_device(name)
        self.w.settings.output_device = name
        self.update_audio_status()
