"""Hand-written request checks for the hot endpoints.

Each ``*_ok`` function accepts exactly the bodies its marshmallow schema in ``schemas`` accepts
(``tests/api/test_fastcheck.py`` checks the equivalence on generated bodies), at a fraction of the
cost: no object per field, only ``type(...) is`` tests and dictionary lookups. A body that fails
here is handed to the schema, whose only remaining job is to explain the refusal; the rare body the
check refuses by mistake would therefore still be served, just more slowly.
"""

from __future__ import annotations

from typing import Any, Final

from service.api.contract.fields import PLAYER_MAX_LENGTH, PLAYER_MIN_LENGTH
from service.api.contract.schemas import ACTION_TYPES, FOLD
from service.game.betting import MAX_MONEY, MAX_PLAYERS, MIN_PLAYERS
from service.game.cards import CARD_BY_SPELLING, HAND_SIZE, SUIT_BY_SPELLING

_CARDS: Final = CARD_BY_SPELLING
_SUITS: Final = SUIT_BY_SPELLING
_ACTION_TYPES: Final = frozenset(ACTION_TYPES)
_BETTING_KEYS: Final = frozenset(
    ("players", "dealer", "ante", "minimum_stake", "maximum_stake", "actions")
)
_SETTLE_KEYS: Final = _BETTING_KEYS | {"trump", "hands"}
_VALIDATE_KEYS: Final = _BETTING_KEYS | {"trace"}


def trump_ok(value: Any) -> bool:
    return value is None or (type(value) is str and value in _SUITS)


def cards_ok(cards: Any) -> bool:
    if type(cards) is not list or len(cards) != HAND_SIZE:
        return False
    for c in cards:  # noqa: SIM110 - a plain loop: no generator frame on the hot path
        if type(c) is not str or c not in _CARDS:
            return False
    return True


def hand_ok(body: Any) -> bool:
    """``HandSchema``: ``{"cards": [4 cards], "trump"?: suit | null}``."""
    if type(body) is not dict:
        return False
    size = len(body)
    if size != 1 and (size != 2 or not trump_ok(body.get("trump", 0))):
        return False
    return cards_ok(body.get("cards"))


def player_ok(value: Any) -> bool:
    return type(value) is str and PLAYER_MIN_LENGTH <= len(value) <= PLAYER_MAX_LENGTH


def money_ok(value: Any) -> bool:
    return type(value) is int and 1 <= value <= MAX_MONEY


def batch_ok(body: Any, max_hands: int) -> bool:
    """``BatchScoreSchema``: ``{"hands": [1..max hands], "breakdown"?: bool}``."""
    if type(body) is not dict:
        return False
    size = len(body)
    if size != 1 and (size != 2 or type(body.get("breakdown")) is not bool):
        return False
    hands = body.get("hands")
    if type(hands) is not list or not 1 <= len(hands) <= max_hands:
        return False
    for hand in hands:  # noqa: SIM110 - a plain loop: no generator frame per batch
        if not hand_ok(hand):
            return False
    return True


def showdown_ok(body: Any) -> bool:
    """``ShowdownSchema``: two ``{"player", "cards"}`` hands, distinct players, optional trump."""
    if type(body) is not dict:
        return False
    size = len(body)
    if size != 1 and (size != 2 or not trump_ok(body.get("trump", 0))):
        return False
    hands = body.get("hands")
    if type(hands) is not list or len(hands) != 2:
        return False
    for hand in hands:
        if (
            type(hand) is not dict
            or len(hand) != 2
            or not player_ok(hand.get("player"))
            or not cards_ok(hand.get("cards"))
        ):
            return False
    return bool(hands[0]["player"] != hands[1]["player"])


def action_ok(action: Any) -> bool:
    """``ActionSchema`` (also how ``guard.explain`` finds the actions worth explaining)."""
    if type(action) is not dict or not player_ok(action.get("player")):
        return False
    kind = action.get("type")
    if type(kind) is not str or kind not in _ACTION_TYPES:
        return False
    if kind == FOLD:
        return len(action) == 2
    return len(action) == 3 and money_ok(action.get("amount"))


def _optional_money_ok(body: dict[str, Any], key: str) -> bool:
    value = body.get(key)
    return value is None or money_ok(value)


def betting_ok(body: Any, max_actions: int, *, settle: bool = False) -> bool:
    """``BettingSchema`` (or ``SettleSchema`` when ``settle``)."""
    if type(body) is not dict:
        return False
    allowed = _SETTLE_KEYS if settle else _VALIDATE_KEYS
    for key in body:
        if key not in allowed:
            return False
    if type(body.get("trace", False)) is not bool:
        return False
    players = body.get("players")
    if type(players) is not list or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        return False
    for player in players:
        if not player_ok(player):
            return False
    if len(set(players)) != len(players):
        return False
    if not (
        player_ok(body.get("dealer"))
        and money_ok(body.get("ante"))
        and _optional_money_ok(body, "minimum_stake")
        and _optional_money_ok(body, "maximum_stake")
    ):
        return False
    if "actions" in body:  # absent means none yet; null is refused like the schema does
        actions = body["actions"]
        if type(actions) is not list or len(actions) > max_actions:
            return False
        for action in actions:
            if not action_ok(action):
                return False
    if settle:
        return trump_ok(body.get("trump")) and _hands_by_player_ok(body.get("hands"))
    return True


def _hands_by_player_ok(hands: Any) -> bool:
    if hands is None:
        return True
    if type(hands) is not dict or len(hands) > MAX_PLAYERS:
        return False
    for player, cards in hands.items():
        if not PLAYER_MIN_LENGTH <= len(player) <= PLAYER_MAX_LENGTH or not cards_ok(cards):
            return False
    return True
