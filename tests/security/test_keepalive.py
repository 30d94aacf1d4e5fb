"""Keep-alive honesty: an answer that leaves request bytes unread says ``Connection: close``.

A pooled client (httpx, requests, undici, here http.client with one connection) trusts
``Connection: keep-alive`` and sends its next request on the same socket; if the server closes it
anyway, that request fails with "server disconnected". And a client still streaming an
oversized body must get to read its 413 rather than a reset
(``service/quart_bezique/server/worker.py`` discards up to CLOSE_DRAIN_BYTES after the answer).
"""

from __future__ import annotations

import http.client
import socket

import orjson
import pytest

from tests.api.api_support import LiveServer
from tests.security.raw_http import read_answers

MAX_BODY_BYTES = 1024 * 1024
"""The keyed server's limit (the default)."""
JSON = {"Content-Type": "application/json"}
HAND = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"]})


def pooled(server: LiveServer) -> http.client.HTTPConnection:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    conn.connect()
    return conn


def local_port(conn: http.client.HTTPConnection) -> int:
    assert conn.sock is not None
    return int(conn.sock.getsockname()[1])


def exchange(
    conn: http.client.HTTPConnection, body: bytes, headers: dict[str, str]
) -> tuple[int, http.client.HTTPResponse, dict[str, object]]:
    conn.request("POST", "/v1/hands/score", body=body, headers=headers)
    response = conn.getresponse()
    doc = orjson.loads(response.read())
    return response.status, response, doc


def then_score(conn: http.client.HTTPConnection, auth: dict[str, str]) -> int:
    """The pooled client's next request: it must simply work."""
    status, _, doc = exchange(conn, HAND, {**JSON, **auth})
    assert status == 200
    assert doc["score"] == 10
    return local_port(conn)


@pytest.mark.parametrize(
    ("size", "content_type", "key", "status"),
    [
        (MAX_BODY_BYTES + 1, "application/json", True, 413),
        (100 * 1024, "text/plain", True, 415),
        (100 * 1024, "application/json", False, 401),
    ],
    ids=["413", "415-over-64k", "401-over-64k"],
)
def test_an_unread_body_closes_honestly(
    keyed_server: LiveServer,
    auth: dict[str, str],
    size: int,
    content_type: str,
    key: bool,
    status: int,
) -> None:
    conn = pooled(keyed_server)
    try:
        first = local_port(conn)
        headers = {"Content-Type": content_type, **(auth if key else {})}
        got, response, doc = exchange(conn, b"x" * size, headers)
        assert got == status
        assert doc["status"] == status
        assert response.getheader("Connection") == "close"
        assert then_score(conn, auth) != first  # a new connection, opened by the client
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("content_type", "key", "status"),
    [(b"text/plain", True, 415), (b"application/json", False, 401)],
    ids=["415", "401"],
)
def test_a_small_unread_body_that_has_arrived_keeps_the_connection(
    keyed_server: LiveServer, auth: dict[str, str], content_type: bytes, key: bool, status: int
) -> None:
    """The unread rest of a body already received is discarded: no need to close for it. (Sent
    with its head in one write, so that it has arrived when the answer is decided; http.client
    writes a body separately, and then either outcome may happen, each announced truthfully.)"""
    with socket.create_connection((keyed_server.host, keyed_server.port), timeout=30) as sock:
        sock.sendall(request(HAND * 100, content_type, auth if key else {}))
        refused = read_answers(sock, 1)[0]
        assert refused.startswith(b"HTTP/1.1 %d " % status)
        assert b"\r\nConnection: keep-alive\r\n" in refused
        sock.sendall(request(HAND, b"application/json", auth))
        scored = read_answers(sock, 1)[0]
    assert scored.startswith(b"HTTP/1.1 200 ")
    assert orjson.loads(scored.split(b"\r\n\r\n", 1)[1])["score"] == 10


def test_a_request_pipelined_behind_an_unread_body_is_served(
    keyed_server: LiveServer, auth: dict[str, str]
) -> None:
    """Discarding the rest of a body stops at its end: the next request behind it is intact."""
    refused = request(HAND, b"text/plain", auth)
    scored = request(HAND, b"application/json", auth)
    with socket.create_connection((keyed_server.host, keyed_server.port), timeout=30) as sock:
        sock.sendall(refused + scored)
        answers = read_answers(sock, 2)
    assert answers[0].startswith(b"HTTP/1.1 415 ")
    assert answers[1].startswith(b"HTTP/1.1 200 ")
    assert orjson.loads(answers[1].split(b"\r\n\r\n", 1)[1])["score"] == 10


@pytest.mark.parametrize("chunked", [False, True], ids=["sized", "chunked"])
def test_a_client_streaming_an_oversized_body_reads_its_413(
    keyed_server: LiveServer, auth: dict[str, str], chunked: bool
) -> None:
    """1.5 x MAX_BODY_BYTES streamed in 64 KiB pieces: every send succeeds (no broken pipe), then
    the 413 is read, then the server's end of the connection."""
    size = MAX_BODY_BYTES * 3 // 2
    piece = b"[" * (64 * 1024)
    framing = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % size
    head = (
        b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Authorization: " + auth["Authorization"].encode() + b"\r\n" + framing + b"\r\n\r\n"
    )
    with socket.create_connection((keyed_server.host, keyed_server.port), timeout=30) as sock:
        sock.sendall(head)
        for _ in range(size // len(piece)):
            sock.sendall(b"10000\r\n" + piece + b"\r\n" if chunked else piece)
        if chunked:
            sock.sendall(b"0\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head_bytes, body = answer.split(b"\r\n\r\n", 1)
    assert head_bytes.startswith(b"HTTP/1.1 413 ")
    assert b"\r\nConnection: close" in head_bytes
    assert orjson.loads(body)["code"] == "BODY_TOO_LARGE"


def request(body: bytes, content_type: bytes, auth: dict[str, str]) -> bytes:
    """A whole score request's bytes, to be sent in one write (with ``auth``'s header, if any)."""
    fields = b"".join(b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in auth.items())
    return (
        b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: "
        + content_type
        + b"\r\n"
        + fields
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )
