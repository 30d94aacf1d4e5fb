"""A JSON request body, read from the stream once and parsed once, or the problem that refuses it.

The road (``road.py``) calls ``read`` then ``parse``, and keeps what they return: nothing is put
back for a second reader. Reading goes through Werkzeug's ``get_input_stream`` (the limits Flask
itself would apply); parsing is ``contract.reading``'s, which the command line shares, so both
refuse the same texts with the same problem.
"""

from __future__ import annotations

from typing import Any, Final

from werkzeug.exceptions import ClientDisconnected, HTTPException, RequestEntityTooLarge
from werkzeug.wsgi import get_input_stream

from quart_bezique.api.contract.i18n import N_
from quart_bezique.api.contract.problems import (
    HTTP_ERROR,
    REQUEST_TIMEOUT,
    UNSUPPORTED_MEDIA_TYPE,
    Problem,
    quoting,
)
from quart_bezique.api.contract.reading import decode, refuse_repeated, repeats_a_key, too_large
from quart_bezique.api.envelope.exchange import Exchange

JSON_MEDIA_TYPE: Final = "application/json"
_CLOSE: Final = {"Connection": "close"}
_UNREADABLE: Final = N_("the body could not be read: its chunked transfer coding is malformed")


def read(environ: dict[str, Any], exchange: Exchange, max_body: int) -> bytes:
    """The whole body of a request sent as ``application/json``, or a problem: 415 (another
    media type), 413 (over ``max_body``), 408 (cut by the body deadline), 400 (chunked framing
    the server cannot read, or fewer bytes than ``Content-Length`` declares)."""
    media = environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower()
    if media != JSON_MEDIA_TYPE:
        if media:
            detail = N_("the body must be sent as {expected}; it was sent as {media}")
        else:
            detail = N_("the body must be sent as {expected}; no Content-Type header was sent")
        raise Problem(
            UNSUPPORTED_MEDIA_TYPE,
            quoting(detail, {"expected": JSON_MEDIA_TYPE, "media": media}),  # the header: data
            headers={"Accept-Post": JSON_MEDIA_TYPE},
        )
    try:
        data = _take(environ, max_body)
    except RequestEntityTooLarge:
        raise too_large(max_body) from None
    except ClientDisconnected as error:
        if not exchange.timed_out:
            raise _http_problem(error) from None
        data = b""
    except HTTPException as error:  # pragma: no cover - Werkzeug's reader raises only the above
        raise _http_problem(error) from None
    except Exception:  # the server's reader refused the framing (a chunk size that is no number)
        raise Problem(
            HTTP_ERROR,
            _UNREADABLE,
            status=400,
            title=N_("Bad Request"),
            headers={"Connection": "close"},
        ) from None
    if exchange.timed_out:  # cut by ``deadline``: what came is partial
        raise Problem(
            REQUEST_TIMEOUT, N_("the body did not arrive in time"), headers={"Connection": "close"}
        )
    if len(data) >= max_body:
        _refuse_streamed_excess(environ, max_body)
    _refuse_short_body(len(data), environ.get("CONTENT_LENGTH", ""))
    exchange.received = True
    return data


def _take(environ: dict[str, Any], max_body: int) -> bytes:
    """The body's bytes as Werkzeug's reader would give them (its limits, its disconnect), read
    with one call when the length is declared: most requests, and the cheapest way to read them."""
    length: str = environ.get("CONTENT_LENGTH", "")
    if not (length.isascii() and length.isdigit()) or "HTTP_TRANSFER_ENCODING" in environ:
        data: bytes = get_input_stream(environ, max_content_length=max_body).read()
        return data
    size = int(length)
    if size > max_body:
        raise RequestEntityTooLarge()
    data = environ["wsgi.input"].read(size) if size else b""
    # A server that ends the stream itself (gunicorn) has given all there is: the caller refuses
    # a short body. Otherwise the stream stopped early: the client went away.
    if len(data) < size and "wsgi.input_terminated" not in environ:
        raise ClientDisconnected()
    return data


def _http_problem(error: HTTPException) -> Problem:
    return Problem(
        HTTP_ERROR, error.description or error.name, status=error.code or 400, title=error.name
    )


def parse(data: bytes) -> tuple[Any, bytes]:
    """The parsed body and its serialisation with sorted keys (its canonical form when it holds
    no card alias), or a problem: 400 when it is not JSON or repeats a key in one object. The
    caller has bounded its values (``budget.refuse_excess``) before any decoder saw it."""
    body, sorted_text = decode(data)
    # Duplicate keys: the text has more colons than its re-serialisation (``repeats_a_key``).
    if repeats_a_key(data, sorted_text.count(b":")):
        del body, sorted_text  # the exact (slower) check names the key: never two parses held
        refuse_repeated(data)
    return body, sorted_text


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
            title=N_("Bad Request"),
            headers={"Connection": "close"},
        )  # fmt: skip


def _refuse_streamed_excess(environ: dict[str, Any], max_body: int) -> None:
    """A body sent without ``Content-Length`` (chunked) stops being read at the limit, and is
    then the first ``max_body`` bytes as if they were the whole body. One more byte from the
    server's stream tells a body of exactly the limit from a longer one: 413."""
    if environ.get("CONTENT_LENGTH"):
        return  # a declared length over the limit was refused before reading
    stream = environ.get("wsgi.input")
    if stream is not None and stream.read(1):
        raise too_large(max_body)
