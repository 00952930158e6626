"""File › Render to file…: what to render (a file or the editor's text), with which voice, to which file,
and how chapters are marked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ..config.settings import SPEED_RANGE
from ..takes.render_records import CHAPTER_MODES, OUTPUT_SUFFIXES
from ..takes.text_files import TEXT_SUFFIXES, is_markdown


@dataclass(frozen=True)
class RenderChoice:
    """What the dialog was filled in with."""

    source: Path | None  # the file to render; None: the editor's text
    markdown: bool  # for the editor's text: headings (# …) start chapters
    voice: str
    out: Path
    chapters: str  # "cue", "split" or "none"
    instruction: str
    speed: float


class RenderDialog(QDialog):
    """Asks for one render. Created by the long-form controller; :meth:`choice` after it was accepted."""

    def __init__(self, voices: list[str], *, voice: str = "", source: Path | None = None, editor_chars: int = 0,
                 editor_markdown: bool = False, instruction: str = "", speed: float = 1.0,
                 folder: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("renderDialog")
        self.setWindowTitle(self.tr("Render to file"))
        self._folder = folder or Path.home()

        self.file_radio = QRadioButton(self.tr("A file:"), self)
        self.file_edit = QLineEdit(str(source) if source else "", self)
        self.file_edit.setPlaceholderText(self.tr("a .txt or .md file"))
        browse_source = QPushButton(self.tr("Choose…"), self)
        browse_source.clicked.connect(self._on_browse_source_clicked)
        self.editor_radio = QRadioButton(self.tr("The text in the editor (%n character(s))", "", editor_chars), self)
        self.editor_radio.setEnabled(editor_chars > 0)
        self.markdown_check = QCheckBox(self.tr("Headings (# …) start chapters, as in Markdown"), self)
        self.markdown_check.setChecked(editor_markdown)
        group = QButtonGroup(self)
        group.addButton(self.file_radio)
        group.addButton(self.editor_radio)
        (self.editor_radio if source is None and editor_chars > 0 else self.file_radio).setChecked(True)
        self.file_radio.toggled.connect(self._update_enabled)
        self.file_edit.textChanged.connect(self._on_file_edit_text_changed)

        self.voice_combo = QComboBox(self)
        self.voice_combo.addItems(voices)
        if voice in voices:
            self.voice_combo.setCurrentText(voice)
        self.instruction_edit = QLineEdit(instruction, self)
        self.instruction_edit.setPlaceholderText(self.tr("none: clone (or cross-lingual without a transcript)"))
        self.instruction_edit.setToolTip(self.tr("With an instruction every segment is spoken in instruct mode"))
        self.speed_spin = QDoubleSpinBox(self)
        self.speed_spin.setRange(*SPEED_RANGE)
        self.speed_spin.setSingleStep(0.05)
        self.speed_spin.setValue(speed)
        self.speed_spin.setSuffix("×")

        self.out_edit = QLineEdit(self)
        self.out_edit.setPlaceholderText(self.tr("book.flac or book.wav"))
        browse_out = QPushButton(self.tr("Choose…"), self)
        browse_out.clicked.connect(self._on_browse_out_clicked)
        self.chapters_combo = QComboBox(self)
        labels = {"cue": self.tr("A cue sheet beside the file (.cue)"),
                  "split": self.tr("One file per chapter, and a playlist (.m3u)"),
                  "none": self.tr("No chapter marks")}
        for mode in CHAPTER_MODES:
            self.chapters_combo.addItem(labels[mode], mode)
        self.chapters_combo.setToolTip(self.tr("Chapters start at Markdown headings"))
        self.error_label = QLabel(self)
        self.error_label.setObjectName("renderDialogError")
        self.error_label.setStyleSheet("color: #c0392b;")
        self.error_label.setWordWrap(True)
        self.error_label.hide()

        file_row = QHBoxLayout()
        file_row.addWidget(self.file_radio)
        file_row.addWidget(self.file_edit, 1)
        file_row.addWidget(browse_source)
        out_row = QHBoxLayout()
        out_row.addWidget(self.out_edit, 1)
        out_row.addWidget(browse_out)
        form = QFormLayout()
        form.addRow(self.tr("Voice:"), self.voice_combo)
        form.addRow(self.tr("Instruction:"), self.instruction_edit)
        form.addRow(self.tr("Speed:"), self.speed_spin)
        form.addRow(self.tr("Save as:"), out_row)
        form.addRow(self.tr("Chapters:"), self.chapters_combo)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.render_button = buttons.addButton(self.tr("Render"), QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept_if_valid)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Text to render:"), self))
        layout.addLayout(file_row)
        layout.addWidget(self.editor_radio)
        layout.addWidget(self.markdown_check)
        layout.addLayout(form)
        note = QLabel(self.tr("It runs in the background: keep working, and speak takes meanwhile (the render "
                              "waits for them). Stopped or closed, it resumes where it stopped."), self)
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self._out_touched = False
        self.out_edit.textEdited.connect(lambda _: setattr(self, "_out_touched", True))
        self._suggest_output()
        self._update_enabled()
        self.resize(620, self.sizeHint().height())

    # -- fields ------------------------------------------------------------------------------
    def _update_enabled(self) -> None:
        from_file = self.file_radio.isChecked()
        self.file_edit.setEnabled(from_file)
        self.markdown_check.setEnabled(not from_file)
        self._suggest_output()

    def _on_file_edit_text_changed(self, _text: str) -> None:
        self._suggest_output()

    def _suggest_output(self) -> None:
        """Until the user picks an output, it follows the source: ``book.md`` → ``book.flac`` beside it."""
        if self._out_touched:
            return
        text = self.file_edit.text().strip()
        if self.file_radio.isChecked() and text:
            source = Path(text)
            self.out_edit.setText(str(source.with_suffix(".flac")))
        else:
            self.out_edit.setText(str(self._folder / "render.flac"))

    def _on_browse_source_clicked(self) -> None:
        start = self.file_edit.text() or str(self._folder)
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Text to render"), start,
                                              self.tr("Text and Markdown (*.txt *.md *.markdown)"))
        if path:
            self.file_radio.setChecked(True)
            self.file_edit.setText(path)

    def _on_browse_out_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the rendered audio as"), self.out_edit.text(),
                                              self.tr("FLAC (*.flac);;WAV (*.wav)"))
        if path:
            self._out_touched = True
            self.out_edit.setText(path)

    # -- result ------------------------------------------------------------------------------
    def problem(self) -> str:
        """What keeps the fields from making a render ("" when nothing)."""
        if self.file_radio.isChecked():
            text = self.file_edit.text().strip()
            if not text:
                return self.tr("Choose the file to render.")
            source = Path(text)
            if source.suffix.lower() not in TEXT_SUFFIXES:
                return self.tr("{0} is not a .txt or .md file.").format(source.name)
            if not source.is_file():
                return self.tr("{0} does not exist.").format(source)
        if not self.voice_combo.currentText():
            return self.tr("There is no saved voice yet: record one or make one from a file first.")
        out_text = self.out_edit.text().strip()
        if not out_text:
            return self.tr("Choose where to save the audio.")
        out = Path(out_text)
        if out.suffix.lower() not in OUTPUT_SUFFIXES:
            return self.tr("Save as .flac or .wav (not {0}).").format(out.suffix or self.tr("no extension"))
        if not out.parent.is_dir():
            return self.tr("The folder {0} does not exist.").format(out.parent)
        return ""

    def accept_if_valid(self) -> bool:
        problem = self.problem()
        self.error_label.setText(problem)
        self.error_label.setVisible(bool(problem))
        if problem:
            return False
        self.accept()
        return True

    def choice(self) -> RenderChoice:
        source = Path(self.file_edit.text().strip()) if self.file_radio.isChecked() else None
        markdown = is_markdown(source) if source is not None else self.markdown_check.isChecked()
        return RenderChoice(source=source, markdown=markdown, voice=self.voice_combo.currentText(),
                            out=Path(self.out_edit.text().strip()), chapters=str(self.chapters_combo.currentData()),
                            instruction=self.instruction_edit.text().strip(), speed=float(self.speed_spin.value()))
