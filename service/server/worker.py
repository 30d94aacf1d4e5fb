"""gunicorn's gthread worker, changed so that only a complete request head gets a thread.

Stock gthread gives every accepted connection to a thread at once; the thread waits up to 5 s
for a first byte and then reads the head with blocking reads and no deadline. With 2 threads per
worker, a handful of idle or slow connections held every thread and ``/healthz`` waited for
them. Here the worker's poller (one thread, non-blocking sockets) does all the waiting:

* a connection waits in the poller until its request head (line and fields, up to the empty
  line) is complete, within ``HEAD_READ_TIMEOUT`` of its acceptance (of its next request's first
  byte when kept alive); only then is it handed to a thread, whose parser then never waits for
  the head. Late: 408 and closed (silently if nothing at all came); over ``HEAD_MAX_BYTES`` or
  gunicorn's request-line limit: refused (431, 414) from the poller;
* an answer is written with a total ``SEND_TIMEOUT``, and a connection whose previous answers
  still fill the socket's send buffer waits in the poller (not a thread) for room, at most as
  long: a client that pipelines requests and never reads them cannot hold a thread;
* an answer that leaves request body bytes unread says ``Connection: close`` (``settle.py``),
  and the closing connection lingers in the poller, discarding up to ``CLOSE_DRAIN_BYTES`` for
  up to ``CLOSE_DRAIN_TIMEOUT`` after the answer, so a client still streaming its oversized body
  gets to read the 413 instead of a reset. (Stock gthread drains on the poller's thread itself,
  blocking every other connection meanwhile.)

Request bodies keep their deadline in the app (``service/api/envelope/deadline.py``). The
thread pool, ``threading.local``, the app's own threads: all as in gthread, which this
subclasses. It relies on
gthread's internals (``TConn``, ``enqueue_req``, ``finish_request``, the parser's unreader),
hence the pin ``gunicorn>=27.0,<28`` in ``pyproject.toml``; ``tests/security`` exercises each
path against the real server. Plain HTTP/1.1 only: TLS and HTTP/2 are refused at start (TLS ends
at the ingress).
"""

from __future__ import annotations

import contextlib
import errno
import select
import selectors
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from gunicorn import http, util  # type: ignore[import-untyped]
from gunicorn.workers.gthread import (  # type: ignore[import-untyped]
    STOP_KEEPALIVE_LINGER,
    TConn,
    ThreadWorker,
)

from .drain import draining
from .head import head_complete, overflow
from .limits import ConnectionLimits
from .settle import settle_body
from .timeout_answer import REQUEST_TIMEOUT_ANSWER

TICK_SECONDS = 0.25
"""Longest poller sleep: deadlines are enforced at most this late."""
RECV_BYTES = 64 * 1024

HEAD = "head"
"""Waiting for (the rest of) a request head."""
ROOM = "room"
"""Head complete; waiting for room in the send buffer before a thread takes it."""
LINGER = "linger"
"""Answered and half-closed; discarding what the client still sends, then closed."""


@dataclass(eq=False, slots=True)
class Waiting:
    """A connection the poller holds, with what it waits for and until when."""

    conn: Any
    phase: str
    deadline: float
    head: bytearray = field(default_factory=bytearray)
    clock_started: bool = True
    """False while a kept-alive connection idles: its head clock starts at the first byte."""
    drained: int = 0


class HeadFirstWorker(ThreadWorker):  # type: ignore[misc]
    """See the module docstring; gunicorn loads it as ``service.server.worker.HeadFirstWorker``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = ConnectionLimits.from_environ()
        self._held: dict[int, Waiting] = {}
        self._serving = threading.local()
        self._stop_capped = False

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        super().check_config(cfg, log)
        if cfg.is_ssl or "h2" in cfg.http_protocols or cfg.http2_cleartext != "off":
            raise RuntimeError("HeadFirstWorker serves plain HTTP/1.1 only (no TLS, no HTTP/2)")

    # --- the poller's side ---------------------------------------------------------------------

    def accept(self, listener: socket.socket) -> None:
        try:
            sock, client = listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        except OSError as error:
            if error.errno not in (errno.EMFILE, errno.ENFILE):
                raise
            self._shed_idle()  # out of descriptors: make room rather than die
            return
        self.nr_conns += 1
        conn = TConn(self.cfg, sock, client, listener.getsockname())  # non-blocking now
        self._wait_for_head(conn, time.monotonic() + self.limits.head_timeout, b"", True)

    def finish_request(self, conn: Any, fs: Future[Any]) -> None:
        """A thread is done with ``conn``: keep it (wait for its next head) or close it."""
        try:
            keep = not fs.cancelled() and fs.result() is True
        except Exception:
            keep = False
        if getattr(conn, "send_timed_out", False):
            self._close(conn)
        elif keep:
            now = time.monotonic()
            keepalive = self.cfg.keepalive if self.alive else STOP_KEEPALIVE_LINGER
            idle = now + min(self.cfg.keepalive, keepalive)
            self._wait_for_head(conn, idle, conn.parser.unreader.take_buffered(), False)
        else:
            self._linger(conn)

    def _wait_for_head(self, conn: Any, deadline: float, head: bytes, started: bool) -> None:
        wait = Waiting(conn, HEAD, deadline, bytearray(head), started)
        conn.sock.setblocking(False)
        self._hold(wait, selectors.EVENT_READ, self._on_head_bytes)
        if head:  # pipelined behind the previous request
            self._head_grew(wait, len(head))

    def _on_head_bytes(self, wait: Waiting, _fileobj: Any) -> None:
        try:
            data = wait.conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client is gone (or closed an idle kept-alive connection)
            self._close(wait.conn)
            return
        wait.head += data
        self._head_grew(wait, len(data))

    def _head_grew(self, wait: Waiting, new_bytes: int) -> None:
        if not wait.clock_started:
            wait.clock_started = True
            wait.deadline = time.monotonic() + self.limits.head_timeout
        if head_complete(wait.head, new_bytes):
            self._when_room(wait)
            return
        refusal = overflow(wait.head, self.limits.head_max_bytes, self.cfg)
        if refusal is not None:
            self._release(wait)
            self.handle_error(None, wait.conn.sock, wait.conn.client, refusal)  # non-blocking
            self._linger(wait.conn)

    def _when_room(self, wait: Waiting) -> None:
        """Hand the connection to a thread if its answer can be written; else wait for room."""
        if _writable(wait.conn.sock):
            self._release(wait)
            self._to_thread(wait.conn, bytes(wait.head))
            return
        self._release(wait)
        wait.phase = ROOM
        wait.deadline = time.monotonic() + self.limits.send_timeout
        self._hold(wait, selectors.EVENT_WRITE, self._on_room)

    def _on_room(self, wait: Waiting, _fileobj: Any) -> None:
        self._release(wait)
        self._to_thread(wait.conn, bytes(wait.head))

    def _to_thread(self, conn: Any, head: bytes) -> None:
        if conn.parser is None:
            conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
        conn.parser.unreader.unread(head)
        conn.data_ready = True  # gthread's handle() must not wait for data again
        self.enqueue_req(conn)

    def _linger(self, conn: Any) -> None:
        """Close after the answer: FIN first, then discard what the client still sends."""
        try:
            conn.sock.setblocking(False)
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._close(conn)
            return
        if self.limits.drain_bytes <= 0 or self.limits.drain_timeout <= 0:
            self._close(conn)
            return
        wait = Waiting(conn, LINGER, time.monotonic() + self.limits.drain_timeout)
        self._hold(wait, selectors.EVENT_READ, self._on_linger_bytes)

    def _on_linger_bytes(self, wait: Waiting, _fileobj: Any) -> None:
        try:
            data = wait.conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        wait.drained += len(data)
        if not data or wait.drained >= self.limits.drain_bytes:
            self._close(wait.conn)

    def _hold(self, wait: Waiting, events: int, callback: Callable[[Waiting, Any], None]) -> None:
        self._held[id(wait.conn)] = wait
        self.poller.register(wait.conn.sock, events, partial(callback, wait))

    def _release(self, wait: Waiting) -> None:
        self._held.pop(id(wait.conn), None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(wait.conn.sock)

    def _close(self, conn: Any) -> None:
        wait = self._held.get(id(conn))
        if wait is not None:
            self._release(wait)
        self.nr_conns -= 1
        util.close(conn.sock)

    def _shed_idle(self) -> None:
        """Close the idle connection (nothing sent) closest to its deadline, if there is one:
        it would be closed soon anyway, and an accepted request is worth more."""
        idle = [w for w in self._held.values() if w.phase == HEAD and not w.head]
        if idle:
            self.log.warning("out of file descriptors: closing an idle connection")
            self._close(min(idle, key=lambda w: w.deadline).conn)

    def murder_pending(self) -> None:
        """Called by gthread's loop after every wake-up, running or stopping: enforce deadlines."""
        super().murder_pending()
        now = time.monotonic()
        if not self.alive and not self._stop_capped:
            self._stop_capped = True
            for wait in self._held.values():
                if wait.phase == HEAD and not wait.head:  # idle: nothing to finish
                    wait.deadline = min(wait.deadline, now + STOP_KEEPALIVE_LINGER)
        for wait in [w for w in self._held.values() if w.deadline <= now]:
            self._expire(wait)

    def _expire(self, wait: Waiting) -> None:
        if wait.phase == HEAD and wait.head:
            self._release(wait)
            self.log.info("request head not received within %.0f s", self.limits.head_timeout)
            with contextlib.suppress(OSError):
                util.write_nonblock(wait.conn.sock, REQUEST_TIMEOUT_ANSWER)
            self._linger(wait.conn)
        else:  # idle, not reading its answers, or done lingering
            if wait.phase == ROOM:
                self.log.info("answers not read within %.0f s: closed", self.limits.send_timeout)
            self._close(wait.conn)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        super().wait_for_and_dispatch_events(min(timeout, TICK_SECONDS))

    # --- a thread's side -----------------------------------------------------------------------

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app: Callable[..., Any] = self.wsgi

        def before_answer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
            result = app(environ, start_response)
            self._answer_settled()
            return result

        self.wsgi: Callable[..., Any] = before_answer

    def handle_request(self, req: Any, conn: Any) -> bool:
        self._serving.current = (req, conn)
        try:
            return bool(super().handle_request(req, conn))
        except TimeoutError:
            self.log.info("answer not taken by the client within %.0f s", self.limits.send_timeout)
            conn.send_timed_out = True
            return False
        finally:
            self._serving.current = None

    def _answer_settled(self) -> None:
        """Between the app and the answer's first byte: decide keep-alive honestly, then bound
        the time the answer may take to send."""
        current: tuple[Any, Any] | None = getattr(self._serving, "current", None)
        if current is None:
            return
        req, conn = current
        if not settle_body(req, conn.sock):
            req.force_close()  # the answer then says "Connection: close"
        elif draining():
            req.force_close()  # kept-alive clients reconnect elsewhere before the listener closes
        conn.sock.settimeout(self.limits.send_timeout)


def _writable(sock: socket.socket) -> bool:
    """Whether the kernel would take more of an answer now (POLLOUT: its send buffer has room)."""
    poll = select.poll()
    poll.register(sock, select.POLLOUT)
    return bool(poll.poll(0))
