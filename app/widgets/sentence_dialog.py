"""Regenerate a sentence of an ordinary take: which sentence, with which seed, and with which instruction."""

from __future__ import annotations

import random
from dataclasses import dataclass

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QWidget

from cosycore.presets import load_instruct_presets

SEED_MAX = 2**31 - 1


@dataclass(frozen=True)
class SentenceChoice:
    """One sentence offered: its index in the take, its text, and the seed and instruction it was spoken with."""

    index: int
    text: str
    seed: int | None  # None: not known (the take was made with a random seed)
    instruction: str


class SentenceDialog(QDialog):
    """Asks for a sentence of a take, a seed and an instruction. Opened by the sentence regeneration controller."""

    def __init__(self, sentences: list[SentenceChoice], family: str, index: int | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Regenerate a sentence"))
        self._sentences = sentences
        self.sentence_combo = QComboBox(self)
        self.sentence_combo.setObjectName("sentenceCombo")
        for choice in sentences:
            text = " ".join(choice.text.split())
            short = text if len(text) <= 60 else text[:59] + "…"
            self.sentence_combo.addItem(self.tr("{0}. {1}").format(choice.index + 1, short), choice.index)
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("sentenceSeed")
        self.seed_spin.setRange(0, SEED_MAX)
        self.seed_spin.setValue(random.randrange(SEED_MAX))  # kept for a sentence spoken with a random seed
        self.seed_spin.setToolTip(self.tr("Another seed speaks the sentence another way"))
        self.instruction_combo = QComboBox(self)
        self.instruction_combo.setObjectName("sentenceInstruction")
        self.instruction_combo.setEditable(True)
        self.instruction_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.instruction_combo.setToolTip(self.tr("Keep the sentence's instruction, speak it without one, or "
                                                  "choose a preset or type another"))
        self._keep_text = self.tr("(keep the sentence's instruction)")
        self._none_text = self.tr("(no instruction)")
        self.instruction_combo.addItem(self._keep_text)
        self.instruction_combo.addItem(self._none_text)
        for preset in load_instruct_presets(family) if family else []:
            self.instruction_combo.addItem(preset.id)
        self.current_label = QLabel(self)
        self.current_label.setWordWrap(True)
        self.current_label.setStyleSheet("color: #505050;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Regenerate"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.tr("Sentence:"), self.sentence_combo)
        form.addRow("", self.current_label)
        form.addRow(self.tr("Seed:"), self.seed_spin)
        form.addRow(self.tr("Instruction:"), self.instruction_combo)
        form.addRow(buttons)
        self.sentence_combo.currentIndexChanged.connect(self._on_sentence_changed)
        if index is not None:
            self.sentence_combo.setCurrentIndex(max(0, self.sentence_combo.findData(index)))
        self._on_sentence_changed()

    def _choice(self) -> SentenceChoice:
        index = self.sentence_combo.currentData()
        return next(c for c in self._sentences if c.index == index)

    def _on_sentence_changed(self) -> None:
        choice = self._choice()
        if choice.seed is not None:
            self.seed_spin.setValue((choice.seed + 1) % (SEED_MAX + 1))
        seed = self.tr("seed {0}").format(choice.seed) if choice.seed is not None else self.tr("a random seed")
        self.current_label.setText(self.tr("Spoken with {0}; instruction: {1}").format(
            seed, choice.instruction or self.tr("none")))

    @property
    def index(self) -> int:
        return int(self.sentence_combo.currentData())

    @property
    def seed(self) -> int:
        return self.seed_spin.value()

    def instruction(self) -> tuple[bool, str | None]:
        """(keep the sentence's instruction, else the new one: None for none)."""
        text = self.instruction_combo.currentText().strip()
        if not text or text == self._keep_text:
            return True, None
        if text == self._none_text:
            return False, None
        return False, text
