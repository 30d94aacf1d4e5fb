"""``POST /v1/rounds/adjudicate``: a whole round record judged at once (docs/round-record.md).

The request body is the record itself (plus ``trace``), so the receipt's request digest covers
every member of it, ``context.round_id`` included: a signed verdict names the round it judged.
Every body is loaded by the record's schema (no derived check: the endpoint is not a hot path),
which is also the reader of the library's ``read_record``; the verdict is
``quart_bezique.rounds``'s, rendered by ``rounds.render``.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import fields

from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.schemas import (
    BaseSchema,
    BettingStateSchema,
    PayoutSchema,
    ScoredHandSchema,
    ShowdownResultSchema,
    ViolationSchema,
    _ruleset,
    _ruleset_sha256,
)
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources
from quart_bezique.api.endpoints.rounds import HEADS_UP_SHOWDOWN
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Handler, Judged
from quart_bezique.rounds import RecordError, adjudicate_record
from quart_bezique.rounds.record import FORMAT, accepted, record_schemas
from quart_bezique.rounds.render import verdict

ADJUDICATE_PATH: Final = "/v1/rounds/adjudicate"


class SeatHandSchema(ScoredHandSchema):
    player = fields.String(required=True)


class BettingVerdictSchema(BaseSchema):
    valid = fields.Boolean(required=True)
    error = fields.Nested(ViolationSchema, required=True, allow_none=True)
    state = fields.Nested(BettingStateSchema, required=True)
    trace = fields.List(
        fields.Nested(BettingStateSchema),
        metadata={"description": "Only with `trace: true`: the state after each accepted action."},
    )


class RoundSettlementSchema(BaseSchema):
    pot = fields.Integer(required=True)
    players = fields.List(fields.Nested(PayoutSchema), required=True)
    winners = fields.List(fields.String(), required=True)
    showdown = fields.Nested(ShowdownResultSchema, required=True, allow_none=True)
    carried = fields.Integer(
        required=True, metadata={"description": "Always given here (a claim is compared with it)."}
    )


class ClaimDifferenceSchema(BaseSchema):
    field = fields.String(
        required=True,
        metadata={"description": 'JSON pointer into `claimed` (`""`: the whole claim).'},
    )
    claimed = fields.Raw(required=True, allow_none=True)
    reference = fields.Raw(
        required=True,
        allow_none=True,
        metadata={"description": "The service's value; null where it has none."},
    )


class ClaimCheckSchema(BaseSchema):
    matches = fields.Boolean(required=True)
    differences = fields.List(fields.Nested(ClaimDifferenceSchema), required=True)


class RoundVerdictSchema(BaseSchema):
    round_id = fields.String(
        required=True, allow_none=True, metadata={"description": "The record's `context.round_id`."}
    )
    trump = fields.String(required=True, allow_none=True)
    hands = fields.List(
        fields.Nested(SeatHandSchema),
        required=True,
        metadata={"description": "Every seated hand, in seat order, under the record's trump."},
    )
    betting = fields.Nested(BettingVerdictSchema, required=True)
    showdown = fields.Nested(
        ShowdownResultSchema,
        required=True,
        allow_none=True,
        metadata={"description": "When the betting ended in a showdown (the settlement's)."},
    )
    settlement = fields.Nested(
        RoundSettlementSchema,
        required=True,
        allow_none=True,
        metadata={"description": "When the betting is valid and finished; else null."},
    )
    claim = fields.Nested(
        ClaimCheckSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The claim compared with the reference; null without one."},
    )
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


EXAMPLE_RECORD: Final[dict[str, Any]] = {
    "format": FORMAT,
    **HEADS_UP_SHOWDOWN,
    "hands": {"ann": ["KS", "QS", "JS", "JC"], "bob": ["KH", "QH", "9S", "9C"]},
    "claimed": {
        "pot": 20,
        "players": [
            {"player": "ann", "payout": 20, "net": 10},
            {"player": "bob", "payout": 0, "net": -10},
        ],
        "winners": ["ann"],
    },
    "context": {"round_id": "table-7/round-1042"},
}

ADJUDICATE = Operation(
    operation_id="adjudicateRoundRecord",
    summary="Judge a whole round record",
    tag="rounds",
    description=(
        "Judges one round record (docs/round-record.md): every seated hand's score, the betting "
        "verdict, the showdown and the settlement when the betting is valid and finished, and, "
        "when the record claims an outcome, every member where the claim and the service differ "
        "(a JSON pointer into `claimed`). An illegal or unfinished betting is a verdict (200). A "
        "record that cannot be read is refused with 422 and the settlement's codes and pointers "
        "(`HANDS_MISMATCH` for a seated player without a hand or a hand without a seat, "
        "`SHOE_EXCEEDED` at `/hands` when the table's hands break the shoe). The body is the "
        "record, so the receipt's request digest covers its `context.round_id`."
    ),
    request=lambda schemas: record_schemas().request,
    response=RoundVerdictSchema,
    problems=BODY_ERRORS,
    request_examples={
        "claim_matches": EXAMPLE_RECORD,
        "claim_differs": {
            **EXAMPLE_RECORD,
            "claimed": {"pot": 20, "winners": ["bob"]},
            "context": {"round_id": "table-7/round-1043"},
        },
        "illegal_betting": {
            **EXAMPLE_RECORD,
            "actions": [{"player": "bob", "type": "stake", "amount": 5}],
            "claimed": {"pot": 15},
        },
    },
)


def _adjudicate_handler(resources: Resources) -> Handler:
    schema = record_schemas(resources.config).request

    def judge(body: Any) -> Judged:
        record = dict(body)
        trace = record.pop("trace", False) is True
        try:
            found = adjudicate_record(accepted(record), trace=trace)
        except RecordError as error:
            raise error.problem from None
        return Judged(verdict(found))

    return Handler(schema(), None, judge)


ENDPOINTS = (
    Endpoint(
        "POST", ADJUDICATE_PATH, ADJUDICATE, handler=_adjudicate_handler, audit=audit.ROUND_RECORD
    ),
)
