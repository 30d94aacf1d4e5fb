"""``POST /v1/hands/odds``: a hand's showdown odds against the rest of the shoe.

Thin on purpose: the schema checks the shape, ``quart_bezique.game.odds.hand_odds`` decides
everything else (the shoe limit included) and its refusals become 422 problems pointing into the
body.
"""

from __future__ import annotations

from typing import Any

from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import rules_problem
from quart_bezique.api.contract.schemas import OddsResponseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Handler, Judged
from quart_bezique.game.errors import RulesError
from quart_bezique.wire import calls, render
from quart_bezique.wire.canonical import ODDS_PATH

ODDS = Operation(
    operation_id="handOdds",
    summary="Showdown odds of a hand",
    tag="hands",
    description=(
        "How often the hand wins, ties or loses a showdown against opponents dealt from the rest "
        "of the shoe (144 cards minus the hand and the `seen` cards, every physical deal equally "
        "likely). One or two opponents: exact integer counts. Three: a seeded Monte Carlo "
        "estimate with its sample count and standard error. A hand and seen cards holding some "
        "card more than 6 times: 422 `SHOE_EXCEEDED`; too few cards left to deal every "
        "opponent: 422 `SHOE_TOO_SMALL`."
    ),
    request=lambda schemas: schemas.odds,
    response=OddsResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "one_opponent": {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},
        "after_a_showdown": {
            "cards": ["KH", "QH", "KD", "10D"],
            "seen": ["QS", "JC", "QH", "JD"],
            "opponents": 2,
        },
    },
)


def _odds_handler(resources: Resources) -> Handler:
    """No derived check: the schema fills in the defaults (opponents, samples, seed), so every
    body is loaded through it, once."""

    def judge(body: Any) -> Judged:
        try:
            result = calls.odds(body)
        except RulesError as error:
            raise rules_problem(error) from None
        return Judged(render.odds(result, "ruleset" in body))

    return Handler(resources.schemas.odds(), None, judge)


ENDPOINTS = (Endpoint("POST", ODDS_PATH, ODDS, handler=_odds_handler, audit=audit.ODDS),)
