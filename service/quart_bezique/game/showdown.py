"""Showdown: docs/rules.md §8.

Two hands are compared by score under the round's trump; equal scores tie (no further tie-break).
The pair must be possible from one shoe: no card more than six times across both hands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import COPIES_IN_SHOE, Card, Suit, parse_suit
from .errors import RulesError
from .messages import N_
from .ruleset import CLASSIC, Ruleset, resolve_ruleset
from .scoring import HandScore, score_hand


class ShoeError(RulesError):
    """Hands that one six-deck shoe cannot hold together."""

    code = "SHOE_EXCEEDED"


@dataclass(frozen=True, slots=True)
class Showdown:
    """Both scored hands, in the order given, and the index (0 or 1) of the winner."""

    trump: Suit | None
    hands: tuple[HandScore, HandScore]
    winner: int | None
    """0 or 1, or None on a tie."""
    ruleset: Ruleset = CLASSIC

    @property
    def tie(self) -> bool:
        return self.winner is None


def check_shoe(hands: Sequence[Sequence[Card]]) -> None:
    """Refuse hands holding some card more than six times between them (sections 1 and 8)."""
    counts = Counter(c for hand in hands for c in hand)
    over = sorted((c for c, n in counts.items() if n > COPIES_IN_SHOE), key=lambda c: c.index)
    if over:
        worst = over[0]
        raise ShoeError(
            N_(
                "the hands hold {card} {times} times together; a shoe holds each card only "
                "{copies} times"
            ).format(card=worst.code, times=counts[worst], copies=COPIES_IN_SHOE)
        )


def compare_hands(
    first: Sequence[Card | str],
    second: Sequence[Card | str],
    trump: Suit | str | None = None,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> Showdown:
    """Score both hands under ``ruleset`` (docs/rules.md §13) and name the winner (section 8).
    Errors name the hand: path (0|1, ...)."""
    rules = resolve_ruleset(ruleset)
    trump_suit = parse_suit(trump)
    scored: list[HandScore] = []
    for i, hand in enumerate((first, second)):
        try:
            scored.append(score_hand(hand, trump_suit, rules))
        except RulesError as error:
            raise error.at(i) from None
    a, b = scored
    check_shoe([a.cards, b.cards])
    winner = None if a.score == b.score else (0 if a.score > b.score else 1)
    return Showdown(trump_suit, (a, b), winner, rules)
