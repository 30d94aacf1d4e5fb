"""``service/quart_bezique/server/gunicorn_internals.py`` on the installed gunicorn: every gthread
method the adapter overrides or calls still exists with the parameters it passes, gthread still
calls each hook where the worker expects it, the connection, parser, request and body internals
still behave as the server relies on (checked on real sockets), and so do the logger class, its
handlers' mark and the ``Server`` header. An upgrade that changes one fails here, by name, rather
than in a served request."""

from __future__ import annotations

import inspect
import logging
import selectors
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from types import CodeType, SimpleNamespace
from typing import Any

import pytest
from gunicorn.arbiter import Arbiter  # type: ignore[import-untyped]
from gunicorn.config import Config  # type: ignore[import-untyped]
from gunicorn.glogging import Logger, SafeAtoms  # type: ignore[import-untyped]
from gunicorn.http import wsgi  # type: ignore[import-untyped]
from gunicorn.http.body import ChunkedReader, LengthReader  # type: ignore[import-untyped]
from gunicorn.http.errors import InvalidChunkSize, NoMoreData  # type: ignore[import-untyped]
from gunicorn.workers.base import Worker  # type: ignore[import-untyped]
from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]
from quart_bezique.server import gunicorn_internals as gi

SIGNATURES = {
    "check_config": ("cfg", "log"),
    "set_accept_enabled": ("self", "enabled"),
    "accept": ("self", "listener"),
    "handle": ("self", "conn"),
    "finish_request": ("self", "conn", "fs"),
    "wait_for_and_dispatch_events": ("self", "timeout"),
    "murder_pending": ("self",),
    "load_wsgi": ("self",),
    "enqueue_req": ("self", "conn"),
    "handle_request": ("self", "req", "conn"),
    "_keepalive_after": ("self", "conn", "keepalive"),
    "handle_error": ("self", "req", "client", "addr", "exc"),
}
"""gthread's methods the adapter overrides or calls, with the parameters it passes."""
CALLED = [
    (Arbiter.start, "check_config", "the arbiter checks the worker class's settings"),
    (Worker.init_process, "load_wsgi", "the worker loads the app as it starts"),
    (ThreadWorker.init_process, "poller", "the worker makes its poller as it starts"),
    (ThreadWorker.run, "set_accept_enabled", "the run loop opens and closes the listeners"),
    (ThreadWorker.run, "wait_for_and_dispatch_events", "the run loop waits on the poller"),
    (ThreadWorker.run, "murder_pending", "the run loop enforces deadlines after each wake-up"),
    (ThreadWorker.run, "nr_conns", "the run loop counts connections (accepting, stopping)"),
    (ThreadWorker.set_accept_enabled, "accept", "the listeners' poller callback is accept"),
    (ThreadWorker.set_accept_enabled, "_accepting", "set_accept_enabled records the state"),
    (ThreadWorker.enqueue_req, "handle", "a queued connection is handled on the pool"),
    (ThreadWorker.enqueue_req, "finish_request", "then finished on the poller's thread"),
    (Logger.access, "atoms_wrapper_class", "the access log wraps its atoms in the class's wrapper"),
    (Logger.setup, "error_fmt", "the error log is formatted with the class's error_fmt"),
    (Logger.setup, "datefmt", "and its datefmt"),
    (wsgi.Response.__init__, "SERVER", "a response takes its Server header from wsgi.SERVER"),
]
"""(gunicorn function, name its code uses, why the adapter relies on it)."""
HEAD = (
    b"POST /a%20b?x=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n"
    b"Expect: 100-continue\r\nContent-Length: 5\r\n\r\n"
)


def names_used(code: CodeType) -> set[str]:
    """The global and attribute names ``code`` uses, its nested functions' included."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found |= names_used(const)
    return found


class Probe(gi.GthreadWorker):
    """A worker recording the hooks gthread calls."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.calls: list[tuple[str, Any]] = []

    def on_listener(self, listener: socket.socket) -> None:
        self.calls.append(("on_listener", listener))

    def serve(self, conn: gi.Connection) -> bool:
        self.calls.append(("serve", gi.take_pending(conn)))
        return True

    def on_thread_done(self, conn: gi.Connection, future: Future[Any]) -> None:
        self.calls.append(("on_thread_done", future.result()))

    def on_wake(self) -> None:
        self.calls.append(("on_wake", None))

    def wrap_app(self, app: Callable[..., Any]) -> Callable[..., Any]:
        self.calls.append(("wrap_app", app))
        return app


@pytest.fixture
def sockets() -> Iterator[Callable[[], tuple[socket.socket, socket.socket]]]:
    made: list[socket.socket] = []

    def pair() -> tuple[socket.socket, socket.socket]:
        ours, theirs = socket.socketpair()
        theirs.settimeout(5)
        made.extend((ours, theirs))
        return ours, theirs

    yield pair
    for sock in made:
        sock.close()


@pytest.fixture
def worker() -> Iterator[Probe]:
    cfg = Config()
    made = Probe(0, 0, [], None, 30, cfg, Logger(cfg))
    made.poller = selectors.DefaultSelector()
    yield made
    made.poller.close()
    made.tmp.close()


def connection(ours: socket.socket, head: bytes = HEAD) -> gi.Connection:
    conn = gi.new_connection(Config(), ours, ("203.0.113.7", 40000), ("127.0.0.1", 8000))
    gi.ensure_parser(Config(), conn)
    gi.give_back(conn, head)
    return conn


# --- the worker class -----------------------------------------------------------------------------


def test_the_adapter_extends_gthreads_worker() -> None:
    assert issubclass(gi.GthreadWorker, ThreadWorker) and issubclass(ThreadWorker, Worker)


@pytest.mark.parametrize("name", SIGNATURES)
def test_each_gthread_method_used_takes_what_the_adapter_passes(name: str) -> None:
    method = getattr(ThreadWorker, name, None)
    assert callable(method), f"gthread's ThreadWorker.{name} is gone"
    parameters = tuple(inspect.signature(method).parameters)
    assert parameters == SIGNATURES[name], f"ThreadWorker.{name}{parameters}"


@pytest.mark.parametrize(("function", "name", "why"), CALLED, ids=[c[1] for c in CALLED])
def test_gunicorn_still_calls_what_the_hooks_rely_on(
    function: Callable[..., Any], name: str, why: str
) -> None:
    assert name in names_used(function.__code__), f"{function.__qualname__}: {why}"


def test_a_new_worker_keeps_the_state_the_adapter_reads(worker: Probe) -> None:
    assert (worker.nr_conns, worker.connections, worker.accepting) == (0, 0, False)
    assert worker.alive is True and worker.cfg is not None and worker.log is not None
    worker.connections += 2
    assert worker.nr_conns == 2, "the count gthread's loop reads"


def test_the_listeners_are_watched_and_their_callback_reaches_on_listener(
    worker: Probe, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    listener, _ = sockets()
    worker.sockets = [listener]
    worker.enable_accepting(True)
    assert worker.accepting
    key = worker.poller.get_key(listener)
    key.data(listener)
    assert worker.calls == [("on_listener", listener)]
    worker.enable_accepting(False)
    assert not worker.accepting and listener not in worker.poller.get_map()


def test_a_watched_socket_calls_back_with_itself_from_gthreads_wait(
    worker: Probe, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    ours, theirs = sockets()
    seen: list[Any] = []
    worker.watch(ours, selectors.EVENT_READ, seen.append)
    theirs.sendall(b"x")
    worker.wait_for_and_dispatch_events(timeout=5)
    assert seen == [ours]
    worker.unwatch(ours)
    with pytest.raises(KeyError):
        worker.unwatch(ours)


def test_a_connection_handed_to_a_thread_is_served_then_finished(
    worker: Probe, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    deferred: list[Callable[[], None]] = []
    worker.method_queue = SimpleNamespace(
        defer=lambda callback, *args: deferred.append(lambda: callback(*args))
    )
    with ThreadPoolExecutor(1) as pool:
        worker.tpool = pool
        worker.hand_to_thread(connection(sockets()[0]), "the request")
    assert len(deferred) == 1, "finish_request deferred to the poller's thread"
    deferred[0]()
    assert worker.calls == [("serve", "the request"), ("on_thread_done", True)]


def test_the_loops_hooks_reach_ours(worker: Probe) -> None:
    worker.murder_pending()
    app = object()
    worker.app = SimpleNamespace(wsgi=lambda: app)
    worker.load_wsgi()
    assert worker.calls == [("on_wake", None), ("wrap_app", app)]
    assert worker.wsgi is app


def test_the_settings_refused_are_tls_and_http2() -> None:
    assert gi.plain_http1_only(Config())
    for setting, value in [
        ("certfile", "/etc/ssl/server.pem"),
        ("http_protocols", "h2,h1"),
        ("http2_cleartext", "both"),
    ]:
        cfg = Config()
        cfg.set(setting, value)
        assert not gi.plain_http1_only(cfg), setting


# --- connections, the parser and requests -----------------------------------------------------


def test_a_new_connection_is_non_blocking_without_a_parser(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    ours, _ = sockets()
    conn = gi.new_connection(Config(), ours, ("203.0.113.7", 40000), ("127.0.0.1", 8000))
    assert conn.sock is ours and conn.client == ("203.0.113.7", 40000)
    assert not ours.getblocking()
    target: Any = conn
    assert target.parser is None and target.initialized is False


def test_a_head_given_back_is_parsed_without_reading_the_socket(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    """The socket is non-blocking and empty: a read would raise."""
    conn = connection(sockets()[0], HEAD + b"abc")
    req = gi.next_request(conn)
    assert (gi.request_method(req), gi.request_path(req)) == ("POST", "/a b")
    assert gi.request_header(req, "AUTHORIZATION") == "Bearer k"
    assert gi.request_header(req, "COOKIE") is None
    assert gi.body_length(req) == 5
    assert gi.read_ahead(conn) == b"abc", "the body's start stays in the parser's buffer"
    assert gi.read_ahead(conn) == b""
    gi.give_back(conn, b"abcde")
    assert req.body.read(5) == b"abcde", "the body reads what was given back"


def test_the_body_framings_are_told_apart(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    chunked = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    bare = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    assert gi.body_length(gi.next_request(connection(sockets()[0], chunked))) == gi.CHUNKED
    assert gi.body_length(gi.next_request(connection(sockets()[0], bare))) == 0


def test_an_ended_stream_stops_the_parser(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    ours, theirs = sockets()
    conn = connection(ours, b"")
    theirs.shutdown(socket.SHUT_WR)
    with pytest.raises(StopIteration):
        gi.next_request(conn)


def test_a_continue_taken_is_not_sent_by_gunicorn(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    """Untaken, gunicorn sends ``100 Continue`` as it builds the app's environ; taken, never."""
    for take, expected in ((False, b"HTTP/1.1 100 Continue\r\n\r\n"), (True, b"")):
        ours, theirs = sockets()
        req = gi.next_request(connection(ours))
        if take:
            assert gi.take_expect_continue(req) is True
            assert gi.take_expect_continue(req) is False
        wsgi.create(req, ours, ("203.0.113.7", 40000), ("127.0.0.1", 8000), Config())
        ours.close()
        assert theirs.recv(100) == expected


def test_a_forced_close_makes_the_answer_close(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    ours, _ = sockets()
    req = gi.next_request(connection(ours))
    response = wsgi.Response(req, ours, Config())
    response.response_length = 0
    assert not response.should_close()
    gi.force_close(req)
    assert response.should_close()


def test_a_thread_takes_the_request_handed_over(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    conn = connection(sockets()[0])
    target: Any = conn
    target.pending_req = "the request"
    assert gi.take_pending(conn) == "the request"
    assert target.pending_req is None and target.initialized is True


def test_keepalive_drains_the_unread_body_and_keeps_what_follows(
    worker: Probe, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    bare = connection(sockets()[0], b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    gi.next_request(bare)
    assert worker.keepalive_after(bare, True) is True
    assert worker.keepalive_after(bare, False) is False
    ours, theirs = sockets()
    unread = connection(ours, HEAD + b"ab")
    req = gi.next_request(unread)
    theirs.sendall(b"cdeGET / HTTP/1.1\r\n")  # the rest of the body, then the next request
    assert worker.keepalive_after(unread, True) is True
    assert req.body.read(5) == b"", "the app's unread body drained"
    assert gi.read_ahead(unread) == b"GET / HTTP/1.1\r\n", "the next request kept"


def test_a_head_too_large_is_answered_431_and_others_400(
    worker: Probe, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    ours, theirs = sockets()
    conn = connection(ours)
    worker.answer_error(None, conn, gi.head_too_large("request head over 8 bytes"))
    assert theirs.recv(100).startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")


def test_a_request_line_too_long_is_answered_414(
    worker: Probe, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    ours, theirs = sockets()
    worker.answer_error(None, connection(ours), gi.line_too_long(9000, 4094))
    answer = theirs.recv(1000)
    assert answer.startswith(b"HTTP/1.1 414 URI Too Long\r\n"), answer[:40]
    assert b"(9000 &gt; 4094)" in answer, "gunicorn's page names the length seen and the limit"


def test_client_gone_names_gunicorns_end_of_data() -> None:
    assert NoMoreData in gi.CLIENT_GONE and StopIteration in gi.CLIENT_GONE
    assert isinstance(gi.STOP_LINGER, int | float) and gi.STOP_LINGER > 0


def test_a_closed_socket_is_released(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    ours, _ = sockets()
    gi.close_socket(ours)
    assert ours.fileno() == -1


# --- request bodies -----------------------------------------------------------------------------


def test_the_body_readers_are_gunicorns() -> None:
    assert gi.ChunkedBody is ChunkedReader and gi.SizedBody is LengthReader


def test_a_sized_body_counts_down_and_reads_through_the_buffer(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    """What ``settle.py`` relies on: ``length`` is what is left (lowering it marks bytes read), and
    the bytes past the head wait in ``unreader`` (taken and given back)."""
    req = gi.next_request(connection(sockets()[0], HEAD + b"abcdeGET"))
    reader = req.body.reader
    assert isinstance(reader, gi.SizedBody) and reader.length == 5
    assert reader.unreader.take_buffered() == b"abcdeGET"
    reader.length -= 5  # the body taken off the buffer, as settle.py does
    reader.unreader.unread(b"GET")
    assert req.body.read(10) == b"", "nothing left to read once length is 0"
    assert reader.unreader.take_buffered() == b"GET", "what was given back stays for the parser"
    assert req.body.failed is False


def test_a_chunked_body_drops_its_parser_once_read(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    head = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    req = gi.next_request(connection(sockets()[0], head + b"3\r\nabc\r\n0\r\n\r\n"))
    reader = req.body.reader
    assert isinstance(reader, gi.ChunkedBody) and reader.parser is not None
    assert req.body.read(100) == b"abc"
    assert reader.parser is None, "what settle.py reads as: the body is read to its end"


def test_a_body_whose_read_raised_says_failed(
    sockets: Callable[[], tuple[socket.socket, socket.socket]],
) -> None:
    head = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    req = gi.next_request(connection(sockets()[0], head + b"zz\r\nabc\r\n"))
    assert req.body.failed is False
    with pytest.raises(InvalidChunkSize):
        req.body.read(100)
    assert req.body.failed is True


# --- the Server header --------------------------------------------------------------------------


def test_the_server_header_is_the_module_attribute_a_response_reads(
    monkeypatch: pytest.MonkeyPatch, sockets: Callable[[], tuple[socket.socket, socket.socket]]
) -> None:
    assert isinstance(wsgi.SERVER, str), "gunicorn.http.wsgi.SERVER is gone"
    assert "self.version = SERVER" in inspect.getsource(wsgi.Response.__init__)
    assert wsgi.Response.__init__.__globals__ is vars(wsgi), "read from wsgi's globals"
    assert '"Server: %s\\r\\n" % self.version' in inspect.getsource(wsgi.Response.default_headers)
    monkeypatch.setattr(wsgi, "SERVER", wsgi.SERVER)  # restored after the test
    gi.name_server("a-name-of-ours")
    ours, _ = sockets()
    response = wsgi.Response(gi.next_request(connection(ours)), ours, Config())
    response.response_length = 0
    assert "Server: a-name-of-ours\r\n" in response.default_headers()


# --- the logger ---------------------------------------------------------------------------------


def test_the_logger_classes_are_gunicorns() -> None:
    assert gi.GunicornLogger is Logger and gi.AccessAtoms is SafeAtoms
    assert Logger.atoms_wrapper_class is SafeAtoms
    assert tuple(inspect.signature(Logger.setup).parameters) == ("self", "cfg")
    assert isinstance(Logger.error_fmt, str) and isinstance(Logger.datefmt, str)


def test_the_access_atoms_read_a_dash_for_a_missing_one() -> None:
    atoms = gi.AccessAtoms({"r": "GET / HTTP/1.1", "{user-agent}i": "curl"})
    assert isinstance(atoms, dict)
    assert (atoms["r"], atoms["{User-Agent}i"], atoms["missing"]) == ("GET / HTTP/1.1", "curl", "-")


def test_gunicorn_marks_its_handlers_and_its_setup_replaces_the_marked() -> None:
    """``errorlog.ServerLogger`` marks the handlers it puts in place of gunicorn's, so that a
    reload's ``setup`` replaces them as it replaces its own, and leaves the others."""
    cfg = Config()
    logger = gi.GunicornLogger(cfg)
    assert isinstance(logger.error_log, logging.Logger)
    assert isinstance(logger.access_log, logging.Logger)
    marked_by_gunicorn = [h for h in logger.error_log.handlers if gi.is_gunicorns(h)]
    assert [type(h) for h in marked_by_gunicorn] == [logging.StreamHandler], "its handler of '-'"
    ours, marked = logging.NullHandler(), logging.NullHandler()
    gi.mark_as_gunicorns(marked)
    assert gi.is_gunicorns(marked) and not gi.is_gunicorns(ours)
    logger.error_log.addHandler(ours)
    logger.error_log.addHandler(marked)
    try:
        logger.setup(cfg)
        assert ours in logger.error_log.handlers, "a handler not marked is left in place"
        assert marked not in logger.error_log.handlers, "a marked one is dropped"
    finally:
        logger.error_log.removeHandler(ours)
        logger.error_log.removeHandler(marked)
