"""Where a request head ends, and which refusal an overlong one gets.

The worker collects a request head in its poller before any thread sees the connection; it must
know where the head ends (its length is then checked exactly against ``HEAD_MAX_BYTES``, however
the bytes were segmented) and when it can no longer become acceptable (refused at once). A head
that arrives whole goes straight to gunicorn's parser, so the poller refuses a request line early
only when that parser would refuse it, reading ``LIMIT_REQUEST_LINE`` as gunicorn does: above 8190,
8190; 0, no line limit, the head's own limit then bounding the line (431). Otherwise one request
would get two answers, depending on how its bytes were segmented.
"""

from __future__ import annotations

from typing import Any

from quart_bezique.server.gunicorn_internals import head_too_large, line_too_long

HEAD_END = b"\r\n\r\n"
MAX_REQUEST_LINE = 8190
"""gunicorn's longest request line, whatever ``limit_request_line`` asks for."""


def head_end(head: bytes | bytearray, new_bytes: int) -> int:
    """The length of the request head at the start of ``head`` (its empty line included), or -1
    while it is incomplete. Only the last ``new_bytes`` (and the three before them) are searched,
    so a head trickled byte by byte costs linear time, not quadratic; the caller calls it each
    time bytes arrive, so an end before those was found earlier. A request without fields
    (``GET / HTTP/1.0`` then an empty line) ends the same way."""
    start = max(0, len(head) - new_bytes - len(HEAD_END) + 1)
    found = head.find(HEAD_END, start)
    return found + len(HEAD_END) if found >= 0 else -1


def line_limit(cfg: Any) -> int | None:
    """The request-line limit gunicorn's parser applies, or None when it applies none (a
    ``limit_request_line`` of 0, which its parser reads as no limit)."""
    limit = int(cfg.limit_request_line)
    if limit == 0:
        return None
    return MAX_REQUEST_LINE if limit < 0 or limit > MAX_REQUEST_LINE else limit


def overflow(head: bytes | bytearray, max_bytes: int, cfg: Any) -> Exception | None:
    """The refusal for a head that cannot end acceptably any more, or None while it still can:
    a request line longer than gunicorn allows is a 414 (as gunicorn's parser says; none when it
    allows any length), a head longer than ``max_bytes`` a 431. Field-level limits are left to
    gunicorn's parser, which sees the complete head."""
    limit = line_limit(cfg)
    if limit is not None and head.find(b"\r\n", 0, limit + 3) < 0 and len(head) > limit + 2:
        return line_too_long(len(head), limit)
    if len(head) > max_bytes:
        return head_too_large(f"request head over {max_bytes} bytes")
    return None
