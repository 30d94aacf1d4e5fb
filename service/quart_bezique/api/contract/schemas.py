"""Marshmallow schemas: the contract of every request and answer, and the source of openapi.yaml.

Request schemas validate (the hot endpoints use a check derived from these at start-up,
``checks.derive``, which accepts exactly what they accept, and fall back to them only to explain
a refusal). Response schemas are
never used to serialise, only to document; the conformance of real answers to them is checked by
schemathesis. Request limits come from the configuration, so request schemas are built per app by
``request_schemas(config)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from quart_bezique.api.config import Config
from quart_bezique.api.contract.checks import Distinct, PresentUnless, fast_rule
from quart_bezique.api.contract.fields import (
    CARD_CODES,
    RULESET_IDS,
    SUIT_CODES,
    CardField,
    HandsByPlayer,
    RulesetField,
    StrictBoolean,
    TrumpField,
    Unique,
    hand_field,
    money_field,
    player_field,
)
from quart_bezique.api.contract.problems import PROBLEM_TYPES
from quart_bezique.api.contract.worded import speak
from quart_bezique.game.betting import MAX_PLAYERS, MIN_PLAYERS, ActionType, Phase, ReasonCode
from quart_bezique.game.cards import CARDS, COPIES_IN_SHOE, HAND_SIZE
from quart_bezique.game.messages import N_, Message
from quart_bezique.game.odds import DEFAULT_SAMPLES, DEFAULT_SEED, MAX_OPPONENTS, MAX_SEED
from quart_bezique.game.scoring import CombinationType

ACTION_TYPES: Final[tuple[str, ...]] = tuple(t.value for t in ActionType)
FOLD: Final = ActionType.FOLD.value


class BaseSchema(Schema):
    """Unknown fields are refused (``additionalProperties: false``) so typos never pass silently;
    every refusal is a coded message template (``worded``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        speak(self)


# ------------------------------------------------------------------------------------------------
# Requests
# ------------------------------------------------------------------------------------------------


class HandSchema(BaseSchema):
    """One hand to score: four cards and an optional trump (sections 5 and 6)."""

    cards = hand_field(required=True)
    trump = TrumpField()


class ScoreSchema(HandSchema):
    """``POST /v1/hands/score``: a hand, and the ruleset to score it by (docs/rules.md §13); a
    batch names its ruleset once, for all its hands (``HandSchema`` is its item)."""

    ruleset = RulesetField()


class ShowdownHandSchema(BaseSchema):
    player = player_field(required=True)
    cards = hand_field(required=True)


class ShowdownSchema(BaseSchema):
    """Two hands, distinct player ids, one optional trump (section 8)."""

    ruleset = RulesetField()
    trump = TrumpField()
    hands = fields.List(
        fields.Nested(ShowdownHandSchema),
        required=True,
        validate=validate.Length(equal=2),
        metadata={"description": "Exactly two hands, with different player ids."},
    )

    @validates_schema
    @fast_rule(Distinct("hands", "player"))
    def _distinct_players(self, data: dict[str, Any], **kwargs: Any) -> None:
        hands = data.get("hands")
        if hands and len(hands) == 2 and hands[0]["player"] == hands[1]["player"]:
            message = N_("the two hands must belong to different players").coded("DUPLICATE_PLAYER")
            raise ValidationError({"hands": {1: {"player": [message]}}})


AMOUNT_NEEDED: Final[dict[str, Message]] = {
    ActionType.STAKE.value: N_("a stake needs an amount"),
    ActionType.TOP_UP.value: N_("a top-up needs an amount"),
    ActionType.OPEN.value: N_("an open needs an amount"),
}
"""Each action's own sentence: a person reads "a top-up", never the wire's ``top_up``."""


class ActionSchema(BaseSchema):
    """One betting action; ``amount`` is required for every type but ``fold``, which takes none.

    The document shows it as one schema per type, discriminated by ``type``
    (``openapi._action_variants``); this class alone validates.
    """

    player = player_field(required=True)
    type = fields.String(
        required=True,
        validate=validate.OneOf(ACTION_TYPES),
        metadata={"description": "fold, stake, top_up or open (section 9)."},
    )
    amount = money_field("Chips: required for stake, top_up and open; absent for fold.")

    @validates_schema
    @fast_rule(PresentUnless("amount", "type", frozenset({FOLD})))
    def _amount_matches_type(self, data: dict[str, Any], **kwargs: Any) -> None:
        kind = data.get("type")
        if kind == FOLD and "amount" in data:
            message = N_("a fold takes no amount").coded("INVALID_AMOUNT")
            raise ValidationError({"amount": [message]})
        if kind is not None and kind != FOLD and "amount" not in data:
            needs = AMOUNT_NEEDED.get(kind, N_("this action needs an amount"))
            raise ValidationError({"amount": [needs.coded("MISSING_FIELD")]})


MAX_ODDS_SAMPLES: Final = 20_000
"""Monte Carlo samples a request may ask for: the default is also the most, which keeps one odds
request within the per-request work budget (docs/operations.md, "Hostile input")."""
MAX_SEEN: Final = COPIES_IN_SHOE * len(CARDS) - HAND_SIZE


class OddsSchema(BaseSchema):
    """A hand, the cards known to be out of the shoe, and how many opponents (docs/rules.md §12)."""

    cards = hand_field(required=True)
    trump = TrumpField()
    ruleset = RulesetField()
    seen = fields.List(
        CardField(),
        load_default=list,
        validate=validate.Length(max=MAX_SEEN),
        metadata={
            "description": (
                "Other cards known to be out of the shoe (e.g. hands shown earlier). Together "
                "with the hand, no card may appear more than 6 times (422 SHOE_EXCEEDED)."
            )
        },
    )
    opponents = fields.Integer(
        strict=True,
        load_default=1,
        validate=validate.Range(min=1, max=MAX_OPPONENTS),
        metadata={"description": "1 and 2 are exact; 3 is a seeded Monte Carlo estimate."},
    )
    samples = fields.Integer(
        strict=True,
        load_default=DEFAULT_SAMPLES,
        validate=validate.Range(min=1, max=MAX_ODDS_SAMPLES),
        metadata={"description": "Monte Carlo samples (3 opponents only; ignored otherwise)."},
    )
    seed = fields.Integer(
        strict=True,
        load_default=DEFAULT_SEED,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={"description": "Monte Carlo seed (3 opponents only): same seed, same answer."},
    )


@dataclass(frozen=True, slots=True)
class RequestSchemas:
    """The request schema classes of one app, with its configured limits baked in."""

    hand: type[ScoreSchema]
    batch: type[BaseSchema]
    showdown: type[ShowdownSchema]
    betting: type[BaseSchema]
    settle: type[BaseSchema]
    odds: type[OddsSchema] = OddsSchema


def request_schemas(config: Config) -> RequestSchemas:
    """Build the request schemas for ``config``'s batch and sequence limits."""

    class BatchScoreSchema(BaseSchema):
        """Up to the configured number of hands, scored in order; one bad hand rejects all."""

        hands = fields.List(
            fields.Nested(HandSchema),
            required=True,
            validate=validate.Length(min=1, max=config.max_batch_hands),
            metadata={"description": f"1 to {config.max_batch_hands} hands."},
        )
        breakdown = StrictBoolean(
            load_default=True,
            metadata={
                "description": "false: answer only each hand's score (the fast path).",
                "default": True,
            },
        )
        ruleset = RulesetField()

    class BettingSchema(BaseSchema):
        """A betting round's setup and its actions so far (section 9)."""

        players = fields.List(
            player_field(),
            required=True,
            validate=[
                validate.Length(
                    min=MIN_PLAYERS,
                    max=MAX_PLAYERS,
                    error=N_("a table seats {min} to {max} players").coded("WRONG_LENGTH"),
                ),
                Unique(N_("the player {item} is seated twice")),
            ],
            metadata={
                "description": f"{MIN_PLAYERS} to {MAX_PLAYERS} distinct player ids, clockwise.",
                "uniqueItems": True,
            },
        )
        dealer = player_field(required=True, metadata={"description": "One of the players."})
        ruleset = RulesetField()
        ante = money_field("Chips each player puts in before the deal.", required=True)
        minimum_stake = money_field(
            "Smallest first stake (default: the ante).", allow_none=True, load_default=None
        )
        maximum_stake = money_field(
            "Largest stake (default: none); at least the minimum stake.",
            allow_none=True,
            load_default=None,
        )
        actions = fields.List(
            fields.Nested(ActionSchema),
            load_default=list,
            validate=validate.Length(max=config.max_actions),
            metadata={"description": f"The actions in order, at most {config.max_actions}."},
        )
        trace = StrictBoolean(
            load_default=False,
            metadata={
                "description": "true: also answer `trace`, the state after each accepted action "
                "(the round's timeline, as long as the actions list at most).",
                "default": False,
            },
        )

    class SettleSchema(BettingSchema):
        """A finished round: the betting body, the trump and the showdown hands (section 10)."""

        class Meta:
            exclude = ("trace",)

        trump = TrumpField()
        hands = HandsByPlayer(
            MAX_PLAYERS,
            allow_none=True,
            load_default=None,
            metadata={
                "description": "The two showdown players' hands by player id; "
                "absent or null for an uncontested round."
            },
        )

    return RequestSchemas(
        ScoreSchema, BatchScoreSchema, ShowdownSchema, BettingSchema, SettleSchema
    )


# ------------------------------------------------------------------------------------------------
# Responses (documentation only)
# ------------------------------------------------------------------------------------------------


def _card_out(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(CARD_CODES), **kwargs)


def _cards_out(**kwargs: Any) -> fields.List[str]:
    return fields.List(_card_out(), **kwargs)


def _ruleset() -> fields.String:
    return fields.String(
        required=True,
        validate=validate.OneOf(RULESET_IDS),
        metadata={
            "description": "The ruleset this answer follows, by its canonical id (docs/rules.md "
            "§13.6): `classic/1` unless the request named another."
        },
    )


def _ruleset_sha256() -> fields.String:
    return fields.String(
        validate=validate.Regexp("^[0-9a-f]{64}$"),
        metadata={
            "description": "SHA-256 (hex) of the ruleset's switch values as canonical JSON "
            "(docs/rules.md §13.6); present only when the request named a ruleset."
        },
    )


def _int(description: str, **kwargs: Any) -> fields.Integer:
    return fields.Integer(metadata={"description": description}, **kwargs)


class CombinationSchema(BaseSchema):
    type = fields.String(required=True, validate=validate.OneOf([t.value for t in CombinationType]))
    cards = _cards_out(required=True, metadata={"description": "In card order."})
    points = _int("After trump doubling.", required=True)


class LooseCardSchema(BaseSchema):
    card = _card_out(required=True)
    points = _int("After trump doubling.", required=True)


class ScoredHandSchema(BaseSchema):
    """A hand's score and the declaration that reaches it."""

    cards = _cards_out(required=True, metadata={"description": "Canonical codes, as given."})
    trump = fields.String(required=True, allow_none=True, validate=validate.OneOf(SUIT_CODES))
    score = _int("The best total over all legal declarations.", required=True)
    combinations = fields.List(fields.Nested(CombinationSchema), required=True)
    loose = fields.List(fields.Nested(LooseCardSchema), required=True)


class ScoreResponseSchema(ScoredHandSchema):
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


class BatchResultSchema(BaseSchema):
    """``score`` always; the rest unless the request said ``"breakdown": false``."""

    score = _int("The hand's score.", required=True)
    cards = _cards_out()
    trump = fields.String(allow_none=True, validate=validate.OneOf(SUIT_CODES))
    combinations = fields.List(fields.Nested(CombinationSchema))
    loose = fields.List(fields.Nested(LooseCardSchema))


class BatchScoreResponseSchema(BaseSchema):
    results = fields.List(fields.Nested(BatchResultSchema), required=True)
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


class ShowdownHandResultSchema(BaseSchema):
    player = fields.String(required=True)
    cards = _cards_out(required=True)
    score = _int("The hand's score under the round's trump.", required=True)
    combinations = fields.List(fields.Nested(CombinationSchema), required=True)
    loose = fields.List(fields.Nested(LooseCardSchema), required=True)


class ShowdownResultSchema(BaseSchema):
    winner = fields.String(
        required=True, allow_none=True, metadata={"description": "Player id; null on a tie."}
    )
    tie = fields.Boolean(required=True)
    trump = fields.String(required=True, allow_none=True, validate=validate.OneOf(SUIT_CODES))
    hands = fields.List(fields.Nested(ShowdownHandResultSchema), required=True)


class ShowdownResponseSchema(ShowdownResultSchema):
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


class PlayerStateSchema(BaseSchema):
    player = fields.String(required=True)
    contributed = _int("Chips put in so far, ante included.", required=True)
    folded = fields.Boolean(required=True)


class LegalActionSchema(BaseSchema):
    """fold: type only; top_up and open: the exact ``amount``; stake: ``min`` and ``max``."""

    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES))
    amount = _int("The exact amount (top_up, open).")
    min = _int("Smallest legal stake (stake).")
    max = _int("Largest legal stake, null when unbounded (stake).", allow_none=True)


class ViolationSchema(BaseSchema):
    index = _int("Position of the first illegal action.", required=True)
    code = fields.String(required=True, validate=validate.OneOf([c.value for c in ReasonCode]))
    message = fields.String(required=True)


class BettingStateSchema(BaseSchema):
    phase = fields.String(required=True, validate=validate.OneOf([p.value for p in Phase]))
    pot = _int("Chips in the pot.", required=True)
    current_stake = _int("The most recent stake; null before any.", required=True, allow_none=True)
    players = fields.List(fields.Nested(PlayerStateSchema), required=True)
    to_act = fields.String(required=True, allow_none=True)
    top_up_pending = fields.Boolean(required=True)
    legal_actions = fields.List(fields.Nested(LegalActionSchema), required=True)
    showdown = fields.List(
        fields.String(),
        required=True,
        allow_none=True,
        metadata={"description": "The two players of the showdown, once opened."},
    )
    winner = fields.String(
        required=True, allow_none=True, metadata={"description": "Uncontested winner."}
    )


class BettingResponseSchema(BaseSchema):
    valid = fields.Boolean(required=True)
    error = fields.Nested(ViolationSchema, required=True, allow_none=True)
    state = fields.Nested(
        BettingStateSchema,
        required=True,
        metadata={"description": "After all actions if valid, else just before the first illegal."},
    )
    trace = fields.List(
        fields.Nested(BettingStateSchema),
        metadata={
            "description": "Only when the request asks for it (`trace: true`): the state after "
            "each accepted action, in order; it stops before the first illegal one."
        },
    )
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


class PayoutSchema(BaseSchema):
    player = fields.String(required=True)
    payout = _int("Chips received from the pot.", required=True)
    net = _int("Chips received minus chips put in (ante included).", required=True)


class SettleResponseSchema(BaseSchema):
    pot = _int("Chips in the pot.", required=True)
    players = fields.List(fields.Nested(PayoutSchema), required=True)
    winners = fields.List(fields.String(), required=True)
    showdown = fields.Nested(ShowdownResultSchema, required=True, allow_none=True)
    carried = _int(
        "Chips nobody was paid, carried to the next round: the whole pot on a showdown tie "
        "under `tie: carry` (docs/rules.md §13.4), else 0. Present only when the request named a "
        "ruleset; payouts plus `carried` always add up to the pot."
    )
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


class OddsResponseSchema(BaseSchema):
    """Showdown odds of a hand against the rest of the shoe."""

    cards = _cards_out(required=True, metadata={"description": "The hand, in card order."})
    trump = fields.String(required=True, allow_none=True, validate=validate.OneOf(SUIT_CODES))
    score = _int("The hand's score.", required=True)
    opponents = _int("Number of opponents.", required=True)
    remaining = _int("Physical cards left in the shoe (144 minus hand and seen).", required=True)
    exact = fields.Boolean(
        required=True,
        metadata={"description": "True: exact counts; false: seeded Monte Carlo estimate."},
    )
    win = fields.Float(required=True, metadata={"description": "Every opponent scores less."})
    tie = fields.Float(
        required=True, metadata={"description": "Nobody scores more, someone scores the same."}
    )
    loss = fields.Float(required=True, metadata={"description": "Some opponent scores more."})
    percentile = fields.Float(
        required=True,
        metadata={
            "description": (
                "Mid-rank of the hand among all C(144,4) hands of a full shoe, 0-100: "
                "100 x (lower + equal/2) / C(144,4)."
            )
        },
    )
    wins = _int("Exact only: opponent deals the hand beats.", required=True, allow_none=True)
    ties = _int("Exact only: opponent deals it ties.", required=True, allow_none=True)
    losses = _int("Exact only: opponent deals it loses to.", required=True, allow_none=True)
    total = _int(
        "Exact only: all equally likely ordered opponent deals (C(140,4) = 15,329,615 for one "
        "opponent and nothing seen).",
        required=True,
        allow_none=True,
    )
    samples = _int("Monte Carlo only: tables dealt.", required=True, allow_none=True)
    seed = _int("Monte Carlo only: the seed used.", required=True, allow_none=True)
    standard_error = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Monte Carlo only: the largest standard error of the three."},
    )
    ruleset = _ruleset()
    ruleset_sha256 = _ruleset_sha256()


class StatusSchema(BaseSchema):
    status = fields.String(required=True, validate=validate.OneOf(["ok", "ready"]))


class ProblemErrorSchema(BaseSchema):
    pointer = fields.String(
        required=True, metadata={"description": "RFC 6901 JSON pointer into the request body."}
    )
    message = fields.String(required=True)
    code = fields.String(
        required=True,
        metadata={
            "description": "What is wrong, as a stable machine code: the rules' own where a rule "
            "refused the value (`INVALID_CARD`, `WRONG_HAND_SIZE`, `SHOE_EXCEEDED`, ...), else "
            "the schema's (`UNKNOWN_FIELD`, `MISSING_FIELD`, `NOT_AN_INTEGER`, `OUT_OF_RANGE`, "
            "...): see the error table in docs/api.md."
        },
    )


class ProblemSchema(BaseSchema):
    """RFC 9457 problem details."""

    type = fields.String(
        required=True,
        validate=validate.OneOf([p.uri for p in PROBLEM_TYPES]),
        metadata={"description": "The problem type (a URN; see the table in the description)."},
    )
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "Stable machine-readable code."})
    errors = fields.List(
        fields.Nested(ProblemErrorSchema),
        metadata={"description": "Each refused field (validation problems only)."},
    )
