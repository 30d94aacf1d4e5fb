"""Give the C heap's free pages back to the system once the app is built.

Building the app (its tables, its schemas, its contract) allocates and frees far more than it
keeps, and glibc's allocator keeps the freed pages: an idle worker would hold them for its whole
life. ``malloc_trim`` returns them. Elsewhere (no glibc) there is nothing to do.
"""

from __future__ import annotations

import ctypes


def give_back_free_heap() -> bool:
    """Whether the free heap was returned (False without glibc's ``malloc_trim``). The symbol is
    looked up in the running process (the interpreter links the C library): no search, no
    subprocess."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    trim(0)
    return True
