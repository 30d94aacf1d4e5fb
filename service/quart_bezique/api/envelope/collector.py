"""The garbage collector, held off while a large body is parsed, judged and answered.

A 10,000-hand batch parses into some 20,000 containers, which would set off dozens of young
collections, each walking the batch parsed so far. None of it is cyclic garbage: it all goes by
reference counting when the road lets go of the body. Pauses are counted, so overlapping requests
(gunicorn's threads) resume the collector once all of them are done, and only if it was running.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


class CollectorPause:
    """Holds the collector off from construction until ``end`` (idempotent), or for the duration
    of a ``with`` block."""

    __slots__ = ("_ended",)

    def __init__(self) -> None:
        global _pauses, _was_enabled
        self._ended = False
        with _lock:
            if _pauses == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _pauses += 1

    def end(self) -> None:
        global _pauses
        with _lock:
            if self._ended:
                return
            self._ended = True
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()

    def __enter__(self) -> CollectorPause:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.end()
