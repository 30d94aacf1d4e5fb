"""``GET /v1/rules``, ``GET /healthz``, ``GET /readyz``: answers prepared once, served as bytes.

``/readyz`` also asks the checks the factory hands in (the audit sink's ``ready``): a worker that
cannot record verdicts must be taken out of rotation, while ``/healthz`` stays 200 so that it is
not killed for it (it recovers by itself once the log pipeline reads again).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import orjson
from flask import Blueprint, Response

from service.game.scoring import tables_ready

from .config import Config
from .http import static_json_response
from .problems import NOT_READY, Problem
from .routing import Operation, documented
from .rules import RulesSchema, rules_document
from .schemas import StatusSchema

RULES = Operation(
    operation_id="getRules",
    summary="The ruleset as data",
    tag="rules",
    description="Card points, the combination table, the trump policy, betting constants and "
    "this service's limits, for clients that display or check scores.",
    response=RulesSchema,
)
HEALTH = Operation(
    operation_id="health",
    summary="Liveness",
    tag="operations",
    description="200 while the process can answer at all.",
    response=StatusSchema,
)
READY = Operation(
    operation_id="ready",
    summary="Readiness",
    tag="operations",
    description="200 once the scoring tables are built and until shutdown starts; else 503.",
    response=StatusSchema,
    problems=(503,),
)

AUDIT_LAGGING: Final = "the audit log is not keeping up"
"""The detail of a 503 on ``/readyz`` while the audit sink refuses lines (``sink.AuditSink``)."""

ReadyCheck = tuple[Callable[[], bool], str]
"""A cheap readiness test (called on every probe) and the 503 detail when it says False."""

_draining = False


def mark_draining() -> None:
    """Report not-ready from now on (called when the worker is asked to stop)."""
    global _draining
    _draining = True


def is_ready() -> bool:
    return tables_ready() and not _draining


def blueprint(config: Config, ready_checks: Sequence[ReadyCheck] = ()) -> Blueprint:
    """``ready_checks`` turn ``/readyz`` 503 while any says False (after draining and tables)."""
    bp = Blueprint("meta", __name__)
    checks = tuple(ready_checks)
    rules_body = orjson.dumps(rules_document(config))
    ok_body = orjson.dumps({"status": "ok"})
    ready_body = orjson.dumps({"status": "ready"})

    @bp.get("/v1/rules")
    @documented(RULES)
    def rules() -> Response:
        return static_json_response(rules_body)

    @bp.get("/healthz")
    @documented(HEALTH)
    def health() -> Response:
        return static_json_response(ok_body, no_store=True)

    @bp.get("/readyz")
    @documented(READY)
    def ready() -> Response:
        if not is_ready():
            detail = "shutting down" if _draining else "the scoring tables are not built yet"
            raise Problem(NOT_READY, detail, headers={"Retry-After": "1"})
        for check, detail in checks:
            if not check():
                raise Problem(NOT_READY, detail, headers={"Retry-After": "1"})
        return static_json_response(ready_body, no_store=True)

    return bp
