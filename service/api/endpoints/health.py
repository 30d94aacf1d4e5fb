"""``GET /v1/rules``, ``GET /healthz``, ``GET /readyz``: answers prepared once, served as bytes.

``/readyz`` also asks the checks the factory hands in (the audit sink's ``ready``): a worker that
cannot record verdicts must be taken out of rotation, while ``/healthz`` stays 200 so that it is
not killed for it (it recovers by itself once the log pipeline reads again).
"""

from __future__ import annotations

from typing import Final

import orjson
from flask import Response

from service.api.contract.operation import Operation
from service.api.contract.problems import NOT_READY, Problem
from service.api.contract.rules import RulesSchema, rules_document
from service.api.contract.schemas import StatusSchema
from service.api.endpoints.endpoint import Endpoint, Resources, View, static_json
from service.api.envelope.draining import is_draining
from service.game.scoring import tables_ready

RULES_ANSWERS = {
    "classic": {
        "ruleset": "classic/1",
        "name": "classic",
        "version": 1,
        "specification": {
            "document": "docs/rules.md",
            "ruleset": "classic/1",
            "notation": "docs/rules.md#s2",
        },
        "cards": {
            "ranks": [
                {"code": "9", "aliases": [], "russian": [], "points": 0},
                {"code": "10", "aliases": ["T"], "russian": [], "points": 1},
                {"code": "J", "aliases": [], "russian": ["В"], "points": 1},
                {"code": "Q", "aliases": [], "russian": ["Д"], "points": 1},
                {"code": "K", "aliases": [], "russian": ["К"], "points": 1},
                {"code": "A", "aliases": [], "russian": ["Т"], "points": 0},
            ],
            "suits": [
                {"code": "S", "name": "spades", "symbol": "♠", "colour": "black", "russian": ["П"]},
                {
                    "code": "C",
                    "name": "clubs",
                    "symbol": "♣",
                    "colour": "black",
                    "russian": ["Т", "К"],
                },
                {"code": "H", "name": "hearts", "symbol": "♥", "colour": "red", "russian": ["Ч"]},
                {"code": "D", "name": "diamonds", "symbol": "♦", "colour": "red", "russian": ["Б"]},
            ],
            "pattern": (
                "^(?:(?:10|[9TJQKAtjqka])[SCHDschd♠♣♥♦]|(?:1"
                "0|9|[ТВДКтвдк])[ПТКЧБпткчб]|[ВДКвдк][♠♣♥♦])$"
            ),
            "case_insensitive": True,
        },
        "shoe": {"decks": 6, "copies_per_card": 6, "cards": 144},
        "hand_size": 4,
        "combinations": [
            {
                "type": "three_of_a_kind",
                "cards": 3,
                "description": "Three cards of one rank (any suits, duplicates allowed).",
                "points": 6,
            },
            {
                "type": "four_of_a_kind",
                "cards": 4,
                "description": "All four cards of one rank; takes the whole hand (rule 5.1).",
                "points_by_rank": {"9": 9, "10": 9, "J": 9, "Q": 9, "K": 8, "A": 0},
            },
            {
                "type": "marriage",
                "cards": 2,
                "description": "King and queen of the same suit.",
                "points": 4,
            },
            {
                "type": "bezique",
                "cards": 2,
                "description": "Queen and jack of different suits of the same colour.",
                "points": 4,
            },
            {
                "type": "double_bezique",
                "cards": 4,
                "description": "Two beziques with no card in common (instead of their sum).",
                "points": 9,
            },
            {
                "type": "coronka",
                "cards": [3, 4],
                "description": "Three or four cards of one suit with "
                "consecutive ranks (9 10 J Q K A, no wrap).",
                "points_by_length": {"3": 6, "4": 9},
            },
        ],
        "sharing": "A card belongs to at most one declared combination, except that a "
        "bezique may share one card with a coronka (rule 5.2).",
        "trump": {
            "pattern": "^[SCHDschd♠♣♥♦ПТКЧБпткчб]$",
            "factor": 2,
            "loose_cards": "A loose card of the trump suit scores its points times the factor.",
            "combinations": "A combination scores its points times the factor only "
            "when all its cards are of the trump suit; a bezique "
            "always mixes suits and is never doubled.",
        },
        "betting": {
            "min_players": 2,
            "max_players": 4,
            "money": {"min": 1, "max": 9007199254740991},
            "action_types": ["fold", "stake", "top_up", "open"],
            "reason_codes": [
                "UNKNOWN_PLAYER",
                "NOT_YOUR_TURN",
                "STAKE_BELOW_MINIMUM",
                "STAKE_BELOW_PREVIOUS",
                "STAKE_ABOVE_MAXIMUM",
                "TOP_UP_REQUIRED",
                "WRONG_TOP_UP_AMOUNT",
                "NO_TOP_UP_OWED",
                "OPEN_NOT_ALLOWED",
                "WRONG_OPEN_AMOUNT",
                "ROUND_OVER",
                "POT_LIMIT_EXCEEDED",
            ],
        },
        "limits": {
            "max_body_bytes": 1048576,
            "max_batch_hands": 10000,
            "max_actions": 1000,
            "player_id_length": {"min": 1, "max": 64},
        },
    }
}
"""The service's answer (a test fetches it and compares)."""

RULES = Operation(
    operation_id="getRules",
    summary="The ruleset as data",
    tag="rules",
    description="Card points, the combination table, the trump policy, betting constants and "
    "this service's limits, for clients that display or check scores.",
    response=RulesSchema,
    response_examples=RULES_ANSWERS,
)
HEALTH_ANSWERS = {"alive": {"status": "ok"}}
"""The service's answer (a test fetches it and compares)."""

HEALTH = Operation(
    operation_id="health",
    summary="Liveness",
    tag="operations",
    description="200 while the process can answer at all.",
    response=StatusSchema,
    response_examples=HEALTH_ANSWERS,
)
READY_ANSWERS = {"ready": {"status": "ready"}}
"""The service's answer (a test fetches it and compares)."""

READY = Operation(
    operation_id="ready",
    summary="Readiness",
    tag="operations",
    description="200 once the scoring tables are built, while the audit log keeps up and the "
    "build manifest is known, until shutdown starts; else 503 with the reason.",
    response=StatusSchema,
    problems=(503,),
    response_examples=READY_ANSWERS,
)

AUDIT_LAGGING: Final = "the audit log is not keeping up"
"""The detail of a 503 on ``/readyz`` while the audit sink refuses lines (``sink.AuditSink``)."""


def is_ready() -> bool:
    return tables_ready() and not is_draining()


def _rules_view(resources: Resources) -> View:
    body = orjson.dumps(rules_document(resources.config))

    def rules() -> Response:
        return static_json(body)

    return rules


def _health_view(resources: Resources) -> View:
    body = orjson.dumps({"status": "ok"})

    def health() -> Response:
        return static_json(body, no_store=True)

    return health


def _ready_view(resources: Resources) -> View:
    """``resources.ready_checks`` turn ``/readyz`` 503 while any says False (after draining and
    tables)."""
    checks = tuple(resources.ready_checks)
    body = orjson.dumps({"status": "ready"})

    def ready() -> Response:
        if not is_ready():
            detail = "shutting down" if is_draining() else "the scoring tables are not built yet"
            raise Problem(NOT_READY, detail, headers={"Retry-After": "1"})
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
