"""``POST /v1/betting/validate`` (docs/rules.md §9)."""

from __future__ import annotations

from typing import Any, Final

from flask import Blueprint, Response

from service.game.betting import validate_betting
from service.game.errors import RulesError
from service.game.ruleset import RULESET

from . import render
from .config import Config
from .fastcheck import betting_ok
from .http import json_response, load, read_json
from .problems import rules_problem
from .routing import BODY_ERRORS, Operation, documented
from .schemas import BettingResponseSchema, RequestSchemas
from .shortcut import JsonShortcut

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
    request="betting",
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


def blueprint(schemas: RequestSchemas, config: Config) -> Blueprint:
    bp = Blueprint("betting", __name__)
    schema = schemas.betting()
    max_actions = config.max_actions

    @bp.post(VALIDATE_PATH)
    @documented(VALIDATE)
    def validate() -> Response:
        body = read_json()
        if not betting_ok(body, max_actions):
            body = load(schema, body)
        try:
            out = _verdict(body)
        except RulesError as error:  # setup errors: their paths are already rooted in the body
            raise rules_problem(error) from None
        return json_response(out)

    return bp


VALIDATE_PATH: Final = "/v1/betting/validate"


def _verdict(body: Any) -> dict[str, Any]:
    """The verdict on a body ``betting_ok`` (or the schema) accepted, legal or not: the view's and
    the shortcut's. A broken setup raises (``SetupError``): the view's 422."""
    result = validate_betting(
        body["players"],
        body["dealer"],
        body["ante"],
        body.get("actions", ()),
        body.get("minimum_stake"),
        body.get("maximum_stake"),
        trace=body.get("trace") is True,
    )
    out = render.betting(result)
    out["ruleset"] = RULESET
    return out


class BettingShortcut(JsonShortcut):
    """``POST /v1/betting/validate`` served without entering Flask (``shortcut.py``) when the
    body passes ``betting_ok`` and its setup is sound: every verdict, legal or not, is a 200. Any
    setup error, or a body only the schema can explain, is Flask's."""

    __slots__ = ()

    def __init__(self, max_body: int | None, max_actions: int) -> None:
        def check(body: Any) -> bool:
            return betting_ok(body, max_actions)

        super().__init__(max_body, check, _verdict)
