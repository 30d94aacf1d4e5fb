"""``POST /v1/hands/score`` and ``POST /v1/hands/batch-score`` (RULES.md sections 3 to 7)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flask import Blueprint, Response

from service.game.cards import SUIT_BY_SPELLING, TrumpError
from service.game.errors import PathElement, RulesError
from service.game.ruleset import RULESET
from service.game.scoring import WEIGHT_BY_SPELLING, score_hand, table

from . import render
from .config import Config
from .fastcheck import batch_ok, hand_ok
from .http import json_response, load, read_json
from .problems import rules_problem
from .routing import BODY_ERRORS, Operation, documented
from .schemas import BatchScoreResponseSchema, RequestSchemas, ScoreResponseSchema

SCORE = Operation(
    operation_id="scoreHand",
    summary="Score one hand",
    tag="hands",
    description=(
        "The best total over all legal declarations of four cards (RULES.md sections 3-6), with "
        "the declaration that reaches it (ties broken by the documented fixed rule)."
    ),
    request="hand",
    response=ScoreResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "coronka_and_bezique": {"cards": ["KS", "QS", "JS", "JC"]},
        "marriage_in_trumps": {"cards": ["KH", "QH", "KD", "10D"], "trump": "H"},
    },
)

BATCH = Operation(
    operation_id="scoreHands",
    summary="Score many hands",
    tag="hands",
    description=(
        "Scores every hand, in input order. One bad hand rejects the whole batch with a pointer "
        'to it. `"breakdown": false` answers only the scores (the fast path).'
    ),
    request="batch",
    response=BatchScoreResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "scores_only": {
            "hands": [{"cards": ["QS", "QC", "QH", "KH"]}, {"cards": ["9H", "AH", "9D", "AD"]}],
            "breakdown": False,
        }
    },
)


def _hand_error(error: RulesError, *prefix: PathElement) -> RulesError:
    """Anchor a scoring error at the hand's ``trump`` or ``cards`` member."""
    return error.at(*prefix, "trump" if isinstance(error, TrumpError) else "cards")


def blueprint(schemas: RequestSchemas, config: Config) -> Blueprint:
    bp = Blueprint("hands", __name__)
    hand_schema = schemas.hand()
    batch_schema = schemas.batch()
    max_hands = config.max_batch_hands

    @bp.post("/v1/hands/score")
    @documented(SCORE)
    def score() -> Response:
        body = read_json()
        if not hand_ok(body):
            body = load(hand_schema, body)
        try:
            scored = score_hand(body["cards"], body.get("trump"))
        except RulesError as error:  # the checks above leave nothing for the core to refuse
            raise rules_problem(_hand_error(error)) from None
        out = render.scored_hand(scored)
        out["ruleset"] = RULESET
        return json_response(out)

    @bp.post("/v1/hands/batch-score")
    @documented(BATCH)
    def batch_score() -> Response:
        body = read_json()
        if not batch_ok(body, max_hands):
            body = load(batch_schema, body)
        hands = body["hands"]
        if body.get("breakdown", True):
            results = _breakdowns(hands)
        else:
            results = [{"score": s} for s in _scores(hands)]
        return json_response({"results": results, "ruleset": RULESET})

    return bp


def _breakdowns(hands: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    results = []
    for i, hand in enumerate(hands):
        try:
            scored = score_hand(hand["cards"], hand.get("trump"))
        except RulesError as error:
            raise rules_problem(_hand_error(error, "hands", i)) from None
        results.append(render.scored_hand(scored))
    return results


def _score_tables() -> dict[str | None, dict[int, int]]:
    """Every trump spelling (and null) to its table of scores by hand key."""
    by_trump: dict[str | None, dict[int, int]] = {None: table(None).scores}
    for spelling, suit in SUIT_BY_SPELLING.items():
        by_trump[spelling] = table(suit).scores
    return by_trump


_tables: dict[str | None, dict[int, int]] = {}


def _scores(hands: Sequence[dict[str, Any]]) -> list[int]:
    """Scores of already-checked hands: four weight lookups and one table lookup each."""
    if not _tables:
        _tables.update(_score_tables())
    tables: Callable[[str | None], dict[int, int]] = _tables.__getitem__
    w = WEIGHT_BY_SPELLING
    out = []
    for hand in hands:
        a, b, c, d = hand["cards"]
        out.append(tables(hand.get("trump"))[w[a] + w[b] + w[c] + w[d]])
    return out
