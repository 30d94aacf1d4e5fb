"""The round record (docs/round-record.md): one played round, kept by a platform and judged later.

A record is read by the API's own contract, not a copy of it: its schema is the settlement
request's (``SettleSchema``: the same fields, codes and JSON pointers) with the record's own
members added, so a record the service would refuse as a settlement body is refused here with the
same code at the same pointer. What the schema cannot see, the core's parsing then checks, in a
fixed order: the setup (``BettingSetup.create``), exactly one hand per seated player
(``HANDS_MISMATCH``), and every hand of the table together from one shoe (``SHOE_EXCEEDED`` at
``/hands``). A refusal is a ``RecordError`` (a ``RulesError``): its ``code`` and ``path`` are the
first problem's, and its ``problem`` is the API's whole 422.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from marshmallow import ValidationError, fields, missing, validate

from quart_bezique.api.config import Config
from quart_bezique.api.contract.fields import (
    HandsByPlayer,
    StrictBoolean,
    TrumpField,
    hand_field,
    player_field,
)
from quart_bezique.api.contract.problems import Problem, rules_problem
from quart_bezique.api.contract.reading import load
from quart_bezique.api.contract.schemas import BaseSchema, request_schemas
from quart_bezique.game.betting import MAX_MONEY, MAX_PLAYERS, BettingSetup
from quart_bezique.game.cards import Card, Suit, parse_card, parse_suit
from quart_bezique.game.errors import PathElement, RulesError
from quart_bezique.game.messages import N_
from quart_bezique.game.ruleset import Ruleset, resolve_ruleset
from quart_bezique.game.settlement import SettlementError
from quart_bezique.game.showdown import ShoeError, check_shoe

FORMAT: Final = "quart-bezique-round/1"
"""The record format this reader takes (``format``): a later format gets a new name."""
ROUND_ID_MAX_LENGTH: Final = 128


class RecordError(RulesError):
    """A record that cannot be judged: the code and path of its first problem, and the API's
    whole refusal (``problem``: every field the schema refuses, or the core's one)."""

    def __init__(self, problem: Problem) -> None:
        first = (problem.errors or [{}])[0]
        code = str(first.get("code", problem.code))
        message = first.get("message", problem.detail)
        super().__init__(message, code=code, path=_path_of(str(first.get("pointer", ""))))
        self.problem = problem


def _path_of(pointer: str) -> tuple[PathElement, ...]:
    """An RFC 6901 pointer back to a path (an all-digit step read as an index)."""
    if not pointer:
        return ()
    steps = [s.replace("~1", "/").replace("~0", "~") for s in pointer[1:].split("/")]
    return tuple(int(s) if s.isdigit() else s for s in steps)


# --------------------------------------------------------------------------------- the schema


def _count(description: str, **kwargs: Any) -> fields.Integer:
    """A claimed amount: chips may be 0 (a payout) or negative (a net), never a float."""
    return fields.Integer(strict=True, metadata={"description": description}, **kwargs)


class ClaimedPayoutSchema(BaseSchema):
    player = player_field(required=True)
    payout = _count("Chips the platform paid this player.")
    net = _count("The platform's net for this player (payout minus everything put in).")


class ClaimedShowdownHandSchema(BaseSchema):
    player = player_field(required=True)
    cards = hand_field()
    score = _count("The score the platform gave this hand.")


class _ClaimedTrump(TrumpField):
    """A trump as the request's field reads it, but absent stays absent: only what the
    platform claims is compared."""

    def __init__(self) -> None:
        super().__init__()
        self.load_default = missing


class ClaimedShowdownSchema(BaseSchema):
    winner = fields.String(allow_none=True, metadata={"description": "Null on a tie."})
    tie = StrictBoolean()
    trump = _ClaimedTrump()
    hands = fields.List(fields.Nested(ClaimedShowdownHandSchema), validate=validate.Length(max=2))


class ClaimSchema(BaseSchema):
    """The outcome the platform claims, named as the settlement answer names it."""

    pot = _count("Chips in the pot.", validate=validate.Range(min=0, max=MAX_MONEY))
    players = fields.List(
        fields.Nested(ClaimedPayoutSchema), validate=validate.Length(max=MAX_PLAYERS)
    )
    winners = fields.List(player_field(), validate=validate.Length(max=MAX_PLAYERS))
    showdown = fields.Nested(ClaimedShowdownSchema, allow_none=True)
    carried = _count("Chips carried to the next round.", validate=validate.Range(min=0))
    scores = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(strict=True),
        metadata={"description": "The score the platform gave each seated hand, by player."},
    )


def _round_id(value: Mapping[str, Any]) -> None:
    round_id = value.get("round_id")
    if "round_id" in value and (
        not isinstance(round_id, str) or not 1 <= len(round_id) <= ROUND_ID_MAX_LENGTH
    ):
        message = N_("a round id is text of {min} to {max} characters").format(
            min=1, max=ROUND_ID_MAX_LENGTH
        )
        raise ValidationError({"round_id": [message.coded("INVALID_ROUND_ID")]})


@dataclass(frozen=True, slots=True)
class RecordSchemas:
    record: type[BaseSchema]
    """A round record, as ``read_record`` takes it."""
    request: type[BaseSchema]
    """``POST /v1/rounds/adjudicate``: a record, and ``trace`` (not part of the record)."""


@cache
def record_schemas(config: Config | None = None) -> RecordSchemas:
    """The record's schemas under ``config``'s limits (the service's defaults without one)."""
    settle = request_schemas(config or Config()).settle

    class RoundRecordSchema(settle):  # type: ignore[valid-type, misc]
        """A played round (docs/round-record.md): the settlement request's members, every
        seated player's hand, and what the platform claims."""

        class Meta:
            exclude = ("trace",)

        format = fields.String(
            required=True,
            validate=validate.OneOf(
                [FORMAT], error=N_("the record format is {choices}").coded("UNKNOWN_FORMAT")
            ),
            metadata={"description": f"`{FORMAT}`."},
        )
        hands = HandsByPlayer(
            MAX_PLAYERS,
            required=True,
            metadata={"description": "Every seated player's four cards, by player id."},
        )
        claimed = fields.Nested(ClaimSchema, metadata={"description": "The platform's outcome."})
        context = fields.Dict(
            validate=_round_id,
            metadata={
                "description": "Free: the platform's `round_id` (text, 1 to 128 characters), "
                "table, time, ...; not judged, but covered by the request digest."
            },
        )

    class AdjudicateRequestSchema(RoundRecordSchema):
        """A round record, and whether to answer the betting's trace."""

        class Meta:
            exclude = ()

        trace = StrictBoolean(
            load_default=False,
            metadata={
                "description": "true: the betting verdict also gives `trace`, the state after "
                "each accepted action (not a member of the record).",
                "default": False,
            },
        )

    return RecordSchemas(RoundRecordSchema, AdjudicateRequestSchema)


# --------------------------------------------------------------------------------- the record


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A record the reader accepted: cards and trump canonical, the ruleset resolved."""

    players: tuple[str, ...]
    dealer: str
    ante: int
    minimum_stake: int | None
    maximum_stake: int | None
    trump: Suit | None
    hands: Mapping[str, tuple[Card, ...]]
    """Every seated player's hand, in seat order."""
    actions: tuple[Mapping[str, Any], ...]
    ruleset: Ruleset
    named: bool
    """Whether the record names its ruleset (the verdict then gives its digest)."""
    claimed: Mapping[str, Any] | None
    context: Mapping[str, Any] | None

    @property
    def round_id(self) -> str | None:
        found = None if self.context is None else self.context.get("round_id")
        return found if isinstance(found, str) else None


@cache
def _record_schema(config: Config | None) -> BaseSchema:
    """One schema instance per configuration: the contract's guard keeps what it learns per
    instance, so a new instance per record would grow a long run's memory record by record."""
    return record_schemas(config).record()


def read_record(data: Any, config: Config | None = None) -> RoundRecord:
    """A parsed JSON record, checked whole (``RecordError`` on the first refusal's code)."""
    try:
        loaded = load(_record_schema(config), data)
    except Problem as problem:
        raise RecordError(problem) from None
    return accepted(loaded)


def accepted(loaded: Mapping[str, Any]) -> RoundRecord:
    """A record the schema loaded, checked by the core (setup, one hand per seat, one shoe)."""
    try:
        return _checked(loaded)
    except RulesError as error:
        raise RecordError(rules_problem(error)) from None


def _checked(loaded: Mapping[str, Any]) -> RoundRecord:
    setup = BettingSetup.create(
        loaded["players"],
        loaded["dealer"],
        loaded["ante"],
        loaded.get("minimum_stake"),
        loaded.get("maximum_stake"),
    )
    given: Mapping[str, list[str]] = loaded["hands"]
    for player in setup.players:
        if player not in given:
            raise SettlementError(
                N_("the hand of {player} is missing").format(player=player),
                code="HANDS_MISMATCH",
                path=("hands", player),
            )
    for player in given:
        if player not in setup.players:
            raise SettlementError(
                N_("a hand was given for {player}, who is not seated").format(player=repr(player)),
                code="HANDS_MISMATCH",
                path=("hands", player),
            )
    hands = {p: tuple(parse_card(c) for c in given[p]) for p in setup.players}
    try:
        check_shoe(list(hands.values()))
    except ShoeError as error:
        raise error.at("hands") from None
    ruleset = loaded.get("ruleset")
    return RoundRecord(
        players=setup.players,
        dealer=setup.dealer,
        ante=setup.ante,
        minimum_stake=loaded.get("minimum_stake"),
        maximum_stake=loaded.get("maximum_stake"),
        trump=parse_suit(loaded.get("trump")),
        hands=hands,
        actions=tuple(loaded.get("actions", ())),
        ruleset=resolve_ruleset(ruleset),
        named="ruleset" in loaded,
        claimed=loaded.get("claimed"),
        context=loaded.get("context"),
    )
