"""``POST /v1/rounds/reconcile``: a file of round records in, each one's verdict out, as it goes.

A platform pipes its JSON Lines of round records (docs/round-record.md) through ``curl`` and reads
one line per record back while the rest is still being judged (docs/reconcile-http.md). Each line
is read and judged as ``POST /v1/rounds/adjudicate`` would read and judge it as a whole body (the
same reader, the same value budget, the same codes and pointers), and answered as the command
line's report counts it (``quart_bezique.reconcile``: matching, disagreeing, unclaimed,
unreadable), so the three ways of asking agree on every record. The stream itself (reading
a line at a time, the audit line at the end) is ``envelope.stream``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any, Final

import orjson
from marshmallow import Schema

from quart_bezique.api.contract.i18n import N_, negotiate
from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import (
    AUDIT_UNAVAILABLE,
    BODY_TOO_LARGE,
    INTERNAL_ERROR,
    Problem,
)
from quart_bezique.api.contract.reading import load
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope import body
from quart_bezique.api.envelope.budget import refuse_excess, value_budget
from quart_bezique.api.envelope.exchange import Exchange
from quart_bezique.api.envelope.stream import (
    NDJSON,
    STREAM_HEADERS,
    BodyLines,
    Ending,
    Hooks,
    Streamed,
    StreamRoad,
    declared_excess,
    media_problem,
)
from quart_bezique.rounds import RecordError, adjudicate_record
from quart_bezique.rounds.record import accepted, record_schemas

log = logging.getLogger("quart_bezique.api")

RECONCILE_PATH: Final = "/v1/rounds/reconcile"
MAX_RECORDS: Final = 10_000
"""Records one request may hold; the rest of a longer body is not read (``TOO_MANY_RECORDS``).
Read when an app is built, so a test may lower it."""
MAX_LINE_BYTES: Final = 256 * 1024
"""The longest line judged (a record of ``MAX_ACTIONS`` actions fits with room), or
``MAX_BODY_BYTES`` if that is smaller; a longer line is unreadable, read past, never held."""
TOO_MANY_RECORDS: Final = "TOO_MANY_RECORDS"

_LINE_TOO_LONG: Final = N_("the line is longer than the limit of {limit} bytes")
_TOO_MANY: Final = N_("a request holds at most {limit} records; the rest of the body was not read")
_UNAUDITED: Final = N_(
    "the audit log is not keeping up: no verdict is given without its record; retry shortly"
)
_INTERNAL: Final = N_("the server could not answer; the error is logged")


def _line(payload: dict[str, Any]) -> bytes:
    return orjson.dumps(payload) + b"\n"


class _Run:
    """One request's reconciliation: its counts, and its lines as they are judged."""

    def __init__(
        self,
        lines: BodyLines,
        exchange: Exchange,
        schema: Schema,
        *,
        budget: int,
        language: str,
        max_records: int,
    ) -> None:
        self.body = lines
        self.exchange = exchange
        self.schema = schema
        self.budget = budget
        self.language = language
        self.max_records = max_records
        self.counts = dict.fromkeys(
            ("records", "matching", "disagreeing", "unclaimed", "unreadable", "differences"), 0
        )
        self.hands = 0
        self.stopped: str | None = None

    def lines(self) -> Iterator[bytes]:
        """The records' lines in input order, then the error line of a run stopped early."""
        lines = self.body
        number = 0
        for number, text in lines:
            if self.counts["records"] == self.max_records:
                problem = Problem(BODY_TOO_LARGE, _TOO_MANY.format(limit=self.max_records))
                yield self._stop(number, TOO_MANY_RECORDS, problem)
                return
            self.counts["records"] += 1
            yield self._judged(number, text)
        if lines.stopped is not None:
            yield self._stop(number + 1, lines.stopped.code, lines.stopped)

    def _stop(self, number: int, code: str, problem: Problem) -> bytes:
        self.stopped = code
        message = problem.document(self.language)["detail"]
        return _line({"error": {"line": number, "code": code, "message": message}})

    def _judged(self, number: int, text: bytes | None) -> bytes:
        try:
            if text is None:
                raise Problem(BODY_TOO_LARGE, _LINE_TOO_LONG.format(limit=self.body.max_line))
            refuse_excess(text, self.budget)
            parsed, _ = body.parse(text)
            record = accepted(load(self.schema, parsed))
            verdict = adjudicate_record(record)
        except RecordError as error:
            return self._unreadable(number, error.problem)
        except Problem as problem:
            return self._unreadable(number, problem)
        except Exception:
            log.exception("line %d of request %s", number, self.exchange.request_id)
            return self._unreadable(number, Problem(INTERNAL_ERROR, _INTERNAL))
        self.hands += len(verdict.hands)
        found = verdict.differences
        if found is None:
            self.counts["unclaimed"] += 1
        elif found:
            self.counts["disagreeing"] += 1
            self.counts["differences"] += len(found)
        else:
            self.counts["matching"] += 1
        return _line(
            {
                "line": number,
                "round_id": verdict.record.round_id,
                "valid": verdict.betting.valid,
                "matches": verdict.matches,
                "differences": [
                    {"field": d.field, "claimed": d.claimed, "reference": d.reference}
                    for d in found or ()
                ],
            }
        )

    def _unreadable(self, number: int, problem: Problem) -> bytes:
        """The line of a record that cannot be judged: the first refusal's code, pointer (into
        the record) and message, as the 422 of ``/v1/rounds/adjudicate`` would list it first."""
        self.counts["unreadable"] += 1
        doc = problem.document(self.language)
        first = (doc.get("errors") or [None])[0]
        if first is None:
            code, pointer, message = doc["code"], "", doc["detail"]
        else:
            code, pointer, message = first["code"], first["pointer"], first["message"]
        return _line({"line": number, "code": code, "pointer": pointer, "message": message})

    def ending(self, complete: bool) -> Ending:
        read = self.body.received
        verdict: dict[str, Any] = {
            **self.counts,
            "bytes": read,
            "complete": complete and self.stopped is None,
            "stopped": self.stopped if complete else self.stopped or "CLIENT_GONE",
        }
        summary = {
            **verdict,
            "body_sha256": self.body_sha256(),
            "response_sha256": self.exchange.response_digest,
        }
        return Ending(summary, verdict, self.hands)

    def body_sha256(self) -> str:
        return self.body.sha256

    def unaudited(self) -> bytes:
        message = Problem(AUDIT_UNAVAILABLE, _UNAUDITED).document(self.language)["detail"]
        return _line({"error": {"line": None, "code": AUDIT_UNAVAILABLE.code, "message": message}})


def _reconcile_stream(resources: Resources) -> StreamRoad:
    config = resources.config
    schema = record_schemas(config).record()
    budget = value_budget(config)
    max_bytes = config.max_body_bytes
    max_line = min(MAX_LINE_BYTES, max_bytes)
    max_records = MAX_RECORDS

    def road(environ: dict[str, Any], exchange: Exchange) -> Any:
        language = negotiate(environ.get("HTTP_ACCEPT_LANGUAGE"))
        refusal = media_problem(environ) or declared_excess(environ, max_bytes)
        if refusal is not None:
            exchange.code = refusal.code
            status, headers, data = refusal.prepared(language)
            return status, headers, [data]
        hooks = Hooks()
        lines = BodyLines(environ, exchange, hooks, max_bytes=max_bytes, max_line=max_line)
        run = _Run(
            lines, exchange, schema, budget=budget, language=language, max_records=max_records
        )
        answer = Streamed(
            exchange, run.lines, run.ending, run.unaudited, run.body_sha256, hooks=hooks
        )
        headers = [*STREAM_HEADERS, ("Content-Language", language), ("Vary", "Accept-Language")]
        return "200 OK", headers, answer

    return road


_DIFFERENCE: Final = {
    "type": "object",
    "required": ["field", "claimed", "reference"],
    "properties": {
        "field": {"type": "string", "description": 'JSON pointer into `claimed` (`""`: all).'},
        "claimed": {"description": "What the record claims."},
        "reference": {"description": "The service's value; null where it has none."},
    },
}
LINE_SCHEMA: Final[dict[str, Any]] = {
    "description": "One line of the answer (JSON Lines: one JSON object and a newline each). "
    "In input order, one line per record (`line` is the record's line number, from 1; blank "
    "lines are skipped); then, when the run stopped early, one `error` line; then the "
    "`summary`, always last. A stream without a summary is not complete.",
    "oneOf": [
        {
            "title": "judged",
            "type": "object",
            "required": ["line", "round_id", "valid", "matches", "differences"],
            "properties": {
                "line": {"type": "integer", "minimum": 1},
                "round_id": {"type": ["string", "null"]},
                "valid": {"type": "boolean", "description": "Whether the betting is legal."},
                "matches": {
                    "type": ["boolean", "null"],
                    "description": "Whether the claim is the reference outcome (null: the "
                    "record claims nothing).",
                },
                "differences": {"type": "array", "items": _DIFFERENCE},
            },
        },
        {
            "title": "unreadable",
            "type": "object",
            "required": ["line", "code", "pointer", "message"],
            "properties": {
                "line": {"type": "integer", "minimum": 1},
                "code": {"type": "string", "description": "As the 422 of the record would say."},
                "pointer": {"type": "string", "description": "JSON pointer into the record."},
                "message": {"type": "string"},
            },
        },
        {
            "title": "stopped",
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["line", "code", "message"],
                    "properties": {
                        "line": {
                            "type": ["integer", "null"],
                            "description": "The first line not judged.",
                        },
                        "code": {
                            "type": "string",
                            "enum": [
                                TOO_MANY_RECORDS,
                                "BODY_TOO_LARGE",
                                "REQUEST_TIMEOUT",
                                "HTTP_ERROR",
                                "AUDIT_UNAVAILABLE",
                            ],
                        },
                        "message": {"type": "string"},
                    },
                }
            },
        },
        {
            "title": "summary",
            "type": "object",
            "required": ["summary"],
            "properties": {
                "summary": {
                    "type": "object",
                    "required": [
                        "records",
                        "matching",
                        "disagreeing",
                        "unclaimed",
                        "unreadable",
                        "differences",
                        "bytes",
                        "complete",
                        "stopped",
                        "body_sha256",
                        "response_sha256",
                    ],
                    "properties": {
                        "records": {"type": "integer"},
                        "matching": {"type": "integer"},
                        "disagreeing": {"type": "integer"},
                        "unclaimed": {"type": "integer"},
                        "unreadable": {"type": "integer"},
                        "differences": {"type": "integer"},
                        "bytes": {"type": "integer", "description": "Body bytes read."},
                        "complete": {"type": "boolean"},
                        "stopped": {"type": ["string", "null"]},
                        "body_sha256": {"type": "string"},
                        "response_sha256": {
                            "type": "string",
                            "description": "Of every line before this one.",
                        },
                    },
                }
            },
        },
    ],
}

RECONCILE = Operation(
    operation_id="reconcileRoundRecords",
    summary="Judge a file of round records, streamed",
    tag="rounds",
    description=(
        "The body is JSON Lines of round records (docs/round-record.md), sent as "
        "`application/x-ndjson` or `application/jsonl`, with a length or chunked. Each record is "
        "judged as `POST /v1/rounds/adjudicate` would judge it, and its line is written as soon "
        "as it is judged (docs/reconcile-http.md): the answer streams, in input order. A line "
        "that cannot be read is reported with the code, pointer and message of its first "
        "refusal, and the run goes on. Bounded: a line of at most 256 KiB (or `MAX_BODY_BYTES`), "
        f"a body of at most `MAX_BODY_BYTES` and {MAX_RECORDS} records; beyond them the run "
        "stops with an `error` line. The summary, always last, names the body's and the "
        "answer's SHA-256; it is written only once the run's audit line is taken. No "
        "`Verdict-Receipt`: ask `/v1/rounds/adjudicate` for a signed verdict of one record."
    ),
    request=lambda schemas: record_schemas().record,
    request_media=NDJSON,
    raw_response=LINE_SCHEMA,
    response_media=NDJSON,
    response_description="JSON Lines, streamed (chunked): one line per record, then the summary.",
    problems=BODY_ERRORS,
)

ENDPOINTS = (Endpoint("POST", RECONCILE_PATH, RECONCILE, stream=_reconcile_stream),)
