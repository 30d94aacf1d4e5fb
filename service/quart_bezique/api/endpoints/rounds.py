"""``POST /v1/rounds/settle`` (docs/rules.md §10)."""

from __future__ import annotations

from typing import Any, Final

from quart_bezique.api.contract.checks import check_for
from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import rules_problem
from quart_bezique.api.contract.schemas import SettleResponseSchema
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Handler, Judged
from quart_bezique.game.errors import RulesError
from quart_bezique.wire import calls, render
from quart_bezique.wire.canonical import SETTLE_PATH

HEADS_UP_SHOWDOWN: Final[dict[str, Any]] = {
    "players": ["ann", "bob"],
    "dealer": "bob",
    "ante": 5,
    "actions": [
        {"player": "ann", "type": "stake", "amount": 5},
        {"player": "bob", "type": "open", "amount": 5},
    ],
}
"""Two seats, ante 5, one stake called by an open: a showdown for a pot of 20. The examples of
settle and of a round record differ only in the hands dealt on it."""

TIED_ROUND: Final[dict[str, Any]] = {
    **HEADS_UP_SHOWDOWN,
    "hands": {"ann": ["KH", "QH", "9S", "9C"], "bob": ["KD", "QD", "AS", "AC"]},
}
"""A showdown of two marriages, 4 points each, for a pot of 20: split under ``classic/1``,
carried under ``{"tie": "carry"}`` (docs/rules.md §10, §13.4)."""

SETTLE = Operation(
    operation_id="settleRound",
    summary="Settle a finished round",
    tag="rounds",
    description=(
        "Replays the betting, scores the showdown hands and pays the pot out (docs/rules.md "
        "§10): the uncontested winner takes it all; at a showdown the higher score takes it, a "
        "tie splits it with the odd chip to the tied player first clockwise from the dealer's "
        "left. "
        "An invalid or unfinished round, or hands that do not match the showdown players, are "
        "refused with 422 and a code (`ROUND_INVALID`, `ROUND_NOT_FINISHED`, `HANDS_MISMATCH`, "
        "or a card, hand or shoe code)."
    ),
    request=lambda schemas: schemas.settle,
    response=SettleResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "rules_example": {
            **EXAMPLE_ROUND,
            "trump": "H",
            "hands": {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]},
        },
        "split_pot": TIED_ROUND,
        "tie_carried": {**TIED_ROUND, "ruleset": {"tie": "carry"}},
        "uncontested": {
            "players": ["ann", "bob"],
            "dealer": "bob",
            "ante": 5,
            "actions": [
                {"player": "ann", "type": "stake", "amount": 5},
                {"player": "bob", "type": "fold"},
            ],
        },
    },
)


def _settle_handler(resources: Resources) -> Handler:
    def judge(body: Any) -> Judged:
        try:
            result = calls.settle(body)
        except RulesError as error:  # the core roots its paths in this very body
            raise rules_problem(error) from None
        named = "ruleset" in body
        return Judged(render.stamped(render.settlement(result, named), result.ruleset, named))

    return Handler(resources.schemas.settle(), check_for(resources.schemas.settle), judge)


ENDPOINTS = (Endpoint("POST", SETTLE_PATH, SETTLE, handler=_settle_handler, audit=audit.SETTLE),)
