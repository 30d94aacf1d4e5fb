"""The drain before a graceful stop: SIGTERM first takes a replica out of rotation, then stops it.

Gunicorn's own SIGTERM closes the listening socket at once, but a load balancer that finds
replicas by health checks still sends new connections there until its next failed check, and
kept-alive clients lose the request they send as the replica closes them. So on the first
SIGTERM the master keeps accepting and serving for ``GUNICORN_DRAIN_SECONDS`` while every worker
answers ``/readyz`` with 503 and every request with ``Connection: close``, and only then runs
gunicorn's graceful stop (``DrainingStop``). docs/deploy.md, "Rolling restarts behind a
health-checking load balancer", gives the sequence. Nothing here imports the web app:
``gunicorn.conf.py`` hands in what to call.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any, Final

DRAIN_ENV: Final = "GUNICORN_DRAIN_SECONDS"
DEFAULT_DRAIN_SECONDS: Final = 5
MAX_DRAIN_SECONDS: Final = 300
NOTIFY: Final = signal.SIGWINCH
"""Gunicorn's workers ignore it (``Worker.handle_winch``), so it never stops one by accident."""

_shared = mmap.mmap(-1, 1)
"""One byte, anonymous and shared: created at import in the master, inherited by every fork."""
_entered: list[Callable[[], None]] = []


class DrainError(ValueError):
    """``GUNICORN_DRAIN_SECONDS`` holds a value the server cannot run with."""


def drain_seconds(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    raw = env.get(DRAIN_ENV, "").strip()
    if not raw:
        return DEFAULT_DRAIN_SECONDS
    try:
        value = int(raw, 10)
    except ValueError:
        raise DrainError(f"{DRAIN_ENV} must be an integer, got {raw!r}") from None
    if not 0 <= value <= MAX_DRAIN_SECONDS:
        raise DrainError(f"{DRAIN_ENV} must be between 0 and {MAX_DRAIN_SECONDS}, got {value}")
    return value


def draining() -> bool:
    """Whether this server is draining (cheap: read on every answer)."""
    return _shared[0] == 1


def _set_shared() -> None:
    _shared[0] = 1


# --------------------------------------------------------------------------- the worker's side


def watch_in_worker(on_drain: Callable[[], None]) -> None:
    """In a worker, after gunicorn installed its signal handlers: call ``on_drain`` once when
    the drain starts, or at once if it already has (a worker forked during the drain)."""

    def notified(signum: int, frame: FrameType | None) -> None:
        _enter(on_drain)

    signal.signal(NOTIFY, notified)
    signal.siginterrupt(NOTIFY, False)  # as gunicorn does for SIGTERM: no EINTR in a request
    if draining():  # after installing the handler: no drain can slip between the two
        _enter(on_drain)


def _enter(on_drain: Callable[[], None]) -> None:
    if on_drain not in _entered:
        _entered.append(on_drain)
        on_drain()


# --------------------------------------------------------------------------- the master's side


class DrainingStop:
    """Replaces the arbiter's ``handle_term`` (gunicorn looks handlers up on the instance).

    The first SIGTERM sets the flag shared with every forked worker (first) and sends them
    ``NOTIFY`` (next): a worker that was running gets the signal, one forked during the drain (a
    replacement) finds the flag set when it starts. After the drain, gunicorn's graceful stop
    runs (listener closed, in-flight requests finished within ``GUNICORN_GRACEFUL_TIMEOUT``). A
    second SIGTERM during the drain ends it at once (still gracefully); SIGINT and SIGQUIT stop
    at once, as in gunicorn. ``0`` seconds turns the drain off."""

    def __init__(self, arbiter: Any, seconds: int) -> None:
        self.arbiter = arbiter
        self.seconds = seconds
        self.started = False

    def __call__(self) -> None:
        if self.started or self.seconds <= 0:
            raise StopIteration  # gunicorn's own handle_term: the graceful stop
        self.started = True
        _set_shared()
        self.arbiter.log.info(
            "SIGTERM: draining for %d s (readiness 503, still serving), then a graceful stop",
            self.seconds,
        )
        for pid in list(self.arbiter.WORKERS):
            # A worker already gone is reaped and replaced; its replacement sees the flag.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, NOTIFY)
        signal.signal(signal.SIGALRM, self._drained)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def _drained(self, signum: int, frame: FrameType | None) -> None:
        """The drain is over: queue a SIGTERM for the arbiter's loop, which now stops."""
        self.arbiter.SIG_QUEUE.put_nowait(signal.SIGTERM)


def install_in_master(arbiter: Any, seconds: int) -> None:
    arbiter.handle_term = DrainingStop(arbiter, seconds)
