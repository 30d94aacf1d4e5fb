"""The worker's edge paths (``service/quart_bezique/server/worker.py``), driven in-process with
socket pairs.

``test_slow_clients.py`` and ``test_keepalive.py`` replay hostile clients against the real server.
Some of the worker's decisions are taken only in conditions a client cannot bring about at will:
the process out of file descriptors, a thread's answer timing out (the poller usually holds such
a client first), a receive failing or waking up with nothing to read, a stop arriving while
connections wait. Here the worker is built as gunicorn builds it, with a real poller, and each
decision is checked on real sockets: which connection is closed, which is kept, which lingers.
Nothing here waits on a clock: every deadline is far in the future or compared, not slept on.
"""

from __future__ import annotations

import dataclasses
import errno
import resource
import selectors
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any, cast

import pytest
from gunicorn.config import Config  # type: ignore[import-untyped]
from gunicorn.glogging import Logger  # type: ignore[import-untyped]
from gunicorn.http.body import Body, ChunkedReader, EOFReader, LengthReader  # type: ignore[import-untyped]
from gunicorn.http.errors import NoMoreData  # type: ignore[import-untyped]
from gunicorn.http.unreader import IterUnreader, SocketUnreader  # type: ignore[import-untyped]
from gunicorn.workers.gthread import (  # type: ignore[import-untyped]
    STOP_KEEPALIVE_LINGER,
    TConn,
)
from quart_bezique.server.outbox import Outbox
from quart_bezique.server.settle import SETTLE_MAX_BYTES, settle_body
from quart_bezique.server.timeout_answer import BODY_TIMEOUT_ANSWER
from quart_bezique.server.worker import (
    BODY,
    HEAD,
    LINGER,
    SEND,
    HeadFirstWorker,
    Waiting,
    connection_capacity,
)

FAR = 1_000.0
"""Seconds from now to a deadline nothing here reaches."""
PARTIAL_HEAD = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
"""A request head without its final empty line."""


class Pair:
    """A connection as the worker holds it (``conn``) and the client's end of it (``client``)."""

    def __init__(self, cfg: Any, ours: socket.socket, client: socket.socket) -> None:
        self.client = client
        self.client.settimeout(5)
        self.conn = TConn(cfg, Outbox(ours), ("203.0.113.7", 40000), ("127.0.0.1", 8000))
        self.dispatched: list[Any] = []
        """What the worker handed to a thread (when its ``enqueue_req`` is replaced)."""

    def closed_by_server(self) -> bool:
        """Whether the worker's end is closed (its descriptor released)."""
        return bool(self.conn.sock.fileno() == -1)

    def sees_end_of_stream(self) -> bool:
        """Whether the client reads the end of the stream (a FIN or a close), nothing before."""
        return self.client.recv(4096) == b""


class FailingSocket(socket.socket):
    """A socket whose receives fail with ``error``."""

    error: OSError

    def recv(self, *args: Any, **kwargs: Any) -> bytes:
        raise self.error


class Bench:
    """Workers as gunicorn builds them (with a live poller) and connections to hand them; closes
    everything at the end of the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.workers: list[HeadFirstWorker] = []
        self.sockets: list[socket.socket] = []

    def worker(self, **environ: str) -> HeadFirstWorker:
        """A worker whose limits are read from ``environ`` (no other limit variable set)."""
        for name in LIMIT_VARIABLES:
            self.monkeypatch.delenv(name, raising=False)
        for name, value in environ.items():
            self.monkeypatch.setenv(name, value)
        cfg = Config()
        made = HeadFirstWorker(0, 0, [], None, 30, cfg, Logger(cfg))
        made.poller = selectors.DefaultSelector()
        self.workers.append(made)
        return made

    def pair(self, worker: HeadFirstWorker, failing: OSError | None = None) -> Pair:
        """A connection for ``worker``; with ``failing``, every receive on it raises that."""
        ours, client = socket.socketpair()
        if failing is not None:
            ours = FailingSocket(ours.family, ours.type, fileno=ours.detach())
            ours.error = failing
        self.sockets += (ours, client)
        return Pair(worker.cfg, ours, client)

    def close(self) -> None:
        for made in self.workers:
            made.poller.close()
            made.tmp.close()
        for sock in self.sockets:
            sock.close()


LIMIT_VARIABLES = (
    "HEAD_READ_TIMEOUT",
    "HEAD_MAX_BYTES",
    "SEND_TIMEOUT",
    "CLOSE_DRAIN_BYTES",
    "CLOSE_DRAIN_TIMEOUT",
)
RESET = ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[Bench]:
    made = Bench(monkeypatch)
    yield made
    made.close()


def accepted(worker: HeadFirstWorker, pair: Pair, head: bytes = b"", deadline: float = FAR) -> None:
    """``pair`` as if just accepted, ``head`` having arrived, its head due in ``deadline`` s."""
    worker.nr_conns += 1
    worker._wait_for_head(pair.conn, time.monotonic() + deadline, head, True)


def held(worker: HeadFirstWorker, pair: Pair) -> Waiting | None:
    return worker._held.get(id(pair.conn))


# --- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "value"),
    [("certfile", "/etc/ssl/server.pem"), ("http_protocols", "h2,h1"), ("http2_cleartext", "both")],
)
def test_tls_and_http2_are_refused_at_start(setting: str, value: str) -> None:
    cfg = Config()
    log = Logger(cfg)
    HeadFirstWorker.check_config(cfg, log)  # the defaults: plain HTTP/1.1
    cfg.set(setting, value)
    with pytest.raises(RuntimeError, match=r"plain HTTP/1\.1 only"):
        HeadFirstWorker.check_config(cfg, log)


# --- accepting ----------------------------------------------------------------------------------


class Listener:
    """A listening socket whose ``accept`` fails with ``error``."""

    def __init__(self, error: OSError) -> None:
        self.error = error

    def accept(self) -> tuple[socket.socket, Any]:
        raise self.error


def listener(error: OSError) -> socket.socket:
    return cast(socket.socket, Listener(error))


def test_out_of_descriptors_pauses_accepting_and_frees_only_an_idle_connection(
    bench: Bench,
) -> None:
    """Out of descriptors, the worker neither spins nor closes a connection that has sent
    something: accepting pauses (the pause doubles while it lasts) and the longest-idle
    connection is closed to make room."""
    worker = bench.worker()
    worker.alive = True
    older, newer, talking = (bench.pair(worker) for _ in range(3))
    accepted(worker, older)
    accepted(worker, newer)
    accepted(worker, talking, PARTIAL_HEAD, deadline=1.0)
    held(worker, older).active -= 10  # type: ignore[union-attr]
    before = time.monotonic()
    worker.accept(listener(OSError(errno.EMFILE, "Too many open files")))
    assert older.closed_by_server() and older.sees_end_of_stream()
    assert held(worker, newer) is not None and held(worker, talking) is not None
    assert worker.nr_conns == 2
    first_pause = worker._paused_until - before
    worker.accept(listener(OSError(errno.ENFILE, "Too many open files in system")))
    assert newer.closed_by_server() and worker.nr_conns == 1
    assert worker._paused_until - before > first_pause  # backing off, not spinning
    worker.accept(listener(OSError(errno.EMFILE, "Too many open files")))  # nobody idle left
    assert held(worker, talking) is not None and worker.nr_conns == 1


def test_at_capacity_the_longest_idle_connection_is_shed_for_a_new_one(bench: Bench) -> None:
    """A full worker keeps accepting: the newcomer takes the place of the connection that
    matters least (idle before trickling, the longest idle first), never of one on a thread."""
    worker = bench.worker()
    worker.capacity = 3
    idle_old, idle_new, talking = (bench.pair(worker) for _ in range(3))
    accepted(worker, idle_old)
    accepted(worker, idle_new)
    accepted(worker, talking, PARTIAL_HEAD)
    held(worker, idle_old).active -= 10  # type: ignore[union-attr]
    held(worker, talking).active -= 100  # type: ignore[union-attr]
    server, client = socket.socketpair()
    bench.sockets += (server, client)
    worker.accept(cast(socket.socket, Accepting(server)))
    assert idle_old.closed_by_server() and worker.nr_conns == 3
    assert held(worker, idle_new) is not None and held(worker, talking) is not None
    assert len(worker._held) == 3  # the newcomer waits for its head


class Accepting:
    """A listening socket whose ``accept`` hands over ``sock``."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def accept(self) -> tuple[socket.socket, Any]:
        return self.sock, ("203.0.113.9", 40001)

    def getsockname(self) -> Any:
        return ("127.0.0.1", 8000)


@pytest.mark.parametrize(
    "error", [BlockingIOError(), InterruptedError(), ConnectionAbortedError()], ids=type
)
def test_a_connection_gone_before_accept_is_ignored(bench: Bench, error: OSError) -> None:
    worker = bench.worker()
    worker.accept(listener(error))
    assert worker.nr_conns == 0 and not worker._held


def test_other_accept_failures_are_not_hidden(
    bench: Bench,
) -> None:
    worker = bench.worker()
    with pytest.raises(OSError, match="Bad file descriptor"):
        worker.accept(listener(OSError(errno.EBADF, "Bad file descriptor")))


# --- reading a head -----------------------------------------------------------------------------


def test_a_wake_up_with_nothing_to_read_keeps_waiting(
    bench: Bench,
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    accepted(worker, pair, PARTIAL_HEAD[:5])
    wait = held(worker, pair)
    assert wait is not None
    worker._on_head_bytes(wait, pair.conn.sock)  # nothing sent since: EAGAIN
    assert held(worker, pair) is wait and bytes(wait.head) == PARTIAL_HEAD[:5]
    pair.client.sendall(PARTIAL_HEAD[5:])
    worker._on_head_bytes(wait, pair.conn.sock)
    assert held(worker, pair) is wait and bytes(wait.head) == PARTIAL_HEAD


def test_a_failed_receive_closes_the_connection(
    bench: Bench,
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker, failing=RESET)
    accepted(worker, pair, PARTIAL_HEAD[:5])
    wait = held(worker, pair)
    assert wait is not None and worker.nr_conns == 1
    worker._on_head_bytes(wait, pair.conn.sock)
    assert pair.closed_by_server() and held(worker, pair) is None and worker.nr_conns == 0


# --- after an answer: keep, linger or close -----------------------------------------------------


def _done(result: object = None, error: BaseException | None = None) -> Future[Any]:
    future: Future[Any] = Future()
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
    return future


def test_a_thread_that_raised_leaves_its_connection_lingering(
    bench: Bench,
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    worker.nr_conns += 1
    worker.finish_request(pair.conn, _done(error=ValueError("the handler failed")))
    wait = held(worker, pair)
    assert wait is not None and wait.phase == LINGER  # half-closed, discarding what comes
    assert pair.sees_end_of_stream() and not pair.closed_by_server()


def test_a_cancelled_request_is_not_kept_alive(
    bench: Bench,
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    worker.nr_conns += 1
    future: Future[Any] = Future()
    assert future.cancel()
    worker.finish_request(pair.conn, future)
    wait = held(worker, pair)
    assert wait is not None and wait.phase == LINGER


def test_an_answer_the_client_does_not_take_waits_in_the_poller_then_closes(
    bench: Bench,
) -> None:
    """The thread hands back at once however much of its answer is left: the poller writes the
    rest as the client reads, and a client that never reads is closed at the send deadline
    (even if the answer said keep-alive)."""
    worker = bench.worker()
    pair = bench.pair(worker)
    worker.nr_conns += 1
    answer = b"x" * (8 * 1024 * 1024)  # far more than the socket buffers hold
    pair.conn.sock.sendall(answer)  # returns at once
    assert pair.conn.sock.pending
    worker.finish_request(pair.conn, _done(True))
    wait = held(worker, pair)
    assert wait is not None and wait.phase == SEND
    assert pair.client.recv(65536)  # the client reads a little: bytes move
    worker._on_room(wait, pair.conn.sock)
    assert held(worker, pair) is wait
    wait.deadline = time.monotonic() - 1
    worker.murder_pending()
    assert pair.closed_by_server() and held(worker, pair) is None and worker.nr_conns == 0


def test_an_answer_read_to_its_end_keeps_the_connection(bench: Bench) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    worker.nr_conns += 1
    answer = b"y" * (4 * 1024 * 1024)
    pair.conn.parser = SimpleNamespace(unreader=IterUnreader([]))
    pair.conn.sock.sendall(answer)
    worker.finish_request(pair.conn, _done(True))
    wait = held(worker, pair)
    assert wait is not None and wait.phase == SEND
    received = 0
    while received < len(answer):
        received += len(pair.client.recv(1024 * 1024))
        if held(worker, pair) is wait:
            worker._on_room(wait, pair.conn.sock)
    kept = held(worker, pair)
    assert kept is not None and kept.phase == HEAD and not kept.clock_started


@pytest.mark.parametrize(
    "environ", [{"CLOSE_DRAIN_BYTES": "0"}, {"CLOSE_DRAIN_TIMEOUT": "0"}], ids=str
)
def test_without_a_drain_a_closing_connection_is_closed_at_once(
    bench: Bench, environ: dict[str, str]
) -> None:
    worker = bench.worker(**environ)
    pair = bench.pair(worker)
    worker.nr_conns += 1
    worker.finish_request(pair.conn, _done(False))
    assert pair.closed_by_server() and held(worker, pair) is None and worker.nr_conns == 0
    assert pair.sees_end_of_stream()


def test_a_lingering_connection_discards_until_its_peer_is_done(
    bench: Bench,
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    worker.nr_conns += 1
    worker.finish_request(pair.conn, _done(False))
    wait = held(worker, pair)
    assert wait is not None and wait.phase == LINGER
    worker._on_linger_bytes(wait, pair.conn.sock)  # a wake-up with nothing to read: keep
    assert held(worker, pair) is wait and wait.drained == 0
    pair.client.sendall(b"x" * 100)  # the rest of an oversized body
    worker._on_linger_bytes(wait, pair.conn.sock)
    assert held(worker, pair) is wait and wait.drained == 100
    pair.client.shutdown(socket.SHUT_WR)  # the client is done sending
    worker._on_linger_bytes(wait, pair.conn.sock)
    assert pair.closed_by_server() and held(worker, pair) is None and worker.nr_conns == 0


def test_a_failed_receive_ends_the_linger(bench: Bench) -> None:
    worker = bench.worker()
    pair = bench.pair(worker, failing=RESET)
    worker.nr_conns += 1
    worker.finish_request(pair.conn, _done(False))
    wait = held(worker, pair)
    assert wait is not None and wait.phase == LINGER
    worker._on_linger_bytes(wait, pair.conn.sock)
    assert pair.closed_by_server() and held(worker, pair) is None and worker.nr_conns == 0


def test_a_lingering_wake_up_that_would_block_keeps_lingering(
    bench: Bench,
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker, failing=BlockingIOError(errno.EAGAIN, "again"))
    worker.nr_conns += 1
    worker.finish_request(pair.conn, _done(False))
    wait = held(worker, pair)
    assert wait is not None
    worker._on_linger_bytes(wait, pair.conn.sock)
    assert held(worker, pair) is wait and not pair.closed_by_server()


# --- stopping -----------------------------------------------------------------------------------


def test_a_stop_shortens_only_the_idle_connections_wait(
    bench: Bench,
) -> None:
    """When the worker stops, an idle connection has nothing to finish and gets at most
    gunicorn's stop linger; one that has sent part of a head keeps its head deadline, and a
    lingering one its drain deadline."""
    worker = bench.worker()
    idle, talking, lingering = (bench.pair(worker) for _ in range(3))
    accepted(worker, idle)
    accepted(worker, talking, PARTIAL_HEAD)
    worker.nr_conns += 1
    worker.finish_request(lingering.conn, _done(False))
    waits = {name: held(worker, pair) for name, pair in (("idle", idle), ("talking", talking))}
    linger = held(worker, lingering)
    assert waits["idle"] is not None and waits["talking"] is not None and linger is not None
    before = {"talking": waits["talking"].deadline, "linger": linger.deadline}
    worker.alive = False
    worker.murder_pending()
    assert waits["idle"].deadline <= time.monotonic() + STOP_KEEPALIVE_LINGER
    assert waits["talking"].deadline == before["talking"]
    assert linger.deadline == before["linger"]
    assert waits["idle"].phase == HEAD and held(worker, idle) is waits["idle"]  # not yet due


# --- bodies collected by the poller -------------------------------------------------------------

SIZED_HEAD = b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n"


def _collecting(bench: Bench, worker: HeadFirstWorker, head: bytes = SIZED_HEAD) -> Pair:
    pair = bench.pair(worker)
    worker.enqueue_req = pair.dispatched.append
    accepted(worker, pair, head + b"0123456789")  # half of the body
    return pair


def test_a_body_is_collected_before_a_thread_gets_the_request(bench: Bench) -> None:
    worker = bench.worker()
    pair = _collecting(bench, worker)
    wait = held(worker, pair)
    assert wait is not None and wait.phase == BODY and pair.dispatched == []
    pair.client.sendall(b"abcdefghij" + b"GET /next HTTP/1.1\r\n")  # the rest, then pipelined
    worker._on_body_bytes(wait, pair.conn.sock)
    assert pair.dispatched == [pair.conn] and held(worker, pair) is None
    assert pair.conn.pending_req.body.read(100) == b"0123456789abcdefghij"  # from memory
    assert pair.conn.parser.unreader.take_buffered() == b"GET /next HTTP/1.1\r\n"
    assert worker._body_bytes == 0


def test_a_body_late_past_its_deadline_is_a_408_from_the_poller(bench: Bench) -> None:
    worker = bench.worker()
    pair = _collecting(bench, worker)
    wait = held(worker, pair)
    assert wait is not None
    wait.deadline = time.monotonic() - 1
    worker.murder_pending()
    assert pair.client.recv(65536) == BODY_TIMEOUT_ANSWER
    assert pair.dispatched == [] and worker._body_bytes == 0


def test_bodies_over_the_workers_buffer_close_the_connection_that_went_over(
    bench: Bench,
) -> None:
    worker = bench.worker()
    worker.limits = dataclasses.replace(worker.limits, body_buffer_bytes=15)
    first = _collecting(bench, worker)  # 10 bytes held
    assert held(worker, first) is not None
    second = _collecting(bench, worker)  # 20: over
    assert second.closed_by_server() and held(worker, first) is not None
    assert worker._body_bytes == 10


def test_a_body_over_the_limit_goes_to_the_app_unread(bench: Bench) -> None:
    """The app answers 413 without reading it; nothing is collected."""
    worker = bench.worker()
    head = SIZED_HEAD.replace(b"20", str(worker.limits.max_body_bytes + 1).encode())
    pair = _collecting(bench, worker, head)
    assert pair.dispatched == [pair.conn] and worker._body_bytes == 0


def test_a_body_whose_client_half_closes_goes_to_the_app_and_a_failed_one_is_closed(
    bench: Bench,
) -> None:
    """At the end of the stream the app answers the short body (400); a receive that fails
    leaves nobody to answer."""
    worker = bench.worker()
    short = _collecting(bench, worker)
    short.client.shutdown(socket.SHUT_WR)
    worker._on_body_bytes(held(worker, short), short.conn.sock)  # type: ignore[arg-type]
    assert short.dispatched == [short.conn]
    failing = bench.pair(worker, failing=RESET)
    worker.enqueue_req = failing.dispatched.append
    failing.client.sendall(b"x")
    accepted(worker, failing, SIZED_HEAD)
    wait = held(worker, failing)
    assert wait is not None and wait.phase == BODY
    worker._on_body_bytes(wait, failing.conn.sock)
    assert failing.closed_by_server() and failing.dispatched == [] and worker._body_bytes == 0


def test_at_capacity_with_every_connection_on_a_thread_the_newcomer_is_closed(
    bench: Bench,
) -> None:
    worker = bench.worker()
    worker.capacity = 1
    worker.nr_conns = 1  # the one connection is on a thread: nothing held to shed
    server, client = socket.socketpair()
    bench.sockets += (server, client)
    worker.accept(cast(socket.socket, Accepting(server)))
    assert server.fileno() == -1 and worker.nr_conns == 1 and not worker._held


def test_an_answer_to_a_connection_gone_is_closed_not_kept(bench: Bench) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    worker.nr_conns += 1
    pair.conn.sock.sendall(b"x" * (8 * 1024 * 1024))  # more than the buffers hold: pending
    pair.conn.sock.sock.close()  # the socket is gone under the outbox
    worker.finish_request(pair.conn, _done(True))
    assert held(worker, pair) is None and worker.nr_conns == 0


@pytest.mark.parametrize(
    ("raised", "logged"),
    [
        (NoMoreData(b""), False),
        (ConnectionResetError(errno.ECONNRESET, "reset"), False),
        (OSError(errno.EIO, "I/O error"), True),
    ],
    ids=["client gone", "reset", "other socket error"],
)
def test_a_thread_that_meets_a_socket_error_gives_the_connection_back_closed(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, raised: Exception, logged: bool
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    pair.conn.pending_req = object()
    failures: list[str] = []
    monkeypatch.setattr(worker.log, "exception", lambda message, *a: failures.append(message))

    def fails(req: Any, conn: Any) -> bool:
        raise raised

    monkeypatch.setattr(worker, "handle_request", fails)
    assert worker.handle(pair.conn) is False
    assert pair.conn.pending_req is None and bool(failures) is logged


def test_a_thread_whose_app_raised_answers_gunicorns_error_page(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = bench.worker()
    pair = bench.pair(worker)
    pair.conn.pending_req = None
    errors: list[Exception] = []
    monkeypatch.setattr(worker, "handle_error", lambda req, sock, client, exc: errors.append(exc))
    monkeypatch.setattr(
        worker, "handle_request", lambda req, conn: (_ for _ in ()).throw(ValueError("bug"))
    )
    assert worker.handle(pair.conn) is False
    assert [str(error) for error in errors] == ["bug"]


@pytest.mark.parametrize(
    ("soft", "configured", "capacity"),
    [(1024, 1000, 480), (100_000, 1000, 1000), (resource.RLIM_INFINITY, 1000, 1000), (64, 10, 1)],
)
def test_capacity_stays_within_the_descriptor_limit(
    monkeypatch: pytest.MonkeyPatch, soft: int, configured: int, capacity: int
) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, resource.RLIM_INFINITY))
    assert connection_capacity(configured) == capacity


# --- a thread's side ----------------------------------------------------------------------------


def test_the_app_called_outside_a_request_answers_untouched(
    bench: Bench,
) -> None:
    """The wrapper settles the request body and bounds the send only for the request this thread
    serves; called without one (as a health probe of the app object would be), it passes
    the answer through."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("200 OK", [])
        return [b"answer"]

    class Application:
        def wsgi(self) -> Callable[..., Any]:
            return app

    worker = bench.worker()
    worker.app = Application()
    worker.load_wsgi()
    started: list[str] = []
    assert worker.wsgi({}, lambda status, headers: started.append(status)) == [b"answer"]
    assert started == ["200 OK"]


# --- settling a request body (quart_bezique/server/settle.py) ------------------------------


class Request:
    """What ``settle_body`` reads of a gunicorn request: its body."""

    def __init__(self, body: Any) -> None:
        self.body = body


def test_a_request_without_a_body_keeps_its_connection() -> None:
    a, b = socket.socketpair()
    with a, b:
        assert settle_body(Request(None), a) is True


def test_a_body_read_until_the_connection_ends_cannot_keep_it() -> None:
    a, b = socket.socketpair()
    with a, b:
        assert settle_body(Request(Body(EOFReader(SocketUnreader(a)))), a) is False


def test_a_sized_body_that_has_arrived_is_discarded_and_the_next_request_kept() -> None:
    """The body's last bytes are on the socket already: read without waiting, exactly to the
    body's end; the pipelined request behind it stays for the next read."""
    a, b = socket.socketpair()
    with a, b:
        unreader = SocketUnreader(a)
        unreader.unread(b"0123")  # the part gunicorn read ahead with the head
        reader = LengthReader(unreader, 10)
        b.sendall(b"456789GET / HTTP/1.1\r\n")
        assert settle_body(Request(Body(reader)), a) is True
        assert reader.length == 0
        assert a.recv(100) == b"GET / HTTP/1.1\r\n"


def test_a_body_read_ahead_whole_gives_back_the_next_request() -> None:
    a, b = socket.socketpair()
    with a, b:
        unreader = SocketUnreader(a)
        unreader.unread(b"0123456789GET /")  # the body and the start of a pipelined request
        reader = LengthReader(unreader, 10)
        assert settle_body(Request(Body(reader)), a) is True
        assert reader.length == 0 and unreader.take_buffered() == b"GET /"


def test_a_sized_body_still_on_its_way_cannot_keep_the_connection() -> None:
    a, b = socket.socketpair()
    with a, b:
        reader = LengthReader(SocketUnreader(a), 10)
        b.sendall(b"0123")
        assert settle_body(Request(Body(reader)), a) is False  # six bytes never came
        assert reader.length == 6
        assert a.gettimeout() is None  # the socket's blocking mode is given back
        b.sendall(b"45")
        b.shutdown(socket.SHUT_WR)  # the client gives up: the body never ends
        assert settle_body(Request(Body(reader)), a) is False
        assert reader.length == 4


def test_a_body_too_large_to_discard_or_failed_closes() -> None:
    a, b = socket.socketpair()
    with a, b:
        large = Body(LengthReader(SocketUnreader(a), SETTLE_MAX_BYTES + 1))
        assert settle_body(Request(large), a) is False
        failed = Body(LengthReader(SocketUnreader(a), 1))
        failed.failed = True
        assert settle_body(Request(failed), a) is False


def test_a_chunked_body_keeps_its_connection_only_when_read_to_its_end() -> None:
    a, b = socket.socketpair()
    with a, b:
        reader = ChunkedReader(object(), IterUnreader([b"3\r\nabc\r\n0\r\n\r\n"]))
        body = Body(reader)
        assert settle_body(Request(body), a) is False  # not one chunk parsed yet
        assert body.read() == b"abc"
        assert settle_body(Request(body), a) is True
