"""The two ends of every JSON endpoint: read the body, write the answer. Kept minimal: these run on
every request, so each does its one job with as few calls as possible.
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from flask import Response, request
from marshmallow import Schema, ValidationError

from .problems import MALFORMED_JSON, UNSUPPORTED_MEDIA_TYPE, Problem, validation_problem

JSON_MEDIA_TYPE: Final = "application/json"
_VERDICT_HEADERS: Final = (("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"))
_STATIC_HEADERS: Final = (("X-Content-Type-Options", "nosniff"),)


def read_json() -> Any:
    """The request body parsed as JSON, or a problem: 415 (not ``application/json``), 413 (over
    ``MAX_CONTENT_LENGTH``, raised by Werkzeug while reading), 400 (not valid JSON, not UTF-8,
    NaN/Infinity, integers beyond 64 bits, nesting deeper than orjson's limit)."""
    content_type = request.environ.get("CONTENT_TYPE", "")
    media = content_type.partition(";")[0].strip().lower()
    if media != JSON_MEDIA_TYPE:
        shown = media or "none"
        raise Problem(
            UNSUPPORTED_MEDIA_TYPE,
            f"the body must be sent as {JSON_MEDIA_TYPE}, not {shown}",
            headers={"Accept-Post": JSON_MEDIA_TYPE},
        )
    data = request.get_data(cache=False)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise Problem(MALFORMED_JSON, f"the body is not valid JSON: {exc}") from None


def load(schema: Schema, body: Any) -> Any:
    """Validate ``body`` with a marshmallow schema: the loaded data, or a 422 naming each field."""
    try:
        return schema.load(body)
    except ValidationError as error:
        raise validation_problem(error.messages) from None


def json_response(payload: object, status: int = 200) -> Response:
    """A verdict: JSON, never cached (each answer is about one request's body)."""
    return Response(
        orjson.dumps(payload),
        status=status,
        headers=_VERDICT_HEADERS,
        content_type=JSON_MEDIA_TYPE,
    )


def static_json_response(body: bytes) -> Response:
    """Pre-serialised JSON that never changes while the process lives (rules, spec, health)."""
    return Response(body, headers=_STATIC_HEADERS, content_type=JSON_MEDIA_TYPE)
