"""Showdown odds against the rest of the shoe, as docs/rules.md §12 defines them.

The exact answers are checked against references written here from the model alone (the hand and
the seen cards leave the shoe; opponents get four physical cards each, every deal equally likely):

* physical brute force: ``itertools.combinations`` over the physical cards left, for shoes small
  enough to enumerate (one, two and three opponents);
* multiset brute force: every one of the 17,550 four-card multisets weighed by the number of
  physical hands it stands for, for full-size shoes that physical enumeration cannot reach;
* conditioning: two opponents as "the first opponent's hand, then one opponent from what is left".

Then the properties the odds must have: counts add up, the best hand never loses, four aces never
win, and the odds do not change under reordering the cards or relabelling suits symmetrically.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import pytest
from quart_bezique.game import odds as odds_module
from quart_bezique.game.cards import CARDS, COPIES_IN_SHOE, Card, Suit, parse_card, parse_suit
from quart_bezique.game.errors import RulesError
from quart_bezique.game.odds import FULL_SHOE_HANDS, Odds, OddsError, hand_odds, sample_odds
from quart_bezique.game.scoring import TRUMP_SETTINGS, distinct_hands, hand_key, table
from quart_bezique.game.showdown import ShoeError

SUITS = "SCHD"
RANKS = ("A", "K", "Q", "J", "10", "9")
ALL_CODES = [c.code for c in CARDS]


# --- references ------------------------------------------------------------------------------


def _score_of(trump: Suit | None) -> Callable[[Sequence[Card]], int]:
    scores = table(trump).scores
    return lambda cards: scores[hand_key(cards)]


def _left_in_shoe(hand: Sequence[str], seen: Sequence[str]) -> Counter[Card]:
    left = Counter({c: COPIES_IN_SHOE for c in CARDS})
    left.subtract(parse_card(code) for code in [*hand, *seen])
    return left


def _physical_shoe(hand: Sequence[str], seen: Sequence[str]) -> list[Card]:
    """Every physical card left, one list entry each."""
    return [c for c, n in sorted(_left_in_shoe(hand, seen).items()) for _ in range(n)]


def _outcomes(best_of_opponents: Iterable[int], mine: int) -> tuple[int, int, int]:
    tally = Counter((best > mine) - (best < mine) for best in best_of_opponents)
    return tally[-1], tally[0], tally[1]  # wins, ties, losses


def brute_force(
    hand: Sequence[str], trump: str | None, seen: Sequence[str], opponents: int
) -> tuple[int, int, int]:
    """Wins, ties, losses over every ordered deal of physical cards to the opponents."""
    suit = parse_suit(trump)
    score = _score_of(suit)
    shoe = _physical_shoe(hand, seen)
    mine = score([parse_card(code) for code in hand])

    def deals(free: tuple[int, ...], k: int) -> Iterable[int]:
        """The best opponent score of every deal of k hands from the physical cards ``free``."""
        for chosen in itertools.combinations(free, 4):
            first = score([shoe[i] for i in chosen])
            if k == 1:
                yield first
            else:
                rest = tuple(i for i in free if i not in chosen)
                for others in deals(rest, k - 1):
                    yield max(first, others)

    return _outcomes(deals(tuple(range(len(shoe))), opponents), mine)


def weighted_count(
    hand: Sequence[str], trump: str | None, seen: Sequence[str]
) -> tuple[int, int, int]:
    """One opponent: every distinct multiset, weighed by prod_c C(left_c, m_c)."""
    score = _score_of(parse_suit(trump))
    left = _left_in_shoe(hand, seen)
    mine = score([parse_card(code) for code in hand])
    tally = [0, 0, 0]
    for multiset in distinct_hands():
        weight = math.prod(math.comb(left[c], n) for c, n in Counter(multiset).items())
        tally[(score(multiset) > mine) - (score(multiset) < mine) + 1] += weight
    wins, ties, losses = tally
    return wins, ties, losses


def counts(o: Odds) -> tuple[int | None, int | None, int | None]:
    return o.wins, o.ties, o.losses


def random_deal(rng: random.Random, seen: int) -> tuple[list[str], list[str]]:
    """A hand and ``seen`` more cards, dealt from a shuffled full shoe."""
    shoe = [code for code in ALL_CODES for _ in range(COPIES_IN_SHOE)]
    rng.shuffle(shoe)
    return shoe[:4], shoe[4 : 4 + seen]


# --- the exact counts against the references -------------------------------------------------


def test_nothing_seen_total_is_every_hand_of_140_cards() -> None:
    o = hand_odds(["KS", "QS", "JS", "JC"])
    assert o.total == math.comb(140, 4) == 15_329_615
    assert o.wins is not None and o.ties is not None and o.losses is not None
    assert o.wins + o.ties + o.losses == o.total
    assert o.exact and o.remaining == 140 and o.opponents == 1 and o.score == 10
    assert (o.win, o.tie, o.loss) == (o.wins / o.total, o.ties / o.total, o.losses / o.total)
    assert o.samples is None and o.seed is None and o.standard_error is None


@pytest.mark.parametrize("seed", range(8))
def test_counts_add_up_to_total(seed: int) -> None:
    rng = random.Random(seed)
    hand, seen = random_deal(rng, rng.choice([0, 3, 12, 40, 100]))
    for opponents in (1, 2):
        o = hand_odds(hand, rng.choice(["S", "C", "H", "D", None]), seen, opponents)
        assert o.wins is not None and o.ties is not None and o.losses is not None
        left = 140 - len(seen)
        expected = math.prod(math.comb(left - 4 * i, 4) for i in range(opponents))
        assert o.total == expected
        assert o.wins + o.ties + o.losses == o.total
        assert min(o.wins, o.ties, o.losses) >= 0
        assert o.win + o.tie + o.loss == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(6))
def test_one_opponent_matches_physical_brute_force(seed: int) -> None:
    """Small shoes (24 to 40 cards left): every set of four physical cards, enumerated."""
    rng = random.Random(100 + seed)
    hand, seen = random_deal(rng, 140 - rng.choice([24, 30, 40]))
    trump = rng.choice(["S", "H", None])
    o = hand_odds(hand, trump, seen)
    assert counts(o) == brute_force(hand, trump, seen, 1)
    assert o.total == math.comb(o.remaining, 4)


@pytest.mark.parametrize(
    ("hand", "trump", "seen"),
    [
        (["KS", "QS", "JS", "JC"], None, []),
        (["QH", "QH", "QH", "QH"], "H", []),
        (["AS", "AC", "AH", "AD"], None, ["KS", "KS", "QD"]),
        (["9H", "AH", "9D", "AD"], "H", ["QS", "JC", "QH", "JD", "KH"]),
        (["10S", "JS", "QS", "KS"], "S", ["JS", "JS", "JS", "JS", "JS", "QC", "QC"]),
        (["KH", "QH", "KD", "10D"], "D", ALL_CODES[:12]),
        (["QS", "JC", "QH", "JD"], None, ALL_CODES),
        (["JC", "JC", "JC", "QS"], "C", [c for c in ALL_CODES for _ in range(2)][:40]),
    ],
)
def test_one_opponent_matches_weighted_multisets(
    hand: list[str], trump: str | None, seen: list[str]
) -> None:
    """Full-size shoes: all 17,550 multisets weighed by their physical counts. The cases cover
    both exact methods (few cards out: inclusion-exclusion; many: enumeration)."""
    assert counts(hand_odds(hand, trump, seen)) == weighted_count(hand, trump, seen)


def test_both_one_opponent_methods_agree() -> None:
    """White-box: the cost-based choice between the two exact methods must not change answers."""
    rng = random.Random(7)
    for trump in TRUMP_SETTINGS:
        model = odds_module._model(trump)
        for out in (4, 9, 20, 21, 35):
            hand, seen = random_deal(rng, out - 4)
            removed = [0] * len(CARDS)
            for code in [*hand, *seen]:
                removed[parse_card(code).index] += 1
            left = [COPIES_IN_SHOE - d for d in removed]
            by_exclusion = odds_module._by_exclusion(model, removed)
            assert by_exclusion == odds_module._by_enumeration(model, left)
            assert sum(by_exclusion) == math.comb(144 - out, 4)


@pytest.mark.parametrize("seed", range(3))
def test_two_opponents_match_physical_brute_force(seed: int) -> None:
    """14 cards left: all 1001 x 210 ordered deals of two hands."""
    rng = random.Random(200 + seed)
    hand, seen = random_deal(rng, 140 - 14)
    trump = rng.choice(["C", "D", None])
    o = hand_odds(hand, trump, seen, 2)
    assert counts(o) == brute_force(hand, trump, seen, 2)
    assert o.total == math.comb(14, 4) * math.comb(10, 4)


@pytest.mark.slow
def test_two_opponents_match_conditioning_on_the_first_hand() -> None:
    """A 74-card shoe of 13 kinds of card, too big for physical enumeration: sum over the first
    opponent's multiset (weighed by its physical count) of the one-opponent counts for the
    second, from what the first leaves. This shoe (as many kinds out as left) takes the other
    branch of the two-opponent computation than the small shoes above."""
    hand = ["KS", "KS", "QS", "QS"]
    gone = [code for code in ALL_CODES if code not in ("KS", "QS")][:11]
    seen = [code for code in gone for _ in range(COPIES_IN_SHOE)]
    left = _left_in_shoe(hand, seen)
    kinds = sorted(c for c, n in left.items() if n)
    assert len(kinds) == 13
    score = _score_of(None)
    mine = score([parse_card(code) for code in hand])
    below = not_above = 0
    for first in itertools.combinations_with_replacement(kinds, 4):
        weight = math.prod(math.comb(left[c], n) for c, n in Counter(first).items())
        if score(first) > mine:
            continue
        second = hand_odds(hand, None, [*seen, *(c.code for c in first)])
        assert second.wins is not None and second.ties is not None
        if score(first) < mine:
            below += weight * second.wins
        not_above += weight * (second.wins + second.ties)
    o = hand_odds(hand, None, seen, 2)
    assert o.wins is not None and o.ties is not None
    assert (o.wins, o.wins + o.ties) == (below, not_above)


def test_percentile_is_the_mid_rank_among_full_shoe_hands() -> None:
    for trump in (None, Suit.HEARTS):
        score = _score_of(trump)
        by_score: Counter[int] = Counter()
        for multiset in distinct_hands():
            weight = math.prod(math.comb(COPIES_IN_SHOE, n) for n in Counter(multiset).values())
            by_score[score(multiset)] += weight
        assert sum(by_score.values()) == FULL_SHOE_HANDS == math.comb(144, 4)
        for hand in (["AS", "AC", "AH", "AD"], ["KH", "QH", "KD", "10D"], ["QH"] * 4):
            mine = score([parse_card(code) for code in hand])
            lower = sum(n for s, n in by_score.items() if s < mine)
            expected = 100 * (lower + by_score[mine] / 2) / FULL_SHOE_HANDS
            o = hand_odds(hand, trump, ["QH", "9S"])
            assert o.percentile == pytest.approx(expected, rel=1e-12)
            assert 0 < o.percentile < 100


# --- properties the odds must have -----------------------------------------------------------


def test_a_maximum_hand_never_loses() -> None:
    best_plain = max(table(None).scores.values())
    best_trump = max(table(Suit.HEARTS).scores.values())
    assert (best_plain, best_trump) == (10, 18)
    for hand, trump, seen in [
        (["QH", "QH", "QH", "QH"], "H", []),
        (["QH", "QH", "QH", "QH"], "H", ["QH", "QH", "JH", "KH", "9H"]),
        (["KS", "QS", "JS", "JC"], None, []),
        (["QS", "KS", "AS", "JC"], None, ["AS", "AS"]),
    ]:
        assert hand_odds(hand, trump).score in (best_plain, best_trump)
        for opponents in (1, 2):
            o = hand_odds(hand, trump, seen, opponents)
            assert o.losses == 0 and o.loss == 0.0
            assert o.wins is not None and o.ties is not None and o.wins > o.ties > 0
        assert hand_odds(hand, trump, seen, 3).loss == 0.0


def test_four_aces_never_win_but_tie_with_hands_that_score_nothing() -> None:
    for trump in TRUMP_SETTINGS:
        for opponents in (1, 2):
            o = hand_odds(["AS", "AC", "AH", "AD"], trump, [], opponents)
            assert o.score == 0
            assert o.wins == 0 and o.win == 0.0
            assert o.ties is not None and o.ties > 0  # e.g. 9H AH 9D AD also scores 0
            assert o.losses is not None and o.losses > o.ties
        assert hand_odds(["AS", "AS", "AS", "AS"], trump, [], 3).win == 0.0


@pytest.mark.parametrize(
    "opponents",
    [1, 2, pytest.param(3, marks=pytest.mark.slow)],  # 3: 25 Monte Carlo runs
)
def test_odds_do_not_depend_on_the_order_of_the_cards(opponents: int) -> None:
    hand = ["KS", "QS", "QC", "JC"]
    seen = ["JS", "JS", "QH", "9D", "AC"]
    reference = hand_odds(hand, None, seen, opponents)
    for order in itertools.permutations(hand):
        assert hand_odds(list(order), None, seen, opponents) == reference
    assert hand_odds(hand, None, list(reversed(seen)), opponents) == reference
    assert reference.cards == tuple(parse_card(c) for c in ("KS", "QS", "QC", "JC"))


SUIT_RELABELLINGS = [
    {"S": "C", "C": "S", "H": "H", "D": "D"},  # spades with clubs
    {"S": "S", "C": "C", "H": "D", "D": "H"},  # hearts with diamonds
    {"S": "H", "C": "D", "H": "S", "D": "C"},  # the black pair with the red pair
    {"S": "D", "C": "H", "H": "C", "D": "S"},  # the same, composed with both swaps
]


def _relabel(codes: Sequence[str], suits: dict[str, str]) -> list[str]:
    return [code[:-1] + suits[code[-1]] for code in codes]


@pytest.mark.parametrize("seed", range(4))
def test_odds_are_invariant_under_colour_preserving_suit_swaps(seed: int) -> None:
    rng = random.Random(300 + seed)
    hand, seen = random_deal(rng, rng.choice([0, 5, 30]))
    for opponents in (1, 2):
        reference = hand_odds(hand, None, seen, opponents)
        for suits in SUIT_RELABELLINGS:
            o = hand_odds(_relabel(hand, suits), None, _relabel(seen, suits), opponents)
            assert (o.score, counts(o), o.total) == (
                reference.score,
                counts(reference),
                reference.total,
            )
            assert o.percentile == reference.percentile
        # With a trump, the same holds when the trump is relabelled along with the cards.
        with_trump = hand_odds(hand, "S", seen, opponents)
        for suits in SUIT_RELABELLINGS:
            o = hand_odds(_relabel(hand, suits), suits["S"], _relabel(seen, suits), opponents)
            assert counts(o) == counts(with_trump)


def test_a_suit_swap_that_breaks_colour_pairs_can_change_the_odds() -> None:
    """Spades with hearts alone is not a symmetry (Q-spades J-clubs is a bezique, Q-hearts
    J-clubs is not), so the invariance above is not vacuous."""
    hand = ["QS", "JC", "KD", "9H"]
    swapped = _relabel(hand, {"S": "H", "H": "S", "C": "C", "D": "D"})
    assert hand_odds(hand).score != hand_odds(swapped).score


# --- Monte Carlo ----------------------------------------------------------------------------


def test_three_opponents_is_a_seeded_monte_carlo_estimate() -> None:
    o = hand_odds(["KH", "QH", "KD", "10D"], "H", ["QS"], 3)
    assert not o.exact and o.opponents == 3
    assert o.samples == odds_module.DEFAULT_SAMPLES and o.seed == odds_module.DEFAULT_SEED
    assert o.wins is None and o.ties is None and o.losses is None and o.total is None
    assert o.win + o.tie + o.loss == pytest.approx(1.0)
    assert o.standard_error is not None
    assert o.standard_error == pytest.approx(
        max(math.sqrt(p * (1 - p) / o.samples) for p in (o.win, o.tie, o.loss))
    )
    again = hand_odds(["10D", "KD", "QH", "KH"], "H", ["QS"], 3)
    assert again == o
    other = hand_odds(["KH", "QH", "KD", "10D"], "H", ["QS"], 3, seed=1)
    assert other.seed == 1 and other != o


@pytest.mark.parametrize("opponents", [1, 2])
def test_monte_carlo_agrees_with_the_exact_answer(opponents: int) -> None:
    hand = ["QS", "JC", "K♦", "10D"]
    exact = hand_odds(hand, None, ["KS"], opponents)
    estimate = sample_odds(hand, None, ["KS"], opponents, samples=20_000, seed=11)
    assert estimate.samples == 20_000 and estimate.seed == 11
    for p_exact, p_estimate in zip(
        (exact.win, exact.tie, exact.loss),
        (estimate.win, estimate.tie, estimate.loss),
        strict=True,
    ):
        error = math.sqrt(p_exact * (1 - p_exact) / 20_000)
        assert abs(p_estimate - p_exact) <= 4 * error + 1e-9


def test_monte_carlo_agrees_with_brute_force_for_three_opponents_in_a_tiny_shoe() -> None:
    """12 cards left, three opponents: every one of the 495 x 70 ordered deals."""
    rng = random.Random(400)
    hand, seen = random_deal(rng, 140 - 12)
    wins, ties, losses = brute_force(hand, None, seen, 3)
    total = wins + ties + losses
    assert total == math.comb(12, 4) * math.comb(8, 4)
    estimate = hand_odds(hand, None, seen, 3, samples=20_000, seed=5)
    for n, p_estimate in zip(
        (wins, ties, losses), (estimate.win, estimate.tie, estimate.loss), strict=True
    ):
        p = n / total
        assert abs(p_estimate - p) <= 4 * math.sqrt(p * (1 - p) / 20_000) + 1e-9


# --- refusals -------------------------------------------------------------------------------


def _refusal(call: Callable[[], object]) -> RulesError:
    with pytest.raises(RulesError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(
    ("kwargs", "code", "path"),
    [
        ({"cards": ["KS", "QS", "JS"]}, "WRONG_HAND_SIZE", ("cards",)),
        ({"cards": ["KS", "QS", "XX", "JS"]}, "INVALID_CARD", ("cards", 2)),
        ({"cards": "KSQSJSJC"}, "INVALID_HAND", ("cards",)),
        ({"trump": "X"}, "INVALID_TRUMP", ("trump",)),
        ({"seen": "KS"}, "INVALID_SEEN", ("seen",)),
        ({"seen": ["KS", "1S"]}, "INVALID_CARD", ("seen", 1)),
        ({"opponents": 0}, "INVALID_OPPONENTS", ("opponents",)),
        ({"opponents": 4}, "INVALID_OPPONENTS", ("opponents",)),
        ({"opponents": True}, "INVALID_OPPONENTS", ("opponents",)),
        ({"opponents": "2"}, "INVALID_OPPONENTS", ("opponents",)),
        ({"samples": 0}, "INVALID_SAMPLES", ("samples",)),
        ({"samples": 10**7}, "INVALID_SAMPLES", ("samples",)),
        ({"seed": -1}, "INVALID_SEED", ("seed",)),
        ({"seed": 2**53}, "INVALID_SEED", ("seed",)),
        ({"seed": 1.5}, "INVALID_SEED", ("seed",)),
    ],
)
def test_bad_requests_are_refused_with_a_code_and_a_path(
    kwargs: dict[str, object], code: str, path: tuple[object, ...]
) -> None:
    arguments: dict[str, object] = {"cards": ["KS", "QS", "JS", "JC"], **kwargs}
    error = _refusal(lambda: hand_odds(**arguments))  # type: ignore[arg-type]
    assert (error.code, error.path) == (code, path)


def test_a_card_beyond_six_copies_is_refused_at_the_seen_card_that_exceeds() -> None:
    error = _refusal(lambda: hand_odds(["KS", "KS", "QS", "JS"], None, ["9D", *["KS"] * 5]))
    assert isinstance(error, ShoeError)
    assert (error.code, error.path, error.pointer()) == ("SHOE_EXCEEDED", ("seen", 5), "/seen/5")
    # Exactly six copies in all is fine.
    assert hand_odds(["KS", "KS", "QS", "JS"], None, ["KS"] * 4).remaining == 136


def test_a_shoe_too_small_for_every_opponent_is_refused() -> None:
    everything = [c for c in ALL_CODES for _ in range(COPIES_IN_SHOE)]
    hand = everything[:4]
    assert hand_odds(hand, None, everything[4:-8], 2).total == math.comb(8, 4)
    error = _refusal(lambda: hand_odds(hand, None, everything[4:-8], 3))
    assert isinstance(error, OddsError)
    assert (error.code, error.path) == ("SHOE_TOO_SMALL", ("seen",))
    assert _refusal(lambda: hand_odds(hand, None, everything[4:])).code == "SHOE_TOO_SMALL"


def test_no_seen_list_is_nothing_seen() -> None:
    """``seen=None`` (what a JSON ``null`` gives the library) means no card is known to be out."""
    for opponents in (1, 2, 3):
        nothing = hand_odds(["KS", "QS", "JS", "JC"], "S", None, opponents)
        assert nothing == hand_odds(["KS", "QS", "JS", "JC"], "S", (), opponents)
        assert nothing.remaining == 140


def test_cards_accept_every_spelling_and_come_back_canonical() -> None:
    o = hand_odds(["k♠", "Q♠", "j♠", "J♣"], "♠", ["t♥", "9d"])
    assert [c.code for c in o.cards] == ["KS", "QS", "JS", "JC"]
    assert o.trump is Suit.SPADES and o.score == 16 and o.remaining == 138
    assert o == hand_odds(
        [parse_card(c) for c in ("JC", "JS", "QS", "KS")], Suit.SPADES, ["10H", "9D"]
    )


def test_every_rank_and_suit_code_is_understood() -> None:
    # Guard for the helpers above: the relabelling keeps codes valid.
    assert {code[-1] for code in ALL_CODES} == set(SUITS)
    assert {code[:-1] for code in ALL_CODES} == set(RANKS)
