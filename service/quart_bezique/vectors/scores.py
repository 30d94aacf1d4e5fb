"""``scores.jsonl``: every distinct hand under every trump setting, in a fixed order, so that any
line (and so any chunk) can be rebuilt from its number alone, without the lines before it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, Final

from quart_bezique.game.cards import Card, Suit
from quart_bezique.game.ruleset import CLASSIC, Ruleset
from quart_bezique.game.scoring import TRUMP_SETTINGS, distinct_hands

from . import answers

SETTINGS: Final = len(TRUMP_SETTINGS)
"""Five lines per hand: no trump, then S, C, H, D (docs/rules.md §5.7)."""


@cache
def hands() -> tuple[tuple[Card, ...], ...]:
    """The 17,550 distinct hands in card order (docs/rules.md §1.5, §2.7), each in card order."""
    return tuple(distinct_hands())


def count() -> int:
    return len(hands()) * SETTINGS


def request(index: int, ruleset: Ruleset) -> dict[str, Any]:
    """Line ``index``'s request: hand ``index // 5`` under trump setting ``index % 5``. A ruleset
    other than ``classic/1`` is named by its id, so its answers carry its digest too."""
    hand = hands()[index // SETTINGS]
    trump: Suit | None = TRUMP_SETTINGS[index % SETTINGS]
    body: dict[str, Any] = {
        "cards": [c.code for c in hand],
        "trump": None if trump is None else trump.value,
    }
    if ruleset != CLASSIC:
        body["ruleset"] = ruleset.id
    return body


def cases(ruleset: Ruleset, start: int = 0, stop: int | None = None) -> Iterator[dict[str, Any]]:
    """Lines ``start`` to ``stop - 1`` (to the end when ``stop`` is None)."""
    end = count() if stop is None else min(stop, count())
    for index in range(start, end):
        yield answers.case(request(index, ruleset), answers.score)
