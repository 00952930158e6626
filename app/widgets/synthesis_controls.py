"""How to speak: mode (Clone / Cross-lingual / Instruct / Script / Convert), instruction, speed, seed,
streaming, and the Speak (Convert) and Stop buttons.

The instruction row has the preset picker (:mod:`.preset_picker`: the loaded family's built-in
presets by group, and the user's own in Custom), the free-text field, *Save as preset…* and a line
with exactly the prompt text the LM receives (:func:`cosycore.presets.instruct_prompt`, the
engine's own wrapping).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from cosycore.errors import CosyError, InputError
from cosycore.presets import InstructPreset, combine, instruct_prompt, load_instruct_presets

from ..config.settings import SPEED_RANGE, Settings
from ..config.user_presets import UserPreset, make_user_preset, merge_user_presets
from .preset_picker import Choice, PresetPicker, builtin_choice, builtin_key, toggle_selection, user_choice

logger = logging.getLogger(__name__)

SPEED_STEPS = 100  # slider units per 1.0x
SPEED_MIN, SPEED_MAX = SPEED_RANGE
SEED_MAX = 2**31 - 1
RANDOM_SEED = -1  # spin box value shown as "Random"


class SynthesisControls(QWidget):
    """Mode, instruction and knobs of the next take. Owned by the main window; GUI thread only.

    Only the fields that apply to the chosen mode are visible: the instruction row in Instruct, the
    script panel (the cast, :meth:`set_script_panel`) in Script. (The transcript belongs to the voice
    and is shown by the voice panel in Clone mode.)
    """

    mode_changed = Signal(str)  # "zero_shot", "cross_lingual", "instruct", "script" or "convert"
    speak_clicked = Signal()
    stop_clicked = Signal()
    user_presets_changed = Signal()  # a preset was saved, deleted or imported (already stored)

    MODES = ("zero_shot", "cross_lingual", "instruct", "script", "convert")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._family = ""
        self._presets: list[InstructPreset] = []
        self._user_presets: list[UserPreset] = []
        self._selected: list[Choice] = []  # the picked presets whose combination fills the instruction
        self._settings: Settings | None = None  # once attached, user presets are stored there

        labels = {
            "zero_shot": (self.tr("Clone"), self.tr("Speak the text in the chosen voice; uses the voice's "
                                                    "transcript (best for the same language)")),
            "cross_lingual": (self.tr("Cross-lingual"), self.tr("Speak the text in the voice without using its "
                                                                 "transcript (for another language than the voice's)")),
            "instruct": (self.tr("Instruct"), self.tr("Speak in the voice the way an instruction says: dialect, "
                                                      "emotion, speed, role")),
            "script": (self.tr("Script"), self.tr("A dialogue: every line “Name: text” spoken by the voice cast for "
                                                  "that name, optionally with its own instruction “Name (whispering): "
                                                  "text”; one take")),
            "convert": (self.tr("Convert"), self.tr("Voice conversion: a recording of your own (a file, the "
                                                    "microphone, or live) spoken again in the chosen voice")),
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
        self.preset_button = QToolButton(self)
        self.preset_button.setObjectName("presetButton")
        self.preset_button.setText(self.tr("Presets ▾"))
        self.preset_button.setToolTip(self.tr("Ready-made instructions of the loaded model, by group, with search; "
                                              "a dialect, an emotion, a speed and a volume can be combined"))
        self.preset_button.clicked.connect(self._on_preset_button_clicked)
        self.picker = PresetPicker(self)
        self.picker.clicked.connect(self._on_picker_clicked)
        self.picker.delete_requested.connect(self._on_picker_delete_requested)
        self.instruct_edit = QLineEdit(self)
        self.instruct_edit.setObjectName("instructEdit")
        self.instruct_edit.setPlaceholderText(self.tr("e.g. Please speak very happily."))
        self.instruct_edit.setToolTip(self.tr("How to speak, in your own words or from the presets"))
        self.instruct_edit.textEdited.connect(self._on_instruct_edit_text_edited)
        self.instruct_edit.textChanged.connect(self._update_instruct_info)
        self.instruct_label.setBuddy(self.instruct_edit)
        self.save_preset_button = QToolButton(self)
        self.save_preset_button.setObjectName("savePresetButton")
        self.save_preset_button.setText(self.tr("Save as preset…"))
        self.save_preset_button.setToolTip(self.tr("Keep this instruction under a name in the Custom group; "
                                                   "it is saved with the settings and exported with voices"))
        self.save_preset_button.clicked.connect(self._on_save_preset_button_clicked)
        self.instruct_info = QLabel(self)
        self.instruct_info.setObjectName("instructInfo")
        self.instruct_info.setWordWrap(True)
        self.instruct_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.instruct_info.setToolTip(self.tr("Exactly the prompt text the model's language model receives before "
                                              "the text to speak"))
        self.instruct_row = QWidget(self)
        rows = QVBoxLayout(self.instruct_row)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(2)
        row = QHBoxLayout()
        row.addWidget(self.instruct_label)
        row.addWidget(self.preset_button)
        row.addWidget(self.instruct_edit, 1)
        row.addWidget(self.save_preset_button)
        rows.addLayout(row)
        rows.addWidget(self.instruct_info)

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
        # Two rows, so that the window fits a 1024-px screen: the knobs, then Speak and Stop.
        knobs.addWidget(speed_label, 0, 0)
        knobs.addWidget(self.speed_slider, 0, 1)
        knobs.addWidget(self.speed_value, 0, 2)
        knobs.addWidget(seed_label, 0, 3)
        knobs.addWidget(self.seed_spin, 0, 4)
        knobs.addWidget(self.stream_check, 1, 0, 1, 3)
        knobs.setColumnStretch(1, 1)
        actions = QHBoxLayout()
        actions.addStretch(1)
        actions.addWidget(self.speak_button)
        actions.addWidget(self.stop_button)
        knobs.addLayout(actions, 1, 3, 1, 2)

        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addLayout(mode_row)
        self._layout.addWidget(self.instruct_row)
        self._layout.addLayout(knobs)
        self.script_panel: QWidget | None = None
        self.convert_panel: QWidget | None = None
        self.body: QWidget | None = None
        self._on_speed_slider_changed(self.speed_slider.value())
        self.set_family("")
        self._apply_mode(self.mode)

    def set_body(self, widget: QWidget) -> None:
        """Place ``widget`` (the text editor) between the instruction row and the knobs (hidden in Convert)."""
        self.body = widget
        self._layout.insertWidget(2, widget, 1)
        self._apply_mode(self.mode)

    def set_convert_panel(self, widget: QWidget) -> None:
        """Place ``widget`` (Convert mode's source and live controls) where the text is; shown in Convert only."""
        self.convert_panel = widget
        self._layout.insertWidget(self._layout.count() - 1, widget, 1)
        self._apply_mode(self.mode)

    def set_script_panel(self, widget: QWidget) -> None:
        """Place ``widget`` (the cast) below the text; it is shown in Script mode only."""
        self.script_panel = widget
        self._layout.insertWidget(self._layout.count() - 1, widget)
        self._apply_mode(self.mode)

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
    @property
    def family(self) -> str:
        """The model family whose presets are offered ("" before a model is loaded)."""
        return self._family

    def set_family(self, family: str) -> None:
        """Offer the presets of the loaded model family ("" before a model is loaded).

        The instruction text stays as it is; the check marks are cleared, since the built-in
        presets differ between the families.
        """
        self._family = family
        self._presets = load_instruct_presets(family) if family else []
        self._selected = []
        self._rebuild_picker()
        self.preset_button.setEnabled(bool(family))
        self._update_instruct_info()

    def attach_settings(self, settings: Settings) -> None:
        """Read the user presets from ``settings`` and store every later change there at once."""
        self._settings = settings
        self._user_presets = list(settings.user_presets)
        self._rebuild_picker()

    def preset_ids(self) -> list[str]:
        return [p.id for p in self._presets]

    def user_presets(self) -> list[UserPreset]:
        return list(self._user_presets)

    def selected_keys(self) -> list[str]:
        return [c.key for c in self._selected]

    def choose_preset(self, preset_id: str) -> None:
        """Click the built-in preset ``preset_id`` of the loaded family (as the picker would)."""
        preset = next((p for p in self._presets if p.id == preset_id), None)
        if preset is None:
            raise KeyError(preset_id)
        self._on_picker_clicked(self._choice_for(builtin_key(preset)))

    def choose_user_preset(self, name: str) -> None:
        choice = self._choice_for("user:" + name)
        self._on_picker_clicked(choice)

    def save_user_preset(self, name: str, text: str | None = None) -> UserPreset:
        """Keep ``text`` (default: the instruction field) as a user preset; InputError if it is not valid."""
        preset = make_user_preset(name, self.instruct_text if text is None else text)
        if any(p.name == preset.name for p in self._user_presets):
            raise InputError(f"There is already a preset called “{preset.name}”. Choose another name.")
        if any(p.text == preset.text for p in self._user_presets):
            raise InputError("This instruction is already saved as a preset.")
        self._store_user_presets([*self._user_presets, preset])
        self._selected = [self._choice_for("user:" + preset.name)]
        self._rebuild_picker()
        return preset

    def delete_user_preset(self, name: str) -> None:
        self._store_user_presets([p for p in self._user_presets if p.name != name])
        self._selected = [c for c in self._selected if c.key != "user:" + name]
        self._rebuild_picker()

    def add_user_presets(self, presets: list[UserPreset]) -> int:
        """Merge presets that came with an imported voice; returns how many were new."""
        merged = merge_user_presets(self._user_presets, presets)
        added = len(merged) - len(self._user_presets)
        if added:
            self._store_user_presets(merged)
            self._rebuild_picker()
        return added

    def presets_for_export(self) -> list[tuple[str, str]]:
        """The user presets as (name, text) pairs, for voice files (cosycore.voices.Voice.instruct_presets)."""
        return [(p.name, p.text) for p in self._user_presets]

    def add_imported_presets(self, pairs: list[tuple[str, str]]) -> int:
        """Merge (name, text) pairs from imported voice files, skipping any that are not valid."""
        presets = []
        for name, text in pairs:
            try:
                presets.append(make_user_preset(name, text))
            except InputError as e:
                logger.warning("an imported preset %r was skipped: %s", name, e)
        return self.add_user_presets(presets)

    def lm_prompt(self) -> str:
        """The prompt text the LM receives for the current instruction and family (InputError if invalid)."""
        return instruct_prompt(self._family, self.instruct_text)

    def _store_user_presets(self, presets: list[UserPreset]) -> None:
        self._user_presets = presets
        if self._settings is not None:
            self._settings.user_presets = presets
            self._settings.sync()
        self.user_presets_changed.emit()

    def _choices(self) -> list[Choice]:
        titles = {"cv2-paper": self.tr("Source: CosyVoice 2 paper (arXiv 2412.10117), instruction table"),
                  "cv2-example": self.tr("Source: the original's example.py (CosyVoice2 instruct)"),
                  "cv3-instruct-list": self.tr("Source: the original's instruct list (cosyvoice/utils/common.py)")}
        out = []
        for p in self._presets:
            title = titles.get(p.source, p.source)
            if not p.verbatim:
                title += "\n" + self.tr("Worded like the paper's example for this group; the exact training "
                                        "sentence is not published")
            out.append(builtin_choice(p, title))
        out.extend(user_choice(u) for u in self._user_presets)
        return out

    def _choice_for(self, key: str) -> Choice:
        choice = next((c for c in self._choices() if c.key == key), None)
        if choice is None:
            raise KeyError(key)
        return choice

    def _rebuild_picker(self) -> None:
        self.picker.set_choices(self.picker_choices(), self.selected_keys())

    def _instruction_for(self, selected: list[Choice]) -> str:
        custom = [c for c in selected if c.group == "custom"]
        if custom:
            return custom[0].text
        by_key = {builtin_key(p): p for p in self._presets}
        return combine([by_key[c.key] for c in selected]) if selected else ""

    def _on_picker_clicked(self, choice: Choice) -> None:
        self._selected = toggle_selection(self._selected, choice)
        self.instruct_edit.setText(self._instruction_for(self._selected))
        self.picker.set_selected(self.selected_keys())

    def picker_choices(self) -> list[Choice]:
        return self._choices() if self._family else [user_choice(u) for u in self._user_presets]

    def _on_picker_delete_requested(self, name: str) -> None:
        question = self.tr("Delete the preset “{0}”?").format(name)
        if QMessageBox.question(self, self.tr("Delete preset"), question) == QMessageBox.StandardButton.Yes:
            self.delete_user_preset(name)

    def _on_preset_button_clicked(self) -> None:
        self._rebuild_picker()
        self.picker.popup_below(self.preset_button, self.instruct_row)

    def _on_instruct_edit_text_edited(self, _text: str) -> None:
        if self._selected:  # typed by hand: the text no longer is the presets' combination
            self._selected = []
            self.picker.set_selected([])

    def _on_save_preset_button_clicked(self) -> None:
        text = self.instruct_text
        if not text:
            QMessageBox.information(self, self.tr("Save as preset"),
                                    self.tr("Type an instruction first, then save it under a name."))
            return
        name, ok = QInputDialog.getText(self, self.tr("Save as preset"), self.tr("Name of the preset:"),
                                        text=" ".join(text.split())[:30])
        if not ok:
            return
        try:
            self.save_user_preset(name)
        except CosyError as e:
            QMessageBox.warning(self, self.tr("Cannot save the preset"), str(e))

    def _update_instruct_info(self) -> None:
        if not self._family:
            self.instruct_info.setText(self.tr("Load a model to see what it receives."))
            return
        if not self.instruct_text:
            skeleton = instruct_prompt(self._family, "X").replace("X", self.tr("<instruction>"), 1)
            self.instruct_info.setText(self.tr("The model receives: {0} then the text.").format(skeleton))
            return
        try:
            prompt = self.lm_prompt()
        except InputError as e:
            self.instruct_info.setText(self.tr("Not usable: {0}").format(str(e)))
            return
        self.instruct_info.setText(self.tr("The model receives: {0} then the text.").format(prompt))

    # -- slots -----------------------------------------------------------------------------
    def _on_speed_slider_changed(self, value: int) -> None:
        self.speed_value.setText(f"{value / SPEED_STEPS:.2f}×")

    def _on_mode_group_toggled(self, button_id: int, checked: bool) -> None:
        if checked:
            self._apply_mode(self.MODES[button_id])
            self.mode_changed.emit(self.MODES[button_id])

    def _apply_mode(self, mode: str) -> None:
        self.instruct_row.setVisible(mode == "instruct")
        if self.script_panel is not None:
            self.script_panel.setVisible(mode == "script")
        if self.convert_panel is not None:
            self.convert_panel.setVisible(mode == "convert")
        if self.body is not None:
            self.body.setVisible(mode != "convert")
        converting = mode == "convert"
        self.speak_button.setText(self.tr("Convert") if converting else self.tr("Speak"))
        self.speak_button.setToolTip(self.tr("Convert the source into the chosen voice as a new take (Ctrl+Enter)")
                                     if converting else self.tr("Make and play a take of the text (Ctrl+Enter)"))
