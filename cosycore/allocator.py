"""Hand freed heap memory back to the system after the big one-off allocations (glibc).

Why. Loading a release builds large temporaries (the float LM layers before int8 packing, the
weights a graph replaces, a torch module's tensors that a graph session copies); a request builds the
flow cache and the vocoder's activations. glibc's ``malloc`` serves blocks under its (growing) mmap
threshold from its heaps and keeps them there once freed, so the process stays at its high-water
mark: on the 2-core development machine draft's resident memory after loading was 2.15 GiB, and
1.71 GiB after ``malloc_trim(0)``; the peak of a 5 s draft request fell from 2.43 to 2.22 GiB with
one trim after loading (docs/performance.md, issue 28, fifth pass). A fixed, low mmap threshold
(``MALLOC_MMAP_THRESHOLD_``) gave the same memory but made the vocoder 1.5x slower (every large
activation mapped and unmapped per chunk), so the engine trims at quiet points instead: after loading
and after each request.

Elsewhere than glibc (macOS, Windows, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
from collections.abc import Callable
from functools import cache

logger = logging.getLogger(__name__)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Return the heap's free pages to the system (``malloc_trim(0)``); True where that ran.

    Cheap (a few milliseconds): call it after a load or a request, not inside a loop."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
