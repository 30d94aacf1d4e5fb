"""``POST /v1/rounds/reconcile`` on a real gunicorn server (the head-first worker, one worker,
SEND_TIMEOUT and BODY_READ_TIMEOUT of 1 s): a chunked body, its answer streamed chunked, its
audit line; a client that sends too slowly and one that stops reading are dropped by the server's
own deadlines (docs/operations.md, "Slow clients"), and clients that hang up are forgotten."""

from __future__ import annotations

import http.client
import socket
import struct
import time
from collections.abc import Iterator

import orjson
import pytest

from tests.api.api_support import LiveServer, start_server
from tests.reconcile_http.support import (
    API_KEY,
    AUTH,
    NDJSON,
    PATH,
    answer_lines,
    big_claim_record,
    jsonl,
    records,
    sha256,
)
from tests.security.dropped import dropped

HANG_GUARD = 10.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("reconcile"),
        API_KEYS=API_KEY,
        WEB_CONCURRENCY="1",
        SEND_TIMEOUT="1",
        BODY_READ_TIMEOUT="1",
        MAX_BODY_BYTES=str(16 * 1024 * 1024),
    )
    yield live
    live.stop()


def head(length: int | None) -> bytes:
    framing = "Transfer-Encoding: chunked" if length is None else f"Content-Length: {length}"
    return (
        f"POST {PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: {NDJSON}\r\n"
        f"Authorization: {AUTH['Authorization']}\r\n{framing}\r\n\r\n"
    ).encode()


def test_a_chunked_body_is_answered_as_a_chunked_stream(server: LiveServer) -> None:
    body = jsonl(records() * 5)
    pieces = [body[i : i + 100] for i in range(0, len(body), 100)]  # cut mid-line
    conn = http.client.HTTPConnection(server.host, server.port, timeout=HANG_GUARD)
    try:
        headers = {"Content-Type": NDJSON, "X-Request-ID": "reconcile-live-1", **AUTH}
        conn.request("POST", PATH, body=iter(pieces), headers=headers, encode_chunked=True)
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("Transfer-Encoding") == "chunked"
        assert response.getheader("Content-Type") == NDJSON
        data = response.read()
    finally:
        conn.close()
    *judged, last = answer_lines(data)
    assert [line["line"] for line in judged] == list(range(1, 21))
    assert last["summary"]["records"] == 20
    assert last["summary"]["body_sha256"] == sha256(body)
    deadline = time.monotonic() + HANG_GUARD
    while b'"reconcile-live-1"' not in server.log.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    (audited,) = [
        orjson.loads(line)
        for line in server.log.read_bytes().splitlines()
        if b'"request_id":"reconcile-live-1"' in line and line.startswith(b"{")
    ]
    assert audited["endpoint"] == PATH
    assert audited["body_sha256"] == sha256(body)
    assert audited["verdict"]["records"] == 20 and audited["verdict"]["complete"] is True


def test_a_client_that_sends_too_slowly_is_cut_by_the_body_deadline(server: LiveServer) -> None:
    body = jsonl(records())
    with socket.create_connection((server.host, server.port), timeout=HANG_GUARD) as sock:
        sock.sendall(head(len(body)) + body[:300])  # then nothing: BODY_READ_TIMEOUT is 1 s
        started = time.monotonic()
        answer = b""
        while b"\r\n\r\n" not in answer:
            piece = sock.recv(65536)
            if not piece:
                break
            answer += piece
        waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b"Connection: close\r\n" in answer
    assert 0.5 < waited < HANG_GUARD


def test_a_client_that_stops_reading_is_dropped(server: LiveServer) -> None:
    """An answer of some 10 MB nobody reads: the server writes what the buffers take, then
    drops the connection SEND_TIMEOUT (1 s) later; what reaches the client is cut, without its
    summary, and the server serves others meanwhile. The drop is seen from the kernel's table,
    without reading (``tests.security.dropped``)."""
    body = jsonl([big_claim_record(100_000)] * 100)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(HANG_GUARD)
        sock.connect((server.host, server.port))
        sock.sendall(head(len(body)) + body)
        assert dropped(server.port, sock.getsockname()[1])
        received = b""
        end = time.monotonic() + 2.0  # what was queued before the drop, as far as it comes
        sock.settimeout(0.5)
        while time.monotonic() < end:
            try:
                piece = sock.recv(1 << 20)
            except (TimeoutError, ConnectionResetError):
                break
            if not piece:
                break
            received += piece
    assert received.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b'{"summary"' not in received
    assert len(received) < len(body)
    assert b"answer not read within" in server.log.read_bytes()
    status, _, data = server.request(
        "POST", PATH, jsonl(records()), {"Content-Type": NDJSON, **AUTH}
    )
    assert status == 200, data
    assert answer_lines(data)[-1]["summary"]["records"] == 4, data


def test_a_client_that_hangs_up_is_forgotten(server: LiveServer) -> None:
    """A client that hangs up halfway through its body, and one that resets the connection after
    the first bytes of its answer: nothing is left waiting for either, the server serves the
    next request whole, and its log holds no traceback."""
    body = jsonl(records() * 200)
    with socket.create_connection((server.host, server.port), timeout=HANG_GUARD) as sock:
        sock.sendall(head(len(body)) + body[: len(body) // 2])
        halfway = sock.getsockname()[1]
    with socket.create_connection((server.host, server.port), timeout=HANG_GUARD) as sock:
        sock.sendall(head(len(body)) + body)
        assert sock.recv(100).startswith(b"HTTP/1.1 200 OK\r\n")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
        reset = sock.getsockname()[1]
    assert dropped(server.port, halfway, HANG_GUARD)
    assert dropped(server.port, reset, HANG_GUARD)
    status, _, data = server.request(
        "POST", PATH, jsonl(records()), {"Content-Type": NDJSON, **AUTH}
    )
    assert status == 200, data
    assert answer_lines(data)[-1]["summary"]["complete"] is True
    assert b"Traceback" not in server.log.read_bytes()
