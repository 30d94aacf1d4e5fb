"""docs/rules.md §3 to §7: scoring a hand, with and without trumps.

The worked examples are checked one by one; then the whole hand space (17,550 hands x 5 trump
settings) is checked three ways: the served table against the definition (the declaration search),
the definition against the independent reference written from the rules text
(``reference_rulesets.py``, under ``classic/1``'s switches), and every reported breakdown against
the declaration rules.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from quart_bezique.game.cards import CARDS, Card, CardError, Rank, Suit, parse_cards
from quart_bezique.game.scoring import (
    TRUMP_SETTINGS,
    CombinationType,
    HandError,
    HandScore,
    distinct_hands,
    hand_key,
    score_hand,
    search_declaration,
    table,
)

from tests.game.reference_rulesets import (
    combination_points,
    is_bezique,
    kind_of,
    loose_points,
    rank_of,
    reference_scores,
)

# --- section 7: the worked examples, verbatim -------------------------------------------------

WORKED_EXAMPLES = [
    # (hand, trump, score, the combinations reported as (type, points))
    ("Q♠ Q♣ Q♥ K♥", None, 7, [("three_of_a_kind", 6)]),
    ("K♥ Q♥ K♦ 10♦", None, 6, [("marriage", 4)]),
    ("Q♠ J♣ K♦ J♦", None, 6, [("bezique", 4)]),
    ("Q♠ J♣ Q♥ J♦", None, 9, [("double_bezique", 9)]),
    ("K♠ Q♠ J♠ J♣", None, 10, [("bezique", 4), ("coronka", 6)]),
    ("K♠ Q♠ J♠ 10♠", None, 9, [("coronka", 9)]),
    ("A♠ A♣ A♥ A♦", None, 0, [("four_of_a_kind", 0)]),
    ("K♠ K♣ K♥ K♦", None, 8, [("four_of_a_kind", 8)]),
    ("9♠ 9♣ 9♥ 9♦", None, 9, [("four_of_a_kind", 9)]),
    ("K♠ Q♠ J♠ J♣", "S", 16, [("bezique", 4), ("coronka", 12)]),
    ("K♠ Q♠ J♠ J♣", "C", 10, [("bezique", 4), ("coronka", 6)]),
    ("K♥ Q♥ K♦ 10♦", "H", 10, [("marriage", 8)]),
    ("K♥ Q♥ K♦ 10♦", "D", 8, [("marriage", 4)]),
    ("Q♥ Q♥ Q♥ Q♥", "H", 18, [("four_of_a_kind", 18)]),
    ("Q♥ Q♥ Q♥ Q♠", "H", 9, [("four_of_a_kind", 9)]),
    ("K♠ K♠ Q♠ Q♠", None, 8, [("marriage", 4), ("marriage", 4)]),
    ("K♥ Q♥ Q♠ J♣", None, 8, [("marriage", 4), ("bezique", 4)]),
    ("A♠ A♣ A♥ K♥", None, 7, [("three_of_a_kind", 6)]),
    ("Q♠ K♠ A♠ J♣", None, 10, [("bezique", 4), ("coronka", 6)]),
    ("J♣ J♣ J♣ Q♠", "C", 13, [("three_of_a_kind", 12)]),
    ("9♥ A♥ 9♦ A♦", "H", 0, []),
]


@pytest.mark.parametrize(
    ("hand", "trump", "score", "combinations"),
    WORKED_EXAMPLES,
    ids=[f"{h}|{t or '-'}" for h, t, _, _ in WORKED_EXAMPLES],
)
def test_rules_7_worked_examples(
    hand: str, trump: str | None, score: int, combinations: list[tuple[str, int]]
) -> None:
    result = score_hand(hand.split(), trump)
    assert result.score == score
    assert [(c.type.value, c.points) for c in result.combinations] == combinations
    assert_legal_breakdown(result)


def test_rules_7_loose_cards_of_the_trump_example_are_doubled() -> None:
    result = score_hand(["K♥", "Q♥", "K♦", "10♦"], "D")
    assert [(lc.card.code, lc.points) for lc in result.loose] == [("KD", 2), ("10D", 2)]


def test_rules_7_bezique_shares_queen_with_coronka() -> None:
    result = score_hand(["KS", "QS", "JS", "JC"])
    bezique, coronka = result.combinations
    assert [c.code for c in bezique.cards] == ["QS", "JC"]
    assert [c.code for c in coronka.cards] == ["KS", "QS", "JS"]
    assert result.loose == ()


# --- sections 4 to 6, one rule at a time ------------------------------------------------------


def test_rules_5_1_four_of_a_kind_takes_the_whole_hand() -> None:
    for rank, points in [(Rank.ACE, 0), (Rank.KING, 8), (Rank.QUEEN, 9), (Rank.NINE, 9)]:
        hand = [c for c in CARDS if c.rank is rank]
        result = score_hand(hand)
        assert result.score == points
        assert [c.type for c in result.combinations] == [CombinationType.FOUR_OF_A_KIND]
        assert result.loose == ()


def test_rules_5_2_combinations_share_no_card_except_bezique_with_coronka() -> None:
    # Q♥ cannot serve the three queens and the marriage at once.
    assert score_hand(["QS", "QC", "QH", "KH"]).score == 7
    # The coronka's own marriage does not count beside it.
    assert score_hand(["KS", "QS", "JS", "10S"]).score == 9
    # Three of a kind never shares with a bezique: Q♠ Q♣ Q♥ J♦ is three queens + J, not more.
    assert score_hand(["QS", "QC", "QH", "JD"]).score == 7


def test_rules_5_5_ties_prefer_the_earlier_combination_kind_whatever_the_card_order() -> None:
    # Marriage K♥Q♥ + J♦ + 9♠ and bezique Q♥J♦ + K♥ + 9♠ both reach 5: the marriage is reported.
    for order in itertools.permutations(["JD", "9S", "QH", "KH"]):
        result = score_hand(list(order))
        assert result.score == 5
        assert [(c.type.value, [x.code for x in c.cards]) for c in result.combinations] == [
            ("marriage", ["KH", "QH"])
        ]
        assert [lc.card.code for lc in result.loose] == ["9S", "JD"]


def test_rules_5_3_two_beziques_count_nine_even_from_duplicates() -> None:
    result = score_hand(["QS", "QS", "JC", "JC"])
    assert result.score == 9
    assert [c.type for c in result.combinations] == [CombinationType.DOUBLE_BEZIQUE]


def test_rules_4_bezique_needs_different_suits_of_one_colour() -> None:
    assert score_hand(["QS", "JS", "9H", "9D"]).score == 2  # same suit: no bezique
    assert score_hand(["QS", "JH", "9H", "9D"]).score == 2  # different colours: no bezique
    assert score_hand(["QH", "JD", "9H", "9D"]).score == 4


def test_rules_4_coronka_does_not_wrap_around() -> None:
    assert score_hand(["AS", "9S", "10S", "9D"]).score == 1  # A-9-10 is not a run
    assert score_hand(["QS", "KS", "AS", "9D"]).score == 6


def test_rules_4_three_aces_and_three_nines_score_six() -> None:
    assert score_hand(["AS", "AC", "AH", "9D"]).score == 6
    assert score_hand(["9S", "9C", "9H", "AD"]).score == 6


def test_rules_6_mixed_combinations_are_not_doubled() -> None:
    assert score_hand(["QS", "JC", "9H", "9D"], "S").score == 4
    assert score_hand(["QS", "JC", "QH", "JD"], "S").score == 9  # double bezique stays 9
    assert score_hand(["KS", "KS", "KC", "9D"], "S").score == 6  # three kings, two trumps


def test_rules_6_four_trump_aces_still_score_zero_and_four_trump_kings_sixteen() -> None:
    assert score_hand(["AS"] * 4, "S").score == 0
    assert score_hand(["KS"] * 4, "S").score == 16
    assert score_hand(["10S"] * 4, "S").score == 18


def test_rules_6_coronka_of_four_in_trumps_scores_eighteen() -> None:
    assert score_hand(["9H", "10H", "JH", "QH"], "H").score == 18


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 3, 5, 8])
def test_rules_1_a_hand_is_exactly_four_cards(size: int) -> None:
    with pytest.raises(HandError) as caught:
        score_hand(["KS"] * size)
    assert caught.value.code == "WRONG_HAND_SIZE"


def test_rules_2_bad_card_in_a_hand_names_its_position() -> None:
    with pytest.raises(CardError) as caught:
        score_hand(["KS", "QS", "JS", "JX"])
    assert caught.value.path == (3,)


@pytest.mark.parametrize("bad", ["KSQSJSJC", None, 7, {"a": 1}])
def test_a_hand_must_be_a_list(bad: object) -> None:
    with pytest.raises(HandError):
        score_hand(bad)  # type: ignore[arg-type]


# --- the breakdown rules ----------------------------------------------------------------------


def assert_legal_breakdown(result: HandScore) -> None:
    """The reported declaration is one the rules allow, and its points make the score (each
    combination's kind and points, and each loose card's, as the reference reads the rules)."""
    trump = result.trump.value if result.trump else None
    for combo in result.combinations:
        if combo.type is CombinationType.DOUBLE_BEZIQUE:
            q1, q2 = [c for c in combo.cards if rank_of(c) == "Q"]
            j1, j2 = [c for c in combo.cards if rank_of(c) == "J"]
            assert (is_bezique([q1, j1]) and is_bezique([q2, j2])) or (
                is_bezique([q1, j2]) and is_bezique([q2, j1])
            )
            assert combo.points == 9
        elif combo.type is CombinationType.FOUR_OF_A_KIND:
            assert len({rank_of(c) for c in combo.cards}) == 1 and len(combo.cards) == 4
        else:
            kind = combo.type
            assert kind_of(combo.cards) == kind.value, combo
            assert combo.points == combination_points(kind.value, combo.cards, trump), combo
            if kind is CombinationType.BEZIQUE:
                assert is_bezique(combo.cards)
            elif kind is CombinationType.MARRIAGE:
                assert sorted(rank_of(c) for c in combo.cards) == ["K", "Q"]
            elif kind is CombinationType.THREE_OF_A_KIND:
                assert len(combo.cards) == 3 and len({rank_of(c) for c in combo.cards}) == 1
            else:
                assert kind is CombinationType.CORONKA
                assert len({rank_of(c) for c in combo.cards}) == len(combo.cards)
    for loose in result.loose:
        assert loose.points == loose_points([loose.card], trump)
    used = Counter(c for combo in result.combinations for c in combo.cards)
    used.update(lc.card for lc in result.loose)
    held = Counter(result.cards)
    extra = used - held
    assert not (held - used), "every card is declared or loose"
    if extra:
        ((shared, times),) = extra.items()
        assert times == 1
        kinds = {combo.type for combo in result.combinations if shared in combo.cards}
        assert kinds == {CombinationType.BEZIQUE, CombinationType.CORONKA}
    total = sum(c.points for c in result.combinations) + sum(lc.points for lc in result.loose)
    assert total == result.score


# --- exhaustive checks over the whole hand space ------------------------------------------------

ALL_HANDS = list(distinct_hands())


def test_rules_1_the_hand_space_has_17550_hands() -> None:
    assert len(ALL_HANDS) == 17_550
    assert len({hand_key(h) for h in ALL_HANDS}) == 17_550


@pytest.mark.slow
@pytest.mark.parametrize("trump", TRUMP_SETTINGS, ids=lambda t: t.value if t else "none")
def test_rules_5_table_equals_the_declaration_search_for_every_hand(trump: Suit | None) -> None:
    served = table(trump)
    for hand in ALL_HANDS:
        assert served.breakdowns[hand_key(hand)] == search_declaration(hand, trump), hand


@functools.cache
def _reference_scores() -> list[list[int]]:
    """Every hand's reference score under each trump setting: worked out once for all five
    (the reference lists a hand's declarations once for every trump)."""
    return [
        reference_scores(hand, [t.value if t else None for t in TRUMP_SETTINGS])
        for hand in ALL_HANDS
    ]


@pytest.mark.slow
@pytest.mark.parametrize("trump", TRUMP_SETTINGS, ids=lambda t: t.value if t else "none")
def test_rules_5_search_agrees_with_an_independent_reference(trump: Suit | None) -> None:
    setting = TRUMP_SETTINGS.index(trump)
    for hand, expected in zip(ALL_HANDS, _reference_scores(), strict=True):
        assert table(trump).scores[hand_key(hand)] == expected[setting], hand


@pytest.mark.slow
@pytest.mark.parametrize("trump", TRUMP_SETTINGS, ids=lambda t: t.value if t else "none")
def test_rules_5_every_breakdown_is_a_legal_declaration(trump: Suit | None) -> None:
    for hand in ALL_HANDS:
        assert_legal_breakdown(score_hand(hand, trump))


def test_rules_6_doubling_never_lowers_a_score() -> None:
    plain = table(None).scores
    for trump in Suit:
        doubled = table(trump).scores
        assert all(doubled[key] >= points for key, points in plain.items())


@pytest.mark.slow
def test_rules_5_5_permuting_a_hand_changes_neither_score_nor_breakdown() -> None:
    for hand in ALL_HANDS:
        codes = [c.code for c in hand]
        for trump in TRUMP_SETTINGS:
            first = score_hand(codes, trump)
            for order in set(itertools.permutations(codes)):
                again = score_hand(list(order), trump)
                assert (again.score, again.combinations, again.loose) == (
                    first.score,
                    first.combinations,
                    first.loose,
                )


@given(
    st.lists(st.sampled_from(CARDS), min_size=4, max_size=4),
    st.sampled_from(TRUMP_SETTINGS),
    st.permutations(range(4)),
)
def test_rules_5_5_the_definition_itself_ignores_card_order(
    hand: list[Card], trump: Suit | None, order: list[int]
) -> None:
    assert search_declaration(hand, trump) == search_declaration([hand[i] for i in order], trump)


def test_scores_range_from_zero_to_eighteen() -> None:
    scores = {s for trump in TRUMP_SETTINGS for s in table(trump).scores.values()}
    assert min(scores) == 0
    assert max(scores) == 18


def test_aliases_score_like_canonical_codes() -> None:
    assert score_hand(parse_cards(["t♠", "j♠", "q♠", "k♠"])).score == 9
