"""The two ends of every JSON endpoint: read the body, write the answer. Kept minimal: these run on
every request, so each does its one job with as few calls as possible.

Both ends also hand what they hold to the request's ``Exchange`` (``exchange.py``) for its audit
record: references only, nothing is copied.
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from flask import Response, has_app_context, request
from werkzeug.exceptions import ClientDisconnected, HTTPException, RequestEntityTooLarge

from service.api.contract.i18n import N_
from service.api.contract.problems import (
    HTTP_ERROR,
    MALFORMED_JSON,
    REQUEST_TIMEOUT,
    UNSUPPORTED_MEDIA_TYPE,
    Detail,
    Problem,
)
from service.api.contract.reading import MAX_DEPTH as MAX_DEPTH
from service.api.contract.reading import decode, refuse_repeated, repeats_a_key
from service.api.contract.reading import load as load
from service.api.envelope.audit import residue
from service.api.envelope.budget import FIXED as FIXED_BUDGET
from service.api.envelope.budget import refuse_excess
from service.api.envelope.exchange import Exchange, current

JSON_MEDIA_TYPE: Final = "application/json"
_VERDICT_HEADERS: Final = (("Cache-Control", "no-store"),)


def read_json() -> Any:
    """The request body parsed as JSON, or a problem: 415 (not ``application/json``), 413 (over
    ``MAX_CONTENT_LENGTH``, raised by Werkzeug while reading), 400 (a body whose chunked framing the
    server cannot read; not valid JSON, not UTF-8,
    NaN/Infinity, integers beyond 64 bits, nesting deeper than ``MAX_DEPTH``, a key repeated in
    one object)."""
    content_type = request.environ.get("CONTENT_TYPE", "")
    media = content_type.partition(";")[0].strip().lower()
    if media != JSON_MEDIA_TYPE:
        if media:
            detail = N_("the body must be sent as {expected}; it was sent as {media}")
        else:
            detail = N_("the body must be sent as {expected}; no Content-Type header was sent")
        raise Problem(
            UNSUPPORTED_MEDIA_TYPE,
            Detail(detail, {"expected": JSON_MEDIA_TYPE, "media": media}),  # the header: data
            headers={"Accept-Post": JSON_MEDIA_TYPE},
        )
    exchange = current()
    try:
        data = request.get_data(cache=False)
    except ClientDisconnected:
        if exchange is None or not exchange.timed_out:
            raise
        data = b""
    except HTTPException:
        raise
    except Exception:  # the server's reader refused the framing (a chunk size that is no number)
        raise Problem(
            HTTP_ERROR,
            N_("the body could not be read: its chunked transfer coding is malformed"),
            status=400,
            title="Bad Request",
            headers={"Connection": "close"},
        ) from None
    if exchange is not None and exchange.timed_out:  # cut by ``deadline``: what came is partial
        raise Problem(
            REQUEST_TIMEOUT, N_("the body did not arrive in time"), headers={"Connection": "close"}
        )
    if len(data) >= (request.max_content_length or len(data) + 1):
        _refuse_streamed_excess(request.environ)
    _refuse_short_body(len(data), request.environ.get("CONTENT_LENGTH", ""))
    if exchange is not None:
        exchange.received = True
    return parse(data, exchange)


def parse(data: bytes, exchange: Exchange | None) -> Any:
    """What ``read_json`` does with the bytes once read: the parsed body or a 400 problem, with the
    exchange's bookkeeping for the audit record (also the pre-dispatch's, ``shortcut.py``).

    A body that may hold more values than the largest valid request is refused (413) before it is
    parsed: parsing it would cost more than any request may (``budget.py``)."""
    if len(data) > FIXED_BUDGET:
        refuse_excess(data, exchange)
    try:  # the reading the command line shares (``reading.py``)
        body, sorted_body = decode(data)
    except Problem:
        if exchange is not None:
            exchange.raw = data
        raise
    # Duplicate keys: the text has more colons than its re-serialisation (``repeats_a_key``).
    if exchange is None:
        colons = sorted_body.count(b":")
    else:
        exchange.body = body
        exchange.sorted_body = sorted_body
        if exchange.kind.batch:  # the residue keeps the colons: count them there (a third the size)
            exchange.residue = rest = residue(sorted_body)
            colons = rest.count(b":")
        else:
            colons = sorted_body.count(b":")
    if not repeats_a_key(data, colons):
        return body
    # A key repeated: the exact (slower) check names it. Only the raw bytes are recorded (there is
    # no canonical form to speak of), and the parse is let go first, so that the two parsers'
    # objects are never held at once.
    if exchange is not None:
        exchange.raw = data
        exchange.body = exchange.sorted_body = exchange.residue = None
    del body, sorted_body
    if not has_app_context():  # the pre-dispatch only declines: Flask's own parse names the key
        raise Problem(MALFORMED_JSON, N_("the body repeats a key in one object"))
    refuse_repeated(data)


def _refuse_short_body(received: int, declared: str) -> None:
    """A body that ends before its ``Content-Length`` (the client closed its side early) is an
    incomplete message (RFC 9112 §6.3), never judged: its verdict would be on bytes the client
    did not mean to be the whole request."""
    if declared.isdigit() and received < int(declared):
        raise Problem(
            HTTP_ERROR,
            N_("the body ended after {received} of the {declared} bytes its Content-Length "
               "declares").format(received=received, declared=int(declared)),
            status=400,
            title="Bad Request",
            headers={"Connection": "close"},
        )  # fmt: skip


def _refuse_streamed_excess(environ: dict[str, Any]) -> None:
    """A body sent without ``Content-Length`` (chunked) stops being read at the limit, and
    Werkzeug then hands over the first ``MAX_BODY_BYTES`` as if they were the whole body. One more
    byte from the server's stream tells a body of exactly the limit from a longer one: 413."""
    if environ.get("CONTENT_LENGTH"):
        return  # a declared length over the limit was refused before reading
    stream = environ.get("wsgi.input")
    if stream is not None and stream.read(1):
        raise RequestEntityTooLarge()


def json_response(payload: object, status: int = 200) -> Response:
    """A verdict: JSON, never cached (each answer is about one request's body)."""
    data = orjson.dumps(payload)
    exchange = current()
    if exchange is not None and status == 200:
        exchange.answered(payload, data)
    return Response(data, status=status, headers=_VERDICT_HEADERS, content_type=JSON_MEDIA_TYPE)


def static_json_response(body: bytes, *, no_store: bool = False) -> Response:
    """Pre-serialised JSON (rules, health); ``no_store`` for answers that may change (a probe's)."""
    return Response(
        body, headers=_VERDICT_HEADERS if no_store else None, content_type=JSON_MEDIA_TYPE
    )
