"""Audio devices: the Settings › Output device menu and the status bar's audio label."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QLabel, QMenu

from ..session import StudioSession


class DevicesController(QObject):
    """Chooses the player's output device and says which one is in use. Built by the main window from the
    session, the Output device menu and the status bar's audio label."""

    def __init__(self, session: StudioSession, *, output_menu: QMenu, audio_label: QLabel,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.output_menu = output_menu
        self.audio_label = audio_label

    def wire(self) -> None:
        self.output_menu.aboutToShow.connect(self._fill_output_menu)
        self.session.player.state_changed.connect(lambda _state: self.update_audio_status())

    def update_audio_status(self) -> None:
        if not self.session.player.found:  # not looked for yet (the window's first frame comes first)
            self.audio_label.setText("")
            return
        device = self.session.player.device
        if device is None:
            self.audio_label.setText(self.tr("No audio device — export still works"))
        else:
            self.audio_label.setText(self.tr("Output: {0}").format(device.name))

    def _fill_output_menu(self) -> None:
        menu = self.output_menu
        player = self.session.player
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
        self.session.player.set_device(name)
        self.session.settings.output_device = name
        self.update_audio_status()
