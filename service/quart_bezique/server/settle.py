"""Whether a request's body is off the wire before its answer is sent.

A connection can only serve another request if the previous body has been read to its end. When
the app answered without reading it all (413, 415, 401, 408), the rest is discarded here if it
has already arrived (gunicorn's read-ahead, then the socket, read without blocking): that costs
no waiting. Otherwise the answer must say ``Connection: close`` -- gunicorn would otherwise announce
keep-alive, give up draining later and close, and a pooled client would fail its next request.
"""

from __future__ import annotations

import socket
from typing import Any

from quart_bezique.server.gunicorn_internals import ChunkedBody, SizedBody

SETTLE_MAX_BYTES = 64 * 1024
"""Most unread body bytes discarded to keep a connection: more is not worth a thread's time."""


def settle_body(req: Any, sock: socket.socket) -> bool:
    """Discard what is left of ``req``'s body if it is all here already; True when the body is
    then completely read (the connection may be kept), False when it is not (it must close)."""
    body = req.body
    if body is None:
        return True
    if getattr(body, "failed", False):
        return False  # a read raised: where the next request starts is unknown
    reader = body.reader
    if isinstance(reader, ChunkedBody):
        return reader.parser is None
    if not isinstance(reader, SizedBody):
        return False
    if reader.length > SETTLE_MAX_BYTES:
        return False
    held = reader.unreader.take_buffered()
    taken = min(len(held), reader.length)
    reader.length -= taken
    if taken < len(held):
        reader.unreader.unread(held[taken:])  # the next request's bytes, pipelined
    return _discard_arrived(reader, sock)


def _discard_arrived(reader: Any, sock: socket.socket) -> bool:
    """Read the rest of a sized body from the socket as far as it has arrived, never waiting
    (never past the body's end: the next request may follow it)."""
    prior = sock.gettimeout()
    sock.setblocking(False)
    try:
        while reader.length > 0:
            try:
                data = sock.recv(min(reader.length, SETTLE_MAX_BYTES))
            except OSError:  # nothing more yet (EAGAIN), or the connection is gone
                return False
            if not data:
                return False  # the client closed, or the body deadline shut the read side
            reader.length -= len(data)
        return True
    finally:
        sock.settimeout(prior)
