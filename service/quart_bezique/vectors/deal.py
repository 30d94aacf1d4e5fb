"""Seeded cards, trumps and seats for the generated files. Only ``random.Random``'s seeding,
``randrange``, ``choice`` and ``random`` are used: their results are fixed for a seed across
Python versions, so a seed writes the same corpus everywhere."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from quart_bezique.game.cards import (
    CARD_BY_SPELLING,
    CARDS,
    COPIES_IN_SHOE,
    HAND_SIZE,
    SUIT_BY_SPELLING,
    Card,
    Suit,
)
from quart_bezique.game.scoring import TRUMP_SETTINGS

NAMES: Final = ("ann", "bob", "cid", "dan", "eve", "fay", "гриша", "zoë")
"""Player ids: any strings; two are not ASCII, so an engine is checked on those too."""

SHOE: Final = tuple(c for c in CARDS for _ in range(COPIES_IN_SHOE))


def _spellings() -> dict[Card, tuple[str, ...]]:
    by_card: dict[Card, list[str]] = {}
    for spelling, card in CARD_BY_SPELLING.items():
        by_card.setdefault(card, []).append(spelling)
    return {card: tuple(sorted(found)) for card, found in by_card.items()}


SPELLINGS: Final = _spellings()
TRUMP_SPELLINGS: Final[dict[Suit, tuple[str, ...]]] = {
    suit: tuple(sorted(s for s, named in SUIT_BY_SPELLING.items() if named is suit))
    for suit in Suit
}


def rng_for(name: str, seed: int) -> random.Random:
    """One generator per file, so that each file depends on the seed and nothing else."""
    return random.Random(f"quart-bezique-vectors/{name}/{seed}")


def shoe_hands(rng: random.Random, count: int) -> list[tuple[Card, ...]]:
    """``count`` hands dealt from one shuffled shoe (docs/rules.md §1.4)."""
    left = list(range(len(SHOE)))
    dealt = []
    for _ in range(count * HAND_SIZE):
        dealt.append(SHOE[left.pop(rng.randrange(len(left)))])
    return [tuple(dealt[i : i + HAND_SIZE]) for i in range(0, len(dealt), HAND_SIZE)]


def spelled(rng: random.Random, hand: Sequence[Card], odd: float) -> list[str]:
    """The hand's codes; with chance ``odd`` each card in another accepted spelling
    (docs/rules.md §2.2), so that an engine's reading of the notation is checked too."""
    return [rng.choice(SPELLINGS[c]) if rng.random() < odd else c.code for c in hand]


def trump(rng: random.Random, odd: float) -> str | None:
    """A trump setting, uniformly; with chance ``odd`` a suit is written another way."""
    suit = rng.choice(TRUMP_SETTINGS)
    if suit is None:
        return None
    return rng.choice(TRUMP_SPELLINGS[suit]) if rng.random() < odd else suit.value


def seats(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct player ids, in a seeded order."""
    pool = list(NAMES)
    return [pool.pop(rng.randrange(len(pool))) for _ in range(count)]
