"""Where a request head ends, and which refusal an overlong one gets.

The worker collects a request head in its poller before any thread sees the connection; it must
know where the head ends (its length is then checked exactly against ``HEAD_MAX_BYTES``, however
the bytes were segmented) and when it can no longer become acceptable (refused at once).
"""

from __future__ import annotations

from typing import Any

from quart_bezique.server.gunicorn_internals import head_too_large, line_too_long

HEAD_END = b"\r\n\r\n"


def head_end(head: bytes | bytearray, new_bytes: int) -> int:
    """The length of the request head at the start of ``head`` (its empty line included), or -1
    while it is incomplete. Only the last ``new_bytes`` (and the three before them) are searched,
    so a head trickled byte by byte costs linear time, not quadratic; the caller calls it each
    time bytes arrive, so an end before those was found earlier. A request without fields
    (``GET / HTTP/1.0`` then an empty line) ends the same way."""
    start = max(0, len(head) - new_bytes - len(HEAD_END) + 1)
    found = head.find(HEAD_END, start)
    return found + len(HEAD_END) if found >= 0 else -1


def line_limit(cfg: Any) -> int:
    """gunicorn's effective request-line limit (0 means its own maximum, as its parser does)."""
    limit = int(cfg.limit_request_line)
    return 8190 if limit <= 0 or limit > 8190 else limit


def overflow(head: bytes | bytearray, max_bytes: int, cfg: Any) -> Exception | None:
    """The refusal for a head that cannot end acceptably any more, or None while it still can:
    a request line longer than gunicorn allows is a 414 (as gunicorn's parser says), a head
    longer than ``max_bytes`` a 431. Field-level limits are left to gunicorn's parser, which
    sees the complete head."""
    limit = line_limit(cfg)
    line_end = head.find(b"\r\n", 0, limit + 3)
    if line_end < 0 and len(head) > limit + 2:
        return line_too_long(len(head), limit)
    if len(head) > max_bytes:
        return head_too_large(f"request head over {max_bytes} bytes")
    return None
