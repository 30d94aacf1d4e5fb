"""UTC timestamps as the audit line and the receipts write them: one clock, one format.

A receipt's ``iat`` and its audit line's ``ts`` must read alike, so both take their time here.
"""

from __future__ import annotations

import time


class _Clock:
    """UTC timestamps with microseconds (``2026-05-10T06:06:10.123456Z``): the date and time of
    day are formatted once per second, then only the fraction per line."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def now(self) -> str:
        stamp = time.time()
        second = int(stamp)
        if second != self._second:  # a race only formats the same second twice
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        return f"{self._prefix}.{int((stamp - second) * 1e6):06d}Z"


now = _Clock().now
