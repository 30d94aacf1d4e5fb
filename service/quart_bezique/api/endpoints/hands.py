"""``POST /v1/hands/score`` and ``POST /v1/hands/batch-score`` (docs/rules.md sections 3 to 7)."""

from __future__ import annotations

from typing import Any

from quart_bezique.api.contract.checks import check_for
from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import rules_problem
from quart_bezique.api.contract.schemas import BatchScoreResponseSchema, ScoreResponseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Handler, Judged
from quart_bezique.api.fastpath import batch
from quart_bezique.game.errors import RulesError
from quart_bezique.wire import calls, render
from quart_bezique.wire.canonical import BATCH_PATH, SCORE_PATH

SCORE = Operation(
    operation_id="scoreHand",
    summary="Score one hand",
    tag="hands",
    description=(
        "The best total over all legal declarations of four cards (docs/rules.md §3-§6), with "
        "the declaration that reaches it (ties broken by the documented fixed rule)."
    ),
    request=lambda schemas: schemas.hand,
    response=ScoreResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "coronka_and_bezique": {"cards": ["KS", "QS", "JS", "JC"]},
        "marriage_in_trumps": {"cards": ["KH", "QH", "KD", "10D"], "trump": "H"},
        "house_rules": {"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "ruleset": "literal/1"},
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
    request=lambda schemas: schemas.batch,
    response=BatchScoreResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "scores_only": {
            "hands": [{"cards": ["QS", "QC", "QH", "KH"]}, {"cards": ["9H", "AH", "9D", "AD"]}],
            "breakdown": False,
        }
    },
)


def _score_handler(resources: Resources) -> Handler:
    def judge(body: Any) -> Judged:
        try:
            scored = calls.score(body)
        except RulesError as error:  # the checks leave nothing for the core to refuse
            raise rules_problem(error) from None
        return Judged(render.stamped(render.scored_hand(scored), scored.ruleset, "ruleset" in body))

    return Handler(resources.schemas.hand(), check_for(resources.schemas.hand), judge)


def _batch_handler(resources: Resources) -> Handler:
    """Every batch goes through its typed decoder (``fastpath.batch``), which judges the ones the
    schema accepts; the schema explains the others."""
    schema = resources.schemas.batch()
    if resources.config.build_tables:
        batch.tables()  # now, so that gunicorn's workers share them (preload), like the tables
    return Handler(schema, None, None, pause_collector=True, typed=batch.typed_decoder(schema))


ENDPOINTS = (
    Endpoint("POST", SCORE_PATH, SCORE, handler=_score_handler, audit=audit.SCORE),
    Endpoint("POST", BATCH_PATH, BATCH, handler=_batch_handler, audit=audit.BATCH),
)
