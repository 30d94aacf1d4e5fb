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
from typing import TYPE_CHECKING, Any, Final

import orjson

from quart_bezique.api.contract.error_codes import code_of
from quart_bezique.api.contract.i18n import ENGLISH, N_, NP_, negotiate
from quart_bezique.api.contract.i18n.translations import translations
from quart_bezique.game.errors import PathElement, RulesError, json_pointer
from quart_bezique.game.messages import Message, render

if TYPE_CHECKING:
    from flask import Response

PROBLEM_MEDIA_TYPE: Final = "application/problem+json"
TYPE_PREFIX: Final = "urn:quart-bezique:problem:"
MAX_REPORTED_ERRORS: Final = 50
"""A request with thousands of bad fields gets the first 50: enough to fix, bounded to send."""
MAX_EXPLAINED_ERRORS: Final = 500
"""Errors validation builds before it stops looking (``guard.explain``): up to this many, the
detail counts every error; a body with more is told the count is not complete. That keeps
marshmallow's work a small share of the request's budget, where explaining every error of 10,000
bad hands would take it far past that budget."""
MAX_REPORTED_TEXT: Final = 300
"""Longest pointer or message reported: a key or card string as long as the body allows is not
echoed back whole."""


@dataclass(frozen=True, slots=True)
class ProblemType:
    """A documented kind of refusal: its URN slug, human title, HTTP status and stable code, and
    when it is given. This is the one error table: the OpenAPI description and problem responses
    and the table of ``docs/api.md`` are generated from ``PROBLEM_TYPES``."""

    slug: str
    title: str
    status: int
    code: str
    when: str = ""
    shown_code: str = ""
    """How the tables show the code, when it is not this type's own (the core's codes)."""

    @property
    def uri(self) -> str:
        return TYPE_PREFIX + self.slug


MALFORMED_JSON: Final = ProblemType(
    "malformed-json",
    N_("Malformed JSON"),
    400,
    "MALFORMED_JSON",
    when=(
        "not JSON, not UTF-8, NaN/Infinity, numbers beyond a double, nesting deeper "
        "than 254, a key repeated in one object"
    ),
)
NOT_FOUND: Final = ProblemType(
    "not-found",
    N_("Not Found"),
    404,
    "NOT_FOUND",
    when=("no such path (a trailing slash is a different path)"),
)
METHOD_NOT_ALLOWED: Final = ProblemType(
    "method-not-allowed",
    N_("Method Not Allowed"),
    405,
    "METHOD_NOT_ALLOWED",
    when=("wrong method; `Allow` lists the right ones"),
)
BODY_TOO_LARGE: Final = ProblemType(
    "body-too-large",
    N_("Content Too Large"),
    413,
    "BODY_TOO_LARGE",
    when=(
        "body over `MAX_BODY_BYTES` (with or without `Content-Length`), or holding more "
        "JSON values than the largest valid request"
    ),
)
UNSUPPORTED_MEDIA_TYPE: Final = ProblemType(
    "unsupported-media-type",
    N_("Unsupported Media Type"),
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    when=("body not sent as `application/json`"),
)
VALIDATION_ERROR: Final = ProblemType(
    "validation-error",
    N_("Invalid request"),
    422,
    "VALIDATION_ERROR",
    when=(
        "JSON that the request schema refuses; `errors` has a pointer per bad field (at most 50)"
    ),
)
RULES_VIOLATION: Final = ProblemType(
    "rules-violation",
    N_("Refused by the rules"),
    422,
    "RULES_VIOLATION",
    when=(
        "well formed, but the rules refuse it: `SHOE_EXCEEDED`, `DEALER_NOT_SEATED`, "
        "`MAXIMUM_BELOW_MINIMUM`, `INVALID_AMOUNT` (antes beyond the pot limit), "
        "`ROUND_INVALID`, `ROUND_NOT_FINISHED`, `HANDS_MISMATCH`, ..."
    ),
    shown_code="the core's code",
)
"""A well-formed request the rules refuse; ``code`` is then the core's own code."""
HTTP_ERROR: Final = ProblemType(
    "http-error",
    N_("HTTP error"),
    400,
    "HTTP_ERROR",
    when=(
        "a chunked body whose framing cannot be read (a chunk size that is no number); "
        "the connection is closed"
    ),
)
"""Any other HTTP-level refusal (title and status then come from the HTTP status)."""
INTERNAL_ERROR: Final = ProblemType(
    "internal-error",
    N_("Internal Server Error"),
    500,
    "INTERNAL_ERROR",
    when=("a bug: logged with its traceback, never shown"),
)
NOT_READY: Final = ProblemType(
    "not-ready",
    N_("Service Unavailable"),
    503,
    "NOT_READY",
    when=("`/readyz` only: tables not built, shutting down, or the audit log not keeping up"),
)
REQUEST_TIMEOUT: Final = ProblemType(
    "request-timeout",
    N_("Request Timeout"),
    408,
    "REQUEST_TIMEOUT",
    when=(
        "the body did not arrive within `BODY_READ_TIMEOUT` (under gunicorn); the "
        "connection is closed"
    ),
)
"""The body did not arrive within ``BODY_READ_TIMEOUT`` (the connection is then closed)."""
UNAUTHORIZED: Final = ProblemType(
    "unauthorized",
    N_("Unauthorized"),
    401,
    "UNAUTHORIZED",
    when=("API keys configured and none or a wrong one sent; `WWW-Authenticate: Bearer ...`"),
)
"""No API key, or not a configured one (only when API keys are configured; see ``auth.py``)."""
AUDIT_UNAVAILABLE: Final = ProblemType(
    "audit-unavailable",
    N_("Service Unavailable"),
    503,
    "AUDIT_UNAVAILABLE",
    when=(
        "a verdict was reached but its audit line could not be recorded: it is "
        "withheld; `Retry-After: 1`"
    ),
)
"""The verdict was reached but its audit line could not be recorded: it is withheld (retry)."""

PROBLEM_TYPES: Final[tuple[ProblemType, ...]] = (
    MALFORMED_JSON,
    UNAUTHORIZED,
    NOT_FOUND,
    METHOD_NOT_ALLOWED,
    REQUEST_TIMEOUT,
    BODY_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    VALIDATION_ERROR,
    RULES_VIOLATION,
    HTTP_ERROR,
    INTERNAL_ERROR,
    NOT_READY,
    AUDIT_UNAVAILABLE,
)


def quoting(
    template: Message, data: Mapping[str, object], messages: Mapping[str, str] | None = None
) -> Message:
    """A detail quoting the request: ``data`` (a path, a method, a header's value, a key the
    client wrote) is shown as it is, clipped to ``MAX_REPORTED_TEXT`` and never translated;
    ``messages`` are messages of their own, rendered in the answer's language."""
    shown = {name: _clip(str(value)) for name, value in data.items()}
    return template.format(**shown, **(messages or {}))


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
        """``detail`` and each error's ``message``: a ``Message`` (rendered in the answer's
        language from its template) or text shown as it is."""
        super().__init__(detail)
        self.detail = detail
        self.kind = kind
        self.status = status if status is not None else kind.status
        self.title = title if title is not None else kind.title
        self.code = code if code is not None else kind.code
        self.errors = list(errors) if errors is not None else None
        self.headers = dict(headers) if headers is not None else {}

    def document(self, language: str = ENGLISH) -> dict[str, Any]:
        """The problem document, in ``language``: ``title``, ``detail`` and each error's
        ``message`` are rendered in it; ``type``, ``code``, ``status`` and pointers never are."""
        words = translations(language)
        doc: dict[str, Any] = {
            "type": self.kind.uri,
            "title": render(self.title, words),
            "status": self.status,
            "detail": _clip_detail(render(self.detail, words)),
            "code": self.code,
        }
        if self.errors is not None:
            doc["errors"] = [
                {**error, "message": _clip(render(error["message"], words))}
                for error in self.errors[:MAX_REPORTED_ERRORS]
            ]
        return doc

    def prepared(self, language: str = ENGLISH) -> tuple[str, list[tuple[str, str]], bytes]:
        """The problem as a WSGI status line, headers and body, for answers the envelope gives
        itself without entering Flask (the 401, the withheld verdict): the same document and
        headers ``response`` gives, made once at start-up (once per language)."""
        body = orjson.dumps(self.document(language))
        headers = [
            ("Content-Type", PROBLEM_MEDIA_TYPE),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("Content-Language", language),
            ("Vary", "Accept-Language"),
            *self.headers.items(),
        ]
        return f"{self.status} {HTTPStatus(self.status).phrase}", headers, body

    def response(self) -> Response:
        """The problem as a response (the envelope adds the headers every response carries).
        Flask is imported here, not above: the contract is read by the command line too."""
        from flask import Response, has_request_context, request

        language = (
            negotiate(request.environ.get("HTTP_ACCEPT_LANGUAGE"))
            if has_request_context()
            else ENGLISH
        )
        headers = {
            "Cache-Control": "no-store",
            "Content-Language": language,
            "Vary": "Accept-Language",
        }
        headers.update(self.headers)
        return Response(
            orjson.dumps(self.document(language)),
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
        out.append({"pointer": _clip(pointer), "message": messages, "code": code_of(messages)})  # type: ignore[dict-item]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_REPORTED_TEXT else text[: MAX_REPORTED_TEXT - 1] + "…"


def _clip_detail(text: str) -> str:
    """A detail quotes one error's message after its pointer: room for both."""
    limit = 2 * MAX_REPORTED_TEXT
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    first: Mapping[str, str] = (
        errors[0] if errors else {"pointer": "", "message": N_("the request is not valid")}
    )
    where: str = _clip(first["pointer"]) if first["pointer"] else N_("the body")
    more = count - 1
    if truncated:
        template = NP_(
            "{where}: {message} (and {count} more listed; the check stopped there, others "
            "were not sought)",
            "{where}: {message} (and {count} more listed; the check stopped there, others "
            "were not sought)",
            "count",
        )
    elif more:
        template = NP_(
            "{where}: {message} (and {count} more)",
            "{where}: {message} (and {count} more)",
            "count",
        )
    else:
        template = N_("{where}: {message}")
    detail = template.format(where=where, message=first["message"], count=more)
    return Problem(VALIDATION_ERROR, detail, errors=errors)


def rules_problem(error: RulesError, prefix: Sequence[PathElement] = ()) -> Problem:
    """A 422 for input the rules refuse, carrying the core's code and a pointer into the body.

    ``prefix`` is where the input given to the core sits in the request body.
    """
    pointer = _clip(json_pointer((*prefix, *error.path)))
    return Problem(
        RULES_VIOLATION,
        error.message,
        code=error.code,
        errors=[{"pointer": pointer, "message": error.message, "code": error.code}],
    )


def problem_table() -> str:
    """``PROBLEM_TYPES`` as the Markdown table ``docs/api.md`` shows (a test keeps it there)."""
    rows = [
        "| status | type (`urn:quart-bezique:problem:...`) | code | when |",
        "|---|---|---|---|",
    ]
    rows.extend(
        f"| {kind.status} | `{kind.slug}` | {shown_code(kind)} | {kind.when} |"
        for kind in PROBLEM_TYPES
    )
    return "\n".join(rows) + "\n"


def shown_code(kind: ProblemType) -> str:
    return kind.shown_code or f"`{kind.code}`"


def problems_by_status(statuses: Iterable[int]) -> str:
    """The problem types answered with one of ``statuses``, each with its code and when: the
    description of an OpenAPI problem response, as a Markdown list."""
    wanted = set(statuses)
    return "\n".join(
        f"- {kind.status} {shown_code(kind)}: {kind.when}"
        for kind in PROBLEM_TYPES
        if kind.status in wanted
    )
