"""Error handlers: whatever goes wrong, the client gets a problem document, never HTML or trace."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Final

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed
from werkzeug.routing import Rule

from quart_bezique.api.config import Config
from quart_bezique.api.contract.i18n import N_
from quart_bezique.api.contract.problems import (
    HTTP_ERROR,
    INTERNAL_ERROR,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    UNSUPPORTED_MEDIA_TYPE,
    Problem,
    quoting,
)
from quart_bezique.api.contract.reading import too_large
from quart_bezique.api.envelope.exchange import current

log = logging.getLogger("quart_bezique.api")


def _http_problem(error: HTTPException, config: Config) -> Problem:
    status = error.code or 500
    # The request's path and method are quoted as data (``quoting``): clipped, never translated.
    if status == 404:
        suggestion = _known_spelling(request.path, current_app.url_map.iter_rules())
        path = _clip(request.path)
        if suggestion:
            detail = N_("no resource at {path}; did you mean {suggestion}?")
            return Problem(NOT_FOUND, quoting(detail, {"path": path, "suggestion": suggestion}))
        return Problem(NOT_FOUND, quoting(N_("no resource at {path}"), {"path": path}))
    if isinstance(error, MethodNotAllowed):
        allowed = ", ".join(sorted(set(error.valid_methods or ())))
        data = {"method": _clip(request.method), "path": _clip(request.path), "allowed": allowed}
        return Problem(
            METHOD_NOT_ALLOWED,
            quoting(N_("{method} is not allowed on {path}; allowed: {allowed}"), data),
            headers={"Allow": allowed},
        )
    if status == 413:
        return too_large(config.max_body_bytes)  # the command line's too (reading.py)
    if status == 415:
        return Problem(UNSUPPORTED_MEDIA_TYPE, N_("the body must be sent as application/json"))
    if status >= 500:
        return Problem(INTERNAL_ERROR, N_("the server could not answer"), status=status)
    return Problem(
        HTTP_ERROR,
        _HTTP_WORDS.get(status, _HTTP_OTHER),
        status=status,
        title=_HTTP_TITLE.get(status, HTTP_ERROR.title),
    )


_HTTP_TITLE: Final = {400: N_("Bad Request"), 431: N_("Request Header Fields Too Large")}
_HTTP_WORDS: Final = {
    400: N_("the request could not be read"),
    431: N_("a header of the request is too large"),
}
_HTTP_OTHER: Final = N_("the request could not be answered as sent")
"""Werkzeug's own descriptions are English prose; an HTTP refusal is worded here instead."""


_SHOWN_PATH: Final = 200


def _clip(path: str) -> str:
    return path if len(path) <= _SHOWN_PATH else path[: _SHOWN_PATH - 1] + "…"


def _known_spelling(path: str, rules: Iterable[Rule]) -> str | None:
    """The route a near-miss meant: the same path with its slashes tidied (no trailing slash,
    no repeats) or its case folded, when that is a route. Routes need their exact spelling
    (``routes.py``), so a 404 that names the right one saves the caller a trip to the docs."""
    tidy = "/" + "/".join(part for part in path.split("/") if part)
    candidates = (tidy, tidy.lower())
    for rule in rules:
        if not rule.arguments and rule.rule in candidates and rule.rule != path:
            return rule.rule
    return None


def _answer(problem: Problem) -> Response:
    """The problem as the answer, its code noted for the request's audit record and metrics."""
    exchange = current()
    if exchange is not None:
        exchange.code = problem.code
    return problem.response()


def register(app: Flask, config: Config) -> None:
    @app.errorhandler(Problem)
    def _problem(error: Problem) -> Response:
        return _answer(error)

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        return _answer(_http_problem(error, config))

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return _answer(
            Problem(INTERNAL_ERROR, N_("the server could not answer; the error is logged"))
        )
