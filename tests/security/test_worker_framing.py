"""The worker's two byte-level pieces, held to what they stand in for.

``ChunkedEnd`` decides when the poller has a whole chunked body; gunicorn's ``ChunkedReader``
then reads it on a thread from the bytes collected. If the two disagreed, a thread would wait on
the socket (the end found too early) or a request would wait for its deadline (too late), so
generated bodies, split anywhere, are read by both. ``Outbox`` must send everything it is given,
in order, whatever the client takes at a time.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest
from gunicorn.http.body import ChunkedReader  # type: ignore[import-untyped]
from gunicorn.http.errors import NoMoreData  # type: ignore[import-untyped]
from gunicorn.http.unreader import IterUnreader  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st
from quart_bezique.server.framing import BROKEN, DATA, DONE, ChunkedEnd
from quart_bezique.server.outbox import Outbox

LINE_LIMIT, TRAILER_LIMIT = 8190 + 16, 64 * 1024 + 16


class _Request:
    trailers: Any = None
    limit_request_field_size = 8190
    max_buffer_headers = 0

    def parse_headers(self, data: bytes, from_trailer: bool = False) -> list[Any]:
        return []


def gunicorn_reads(data: bytes) -> tuple[str, bytes]:
    """What gunicorn's reader makes of ``data``: ("whole", body), ("short", b"") when it ran out
    of bytes, or ("refused", b"") for anything else it raised."""
    reader = ChunkedReader(_Request(), IterUnreader([data]))
    body = b""
    try:
        while chunk := reader.read(65536):
            body += chunk
    except NoMoreData:
        return "short", b""
    except Exception:
        return "refused", b""
    return "whole", body


def followed(data: bytes, cuts: list[int]) -> tuple[int, int]:
    """The state ``ChunkedEnd`` reaches on ``data`` fed in pieces cut at ``cuts``, and where it
    first reached DONE (-1: never)."""
    end = ChunkedEnd(LINE_LIMIT, TRAILER_LIMIT)
    state, done_at, start = end.state, -1, 0
    for cut in [*sorted(set(cuts)), len(data)]:
        if cut <= start:
            continue
        for offset in range(start, cut):  # a byte at a time inside the piece, for done_at
            state = end.feed(data[offset : offset + 1])
            if state == DONE and done_at < 0:
                done_at = offset + 1
            if state >= DONE:
                return state, done_at
        start = cut
    return state, done_at


chunk_data = st.binary(min_size=1, max_size=40)
extensions = st.sampled_from([b"", b";a=b", b" ;x", b';name="v"'])
trailers = st.sampled_from([b"", b"X-Sum: 1\r\n", b"A: b\r\nC: d\r\n"])


@st.composite
def chunked_bodies(draw: st.DrawFn) -> tuple[bytes, bytes]:
    parts = draw(st.lists(st.tuples(chunk_data, extensions), max_size=6))
    wire = b"".join(b"%x%s\r\n%s\r\n" % (len(d), ext, d) for d, ext in parts)
    wire += b"0" + draw(extensions) + b"\r\n" + draw(trailers) + b"\r\n"
    return wire, b"".join(d for d, _ in parts)


@settings(max_examples=300, deadline=None)
@given(chunked_bodies(), st.lists(st.integers(0, 400), max_size=5), st.binary(max_size=30))
def test_a_whole_chunked_body_ends_where_gunicorn_reads_it_to(
    body: tuple[bytes, bytes], cuts: list[int], after: bytes
) -> None:
    wire, decoded = body
    assert gunicorn_reads(wire) == ("whole", decoded)
    state, done_at = followed(wire + after, cuts)  # a pipelined request may follow
    assert state == DONE and done_at == len(wire)


@settings(max_examples=300, deadline=None)
@given(chunked_bodies(), st.data())
def test_a_cut_chunked_body_is_never_whole(body: tuple[bytes, bytes], data: st.DataObject) -> None:
    wire, _ = body
    cut = data.draw(st.integers(0, len(wire) - 1))
    state, _ = followed(wire[:cut], [])
    assert state not in (DONE, BROKEN)
    assert gunicorn_reads(wire[:cut])[0] != "whole"


@pytest.mark.parametrize(
    "wire",
    [b"zz\r\n", b"\r\n", b"5\r\nhelloXX0\r\n\r\n", b"-1\r\n", b"5;\rx\r\nhello\r\n0\r\n\r\n"],
    ids=["not hex", "empty size", "no CRLF after data", "negative", "bare CR in extension"],
)
def test_framing_gunicorn_refuses_is_not_waited_for(wire: bytes) -> None:
    """Broken framing is handed over at once (gunicorn's reader answers it), never collected:
    either the follower sees the break itself, or gunicorn refuses within the bytes it has."""
    state, _ = followed(wire, [])
    assert state == BROKEN or gunicorn_reads(wire)[0] == "refused"


def test_an_endless_size_line_is_broken() -> None:
    end = ChunkedEnd(LINE_LIMIT, TRAILER_LIMIT)
    assert end.feed(b"1" * (LINE_LIMIT + 1)) == BROKEN


def test_received_data_is_counted_for_the_body_limit() -> None:
    end = ChunkedEnd(LINE_LIMIT, TRAILER_LIMIT)
    assert end.feed(b"a\r\n01234") == DATA and end.data_bytes == 5


# --- the outbox --------------------------------------------------------------------------------


def _pair() -> tuple[Outbox, socket.socket]:
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    theirs.settimeout(5)
    return Outbox(ours), theirs


def _read_all(box: Outbox, peer: socket.socket, size: int) -> bytes:
    got = b""
    while len(got) < size:
        box.flush()
        got += peer.recv(65536)
    return got


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=200_000), min_size=1, max_size=5))
def test_everything_given_is_sent_in_order(parts: list[bytes]) -> None:
    box, peer = _pair()
    try:
        for part in parts:
            box.sendall(bytearray(part))  # a caller's buffer: copied, so reuse cannot change it
        expected = b"".join(parts)
        assert _read_all(box, peer, len(expected)) == expected
        assert box.flush() and not box.pending and box.buffered == 0
    finally:
        box.close()
        peer.close()


def test_a_file_range_is_sent_between_what_came_before_and_after(tmp_path: Path) -> None:
    path = tmp_path / "asset.js"
    content = os.urandom(3 * 1024 * 1024)
    path.write_bytes(content)
    box, peer = _pair()
    try:
        box.sendall(b"HEAD")
        with path.open("rb") as file:
            assert box.sendfile(file, 100, len(content) - 200) == len(content) - 200
        box.sendall(b"TAIL")  # the file is closed: the outbox keeps a descriptor of its own
        expected = b"HEAD" + content[100:-100] + b"TAIL"
        assert _read_all(box, peer, len(expected)) == expected
    finally:
        box.close()
        peer.close()


def test_a_connection_closed_with_an_answer_pending_releases_its_file(tmp_path: Path) -> None:
    path = tmp_path / "asset.js"
    path.write_bytes(b"x" * (4 * 1024 * 1024))
    box, peer = _pair()
    before = len(os.listdir("/proc/self/fd"))
    with path.open("rb") as file:
        box.sendfile(file, 0, 4 * 1024 * 1024)
    assert box.pending
    box.close()
    peer.close()
    assert len(os.listdir("/proc/self/fd")) == before - 2  # both sockets, and the duplicate


def test_send_takes_everything_and_sendfile_defaults_to_the_rest_of_the_file(
    tmp_path: Path,
) -> None:
    """gunicorn's callers use ``send`` for short writes and ``sendfile`` without a count."""
    path = tmp_path / "asset.css"
    path.write_bytes(b"0123456789")
    box, peer = _pair()
    try:
        assert box.send(b"abc") == 3
        with path.open("rb") as file:
            assert box.sendfile(file, 4) == 6
        assert _read_all(box, peer, 9) == b"abc456789"
        assert box.gettimeout() == 0.0 and box.fileno() == box.sock.fileno()
    finally:
        box.close()
        peer.close()
