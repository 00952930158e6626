"""Application entry point: logging, settings, translations, the Qt application and the main window."""

from __future__ import annotations

import argparse
import ctypes
import logging
import logging.handlers
import sys

logger = logging.getLogger(__name__)

TRANSLATION_BASENAME = "cosy_studio"


PROBE_CALLS = 64


def singletons_pyside_drops() -> list[object]:
    """Which of ``None``, ``False`` and ``True`` this PySide6 loses a reference to on every call that returns it.

    PySide6 6.12.0 (the newest release at the time of writing; 6.11 and earlier were not checked)
    returns ``None`` from void methods without taking a reference: measured here, every
    ``QObject.setObjectName`` call takes one away. Its bool returns were measured sound, so they are
    probed too but normally not listed. Python 3.12 made these singletons immortal, which hides the
    mistake there; on 3.11 the interpreter aborts with "deallocating None" after some ten thousand
    calls, about a minute of a 30 Hz waveform. The probe makes a few calls on a bare QObject (no
    QApplication needed) and costs microseconds.
    """
    from PySide6.QtCore import QObject

    probe = QObject()
    dropped: list[object] = []
    before = sys.getrefcount(None)
    for _ in range(PROBE_CALLS):
        probe.setObjectName("probe")  # void
    if sys.getrefcount(None) - before <= -PROBE_CALLS // 2:
        dropped.append(None)
    for value in (False, True):
        probe.blockSignals(value)
        before = sys.getrefcount(value)
        for _ in range(PROBE_CALLS):
            probe.signalsBlocked()  # returns ``value``
        if sys.getrefcount(value) - before <= -PROBE_CALLS // 2:
            dropped.append(value)
    return dropped


def keep_singletons_alive() -> list[object]:
    """Guard against the PySide6 reference bug above, where (and only where) the probe finds it.

    On Python 3.11 with an affected PySide6, raises the reference count of each singleton the
    binding drops far above anything a session can use up, which is what 3.12 does by design. Call
    once, before the event loop starts. Returns the singletons it guarded (none on Python 3.12+ or a
    fixed PySide6; tests/gui/test_gui_qt_refcounts.py says when the bug is gone).
    """
    if sys.version_info >= (3, 12):
        return []
    dropped = singletons_pyside_drops()
    for obj in dropped:
        # CPython 3.11 object header: the reference count is the first field, at id(obj).
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    if dropped:
        import PySide6

        logger.info("PySide6 %s drops references to %s; guarded", PySide6.__version__, dropped)
    return dropped


GIL_SWITCH_INTERVAL_S = 0.001


def prepare_interpreter() -> None:
    """Interpreter settings the GUI needs; call once at start-up, before the engine thread runs.

    The engine thread runs Python between torch calls. With the default 5 ms switch interval the
    GUI thread can wait several intervals for the GIL under load (stalls of 80+ ms measured on two
    busy cores); at 1 ms the longest stall measured was 28 ms, with no loss in synthesis speed
    (bench/bench_ui_latency.py). The OpenMP wait policy must be chosen before torch is imported.
    """
    keep_singletons_alive()
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    from cosycore.threads import choose_wait_policy  # torch-free; torch loads later, on the engine thread

    choose_wait_policy()  # spin + the core governor on Linux, else the passive wait (docs: performance)


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="cosy-studio", description="Cosy Studio desktop app")
    parser.add_argument("--model", help="release folder to load (CosyVoice2-0.5B or Fun-CosyVoice3-0.5B)")
    parser.add_argument("--language", choices=["en", "zh_CN"], help="interface language (overrides the setting)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation headless (tiny model, one sentence) and exit")
    return parser.parse_args(argv)


def _setup_logging(level: str, log_dir) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.handlers.RotatingFileHandler(log_dir / "cosy-studio.log", maxBytes=2_000_000,
                                                             backupCount=3, encoding="utf-8"))
    except OSError as e:  # a read-only home must not stop the app; the console log remains
        print(f"cosy-studio: not writing a log file ({e})", file=sys.stderr)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s",
                        handlers=handlers)


def install_translators(app, language: str) -> list:
    """Install the app's and Qt's own translations for ``language`` ("" = the system locale).

    Returns the installed translators (the caller keeps them alive).
    """
    from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator

    from .config.resources import translations_dir

    locale = QLocale(language) if language else QLocale.system()
    installed = []
    ours = QTranslator(app)
    if ours.load(locale, TRANSLATION_BASENAME, "_", str(translations_dir())):
        app.installTranslator(ours)
        installed.append(ours)
    else:
        # English is the source language, but its file carries the plural forms ("1 character",
        # "2 characters"), so it is loaded for every locale without a translation of its own.
        logger.info("no Cosy Studio translation for %s; using English", locale.name())
        if ours.load(f"{TRANSLATION_BASENAME}_en", str(translations_dir())):
            app.installTranslator(ours)
            installed.append(ours)
    qt_base = QTranslator(app)
    if qt_base.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_base)
        installed.append(qt_base)
    return installed


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    if args.self_test:
        from cosycore.threads import choose_wait_policy

        choose_wait_policy()
        from .self_test import run_self_test

        return run_self_test()
    prepare_interpreter()
    from PySide6.QtWidgets import QApplication

    from .config.settings import APP_AUTHOR, APP_NAME, Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_AUTHOR)
    # Logging first (the folder is AppPaths.default().logs): opening the settings resolves the voices
    # and the dictionary, which may move files from the command line's old folder, and says so in the log.
    from cosycore.paths import user_log_dir

    _setup_logging(args.log_level, user_log_dir())
    settings = Settings()
    install_translators(app, args.language or settings.language)

    from .main_window import MainWindow

    window = MainWindow(settings, model_dir=args.model)
    window.show()
    return int(app.exec())
