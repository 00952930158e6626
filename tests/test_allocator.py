"""cosycore.allocator: freed heap memory goes back to the system (glibc), and nothing breaks elsewhere."""

from __future__ import annotations

import sys

import pytest

from cosycore import allocator


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim and /proc")
def test_freed_blocks_leave_the_resident_set() -> None:
    if allocator._malloc_trim() is None:
        pytest.skip("not glibc")
    # glibc maps big blocks on their own, until one is freed: its threshold then grows to that size, and
    # blocks under it come from the heap, which keeps them once freed (what loading a model leaves).
    raise_threshold = bytearray(4 << 20)
    del raise_threshold
    blocks = [bytearray(1 << 20) for _ in range(200)]
    for b in blocks:
        b[::4096] = b"\1" * len(b[::4096])  # touch every page
    keep = bytearray(64)  # something allocated after them keeps the heap's top from shrinking by itself
    del blocks
    before = _rss_bytes()
    assert allocator.release_free_memory()
    after = _rss_bytes()
    assert before - after > 100 << 20, (before, after)
    del keep


def test_without_glibc_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator, "_malloc_trim", lambda: None)
    assert allocator.release_free_memory() is False
