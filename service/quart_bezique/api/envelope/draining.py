"""Whether this worker has been asked to stop: readiness turns false from then on.

The server (``gunicorn.conf.py``) learns of the stop and the health endpoint reports it; both
reach this small module, so neither has to import the other.
"""

from __future__ import annotations

_draining = False


def mark_draining() -> None:
    """Report not-ready from now on (called when the worker is asked to stop)."""
    global _draining
    _draining = True


def is_draining() -> bool:
    return _draining
