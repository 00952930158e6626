"""Settings › Text reading: the original's text normalisation or the improved English reading.

The choice is stored in :attr:`app.config.settings.Settings.text_reading` and applies from the next take
(no reload). "As the quality mode" reads like the original in Exact and uses the improved reading
in Fast and Draft (cosycore.frontend.text_reading).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from ..config.settings import READINGS, Settings


def reading_labels() -> dict[str, tuple[str, str]]:
    """Menu text and tooltip per stored value."""
    follow = QCoreApplication.translate("TextReadingMenu", "As the quality mode")
    follow_tip = QCoreApplication.translate(
        "TextReadingMenu",
        "Exact reads text like the original CosyVoice; Fast and Draft use the improved English reading.")
    original = QCoreApplication.translate("TextReadingMenu", "Original")
    original_tip = QCoreApplication.translate(
        "TextReadingMenu",
        "The original CosyVoice's text normalisation: the same text ids as the original, "
        "e.g. \"$3.50\" is read \"three point five dollars\".")
    improved = QCoreApplication.translate("TextReadingMenu", "Improved English reading")
    improved_tip = QCoreApplication.translate(
        "TextReadingMenu",
        "Money, dates, units and abbreviations read in full, e.g. \"$3.50\" is read "
        "\"three dollars and fifty cents\"; runs of marks such as \"?!\" are kept.")
    return {"": (follow, follow_tip), "original": (original, original_tip), "improved": (improved, improved_tip)}


def effective_reading(choice: str, quality: str) -> str:
    """The reading a take gets: the chosen one, else the quality mode's (as the engine decides)."""
    return choice or ("original" if quality == "exact" else "improved")


def add_text_reading_menu(parent: QMenu, settings: Settings,
                          on_change: Callable[[], None] | None = None) -> dict[str, QAction]:
    """Add the submenu to ``parent``; returns its actions by stored value (for tests).

    ``on_change`` runs after the user picks an entry (the setting is stored by then)."""
    menu = parent.addMenu(QCoreApplication.translate("TextReadingMenu", "&Text reading"))
    menu.setToolTipsVisible(True)
    group = QActionGroup(menu)
    actions: dict[str, QAction] = {}
    labels = reading_labels()
    for value in READINGS:
        text, tip = labels[value]
        action = menu.addAction(text)
        action.setToolTip(tip)
        action.setCheckable(True)
        action.setChecked(settings.text_reading == value)
        action.triggered.connect(lambda _=False, v=value: _choose(settings, v, on_change))
        group.addAction(action)
        actions[value] = action
    return actions


def _choose(settings: Settings, value: str, on_change: Callable[[], None] | None) -> None:
    settings.text_reading = value
    settings.sync()
    if on_change is not None:
        on_change()
