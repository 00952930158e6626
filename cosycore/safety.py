"""Small guards for reading files and text that came from someone else (torch-free).

* :func:`escape_control`: control characters (terminal escape sequences, bidi overrides, NUL, …)
  shown as ``\\x1b``-style escapes, so a voice name or transcript cannot rewrite the terminal;
* :func:`read_regular_file`: read a file only when it is a regular file (not a FIFO, a device such
  as ``/dev/zero`` or a socket, also when reached through a symlink) and only up to a size limit;
* :func:`json_depth_ok` and :func:`loads_strict_json`: JSON without ``NaN``/``Infinity`` and
  without nesting deep enough to exhaust the parser's recursion.

See ``docs/security.md`` for why each check exists.
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
from pathlib import Path
from typing import Any

MAX_JSON_DEPTH = 32


def escape_control(text: object, keep: str = "") -> str:
    """``text`` with every control, format or unassigned character written as an escape.

    Ordinary letters, marks, digits, punctuation, symbols and spaces (categories L, M, N, P, S,
    Zs) are kept as they are; tabs, newlines, ESC, DEL, C1 controls, bidi overrides (Cf),
    line/paragraph separators (Zl, Zp), surrogates and unassigned code points become ``\\xNN``,
    ``\\uNNNN`` or ``\\UNNNNNNNN``. Characters in ``keep`` (for example ``"\\n"`` in a
    multi-line message) are kept too.
    """
    out: list[str] = []
    for c in str(text):
        cat = unicodedata.category(c)
        if cat[0] in "LMNPS" or cat == "Zs" or c in keep:
            out.append(c)
            continue
        code = ord(c)
        out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


class UnsafeFileError(Exception):
    """Not a regular file, or larger than allowed; the caller turns it into its own typed error."""


def read_regular_file(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``max_bytes`` bytes.

    The file is opened without blocking (a FIFO would otherwise wait for a writer forever) and
    checked with ``fstat`` on the open descriptor, so a symlink to ``/dev/zero`` or a FIFO is
    refused before any byte is read. At most ``max_bytes + 1`` bytes are ever read, so a file that
    grows while it is read cannot exhaust memory either. Raises :class:`FileNotFoundError` (and
    other :class:`OSError`) as ``open`` does, :class:`UnsafeFileError` for the rest.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFileError(f"{path} is not a regular file (a device, a pipe or a socket)")
        if st.st_size > max_bytes:
            raise UnsafeFileError(f"{path} is {st.st_size:,} bytes; at most {max_bytes:,} are expected")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            block = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not block:
                break
            chunks.append(block)
            total += len(block)
        if total > max_bytes:
            raise UnsafeFileError(f"{path} grew past {max_bytes:,} bytes while it was read")
        return b"".join(chunks)
    finally:
        os.close(fd)


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_BRACKET = re.compile(rb"[\[\]{}]")


def json_depth_ok(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the brackets of a JSON document nest at most ``limit`` deep (strings are skipped).

    Run before :func:`json.loads`, whose recursive parser would otherwise raise ``RecursionError``
    (or worse) on ``[[[[…]]]]`` nested a hundred thousand times. The strings are cut out and the
    brackets found by regular expressions, so a 3 MB vocabulary is checked in milliseconds.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = 0
    for m in _JSON_BRACKET.finditer(_JSON_STRING.sub(b"", data)):
        if m.group() in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return False
        else:
            depth -= 1
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def loads_strict_json(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> Any:
    """:func:`json.loads` that refuses ``NaN``/``Infinity`` and nesting deeper than ``limit``.

    Raises :class:`ValueError` (``json.JSONDecodeError`` is one) for anything it refuses.
    """
    if not json_depth_ok(text, limit):
        raise ValueError(f"the JSON nests deeper than {limit} levels")
    return json.loads(text, parse_constant=_no_constant)


def read_text_file(path: Path | str, max_bytes: int) -> str:
    """:func:`read_regular_file` decoded as UTF-8 (:class:`UnicodeDecodeError`, a ValueError, when it is not)."""
    return read_regular_file(path, max_bytes).decode("utf-8")


def read_json_file(path: Path | str, max_bytes: int, limit: int = MAX_JSON_DEPTH) -> Any:
    """A JSON file read as :func:`read_regular_file` reads it (a regular file, at most ``max_bytes``) and
    parsed as :func:`loads_strict_json` parses it (at most ``limit`` deep, no ``NaN``).

    Raises :class:`OSError` (missing, unreadable), :class:`UnsafeFileError` (a device, a FIFO, too
    large) or :class:`ValueError` (not UTF-8, not JSON, too deep): the caller makes its own typed error.
    """
    return loads_strict_json(read_text_file(path, max_bytes), limit)
