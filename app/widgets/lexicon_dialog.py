"""The pronunciation-dictionary editor: one dictionary (the app's or a voice's) as a table of term,
replacement, whole word and case sensitive, with CSV import and export and a *Test* field.

Nothing is written until *Save*, which hands the dictionary to the ``save`` callable the owner gave
(:class:`app.controllers.lexicon.LexiconController` writes the app's CSV file or the voice file, both
atomically). Entries the loaded model family cannot take (pinyin or ARPAbet tokens for CosyVoice2, a
bracket that is no token) are flagged in the table while typing and refused on *Save* with
:meth:`cosycore.studio.lexicon.Lexicon.check`'s message. Removing entries, importing and clearing can
be undone (*Undo*, Ctrl+Z) until the dialog closes; closing with unsaved changes asks first.

The *Test* field shows what ``cosycore text --lexicon`` prints for a sample text: the replacements,
then the segments exactly as the engine will speak them (:mod:`app.worker.lexicon_preview`, on a worker thread).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cosycore.config import FAMILY_TITLES
from cosycore.errors import CosyError
from cosycore.studio.lexicon import Lexicon, LexiconEntry, LexiconError, family_problem, load_csv, save_csv

from ..worker.lexicon_preview import PreviewSetup, SpokenPreview, SpokenPreviewWorker
from .warning_box import WarningBox

logger = logging.getLogger(__name__)

TERM, REPLACEMENT, WHOLE_WORD, CASE_SENSITIVE = range(4)
TEST_DELAY_MS = 300
_REFUSED = QColor(214, 39, 40, 45)  # a row the family cannot take, or not an entry at all
_SHADOWED = QColor(255, 191, 0, 60)  # a later row has the same term and wins

Row = tuple[str, str, bool, bool]  # term, replacement, whole word, case sensitive (as in the table)


def entry_row(entry: LexiconEntry) -> Row:
    return (entry.term, entry.replacement, entry.whole_word, entry.case_sensitive)


def _row_key(row: Row) -> str:
    """What makes two rows the same entry (as :attr:`LexiconEntry.key`): the term, case-folded unless
    the row is case-sensitive."""
    term = row[0].strip()
    return term if row[3] else term.casefold()


class LexiconDialog(QDialog):
    """Edits one dictionary; see the module docstring. Created and owned by the lexicon controller."""

    def __init__(self, title: str, entries: Lexicon | Iterable[Row] | None, *, save: Callable[[Lexicon], None],
                 setup: PreviewSetup, layers: Callable[[Lexicon], Lexicon | None] | None = None,
                 name: str = "", note: str = "", parent: QWidget | None = None) -> None:
        """``entries``: a dictionary, or rows as stored (a voice's, which may hold an entry that is no longer
        valid: it is shown flagged rather than dropped). ``save`` writes the dictionary (raises
        :class:`CosyError` to refuse); ``setup`` is the loaded
        model the entries are checked and tested against; ``layers`` lays the edited dictionary among the
        other active ones for *Test* (default: alone); ``name`` names it in messages ("the app
        dictionary"); ``note`` is shown above the table (e.g. why the file could not be read)."""
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setObjectName("lexiconDialog")
        self._save = save
        self._setup = setup
        self._layers = layers or (lambda lx: lx)
        self._name = name
        self._undo: list[list[Row]] = []  # table states before a removal or an import, the newest last
        self._saved_rows: list[Row] = [entry_row(e) if isinstance(e, LexiconEntry) else
                                       (str(e[0]), str(e[1]), bool(e[2]), bool(e[3])) for e in entries or ()]
        self._updating = False  # flags are being set: no itemChanged handling
        self._warnings = WarningBox(self)

        family = FAMILY_TITLES.get(setup.family or "", "")
        if family == "CosyVoice2":
            what = self.tr("The replacement is how the word sounds, in ordinary letters or characters "
                           "(CosyVoice2 has no pronunciation tokens).")
        elif family:
            what = self.tr("The replacement is a respelling, pinyin tokens such as [j][ǐ] or ARPAbet tokens "
                           "such as [N][UW1] (Fun-CosyVoice3).")
        else:
            what = self.tr("The replacement is a respelling; Fun-CosyVoice3 also takes pinyin tokens ([j][ǐ]) "
                           "and ARPAbet tokens ([N][UW1]). Entries are checked once a model is loaded.")
        intro = QLabel(self.tr("Each term is replaced before the text is read. {0}").format(what), self)
        intro.setWordWrap(True)
        self.note_label = QLabel(note, self)
        self.note_label.setObjectName("lexiconNote")
        self.note_label.setWordWrap(True)
        self.note_label.setStyleSheet("color: #a05a00;")
        self.note_label.setVisible(bool(note))

        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("lexiconTable")
        self.table.setHorizontalHeaderLabels([self.tr("Term"), self.tr("Replacement"), self.tr("Whole word"),
                                              self.tr("Case sensitive")])
        self.table.setToolTip(self.tr("Double-click a cell to edit it. Whole word: the term does not match "
                                      "inside a longer word. Case sensitive: the letters match only as written."))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(TERM, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(REPLACEMENT, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(WHOLE_WORD, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(CASE_SENSITIVE, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.itemChanged.connect(self._on_table_item_changed)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        delete = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table)
        delete.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete.activated.connect(self.remove_selected)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self).activated.connect(self.undo)

        self.problem_label = QLabel(self)
        self.problem_label.setObjectName("lexiconProblems")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #c0392b;")
        self.problem_label.hide()
        self.status_label = QLabel(self)
        self.status_label.setObjectName("lexiconStatus")
        self.status_label.setWordWrap(True)

        self.add_button = self._button(self.tr("Add"), self.tr("Add an entry and type its term"), self.add_entry)
        self.remove_button = self._button(self.tr("Remove"), self.tr("Remove the selected entries (Delete); "
                                                                     "Undo brings them back"), self.remove_selected)
        self.undo_button = self._button(self.tr("Undo"), self.tr("Undo the last removal or import (Ctrl+Z)"),
                                        self.undo)
        self.import_button = self._button(self.tr("Import CSV…"), self.tr("Add entries from a CSV file whose "
                                                                          "header starts term,replacement"),
                                          self._on_import_clicked)
        self.export_button = self._button(self.tr("Export CSV…"), self.tr("Save these entries as a CSV file "
                                                                          "(for the command line or to share)"),
                                          self._on_export_clicked)
        buttons_row = QHBoxLayout()
        for b in (self.add_button, self.remove_button, self.undo_button):
            buttons_row.addWidget(b)
        buttons_row.addStretch(1)
        buttons_row.addWidget(self.import_button)
        buttons_row.addWidget(self.export_button)

        self.test_edit = QLineEdit(self)
        self.test_edit.setObjectName("lexiconTest")
        self.test_edit.setPlaceholderText(self.tr("Type a sentence to see how it will be read"))
        self.test_edit.setToolTip(self.tr("Shows what the dictionary replaces and the sentences exactly as the "
                                          "engine will speak them (as `cosycore text --lexicon`)"))
        self.test_output = QListWidget(self)
        self.test_output.setObjectName("lexiconTestOutput")
        self.test_output.setToolTip(self.tr("The replacements, then each segment the model will speak"))
        self.test_output.setWordWrap(True)
        self.test_output.setMaximumHeight(110)
        test_row = QHBoxLayout()
        test_label = QLabel(self.tr("&Test:"), self)
        test_label.setBuddy(self.test_edit)
        test_row.addWidget(test_label)
        test_row.addWidget(self.test_edit, 1)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setToolTip(self.tr("Keep these entries"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setToolTip(self.tr("Close without saving"))
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.note_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.problem_label)
        layout.addLayout(buttons_row)
        layout.addWidget(self.status_label)
        layout.addLayout(test_row)
        layout.addWidget(self.test_output)
        layout.addWidget(self.buttons)
        self.resize(720, 560)

        self._test_generation = 0
        self.test_result: SpokenPreview | None = None  # the newest finished test
        self._worker = SpokenPreviewWorker(self)
        self._worker.preview_ready.connect(self._on_worker_preview_ready)
        self._test_timer = QTimer(self)
        self._test_timer.setSingleShot(True)
        self._test_timer.setInterval(TEST_DELAY_MS)
        self._test_timer.timeout.connect(self._start_test)
        self.test_edit.textChanged.connect(lambda _: self._test_timer.start())
        self.finished.connect(lambda _: self._worker.close())
        self.set_rows(self._saved_rows)

    def _button(self, text: str, tip: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.setAutoDefault(False)  # Enter in a cell or the test field must not press it
        button.clicked.connect(lambda _=False: slot())
        return button

    # -- the table -------------------------------------------------------------------------
    def rows(self) -> list[Row]:
        t = self.table

        def text(r: int, c: int) -> str:
            item = t.item(r, c)
            return item.text() if item is not None else ""

        def checked(r: int, c: int) -> bool:
            item = t.item(r, c)
            return item is not None and item.checkState() == Qt.CheckState.Checked

        return [(text(r, TERM), text(r, REPLACEMENT), checked(r, WHOLE_WORD), checked(r, CASE_SENSITIVE))
                for r in range(t.rowCount())]

    def set_rows(self, rows: list[Row]) -> None:
        self._updating = True
        try:
            self.table.setRowCount(0)
            for row in rows:
                self._append_row(row)
        finally:
            self._updating = False
        self._rows_changed()

    def _append_row(self, row: Row) -> int:
        t = self.table
        r = t.rowCount()
        t.insertRow(r)
        t.setItem(r, TERM, QTableWidgetItem(row[0]))
        t.setItem(r, REPLACEMENT, QTableWidgetItem(row[1]))
        for column, checked in ((WHOLE_WORD, row[2]), (CASE_SENSITIVE, row[3])):
            item = QTableWidgetItem()
            item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            t.setItem(r, column, item)
        return r

    @property
    def modified(self) -> bool:
        """The table differs from what was saved (or opened)."""
        return [r for r in self.rows() if r[0].strip() or r[1].strip()] != self._saved_rows

    def add_entry(self, term: str = "", replacement: str = "") -> int:
        """Append an entry (whole word on, case off) and start editing its term; returns its row."""
        self._updating = True
        try:
            r = self._append_row((term, replacement, True, False))
        finally:
            self._updating = False
        self._rows_changed()
        self.table.setCurrentCell(r, TERM)
        item = self.table.item(r, TERM)
        if not term and item is not None:
            self.table.editItem(item)
        return r

    def remove_selected(self) -> int:
        """Remove the selected rows (undoable); returns how many."""
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        if not rows:
            return 0
        self._push_undo()
        self._updating = True
        try:
            for r in rows:
                self.table.removeRow(r)
        finally:
            self._updating = False
        self._rows_changed()
        self.status_label.setText(self.tr("Removed %n entry(s). Undo (Ctrl+Z) brings them back.", "", len(rows)))
        return len(rows)

    def _push_undo(self) -> None:
        self._undo.append(self.rows())

    def undo(self) -> bool:
        """Put the table back as it was before the last removal or import."""
        if not self._undo:
            return False
        self.set_rows(self._undo.pop())
        self.status_label.setText(self.tr("Undone."))
        return True

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectedIndexes()))
        self.undo_button.setEnabled(bool(self._undo))

    def _on_table_item_changed(self, _item: QTableWidgetItem) -> None:
        if not self._updating:
            self._rows_changed()

    def _rows_changed(self) -> None:
        self._flag_rows()
        self._update_buttons()
        self._test_timer.start()

    # -- checks ------------------------------------------------------------------------------
    def row_problem(self, row: Row) -> str:
        """Why ``row`` is no usable entry for the loaded family ("" when it is)."""
        try:
            entry = LexiconEntry(row[0], row[1], whole_word=row[2], case_sensitive=row[3])
        except LexiconError as e:
            return str(e)
        if self._setup.family and (why := family_problem(entry, self._setup.family)):
            return why[0].upper() + why[1:]
        return ""

    def _flag_rows(self) -> None:
        rows = self.rows()
        last = {_row_key(row): r for r, row in enumerate(rows)}
        refused: list[str] = []
        self._updating = True
        try:
            for r, row in enumerate(rows):
                problem = "" if not (row[0].strip() or row[1].strip()) else self.row_problem(row)
                shadowed = not problem and last.get(_row_key(row), r) != r
                if problem:
                    refused.append(self.tr("Row {0}: {1}").format(r + 1, problem))
                tip = problem or (self.tr("Row {0} has the same term; that entry is used.").format(
                    last[_row_key(row)] + 1) if shadowed else "")
                color = _REFUSED if problem else (_SHADOWED if shadowed else None)
                for c in range(4):
                    item = self.table.item(r, c)
                    if item is None:
                        continue
                    item.setBackground(QBrush(color) if color is not None else QBrush())
                    item.setToolTip(tip)
        finally:
            self._updating = False
        self.problem_label.setText("\n".join(refused[:3] + ([self.tr("… and %n more", "", len(refused) - 3)]
                                                            if len(refused) > 3 else [])))
        self.problem_label.setVisible(bool(refused))

    def flagged_rows(self) -> list[int]:
        """The rows (0-based) that cannot be saved."""
        return [r for r, row in enumerate(self.rows()) if (row[0].strip() or row[1].strip()) and self.row_problem(row)]

    def lexicon(self, *, skip_bad: bool = False) -> Lexicon:
        """The table as a dictionary; empty rows are left out. Raises :class:`LexiconError` naming the first
        row that is no entry, unless ``skip_bad`` (then such rows are left out too)."""
        entries: list[LexiconEntry] = []
        for r, row in enumerate(self.rows()):
            if not (row[0].strip() or row[1].strip()):
                continue
            try:
                entries.append(LexiconEntry(row[0], row[1], whole_word=row[2], case_sensitive=row[3]))
            except LexiconError as e:
                if not skip_bad:
                    raise LexiconError(self.tr("Row {0}: {1}").format(r + 1, e)) from None
        return Lexicon(tuple(entries), name=self._name)

    # -- save and close ----------------------------------------------------------------------
    def save(self) -> bool:
        """Check every entry (against the loaded family too), write through ``save`` and close."""
        try:
            lexicon = self.lexicon()
            if self._setup.family:
                lexicon.check(self._setup.family)
            self._save(lexicon)
        except CosyError as e:
            self.show_message(self.tr("The dictionary was not saved"), str(e))
            return False
        self._saved_rows = [entry_row(e) for e in lexicon]
        self.accept()
        return True

    def reject(self) -> None:
        if self.modified:
            answer = QMessageBox.question(self, self.tr("Unsaved changes"),
                                          self.tr("Close without saving the changes to the dictionary?"))
            if answer != QMessageBox.StandardButton.Yes:
                return
        super().reject()

    def show_message(self, title: str, text: str) -> None:
        """A warning that does not block the event loop (the test keeps running)."""
        logger.info("%s: %s", title, text)
        self._warnings.show(title, text)

    @property
    def last_message(self) -> tuple[str, str] | None:
        """(title, text) of the last message shown."""
        return self._warnings.last

    # -- CSV ---------------------------------------------------------------------------------
    def _on_import_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a dictionary"), "",
                                              self.tr("CSV files (*.csv);;All files (*)"))
        if not path:
            return
        replace = False
        if any(r[0].strip() for r in self.rows()):
            box = QMessageBox(QMessageBox.Icon.Question, self.tr("Import a dictionary"),
                              self.tr("Add the entries of {0} to these (an entry for the same term is "
                                      "replaced), or replace all entries with them?").format(Path(path).name),
                              QMessageBox.StandardButton.Cancel, self)
            merge = box.addButton(self.tr("Add (merge)"), QMessageBox.ButtonRole.AcceptRole)
            replace_all = box.addButton(self.tr("Replace all"), QMessageBox.ButtonRole.DestructiveRole)
            box.setDefaultButton(merge)
            box.exec()
            if box.clickedButton() not in (merge, replace_all):
                return
            replace = box.clickedButton() is replace_all
        self.import_file(Path(path), replace=replace)

    def import_file(self, path: Path, *, replace: bool = False) -> bool:
        """Read a CSV dictionary into the table: merged (an entry for the same term is replaced) or
        replacing every row. Undoable. A malformed file changes nothing and is shown with its line."""
        try:
            imported = load_csv(path)
        except CosyError as e:
            self.show_message(self.tr("Cannot import {0}").format(Path(path).name), str(e))
            return False
        self._push_undo()
        if replace:
            rows = [entry_row(e) for e in imported]
            replaced = 0
        else:
            rows = self.rows()
            where = {_row_key(row): r for r, row in enumerate(rows)}
            replaced = 0
            for entry in imported:
                row = entry_row(entry)
                r = where.get(_row_key(row))
                if r is None:
                    where[_row_key(row)] = len(rows)
                    rows.append(row)
                else:
                    rows[r] = row
                    replaced += 1
        self.set_rows(rows)
        self.status_label.setText(self.tr("Imported %n entry(s) from {0} ({1} replaced). Undo (Ctrl+Z) takes "
                                          "the import back.", "", len(imported)).format(Path(path).name, replaced))
        return True

    def _on_export_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export the dictionary"), "dictionary.csv",
                                              self.tr("CSV files (*.csv)"))
        if path:
            self.export_file(Path(path))

    def export_file(self, path: Path) -> bool:
        """Write the entries as CSV (header term,replacement,whole_word,case_sensitive), atomically."""
        try:
            lexicon = self.lexicon()
            save_csv(path, lexicon)
        except CosyError as e:
            self.show_message(self.tr("Cannot export the dictionary"), str(e))
            return False
        self.status_label.setText(self.tr("Exported %n entry(s) to {0}.", "", len(lexicon)).format(path))
        return True

    # -- test --------------------------------------------------------------------------------
    def _start_test(self) -> None:
        self._test_generation += 1
        text = self.test_edit.text()
        if not text.strip():
            self.test_output.clear()
            return
        active = self._layers(self.lexicon(skip_bad=True))  # among the other active dictionaries
        self._worker.submit(self._test_generation, text, active if active is not None and len(active) else None,
                            self._setup)

    def refresh_test_now(self) -> None:
        """Test without waiting for typing to pause."""
        self._test_timer.stop()
        self._start_test()

    def _on_worker_preview_ready(self, generation: int, result: SpokenPreview) -> None:
        if generation != self._test_generation:
            return
        self.test_result = result
        self.test_output.clear()
        for matched, replacement in result.matches:
            self.test_output.addItem(self.tr("dictionary: {0} → {1}").format(matched, replacement))
        for i, sentence in enumerate(result.sentences, 1):
            self.test_output.addItem(f"{i}. {sentence}")
        if result.error:
            self.test_output.addItem(self.tr("Cannot be spoken: {0}").format(result.error))
