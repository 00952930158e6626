"""Regenerate a line of a script take: which line, with which seed, and with which instruction."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from cosycore.presets import load_instruct_presets
from cosycore.studio.script_take import LineInfo

SEED_MAX = 2**31 - 1


class RegenerateDialog(QDialog):
    """Asks for a line of a take, a seed and an instruction. Opened by the regeneration controller."""

    def __init__(self, lines: list[LineInfo], family: str, line_index: int | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Regenerate a line"))
        self._lines = lines
        self.line_combo = QComboBox(self)
        self.line_combo.setObjectName("regenLine")
        for info in lines:
            text = " ".join(info.text.split())
            short = text if len(text) <= 50 else text[:49] + "…"
            self.line_combo.addItem(self.tr("{0}. {1}: {2}").format(info.index + 1, info.speaker, short), info.index)
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("regenSeed")
        self.seed_spin.setRange(0, SEED_MAX)
        self.seed_spin.setToolTip(self.tr("Another seed speaks the line another way; the line's own seed remakes it"))
        self.instruction_combo = QComboBox(self)
        self.instruction_combo.setObjectName("regenInstruction")
        self.instruction_combo.setEditable(True)
        self.instruction_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.instruction_combo.setToolTip(self.tr("Keep the line's instruction, speak it without one, or choose a "
                                                  "preset or type another"))
        self._keep_text = self.tr("(keep the line's instruction)")
        self._none_text = self.tr("(no instruction)")
        self.instruction_combo.addItem(self._keep_text)
        self.instruction_combo.addItem(self._none_text)
        for preset in load_instruct_presets(family) if family else []:
            self.instruction_combo.addItem(preset.id)
            self.instruction_combo.setItemData(self.instruction_combo.count() - 1, preset.text)
        self.current_label = QLabel(self)
        self.current_label.setWordWrap(True)
        self.current_label.setStyleSheet("color: #505050;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Regenerate"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.tr("Line:"), self.line_combo)
        form.addRow("", self.current_label)
        form.addRow(self.tr("Seed:"), self.seed_spin)
        form.addRow(self.tr("Instruction:"), self.instruction_combo)
        form.addRow(buttons)
        self.line_combo.currentIndexChanged.connect(self._on_line_changed)
        if line_index is not None:
            self.line_combo.setCurrentIndex(max(0, self.line_combo.findData(line_index)))
        self._on_line_changed()

    def _line(self) -> LineInfo:
        index = self.line_combo.currentData()
        return next(info for info in self._lines if info.index == index)

    def _on_line_changed(self) -> None:
        info = self._line()
        self.seed_spin.setValue((info.seed + 1) % (SEED_MAX + 1))
        self.current_label.setText(self.tr("Spoken with seed {0}; instruction: {1}").format(
            info.seed, info.instruction or self.tr("none")))

    @property
    def line_index(self) -> int:
        return int(self.line_combo.currentData())

    @property
    def seed(self) -> int:
        return self.seed_spin.value()

    def instruction(self) -> tuple[bool, str | None]:
        """(keep the line's instruction, else the new one: None for none)."""
        text = self.instruction_combo.currentText().strip()
        if not text or text == self._keep_text:
            return True, None
        if text == self._none_text:
            return False, None
        return False, text
