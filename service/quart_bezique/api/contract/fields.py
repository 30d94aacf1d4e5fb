"""Marshmallow fields for the wire notation of docs/rules.md section 2.

Each field validates with the core's own parser (one definition of what a card or a trump is) and
carries the JSON Schema keywords that describe exactly the same set of values in ``openapi.yaml``:
the pattern below matches precisely the spellings in ``cards.CARD_BY_SPELLING`` (a test checks it).
Fields carry no ``example``: out of context one misleads (a lone card shown as a hand); the
operations carry real requests and the service's real answers to them instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import ValidationError, fields, validate

from quart_bezique.api.contract.checks import (
    AllDifferent,
    FastCheck,
    Identical,
    Member,
    Resolves,
)
from quart_bezique.api.contract.checks import Mapping as MappingCheck
from quart_bezique.api.contract.error_codes import CountOf, coded
from quart_bezique.game.betting import MAX_MONEY
from quart_bezique.game.cards import (
    CARD_BY_SPELLING,
    CARDS,
    HAND_SIZE,
    SUIT_BY_SPELLING,
    SUITS,
    CardError,
    TrumpError,
    parse_card,
    parse_suit,
)
from quart_bezique.game.messages import N_, NP_, Message
from quart_bezique.game.ruleset import (
    BY_ID,
    PRESETS,
    SWITCHES,
    Ruleset,
    RulesetError,
    resolve_ruleset,
)

CARD_PATTERN: Final = (
    "^(?:(?:10|[9TJQKAtjqka])[SCHDschd♠♣♥♦]|(?:10|9|[ТВДКтвдк])[ПТКЧБпткчб]|[ВДКвдк][♠♣♥♦])$"
)
"""Every spelling the core accepts (docs/rules.md §2): Latin codes, all-Cyrillic codes, and
Cyrillic face cards before a suit symbol (never a Cyrillic Т, which would read as a Latin T)."""
"""Rank (9 10 T J Q K A, any case) then suit (S C H D, any case, or a suit symbol)."""
TRUMP_PATTERN: Final = "^[SCHDschd♠♣♥♦ПТКЧБпткчб]$"
CARD_CODES: Final[tuple[str, ...]] = tuple(c.code for c in CARDS)
SUIT_CODES: Final[tuple[str, ...]] = tuple(s.value for s in SUITS)
PLAYER_MIN_LENGTH: Final = 1
PLAYER_MAX_LENGTH: Final = 64

CARD_DESCRIPTION: Final = (
    "A card: rank (9 10 J Q K A; T for 10) then suit (S C H D, or ♠ ♣ ♥ ♦), any letter case, "
    "e.g. `KS`, `10h`, `T♦`; or in Russian, all in Cyrillic: rank (9 10 В Д К Т, where Т is the "
    "ace) then suit (П Т/К Ч Б), e.g. `КП`, `10ч`, `Тб`. Mixed scripts are refused "
    "(docs/rules.md §2). Answers always use the canonical form (`10`, upper case, Latin)."
)
TRUMP_DESCRIPTION: Final = (
    "The trump suit (S C H D or Cyrillic П Т/К Ч Б, any case, or ♠ ♣ ♥ ♦); null or absent for "
    "the game without trumps."
)


class JsonSchemaMixin:
    """Fields whose ``metadata["json_schema"]`` holds JSON Schema keywords apispec does not know
    (``propertyNames``); ``openapi.field_extras`` merges them into the generated property."""


class CardField(fields.String):
    """One card in any accepted spelling; loads to the canonical code."""

    def fast_check(self) -> FastCheck:
        """A string the core's card parser takes: one of its spellings."""
        return Member(frozenset(CARD_BY_SPELLING))

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": CARD_PATTERN, "description": CARD_DESCRIPTION}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return parse_card(text).code
        except CardError as error:
            raise ValidationError(coded(error.reason, error.code)) from None


class TrumpField(fields.String):
    """A trump suit in any accepted spelling, or null; loads to the canonical letter or None."""

    def fast_check(self) -> FastCheck:
        """A suit spelling (null is the field's ``allow_none``)."""
        return Member(frozenset(SUIT_BY_SPELLING))

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": TRUMP_PATTERN, "description": TRUMP_DESCRIPTION}
        super().__init__(allow_none=True, load_default=None, metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            suit = parse_suit(text)
        except TrumpError as error:
            raise ValidationError(coded(error.reason, error.code)) from None
        assert suit is not None  # a str never parses to "no trump"
        return suit.value


def hand_field(**kwargs: Any) -> fields.List[str]:
    """Exactly four cards (section 1); the same card may appear more than once."""
    return fields.List(
        CardField(),
        validate=CountOf(
            equal=HAND_SIZE,
            words=NP_(
                "a hand holds exactly {equal} card, not {count}",
                "a hand holds exactly {equal} cards, not {count}",
                "equal",
            ),
            code="WRONG_HAND_SIZE",
        ),
        metadata={"description": f"Exactly {HAND_SIZE} cards, in any order."},
        **kwargs,
    )


def player_field(**kwargs: Any) -> fields.String:
    """A player id: any string of 1 to 64 characters chosen by the client."""
    metadata = {"description": "A player id chosen by the client (1 to 64 characters)."}
    metadata.update(kwargs.pop("metadata", {}))
    return fields.String(
        validate=validate.Length(
            min=PLAYER_MIN_LENGTH,
            max=PLAYER_MAX_LENGTH,
            error=N_("a player's name has {min} to {max} characters").coded("WRONG_LENGTH"),
        ),
        metadata=metadata,
        **kwargs,
    )


def money_field(description: str, **kwargs: Any) -> fields.Integer:
    """Chips (section 2): a JSON integer from 1 to 2^53-1; no floats, booleans or strings."""
    return fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=MAX_MONEY),
        metadata={"description": description},
        **kwargs,
    )


class StrictBoolean(fields.Boolean):
    """JSON ``true`` or ``false`` only (marshmallow's Boolean also takes "yes", 1, ...)."""

    def fast_check(self) -> FastCheck:
        return Identical((True, False))

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if value is True or value is False:
            return value
        raise ValidationError(N_("must be true or false").coded("NOT_A_BOOLEAN"))


class Unique(validate.Validator):
    """Every item of a list is different (JSON Schema ``uniqueItems``); ``words`` says so in the
    list's own terms ("the player {item} is seated twice")."""

    def __init__(self, words: Message | None = None) -> None:
        self.words = words or N_("{item} appears more than once; each must be different")

    def fast_check(self) -> FastCheck:
        return AllDifferent()

    def __call__(self, value: list[Any]) -> list[Any]:
        seen: set[Any] = set()
        for item in value:
            if item in seen:
                raise ValidationError(coded(self.words.format(item=repr(item)), "DUPLICATE_VALUE"))
            seen.add(item)
        return value


class HandsByPlayer(fields.Field[dict[str, list[str]]], JsonSchemaMixin):
    """``{player id: [4 cards]}``: errors point at ``/<player id>/<card index>``.

    A plain ``fields.Dict`` would nest its errors under ``key``/``value``, which are not pointers.
    """

    def fast_check(self) -> FastCheck:
        """At most ``max_players`` entries, each a player id (its length bounded) and a hand."""
        return MappingCheck(self._max_players, PLAYER_MIN_LENGTH, PLAYER_MAX_LENGTH, self.hand)

    def __init__(self, max_players: int, **kwargs: Any) -> None:
        self._hand = hand_field()
        self._max_players = max_players
        metadata = {
            "description": "Each showdown player's cards, by player id.",
            "maxProperties": max_players,
            "additionalProperties": {},  # replaced by the hand schema in openapi.field_extras
            "json_schema": {
                "propertyNames": {"minLength": PLAYER_MIN_LENGTH, "maxLength": PLAYER_MAX_LENGTH}
            },
        }
        metadata.update(kwargs.pop("metadata", {}))
        super().__init__(metadata=metadata, **kwargs)

    @property
    def hand(self) -> fields.List[str]:
        return self._hand

    def _deserialize(
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> dict[str, list[str]]:
        if not isinstance(value, Mapping):
            raise ValidationError(N_("must be an object with named fields").coded("NOT_AN_OBJECT"))
        if len(value) > self._max_players:
            raise ValidationError(
                coded(
                    N_("at most {max} hands, not {count}").format(
                        max=self._max_players, count=len(value)
                    ),
                    "TOO_MANY_PLAYERS",
                )
            )
        errors: dict[str, Any] = {}
        hands: dict[str, list[str]] = {}
        for player, cards in value.items():
            if not PLAYER_MIN_LENGTH <= len(player) <= PLAYER_MAX_LENGTH:
                errors[player] = [
                    coded(
                        N_("a player id has {min} to {max} characters, not {length}").format(
                            min=PLAYER_MIN_LENGTH, max=PLAYER_MAX_LENGTH, length=len(player)
                        ),
                        "INVALID_PLAYER",
                    )
                ]
                continue
            try:
                loaded = self._hand.deserialize(cards) or []
                hands[player] = [c for c in loaded if c is not None]
            except ValidationError as error:
                errors[player] = error.messages
        if errors:
            raise ValidationError(errors)
        return hands


RULESET_IDS: Final[tuple[str, ...]] = (*PRESETS, *sorted(i for i in BY_ID if i not in PRESETS))
"""Every string that names a ruleset: the presets, then every other combination's id."""
RULESET_DESCRIPTION: Final = (
    "The rules to judge by (docs/rules.md §13); absent: `classic/1`, and the answer is exactly "
    "what it was before rulesets existed. Either a ruleset's id, exactly as answers name it (a "
    "preset such as `literal/1`, or `classic/1:` and the switches that differ from it), or an "
    "object: an optional `base` (an id; default `classic/1`) and the switches to change."
)


RULESET_CHOICE: Final = "RulesetChoice"
"""The name of the request's ruleset schema among the document's components (one definition,
referred to by every request that takes a ruleset)."""


def ruleset_choice_schema() -> dict[str, Any]:
    """What a request may send as its ``ruleset``: exactly what the core's resolver takes."""
    identifier = {"$ref": "#/components/schemas/RulesetId"}
    switches = {s.name: {"enum": list(s.values)} for s in SWITCHES}
    return {
        "description": RULESET_DESCRIPTION,
        "oneOf": [
            identifier,
            {
                "type": "object",
                "properties": {"base": identifier, **switches},
                "additionalProperties": False,
            },
        ],
    }


def _load_ruleset(value: Any) -> Ruleset:
    """The core's reading, its refusals pointing into the field (``("tie",)``, ``("base",)``).
    Null is not a ruleset on the wire (the core reads None as "the default"): the field refuses
    it before this runs, and the derived check must refuse it too."""
    if value is None:
        raise RulesetError(
            N_("a ruleset is a preset's name, a ruleset id or an object of switches")
        )
    return resolve_ruleset(value, ())


class RulesetField(fields.Field[Ruleset], JsonSchemaMixin):
    """A ruleset (docs/rules.md §13.6), read by the core's own resolver: a string id or an object
    of switches. Its JSON Schema lists exactly what the resolver takes."""

    def fast_check(self) -> FastCheck:
        return Resolves(_load_ruleset, RulesetError)

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"json_schema": {"$ref": f"#/components/schemas/{RULESET_CHOICE}"}}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Ruleset:
        try:
            return _load_ruleset(value)
        except RulesetError as error:
            message = coded(error.message, error.code)
            if not error.path:
                raise ValidationError(message) from None
            raise ValidationError({str(error.path[0]): [message]}) from None
