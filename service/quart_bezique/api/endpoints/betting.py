"""``POST /v1/betting/validate`` (docs/rules.md §9)."""

from __future__ import annotations

from typing import Any

from quart_bezique.api.contract.checks import check_for
from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import rules_problem
from quart_bezique.api.contract.schemas import BettingResponseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Handler, Judged
from quart_bezique.game.errors import RulesError
from quart_bezique.wire import calls, render
from quart_bezique.wire.canonical import BETTING_PATH

EXAMPLE_ROUND: dict[str, Any] = {
    "players": ["ann", "bob", "cid", "dan"],
    "dealer": "dan",
    "ante": 10,
    "actions": [
        {"player": "ann", "type": "stake", "amount": 10},
        {"player": "bob", "type": "stake", "amount": 20},
        {"player": "ann", "type": "top_up", "amount": 10},
        {"player": "cid", "type": "fold"},
        {"player": "dan", "type": "stake", "amount": 20},
        {"player": "ann", "type": "fold"},
        {"player": "bob", "type": "open", "amount": 20},
    ],
}
"""docs/rules.md §9's worked example: a showdown between bob and dan, pot 120."""

VALIDATE = Operation(
    operation_id="validateBetting",
    summary="Judge a betting sequence",
    tag="betting",
    description=(
        "Replays the actions against the setup (docs/rules.md §9). Every well-formed request "
        "gets 200, legal or not: `valid`, the first illegal action with its reason code, and the "
        "state (after all actions if valid, else just before the first illegal one), including "
        "who acts next and the legal actions. A broken setup (dealer not seated, maximum below "
        "minimum, antes beyond the pot limit) is refused with 422 and the setup's code."
    ),
    request=lambda schemas: schemas.betting,
    response=BettingResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "rules_example": EXAMPLE_ROUND,
        "illegal_stake": {
            "players": ["ann", "bob"],
            "dealer": "bob",
            "ante": 10,
            "minimum_stake": 20,
            "actions": [{"player": "ann", "type": "stake", "amount": 5}],
        },
    },
)


def _validate_handler(resources: Resources) -> Handler:
    return Handler(resources.schemas.betting(), check_for(resources.schemas.betting), _verdict)


def _verdict(body: Any) -> Judged:
    """The verdict on an accepted body, legal or not. A broken setup is a 422 carrying the
    setup's code (its path is already rooted in the body)."""
    try:
        result = calls.betting(body)
    except RulesError as error:
        raise rules_problem(error) from None
    return Judged(render.stamped(render.betting(result), result.ruleset, "ruleset" in body))


ENDPOINTS = (
    Endpoint("POST", BETTING_PATH, VALIDATE, handler=_validate_handler, audit=audit.BETTING),
)
