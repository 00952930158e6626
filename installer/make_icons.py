"""Render the app icon (``resources/icons/app.svg``) to the raster files the installers need.

    .venv/bin/python installer/make_icons.py

writes ``resources/icons/cosy-studio.png`` (256 px: the Linux desktop entry and AppImage) and
``cosy-studio.ico`` (Windows, 256 px; Windows scales it down). macOS needs an
``.icns``; make it on a Mac from the png with ``iconutil`` (see installer/README.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"


def render(size: int):  # -> QImage
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(ICONS / "app.svg"))
    if not renderer.isValid():
        raise SystemExit(f"{ICONS / 'app.svg'} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QImageWriter

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    png = ICONS / "cosy-studio.png"
    if not render(256).save(str(png), "PNG"):
        raise SystemExit(f"could not write {png}")
    print(f"wrote {png}")
    if b"ico" in [bytes(f.data()) for f in QImageWriter.supportedImageFormats()]:
        ico = ICONS / "cosy-studio.ico"
        if render(256).save(str(ico), "ICO"):
            print(f"wrote {ico}")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
