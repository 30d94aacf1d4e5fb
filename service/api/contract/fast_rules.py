"""The fast checks of the contract's own fields, validators and schema rules (``checks.py``).

Each entry says, in the compiler's vocabulary, exactly what one custom piece of ``fields.py`` or
``schemas.py`` accepts, next to nothing else: the one place where a custom validation has a fast
twin. A piece may instead carry the same statement itself, as a ``fast_check`` attribute or method
(which ``checks.fast_check_of`` prefers); an entry here is for the pieces that do not yet.
Anything custom with neither is not compiled (``NotCompilable``), so a new field cannot be
accepted by a fast check that knows nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from service.api.contract import fields as contract_fields
from service.api.contract.checks import (
    AllDifferent,
    Distinct,
    FastCheck,
    Identical,
    Mapping,
    Member,
    PresentUnless,
)
from service.api.contract.schemas import FOLD, ActionSchema, ShowdownSchema
from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING

_BY_CLASS: Final[dict[type, Callable[[Any], FastCheck]]] = {
    # CardField: a string the core's parser takes, i.e. one of its spellings
    contract_fields.CardField: lambda field: Member(frozenset(CARD_BY_SPELLING)),
    # TrumpField: a suit spelling (null is the field's allow_none)
    contract_fields.TrumpField: lambda field: Member(frozenset(SUIT_BY_SPELLING)),
    # StrictBoolean: JSON true or false only
    contract_fields.StrictBoolean: lambda field: Identical((True, False)),
    # HandsByPlayer: {player id (1 to 64 characters): hand}, at most max_players entries
    contract_fields.HandsByPlayer: lambda field: Mapping(
        field._max_players,
        contract_fields.PLAYER_MIN_LENGTH,
        contract_fields.PLAYER_MAX_LENGTH,
        field.hand,
    ),
    # Unique (validator)
    contract_fields.Unique: lambda validator: AllDifferent(),
}
_BY_FUNCTION: Final[dict[object, FastCheck]] = {
    # ShowdownSchema._distinct_players: the two hands' players differ
    ShowdownSchema._distinct_players: Distinct("hands", "player"),
    # ActionSchema._amount_matches_type: amount exactly when the type is not a fold
    ActionSchema._amount_matches_type: PresentUnless("amount", "type", frozenset({FOLD})),
}


def rule_for(owner: object) -> FastCheck | None:
    """The fast check kept here for ``owner``'s exact class (a subclass may accept otherwise),
    or for the schema method ``owner``."""
    make = _BY_CLASS.get(type(owner))
    if make is not None:
        return make(owner)
    try:
        return _BY_FUNCTION.get(owner)
    except TypeError:  # unhashable: nothing kept for it
        return None
