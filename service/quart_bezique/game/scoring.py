"""Hand scoring: docs/rules.md §3 to §6 (worked examples in §7, the reported declaration §5.5).

Two layers, one definition. ``search_declaration`` is the definition: every legal declaration of
the four cards, the best total, ties broken by rule 5.5; it is slow and meant to be read.
``ScoreTable`` is derived from it, per trump setting, keyed by a number the cards' order does not
change, so serving a hand is one lookup. The search's results ship as data
(``quart_bezique.game.tables``, docs/performance.md, "Shipped tables"); the tests check them byte
for byte against the search and the table against the search over the whole hand space, so the table
can never be "another implementation" of a rule.
"""

from __future__ import annotations

import functools
import itertools
import operator
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .cards import (
    CARD_BY_SPELLING,
    CARDS,
    HAND_SIZE,
    SUITS,
    Card,
    Rank,
    Suit,
    parse_card,
    parse_suit,
)
from .errors import RulesError
from .messages import N_
from .reading_cache import BUILT_TABLES_KEPT as BUILT_TABLES_KEPT  # re-exported for its callers
from .reading_cache import ReadingCache
from .ruleset import CLASSIC, Ruleset, ScoringRules, resolve_ruleset
from .tables import SCORES, TableError, load, pack, unpack

CLASSIC_SCORING: Final = CLASSIC.scoring


class CombinationType(StrEnum):
    """Combinations of section 4, declared in the table's order (which the tie-break uses)."""

    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    MARRIAGE = "marriage"
    BEZIQUE = "bezique"
    DOUBLE_BEZIQUE = "double_bezique"
    CORONKA = "coronka"


_TYPE_ORDER: Final = {kind: i for i, kind in enumerate(CombinationType)}

THREE_OF_A_KIND_POINTS: Final = 6
FOUR_OF_A_KIND_POINTS: Final = {Rank.ACE: 0, Rank.KING: 8}
FOUR_OF_A_KIND_DEFAULT_POINTS: Final = 9
MARRIAGE_POINTS: Final = 4
BEZIQUE_POINTS: Final = 4
DOUBLE_BEZIQUE_POINTS: Final = 9
CORONKA_POINTS: Final = {3: 6, 4: 9}
TRUMP_FACTOR: Final = 2


@dataclass(frozen=True, slots=True)
class Combination:
    """A declared combination: its cards in card order and its points after trump doubling."""

    type: CombinationType
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class LooseCard:
    """A card in no declared combination, with its own points after trump doubling (rule 5.4)."""

    card: Card
    points: int


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The declaration that reaches a hand's score; shared by every hand with the same cards."""

    score: int
    combinations: tuple[Combination, ...]
    loose: tuple[LooseCard, ...]


@dataclass(frozen=True, slots=True)
class HandScore:
    """A scored hand: the cards as given (canonical instances), the trump, score and breakdown."""

    cards: tuple[Card, ...]
    trump: Suit | None
    score: int
    combinations: tuple[Combination, ...]
    loose: tuple[LooseCard, ...]
    ruleset: Ruleset = CLASSIC


class HandError(RulesError):
    """A hand that is not a legal Quart-Bezique hand (wrong size, a card more than 6 times)."""

    code = "INVALID_HAND"


# --------------------------------------------------------------------------------------------
# The definition: combinations, legal declarations, the best one.
# --------------------------------------------------------------------------------------------


def _card_order(c: Card) -> int:
    return c.index


_FROM_KING: Final = (
    frozenset({Rank.KING, Rank.QUEEN, Rank.JACK}),
    frozenset({Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN}),
)
"""The coronkas of switch ``coronka=from_king`` (docs/rules.md §13.2): the source's two examples."""


def _is_coronka(cards: Sequence[Card], coronka: str) -> bool:
    """Coronka shape (rule 4.6, switch §13.2): one suit, distinct ranks forming a run of
    9 10 J Q K A (no wrap); under ``from_king`` only K-Q-J and K-Q-J-10."""
    if len({c.suit for c in cards}) != 1:
        return False
    if coronka == "from_king":
        return len({c.rank for c in cards}) == len(cards) and {c.rank for c in cards} in _FROM_KING
    ranks = sorted(c.rank.index for c in cards)
    return all(b == a + 1 for a, b in itertools.pairwise(ranks))


def _same_colour_queen_jack(q: Card, j: Card) -> bool:
    return (
        q.rank is Rank.QUEEN
        and j.rank is Rank.JACK
        and q.suit is not j.suit
        and q.suit.is_black == j.suit.is_black
    )


@functools.cache
def combination_type(
    cards: tuple[Card, ...], coronka: str = CLASSIC.coronka
) -> CombinationType | None:
    """Which section 4 combination these cards form by themselves, if any (four of a kind aside).

    Cached because the whole hand space asks about the same few hundred card groups again and again.
    """
    if len(cards) == 2:
        a, b = cards
        if {a.rank, b.rank} == {Rank.KING, Rank.QUEEN} and a.suit is b.suit:
            return CombinationType.MARRIAGE
        if _same_colour_queen_jack(a, b) or _same_colour_queen_jack(b, a):
            return CombinationType.BEZIQUE
        return None
    if len(cards) == 3 and len({c.rank for c in cards}) == 1:
        return CombinationType.THREE_OF_A_KIND
    if len(cards) in CORONKA_POINTS and _is_coronka(cards, coronka):
        return CombinationType.CORONKA
    return None


def _base_points(kind: CombinationType, cards: Sequence[Card], rules: ScoringRules) -> int:
    if kind is CombinationType.THREE_OF_A_KIND:
        return rules.three_aces if cards[0].rank is Rank.ACE else THREE_OF_A_KIND_POINTS
    if kind is CombinationType.FOUR_OF_A_KIND:
        return FOUR_OF_A_KIND_POINTS.get(cards[0].rank, FOUR_OF_A_KIND_DEFAULT_POINTS)
    if kind is CombinationType.MARRIAGE:
        return MARRIAGE_POINTS
    if kind is CombinationType.BEZIQUE:
        return BEZIQUE_POINTS
    if kind is CombinationType.DOUBLE_BEZIQUE:
        return DOUBLE_BEZIQUE_POINTS
    return CORONKA_POINTS[len(cards)]


def _doubled(cards: Sequence[Card], trump: Suit | None, rules: ScoringRules) -> bool:
    """Rule 6.2: every card a trump; under ``trump_doubles=any_trump_card`` (§13.3) any one."""
    if trump is None:
        return False
    if rules.trump_doubles == "any_trump_card":
        return any(c.suit is trump for c in cards)
    return all(c.suit is trump for c in cards)


@functools.cache
def combination_points(
    kind: CombinationType,
    cards: tuple[Card, ...],
    trump: Suit | None,
    rules: ScoringRules = CLASSIC_SCORING,
) -> int:
    """Section 4 points, doubled when the trump doubles the combination (section 6, §13.3).

    Cached: the hand space holds a few hundred distinct combinations, asked about 100,000 times.
    """
    base = _base_points(kind, cards, rules)
    return base * TRUMP_FACTOR if _doubled(cards, trump, rules) else base


def loose_points(c: Card, trump: Suit | None) -> int:
    """Section 3 points of a loose card, doubled when it is a trump (section 6)."""
    return c.points * TRUMP_FACTOR if c.suit is trump else c.points


@dataclass(frozen=True, slots=True)
class Candidate:
    """A combination found in the hand: its type and the positions (in the hand) of its cards."""

    type: CombinationType
    positions: frozenset[int]


Group = tuple[CombinationType, tuple[Card, ...]]


@dataclass(frozen=True, slots=True)
class Declaration:
    """One legal way to declare: combination groups (two beziques folded into a double bezique,
    rule 5.3) and the cards left loose. Independent of the trump; only its points depend on it,
    and those are worked out once for every trump setting (``totals``, in ``TRUMP_SETTINGS``
    order) because the table asks for all five."""

    groups: tuple[Group, ...]
    loose: tuple[Card, ...]
    totals: tuple[int, ...]

    def points(self, trump: Suit | None) -> int:
        """The total this declaration scores (sections 4 to 6) under ``trump``."""
        return self.totals[_SETTING_INDEX[trump]]

    def tie_break_key(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Rule 5.5's fixed choice: see the module docstring."""
        return tuple(
            (_TYPE_ORDER[kind], tuple(c.index for c in cards)) for kind, cards in self.groups
        )


TRUMP_SETTINGS: Final[tuple[Suit | None, ...]] = (None, *SUITS)
_SETTING_INDEX: Final[dict[Suit | None, int]] = {t: i for i, t in enumerate(TRUMP_SETTINGS)}


def _totals(groups: Sequence[Group], loose: Sequence[Card], rules: ScoringRules) -> tuple[int, ...]:
    """A declaration's points under each trump setting, from the section 4-6 point rules.

    A trump can only double what holds a card of its suit, so a group or loose card adds its
    plain points everywhere and its extra points under each suit among its cards that doubles it.
    """
    plain = 0
    extra = dict.fromkeys(SUITS, 0)
    for kind, cards in groups:
        points = combination_points(kind, cards, None, rules)
        plain += points
        for suit in {c.suit for c in cards}:
            extra[suit] += combination_points(kind, cards, suit, rules) - points
    for c in loose:
        plain += loose_points(c, None)
        extra[c.suit] += loose_points(c, c.suit) - loose_points(c, None)
    return (plain, *(plain + extra[suit] for suit in SUITS))


_N_CARDS: Final = len(CARDS)


def _kinds_by_index(size: int, coronka: str) -> dict[tuple[int, ...], CombinationType]:
    """``combination_type`` over every sorted group of ``size`` cards, keyed by card indexes."""
    found: dict[tuple[int, ...], CombinationType] = {}
    for group in itertools.combinations_with_replacement(CARDS, size):
        kind = combination_type(group, coronka)
        if kind is not None:
            found[tuple(c.index for c in group)] = kind
    return found


@functools.cache
def _kind_by_indexes(coronka: str) -> dict[tuple[int, ...], CombinationType]:
    """Every pair and triple that forms a combination: built from ``combination_type`` (about 3,000
    calls) so that scanning the 11 groups of a hand is 11 dictionary lookups on small int tuples.
    Built on first use: only the search needs it, and a server answers from the shipped tables."""
    return {**_kinds_by_index(2, coronka), **_kinds_by_index(3, coronka)}


def _four_card_kind(hand: Sequence[Card], coronka: str) -> CombinationType | None:
    # Four cards of one rank are rule 5.1's business; otherwise only a coronka of four remains.
    return combination_type(tuple(hand), coronka) if len({c.suit for c in hand}) == 1 else None


_POSITION_GROUPS: Final = tuple(
    frozenset(positions)
    for size in (2, 3)
    for positions in itertools.combinations(range(HAND_SIZE), size)
)
_INDEX_PICKERS: Final = tuple(operator.itemgetter(*sorted(group)) for group in _POSITION_GROUPS)
_ALL_POSITIONS: Final = frozenset(range(HAND_SIZE))


def candidates(hand: Sequence[Card], rules: ScoringRules = CLASSIC_SCORING) -> list[Candidate]:
    """Every combination the hand (in card order) contains, each group of positions tried once."""
    indexes = tuple(c.index for c in hand)
    kind_by_indexes = _kind_by_indexes(rules.coronka)
    found = [
        Candidate(kind, positions)
        for positions, pick in zip(_POSITION_GROUPS, _INDEX_PICKERS, strict=True)
        if (kind := kind_by_indexes.get(pick(indexes))) is not None
    ]
    four = _four_card_kind(hand, rules.coronka)
    if four is not None:
        found.append(Candidate(four, _ALL_POSITIONS))
    return found


def may_share(a: Candidate, b: Candidate) -> bool:
    """Rule 5.2: disjoint, except that a bezique may share one card with a coronka."""
    shared = len(a.positions & b.positions)
    if shared == 0:
        return True
    kinds = {a.type, b.type}
    return shared == 1 and kinds == {CombinationType.BEZIQUE, CombinationType.CORONKA}


def _declaration(
    hand: Sequence[Card], chosen: Sequence[Candidate], rules: ScoringRules
) -> Declaration:
    beziques = [d for d in chosen if d.type is CombinationType.BEZIQUE]
    double = len(beziques) == 2
    groups: list[Group] = [
        (d.type, _sorted_cards(hand[p] for p in d.positions))
        for d in chosen
        if not (double and d.type is CombinationType.BEZIQUE)
    ]
    if double:
        cards = _sorted_cards(hand[p] for d in beziques for p in d.positions)
        groups.append((CombinationType.DOUBLE_BEZIQUE, cards))
    groups.sort(key=lambda g: (_TYPE_ORDER[g[0]], tuple(c.index for c in g[1])))
    used = frozenset().union(*(d.positions for d in chosen))
    loose = _sorted_cards(hand[p] for p in range(len(hand)) if p not in used)
    return Declaration(tuple(groups), loose, _totals(groups, loose, rules))


def legal_declarations(
    hand: Sequence[Card], rules: ScoringRules = CLASSIC_SCORING
) -> list[Declaration]:
    """Every set of combinations the holder may declare together (the empty set included).

    Rule 5.1 first: four cards of one rank can only be declared as four of a kind. Independent of
    the trump (only points depend on it), so the table asks once per hand.
    """
    hand = _sorted_cards(hand)
    if len(hand) == HAND_SIZE and len({c.rank for c in hand}) == 1:
        kind = CombinationType.FOUR_OF_A_KIND
        return [Declaration(((kind, hand),), (), _totals([(kind, hand)], (), rules))]
    found = candidates(hand, rules)
    if not found:
        return [Declaration((), hand, _totals((), hand, rules))]
    return [
        _declaration(hand, chosen, rules)
        for size in range(len(found) + 1)
        for chosen in itertools.combinations(found, size)
        if all(may_share(a, b) for a, b in itertools.combinations(chosen, 2))
    ]


def _sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=_card_order))


def breakdown(
    declared: Declaration, trump: Suit | None, rules: ScoringRules = CLASSIC_SCORING
) -> Breakdown:
    """The declaration as reported: its combinations and loose cards with points under ``trump``."""
    combos = tuple(
        _combination(kind, cards, combination_points(kind, cards, trump, rules))
        for kind, cards in declared.groups
    )
    loose = tuple(_loose_card(c, loose_points(c, trump)) for c in declared.loose)
    score = sum(c.points for c in combos) + sum(lc.points for lc in loose)
    return Breakdown(score, combos, loose)


@functools.cache
def _combination(kind: CombinationType, cards: tuple[Card, ...], points: int) -> Combination:
    """Shared instances: the table holds 87,750 breakdowns made of a few hundred distinct parts."""
    return Combination(kind, cards, points)


@functools.cache
def _loose_card(c: Card, points: int) -> LooseCard:
    return LooseCard(c, points)


def best_declaration(declarations: Sequence[Declaration], trump: Suit | None) -> Declaration:
    """Rule 5.5: the highest total; among equals, the documented fixed choice."""
    if len(declarations) == 1:
        return declarations[0]
    setting = _SETTING_INDEX[trump]
    best_points = max(d.totals[setting] for d in declarations)
    best = [d for d in declarations if d.totals[setting] == best_points]
    return best[0] if len(best) == 1 else min(best, key=Declaration.tie_break_key)


def search_declaration(
    hand: Sequence[Card], trump: Suit | None = None, rules: ScoringRules = CLASSIC_SCORING
) -> Breakdown:
    """The definition of a hand's score: the best legal declaration, ties broken as documented."""
    return breakdown(best_declaration(legal_declarations(hand, rules), trump), trump, rules)


# --------------------------------------------------------------------------------------------
# The derived table: every distinct hand, every trump setting, precomputed from the definition.
# --------------------------------------------------------------------------------------------

_COUNT_BITS: Final = 3
"""Bits per card in a hand key: a 4-card hand holds a card at most 4 times, which fits in 3."""

CARD_WEIGHT: Final[tuple[int, ...]] = tuple(1 << (_COUNT_BITS * c.index) for c in CARDS)
"""A hand's key is the sum of its cards' weights: a multiset count vector packed in one int."""

WEIGHT_BY_SPELLING: Final[dict[str, int]] = {
    spelling: CARD_WEIGHT[c.index] for spelling, c in CARD_BY_SPELLING.items()
}
"""Every accepted card spelling straight to its weight: the batch fast path's only lookup."""


def hand_key(cards: Sequence[Card]) -> int:
    """The order-independent key of a hand."""
    return sum(CARD_WEIGHT[c.index] for c in cards)


def distinct_hands() -> Iterator[tuple[Card, ...]]:
    """All 17,550 multisets of four cards, each once, in card order."""
    return itertools.combinations_with_replacement(CARDS, HAND_SIZE)


class Breakdowns(dict[int, Breakdown]):
    """Breakdowns by hand key, each built from its chosen declaration the first time it is asked
    for: scores are all a server needs up front, and 87,750 breakdown objects would cost time and
    memory that most hands never repay. ``declarations`` holds the choice, so a breakdown is the
    same whenever built."""

    def __init__(
        self,
        trump: Suit | None,
        declarations: Mapping[int, Declaration],
        rules: ScoringRules = CLASSIC_SCORING,
    ) -> None:
        super().__init__()
        self.trump = trump
        self.declarations = declarations
        self.rules = rules

    def __missing__(self, key: int) -> Breakdown:
        found = self[key] = breakdown(self.declarations[key], self.trump, self.rules)
        return found


@dataclass(frozen=True, slots=True)
class ScoreTable:
    """Score and breakdown of every distinct hand under one trump setting, by hand key."""

    trump: Suit | None
    breakdowns: Breakdowns
    scores: dict[int, int]


def build_tables(rules: ScoringRules = CLASSIC_SCORING) -> dict[Suit | None, ScoreTable]:
    """Run the definition over the whole hand space, for every trump setting at once, and keep
    the answers in the shipped form's compact records (``_built_chunks``)."""
    return _compact_tables(_built_chunks(rules), rules)


# --- the shipped form -------------------------------------------------------------------------
# ``scores.bin`` (``quart_bezique.game.tables``): for each trump setting in ``TRUMP_SETTINGS``
# order, a chunk of one score byte per hand in ``distinct_hands`` order; then, in the same order, a
# chunk of one declaration record per hand. A record is ``_GROUPS`` group bytes (the type's row in
# the section 4 table plus one, times 16, plus the mask of the hand positions holding its cards; 0
# for no group) and a byte with the mask of the loose cards' positions. Positions are those of the
# hand in card order, so a record holds the chosen declaration exactly as the search listed it.

_GROUPS: Final = 2
"""Groups a declaration holds at most: four cards make at most two combinations (a bezique may
share a card with a coronka, rule 5.2, but the two still need four cards between them)."""
_RECORD: Final = _GROUPS + 1
_KINDS: Final = tuple(CombinationType)
_MASK_POSITIONS: Final = tuple(
    tuple(p for p in range(HAND_SIZE) if mask >> p & 1) for mask in range(1 << HAND_SIZE)
)


def _hand_keys() -> list[int]:
    """Every distinct hand's key, in ``distinct_hands`` order, by C-level sums of card weights."""
    weights = [CARD_WEIGHT[c.index] for c in CARDS]
    return list(map(sum, itertools.combinations_with_replacement(weights, HAND_SIZE)))


def _mask(hand: Sequence[Card], cards: Sequence[Card]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << next(p for p, h in enumerate(hand) if h is c and not mask >> p & 1)
    return mask


def _record(hand: Sequence[Card], declared: Declaration, rules: ScoringRules) -> bytes:
    if len(declared.groups) > _GROUPS:
        raise ValueError(f"a declaration of {len(declared.groups)} groups has no record")
    groups = [
        (_TYPE_ORDER[kind] + 1) << HAND_SIZE | _mask(hand, cards) for kind, cards in declared.groups
    ]
    record = bytes([*groups, *[0] * (_GROUPS - len(groups)), _mask(hand, declared.loose)])
    if _parts(hand, record) != (declared.groups, declared.loose):
        raise ValueError(f"the record of {hand} does not give back its declaration")
    return record


def _parts(hand: Sequence[Card], record: bytes) -> tuple[tuple[Group, ...], tuple[Card, ...]]:
    """A record's groups and loose cards: the declaration but for its totals, which follow from
    them (so the encoder's check compares these, without working the totals out again)."""
    groups = tuple(
        (_KINDS[(byte >> HAND_SIZE) - 1], tuple(hand[p] for p in _MASK_POSITIONS[byte & 15]))
        for byte in record[:_GROUPS]
        if byte
    )
    return groups, tuple(hand[p] for p in _MASK_POSITIONS[record[_GROUPS]])


def _declared(hand: Sequence[Card], record: bytes, rules: ScoringRules) -> Declaration:
    groups, loose = _parts(hand, record)
    return Declaration(groups, loose, _totals(groups, loose, rules))


def encode_tables(
    tables: Mapping[Suit | None, ScoreTable], rules: ScoringRules = CLASSIC_SCORING
) -> bytes:
    """The tables in their shipped form (see above): what ``make tables`` writes for
    ``classic/1``, and the compact form another reading's tables are kept in once built."""
    hands = list(distinct_hands())
    keys = [hand_key(hand) for hand in hands]
    chunks = [array("B", map(tables[trump].scores.__getitem__, keys)) for trump in TRUMP_SETTINGS]
    # A hand's chosen declaration is often the same object under several trumps: encoded once
    # (kept with its record, so its id cannot be reused while the tables are encoded).
    made: dict[int, tuple[Declaration, bytes]] = {}
    for trump in TRUMP_SETTINGS:
        declarations = tables[trump].breakdowns.declarations
        records = []
        for hand, key in zip(hands, keys, strict=True):
            declared = declarations[key]
            found = made.get(id(declared))
            if found is None or found[0] is not declared:
                found = made[id(declared)] = (declared, _record(hand, declared, rules))
            records.append(found[1])
        chunks.append(array("B", b"".join(records)))
    return pack(chunks)


class _ShippedDeclarations(Mapping[int, Declaration]):
    """One trump setting's chosen declarations, decoded from their records when asked for."""

    def __init__(self, rows: dict[int, int], records: array[int], rules: ScoringRules) -> None:
        self._rows = rows
        self._records = records
        self._rules = rules

    def __getitem__(self, key: int) -> Declaration:
        start = self._rows[key] * _RECORD
        hand = [c for c in CARDS for _ in range(key >> (_COUNT_BITS * c.index) & 7)]
        return _declared(hand, self._records[start : start + _RECORD].tobytes(), self._rules)

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def load_tables() -> dict[Suit | None, ScoreTable]:
    """The shipped tables, checked against their digest (``quart_bezique.game.tables.load``)."""
    return _compact_tables(unpack(SCORES, load(SCORES)), CLASSIC_SCORING)


def _built_chunks(rules: ScoringRules) -> list[array[int]]:
    """The definition's answers in the shipped form, hand by hand (see above): the legal
    declarations of a hand do not depend on the trump, so they are listed once per hand and the
    best one picked under each setting (``best_declaration``, as the search does); a hand's
    declarations are dropped once its records are written, so a build holds no declaration
    object per hand."""
    settings = range(len(TRUMP_SETTINGS))
    scores = [array("B") for _ in settings]
    records = [bytearray() for _ in settings]
    for hand in distinct_hands():
        declarations = legal_declarations(hand, rules)
        made: dict[int, bytes] = {}  # the same declaration is often best under several trumps
        for setting, trump in enumerate(TRUMP_SETTINGS):
            best = best_declaration(declarations, trump)
            scores[setting].append(best.totals[setting])
            record = made.get(id(best))
            if record is None:
                record = made[id(best)] = _record(hand, best, rules)
            records[setting] += record
    return [*scores, *(array("B", r) for r in records)]


@functools.cache
def _rows() -> tuple[list[int], dict[int, int]]:
    """Every hand's key in table order, and its row: the same for every reading, so shared (the
    keys are then the same int objects in every reading's score dicts)."""
    keys = _hand_keys()
    return keys, dict(zip(keys, range(len(keys)), strict=True))


def _compact_tables(chunks: list[array[int]], rules: ScoringRules) -> dict[Suit | None, ScoreTable]:
    keys, rows = _rows()
    settings = len(TRUMP_SETTINGS)
    sizes = [len(keys)] * settings + [len(keys) * _RECORD] * settings
    if [len(chunk) for chunk in chunks] != sizes:
        raise TableError(f"{SCORES} does not hold {settings} tables of {len(keys)} hands")
    return {
        trump: ScoreTable(
            trump,
            Breakdowns(trump, _ShippedDeclarations(rows, chunks[settings + i], rules), rules),
            dict(zip(keys, chunks[i], strict=True)),
        )
        for i, trump in enumerate(TRUMP_SETTINGS)
    }


_TABLES: Final[ReadingCache[dict[Suit | None, ScoreTable]]] = ReadingCache(
    CLASSIC_SCORING, load_tables, build_tables
)
"""Every trump setting's tables per scoring reading: ``classic/1``'s loaded from the shipped
file and kept for the process's life, another's built and kept as ``ReadingCache`` says."""


def table(trump: Suit | None, rules: ScoringRules = CLASSIC_SCORING) -> ScoreTable:
    """The table for one trump setting under ``rules``: ``classic/1``'s five are loaded together
    on first use and kept; another reading's are built from the definition on first use and kept
    among the ``BUILT_TABLES_KEPT`` most recently used."""
    return _TABLES.get(rules)[trump]


def ensure_tables() -> None:
    """Load the tables now (e.g. in a server's master before it forks) instead of on first use."""
    table(None)


def tables_ready() -> bool:
    return _TABLES.classic_loaded


# --------------------------------------------------------------------------------------------
# The public entry points.
# --------------------------------------------------------------------------------------------


def parse_hand(cards: Sequence[Card | str]) -> tuple[Card, ...]:
    """Cards or card codes to a legal hand: exactly four cards (so no card can exceed the shoe's
    six copies here; that limit bites only across hands, see ``showdown.check_shoe``)."""
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence):
        raise HandError(
            N_("a hand must be a list of {size} cards").format(size=HAND_SIZE),
            code="INVALID_HAND",
        )
    if len(cards) != HAND_SIZE:
        raise HandError(
            N_("a hand holds exactly {size} cards, not {count}").format(
                size=HAND_SIZE, count=len(cards)
            ),
            code="WRONG_HAND_SIZE",
        )
    hand = tuple(c if isinstance(c, Card) else parse_card(c, i) for i, c in enumerate(cards))
    return hand


def score_hand(
    cards: Sequence[Card | str],
    trump: Suit | str | None = None,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> HandScore:
    """Score a hand (sections 5 and 6) under ``ruleset`` (default ``classic/1``; a preset's
    name, a canonical id or switches, docs/rules.md §13): the score and the declaration that
    reaches it."""
    rules = CLASSIC if ruleset is None else resolve_ruleset(ruleset)  # the common case, inline
    trump_suit = parse_suit(trump)
    hand = parse_hand(cards)
    found = table(trump_suit, rules.scoring).breakdowns[hand_key(hand)]
    return HandScore(hand, trump_suit, found.score, found.combinations, found.loose, rules)


# --- batch helpers ------------------------------------------------------------------------------
# For the batch endpoint's fast path. Built only from the public names above (``table``,
# ``WEIGHT_BY_SPELLING``, ``TRUMP_SETTINGS``), so the table build above can change freely as long
# as a hand's key stays the sum of its cards' ``WEIGHT_BY_SPELLING``.

COMPACT_WEIGHTS: Final[tuple[int, ...]] = (
    1, 2, 6, 22, 56, 154, 369, 857, 1425, 2604, 4968, 8195,
    13664, 22433, 28170, 47689, 65546, 96616, 146249, 202508, 266268, 364835, 450309, 585329,
)  # fmt: skip
"""One small weight per card such that any two different hands (four cards, repeats allowed)
have different sums: a greedy B4 sequence, ``build_batch_table`` checks the property. A compact
key is below 2**22, one machine digit that Python adds and hashes faster than the 72-bit
``hand_key``, on every hand of a batch."""


@dataclass(frozen=True, slots=True)
class BatchTable:
    """Scores of every distinct hand under every trump setting, by compact key."""

    weight_by_spelling: dict[str, int]
    """Every accepted card spelling (the keys of ``WEIGHT_BY_SPELLING``) to its compact weight."""
    row_by_key: dict[int, int]
    """Compact key (the sum of four compact weights) to the hand's row in ``rows``."""
    rows: tuple[tuple[int, ...], ...]
    """Each distinct row of scores, one score per ``TRUMP_SETTINGS``, in that order. There are
    about 200, so ``row_by_key``'s values are small ints that CPython shares (no object each)."""


def build_batch_table(rules: ScoringRules = CLASSIC_SCORING) -> BatchTable:
    """Derive the compact table from ``table(trump, rules).scores`` (so it can never disagree)."""
    weights = sorted(set(WEIGHT_BY_SPELLING.values()))  # one per card
    if len(weights) > len(COMPACT_WEIGHTS):
        raise RuntimeError("more cards than compact weights")
    compact = dict(zip(weights, COMPACT_WEIGHTS, strict=False))
    by_setting = [table(trump, rules).scores for trump in TRUMP_SETTINGS]
    # Every hand once, as C-level passes (this runs at every start): keys, compact keys and score
    # rows in the same order. A row is the hand's scores as bytes, one per setting (``bytes``
    # refuses a score above 255 rather than wrap it), cut from the settings' columns interleaved.
    keys = list(map(sum, itertools.combinations_with_replacement(weights, HAND_SIZE)))
    compact_weights = [compact[w] for w in weights]
    compact_keys = map(sum, itertools.combinations_with_replacement(compact_weights, HAND_SIZE))
    width = len(by_setting)
    interleaved = bytearray(len(keys) * width)
    for setting, found in enumerate(by_setting):
        # The tables hold the hands in this order (``load_tables``, ``build_tables``): reading
        # the values in place spares 17,550 lookups of 72-bit keys per setting.
        if list(found) != keys:
            raise RuntimeError("a score table does not hold the hands in distinct_hands order")
        interleaved[setting::width] = bytes(found.values())
    cut = bytes(interleaved).__getitem__
    starts = range(0, len(interleaved), width)
    rows = list(map(cut, map(slice, starts, range(width, len(interleaved) + width, width))))
    number = {row: n for n, row in enumerate(dict.fromkeys(rows))}  # first seen, first numbered
    row_by_key = dict(zip(compact_keys, map(number.__getitem__, rows), strict=True))
    if len(row_by_key) != len(by_setting[0]):
        raise RuntimeError("compact weights collide: two hands share a key")
    weight_by_spelling = {s: compact[w] for s, w in WEIGHT_BY_SPELLING.items()}
    return BatchTable(weight_by_spelling, row_by_key, tuple(map(tuple, number)))


_BATCH_TABLES: Final[ReadingCache[BatchTable]] = ReadingCache(
    CLASSIC_SCORING, functools.partial(build_batch_table, CLASSIC_SCORING), build_batch_table
)


def batch_table(rules: ScoringRules = CLASSIC_SCORING) -> BatchTable:
    """The compact table, built (with the score tables, if need be) on first use and kept:
    ``classic/1``'s for good, another reading's among the ``BUILT_TABLES_KEPT`` most recent."""
    return _BATCH_TABLES.get(rules)
