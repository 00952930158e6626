"""Reading ``.txt`` and ``.md`` files for the editor (File › Open) and for long-form rendering.

Pure Python, no Qt. A file is read whole, but never more than the long-form limit
(:data:`cosycore.studio.longform.MAX_DOCUMENT_BYTES`); a text longer than one take can hold
(:data:`EDITOR_MAX_CHARS`) is not put into the editor: it is opened for rendering to a file only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cosycore.errors import InputError
from cosycore.frontend.text_checks import DEFAULT_MAX_CHARS
from cosycore.studio.longform import MAX_DOCUMENT_BYTES
from cosycore.studio.script import ScriptError, parse_script

EDITOR_MAX_CHARS = DEFAULT_MAX_CHARS  # the most one take can speak; a longer file is for rendering only
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
MARKDOWN_SUFFIXES = (".md", ".markdown")
MIN_SCRIPT_LINES = 2  # a file is offered as a script when it parses as one with at least this many lines


@dataclass(frozen=True)
class OpenedText:
    """What File › Open found in a file."""

    path: Path
    text: str | None  # the text for the editor; None when it is too long for one take (render it to a file)
    chars: int  # characters in the file
    markdown: bool  # a Markdown file: headings become chapters when rendered

    @property
    def too_long(self) -> bool:
        return self.text is None


def is_markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN_SUFFIXES


def _bad_byte_line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text_file(path: Path | str, *, editor_limit: int = EDITOR_MAX_CHARS) -> OpenedText:
    """Read a ``.txt``/``.md`` file as UTF-8. Raises :class:`InputError` saying what to do when the file is
    missing, not text, not UTF-8, empty or larger than a long-form render takes."""
    path = Path(path)
    if path.suffix.lower() not in TEXT_SUFFIXES:
        raise InputError(f"'{path.name}' is not a .txt or .md file; open a plain text or Markdown file.")
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise InputError(f"'{path.name}' is {size / 2**20:.0f} MiB, more than the {MAX_DOCUMENT_BYTES // 2**20} "
                             "MiB a render takes; split it into smaller files.")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"'{path}' does not exist (moved or deleted?).") from None
    except OSError as e:
        raise InputError(f"'{path}' cannot be read: {e.strerror or e}.") from None
    if b"\x00" in data:
        raise InputError(f"'{path.name}' is not a text file (it holds binary data); open a plain text or "
                         "Markdown file.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = _bad_byte_line(data, e.start)
        raise InputError(f"'{path.name}' is not UTF-8 text (byte 0x{data[e.start]:02X} on line {line}). Save it "
                         "as UTF-8 in your text editor (Save As › Encoding: UTF-8) and open it again.") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError(f"'{path.name}' is empty: there is nothing to speak.")
    chars = len(text)
    return OpenedText(path, text if chars <= editor_limit else None, chars, is_markdown(path))


def looks_like_script(text: str) -> bool:
    """The text parses as a dialogue script (``Name: line`` lines, see :mod:`cosycore.studio.script`)."""
    try:
        script = parse_script(text)
    except (ScriptError, InputError):
        return False
    return len(script.lines) >= MIN_SCRIPT_LINES
