"""A deadline for receiving a request body: a slow client holds a worker thread for a bounded time.

Under a worker that hands a connection to a thread before its body is in (gunicorn's stock
gthread), the thread waits, blocking, for the body: a client trickling it would hold the thread as
long as it liked, and a few such clients would stall the worker (the classic slow-loris). Each
request with a body is registered with its socket (``gunicorn.socket``), and one watchdog thread
per worker process shuts the read side of any socket whose body is late past
``BODY_READ_TIMEOUT``: the read returns, the answer is a 408 that closes the connection. Under
the head-first worker (``quart_bezique.server``) it bounds nothing that worker has not bounded
already (docs/operations.md, "Slow clients").
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from typing import Any, Final

from quart_bezique.api.envelope.exchange import Exchange

log = logging.getLogger("quart_bezique.api.deadline")

TICK_SECONDS: Final = 0.25
"""How often the watchdog looks: a late body is cut at most this much after its deadline."""


class BodyDeadlines:
    """The requests whose body is still awaited, and the thread that cuts the late ones."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._awaited: dict[int, tuple[float, Any, Exchange]] = {}
        self._pid = 0

    def watch(self, exchange: Exchange, sock: Any) -> None:
        if self._pid != os.getpid():
            self._start()
        deadline = time.monotonic() + self.seconds
        with self._lock:
            self._awaited[id(exchange)] = (deadline, sock, exchange)

    def forget(self, exchange: Exchange) -> None:
        with self._lock:
            self._awaited.pop(id(exchange), None)

    def _start(self) -> None:
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._awaited.clear()  # inherited from another process: not ours to cut
        threading.Thread(target=self._run, name="body-deadlines", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(TICK_SECONDS)
            now = time.monotonic()
            with self._lock:
                late = [
                    key
                    for key, (deadline, _, ex) in self._awaited.items()
                    if deadline <= now and not ex.received
                ]
                cut = [self._awaited.pop(key) for key in late]
            for _, sock, exchange in cut:
                exchange.timed_out = True
                # The blocked read returns; the answer can still be written. A client that has
                # gone already makes this fail: nothing left to do then.
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RD)
                log.info(
                    "request %s: body not received within %.0f s", exchange.request_id, self.seconds
                )
