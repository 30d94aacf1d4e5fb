"""Seeded betting rounds, played by the reference itself: each move is drawn from the legal
actions the core offers at that point (docs/rules.md §9.10), and each wrong move from amounts
and players near the edges the rules draw, so that every reason code of §9.11 comes up."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from quart_bezique.game.betting import (
    MAX_MONEY,
    ActionType,
    BettingResult,
    BettingState,
    LegalAction,
)
from quart_bezique.wire import calls

from . import deal

STRANGER: Final = "zed"
"""A player id no table is seated with (``deal.NAMES`` does not hold it)."""
WEIGHTS: Final = {
    ActionType.FOLD: 1.0,
    ActionType.STAKE: 4.0,
    ActionType.TOP_UP: 4.0,
    ActionType.OPEN: 2.0,
}
"""How often each offered action is taken: rounds long enough to raise, top up and open."""


def setup(rng: random.Random) -> dict[str, Any]:
    """A table (2 to 4 seats, a dealer, an ante, sometimes a minimum and a maximum stake). One
    in twelve antes almost fills the pot limit (docs/rules.md §9.8)."""
    players = deal.seats(rng, rng.randrange(2, 5))
    body: dict[str, Any] = {"players": players, "dealer": rng.choice(players)}
    if rng.random() < 1 / 12:
        body["ante"] = MAX_MONEY // len(players) - rng.randrange(0, 60)
        body["minimum_stake"] = 1
        return body
    ante = rng.choice((1, 2, 5, 10, 10, 20, 25, 50, 100, 7, 3))
    body["ante"] = ante
    if rng.random() < 0.4:
        body["minimum_stake"] = rng.choice((1, ante, 2 * ante, ante + 3))
    if rng.random() < 0.4:
        floor = body.get("minimum_stake", ante)
        body["maximum_stake"] = floor * rng.choice((1, 2, 3, 5, 10)) + rng.choice((0, 0, 7))
    return body


def judge(body: dict[str, Any], actions: Sequence[dict[str, Any]]) -> BettingResult:
    return calls.betting({**body, "actions": list(actions)})


def _weighted(rng: random.Random, options: Sequence[LegalAction]) -> LegalAction:
    total = sum(WEIGHTS[o.type] for o in options)
    point = rng.random() * total
    for option in options:
        point -= WEIGHTS[option.type]
        if point < 0:
            return option
    return options[-1]


def _stake_amount(rng: random.Random, low: int, high: int) -> int:
    if rng.random() < 0.03:
        return high
    amounts = [low, low, low + 1, 2 * low, low + rng.randrange(3 * low + 1)]
    return min(rng.choice(amounts), high)


def legal_move(rng: random.Random, state: BettingState, hurry: bool) -> dict[str, Any]:
    """One of the moves the state offers; ``hurry`` takes the shortest way to the end (an
    opening when offered, else a fold or the owed top-up)."""
    options = state.legal_actions
    if hurry:
        quick = [o for o in options if o.type in (ActionType.OPEN, ActionType.TOP_UP)]
        options = tuple(quick[:1]) or tuple(o for o in options if o.type is ActionType.FOLD)
    chosen = _weighted(rng, options)
    move: dict[str, Any] = {"player": state.to_act, "type": chosen.type.value}
    if chosen.type is ActionType.STAKE:
        assert chosen.min is not None and chosen.max is not None
        move["amount"] = _stake_amount(rng, chosen.min, chosen.max)
    elif chosen.amount is not None:
        move["amount"] = chosen.amount
    return move


def play(
    rng: random.Random, body: dict[str, Any], length: int, finish: bool
) -> tuple[list[dict[str, Any]], BettingResult]:
    """Legal moves until the round ends, or ``length`` moves when not ``finish`` (then the
    round may still be going); with ``finish``, past ``length`` it hurries to an end."""
    actions: list[dict[str, Any]] = []
    result = judge(body, actions)
    while result.state.to_act is not None:
        if len(actions) >= length and not finish:
            break
        actions.append(legal_move(rng, result.state, hurry=len(actions) >= length))
        result = judge(body, actions)
    return actions, result


def _amounts(body: dict[str, Any], state: BettingState) -> list[int]:
    """Amounts at the edges: the minimum, the maximum, the current stake, the owed top-up, the
    opening, one either side of each, and the largest amount money can be."""
    ante = body["ante"]
    edges = [1, 2, ante, body.get("minimum_stake", ante), MAX_MONEY]
    if "maximum_stake" in body:
        edges.append(body["maximum_stake"])
    if state.current_stake is not None:
        edges.extend((state.current_stake, 2 * state.current_stake))
    edges.extend(o.amount for o in state.legal_actions if o.amount is not None)
    near = {e + d for e in edges for d in (-1, 0, 1)}
    return sorted(a for a in near if 1 <= a <= MAX_MONEY)


def wrong_move(rng: random.Random, body: dict[str, Any], state: BettingState) -> dict[str, Any]:
    """A move that is probably illegal here: a stranger, a player out of turn, or the player to
    act with an action or amount off the edge (the core's verdict says whether and why)."""
    draw = rng.random()
    if draw < 0.08:
        player = STRANGER
    elif draw < 0.3 or state.to_act is None:
        player = rng.choice(body["players"])
    else:
        player = state.to_act
    kind = rng.choice(tuple(ActionType))
    move: dict[str, Any] = {"player": player, "type": kind.value}
    if kind is not ActionType.FOLD:
        move["amount"] = rng.choice(_amounts(body, state))
    return move
