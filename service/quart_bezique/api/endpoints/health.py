"""``GET /v1/rules``, ``GET /healthz``, ``GET /readyz``: answers prepared once, served as bytes.

``/readyz`` also asks the checks the factory hands in (the audit sink's ``ready``): a worker that
cannot record verdicts must be taken out of rotation, while ``/healthz`` stays 200 so that it is
not killed for it (it recovers by itself once the log pipeline reads again).
"""

from __future__ import annotations

from typing import Final

import orjson
from flask import Response, request

from quart_bezique.api.contract.error_codes import code_of
from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.contract.problems import NOT_READY, VALIDATION_ERROR, Problem
from quart_bezique.api.contract.rules import RulesSchema, rules_document
from quart_bezique.api.contract.schemas import StatusSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View, static_json
from quart_bezique.game.messages import N_
from quart_bezique.game.ruleset import Ruleset, RulesetError, resolve_ruleset
from quart_bezique.game.scoring import tables_ready

RULES = Operation(
    operation_id="getRules",
    summary="The ruleset as data",
    tag="rules",
    description="Card points, the combination table, the trump policy, betting constants and "
    "this service's limits, for clients that display or check scores.",
    response=RulesSchema,
    answer_example="classic",
    problems=(422,),
    parameters=(
        {
            "name": "ruleset",
            "in": "query",
            "required": False,
            "description": "The ruleset to describe, by its id (docs/rules.md §13.6); absent: "
            "`classic/1`, exactly as before rulesets existed. An unknown id is a 422 whose "
            "error points at `/ruleset`.",
            "schema": {"$ref": "#/components/schemas/RulesetId"},
        },
    ),
)

HEALTH = Operation(
    operation_id="health",
    summary="Liveness",
    tag="operations",
    description="200 while the process can answer at all.",
    response=StatusSchema,
    answer_example="alive",
)

READY = Operation(
    operation_id="ready",
    summary="Readiness",
    tag="operations",
    description="200 once the scoring tables are built, while the audit log keeps up and the "
    "build manifest is known, until shutdown starts; else 503 with the reason.",
    response=StatusSchema,
    problems=(503,),
    answer_example="ready",
)

AUDIT_LAGGING: Final = N_("the audit log is not keeping up")
"""The detail of a 503 on ``/readyz`` while the audit sink refuses lines (``sink.AuditSink``)."""


def _rules_view(resources: Resources) -> View:
    """Each ruleset's document is built on its first request and kept: sixteen at most."""
    config = resources.config
    plain = orjson.dumps(rules_document(config))
    named: dict[Ruleset, bytes] = {}

    def rules() -> Response:
        asked = request.args.getlist("ruleset")
        if not asked:
            return static_json(plain)
        if len(asked) > 1:
            message = N_("name one ruleset, not {count}").format(count=len(asked))
            raise _refused(message.coded("INVALID_RULESET"))
        try:
            ruleset = resolve_ruleset(asked[0])
        except RulesetError as error:
            raise _refused(error.message, error.code) from None
        body = named.get(ruleset)
        if body is None:
            body = named[ruleset] = orjson.dumps(rules_document(config, ruleset, named=True))
        return static_json(body)

    return rules


def _refused(message: str, code: str | None = None) -> Problem:
    """A 422 for the ``ruleset`` query parameter, as the body's field is refused: its pointer
    names the parameter (``/ruleset``)."""
    found = code or code_of(message)
    return Problem(
        VALIDATION_ERROR,
        message,
        errors=[{"pointer": "/ruleset", "message": message, "code": found}],
    )


def _health_view(resources: Resources) -> View:
    body = orjson.dumps({"status": "ok"})

    def health() -> Response:
        return static_json(body, no_store=True)

    return health


def _ready_view(resources: Resources) -> View:
    """``resources.ready_checks`` turn ``/readyz`` 503 while any says False (after draining and
    tables)."""
    checks = tuple(resources.ready_checks)
    draining = resources.draining
    body = orjson.dumps({"status": "ready"})

    def ready() -> Response:
        if draining() or not tables_ready():
            reason = (
                N_("the service is shutting down")
                if draining()
                else N_("the scoring tables are not built yet")
            )
            raise Problem(NOT_READY, reason, headers={"Retry-After": "1"})
        for check, detail in checks:
            if not check():
                raise Problem(NOT_READY, detail, headers={"Retry-After": "1"})
        return static_json(body, no_store=True)

    return ready


ENDPOINTS = (
    Endpoint("GET", "/v1/rules", RULES, _rules_view),
    Endpoint("GET", "/healthz", HEALTH, _health_view),
    Endpoint("GET", "/readyz", READY, _ready_view),
)
