"""No client can hold a thread: attacks that each held every thread of the stock worker, replayed
against the real gunicorn with deadlines long enough that waiting them out cannot pass a test.

Each test asserts states, not times: the probes are answered *while* the attackers are still
connected and still unanswered (a worker that served the probes only after the attackers' deadline
would find them cut by then). ``HANG_GUARD`` only stops a test that would otherwise hang.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress

import pytest

from tests.api.api_support import LiveServer, start_server
from tests.security.raw_http import exchange
from tests.security.test_slow_clients import HAND, healthz, score

HANG_GUARD = 15.0
"""Seconds a probe may take before the test fails: far under the attackers' deadlines."""
LONG_DEADLINES = {
    "WEB_CONCURRENCY": "1",
    "GUNICORN_THREADS": "2",
    "SEND_TIMEOUT": "60",
    "BODY_READ_TIMEOUT": "60",
    "HEAD_READ_TIMEOUT": "60",
    "GUNICORN_WORKER_CONNECTIONS": "40",
}
"""One worker with two threads and deadlines no test waits for; room for 40 connections."""
BUNDLE = b"GET /docs/static/swagger-ui/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("held-threads"), **LONG_DEADLINES)
    yield live
    live.stop()


def still_open(sock: socket.socket) -> bool:
    """Whether the server has neither closed ``sock`` nor answered on it."""
    try:
        sock.setblocking(False)
        sock.recv(1, socket.MSG_PEEK)  # an answer, or the end of the stream
    except BlockingIOError:
        return True
    except OSError:
        pass
    finally:
        sock.setblocking(True)
    return False


def connected(server: LiveServer, count: int, stack: ExitStack) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection((server.host, server.port), timeout=HANG_GUARD)
        stack.callback(sock.close)
        socks.append(sock)
    return socks


@pytest.mark.slow  # 8 connections filling their buffers for 2 s
def test_clients_that_pipeline_a_large_file_and_never_read_hold_no_thread(
    server: LiveServer,
) -> None:
    with ExitStack() as stack:
        socks = connected(server, 8, stack)
        for sock in socks:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(BUNDLE * 4)
        time.sleep(2.0)  # the answers fill every buffer on the way
        for _ in range(5):
            healthz(server, timeout=HANG_GUARD)
        score(server, timeout=HANG_GUARD)
        received = []
        for sock in socks:  # still held by the server (their send deadline is far), partly sent
            sock.setblocking(False)
            with suppress(BlockingIOError):
                received.append(sock.recv(65536, socket.MSG_PEEK))
            sock.setblocking(True)
        assert len(received) == len(socks) and all(
            part.startswith(b"HTTP/1.1 200") for part in received
        )


@pytest.mark.slow  # tricklers for a few seconds
def test_clients_that_trickle_a_body_hold_no_thread(server: LiveServer) -> None:
    head = (
        b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(HAND)).encode() + b"\r\n\r\n"
    )
    stop = threading.Event()
    with ExitStack() as stack:
        socks = connected(server, 6, stack)  # three times the threads
        for sock in socks:
            sock.sendall(head)

        def trickle() -> None:
            for byte in HAND[:-1]:  # never the last byte
                for sock in socks:
                    with suppress(OSError):
                        sock.sendall(bytes([byte]))
                if stop.wait(0.3):
                    return

        thread = threading.Thread(target=trickle, daemon=True)
        thread.start()
        stack.callback(thread.join)
        stack.callback(stop.set)
        time.sleep(1.0)
        for _ in range(5):
            healthz(server, timeout=HANG_GUARD)
        score(server, timeout=HANG_GUARD)
        assert all(still_open(sock) for sock in socks)  # unanswered: their bodies are not in


@pytest.mark.slow  # 100 connections
def test_connections_beyond_capacity_shed_the_longest_idle_not_the_probe(
    server: LiveServer,
) -> None:
    with ExitStack() as stack:
        silent = connected(server, 100, stack)  # far over the 40 the worker holds
        time.sleep(0.5)
        healthz(server, timeout=HANG_GUARD)
        score(server, timeout=HANG_GUARD)
        assert not still_open(silent[0])  # the longest idle made room
        assert still_open(silent[-1])


def test_a_head_over_the_limit_is_refused_however_it_is_segmented(server: LiveServer) -> None:
    pad = b"X-Pad-%d: " + b"p" * 8000 + b"\r\n"
    big = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(pad % i for i in range(12)) + b"\r\n"
    assert 90_000 < len(big) < 100_000  # over HEAD_MAX_BYTES (64 KiB), within gunicorn's limits
    whole = exchange(server.host, server.port, big, timeout=HANG_GUARD)
    assert whole.status == 431
    fine = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(pad % i for i in range(7)) + b"\r\n"
    assert exchange(server.host, server.port, fine, timeout=HANG_GUARD).status == 200
    with socket.create_connection((server.host, server.port), timeout=HANG_GUARD) as sock:
        for start in range(0, len(big), 16 * 1024):
            with suppress(OSError):
                sock.sendall(big[start : start + 16 * 1024])
            time.sleep(0.05)
        assert sock.recv(64).startswith(b"HTTP/1.1 431")


def _expecting(server: LiveServer, authorization: bytes) -> bytes:
    head = (
        b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Expect: 100-continue\r\nConnection: close\r\n" + authorization
    )
    head += b"Content-Length: " + str(len(HAND)).encode() + b"\r\n\r\n"
    with socket.create_connection((server.host, server.port), timeout=HANG_GUARD) as sock:
        sock.sendall(head)
        first = sock.recv(4096)
        if first.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"):
            sock.sendall(HAND)
        received = first
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_100_continue_only_after_the_key_is_accepted(keyed_server: LiveServer) -> None:
    from tests.security.conftest import API_KEY

    refused = _expecting(keyed_server, b"")
    assert refused.startswith(b"HTTP/1.1 401") and b"100 Continue" not in refused
    wrong = _expecting(keyed_server, b"Authorization: Bearer not-the-key-0123456789\r\n")
    assert wrong.startswith(b"HTTP/1.1 401") and b"100 Continue" not in wrong
    accepted = _expecting(keyed_server, b"Authorization: Bearer " + API_KEY.encode() + b"\r\n")
    assert accepted.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200")
