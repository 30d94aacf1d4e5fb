"""Pre-dispatch of a JSON endpoint's happy path, without entering Flask.

Most of a cheap request's cost is Flask's own (request context, URL matching, Request and Response
objects). The WSGI wrapper (``envelope/middleware.py``) therefore offers a request on a route with
a shortcut to it first, inside the envelope (request id, API key, security headers, metrics, audit
line and body deadline all apply as ever). A ``JsonShortcut`` takes only the exact happy path: a
POST with a declared ``Content-Length`` within the limit, a JSON content type as ``read_json``
accepts it, a body ``read_json`` accepts, which the route's ``check`` (its schema's derived check,
``checks.derive``) accepts and its ``handle`` turns into a payload without raising. It then
answers what the view would (``http.json_response``), byte for byte and header for header, with
the same audit bookkeeping (``Exchange.answered``); ``tests/api/test_api_shortcut*.py`` compare
the two. Anything else, the slightest doubt included, returns None with the body put back and the
exchange as it was, and Flask serves the request as if the shortcut were not there: every refusal
is Flask's.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, Final
from wsgiref.types import WSGIEnvironment

import orjson

from service.api.contract.problems import Problem
from service.api.envelope.body import JSON_MEDIA_TYPE, parse
from service.api.envelope.exchange import Exchange

_HEADERS: Final = (("Cache-Control", "no-store"), ("Content-Type", JSON_MEDIA_TYPE))
"""What ``json_response`` answers with, in Werkzeug's order (Content-Length follows)."""


class _Replay:
    """The body's stream for Flask when the shortcut declines: the bytes already read, then the
    rest of the real stream, or the failure the real stream raised (Flask meets the same)."""

    __slots__ = ("_error", "_head", "_rest")

    def __init__(self, head: bytes, rest: Any, error: BaseException | None = None) -> None:
        self._head = io.BytesIO(head)
        self._rest = rest
        self._error = error

    def read(self, size: int = -1) -> bytes:
        chunk = self._head.read(size)
        if chunk:
            return chunk
        if self._error is not None:
            raise self._error
        data: bytes = self._rest.read(size)
        return data

    def readline(self, size: int = -1) -> bytes:  # pragma: no cover - Werkzeug reads in blocks
        return self.read(size)


class JsonShortcut:
    """A route's happy path: ``check(body)`` must accept the parsed body (the view's fast check:
    whatever it refuses goes to the schema, in Flask) and ``handle(body)`` return the payload the
    view would answer 200 with. ``handle`` may raise (a rules error the view turns into a 422, or
    anything else) or return None: either way Flask answers instead."""

    __slots__ = ("_check", "_handle", "_max_body")

    def __init__(
        self,
        max_body: int | None,
        check: Callable[[Any], bool],
        handle: Callable[[Any], dict[str, Any] | None],
    ) -> None:
        self._max_body = max_body
        self._check = check
        self._handle = handle

    def __call__(
        self, environ: WSGIEnvironment, exchange: Exchange
    ) -> tuple[list[tuple[str, str]], bytes] | None:
        """The answer's headers (before the envelope's) and body, or None: let Flask answer."""
        data = take_body(environ, exchange, self._max_body)
        if data is None:
            return None
        try:
            answer = self._answer(data, exchange)
        except Exception:
            answer = None
        if answer is None:
            put_back(environ, data, exchange)
            return None
        return [*_HEADERS, ("Content-Length", str(len(answer)))], answer

    def _answer(self, data: bytes, exchange: Exchange) -> bytes | None:
        exchange.received = True
        try:
            body = parse(data, exchange)
        except Problem:
            return None
        if not self._check(body):
            return None
        out = self._handle(body)
        if out is None:
            return None
        answer = orjson.dumps(out)
        exchange.answered(out, answer)
        return answer


def take_body(environ: WSGIEnvironment, exchange: Exchange, max_body: int | None) -> bytes | None:
    """The body of a POST on the exact happy path (a declared ``Content-Length`` under the limit,
    ``application/json``, no transfer coding, all of it arrived in time), or None with the stream
    left as Flask would find it. The caller that takes the bytes and then declines gives them
    back with ``put_back`` before anything reads ``request.stream``."""
    if environ.get("REQUEST_METHOD") != "POST":
        return None
    media = environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower()
    length: str = environ.get("CONTENT_LENGTH", "")
    if (
        media != JSON_MEDIA_TYPE
        or not (length.isascii() and length.isdigit())
        or "HTTP_TRANSFER_ENCODING" in environ
    ):
        return None
    size = int(length)
    if max_body is not None and size >= max_body:  # at the limit: read_json looks further
        return None
    stream = environ["wsgi.input"]
    try:
        data: bytes = stream.read(size) if size else b""
        # Werkzeug reads a stream the server terminates (gunicorn's) to its end: is it there?
        more: bytes = stream.read(1) if "wsgi.input_terminated" in environ else b""
    except Exception as error:  # the stream failed: Flask meets the same failure
        environ["wsgi.input"] = _Replay(b"", stream, error)
        return None
    if more or len(data) != size or exchange.timed_out:  # Flask finds the same
        environ["wsgi.input"] = _Replay(data + more, stream)
        return None
    return data


def put_back(environ: WSGIEnvironment, data: bytes, exchange: Exchange) -> None:
    """Undo ``take_body`` and whatever was recorded since: Flask reads the same bytes afresh."""
    environ["wsgi.input"] = io.BytesIO(data)
    exchange.reset()
