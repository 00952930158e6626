"""Takes › Edit take…: trim, fade in and out, and loudness normalisation of one take.

The edit is always made from the take's original audio, so the fields show the edit in force and
"Reset to original" gives the take back as it was made. The dialog asks; the take tools controller
(:mod:`app.controllers.take_tools`) applies.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..takes.edit import MAX_FADE_SECONDS, TARGET_LUFS, TakeEdit


class TakeEditDialog(QDialog):
    """Fields of a :class:`TakeEdit` over a take of ``duration`` seconds (its original length)."""

    apply_requested = Signal(object)  # TakeEdit (an identity edit: back to the original)

    def __init__(self, title: str, duration: float, edit: TakeEdit, loudness_text: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("takeEditDialog")
        self.setWindowTitle(title)
        self.duration = duration

        def seconds(value: float, top: float, tip: str, name: str) -> QDoubleSpinBox:
            box = QDoubleSpinBox(self)
            box.setObjectName(name)
            box.setDecimals(2)
            box.setSingleStep(0.05)
            box.setRange(0.0, top)
            box.setSuffix(self.tr(" s"))
            box.setValue(value)
            box.setToolTip(tip)
            return box

        self.start_box = seconds(edit.start, duration, self.tr("Where the take starts after trimming"), "trimStart")
        self.end_box = seconds(duration if edit.end is None else edit.end, duration,
                               self.tr("Where the take ends after trimming"), "trimEnd")
        self.fade_in_box = seconds(edit.fade_in, MAX_FADE_SECONDS, self.tr("Fade in from silence over this long"),
                                   "fadeIn")
        self.fade_out_box = seconds(edit.fade_out, MAX_FADE_SECONDS, self.tr("Fade out to silence over this long"),
                                    "fadeOut")
        self.normalise_check = QCheckBox(self.tr("Normalise loudness to {0:g} LUFS").format(TARGET_LUFS), self)
        self.normalise_check.setObjectName("normaliseLoudness")
        self.normalise_check.setToolTip(self.tr("Integrated loudness (ITU-R BS.1770), the level podcasts and "
                                                "streaming services use; peaks stay under -1 dBFS"))
        self.normalise_check.setChecked(edit.normalise)
        self.loudness_label = QLabel(loudness_text, self)
        form = QFormLayout()
        form.addRow(self.tr("Start:"), self.start_box)
        form.addRow(self.tr("End:"), self.end_box)
        form.addRow(self.tr("Fade in:"), self.fade_in_box)
        form.addRow(self.tr("Fade out:"), self.fade_out_box)
        form.addRow(self.normalise_check)
        form.addRow(self.tr("Loudness now:"), self.loudness_label)
        note = QLabel(self.tr("Edits are made from the original audio, which is kept: reset at any time."), self)
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Apply | QDialogButtonBox.StandardButton.Close,
                                   self)
        self.apply_button = buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(lambda: self.apply_requested.emit(self.edit()))
        self.reset_button = QPushButton(self.tr("&Reset to original"), self)
        self.reset_button.setToolTip(self.tr("Give the take back as it was made"))
        self.reset_button.clicked.connect(self._on_reset_clicked)
        buttons.addButton(self.reset_button, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def edit(self) -> TakeEdit:
        end = self.end_box.value()
        return TakeEdit(start=self.start_box.value(), end=None if end >= self.duration - 0.005 else end,
                        fade_in=self.fade_in_box.value(), fade_out=self.fade_out_box.value(),
                        normalise=self.normalise_check.isChecked())

    def _on_reset_clicked(self) -> None:
        self.start_box.setValue(0.0)
        self.end_box.setValue(self.duration)
        self.fade_in_box.setValue(0.0)
        self.fade_out_box.setValue(0.0)
        self.normalise_check.setChecked(False)
        self.apply_requested.emit(TakeEdit())

    def set_loudness_text(self, text: str) -> None:
        self.loudness_label.setText(text)
