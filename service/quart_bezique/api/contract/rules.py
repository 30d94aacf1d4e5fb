"""The ruleset as data (``GET /v1/rules``): built once from the core's own tables and constants, so
what clients display can never drift from what the service computes.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import fields, validate

from quart_bezique.api.config import Config
from quart_bezique.api.contract.fields import (
    CARD_PATTERN,
    PLAYER_MAX_LENGTH,
    PLAYER_MIN_LENGTH,
    RULESET_IDS,
    TRUMP_PATTERN,
)
from quart_bezique.api.contract.schemas import BaseSchema
from quart_bezique.game import betting, scoring
from quart_bezique.game.cards import (
    COPIES_IN_SHOE,
    HAND_SIZE,
    RANKS,
    RUSSIAN_RANKS,
    RUSSIAN_SUITS,
    SUITS,
    Rank,
    Suit,
)
from quart_bezique.game.ruleset import CLASSIC, Ruleset
from quart_bezique.game.scoring import CombinationType

_SUIT_NAMES = {
    Suit.SPADES: "spades",
    Suit.CLUBS: "clubs",
    Suit.HEARTS: "hearts",
    Suit.DIAMONDS: "diamonds",
}
_RANK_ALIASES = {Rank.TEN: ["T"]}
SPECIFICATION = "docs/rules.md"
"""The rules specification, in the service's source repository (sections anchored ``#sN``)."""


def _four_of_a_kind_points() -> dict[str, int]:
    return {
        rank.value: scoring.FOUR_OF_A_KIND_POINTS.get(rank, scoring.FOUR_OF_A_KIND_DEFAULT_POINTS)
        for rank in RANKS
    }


def _three_of_a_kind(ruleset: Ruleset) -> dict[str, Any]:
    kind: dict[str, Any] = {
        "type": CombinationType.THREE_OF_A_KIND.value,
        "cards": 3,
        "description": "Three cards of one rank (any suits, duplicates allowed).",
    }
    if ruleset.three_aces == scoring.THREE_OF_A_KIND_POINTS:
        kind["points"] = scoring.THREE_OF_A_KIND_POINTS
    else:  # switch three_aces (docs/rules.md §13.1)
        kind["description"] += " Three aces score nothing, like four aces."
        kind["points_by_rank"] = {
            rank.value: ruleset.three_aces if rank is Rank.ACE else scoring.THREE_OF_A_KIND_POINTS
            for rank in RANKS
        }
    return kind


_CORONKA: Final = {
    "consecutive": "Three or four cards of one suit with consecutive ranks "
    "(9 10 J Q K A, no wrap).",
    "from_king": "K-Q-J or K-Q-J-10 of one suit, and no other run (switch coronka, §13.2).",
}
_TRUMP_COMBINATIONS: Final = {
    "pure_trump": "A combination scores its points times the factor only when all its cards are "
    "of the trump suit; a bezique always mixes suits and is never doubled.",
    "any_trump_card": "A combination scores its points times the factor when at least one of its "
    "cards is of the trump suit, beziques and double beziques included (switch trump_doubles, "
    "§13.3).",
}


def _combinations(ruleset: Ruleset) -> list[dict[str, Any]]:
    kinds = CombinationType
    return [
        _three_of_a_kind(ruleset),
        {
            "type": kinds.FOUR_OF_A_KIND.value,
            "cards": 4,
            "description": "All four cards of one rank; takes the whole hand (rule 5.1).",
            "points_by_rank": _four_of_a_kind_points(),
        },
        {
            "type": kinds.MARRIAGE.value,
            "cards": 2,
            "description": "King and queen of the same suit.",
            "points": scoring.MARRIAGE_POINTS,
        },
        {
            "type": kinds.BEZIQUE.value,
            "cards": 2,
            "description": "Queen and jack of different suits of the same colour.",
            "points": scoring.BEZIQUE_POINTS,
        },
        {
            "type": kinds.DOUBLE_BEZIQUE.value,
            "cards": 4,
            "description": "Two beziques with no card in common (instead of their sum).",
            "points": scoring.DOUBLE_BEZIQUE_POINTS,
        },
        {
            "type": kinds.CORONKA.value,
            "cards": sorted(scoring.CORONKA_POINTS),
            "description": _CORONKA[ruleset.coronka],
            "points_by_length": {str(n): p for n, p in sorted(scoring.CORONKA_POINTS.items())},
        },
    ]


def rules_document(
    config: Config, ruleset: Ruleset = CLASSIC, named: bool = False
) -> dict[str, Any]:
    """Everything a client needs to display and check scores under ``ruleset``, and the
    service's limits. ``named``: the request named the ruleset, so the document also gives its
    digest and switch values (docs/rules.md §13.6); without it, ``classic/1``'s document is
    exactly what it was before rulesets existed."""
    base = ruleset.preset or CLASSIC.id
    name, _, version = base.partition("/")
    document: dict[str, Any] = {
        "ruleset": ruleset.id,
        "name": name,
        "version": int(version),
        "specification": {
            "document": SPECIFICATION,
            "ruleset": ruleset.id,
            "notation": SPECIFICATION + "#s2",
        },
        "cards": {
            "ranks": [
                {
                    "code": r.value,
                    "aliases": _RANK_ALIASES.get(r, []),
                    "russian": [a for a in RUSSIAN_RANKS[r] if not a.isdigit()],
                    "points": r.points,
                }
                for r in RANKS
            ],
            "suits": [
                {
                    "code": s.value,
                    "name": _SUIT_NAMES[s],
                    "symbol": s.symbol,
                    "colour": "black" if s.is_black else "red",
                    "russian": list(RUSSIAN_SUITS[s]),
                }
                for s in SUITS
            ],
            "pattern": CARD_PATTERN,
            "case_insensitive": True,
        },
        "shoe": {
            "decks": COPIES_IN_SHOE,
            "copies_per_card": COPIES_IN_SHOE,
            "cards": COPIES_IN_SHOE * len(RANKS) * len(SUITS),
        },
        "hand_size": HAND_SIZE,
        "combinations": _combinations(ruleset),
        "sharing": "A card belongs to at most one declared combination, except that a bezique "
        "may share one card with a coronka (rule 5.2).",
        "trump": {
            "pattern": TRUMP_PATTERN,
            "factor": scoring.TRUMP_FACTOR,
            "loose_cards": "A loose card of the trump suit scores its points times the factor.",
            "combinations": _TRUMP_COMBINATIONS[ruleset.trump_doubles],
        },
        "betting": {
            "min_players": betting.MIN_PLAYERS,
            "max_players": betting.MAX_PLAYERS,
            "money": {"min": 1, "max": betting.MAX_MONEY},
            "action_types": [t.value for t in betting.ActionType],
            "reason_codes": [c.value for c in betting.ReasonCode],
        },
        "limits": {
            "max_body_bytes": config.max_body_bytes,
            "max_batch_hands": config.max_batch_hands,
            "max_actions": config.max_actions,
            "player_id_length": {"min": PLAYER_MIN_LENGTH, "max": PLAYER_MAX_LENGTH},
        },
    }
    if named:
        document["ruleset_sha256"] = ruleset.digest
        document["switches"] = ruleset.switches()
    return document


# --- documentation of the document (response schema only) ----------------------------------


def _nested(schema: type[BaseSchema], **kwargs: Any) -> fields.Nested:
    return fields.Nested(schema, required=True, **kwargs)


class SpecificationSchema(BaseSchema):
    document = fields.String(
        required=True,
        metadata={"description": "The rules specification, in the source repository."},
    )
    ruleset = fields.String(required=True, metadata={"description": "The ruleset it specifies."})
    notation = fields.String(required=True, metadata={"description": "Its card notation section."})


class RankSchema(BaseSchema):
    code = fields.String(required=True)
    aliases = fields.List(fields.String(), required=True)
    russian = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Russian rank letters (all-Cyrillic codes only)."},
    )
    points = fields.Integer(required=True, metadata={"description": "Points when loose."})


class SuitSchema(BaseSchema):
    code = fields.String(required=True)
    name = fields.String(required=True)
    symbol = fields.String(required=True)
    colour = fields.String(required=True, validate=validate.OneOf(["black", "red"]))
    russian = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Russian suit letters (all-Cyrillic codes only)."},
    )


class CardsRulesSchema(BaseSchema):
    ranks = fields.List(fields.Nested(RankSchema), required=True)
    suits = fields.List(fields.Nested(SuitSchema), required=True)
    pattern = fields.String(required=True)
    case_insensitive = fields.Boolean(required=True)


class ShoeSchema(BaseSchema):
    decks = fields.Integer(required=True)
    copies_per_card = fields.Integer(required=True)
    cards = fields.Integer(required=True)


class CombinationRuleSchema(BaseSchema):
    type = fields.String(required=True, validate=validate.OneOf([t.value for t in CombinationType]))
    cards = fields.Raw(
        required=True,
        metadata={
            "description": "Number of cards (a list when several).",
            "oneOf": [
                {"type": "integer", "minimum": 2, "maximum": 4},
                {"type": "array", "items": {"type": "integer", "minimum": 2, "maximum": 4}},
            ],
        },
    )
    description = fields.String(required=True)
    points = fields.Integer()
    points_by_rank = fields.Dict(keys=fields.String(), values=fields.Integer())
    points_by_length = fields.Dict(keys=fields.String(), values=fields.Integer())


class TrumpRulesSchema(BaseSchema):
    pattern = fields.String(required=True)
    factor = fields.Integer(required=True)
    loose_cards = fields.String(required=True)
    combinations = fields.String(required=True)


class RangeSchema(BaseSchema):
    min = fields.Integer(required=True)
    max = fields.Integer(required=True)


class BettingRulesSchema(BaseSchema):
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    money = _nested(RangeSchema)
    action_types = fields.List(fields.String(), required=True)
    reason_codes = fields.List(fields.String(), required=True)


class LimitsSchema(BaseSchema):
    max_body_bytes = fields.Integer(required=True)
    max_batch_hands = fields.Integer(required=True)
    max_actions = fields.Integer(required=True)
    player_id_length = _nested(RangeSchema)


class RulesSchema(BaseSchema):
    """The ruleset as data."""

    ruleset = fields.String(required=True, validate=validate.OneOf(RULESET_IDS))
    ruleset_sha256 = fields.String(
        validate=validate.Regexp("^[0-9a-f]{64}$"),
        metadata={"description": "Present when the request named a ruleset (§13.6)."},
    )
    switches = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={"description": "Each switch's value; present when the request named a ruleset."},
    )
    name = fields.String(
        required=True, metadata={"description": "The preset's name (a custom ruleset's base)."}
    )
    version = fields.Integer(required=True)
    specification = _nested(SpecificationSchema)
    cards = _nested(CardsRulesSchema)
    shoe = _nested(ShoeSchema)
    hand_size = fields.Integer(required=True)
    combinations = fields.List(fields.Nested(CombinationRuleSchema), required=True)
    sharing = fields.String(required=True)
    trump = _nested(TrumpRulesSchema)
    betting = _nested(BettingRulesSchema)
    limits = _nested(LimitsSchema)
