"""Slow and idle connections must not stall the server (the worker in
``service/quart_bezique/server``).

A crowd of hostile connections is opened against the real gunicorn server, started as ``make run``
starts it (2 workers x 2 threads), and the service must keep answering ``/healthz`` and a score
request. The bound asserted is a hang-guard (``HANG_GUARD`` seconds, far above what is measured:
see "Slow clients" in ``docs/operations.md``); the outcome asserted is that each answer arrives,
is correct and was not served by a connection that had to wait for the crowd.

The crowds, the pipeliners and the tests that wait out a real deadline are marked slow: ``make
test`` runs them; ``make check`` runs the refusal from the poller and the pieces below, and
``test_worker_edges.py`` drives the worker's decisions in process.

Run as a module (``.venv/bin/python -m tests.security.test_slow_clients [crowd size]``) it prints
the latencies with each crowd, for the stock gthread worker too (``GUNICORN_WORKER_CLASS=gthread``,
any other ``gunicorn.conf.py`` variable likewise).
"""

from __future__ import annotations

import http.client
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import orjson
import pytest

from tests.api.api_support import LiveServer, start_server
from tests.security.dropped import dropped
from tests.security.raw_http import read_answers

CROWD = 100
"""Hostile connections per scenario."""
HANG_GUARD = 5.0
"""Seconds after which a request counts as stalled: a hang guard (the latencies measured are in
docs/operations.md, "Slow clients")."""
HAND = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"]})
TRICKLED_HEAD = b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
"""Never completed: a trickler sends it one byte at a time, then starts over."""


def healthz(server: LiveServer, timeout: float = HANG_GUARD) -> float:
    """Seconds taken by ``GET /healthz`` on a new connection (raises if it fails or stalls)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    try:
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        assert response.status == 200
        assert orjson.loads(response.read())["status"] == "ok"
    finally:
        conn.close()
    return time.monotonic() - started


def score(server: LiveServer, timeout: float = HANG_GUARD) -> float:
    """Seconds taken by a score request on a new connection (raises if it fails or stalls)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"}
        conn.request("POST", "/v1/hands/score", body=HAND, headers=headers)
        response = conn.getresponse()
        assert response.status == 200
        assert orjson.loads(response.read())["score"] == 10
    finally:
        conn.close()
    return time.monotonic() - started


def connect(server: LiveServer, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection((server.host, server.port), timeout=HANG_GUARD)
        socks.append(sock)
    return socks


@contextmanager
def idle_crowd(server: LiveServer, count: int = CROWD) -> Iterator[list[socket.socket]]:
    """``count`` connections that connect and send nothing."""
    socks = connect(server, count)
    try:
        yield socks
    finally:
        for sock in socks:
            sock.close()


class Trickler:
    """Connections that each send one byte of a request head every ``interval`` seconds, from
    one thread; records when the server cut each of them (a send or a probe read failing)."""

    def __init__(self, socks: list[socket.socket], interval: float) -> None:
        self.socks = socks
        self.interval = interval
        self.started = time.monotonic()
        self.cut_after: dict[int, float] = {}
        self.answers: dict[int, bytes] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        position = 0
        while not self._stop.is_set():
            byte = TRICKLED_HEAD[position % len(TRICKLED_HEAD) : position % len(TRICKLED_HEAD) + 1]
            for index, sock in enumerate(self.socks):
                if index not in self.cut_after:
                    self._send(index, sock, byte)
            position += 1
            self._stop.wait(self.interval)

    def _send(self, index: int, sock: socket.socket, byte: bytes) -> None:
        try:
            sock.setblocking(False)
            try:
                answer = sock.recv(4096)
            except BlockingIOError:
                answer = None
            finally:
                sock.setblocking(True)
            if answer is not None:  # an answer, or the end of the connection: cut
                self.answers[index] = answer
                raise ConnectionResetError
            sock.sendall(byte)
        except OSError:
            self.cut_after[index] = time.monotonic() - self.started

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.socks:
            sock.close()


@contextmanager
def trickling_crowd(
    server: LiveServer, count: int = CROWD, interval: float = 0.5
) -> Iterator[Trickler]:
    """``count`` connections trickling a request head, one byte per ``interval`` seconds."""
    trickler = Trickler(connect(server, count), interval)
    try:
        yield trickler
    finally:
        trickler.stop()


PIPELINED = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
"""A request for a large answer (the OpenAPI document), pipelined by clients that never read."""


@contextmanager
def unread_pipeliners(server: LiveServer, count: int) -> Iterator[dict[socket.socket, int]]:
    """``count`` connections that pipeline requests for a large answer and never read one: each
    sends for 2 s, until the kernel buffers on both sides are full. Yields how many requests
    each connection sent."""
    socks = connect(server, count)
    sent_bytes = dict.fromkeys(socks, 0)
    for sock in socks:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
    deadline = time.monotonic() + 2.0
    with ExitStack() as stack:
        for sock in socks:
            stack.callback(sock.close)
        while time.monotonic() < deadline:
            for sock in socks:
                offset = sent_bytes[sock] % len(PIPELINED)  # resume mid-request if cut there
                with suppress(OSError):
                    sent_bytes[sock] += sock.send((PIPELINED * 16)[offset:])
            time.sleep(0.05)
        yield {sock: sent // len(PIPELINED) for sock, sent in sent_bytes.items()}


def worst(probe: Callable[[LiveServer], float], server: LiveServer, rounds: int = 5) -> float:
    return max(probe(server) for _ in range(rounds))


# --- the tests ---------------------------------------------------------------------------------


@pytest.mark.slow  # a crowd of 100 connections
def test_idle_connections_do_not_stall(keyed_server: LiveServer, auth: dict[str, str]) -> None:
    with idle_crowd(keyed_server):
        time.sleep(0.5)  # every idle connection accepted by now
        assert worst(healthz, keyed_server) < HANG_GUARD
        assert _keyed_score(keyed_server, auth) == 10


@pytest.mark.slow  # a crowd of 100 connections, trickling for 1.5 s
def test_header_tricklers_do_not_stall(keyed_server: LiveServer, auth: dict[str, str]) -> None:
    with trickling_crowd(keyed_server) as trickler:
        time.sleep(1.5)  # every trickler has sent some of its head
        assert worst(healthz, keyed_server) < HANG_GUARD
        assert _keyed_score(keyed_server, auth) == 10
        assert not trickler.cut_after  # still within the head deadline: none cut yet


@pytest.mark.slow  # seconds of pipelining into full buffers
def test_unread_pipeliners_do_not_stall(keyed_server: LiveServer, auth: dict[str, str]) -> None:
    with unread_pipeliners(keyed_server, 8):
        assert worst(healthz, keyed_server) < HANG_GUARD
        assert _keyed_score(keyed_server, auth) == 10


@pytest.mark.slow  # waits out HEAD_READ_TIMEOUT
def test_a_trickler_is_cut_after_the_head_deadline(short_limits_server: LiveServer) -> None:
    with trickling_crowd(short_limits_server, count=3, interval=0.2) as trickler:
        deadline = time.monotonic() + HANG_GUARD
        while len(trickler.cut_after) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    assert sorted(trickler.cut_after) == [0, 1, 2]
    assert trickler.answers  # told why (a trickler may also see the close as a failed send)
    assert min(trickler.cut_after.values()) > 0.5  # HEAD_READ_TIMEOUT is 1 s: never early
    for answer in trickler.answers.values():
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b"Connection: close\r\n" in answer
        assert orjson.loads(answer.split(b"\r\n\r\n", 1)[1])["code"] == "REQUEST_TIMEOUT"


@pytest.mark.slow  # waits out HEAD_READ_TIMEOUT
def test_an_idle_connection_is_closed_without_an_answer(short_limits_server: LiveServer) -> None:
    with idle_crowd(short_limits_server, count=1) as (sock,):
        started = time.monotonic()
        assert sock.recv(4096) == b""  # closed, nothing said (the socket's timeout is 5 s)
        assert time.monotonic() - started > 0.5


@pytest.mark.slow  # idles 1.5 s on purpose
def test_a_kept_alive_connection_gets_a_new_head_deadline(
    short_limits_server: LiveServer,
) -> None:
    """The head clock of a kept-alive connection's next request starts at its first byte: idle
    time within GUNICORN_KEEPALIVE (4 s) is not counted against HEAD_READ_TIMEOUT (1 s)."""
    with idle_crowd(short_limits_server, count=1) as (sock,):
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = read_answers(sock, 1)[0]
        assert first.startswith(b"HTTP/1.1 200 ")
        time.sleep(1.5)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_answers(sock, 1)[0].startswith(b"HTTP/1.1 200 ")


def test_a_head_over_the_limit_is_refused_from_the_poller(
    short_limits_server: LiveServer,
) -> None:
    with idle_crowd(short_limits_server, count=1) as (sock,):
        sock.sendall(b"GET /healthz HTTP/1.1\r\n" + b"X-Filler: " + b"y" * 5000 + b"\r\n")
        answer = read_answers(sock, 1)[0]  # the head never ends: refused all the same, at once
        assert answer.startswith(b"HTTP/1.1 431 ")


@pytest.mark.slow  # seconds of pipelining into full buffers
def test_a_client_that_never_reads_is_dropped(short_limits_server: LiveServer) -> None:
    """SEND_TIMEOUT is 1 s: answers nobody reads stop being written and the connection is
    closed with requests still unanswered (without the limit, the worker would wait for the
    client to read them all).

    Everything is judged from the server's side: its end of the connection (the kernel's
    table), its log and its audit lines. Reading the answers back instead would depend on how
    fast the kernel releases what was queued behind a closed window, which is load, not the
    limit under test."""
    log = short_limits_server.log
    seen = log.stat().st_size
    with unread_pipeliners(short_limits_server, 1) as sent:
        ((sock, requests),) = sent.items()
        # Never reading, wait for the server to give up and close its end.
        ports = short_limits_server.port, sock.getsockname()[1]
        assert dropped(*ports), "the server still holds a client that never reads"
        said = _log_since(log, seen, DROPPED_FOR_NOT_READING)
    assert DROPPED_FOR_NOT_READING in said  # for that reason, not another
    answered = said.count(OPENAPI_AUDITED)
    assert 0 < answered < requests
    assert healthz(short_limits_server) < HANG_GUARD


DROPPED_FOR_NOT_READING = b"answer not read within 1 s: closed"
"""What the worker logs when it drops a connection for SEND_TIMEOUT (1 s in these tests)."""
OPENAPI_AUDITED = b'"endpoint":"/openapi.json","status":200'
"""An audit line's mark of an answered ``GET /openapi.json`` (the pipelined request)."""


def _log_since(log: Path, offset: int, awaited: bytes) -> bytes:
    """What the server logged after ``offset``, once ``awaited`` is in it (or the hang guard
    has passed: the caller's assertion then says what is missing)."""
    end = time.monotonic() + HANG_GUARD
    while True:
        with log.open("rb") as lines:
            lines.seek(offset)
            said = lines.read()
        if awaited in said or time.monotonic() > end:
            return said
        time.sleep(0.1)


def test_the_408_is_the_apps_problem_type() -> None:
    from quart_bezique.api.contract.problems import PROBLEM_MEDIA_TYPE, REQUEST_TIMEOUT
    from quart_bezique.server.timeout_answer import PROBLEM, REQUEST_TIMEOUT_ANSWER

    assert PROBLEM["type"] == REQUEST_TIMEOUT.uri
    assert (PROBLEM["title"], PROBLEM["status"], PROBLEM["code"]) == (
        REQUEST_TIMEOUT.title,
        REQUEST_TIMEOUT.status,
        REQUEST_TIMEOUT.code,
    )
    assert f"Content-Type: {PROBLEM_MEDIA_TYPE}\r\n".encode() in REQUEST_TIMEOUT_ANSWER


def test_head_completion_and_overflow() -> None:
    from types import SimpleNamespace

    from gunicorn.http.errors import (  # type: ignore[import-untyped]
        LimitRequestHeaders,
        LimitRequestLine,
    )
    from quart_bezique.server.head import head_end, overflow

    head = bytearray()
    ends = []
    for byte in b"GET / HTTP/1.1\r\nHost: x\r\n\r\n":  # trickled: complete at the last byte
        head.append(byte)
        ends.append(head_end(head, 1))
    assert ends == [-1] * (len(head) - 1) + [len(head)]
    whole = b"GET / HTTP/1.1\r\n\r\nGET /next HTTP/1.1\r\n\r\n"  # pipelined: the first head
    assert head_end(whole, len(whole)) == len(b"GET / HTTP/1.1\r\n\r\n")
    cfg = SimpleNamespace(limit_request_line=20)
    assert overflow(b"GET / HTTP/1.1\r\nX: " + b"y" * 40, 64, cfg) is None
    assert isinstance(overflow(b"GET / HTTP/1.1\r\nX: " + b"y" * 50, 64, cfg), LimitRequestHeaders)
    assert isinstance(overflow(b"GET /" + b"a" * 30, 64, cfg), LimitRequestLine)


def test_connection_limits_are_validated() -> None:
    from quart_bezique.server.limits import ConnectionLimits, LimitError

    assert ConnectionLimits.from_environ({}) == ConnectionLimits()
    assert ConnectionLimits.from_environ({"SEND_TIMEOUT": " 3 "}).send_timeout == 3
    for name, value in (("HEAD_READ_TIMEOUT", "0"), ("HEAD_MAX_BYTES", "lots")):
        with pytest.raises(LimitError, match=name):
            ConnectionLimits.from_environ({name: value})


def _keyed_score(server: LiveServer, auth: dict[str, str]) -> int:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=HANG_GUARD)
    try:
        headers = {"Content-Type": "application/json", **auth}
        conn.request("POST", "/v1/hands/score", body=HAND, headers=headers)
        response = conn.getresponse()
        assert response.status == 200
        value: int = orjson.loads(response.read())["score"]
        return value
    finally:
        conn.close()


# --- measuring ---------------------------------------------------------------------------------


def measure(log_dir: Path, crowd: int = CROWD, **env: str) -> None:
    """Print the worst of 5 latencies of /healthz and a score request with each crowd."""
    server = start_server(log_dir, **env)
    guard = 120.0
    try:

        def report(label: str) -> None:
            for name, probe in (("healthz", healthz), ("score", score)):
                try:
                    seconds = max(probe(server, guard) for _ in range(5))
                    print(f"{label:32} {name:8} worst of 5: {seconds * 1000:9.1f} ms", flush=True)
                except OSError as exc:
                    print(f"{label:32} {name:8} failed: {exc!r}", flush=True)

        report("no crowd")
        with idle_crowd(server, crowd):
            time.sleep(0.5)
            report(f"{crowd} idle connections")
        with trickling_crowd(server, crowd):
            time.sleep(1.5)
            report(f"{crowd} header tricklers (0.5 s/B)")
        with unread_pipeliners(server, 8):
            report("8 unread pipeliners")
    finally:
        server.stop()


if __name__ == "__main__":
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        print("worker class:", os.environ.get("GUNICORN_WORKER_CLASS") or "(gunicorn.conf.py)")
        measure(Path(directory), int(sys.argv[1]) if len(sys.argv) > 1 else CROWD)
