"""docs/rules.md §8: comparing two hands under one trump, within one shoe."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from quart_bezique.game.cards import CARDS, Card
from quart_bezique.game.errors import RulesError
from quart_bezique.game.scoring import TRUMP_SETTINGS, score_hand
from quart_bezique.game.showdown import ShoeError, compare_hands


def test_rules_8_higher_score_wins() -> None:
    result = compare_hands(["KS", "QS", "JS", "JC"], ["QH", "QH", "QH", "QH"], "H")
    assert [h.score for h in result.hands] == [10, 18]
    assert result.winner == 1
    assert not result.tie


def test_rules_8_trump_decides_the_order() -> None:
    first, second = ["KS", "QS", "JS", "JC"], ["KH", "QH", "KD", "10D"]
    assert compare_hands(first, second).winner == 0  # 10 against 6
    assert compare_hands(first, second, "S").winner == 0  # 16 against 6
    assert compare_hands(first, second, "H").tie  # 10 against 10: the marriage doubles
    assert compare_hands(["QS", "JC", "9H", "9D"], second, "H").winner == 1  # 4 against 10


def test_rules_8_equal_scores_tie_without_tie_break() -> None:
    result = compare_hands(["KH", "QH", "9S", "9C"], ["QS", "JC", "AH", "AD"])
    assert [h.score for h in result.hands] == [4, 4]
    assert result.tie
    assert result.winner is None


def test_rules_8_two_hands_may_hold_a_card_six_times() -> None:
    result = compare_hands(["KS", "KS", "KS", "QS"], ["KS", "KS", "KS", "QS"])
    assert result.tie


def test_rules_8_hands_no_shoe_can_hold_are_rejected() -> None:
    with pytest.raises(ShoeError) as caught:
        compare_hands(["KS", "KS", "KS", "KS"], ["KS", "KS", "KS", "QS"])
    assert caught.value.code == "SHOE_EXCEEDED"
    assert "KS" in caught.value.message


def test_rules_8_errors_name_the_hand_they_come_from() -> None:
    with pytest.raises(RulesError) as caught:
        compare_hands(["KS", "QS", "JS", "JC"], ["KS", "QS", "XX", "JC"])
    assert caught.value.path == (1, 2)
    with pytest.raises(RulesError) as caught:
        compare_hands(["KS", "QS", "JS"], ["KS", "QS", "JS", "JC"])
    assert caught.value.path == (0,)
    assert caught.value.code == "WRONG_HAND_SIZE"


hands = st.lists(st.sampled_from(CARDS), min_size=4, max_size=4)


@given(hands, hands, st.sampled_from(TRUMP_SETTINGS))
def test_rules_8_winner_is_the_higher_score_and_swapping_swaps_it(
    first: list[Card], second: list[Card], trump: object
) -> None:
    try:
        result = compare_hands(first, second, trump)  # type: ignore[arg-type]
    except ShoeError:
        return
    a, b = score_hand(first, trump).score, score_hand(second, trump).score  # type: ignore[arg-type]
    assert result.winner == (None if a == b else 0 if a > b else 1)
    swapped = compare_hands(second, first, trump)  # type: ignore[arg-type]
    assert swapped.winner == (None if result.winner is None else 1 - result.winner)
