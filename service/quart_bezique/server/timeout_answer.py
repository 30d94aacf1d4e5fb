"""The 408 sent, from the poller, to a client whose request head or body did not arrive in time.

The app never sees such a request, so the problem document is prepared here, as bytes; it is the
app's own ``REQUEST_TIMEOUT`` problem type (``service/quart_bezique/api/contract/problems.py``,
which this package does not import: it is loaded in the master before the app, and must not pull
Flask in with it). ``tests/security/test_slow_clients.py`` checks that the two agree.
"""

from __future__ import annotations

from typing import Final

import orjson

PROBLEM: Final = {
    "type": "urn:quart-bezique:problem:request-timeout",
    "title": "Request Timeout",
    "status": 408,
    "detail": "the request head did not arrive in time",
    "code": "REQUEST_TIMEOUT",
}

BODY_DETAIL: Final = "the body did not arrive in time"
"""The app's own wording for a late body (``service/quart_bezique/api/envelope/body.py``)."""


def _answer(problem: dict[str, object]) -> bytes:
    body = orjson.dumps(problem)
    return (
        b"HTTP/1.1 408 Request Timeout\r\n"
        b"Content-Type: application/problem+json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n"
        b"Cache-Control: no-store\r\n"
        b"X-Content-Type-Options: nosniff\r\n"
        b"Connection: close\r\n"
        b"\r\n" + body
    )


REQUEST_TIMEOUT_ANSWER: Final = _answer(PROBLEM)
BODY_TIMEOUT_ANSWER: Final = _answer({**PROBLEM, "detail": BODY_DETAIL})
