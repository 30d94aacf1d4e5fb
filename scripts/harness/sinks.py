"""An audit sink for measurements: each line written on the caller's thread, no writer thread.

Not for serving (a reader that stops reading would block every request; the service uses its
bounded ``AuditSink``): measuring the envelope's own cost wants no thread beside it.
"""

from __future__ import annotations

import os
from collections.abc import Callable


def fd_sink(fd: int) -> Callable[[bytes], None]:
    """Write each line with one blocking ``write(2)`` to ``fd``."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    return write
