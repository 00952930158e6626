"""Application entry point: logging, Qt application, main window."""

from __future__ import annotations

import argparse
import logging
import sys


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="cosy-studio", description="Cosy Studio desktop app")
    parser.add_argument("--model", help="release folder to load (CosyVoice2-0.5B or Fun-CosyVoice3-0.5B)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Cosy Studio")
    app.setOrganizationName("CosyStudio")
    window = MainWindow(model_dir=args.model)
    window.show()
    return int(app.exec())
