"""Cancellation inside long computations: the flow's Euler steps, the vocoder's blocks, each token.

A request's code runs under :func:`cancel_scope` with a check (for the engine: "was :meth:`Engine.cancel`
called since this request began?"). Long loops call :func:`cancel_point` between their steps; it raises
:class:`Cancelled` when the check says so, and the engine ends the request quietly as a cancelled one.
The scope is per thread and is active only while the request computes (never between the chunks it
yields), so code outside a request is never interrupted.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

_local = threading.local()


class Cancelled(Exception):  # noqa: N818 (a control-flow signal, not an error the user sees)
    """Raised by :func:`cancel_point` inside a cancelled scope; never leaves the engine."""


@contextlib.contextmanager
def cancel_scope(check: Callable[[], bool]) -> Iterator[None]:
    """Make :func:`cancel_point` on this thread raise :class:`Cancelled` once ``check()`` is true."""
    previous = getattr(_local, "check", None)
    _local.check = check
    try:
        yield
    finally:
        _local.check = previous


def cancel_point() -> None:
    """Raise :class:`Cancelled` if the current scope was cancelled (cheap: one call and a compare)."""
    check = getattr(_local, "check", None)
    if check is not None and check():
        raise Cancelled


def scoped(items: Iterator[T], check: Callable[[], bool]) -> Iterator[T]:
    """``items`` computed under ``cancel_scope(check)``; ends quietly when cancelled.

    The scope covers the computation of each item only, not the consumer's code between items.
    """
    try:
        while True:
            with cancel_scope(check):
                try:
                    item = next(items)
                except StopIteration:
                    return
                except Cancelled:
                    return
            yield item
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
