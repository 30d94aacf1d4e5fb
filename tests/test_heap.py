"""The free heap is given back once the app is built (``service/quart_bezique/server/heap.py``): on
glibc the call is made, and without ``malloc_trim`` nothing fails."""

from __future__ import annotations

import ctypes
import subprocess
import sys

import pytest
from quart_bezique.server import heap


def test_the_free_heap_is_given_back_on_glibc() -> None:
    assert hasattr(ctypes.CDLL(None), "malloc_trim")  # this machine's C library is glibc
    assert heap.give_back_free_heap() is True


def test_without_malloc_trim_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoTrim:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoTrim)
    assert heap.give_back_free_heap() is False


def test_the_served_module_gives_it_back() -> None:
    code = (
        "import quart_bezique.server.heap as h; calls = []; real = h.give_back_free_heap\n"
        "h.give_back_free_heap = lambda: calls.append(1) or real()\n"
        "import quart_bezique.wsgi; print(len(calls))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1"]
