"""Error handlers: whatever goes wrong, the client gets a problem document, never HTML or trace."""

from __future__ import annotations

import logging

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from .config import Config
from .problems import (
    BODY_TOO_LARGE,
    HTTP_ERROR,
    INTERNAL_ERROR,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    UNSUPPORTED_MEDIA_TYPE,
    Problem,
)

log = logging.getLogger("service.api")


def _http_problem(error: HTTPException, config: Config) -> Problem:
    status = error.code or 500
    if status == 404:
        return Problem(NOT_FOUND, f"no resource at {request.path}")
    if isinstance(error, MethodNotAllowed):
        allowed = sorted(set(error.valid_methods or ()))
        return Problem(
            METHOD_NOT_ALLOWED,
            f"{request.method} is not allowed on {request.path}; allowed: {', '.join(allowed)}",
            headers={"Allow": ", ".join(allowed)},
        )
    if status == 413:
        return Problem(
            BODY_TOO_LARGE, f"the body is larger than the limit of {config.max_body_bytes} bytes"
        )
    if status == 415:
        return Problem(UNSUPPORTED_MEDIA_TYPE, "the body must be sent as application/json")
    if status >= 500:
        return Problem(INTERNAL_ERROR, "the server could not answer", status=status)
    return Problem(HTTP_ERROR, error.description or error.name, status=status, title=error.name)


def register(app: Flask, config: Config) -> None:
    @app.errorhandler(Problem)
    def _problem(error: Problem) -> Response:
        return error.response()

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        return _http_problem(error, config).response()

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return Problem(
            INTERNAL_ERROR, "the server could not answer; the error is logged"
        ).response()
