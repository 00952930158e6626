"""PyInstaller hook for sounddevice: ship the PortAudio library it loads at run time.

sounddevice opens PortAudio with ctypes/cffi, so PyInstaller cannot see the dependency.

* Windows and macOS wheels carry PortAudio in ``_sounddevice_data/portaudio-binaries``; the
  library goes to the same relative place in the bundle, where sounddevice looks for it.
* On Linux sounddevice uses the system's ``libportaudio.so.2``. It is copied to the bundle root,
  and the runtime hook ``rthook_portaudio.py`` makes sounddevice load that copy, so the bundle
  also plays sound on machines without the libportaudio2 package.

This file replaces pyinstaller-hooks-contrib's hook of the same name (installer/hooks comes first
on the spec's hook path).
"""

import ctypes.util
import os
import subprocess
from pathlib import Path

from PyInstaller.utils.hooks import get_module_file_attribute, logger

binaries = []
datas = []
hiddenimports = []

_module_dir = Path(get_module_file_attribute("sounddevice")).parent
_wheel_libs = _module_dir / "_sounddevice_data" / "portaudio-binaries"


def _linux_portaudio():
    """Full path of the system's PortAudio (the soname link, so the bundled copy keeps that name)."""
    soname = ctypes.util.find_library("portaudio")
    if soname is None:
        return None
    if os.path.isabs(soname):
        return soname
    try:
        listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        listing = ""
    for line in listing.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.split(" ", 1)[0] == soname and os.path.exists(path):
            return path
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
                   "/usr/local/lib"):
        candidate = os.path.join(folder, soname)
        if os.path.exists(candidate):
            return candidate
    return None


if _wheel_libs.is_dir():
    for _lib in _wheel_libs.glob("libportaudio*"):
        binaries.append((str(_lib), "_sounddevice_data/portaudio-binaries"))
    hiddenimports.append("_sounddevice_data")
else:
    _lib = _linux_portaudio()
    if _lib is not None:
        binaries.append((_lib, "."))
        logger.info("sounddevice: bundling %s", _lib)

if not binaries:
    logger.warning("sounddevice: no PortAudio library found to bundle; the app will have no sound "
                   "(install libportaudio2 before building)")
