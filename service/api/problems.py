"""RFC 9457 problem documents: the one place where every refusal is shaped.

Every rejected request gets ``application/problem+json`` with ``type``, ``title``, ``status``,
``detail`` and a stable machine-readable ``code``; validation problems add ``errors``, a list of
``{"pointer": RFC 6901 JSON pointer into the request body, "message": ...}`` (plus the core's
``code`` when a rule, not the schema, refused the value).

Problem types are URNs (``urn:quart-bezique:problem:<slug>``) so they never point at a host the
client cannot reach; each is listed in ``PROBLEM_TYPES`` and documented in ``openapi.yaml``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Final

import orjson
from flask import Response

from service.game.errors import PathElement, RulesError

from .error_codes import code_of
from .exchange import current

PROBLEM_MEDIA_TYPE: Final = "application/problem+json"
TYPE_PREFIX: Final = "urn:quart-bezique:problem:"
MAX_REPORTED_ERRORS: Final = 50
"""A request with thousands of bad fields gets the first 50: enough to fix, bounded to send."""
MAX_EXPLAINED_ERRORS: Final = 500
"""Errors validation builds before it stops looking (``guard.explain``): up to this many, the
detail counts every error; a body with more is told the count is not complete. Some 15 ms of
marshmallow's work, where 10,000 bad hands would take it a second."""
MAX_REPORTED_TEXT: Final = 300
"""Longest pointer or message reported: a 1 MB key or card string is not echoed back whole."""


@dataclass(frozen=True, slots=True)
class ProblemType:
    """A documented kind of refusal: its URN slug, human title, HTTP status and stable code."""

    slug: str
    title: str
    status: int
    code: str

    @property
    def uri(self) -> str:
        return TYPE_PREFIX + self.slug


MALFORMED_JSON: Final = ProblemType("malformed-json", "Malformed JSON", 400, "MALFORMED_JSON")
NOT_FOUND: Final = ProblemType("not-found", "Not Found", 404, "NOT_FOUND")
METHOD_NOT_ALLOWED: Final = ProblemType(
    "method-not-allowed", "Method Not Allowed", 405, "METHOD_NOT_ALLOWED"
)
BODY_TOO_LARGE: Final = ProblemType("body-too-large", "Content Too Large", 413, "BODY_TOO_LARGE")
UNSUPPORTED_MEDIA_TYPE: Final = ProblemType(
    "unsupported-media-type", "Unsupported Media Type", 415, "UNSUPPORTED_MEDIA_TYPE"
)
VALIDATION_ERROR: Final = ProblemType(
    "validation-error", "Invalid request", 422, "VALIDATION_ERROR"
)
RULES_VIOLATION: Final = ProblemType(
    "rules-violation", "Refused by the rules", 422, "RULES_VIOLATION"
)
"""A well-formed request the rules refuse; ``code`` is then the core's own code."""
HTTP_ERROR: Final = ProblemType("http-error", "HTTP error", 400, "HTTP_ERROR")
"""Any other HTTP-level refusal (title and status then come from the HTTP status)."""
INTERNAL_ERROR: Final = ProblemType(
    "internal-error", "Internal Server Error", 500, "INTERNAL_ERROR"
)
NOT_READY: Final = ProblemType("not-ready", "Service Unavailable", 503, "NOT_READY")
REQUEST_TIMEOUT: Final = ProblemType("request-timeout", "Request Timeout", 408, "REQUEST_TIMEOUT")
"""The body did not arrive within ``BODY_READ_TIMEOUT`` (the connection is then closed)."""
UNAUTHORIZED: Final = ProblemType("unauthorized", "Unauthorized", 401, "UNAUTHORIZED")
"""No API key, or not a configured one (only when API keys are configured; see ``auth.py``)."""
AUDIT_UNAVAILABLE: Final = ProblemType(
    "audit-unavailable", "Service Unavailable", 503, "AUDIT_UNAVAILABLE"
)
"""The verdict was reached but its audit line could not be recorded: it is withheld (retry)."""

PROBLEM_TYPES: Final[tuple[ProblemType, ...]] = (
    MALFORMED_JSON,
    UNAUTHORIZED,
    NOT_FOUND,
    REQUEST_TIMEOUT,
    METHOD_NOT_ALLOWED,
    BODY_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    VALIDATION_ERROR,
    RULES_VIOLATION,
    HTTP_ERROR,
    INTERNAL_ERROR,
    NOT_READY,
    AUDIT_UNAVAILABLE,
)


def json_pointer(path: Iterable[PathElement]) -> str:
    """RFC 6901 pointer of a path of keys and indexes (``""`` is the whole document)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


class Problem(Exception):
    """Raise anywhere in a request to answer with a problem document (see ``render``)."""

    def __init__(
        self,
        kind: ProblemType,
        detail: str,
        *,
        status: int | None = None,
        title: str | None = None,
        code: str | None = None,
        errors: Sequence[Mapping[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status if status is not None else kind.status
        self.title = title if title is not None else kind.title
        self.code = code if code is not None else kind.code
        self.errors = list(errors) if errors is not None else None
        self.headers = dict(headers) if headers is not None else {}

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "type": self.kind.uri,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.errors is not None:
            doc["errors"] = self.errors[:MAX_REPORTED_ERRORS]
        return doc

    def prepared(self) -> tuple[str, list[tuple[str, str]], bytes]:
        """The problem as a WSGI status line, headers and body, for answers the envelope gives
        itself without entering Flask (the 401, the withheld verdict): the same document and
        headers ``response`` gives, made once at start-up."""
        body = orjson.dumps(self.document())
        headers = [
            ("Content-Type", PROBLEM_MEDIA_TYPE),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            *self.headers.items(),
        ]
        return f"{self.status} {HTTPStatus(self.status).phrase}", headers, body

    def response(self) -> Response:
        """The problem as a response (``observe`` adds the headers every response carries)."""
        exchange = current()
        if exchange is not None:
            exchange.code = self.code
        headers = {"Cache-Control": "no-store"}
        headers.update(self.headers)
        return Response(
            orjson.dumps(self.document()),
            status=self.status,
            headers=headers,
            content_type=PROBLEM_MEDIA_TYPE,
        )


def _flatten(messages: object, pointer: str, out: list[dict[str, str]]) -> None:
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            child = pointer if key == "_schema" else pointer + json_pointer((key,))
            _flatten(value, child, out)
    elif isinstance(messages, list | tuple):
        for item in messages:
            _flatten(item, pointer, out)
    else:
        out.append(
            {"pointer": _clip(pointer), "message": _clip(str(messages)), "code": code_of(messages)}
        )


def _clip(text: str) -> str:
    return text if len(text) <= MAX_REPORTED_TEXT else text[: MAX_REPORTED_TEXT - 1] + "…"


def validation_problem(
    messages: object, prefix: Sequence[PathElement] = (), *, truncated: bool = False
) -> Problem:
    """A 422 naming every field marshmallow refused (``messages``: ``ValidationError.messages``).

    ``truncated``: validation stopped once ``MAX_EXPLAINED_ERRORS`` were found (``guard``), so the
    count in ``detail`` is a lower bound and says so."""
    errors: list[dict[str, str]] = []
    _flatten(messages, json_pointer(prefix), errors)
    errors.sort(key=lambda e: e["pointer"])
    count = len(errors)
    first = errors[0] if errors else {"pointer": "", "message": "invalid request"}
    where = first["pointer"] or "the body"
    if truncated:
        more = f" (and {count - 1} more listed; validation stopped there, others were not sought)"
    else:
        more = f" (and {count - 1} more)" if count > 1 else ""
    return Problem(
        VALIDATION_ERROR,
        f"{where}: {first['message']}{more}",
        errors=errors,
    )


def rules_problem(error: RulesError, prefix: Sequence[PathElement] = ()) -> Problem:
    """A 422 for input the rules refuse, carrying the core's code and a pointer into the body.

    ``prefix`` is where the input given to the core sits in the request body.
    """
    pointer = _clip(json_pointer((*prefix, *error.path)))
    return Problem(
        RULES_VIOLATION,
        _clip(error.message),
        code=error.code,
        errors=[{"pointer": pointer, "message": _clip(error.message), "code": error.code}],
    )
