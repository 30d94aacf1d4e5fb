"""``settlements.jsonl``: seeded finished rounds with the hands they need, settled (showdowns
won, tied and tied over an odd pot, and uncontested rounds), then rounds the rules refuse to
settle (docs/rules.md §10.4), each refusal a fixed number of times."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Final

from quart_bezique.game.cards import Card
from quart_bezique.game.ruleset import CLASSIC, Ruleset
from quart_bezique.game.scoring import score_hand

from . import answers, deal, rounds

ODD_SPELLING: Final = 0.05
TIE_SHARE: Final = 0.35
"""Showdowns whose hands are drawn to score the same: ties, and odd chips when the pot is odd."""
TIE_DRAWS: Final = 60
REFUSALS: Final = (
    "ROUND_INVALID",
    "ROUND_NOT_FINISHED",
    "HANDS_MISMATCH/missing",
    "HANDS_MISMATCH/extra",
    "HANDS_MISMATCH/uncontested",
    "HANDS_MISMATCH/none",
    "SHOE_EXCEEDED",
)
"""The refusals written, each ``per_refusal`` times (a kind of ``HANDS_MISMATCH`` per path)."""


def _score(hand: tuple[Card, ...], trump: str | None, ruleset: Ruleset) -> int:
    return score_hand(hand, trump, ruleset).score


def _hands(
    rng: random.Random, trump: str | None, ruleset: Ruleset
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    first, second = deal.shoe_hands(rng, 2)
    if rng.random() < TIE_SHARE:
        for _ in range(TIE_DRAWS):
            if _score(first, trump, ruleset) == _score(second, trump, ruleset):
                break
            first, second = deal.shoe_hands(rng, 2)
    return first, second


def _finished(rng: random.Random) -> tuple[dict[str, Any], tuple[str, str] | None]:
    body = rounds.setup(rng)
    actions, result = rounds.play(rng, body, rng.randrange(0, 12), finish=True)
    body["actions"] = actions
    return body, result.state.showdown


def _named(body: dict[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    if ruleset != CLASSIC:
        body["ruleset"] = ruleset.id
    return body


def settled(rng: random.Random, ruleset: Ruleset) -> dict[str, Any]:
    body, pair = _finished(rng)
    if rng.random() < 0.8:
        body["trump"] = deal.trump(rng, ODD_SPELLING)
    if pair is None:
        draw = rng.random()
        if draw < 0.25:
            body["hands"] = {}
        elif draw < 0.5:
            body["hands"] = None
        return _named(body, ruleset)
    first, second = _hands(rng, body.get("trump"), ruleset)
    body["hands"] = {
        pair[0]: deal.spelled(rng, first, ODD_SPELLING),
        pair[1]: deal.spelled(rng, second, ODD_SPELLING),
    }
    return _named(body, ruleset)


def _showdown_round(rng: random.Random) -> tuple[dict[str, Any], tuple[str, str]]:
    while True:
        body, pair = _finished(rng)
        if pair is not None:
            return body, pair


def _uncontested_round(rng: random.Random) -> tuple[dict[str, Any], str]:
    while True:
        body, pair = _finished(rng)
        if pair is None:
            return body, rounds.judge(body, body["actions"]).state.winner or ""


def refused(rng: random.Random, kind: str, ruleset: Ruleset) -> dict[str, Any]:
    """A round the rules refuse to settle, for the reason ``kind`` names."""
    if kind == "ROUND_INVALID":
        body = rounds.setup(rng)
        actions, result = rounds.play(rng, body, rng.randrange(0, 8), rng.random() < 0.3)
        while rounds.judge(body, actions).valid:
            actions.append(rounds.wrong_move(rng, body, result.state))
            result = rounds.judge(body, actions)
        body["actions"] = actions
        return _named(body, ruleset)
    if kind == "ROUND_NOT_FINISHED":
        body = rounds.setup(rng)
        actions, result = rounds.play(rng, body, rng.randrange(0, 8), finish=False)
        while result.state.to_act is None:  # ended early: play another one
            body = rounds.setup(rng)
            actions, result = rounds.play(rng, body, rng.randrange(0, 8), finish=False)
        body["actions"] = actions
        body["hands"] = {}
        return _named(body, ruleset)
    if kind == "HANDS_MISMATCH/uncontested":
        body, winner = _uncontested_round(rng)
        body["hands"] = {winner: [c.code for c in deal.shoe_hands(rng, 1)[0]]}
        return _named(body, ruleset)
    body, pair = _showdown_round(rng)
    first, second = deal.shoe_hands(rng, 2)
    hands = {pair[0]: [c.code for c in first], pair[1]: [c.code for c in second]}
    if kind == "HANDS_MISMATCH/missing":
        del hands[pair[rng.randrange(2)]]
    elif kind == "HANDS_MISMATCH/extra":
        others = [p for p in body["players"] if p not in pair] + [rounds.STRANGER]
        hands[rng.choice(others)] = [c.code for c in deal.shoe_hands(rng, 1)[0]]
    elif kind == "SHOE_EXCEEDED":
        card = rng.choice(deal.SHOE).code
        hands = {pair[0]: [card] * 4, pair[1]: [card] * 3 + [hands[pair[1]][0]]}
    body["hands"] = None if kind == "HANDS_MISMATCH/none" else hands
    return _named(body, ruleset)


def cases(ruleset: Ruleset, seed: int, count: int, per_refusal: int) -> Iterator[dict[str, Any]]:
    rng = deal.rng_for("settlements", seed)
    for _ in range(count):
        yield answers.case(settled(rng, ruleset), answers.settlement)
    for kind in REFUSALS:
        for _ in range(per_refusal):
            yield answers.case(refused(rng, kind, ruleset), answers.settlement)
