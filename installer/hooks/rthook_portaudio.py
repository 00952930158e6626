"""PyInstaller runtime hook: make sounddevice load the PortAudio bundled next to the app on Linux.

sounddevice asks ``ctypes.util.find_library("portaudio")``, which only searches the system. This
runs before the app's own code and answers that one question with the bundled copy, when there is one.
"""

import ctypes.util
import os
import sys


def _install() -> None:
    bundle = getattr(sys, "_MEIPASS", None)
    if not sys.platform.startswith("linux") or bundle is None:
        return
    bundled = os.path.join(bundle, "libportaudio.so.2")
    if not os.path.exists(bundled):
        return
    system_find = ctypes.util.find_library

    def find_library(name: str):
        return bundled if name == "portaudio" else system_find(name)

    ctypes.util.find_library = find_library


_install()
