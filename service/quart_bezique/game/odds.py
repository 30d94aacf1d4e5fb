"""Hand strength: showdown odds against the rest of the shoe (docs/rules.md §12 defines them).

The odds must be exact wherever that fits the per-request work budget, and reproducible where it
does not: dealing the opponents' hands one by one is far beyond it, so one or two opponents are
counted exactly, by inclusion-exclusion over tables built once per trump, and three are
estimated by a seeded, hence deterministic, Monte Carlo (``hand_odds`` describes the methods).
docs/rules.md §12 defines the model, the outcomes, the percentile and the refusals; every
``RulesError`` here has a ``path`` into a request body shaped like the function's arguments.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
import random
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import CARDS, COPIES_IN_SHOE, HAND_SIZE, Card, Suit, parse_card, parse_suit
from .errors import RulesError
from .messages import N_
from .reading_cache import ReadingCache
from .ruleset import CLASSIC, Ruleset, ScoringRules, resolve_ruleset
from .scoring import (
    CARD_WEIGHT,
    CLASSIC_SCORING,
    TRUMP_SETTINGS,
    ScoreTable,
    parse_hand,
    table,
)
from .showdown import ShoeError
from .tables import ODDS, TableError, load, pack, unpack

__all__ = [
    "DEFAULT_SAMPLES",
    "DEFAULT_SEED",
    "EXACT_OPPONENTS",
    "FULL_SHOE_HANDS",
    "MAX_OPPONENTS",
    "MAX_SAMPLES",
    "MAX_SEED",
    "Odds",
    "OddsError",
    "ensure_odds_tables",
    "hand_odds",
    "sample_odds",
]

MAX_OPPONENTS: Final = 3
"""A table seats 2 to 4 players (section 1), so a hand faces 1 to 3 opponents."""
EXACT_OPPONENTS: Final = 2
"""Up to this many opponents the answer is exact; beyond it, Monte Carlo."""
DEFAULT_SAMPLES: Final = 20_000
"""Monte Carlo deals by default: a standard error of at most 0.0036, within the per-request work
budget."""
MAX_SAMPLES: Final = 1_000_000
DEFAULT_SEED: Final = 0
MAX_SEED: Final = 2**53 - 1
"""Seeds a JavaScript client can hold exactly, like money (section 2)."""

SHOE_SIZE: Final = COPIES_IN_SHOE * len(CARDS)
FULL_SHOE_HANDS: Final = math.comb(SHOE_SIZE, HAND_SIZE)
"""C(144, 4) = 17,178,876: the hands a full shoe can deal, the percentile's population."""

_FIELD_BITS: Final = 32
"""Bits per score in a packed one-opponent distribution: every count there is below 2^27."""
_FIELD_MASK: Final = (1 << _FIELD_BITS) - 1
_PAIR_BITS: Final = 128
"""Field spacing of the two-opponent counts, whose squares (below 2^100) must not collide."""
_PAIR_MASK: Final = (1 << _PAIR_BITS) - 1
_N_CARDS: Final = len(CARDS)
_EXCLUSION_LIMIT: Final = 20
"""Removed cards up to which one-opponent inclusion-exclusion (at most 6,196 terms) is used;
beyond it, weighing all 17,550 opponent multisets (the same work whatever is removed) is cheaper.
The terms grow with the removed cards; on random removals the two costs cross a little above this
limit (docs/performance.md)."""

_BINOM: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(math.comb(n, k) for k in range(HAND_SIZE + 1)) for n in range(COPIES_IN_SHOE + 1)
)
"""C(n, k) for the n <= 6 copies a card can have left and the k <= 4 a hand can hold."""
_SIGNED_BINOM: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple((-1) ** k * c for k, c in enumerate(row)) for row in _BINOM
)
"""(-1)^k C(n, k): inclusion-exclusion signs folded into the counts."""


class OddsError(RulesError):
    """An odds request the rules cannot answer (besides bad cards, trumps and shoe overflows)."""

    code = "INVALID_ODDS_REQUEST"


@dataclass(frozen=True, slots=True)
class Odds:
    """How a hand fares at showdown against ``opponents`` hands dealt from the rest of the shoe.

    ``wins``/``ties``/``losses``/``total`` are exact integer counts of equally likely deals of the
    opponents' hands (ordered tuples of physical hands; for one opponent simply its possible
    hands), present when ``exact``; they are None for a Monte Carlo estimate, which carries
    ``samples``, ``seed`` and ``standard_error`` instead (None when exact).
    """

    cards: tuple[Card, ...]
    """The hand in card order (``Card.index``), whatever order it was given in."""
    trump: Suit | None
    score: int
    opponents: int
    remaining: int
    """Physical cards left in the shoe: 144 minus the hand and the seen cards."""
    exact: bool
    win: float
    """Probability that every opponent scores less."""
    tie: float
    """Probability that no opponent scores more and at least one scores the same."""
    loss: float
    """Probability that some opponent scores more."""
    percentile: float
    """See the module docstring: mid-rank among all full-shoe hands, 0 to 100."""
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    total: int | None = None
    samples: int | None = None
    seed: int | None = None
    standard_error: float | None = None
    ruleset: Ruleset = CLASSIC
    """The ruleset the hands were scored under (docs/rules.md §13)."""


# --------------------------------------------------------------------------------------------
# Precomputed structure: the lattice of small multisets (trump-independent), and per trump the
# score distributions and orderings that the queries combine.
# --------------------------------------------------------------------------------------------

Sparse = tuple[tuple[int, int], ...]
"""A multiset as (card index, multiplicity) pairs, in card order."""

_PAIRS: Final = math.comb(_N_CARDS + 1, 2)
"""300 multisets of two cards."""
_ROW: Final = HAND_SIZE + 1
_ONE: Final = _PAIRS + _N_CARDS * _ROW
"""Index of the constant 1 in a factor table (see ``_factor_table``)."""
_INDEX: Final = tuple(range(_ONE + 1))
"""Shared int objects for the index tuples below, so they hold references, not copies."""


def _single(c: int, m: int) -> int:
    """Factor-table index of C(copies of card c left, m)."""
    return _INDEX[_PAIRS + c * _ROW + m]


@dataclass(frozen=True, slots=True)
class _Lattice:
    """Every multiset of 0 to 3 cards, by size, and how to weigh them quickly: what queries read
    (the four-card level, which only building a model reads, is ``_HandLevel``).

    ``neighbours[j][i][c]``: the position, in level ``j + 1``, of level ``j``'s multiset ``i``
    plus one card ``c`` (for ``j`` up to 2); the recursions walk it instead of hashing keys.
    ``pair_slots`` and ``triple_slots``: each multiset of 2 or 3 cards as a product of at most 2
    factor-table entries (one per run of equal cards, or a whole two-card multiset), so a query
    weighs all of them with a few C-level ``map`` passes.
    """

    keys: tuple[tuple[int, ...], ...]
    sparse: tuple[tuple[Sparse, ...], ...]
    neighbours: tuple[tuple[tuple[int, ...], ...], ...]
    pair_slots: tuple[tuple[int, ...], tuple[int, ...]]
    triple_slots: tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class _HandLevel:
    """The four-card multisets, for building models only: their keys, the step to them from each
    three-card multiset (``neighbours``, as in ``_Lattice``), and each as a product of at most 3
    factor-table entries (``hand_slots``)."""

    keys: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]
    hand_slots: tuple[tuple[int, int, int], ...]


def _sparse(combo: Sequence[int]) -> Sparse:
    return tuple((c, len(list(group))) for c, group in itertools.groupby(combo))


def _triple_factors(combo: Sequence[int], pair: dict[tuple[int, int], int]) -> tuple[int, int]:
    a, b, c = combo
    if a == c:
        return _single(a, 3), _ONE
    if a == b:
        return pair[a, a], _single(c, 1)
    return _single(a, 1), pair[b, c]


def _hand_factors(combo: Sequence[int], pair: dict[tuple[int, int], int]) -> tuple[int, int, int]:
    a, b, c, d = combo
    if b != c:  # no run crosses the middle: two independent pairs
        return pair[a, b], pair[c, d], _ONE
    if a == d:
        return _single(a, 4), _ONE, _ONE
    if a == b:
        return _single(a, 3), _single(d, 1), _ONE
    if c == d:
        return _single(a, 1), _single(b, 3), _ONE
    return _single(a, 1), pair[b, c], _single(d, 1)


def _combos(size: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(_N_CARDS), size))


def _keys(combos: Sequence[Sequence[int]]) -> tuple[int, ...]:
    return tuple(map(sum, (map(CARD_WEIGHT.__getitem__, combo) for combo in combos)))


def _steps(keys: Sequence[int], above: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    position = {key: i for i, key in enumerate(above)}
    return tuple(tuple(position[k + w] for w in CARD_WEIGHT) for k in keys)


def _pair_index() -> dict[tuple[int, int], int]:
    return {(a, b): _INDEX[i] for i, (a, b) in enumerate(_combos(2))}


@functools.cache
def _lattice() -> _Lattice:
    """Pure combinatorics of the shoe, no rule in it: cheap enough to make rather than ship."""
    combos = [_combos(size) for size in range(HAND_SIZE)]
    keys = tuple(_keys(level) for level in combos)
    neighbours = tuple(_steps(keys[size], keys[size + 1]) for size in range(HAND_SIZE - 1))
    pair = _pair_index()
    # A pair's slots index the binomial part of the factor table, which it is built from.
    pair_rows = [
        (_single(a, 1), _single(b, 1)) if a != b else (_single(a, 2), _ONE) for a, b in combos[2]
    ]
    pair_rows = [(first - _PAIRS, second - _PAIRS) for first, second in pair_rows]
    triple_rows = [_triple_factors(combo, pair) for combo in combos[3]]
    return _Lattice(
        keys=keys,
        sparse=tuple(tuple(_sparse(combo) for combo in level) for level in combos),
        neighbours=neighbours,
        pair_slots=(tuple(r[0] for r in pair_rows), tuple(r[1] for r in pair_rows)),
        triple_slots=(tuple(r[0] for r in triple_rows), tuple(r[1] for r in triple_rows)),
    )


@functools.cache
def _hand_level() -> _HandLevel:
    combos = _combos(HAND_SIZE)
    keys = _keys(combos)
    pair = _pair_index()
    return _HandLevel(
        keys=keys,
        neighbours=_steps(_lattice().keys[HAND_SIZE - 1], keys),
        hand_slots=tuple(_hand_factors(combo, pair) for combo in combos),
    )


def _factor_table(left: Sequence[int]) -> list[int]:
    """Physical-set counts for a shoe with ``left[c]`` copies of each card c: first every
    two-card multiset, then C(left[c], m) at ``_single(c, m)``, then the constant 1."""
    binomials = [x for n in left for x in _BINOM[n]]
    binomials.append(1)
    get = binomials.__getitem__
    first, second = _lattice().pair_slots
    factors = list(map(operator.mul, map(get, first), map(get, second)))
    factors.extend(binomials)
    return factors


@dataclass(frozen=True, slots=True)
class _HandGroup:
    """Four-card multisets sorted by score: their factor slots and where each score's run ends."""

    slots: tuple[tuple[int, ...], ...]
    ends: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Model:
    """What one trump setting's queries need, derived from the score table.

    ``containing[key]``: for a fixed set of at most three physical cards of multiset type ``key``,
    the score distribution (packed, ``_FIELD_BITS`` per score) of the full-shoe hands containing
    it; ``containing[0]`` is the full shoe's own distribution. ``groups``: every four-card
    multiset, sorted by score, split by how many factors weigh it. ``columns[c][i]``: the score
    of the i-th three-card multiset plus card c.
    """

    trump: Suit | None
    scores: dict[int, int]
    levels: int
    containing: dict[int, int]
    groups: tuple[_HandGroup, ...]
    columns: tuple[bytes, ...]
    percentile: tuple[float, ...]


_GROUP_WIDTHS: Final = (2, 3)
"""Factors per four-card multiset in each of a model's groups: a third one only for a run of
three cards, or a pair of equal cards between two different ones."""


def _percentile(full_shoe: int, levels: int) -> tuple[float, ...]:
    below = 0
    percentile = []
    for count in _unpack(full_shoe, levels):
        percentile.append(100 * (2 * below + count) / (2 * FULL_SHOE_HANDS))
        below += count
    return tuple(percentile)


def _build_model(trump: Suit | None, scores: dict[int, int]) -> _Model:
    """The definition of a model: every figure derived from ``scores`` by counting."""
    lattice = _lattice()
    hands = _hand_level()
    levels = max(scores.values()) + 1
    # Fixed physical set X of type x: the full-shoe hands containing X are X plus (4 - |x|)
    # further physical cards. Counting (hand, extra card) pairs both ways gives the recursion
    # (4 - |x|) N[x] = sum_c (6 - x_c) N[x + c], exact field by field.
    level = [1 << (_FIELD_BITS * scores[key]) for key in hands.keys]
    steps = (*lattice.neighbours, hands.neighbours)
    containing: dict[int, int] = {}
    for size in range(HAND_SIZE - 1, -1, -1):
        above = level
        level = []
        for shape, step in zip(lattice.sparse[size], steps[size], strict=True):
            parts = [above[i] for i in step]
            total = COPIES_IN_SHOE * sum(parts) - sum(m * parts[c] for c, m in shape)
            level.append(total // (HAND_SIZE - size))
        containing.update(zip(lattice.keys[size], level, strict=True))
    groups = []
    for width in _GROUP_WIDTHS:
        members = sorted(
            (scores[key], slots[:width])
            for key, slots in zip(hands.keys, hands.hand_slots, strict=True)
            if (slots[2] == _ONE) == (width == 2)
        )
        ends = tuple(bisect.bisect_right(members, (s, (_ONE + 1,))) for s in range(levels))
        slots = tuple(tuple(s[k] for _, s in members) for k in range(width))
        groups.append(_HandGroup(slots, ends))
    columns = tuple(
        bytes(scores[key + w] for key in lattice.keys[HAND_SIZE - 1]) for w in CARD_WEIGHT
    )
    percentile = _percentile(containing[0], levels)
    return _Model(trump, scores, levels, containing, tuple(groups), columns, percentile)


def build_models(score_tables: Mapping[Suit | None, ScoreTable]) -> dict[Suit | None, _Model]:
    """Every trump setting's model from these score tables (the definition's, for ``make
    tables``): too slow to repeat in every worker's start, which is why they ship."""
    return {trump: _build_model(trump, score_tables[trump].scores) for trump in TRUMP_SETTINGS}


# --- the shipped form -------------------------------------------------------------------------
# ``odds.bin`` (``quart_bezique.game.tables``): for each trump setting in ``TRUMP_SETTINGS`` order,
# the chunks ``levels`` (one byte); ``containing``, each value as ``levels`` little-endian 32-bit
# fields, in the lattice's key order (sizes 0 to 3); per group of ``_GROUP_WIDTHS``, its slot arrays
# and its ends; ``columns``, one after the other. ``percentile`` follows from the full shoe's
# distribution and is computed again on loading, by the same function.


def encode_models(models: Mapping[Suit | None, _Model]) -> bytes:
    """The models in their shipped form (see above): what ``make tables`` writes."""
    keys = [key for level in _lattice().keys for key in level]
    chunks: list[array[int]] = []
    for trump in TRUMP_SETTINGS:
        model = models[trump]
        width = model.levels * _FIELD_BITS // 8
        chunks.append(array("B", [model.levels]))
        containing = b"".join(model.containing[key].to_bytes(width, "little") for key in keys)
        chunks.append(array("B", containing))
        for group in model.groups:
            chunks.extend(array("H", slots) for slots in group.slots)
            chunks.append(array("H", group.ends))
        chunks.append(array("B", b"".join(model.columns)))
    return pack(chunks)


def _shared(indexes: array[int]) -> tuple[int, ...]:
    """The indexes as ``_INDEX``'s int objects, as the build makes them: the slots reference,
    not copy, them. One ``itemgetter`` call takes the whole array at C speed, faster than a
    ``map`` at every start (docs/performance.md; a single index would come back bare, hence the
    short case)."""
    if len(indexes) < 2:
        return tuple(map(_INDEX.__getitem__, indexes))
    found: tuple[int, ...] = operator.itemgetter(*indexes)(_INDEX)
    return found


def _decode_model(
    trump: Suit | None, scores: dict[int, int], chunks: Iterator[array[int]]
) -> _Model:
    lattice = _lattice()
    keys = [key for level in lattice.keys for key in level]
    (levels,) = next(chunks)
    width = levels * _FIELD_BITS // 8
    packed = next(chunks).tobytes()
    if len(packed) != width * len(keys) or levels != max(scores.values()) + 1:
        raise TableError(f"{ODDS}: the {trump} model does not fit the score table")
    from_bytes = int.from_bytes
    values = [from_bytes(packed[i : i + width], "little") for i in range(0, len(packed), width)]
    containing = dict(zip(keys, values, strict=True))
    groups = []
    for group_width in _GROUP_WIDTHS:
        slots = tuple(_shared(next(chunks)) for _ in range(group_width))
        groups.append(_HandGroup(slots, tuple(next(chunks))))
    flat = next(chunks).tobytes()
    size = len(lattice.keys[HAND_SIZE - 1])
    columns = tuple(flat[i : i + size] for i in range(0, len(flat), size))
    if len(columns) != _N_CARDS or any(len(column) != size for column in columns):
        raise TableError(f"{ODDS}: the {trump} model's columns do not fit the lattice")
    percentile = _percentile(containing[0], levels)
    return _Model(trump, scores, levels, containing, tuple(groups), columns, percentile)


def _built_models(rules: ScoringRules) -> dict[Suit | None, _Model]:
    """Another reading's models, built from its score tables and kept as the shipped ones are
    (decoded from their packed form, so equal numbers are shared objects)."""
    tables = {t: table(t, rules) for t in TRUMP_SETTINGS}
    chunks = iter(unpack(ODDS, encode_models(build_models(tables))))
    return {t: _decode_model(t, tables[t].scores, chunks) for t in TRUMP_SETTINGS}


def load_models() -> dict[Suit | None, _Model]:
    """The shipped models, checked against their digest (``quart_bezique.game.tables.load``)."""
    chunks = iter(unpack(ODDS, load(ODDS)))
    try:
        models = {
            trump: _decode_model(trump, table(trump).scores, chunks) for trump in TRUMP_SETTINGS
        }
    except (StopIteration, ValueError, IndexError) as error:
        raise TableError(f"{ODDS} does not hold the models it should ({error!r})") from None
    if next(chunks, None) is not None:
        raise TableError(f"{ODDS} holds more than the models it should")
    return models


_MODELS: Final[ReadingCache[dict[Suit | None, _Model]]] = ReadingCache(
    CLASSIC_SCORING, load_models, _built_models
)
"""Every trump setting's models per scoring reading, kept as their score tables are."""


def _model(trump: Suit | None, rules: ScoringRules = CLASSIC_SCORING) -> _Model:
    """One trump setting's model: ``classic/1``'s five are loaded together on first use and
    kept; another reading's are built from its score tables (docs/rules.md §13) on first use."""
    return _MODELS.get(rules)[trump]


def ensure_odds_tables() -> None:
    """Load every trump's odds tables now (e.g. in a server's master before it forks)."""
    _model(None)


def _unpack(packed: int, levels: int) -> list[int]:
    return [(packed >> (_FIELD_BITS * s)) & _FIELD_MASK for s in range(levels)]


# --------------------------------------------------------------------------------------------
# One opponent: the exact score distribution of the opponent's hand.
# --------------------------------------------------------------------------------------------


def _submultisets(support: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Sub-multisets of at most four cards of ``support`` ((card, copies) pairs), by size, each
    as (key, (-1)^size * the number of physical card sets of that type)."""
    by_size: list[list[tuple[int, int]]] = [[(0, 1)], [], [], [], []]
    for c, available in support:
        weight = CARD_WEIGHT[c]
        ways = _SIGNED_BINOM[available]
        # Extend the larger multisets first so that none takes card c in two steps.
        for size in range(HAND_SIZE - 1, -1, -1):
            room = min(available, HAND_SIZE - size)
            for key, coef in by_size[size] if room else ():
                for k in range(1, room + 1):
                    by_size[size + k].append((key + k * weight, coef * ways[k]))
    return by_size


def _by_exclusion(model: _Model, removed: Sequence[int]) -> list[int]:
    """Inclusion-exclusion over the removed physical cards (cheap when few are out)."""
    containing = model.containing
    scores = model.scores
    terms = _submultisets([(c, d) for c, d in enumerate(removed) if d])
    packed = sum(coef * containing[key] for level in terms[:HAND_SIZE] for key, coef in level)
    packed += sum(coef << (_FIELD_BITS * scores[key]) for key, coef in terms[HAND_SIZE])
    return _unpack(packed, model.levels)


def _by_enumeration(model: _Model, left: Sequence[int]) -> list[int]:
    """Every four-card multiset weighed by its physical count, summed score by score."""
    get = _factor_table(left).__getitem__
    mul = operator.mul
    counts = [0] * model.levels
    for group in model.groups:
        weights = map(get, group.slots[0])
        for slot in group.slots[1:]:
            weights = map(mul, weights, map(get, slot))
        listed = list(weights)
        start = 0
        for s, end in enumerate(group.ends):
            counts[s] += sum(listed[start:end])
            start = end
    return counts


@functools.lru_cache(maxsize=8192)
def _opponent_counts(
    trump: Suit | None, removed: tuple[int, ...], rules: ScoringRules = CLASSIC_SCORING
) -> tuple[int, ...]:
    """One opponent's physical hands by score, ``removed[c]`` copies of each card c being out of
    the shoe. Exact either way; the method is chosen by cost only."""
    model = _model(trump, rules)
    if sum(removed) <= _EXCLUSION_LIMIT:
        return tuple(_by_exclusion(model, removed))
    return tuple(_by_enumeration(model, [COPIES_IN_SHOE - d for d in removed]))


# --------------------------------------------------------------------------------------------
# Two opponents: ordered pairs of disjoint hands, by inclusion-exclusion on their overlap.
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=24)
def _threshold_tables(
    trump: Suit | None, score: int, rules: ScoringRules = CLASSIC_SCORING
) -> tuple[list[int], list[int], list[int]]:
    """For one threshold: each score's value (1 in the low field if below ``score``, 1 in the
    high field if not above it), and for every three-card multiset x, ``sum_c (6 - x_c)
    value(x + c)`` (its completions in a full shoe) and ``sum_c x_c value(x + c)``."""
    model = _model(trump, rules)
    value = [int(s < score) + (int(s <= score) << _PAIR_BITS) for s in range(model.levels)]
    get = value.__getitem__
    total = [0] * len(model.columns[0])
    for column in model.columns:
        total = list(map(operator.add, total, map(get, column)))
    own = [
        sum(m * value[model.columns[c][i]] for c, m in shape)
        for i, shape in enumerate(_lattice().sparse[HAND_SIZE - 1])
    ]
    full = [COPIES_IN_SHOE * t - o for t, o in zip(total, own, strict=True)]
    return value, full, own


@functools.lru_cache(maxsize=1024)
def _pair_counts(
    trump: Suit | None,
    removed: tuple[int, ...],
    score: int,
    below: int,
    not_above: int,
    rules: ScoringRules = CLASSIC_SCORING,
) -> tuple[int, int]:
    """Ordered pairs of disjoint opponent hands from the remaining shoe that both score below
    ``score``, and that both score at most ``score``. ``below`` and ``not_above`` are the single
    hands of each kind. Both thresholds ride in one integer: a(x) holds its two counts at bits 0
    and 128, so a(x)^2 holds their squares at bits 0 and 256 and twice their product at bit 128;
    every field's final value is a count below 2^50, so none spills into the next."""
    model = _model(trump, rules)
    lattice = _lattice()
    mul = operator.mul
    value, full, own = _threshold_tables(trump, score, rules)
    left = [COPIES_IN_SHOE - d for d in removed]
    factors = _factor_table(left)
    get = factors.__getitem__
    # Three cards: a(x) = sum_c (r_c - x_c) value(x + c), from whichever side has fewer cards.
    out = [(c, d) for c, d in enumerate(removed) if d]
    kept = [(c, n) for c, n in enumerate(left) if n]
    if len(out) <= len(kept):
        a, step, cards = full, operator.sub, out
    else:
        a, step, cards = [-o for o in own], operator.add, kept
    for c, n in cards:
        scaled = [n * v for v in value]
        a = list(map(step, a, map(scaled.__getitem__, model.columns[c])))
    first, second = lattice.triple_slots
    coefficients = map(mul, map(get, first), map(get, second))
    signed = -sum(map(mul, coefficients, map(mul, a, a)))
    # Two cards, then one: (4 - |x|) a(x) = sum_c (r_c - x_c) a(x + c).
    for size, sign in ((2, 1), (1, -1)):
        level: list[int] = []
        for i, (shape, nearby) in enumerate(
            zip(lattice.sparse[size], lattice.neighbours[size], strict=True)
        ):
            weight = factors[i] if size == 2 else left[i]
            if not weight:
                level.append(0)
                continue
            parts = list(map(a.__getitem__, nearby))
            total = sum(map(mul, left, parts)) - sum(m * parts[c] for c, m in shape)
            level.append(total // (HAND_SIZE - size))
        weights = factors[:_PAIRS] if size == 2 else left
        signed += sign * sum(map(mul, weights, map(mul, level, level)))
        a = level
    hands = below + (not_above << _PAIR_BITS)
    # Size 0 contributes hands^2; size 4 contributes a^2 = below + 2 below (cross) + not_above.
    packed = (
        hands * hands + signed + below + (2 * below << _PAIR_BITS) + (not_above << 2 * _PAIR_BITS)
    )
    return packed & _PAIR_MASK, packed >> (2 * _PAIR_BITS)


# --------------------------------------------------------------------------------------------
# Monte Carlo, for three opponents (and for checking the exact answers).
# --------------------------------------------------------------------------------------------


def _simulate(
    scores: dict[int, int],
    pool: list[int],
    opponents: int,
    score: int,
    samples: int,
    seed: int,
) -> tuple[int, int, int]:
    """Deal ``samples`` random tables from ``pool`` (card weights of the physical cards left)
    and count wins, ties and losses. Each deal is a partial Fisher-Yates shuffle of the first
    4 * opponents places; continuing from the previous arrangement keeps every deal uniform and
    independent, and saves copying the pool per deal."""
    rng = random.Random(seed)
    rand = rng.random
    pool = list(pool)
    drawn = HAND_SIZE * opponents
    places = tuple(zip(range(drawn), range(len(pool), 0, -1), strict=False))
    wins = ties = 0
    for _ in range(samples):
        for i, span in places:
            # int(random() * span) is uniform on 0..span-1 up to a bias below span / 2^53.
            j = i + int(rand() * span)
            pool[i], pool[j] = pool[j], pool[i]
        best = scores[pool[0] + pool[1] + pool[2] + pool[3]]
        if opponents > 1:
            best = max(best, scores[pool[4] + pool[5] + pool[6] + pool[7]])
            if opponents > 2:
                best = max(best, scores[pool[8] + pool[9] + pool[10] + pool[11]])
        if best < score:
            wins += 1
        elif best == score:
            ties += 1
    return wins, ties, samples - wins - ties


# --------------------------------------------------------------------------------------------
# Validation and the public entry points.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Request:
    hand: tuple[Card, ...]
    trump: Suit | None
    removed: tuple[int, ...]
    remaining: int
    score: int
    ruleset: Ruleset

    @property
    def rules(self) -> ScoringRules:
        return self.ruleset.scoring


def _parse_request(
    cards: Sequence[Card | str],
    trump: Suit | str | None,
    seen: Sequence[Card | str] | None,
    opponents: object,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> _Request:
    rules = resolve_ruleset(ruleset)
    try:
        trump_suit = parse_suit(trump)
    except RulesError as error:
        raise error.at("trump") from None
    try:
        hand = parse_hand(cards)
    except RulesError as error:
        raise error.at("cards") from None
    if seen is None:
        seen = ()
    if isinstance(seen, str | bytes) or not isinstance(seen, Sequence):
        raise OddsError(
            N_("the seen cards must be a list of cards"),
            code="INVALID_SEEN",
            path=["seen"],
        )
    if isinstance(opponents, bool) or not isinstance(opponents, int):
        raise OddsError(
            N_("the number of opponents must be a whole number from 1 to {max}").format(
                max=MAX_OPPONENTS
            ),
            code="INVALID_OPPONENTS",
            path=["opponents"],
        )
    if not 1 <= opponents <= MAX_OPPONENTS:
        raise OddsError(
            N_(
                "the number of opponents must be from 1 to {max} (a table seats 2 to 4), "
                "not {count}"
            ).format(max=MAX_OPPONENTS, count=opponents),
            code="INVALID_OPPONENTS",
            path=["opponents"],
        )
    removed = [0] * _N_CARDS
    for c in hand:
        removed[c.index] += 1
    for i, text in enumerate(seen):
        try:
            c = text if isinstance(text, Card) else parse_card(text, i)
        except RulesError as error:
            raise error.at("seen") from None
        removed[c.index] += 1
        if removed[c.index] > COPIES_IN_SHOE:
            raise ShoeError(
                N_(
                    "the hand and the seen cards hold {card} {times} times; a shoe holds each "
                    "card only {copies} times"
                ).format(card=c.code, times=removed[c.index], copies=COPIES_IN_SHOE),
                path=["seen", i],
            )
    remaining = SHOE_SIZE - HAND_SIZE - len(seen)
    if remaining < HAND_SIZE * opponents:
        raise OddsError(
            N_(
                "{remaining} cards left in the shoe cannot deal {opponents} hands of {size} cards"
            ).format(remaining=remaining, opponents=opponents, size=HAND_SIZE),
            code="SHOE_TOO_SMALL",
            path=["seen"],
        )
    ordered = tuple(sorted(hand, key=lambda c: c.index))
    score = table(trump_suit, rules.scoring).scores[sum(CARD_WEIGHT[c.index] for c in hand)]
    return _Request(ordered, trump_suit, tuple(removed), remaining, score, rules)


def _check_sampling(samples: object, seed: object) -> tuple[int, int]:
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise OddsError(
            N_("the number of samples must be a whole number from 1 to {max}").format(
                max=MAX_SAMPLES
            ),
            code="INVALID_SAMPLES",
            path=["samples"],
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise OddsError(
            N_("the sampling seed must be a whole number from 0 to {max}").format(max=MAX_SEED),
            code="INVALID_SEED",
            path=["seed"],
        )
    return samples, seed


def hand_odds(
    cards: Sequence[Card | str],
    trump: Suit | str | None = None,
    seen: Sequence[Card | str] | None = (),
    opponents: int = 1,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> Odds:
    """The hand's odds at showdown against ``opponents`` hands dealt from the rest of the shoe.

    Exact for one or two opponents, a seeded Monte Carlo estimate for three (``samples`` and
    ``seed`` matter only then). The model (docs/rules.md §12.2): with ``r_c`` copies of card
    ``c`` left, an opponent multiset ``m`` stands for ``prod_c C(r_c, m_c)`` physical hands; with
    ``k`` opponents there are ``prod_{i<k} C(R - 4i, 4)`` equally likely *ordered* deals, ``R``
    being the number of cards left. The methods:

    * **1 opponent: exact**, integer counts of opponent hands. Inclusion-exclusion over the
      removed physical cards: the hands that avoid a removed set ``D`` number
      ``sum_{X subset of D, |X| <= 4} (-1)^|X| * #{full-shoe hands containing X}``, and the
      second factor depends only on the multiset type of ``X``. That factor (as a score
      distribution packed into one integer, 32 bits per score, so a term is one big-integer
      multiply-add) is precomputed once per trump for every type of at most three cards; a query
      sums one term per sub-multiset of the removed cards: 16 for a hand of four different cards
      and nothing seen. Beyond ``_EXCLUSION_LIMIT`` removed cards it weighs every one of the
      17,550 opponent multisets instead, with a handful of C-level ``map`` passes (the same work
      whatever is removed). Cached per (trump, removed cards): ``_opponent_counts``.
    * **2 opponents: exact**, integer counts of ordered pairs of opponent hands. For a set ``A``
      of hands (those scoring below the hand, or not above it), the ordered pairs of *disjoint*
      hands of ``A`` number ``sum_X (-1)^|X| a(X)^2`` over physical sets ``X`` of the remaining
      shoe, ``a(X)`` being the hands of ``A`` that contain ``X``; ``a`` depends only on the type
      of ``X`` and follows from the four-card level by ``(4 - |x|) a(x) = sum_c (r_c - x_c)
      a(x + c)``. The first query for a (trump, score) pair also builds that pair's tables,
      which are then cached: ``_pair_counts``.
    * **3 opponents: Monte Carlo.** The same identity for three hands needs sums over triples of
      overlapping card sets, far beyond the time budget in pure Python. The estimate deals
      ``samples`` random tables with ``random.Random(seed)``, so it is deterministic for a given
      seed, and reports the seed, the sample count and the standard error (the largest of
      ``sqrt(p (1 - p) / samples)`` over the three estimated probabilities): ``_simulate``.

    Refusals: a hand and seen cards that hold some card more than six times raise ``ShoeError``
    (``SHOE_EXCEEDED``) at the first seen card over the limit; a remaining shoe too small to deal
    every opponent raises ``OddsError`` ``SHOE_TOO_SMALL`` at ``("seen",)``.
    """
    request = _parse_request(cards, trump, seen, opponents, ruleset)
    samples, seed = _check_sampling(samples, seed)
    if opponents > EXACT_OPPONENTS:
        return _estimate(request, opponents, samples, seed)
    model = _model(request.trump, request.rules)
    score = request.score
    counts = _opponent_counts(request.trump, request.removed, request.rules)
    below = sum(counts[:score])
    not_above = below + counts[score]
    total = math.comb(request.remaining, HAND_SIZE)
    if opponents == 1:
        wins = below
    else:
        wins, not_above = _pair_counts(
            request.trump, request.removed, score, below, not_above, request.rules
        )
        total *= math.comb(request.remaining - HAND_SIZE, HAND_SIZE)
    ties, losses = not_above - wins, total - not_above
    return Odds(
        cards=request.hand,
        trump=request.trump,
        score=score,
        opponents=opponents,
        remaining=request.remaining,
        exact=True,
        win=wins / total,
        tie=ties / total,
        loss=losses / total,
        percentile=model.percentile[score],
        wins=wins,
        ties=ties,
        losses=losses,
        total=total,
        ruleset=request.ruleset,
    )


def _estimate(request: _Request, opponents: int, samples: int, seed: int) -> Odds:
    model = _model(request.trump, request.rules)
    pool = [
        CARD_WEIGHT[c] for c, d in enumerate(request.removed) for _ in range(COPIES_IN_SHOE - d)
    ]
    wins, ties, losses = _simulate(model.scores, pool, opponents, request.score, samples, seed)
    win, tie, loss = wins / samples, ties / samples, losses / samples
    error = max(math.sqrt(p * (1 - p) / samples) for p in (win, tie, loss))
    return Odds(
        cards=request.hand,
        trump=request.trump,
        score=request.score,
        opponents=opponents,
        remaining=request.remaining,
        exact=False,
        win=win,
        tie=tie,
        loss=loss,
        percentile=model.percentile[request.score],
        samples=samples,
        seed=seed,
        standard_error=error,
        ruleset=request.ruleset,
    )


def sample_odds(
    cards: Sequence[Card | str],
    trump: Suit | str | None = None,
    seen: Sequence[Card | str] | None = (),
    opponents: int = 1,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> Odds:
    """The Monte Carlo estimate ``hand_odds`` gives for three opponents, for any number of them:
    lets the estimator be checked against the exact answers, and callers trade accuracy for time."""
    request = _parse_request(cards, trump, seen, opponents, ruleset)
    samples, seed = _check_sampling(samples, seed)
    return _estimate(request, opponents, samples, seed)
