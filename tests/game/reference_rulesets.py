"""The independent reference for a hand's score (docs/rules.md §3 to §6) under every scoring
switch (§13.1 to §13.3): ``test_scoring.py`` checks ``classic/1`` against it (the default
``Switches()``), ``test_rulesets.py`` every other reading.

Written from the rules text alone. It reads a card only by its code (rank and suit letters),
names the combinations as §4 does (``three_of_a_kind``, …, the wire's names) and never calls the
service's scoring code, so a disagreement with the served tables points at a rule read two ways,
not at one shared mistake.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from quart_bezique.game.cards import Card

BLACK = frozenset({"S", "C"})
RANK_ORDER = ("9", "10", "J", "Q", "K", "A")
"""Rule 1.1: the order a coronka of ``coronka=consecutive`` runs in (no wrap)."""
LOOSE_POINTS = {"K": 1, "Q": 1, "J": 1, "10": 1, "A": 0, "9": 0}
"""Rule 3.1: aces and nines are fat, 0 points."""
FROM_KING = ({"K", "Q", "J"}, {"K", "Q", "J", "10"})
"""§13.2 ``from_king``: the source's two examples, and nothing else."""


@dataclass(frozen=True)
class Switches:
    """The three scoring switches of §13.1 to §13.3, spelled as on the wire."""

    three_aces: int = 6
    coronka: str = "consecutive"
    trump_doubles: str = "pure_trump"


ALL_SWITCHES = tuple(
    Switches(a, c, d)
    for a in (6, 0)
    for c in ("consecutive", "from_king")
    for d in ("pure_trump", "any_trump_card")
)
"""All eight scoring readings, ``classic/1``'s first."""


def rank_of(c: Card) -> str:
    return c.code[:-1]


def suit_of(c: Card) -> str:
    return c.code[-1]


def factor(cards: Sequence[Card], trump: str | None, rules: Switches) -> int:
    """Rule 6.2 and §13.3: 2 when the trump doubles a combination of these cards, else 1."""
    suits = {suit_of(c) for c in cards}
    if trump is None:
        return 1
    if rules.trump_doubles == "any_trump_card":
        return 2 if trump in suits else 1
    return 2 if suits == {trump} else 1


def is_bezique(cards: Sequence[Card]) -> bool:
    """Rule 4.4: a queen and a jack of different suits of one colour."""
    if len(cards) != 2 or sorted(rank_of(c) for c in cards) != ["J", "Q"]:
        return False
    a, b = (suit_of(c) for c in cards)
    return a != b and (a in BLACK) == (b in BLACK)


def is_coronka(cards: Sequence[Card], rules: Switches) -> bool:
    """Rule 4.6 and §13.2: three or four cards of one suit, distinct ranks in a run."""
    ranks = [rank_of(c) for c in cards]
    if len(cards) not in (3, 4) or len({suit_of(c) for c in cards}) != 1:
        return False
    if len(set(ranks)) != len(ranks):
        return False
    if rules.coronka == "from_king":
        return set(ranks) in FROM_KING
    positions = sorted(RANK_ORDER.index(r) for r in ranks)
    return positions == list(range(positions[0], positions[0] + len(cards)))


def kind_of(cards: Sequence[Card], rules: Switches = Switches()) -> str | None:
    """Which section 4 combination ``cards`` form by themselves (four of a kind and the double
    bezique aside), under §13.2's reading of a coronka; None when they form none."""
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    if len(cards) == 2 and sorted(ranks) == ["K", "Q"] and suits[0] == suits[1]:
        return "marriage"
    if is_bezique(cards):
        return "bezique"
    if len(cards) == 3 and len(set(ranks)) == 1:
        return "three_of_a_kind"
    if is_coronka(cards, rules):
        return "coronka"
    return None


def combination_points(
    kind: str, cards: Sequence[Card], trump: str | None, rules: Switches = Switches()
) -> int:
    """Section 4's points of a declared combination, doubled by §13.3's reading (§13.1 for three
    aces); ``double_bezique`` is two beziques declared together (rule 5.3), doubled as one."""
    if kind == "three_of_a_kind":
        base = rules.three_aces if rank_of(cards[0]) == "A" else 6
    elif kind == "four_of_a_kind":
        base = {"A": 0, "K": 8}.get(rank_of(cards[0]), 9)
    elif kind == "coronka":
        base = {3: 6, 4: 9}[len(cards)]
    else:
        base = {"marriage": 4, "bezique": 4, "double_bezique": 9}[kind]
    return base * factor(cards, trump, rules)


def loose_points(cards: Sequence[Card], trump: str | None) -> int:
    """Rules 3.1 and 6.1 (the same under every ruleset): a loose trump card counts twice."""
    return sum(LOOSE_POINTS[rank_of(c)] * (2 if suit_of(c) == trump else 1) for c in cards)


def _set_partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1 :]]


Declared = tuple[list[tuple[str, list[Card]]], list[Card]]
"""A declaration: its combinations (kind, cards) and its loose cards."""


def declarations(hand: Sequence[Card], rules: Switches) -> Iterator[Declared]:
    """Every declaration the rules allow: four of a kind alone (rule 5.1); else every way to cut
    the hand into blocks, each declared or loose, two beziques made one double bezique (5.3);
    and the one sharing rule 5.2 allows, a coronka of three with a bezique on one of its cards."""
    if len({rank_of(c) for c in hand}) == 1:
        yield [("four_of_a_kind", list(hand))], []
        return
    for partition in _set_partitions(list(range(len(hand)))):
        blocks = [[hand[i] for i in block] for block in partition]
        options = [[None, kind_of(block, rules)] for block in blocks]
        for kinds in itertools.product(*options):
            groups = [(k, b) for k, b in zip(kinds, blocks, strict=True) if k is not None]
            loose = [c for k, b in zip(kinds, blocks, strict=True) if k is None for c in b]
            beziques = [b for k, b in groups if k == "bezique"]
            if len(beziques) == 2:
                groups = [("double_bezique", [*beziques[0], *beziques[1]])]
            yield groups, loose
    for three in itertools.combinations(range(len(hand)), 3):
        (fourth,) = set(range(len(hand))) - set(three)
        coronka = [hand[i] for i in three]
        if is_coronka(coronka, rules):
            for i in three:
                if is_bezique([hand[i], hand[fourth]]):
                    yield [("coronka", coronka), ("bezique", [hand[i], hand[fourth]])], []


def reference_scores(
    hand: Sequence[Card], trumps: Sequence[str | None], rules: Switches = Switches()
) -> list[int]:
    """The hand's score under each of ``trumps``: the best total of its declarations (each
    distinct declaration scored once: many cuts of the hand leave the same cards loose)."""
    distinct = {
        (
            tuple(sorted((k, tuple(c.code for c in cs)) for k, cs in groups)),
            tuple(sorted(c.code for c in loose)),
        ): (groups, loose)
        for groups, loose in declarations(hand, rules)
    }
    return [
        max(
            sum(combination_points(kind, cards, trump, rules) for kind, cards in groups)
            + loose_points(loose, trump)
            for groups, loose in distinct.values()
        )
        for trump in trumps
    ]


def reference_score(hand: Sequence[Card], trump: str | None, rules: Switches = Switches()) -> int:
    """The hand's score under one trump setting (see ``reference_scores``)."""
    return reference_scores(hand, [trump], rules)[0]
