"""Regenerate a piece of a take (a line of a script take, a sentence of an ordinary take): which piece,
with which seed, and with which instruction."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QWidget

from cosycore.presets import load_instruct_presets
from cosycore.studio.script_take import LineInfo

SEED_MAX = 2**31 - 1
PieceKind = Literal["line", "sentence"]


@dataclass(frozen=True)
class Piece:
    """One piece offered: its index in the take, its text (and speaker, for a script line), and the seed and
    instruction it was spoken with."""

    index: int
    text: str
    seed: int | None  # None: not known (the take was made with a random seed)
    instruction: str
    speaker: str = ""


def line_pieces(lines: list[LineInfo]) -> list[Piece]:
    """The spoken lines of a script take, as pieces."""
    return [Piece(info.index, info.text, info.seed, info.instruction, info.speaker) for info in lines]


class RegenerateDialog(QDialog):
    """Asks for a piece of a take, a seed and an instruction. Opened by the line and the sentence regeneration
    controllers; ``kind`` names the piece in its texts."""

    def __init__(self, pieces: list[Piece], family: str, kind: PieceKind, index: int | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        line = kind == "line"
        self.setWindowTitle(self.tr("Regenerate a line") if line else self.tr("Regenerate a sentence"))
        self._pieces = pieces
        self.piece_combo = QComboBox(self)
        self.piece_combo.setObjectName("regenPiece")
        for piece in pieces:
            text = " ".join(piece.text.split())
            short = text if len(text) <= 60 else text[:59] + "…"
            label = (self.tr("{0}. {1}: {2}").format(piece.index + 1, piece.speaker, short) if piece.speaker
                     else self.tr("{0}. {1}").format(piece.index + 1, short))
            self.piece_combo.addItem(label, piece.index)
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("regenSeed")
        self.seed_spin.setRange(0, SEED_MAX)
        self.seed_spin.setValue(random.randrange(SEED_MAX))  # kept for a piece spoken with a random seed
        self.seed_spin.setToolTip(self.tr("Another seed speaks the line another way; the line's own seed remakes it")
                                  if line else self.tr("Another seed speaks the sentence another way"))
        self.instruction_combo = QComboBox(self)
        self.instruction_combo.setObjectName("regenInstruction")
        self.instruction_combo.setEditable(True)
        self.instruction_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.instruction_combo.setToolTip(
            self.tr("Keep the line's instruction, speak it without one, or choose a preset or type another") if line
            else self.tr("Keep the sentence's instruction, speak it without one, or choose a preset or type another"))
        self._keep_text = self.tr("(keep the line's instruction)") if line \
            else self.tr("(keep the sentence's instruction)")
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
        form.addRow(self.tr("Line:") if line else self.tr("Sentence:"), self.piece_combo)
        form.addRow("", self.current_label)
        form.addRow(self.tr("Seed:"), self.seed_spin)
        form.addRow(self.tr("Instruction:"), self.instruction_combo)
        form.addRow(buttons)
        self.piece_combo.currentIndexChanged.connect(self._on_piece_changed)
        if index is not None:
            self.piece_combo.setCurrentIndex(max(0, self.piece_combo.findData(index)))
        self._on_piece_changed()

    def _piece(self) -> Piece:
        index = self.piece_combo.currentData()
        return next(p for p in self._pieces if p.index == index)

    def _on_piece_changed(self) -> None:
        piece = self._piece()
        if piece.seed is not None:
            self.seed_spin.setValue((piece.seed + 1) % (SEED_MAX + 1))
        seed = self.tr("seed {0}").format(piece.seed) if piece.seed is not None else self.tr("a random seed")
        self.current_label.setText(self.tr("Spoken with {0}; instruction: {1}").format(
            seed, piece.instruction or self.tr("none")))

    @property
    def index(self) -> int:
        return int(self.piece_combo.currentData())

    @property
    def seed(self) -> int:
        return self.seed_spin.value()

    def instruction(self) -> tuple[bool, str | None]:
        """(keep the piece's instruction, else the new one: None for none)."""
        text = self.instruction_combo.currentText().strip()
        if not text or text == self._keep_text:
            return True, None
        if text == self._none_text:
            return False, None
        return False, text
