"""gunicorn's undocumented internals the server builds on, each named here once.

gunicorn documents its settings and how to pick a worker class, not the classes a worker extends.
The worker (``worker.py``) relies on gthread's ``ThreadWorker`` calling some of its methods at given
moments (the hooks of ``GthreadWorker``), on its connection class, its parser's read-ahead buffer
and request objects; ``settle.py`` on the body readers, ``head.py`` on the refusals of a request
head, ``errorlog.py`` on the logger class, ``gunicorn.conf.py`` on the ``Server`` header. They reach
them only through this module; ``tests/adapters/test_gunicorn_internals.py`` checks each one on the
installed gunicorn (pinned ``>=27.0,<28``): an upgrade that moves one fails there, by name.
"""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final, Protocol

from gunicorn import http, util  # type: ignore[import-untyped]
from gunicorn.glogging import Logger, SafeAtoms  # type: ignore[import-untyped]
from gunicorn.http import wsgi as http_wsgi  # type: ignore[import-untyped]
from gunicorn.http.body import ChunkedReader, LengthReader  # type: ignore[import-untyped]
from gunicorn.http.errors import (  # type: ignore[import-untyped]
    LimitRequestHeaders,
    LimitRequestLine,
    NoMoreData,
)
from gunicorn.workers.gthread import (  # type: ignore[import-untyped]
    STOP_KEEPALIVE_LINGER,
    TConn,
    ThreadWorker,
)

STOP_LINGER: Final[float] = STOP_KEEPALIVE_LINGER
"""Seconds gthread keeps an idle kept-alive connection once its worker is stopping."""
CLIENT_GONE: Final = (NoMoreData, StopIteration)
"""What serving a request raises when the client went away: nothing left to answer."""
CHUNKED: Final = -1
"""``body_length`` of a chunked body."""


class Connection(Protocol):
    """gthread's ``TConn``, as the worker reads it (the rest goes through the functions below)."""

    sock: Any
    """The socket (the worker's ``Outbox`` around it)."""
    client: Any
    """The peer's address."""


# --- connections and their parser ---------------------------------------------------------------


def new_connection(cfg: Any, sock: Any, client: Any, server: Any) -> Connection:
    """A connection as gthread makes one (it sets ``sock`` non-blocking); no parser yet."""
    conn: Connection = TConn(cfg, sock, client, server)
    return conn


def ensure_parser(cfg: Any, conn: Connection) -> None:
    """Give ``conn`` gunicorn's HTTP/1 parser, reading from its socket, if it has none yet."""
    target: Any = conn
    if target.parser is None:
        target.parser = http.get_parser(cfg, conn.sock, conn.client)


def give_back(conn: Connection, data: bytes) -> None:
    """Put ``data`` before what the parser reads next (it reads its buffer before the socket)."""
    target: Any = conn
    target.parser.unreader.unread(data)


def read_ahead(conn: Connection) -> bytes:
    """Take the bytes the parser holds beyond what it parsed, without reading the socket."""
    target: Any = conn
    return bytes(target.parser.unreader.take_buffered())


def next_request(conn: Connection) -> Any:
    """The next request head, parsed (from the buffer, then the socket); StopIteration when the
    stream ended, gunicorn's exception for a head it refuses."""
    target: Any = conn
    return next(target.parser)


def take_pending(conn: Connection) -> Any:
    """On the thread: the request ``GthreadWorker.hand_to_thread`` gave with ``conn``."""
    target: Any = conn
    req = target.pending_req
    target.pending_req = None
    target.initialized = True  # gthread's TConn.init would wrap and block the socket: never
    return req


# --- requests -----------------------------------------------------------------------------------


def take_expect_continue(req: Any) -> bool:
    """Whether the request asked for ``100 Continue``; gunicorn then no longer sends it itself
    (it would, when the app is called): the caller decides."""
    asked = bool(req._expected_100_continue)
    if asked:
        req._expected_100_continue = False
    return asked


def body_length(req: Any) -> int:
    """A sized body's declared length, ``CHUNKED`` for a chunked one, 0 for none (or one read to
    the end of the stream)."""
    reader = req.body.reader if req.body is not None else None
    if isinstance(reader, ChunkedReader):
        return CHUNKED
    if isinstance(reader, LengthReader):
        return int(reader.length)
    return 0


def request_method(req: Any) -> str:
    return str(req.method)


def request_path(req: Any) -> str:
    """The path, percent-decoded as gunicorn puts it in ``PATH_INFO``."""
    return str(util.unquote_to_wsgi_str(req.path))


def request_header(req: Any, name: str) -> str | None:
    """The first value of header ``name`` (gunicorn keeps names upper-case); None if absent."""
    for found, value in req.headers:
        if found == name:
            return str(value)
    return None


def force_close(req: Any) -> None:
    """Make the answer to ``req`` say ``Connection: close`` (before its head is sent)."""
    req.force_close()


def head_too_large(message: str) -> Exception:
    """The refusal ``answer_error`` turns into gunicorn's 431 page (header fields too large)."""
    error: Exception = LimitRequestHeaders(message)
    return error


def line_too_long(length: int, limit: int) -> Exception:
    """The refusal ``answer_error`` turns into gunicorn's 414 page (request line too long), as
    gunicorn's parser raises it: ``length`` bytes seen, ``limit`` allowed."""
    error: Exception = LimitRequestLine(length, limit)
    return error


def close_socket(sock: Any) -> None:
    """Close quietly, as gthread does."""
    util.close(sock)


def plain_http1_only(cfg: Any) -> bool:
    """Whether the settings leave TLS and HTTP/2 off."""
    return not cfg.is_ssl and "h2" not in cfg.http_protocols and cfg.http2_cleartext == "off"


# --- request bodies -----------------------------------------------------------------------------

ChunkedBody: Final = ChunkedReader
"""The reader of a chunked body (a request's ``body.reader``); its ``parser`` is None once the
last chunk has been read. (The body itself says ``failed`` once a read of it raised.)"""
SizedBody: Final = LengthReader
"""The reader of a body of declared length: ``length``, the bytes not read yet, and ``unreader``,
the connection's read-ahead buffer (``take_buffered``, ``unread``)."""


# --- the answer's Server header -----------------------------------------------------------------


def name_server(name: str) -> None:
    """Make ``name`` the ``Server`` header of every answer gunicorn writes from now on (in this
    process and those it forks): each response takes it from its module's ``SERVER`` when made."""
    http_wsgi.SERVER = name


# --- the logger ---------------------------------------------------------------------------------

GunicornLogger: Final = Logger
"""gunicorn's ``logger_class``: ``setup(cfg)`` (run again on a reload) makes the handlers of its
``error_log`` and ``access_log``, the error log's formatted with ``error_fmt`` and ``datefmt``;
``access`` wraps each line's atoms in its class's ``atoms_wrapper_class``."""
AccessAtoms: Final = SafeAtoms
"""gunicorn's ``atoms_wrapper_class``: a dict of the access log's atoms, ``-`` for a missing one."""


def is_gunicorns(handler: logging.Handler) -> bool:
    """Whether ``handler`` is marked as gunicorn's own (its logger's ``setup`` removes those)."""
    return bool(getattr(handler, "_gunicorn", False))


def mark_as_gunicorns(handler: logging.Handler) -> None:
    """Mark ``handler`` as gunicorn's own: the logger's next ``setup`` (a reload) removes it."""
    setattr(handler, "_gunicorn", True)  # noqa: B010  # not a Handler field


# --- the worker ---------------------------------------------------------------------------------


class GthreadWorker(ThreadWorker):  # type: ignore[misc]
    """gthread's ``ThreadWorker`` under names of ours. gthread calls the methods on the left; each
    forwards to the hook on the right, which a subclass overrides:

    - ``check_config`` (the arbiter, at start) -> ``check_settings(cfg)``
    - ``set_accept_enabled`` (the run loop, at start, on every pass, at the stop) ->
      ``accept_wanted(enabled)``
    - ``accept`` (the poller, a listener readable) -> ``on_listener(listener)``
    - ``handle`` (a pool thread, for a connection given by ``hand_to_thread``) -> ``serve(conn)``
    - ``finish_request`` (the poller's thread, once ``serve`` returned) ->
      ``on_thread_done(conn, future)``
    - ``wait_for_and_dispatch_events`` (the run loop) waits at most ``longest_wait`` seconds
    - ``murder_pending`` (the run loop, after every wake-up, running and stopping) -> ``on_wake()``
    - ``load_wsgi`` (the worker's start) -> ``wrap_app(app)``
    """

    longest_wait: float = math.inf
    """Longest sleep of the poller (gthread's own bound applies too)."""

    # --- gthread's calls ---

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        super().check_config(cfg, log)
        cls.check_settings(cfg)

    def set_accept_enabled(self, enabled: bool) -> None:
        super().set_accept_enabled(self.accept_wanted(enabled))

    def accept(self, listener: socket.socket) -> None:
        self.on_listener(listener)

    def handle(self, conn: Connection) -> bool:
        return self.serve(conn)

    def finish_request(self, conn: Connection, fs: Future[Any]) -> None:
        self.on_thread_done(conn, fs)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        super().wait_for_and_dispatch_events(min(timeout, self.longest_wait))

    def murder_pending(self) -> None:
        super().murder_pending()
        self.on_wake()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi: Callable[..., Any] = self.wrap_app(self.wsgi)

    # --- the hooks (gthread's own behaviour where it has one) ---

    @classmethod
    def check_settings(cls, cfg: Any) -> None:
        """Raise to refuse the settings."""

    def accept_wanted(self, enabled: bool) -> bool:
        return enabled

    def on_listener(self, listener: socket.socket) -> None:
        super().accept(listener)

    def serve(self, conn: Connection) -> bool:
        return bool(super().handle(conn))

    def on_thread_done(self, conn: Connection, future: Future[Any]) -> None:
        super().finish_request(conn, future)

    def on_wake(self) -> None:
        """Enforce deadlines."""

    def wrap_app(self, app: Callable[..., Any]) -> Callable[..., Any]:
        return app

    # --- what it keeps and does, for the hooks ---

    @property
    def connections(self) -> int:
        """Connections this worker holds (gthread accepts while under ``worker_connections``)."""
        return int(self.nr_conns)

    @connections.setter
    def connections(self, count: int) -> None:
        self.nr_conns = count

    @property
    def accepting(self) -> bool:
        """Whether the listeners are in the poller."""
        return bool(self._accepting)

    def enable_accepting(self, enabled: bool) -> None:
        self.set_accept_enabled(enabled)

    def watch(self, sock: Any, events: int, callback: Callable[[Any], None]) -> None:
        """Have the poller call ``callback(sock)`` on ``events``."""
        self.poller.register(sock, events, callback)

    def unwatch(self, sock: Any) -> None:
        """Raises KeyError, ValueError or OSError when ``sock`` is not watched or is closed."""
        self.poller.unregister(sock)

    def hand_to_thread(self, conn: Connection, req: Any) -> None:
        """Queue ``serve(conn)`` on the pool (``take_pending`` gives it ``req``), then
        ``on_thread_done`` on the poller's thread."""
        target: Any = conn
        target.pending_req = req
        target.data_ready = True
        self.enqueue_req(conn)

    def run_app(self, req: Any, conn: Connection) -> bool:
        """Answer ``req`` with the app (gthread's ``handle_request``); whether the answer allows
        keep-alive."""
        return bool(self.handle_request(req, conn))

    def keepalive_after(self, conn: Connection, keep: bool) -> bool:
        """gthread's decision after an answer: keep only if ``keep`` and the rest of the body is
        drained within its bound."""
        return bool(self._keepalive_after(conn, keep))

    def answer_error(self, req: Any, conn: Connection, error: Exception) -> None:
        """gunicorn's error page for ``error`` on ``conn`` (a 4xx for a request it refuses, else
        500), logged as gunicorn logs it."""
        self.handle_error(req, conn.sock, conn.client, error)
