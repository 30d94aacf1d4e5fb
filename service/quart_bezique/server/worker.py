"""gunicorn's gthread worker, changed so that a thread only ever holds a request that moves.

Stock gthread hands a connection to a thread that then waits on the client: for its head, its
body, and for room to write its answer. With two threads per worker, a few slow or non-reading
clients held every thread and the probes waited behind them. Here the poller (one thread,
non-blocking sockets) does all the waiting, and a thread gets a request only when it is whole
(``HeadFirstWorker`` lists the phases). Plain HTTP/1.1 only (TLS ends at the ingress); gthread's
internals are reached only through ``gunicorn_internals.py``; ``tests/security`` replays each
attack on a real server; docs/operations.md, "Slow clients", has the limits and figures.
"""

from __future__ import annotations

import contextlib
import errno
import resource
import selectors
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .drain import draining
from .framing import BROKEN, DONE, ChunkedEnd
from .gunicorn_internals import (
    CHUNKED,
    CLIENT_GONE,
    STOP_LINGER,
    Connection,
    GthreadWorker,
    body_length,
    close_socket,
    ensure_parser,
    force_close,
    give_back,
    head_too_large,
    new_connection,
    next_request,
    plain_http1_only,
    read_ahead,
    request_header,
    request_method,
    request_path,
    take_expect_continue,
    take_pending,
)
from .head import head_end, overflow
from .limits import ConnectionLimits
from .outbox import Outbox
from .settle import settle_body
from .timeout_answer import BODY_TIMEOUT_ANSWER, REQUEST_TIMEOUT_ANSWER

TICK_SECONDS = 0.25
"""Longest poller sleep: deadlines are enforced at most this late."""
RECV_BYTES = 64 * 1024
FD_RESERVE = 64
"""Descriptors kept free of connections: logs, the tables, the listener, the app's own files."""
BACKOFF_FIRST, BACKOFF_MOST = 0.05, 1.0
"""Seconds accepting pauses when the process is out of descriptors (doubling, up to the most)."""
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

HEAD = "head"
"""Waiting for (the rest of) a request head, or idle between kept-alive requests."""
BODY = "body"
"""Head parsed; collecting the body before a thread is given the request."""
SEND = "send"
"""Answered; writing what the client had no room for, then ``then``."""
LINGER = "linger"
"""Answered and half-closed; discarding what the client still sends, then closed."""

SHED_ORDER = {LINGER: 0, HEAD: 1, SEND: 2, BODY: 3}
"""Which held connections go first when room is needed (then the longest idle)."""

RefusesUnread = Callable[[str, str, "str | None"], bool]
"""(method, path, Authorization) -> whether the app refuses the request without its body."""


@dataclass(eq=False, slots=True)
class Waiting:
    """A connection the poller holds, with what it waits for and until when."""

    conn: Connection
    phase: str
    deadline: float
    head: bytearray = field(default_factory=bytearray)
    clock_started: bool = True
    """False while a kept-alive connection idles: its head clock starts at the first byte."""
    drained: int = 0
    active: float = field(default_factory=time.monotonic)
    """When bytes last moved on it (shedding takes the longest idle first)."""
    req: Any = None
    body: bytearray = field(default_factory=bytearray)
    length: int = 0
    """A sized body's length (0 for a chunked one)."""
    chunked: ChunkedEnd | None = None
    then: Callable[[], None] | None = None
    """What follows a SEND: the next head, or the linger."""


class HeadFirstWorker(GthreadWorker):
    """gunicorn loads it as ``quart_bezique.server.worker.HeadFirstWorker``. The phases of a
    request:

    * head: collected until complete, within ``HEAD_READ_TIMEOUT`` (408 when late), refused from
      the poller when over ``HEAD_MAX_BYTES`` (431) or the request-line limit (414);
    * body: parsed framing (gunicorn's parser, on the poller), then collected up to the app's
      ``MAX_BODY_BYTES`` within ``BODY_READ_TIMEOUT`` (408 when late); ``100 Continue`` is sent
      only for a request the app does not refuse from its head (``refuses_unread``);
    * answer: written through an ``Outbox`` that never blocks; what the client has no room for
      is written by the poller within ``SEND_TIMEOUT`` (then closed), static files without a
      copy;
    * closing: FIN, then the client's unread bytes discarded for a while (``CLOSE_DRAIN_*``).

    Connections beyond capacity (gunicorn's ``worker_connections``, bounded by the descriptor
    limit) are shed oldest-idle-first instead of waiting in the accept queue; out of
    descriptors, accepting backs off."""

    longest_wait = TICK_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = ConnectionLimits.from_environ()
        self.capacity = connection_capacity(self.cfg.worker_connections)
        self.refuses_unread: RefusesUnread | None = None
        """Set by ``gunicorn.conf.py`` from the app; None: every body is invited."""
        self._held: dict[int, Waiting] = {}
        self._serving = threading.local()
        self._stop_capped = False
        self._body_bytes = 0
        self._paused_until = 0.0
        self._backoff = BACKOFF_FIRST
        self._shed = 0
        self._shed_logged = 0.0

    @classmethod
    def check_settings(cls, cfg: Any) -> None:
        if not plain_http1_only(cfg):
            raise RuntimeError("HeadFirstWorker serves plain HTTP/1.1 only (no TLS, no HTTP/2)")

    # --- accepting ---------------------------------------------------------------------------

    def accept_wanted(self, enabled: bool) -> bool:
        """While running, the listener stays open whatever the count (a full worker sheds
        instead), except during a back-off after running out of descriptors."""
        if self.alive:
            return time.monotonic() >= self._paused_until
        return enabled

    def on_listener(self, listener: socket.socket) -> None:
        try:
            sock, client = listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        except OSError as error:
            if error.errno not in (errno.EMFILE, errno.ENFILE):
                raise
            self._out_of_descriptors()
            return
        self._backoff = BACKOFF_FIRST
        if self.connections >= self.capacity and not self._shed_one():
            close_socket(sock)  # every connection is on a thread: the newcomer waits its turn
            self._count_shed()
            return
        self.connections += 1
        conn = new_connection(self.cfg, Outbox(sock), client, listener.getsockname())
        self._wait_for_head(conn, time.monotonic() + self.limits.head_timeout, b"", True)

    def _out_of_descriptors(self) -> None:
        """Stop accepting for a while (doubling) rather than spin, and free an idle descriptor."""
        now = time.monotonic()
        if self._backoff == BACKOFF_FIRST:
            self.log.warning(
                "out of file descriptors: accepting paused (%d held)", self.connections
            )
        self._paused_until = now + self._backoff
        self._backoff = min(self._backoff * 2, BACKOFF_MOST)
        self.enable_accepting(False)
        self._shed_one(idle_only=True)

    def _shed_one(self, idle_only: bool = False) -> bool:
        """Close the held connection that matters least: lingering, then idle, then not reading
        its answer, then trickling a request; the longest idle first in each."""
        candidates = [
            w for w in self._held.values() if not idle_only or w.phase == LINGER or _idle(w)
        ]
        if not candidates:
            return False
        victim = min(candidates, key=lambda w: (SHED_ORDER[w.phase], bool(w.head), w.active))
        self._close(victim.conn)
        self._count_shed()
        return True

    def _count_shed(self) -> None:
        self._shed += 1
        now = time.monotonic()
        if now - self._shed_logged >= 1.0:
            self.log.warning("at capacity (%d connections): %d shed", self.capacity, self._shed)
            self._shed, self._shed_logged = 0, now

    # --- the request, collected by the poller --------------------------------------------------

    def _wait_for_head(self, conn: Connection, deadline: float, head: bytes, started: bool) -> None:
        wait = Waiting(conn, HEAD, deadline, bytearray(head), started)
        self._hold(wait, selectors.EVENT_READ, self._on_head_bytes)
        if head:  # pipelined behind the previous request
            self._head_grew(wait, len(head))

    def _receive(self, wait: Waiting) -> bytes | None:
        """What arrived (None: nothing yet); a closed or failed connection is closed."""
        try:
            data: bytes = wait.conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:
            data = b""
        if not data:
            self._close(wait.conn)
            return None
        wait.active = time.monotonic()
        return data

    def _on_head_bytes(self, wait: Waiting, _fileobj: Any) -> None:
        data = self._receive(wait)
        if data is not None:
            wait.head += data
            self._head_grew(wait, len(data))

    def _head_grew(self, wait: Waiting, new_bytes: int) -> None:
        if not wait.clock_started:
            wait.clock_started = True
            wait.deadline = time.monotonic() + self.limits.head_timeout
        end = head_end(wait.head, new_bytes)
        if end > self.limits.head_max_bytes:
            too_long = f"request head over {self.limits.head_max_bytes} bytes"
            self._refuse(wait, head_too_large(too_long))
        elif end >= 0:
            self._parse(wait)
        else:
            refusal = overflow(wait.head, self.limits.head_max_bytes, self.cfg)
            if refusal is not None:
                self._refuse(wait, refusal)

    def _parse(self, wait: Waiting) -> None:
        """Parse the head (gunicorn's parser, from the bytes held) and plan the body."""
        conn = wait.conn
        ensure_parser(self.cfg, conn)
        give_back(conn, bytes(wait.head))
        wait.head.clear()
        try:
            req = next_request(conn)
        except StopIteration:
            self._release(wait)
            self._close(conn)
            return
        except Exception as error:  # a head gunicorn refuses: its 400 page, from here
            self._refuse(wait, error)
            return
        wait.req = req
        wait.body = bytearray(read_ahead(conn))
        length = body_length(req)
        if length == CHUNKED:
            limit = int(self.cfg.limit_request_field_size) or 8190
            wait.chunked = ChunkedEnd(limit + 16, max(limit, 64 * 1024) + 16)
        elif 0 < length <= self.limits.max_body_bytes:
            wait.length = length
        else:  # no body, or one the app refuses unread (413)
            self._dispatch(wait)
            return
        if take_expect_continue(req):  # never from the thread: only from here
            refuses = self.refuses_unread
            if refuses is not None and refuses(
                request_method(req), request_path(req), request_header(req, "AUTHORIZATION")
            ):
                self._dispatch(wait)  # answered from its head: the body is not invited
                return
            conn.sock.sendall(CONTINUE)
        self._release(wait)
        wait.phase = BODY
        wait.deadline = time.monotonic() + self.limits.body_timeout
        self._hold(wait, selectors.EVENT_READ, self._on_body_bytes)
        held = bytes(wait.body)
        wait.body.clear()
        self._body_grew(wait, held)

    def _on_body_bytes(self, wait: Waiting, _fileobj: Any) -> None:
        try:
            data: bytes = wait.conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(wait.conn)
            return
        if not data:  # half-closed before the body's end: the app answers the short body (400)
            self._dispatch(wait)
            return
        wait.active = time.monotonic()
        self._body_grew(wait, data)

    def _body_grew(self, wait: Waiting, data: bytes) -> None:
        wait.body += data
        self._body_bytes += len(data)
        if wait.chunked is not None:
            state = wait.chunked.feed(data)
            whole = state in (DONE, BROKEN)
            whole = whole or wait.chunked.data_bytes > self.limits.max_body_bytes
        else:
            whole = len(wait.body) >= wait.length
        if whole:
            self._dispatch(wait)
        elif self._body_bytes > self.limits.body_buffer_bytes:
            self.log.warning("request bodies over %d bytes held: one closed", self._body_bytes)
            self._close(wait.conn)

    def _dispatch(self, wait: Waiting) -> None:
        """Give the whole request to a thread (the bytes after it stay with the parser)."""
        self._release(wait)
        if wait.body:
            give_back(wait.conn, bytes(wait.body))
        self.hand_to_thread(wait.conn, wait.req)

    # --- answers written by the poller ---------------------------------------------------------

    def on_thread_done(self, conn: Connection, future: Future[Any]) -> None:
        """A thread is done with ``conn``: write what is left of its answer, then keep it (wait
        for its next head) or close it."""
        try:
            keep = not future.cancelled() and future.result() is True
        except Exception:
            keep = False
        then = partial(self._keep if keep else self._linger, conn)
        self._send_then(conn, self.limits.send_timeout, then)

    def _keep(self, conn: Connection) -> None:
        keepalive = self.cfg.keepalive if self.alive else STOP_LINGER
        idle = time.monotonic() + min(self.cfg.keepalive, keepalive)
        self._wait_for_head(conn, idle, read_ahead(conn), False)

    def _send_then(self, conn: Connection, seconds: float, then: Callable[[], None]) -> None:
        try:
            done = conn.sock.flush()
        except OSError:
            self._close(conn)
            return
        if done:
            then()
            return
        wait = Waiting(conn, SEND, time.monotonic() + seconds, then=then)
        self._hold(wait, selectors.EVENT_WRITE, self._on_room)

    def _on_room(self, wait: Waiting, _fileobj: Any) -> None:
        try:
            done = wait.conn.sock.flush()
        except OSError:
            self._close(wait.conn)
            return
        wait.active = time.monotonic()
        if done and wait.then is not None:
            self._release(wait)
            wait.then()

    def _refuse(self, wait: Waiting, error: Exception) -> None:
        """Answer a request the poller refuses (gunicorn's error page), then close."""
        self._release(wait)
        conn = wait.conn
        self.answer_error(wait.req, conn, error)  # into the outbox
        self._send_then(conn, self.limits.send_timeout, partial(self._linger, conn))

    def _linger(self, conn: Connection) -> None:
        """Close after the answer: FIN first, then discard what the client still sends."""
        try:
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
        data = self._receive(wait)
        if data is not None:
            wait.drained += len(data)
            if wait.drained >= self.limits.drain_bytes:
                self._close(wait.conn)

    # --- bookkeeping ---------------------------------------------------------------------------

    def _hold(self, wait: Waiting, events: int, callback: Callable[[Waiting, Any], None]) -> None:
        self._held[id(wait.conn)] = wait
        self.watch(wait.conn.sock, events, partial(callback, wait))

    def _release(self, wait: Waiting) -> None:
        if self._held.pop(id(wait.conn), None) is not None:
            self._body_bytes -= len(wait.body) if wait.phase == BODY else 0
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.unwatch(wait.conn.sock)

    def _close(self, conn: Connection) -> None:
        wait = self._held.get(id(conn))
        if wait is not None:
            self._release(wait)
        self.connections -= 1
        close_socket(conn.sock)

    def on_wake(self) -> None:
        """Called after every wake-up of gthread's loop, running or stopping: enforce deadlines."""
        now = time.monotonic()
        if self.alive and not self.accepting and now >= self._paused_until:
            self.enable_accepting(True)
        if not self.alive and not self._stop_capped:
            self._stop_capped = True
            for wait in self._held.values():
                if _idle(wait):  # nothing to finish
                    wait.deadline = min(wait.deadline, now + STOP_LINGER)
        for wait in [w for w in self._held.values() if w.deadline <= now]:
            self._expire(wait)

    def _expire(self, wait: Waiting) -> None:
        if wait.phase in (HEAD, BODY) and not _idle(wait):
            self._release(wait)
            late = "head" if wait.phase == HEAD else "body"
            self.log.info("request %s not received in time: 408", late)
            answer = REQUEST_TIMEOUT_ANSWER if wait.phase == HEAD else BODY_TIMEOUT_ANSWER
            wait.conn.sock.sendall(answer)
            self._send_then(wait.conn, self.limits.send_timeout, partial(self._linger, wait.conn))
        else:  # idle, not reading its answer, or done lingering
            if wait.phase == SEND:
                self.log.info("answer not read within %.0f s: closed", self.limits.send_timeout)
            self._close(wait.conn)

    # --- a thread's side -----------------------------------------------------------------------

    def serve(self, conn: Connection) -> bool:
        """Serve the request the poller collected: nothing here waits on the client."""
        req = take_pending(conn)
        try:
            return self.keepalive_after(conn, self._answer(req, conn))
        except CLIENT_GONE:
            return False
        except OSError as error:
            quiet = (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN, errno.EAGAIN)
            if error.errno not in quiet:
                self.log.exception("Socket error processing request.")
            return False
        except Exception as error:
            self.answer_error(req, conn, error)
            return False

    def wrap_app(self, app: Callable[..., Any]) -> Callable[..., Any]:
        return _SettleFirst(app, self._answer_settled)

    def _answer(self, req: Any, conn: Connection) -> bool:
        self._serving.current = (req, conn)
        try:
            return self.run_app(req, conn)
        finally:
            self._serving.current = None

    def _answer_settled(self) -> None:
        """Between the app and the answer's first byte: decide keep-alive honestly."""
        current: tuple[Any, Connection] | None = getattr(self._serving, "current", None)
        if current is None:
            return
        req, conn = current
        if not settle_body(req, conn.sock) or draining():
            force_close(req)  # the answer then says "Connection: close"


class _SettleFirst:
    """The app, with the worker's keep-alive decision taken before the answer's first byte; its
    attributes (Flask's ``extensions``, read by ``gunicorn.conf.py``) stay reachable."""

    def __init__(self, app: Callable[..., Any], settle: Callable[[], None]) -> None:
        self._app = app
        self._settle = settle

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        result = self._app(environ, start_response)
        self._settle()
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)


def _idle(wait: Waiting) -> bool:
    """Nothing of a request has arrived (a new connection, or kept alive between requests)."""
    return wait.phase == HEAD and not wait.head


def connection_capacity(configured: int) -> int:
    """Connections one worker holds: gunicorn's ``worker_connections``, within the descriptor
    limit (a connection may need two: its socket and a static file being sent)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return max(1, configured)
    return max(1, min(configured, (soft - FD_RESERVE) // 2))
