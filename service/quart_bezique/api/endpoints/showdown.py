"""``POST /v1/showdown`` (docs/rules.md §8)."""

from __future__ import annotations

from typing import Any

from quart_bezique.api.contract.checks import check_for
from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import rules_problem
from quart_bezique.api.contract.schemas import ShowdownResponseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Handler, Judged
from quart_bezique.game.errors import RulesError
from quart_bezique.wire import calls, render
from quart_bezique.wire.canonical import SHOWDOWN_PATH

SHOWDOWN = Operation(
    operation_id="compareHands",
    summary="Compare two hands",
    tag="showdown",
    description=(
        "Scores both hands under the round's trump; the higher score wins, equal scores tie "
        "(docs/rules.md §8). Two hands that one shoe cannot hold (some card more than 6 times "
        "between them) are refused with 422 and code `SHOE_EXCEEDED`."
    ),
    request=lambda schemas: schemas.showdown,
    response=ShowdownResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "marriage_vs_bezique": {
            "trump": None,
            "hands": [
                {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
                {"player": "dan", "cards": ["QS", "JC", "KD", "JD"]},
            ],
        }
    },
)


def _showdown_handler(resources: Resources) -> Handler:
    def judge(body: Any) -> Judged:
        first, second = body["hands"]
        try:
            result = calls.showdown(body)
        except RulesError as error:
            raise rules_problem(error) from None
        out = render.showdown(result, (first["player"], second["player"]))
        return Judged(render.stamped(out, result.ruleset, "ruleset" in body))

    return Handler(resources.schemas.showdown(), check_for(resources.schemas.showdown), judge)


ENDPOINTS = (
    Endpoint("POST", SHOWDOWN_PATH, SHOWDOWN, handler=_showdown_handler, audit=audit.SHOWDOWN),
)
