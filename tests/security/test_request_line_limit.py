"""The poller's early refusal of a long request line, held to gunicorn's parser.

A head that arrives whole goes straight to gunicorn's parser; one that trickles in is watched by
the poller, which refuses a request line at once when it can no longer be accepted. Were the two
to disagree, one request would get two answers depending on how its bytes were segmented: they
did for ``LIMIT_REQUEST_LINE=0``, which the poller read as 8190 and gunicorn's parser as no limit.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from gunicorn.config import Config  # type: ignore[import-untyped]
from gunicorn.http.errors import (  # type: ignore[import-untyped]
    LimitRequestHeaders,
    LimitRequestLine,
)
from gunicorn.http.message import MAX_REQUEST_LINE, Request  # type: ignore[import-untyped]
from gunicorn.http.unreader import IterUnreader  # type: ignore[import-untyped]
from quart_bezique.server import head

from tests.api.api_support import LiveServer, start_server

HEAD_MAX = 64 * 1024
"""``HEAD_MAX_BYTES``'s default: the bound of every head, whatever the line limit."""
LIMITS = (0, 1, 20, 4094, 8190, 8191, 100_000)
"""``limit_request_line`` values: no limit, small ones, the default, gunicorn's maximum, above."""


def request_head(line_length: int) -> bytes:
    """A ``GET /healthz`` head whose request line (without its CRLF) is ``line_length`` bytes."""
    start, end = b"GET /healthz?q=", b" HTTP/1.1"
    line = start + b"a" * (line_length - len(start) - len(end)) + end
    assert len(line) == line_length
    return line + b"\r\nHost: x\r\nConnection: close\r\n\r\n"


def gunicorn_line_error(data: bytes, limit: int) -> LimitRequestLine | None:
    """gunicorn's parser's refusal of the request line of ``data``, given whole, if it refuses."""
    cfg = Config()
    cfg.set("limit_request_line", limit)
    try:
        Request(cfg, IterUnreader([data]), ("203.0.113.7", 40000))
    except LimitRequestLine as error:
        return error
    return None


def poller_refuses_the_line(data: bytes, limit: int) -> bool:
    """Whether the poller refuses the head's request line before the head is complete (its
    refusal only grows with the bytes held, so the longest incomplete prefix decides)."""
    refusal = head.overflow(data[:-1], HEAD_MAX, SimpleNamespace(limit_request_line=limit))
    return isinstance(refusal, LimitRequestLine)


def test_the_line_limit_is_read_as_gunicorns_parser_reads_it() -> None:
    assert head.MAX_REQUEST_LINE == MAX_REQUEST_LINE
    longest = request_head(HEAD_MAX)
    for limit in LIMITS:
        refused = gunicorn_line_error(longest, limit)
        ours = head.line_limit(SimpleNamespace(limit_request_line=limit))
        assert ours == (None if refused is None else refused.max_size), limit


@pytest.mark.parametrize("limit", LIMITS)
def test_the_poller_refuses_a_line_only_when_gunicorn_would(limit: int) -> None:
    effective = MAX_REQUEST_LINE if limit == 0 else min(limit, MAX_REQUEST_LINE)
    lengths = {n for n in range(effective - 2, effective + 5) if n >= 30} | {9000, 20_000}
    for length in sorted(lengths):
        data = request_head(length)
        gunicorn = gunicorn_line_error(data, limit) is not None
        poller = poller_refuses_the_line(data, limit)
        assert gunicorn == (limit != 0 and length > effective), (limit, length)
        assert not poller or gunicorn, f"the poller alone refuses a {length}-byte line"
        if gunicorn and length > effective + 1:  # the line cannot end acceptably any more
            assert poller, f"the poller waits on a {length}-byte line"


def test_without_a_line_limit_the_head_limit_bounds_the_line() -> None:
    cfg = SimpleNamespace(limit_request_line=0)
    line = b"GET /" + b"a" * HEAD_MAX
    assert head.overflow(line[:HEAD_MAX], HEAD_MAX, cfg) is None
    assert isinstance(head.overflow(line[: HEAD_MAX + 1], HEAD_MAX, cfg), LimitRequestHeaders)


@pytest.fixture(scope="module")
def unlimited_line(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(
        tmp_path_factory.mktemp("line-limit-0"),
        WEB_CONCURRENCY="1",
        LIMIT_REQUEST_LINE="0",
        AUDIT_LOG="false",
    )
    yield server
    server.stop()


def status_of(server: LiveServer, data: bytes, *, trickled: bool) -> bytes:
    """The status line answering ``data``, sent whole or with its last 50 bytes held back until
    the poller has read the rest (an incomplete head)."""
    parts = [data[:-50], data[-50:]] if trickled else [data]
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        for part in parts:
            sock.sendall(part)
            time.sleep(0.2)
        received = b""
        while b"\r\n" not in received and (chunk := sock.recv(65536)):
            received += chunk
    return received.partition(b"\r\n")[0]


@pytest.mark.parametrize("length", [9000, HEAD_MAX + 100])
def test_a_request_gets_one_answer_however_it_is_segmented(
    unlimited_line: LiveServer, length: int
) -> None:
    data = request_head(length)
    whole = status_of(unlimited_line, data, trickled=False)
    assert whole.startswith(b"HTTP/1.1 200 " if length < HEAD_MAX else b"HTTP/1.1 431 "), whole
    assert status_of(unlimited_line, data, trickled=True) == whole
