"""How to speak: mode (Clone / Cross-lingual / Instruct), instruction, speed, seed, streaming,
and the Speak and Stop buttons."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.presets import InstructPreset, load_instruct_presets

logger = logging.getLogger(__name__)

SPEED_STEPS = 100  # slider units per 1.0x
SPEED_MIN, SPEED_MAX = 0.5, 2.0
SEED_MAX = 2**31 - 1
RANDOM_SEED = -1  # spin box value shown as "Random"


class SynthesisControls(QWidget):
    """Mode, instruction and knobs of the next take. Owned by the main window; GUI thread only.

    Only the fields that apply to the chosen mode are visible: the instruction row in Instruct.
    (The transcript belongs to the voice and is shown by the voice panel in Clone mode.)
    """

    mode_changed = Signal(str)  # "zero_shot", "cross_lingual" or "instruct"
    speak_clicked = Signal()
    stop_clicked = Signal()

    MODES = ("zero_shot", "cross_lingual", "instruct")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._family = ""
        self._presets: list[InstructPreset] = []

        labels = {
            "zero_shot": (self.tr("Clone"), self.tr("Speak the text in the chosen voice; uses the voice's "
                                                    "transcript (best for the same language)")),
            "cross_lingual": (self.tr("Cross-lingual"), self.tr("Speak the text in the voice without using its "
                                                                 "transcript (for another language than the voice's)")),
            "instruct": (self.tr("Instruct"), self.tr("Speak in the voice the way an instruction says: dialect, "
                                                      "emotion, speed, role")),
        }
        self.mode_group = QButtonGroup(self)
        self.mode_group.setExclusive(True)
        self.mode_buttons: dict[str, QToolButton] = {}
        mode_row = QHBoxLayout()
        mode_row.setSpacing(0)
        for i, mode in enumerate(self.MODES):
            text, tip = labels[mode]
            button = QToolButton(self)
            button.setText(text)
            button.setToolTip(tip)
            button.setCheckable(True)
            button.setObjectName(f"mode_{mode}")
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            button.setMinimumWidth(96)
            self.mode_group.addButton(button, i)
            mode_row.addWidget(button)
            self.mode_buttons[mode] = button
        self.mode_buttons["zero_shot"].setChecked(True)
        self.mode_group.idToggled.connect(self._on_mode_group_toggled)
        mode_row.addStretch(1)

        self.instruct_label = QLabel(self.tr("Instruction:"), self)
        self.preset_combo = QComboBox(self)
        self.preset_combo.setObjectName("presetCombo")
        self.preset_combo.setToolTip(self.tr("Ready-made instructions the loaded model was trained with"))
        self.preset_combo.setMinimumContentsLength(18)
        self.preset_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.preset_combo.activated.connect(self._on_preset_combo_activated)
        self.instruct_edit = QLineEdit(self)
        self.instruct_edit.setObjectName("instructEdit")
        self.instruct_edit.setPlaceholderText(self.tr("e.g. Please speak very happily."))
        self.instruct_edit.setToolTip(self.tr("How to speak, in your own words or from a preset"))
        self.instruct_label.setBuddy(self.instruct_edit)
        self.instruct_row = QWidget(self)
        row = QHBoxLayout(self.instruct_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.instruct_label)
        row.addWidget(self.preset_combo)
        row.addWidget(self.instruct_edit, 1)

        self.speed_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.speed_slider.setObjectName("speedSlider")
        self.speed_slider.setRange(int(SPEED_MIN * SPEED_STEPS), int(SPEED_MAX * SPEED_STEPS))
        self.speed_slider.setSingleStep(5)
        self.speed_slider.setPageStep(25)
        self.speed_slider.setValue(SPEED_STEPS)
        self.speed_slider.setToolTip(self.tr("Speaking speed, 0.5x to 2x"))
        self.speed_slider.setMinimumWidth(120)
        self.speed_value = QLabel(self)
        self.speed_value.setMinimumWidth(40)
        self.speed_slider.valueChanged.connect(self._on_speed_slider_changed)
        speed_label = QLabel(self.tr("Speed:"), self)
        speed_label.setBuddy(self.speed_slider)

        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("seedSpin")
        self.seed_spin.setRange(RANDOM_SEED, SEED_MAX)
        self.seed_spin.setSpecialValueText(self.tr("Random"))
        self.seed_spin.setValue(RANDOM_SEED)
        self.seed_spin.setToolTip(self.tr("The same seed with the same text and voice gives the same take; "
                                          "Random draws a new one each time"))
        seed_label = QLabel(self.tr("Seed:"), self)
        seed_label.setBuddy(self.seed_spin)

        self.stream_check = QCheckBox(self.tr("Stream"), self)
        self.stream_check.setObjectName("streamCheck")
        self.stream_check.setChecked(True)
        self.stream_check.setToolTip(self.tr("Start playing while the rest is still being made; off: each "
                                             "sentence plays when it is complete"))

        self.speak_button = QPushButton(self.tr("Speak"), self)
        self.speak_button.setObjectName("speakButton")
        self.speak_button.setToolTip(self.tr("Make and play a take of the text (Ctrl+Enter)"))
        self.speak_button.setDefault(True)
        self.speak_button.clicked.connect(self.speak_clicked)
        self.stop_button = QPushButton(self.tr("Stop"), self)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip(self.tr("Stop making and playing the take (Esc)"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_clicked)

        knobs = QGridLayout()
        knobs.setContentsMargins(0, 0, 0, 0)
        knobs.addWidget(speed_label, 0, 0)
        knobs.addWidget(self.speed_slider, 0, 1)
        knobs.addWidget(self.speed_value, 0, 2)
        knobs.addWidget(seed_label, 0, 3)
        knobs.addWidget(self.seed_spin, 0, 4)
        knobs.addWidget(self.stream_check, 0, 5)
        knobs.setColumnStretch(6, 1)
        knobs.addWidget(self.speak_button, 0, 7)
        knobs.addWidget(self.stop_button, 0, 8)

        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addLayout(mode_row)
        self._layout.addWidget(self.instruct_row)
        self._layout.addLayout(knobs)
        self._on_speed_slider_changed(self.speed_slider.value())
        self.set_family("")
        self._apply_mode(self.mode)

    def set_body(self, widget: QWidget) -> None:
        """Place ``widget`` (the text editor) between the instruction row and the knobs."""
        self._layout.insertWidget(2, widget, 1)

    # -- values ------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return self.MODES[max(0, self.mode_group.checkedId())]

    def set_mode(self, mode: str) -> None:
        self.mode_buttons[mode].setChecked(True)

    @property
    def speed(self) -> float:
        return self.speed_slider.value() / SPEED_STEPS

    def set_speed(self, speed: float) -> None:
        self.speed_slider.setValue(round(min(SPEED_MAX, max(SPEED_MIN, speed)) * SPEED_STEPS))

    @property
    def seed(self) -> int | None:
        value = self.seed_spin.value()
        return None if value == RANDOM_SEED else value

    def set_seed(self, seed: int | None) -> None:
        self.seed_spin.setValue(RANDOM_SEED if seed is None else seed)

    @property
    def stream(self) -> bool:
        return self.stream_check.isChecked()

    def set_stream(self, on: bool) -> None:
        self.stream_check.setChecked(on)

    @property
    def instruct_text(self) -> str:
        return self.instruct_edit.text().strip()

    def set_busy(self, busy: bool) -> None:
        """While a take is being made, Stop is enabled (Speak stays enabled: it replaces the take)."""
        self.stop_button.setEnabled(busy)

    # -- presets ---------------------------------------------------------------------------
    def set_family(self, family: str) -> None:
        """Offer the presets of the loaded model family ("" before a model is loaded)."""
        self._family = family
        self._presets = load_instruct_presets(family) if family else []
        self.preset_combo.clear()
        self.preset_combo.addItem(self.tr("Presets…"), None)
        for preset in self._presets:
            self.preset_combo.addItem(f"{preset.gloss} — {preset.text}", preset.id)
            self.preset_combo.setItemData(self.preset_combo.count() - 1, preset.gloss, Qt.ItemDataRole.ToolTipRole)
        self.preset_combo.setEnabled(bool(self._presets))

    def preset_ids(self) -> list[str]:
        return [p.id for p in self._presets]

    def choose_preset(self, preset_id: str) -> None:
        index = self.preset_combo.findData(preset_id)
        if index < 0:
            raise KeyError(preset_id)
        self.preset_combo.setCurrentIndex(index)
        self._on_preset_combo_activated(index)

    def _on_preset_combo_activated(self, index: int) -> None:
        preset_id = self.preset_combo.itemData(index)
        preset = next((p for p in self._presets if p.id == preset_id), None)
        if preset is not None:
            self.instruct_edit.setText(preset.text)

    # -- slots -----------------------------------------------------------------------------
    def _on_speed_slider_changed(self, value: int) -> None:
        self.speed_value.setText(f"{value / SPEED_STEPS:.2f}×")

    def _on_mode_group_toggled(self, button_id: int, checked: bool) -> None:
        if checked:
            self._apply_mode(self.MODES[button_id])
            self.mode_changed.emit(self.MODES[button_id])

    def _apply_mode(self, mode: str) -> None:
        self.instruct_row.setVisible(mode == "instruct")
