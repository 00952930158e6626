"""Translatable names of the built-in instruct presets.

The preset table (cosycore/data/instruct_presets.json) gives each preset a short English label; the
menu shows it through Qt's translations, so every label is listed here for lupdate to pick up.
tests/gui/test_gui_presets.py checks that no label of the table is missing.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

CONTEXT = "PresetNames"

LABELS = (
    # dialects
    QT_TRANSLATE_NOOP("PresetNames", "Cantonese"),
    QT_TRANSLATE_NOOP("PresetNames", "Sichuanese"),
    QT_TRANSLATE_NOOP("PresetNames", "Shanghainese"),
    QT_TRANSLATE_NOOP("PresetNames", "Zhengzhou"),
    QT_TRANSLATE_NOOP("PresetNames", "Changsha"),
    QT_TRANSLATE_NOOP("PresetNames", "Tianjin"),
    QT_TRANSLATE_NOOP("PresetNames", "Northeastern"),
    QT_TRANSLATE_NOOP("PresetNames", "Gansu"),
    QT_TRANSLATE_NOOP("PresetNames", "Guizhou"),
    QT_TRANSLATE_NOOP("PresetNames", "Henan"),
    QT_TRANSLATE_NOOP("PresetNames", "Hubei"),
    QT_TRANSLATE_NOOP("PresetNames", "Hunan"),
    QT_TRANSLATE_NOOP("PresetNames", "Jiangxi"),
    QT_TRANSLATE_NOOP("PresetNames", "Minnan"),
    QT_TRANSLATE_NOOP("PresetNames", "Ningxia"),
    QT_TRANSLATE_NOOP("PresetNames", "Shanxi"),
    QT_TRANSLATE_NOOP("PresetNames", "Shaanxi"),
    QT_TRANSLATE_NOOP("PresetNames", "Shandong"),
    QT_TRANSLATE_NOOP("PresetNames", "Yunnan"),
    # emotions
    QT_TRANSLATE_NOOP("PresetNames", "Happy"),
    QT_TRANSLATE_NOOP("PresetNames", "Sad"),
    QT_TRANSLATE_NOOP("PresetNames", "Surprised"),
    QT_TRANSLATE_NOOP("PresetNames", "Angry"),
    QT_TRANSLATE_NOOP("PresetNames", "Fearful"),
    QT_TRANSLATE_NOOP("PresetNames", "Disgusted"),
    QT_TRANSLATE_NOOP("PresetNames", "Calm"),
    QT_TRANSLATE_NOOP("PresetNames", "Serious"),
    # speed
    QT_TRANSLATE_NOOP("PresetNames", "Fast"),
    QT_TRANSLATE_NOOP("PresetNames", "Very fast"),
    QT_TRANSLATE_NOOP("PresetNames", "Slow"),
    QT_TRANSLATE_NOOP("PresetNames", "Very slow"),
    # volume
    QT_TRANSLATE_NOOP("PresetNames", "Loud"),
    QT_TRANSLATE_NOOP("PresetNames", "Soft"),
    # role play
    QT_TRANSLATE_NOOP("PresetNames", "Mysterious"),
    QT_TRANSLATE_NOOP("PresetNames", "Fierce"),
    QT_TRANSLATE_NOOP("PresetNames", "Curious"),
    QT_TRANSLATE_NOOP("PresetNames", "Elegant"),
    QT_TRANSLATE_NOOP("PresetNames", "Lonely"),
    QT_TRANSLATE_NOOP("PresetNames", "Robot"),
    QT_TRANSLATE_NOOP("PresetNames", "Peppa Pig"),
)


def preset_label(label: str) -> str:
    """``label`` in the interface language."""
    return QCoreApplication.translate(CONTEXT, label)
