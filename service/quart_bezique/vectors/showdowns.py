"""``showdowns.jsonl``: seeded pairs of hands, most dealt from one shoe as a table deals them,
some drawn among the distinct hands (so rare, high-scoring hands meet too), and a few pairs one
shoe cannot hold, which the rules refuse (docs/rules.md §8.3)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any, Final

from quart_bezique.game.cards import CARDS, COPIES_IN_SHOE, Card
from quart_bezique.game.ruleset import CLASSIC, Ruleset

from . import answers, deal, scores

ODD_SPELLING: Final = 0.05
REFUSED_EVERY: Final = 100
"""One request in this many holds a card more than six times between its two hands."""


def _fits(first: tuple[Card, ...], second: tuple[Card, ...]) -> bool:
    return max(Counter(first + second).values()) <= COPIES_IN_SHOE


def _pair(rng: random.Random, index: int) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    if index % REFUSED_EVERY == REFUSED_EVERY - 1:  # seven copies of one card between them
        card = rng.choice(CARDS)
        extra = deal.shoe_hands(rng, 1)[0]
        return (card, card, card, card), (card, card, card, extra[0])
    if rng.random() < 0.5:
        first, second = deal.shoe_hands(rng, 2)
        return first, second
    while True:
        first, second = rng.choice(scores.hands()), rng.choice(scores.hands())
        if _fits(first, second):
            return first, second


def request(rng: random.Random, index: int, ruleset: Ruleset) -> dict[str, Any]:
    first, second = _pair(rng, index)
    if rng.random() < 0.5:
        first, second = second, first
    names = deal.seats(rng, 2)
    body: dict[str, Any] = {
        "hands": [
            {"player": names[0], "cards": deal.spelled(rng, first, ODD_SPELLING)},
            {"player": names[1], "cards": deal.spelled(rng, second, ODD_SPELLING)},
        ],
        "trump": deal.trump(rng, ODD_SPELLING),
    }
    if ruleset != CLASSIC:
        body["ruleset"] = ruleset.id
    return body


def cases(ruleset: Ruleset, seed: int, count: int) -> Iterator[dict[str, Any]]:
    rng = deal.rng_for("showdowns", seed)
    for index in range(count):
        yield answers.case(request(rng, index, ruleset), answers.showdown)
