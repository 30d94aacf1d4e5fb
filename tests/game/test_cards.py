"""docs/rules.md §1 and §2: the cards and their wire notation."""

from __future__ import annotations

import pickle

import pytest
from quart_bezique.game.cards import (
    CARDS,
    CardError,
    Rank,
    Suit,
    TrumpError,
    card,
    format_cards,
    parse_card,
    parse_cards,
    parse_suit,
)


def test_rules_1_there_are_24_distinct_cards() -> None:
    assert len(CARDS) == 24
    assert len({(c.rank, c.suit) for c in CARDS}) == 24
    assert [c.index for c in CARDS] == list(range(24))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("KS", "KS"),
        ("10H", "10H"),
        ("9D", "9D"),
        ("TS", "10S"),
        ("ts", "10S"),
        ("tS", "10S"),
        ("10s", "10S"),
        ("qh", "QH"),
        ("K♠", "KS"),
        ("k♣", "KC"),
        ("T♥", "10H"),
        ("10♦", "10D"),
        ("a♠", "AS"),
        ("ТП", "AS"),
        ("кк", "KC"),
        ("Д♥", "QH"),
        ("10б", "10D"),
    ],
)
def test_rules_2_aliases_parse_to_the_canonical_card(text: str, code: str) -> None:
    assert parse_card(text).code == code


def test_rules_2_every_card_round_trips_through_its_canonical_code() -> None:
    for c in CARDS:
        assert parse_card(c.code) is c
        assert card(c.rank, c.suit) is c


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "no card is written here"),
        ("K", "1 character is not a card"),
        ("10SS", "4 characters are not a card"),
        ("1S", "unknown rank"),
        ("11S", "unknown rank"),
        ("BS", "unknown rank"),
        ("ТS", "mixes Latin and Cyrillic"),
        ("Т♠", "looks exactly like the Latin T"),
        ("KX", "unknown suit"),
        ("K♤", "unknown suit"),
        (10, "written as text in quotes, not as a number"),
        (None, "written as text in quotes, not as null"),
        (["KS"], "written as text in quotes, not as a list"),
    ],
)
def test_rules_2_bad_spellings_raise_a_typed_error_naming_value_and_position(
    value: object, reason: str
) -> None:
    with pytest.raises(CardError) as caught:
        parse_card(value, 3)
    assert reason in str(caught.value)
    assert caught.value.position == 3
    assert caught.value.value == value
    assert caught.value.code == "INVALID_CARD"
    assert caught.value.pointer() == "/3"


def test_rules_2_parse_cards_reports_the_first_bad_position() -> None:
    with pytest.raises(CardError) as caught:
        parse_cards(["KS", "QS", "ZZ", "XX"])
    assert caught.value.position == 2


def test_rules_2_a_card_and_its_parts_print_as_canonical_codes() -> None:
    ten = parse_card("t♥")
    assert (str(ten), repr(ten)) == ("10H", "Card(10H)")
    assert (ten.rank.code, ten.suit.code) == ("10", "H")
    assert [f"{c}" for c in parse_cards(["к♠", "9d"])] == ["KS", "9D"]


def test_rules_2_output_is_canonical_upper_case() -> None:
    assert format_cards(parse_cards(["ts", "k♦", "9h"])) == ["10S", "KD", "9H"]


@pytest.mark.parametrize(
    ("text", "suit"),
    [
        ("S", Suit.SPADES),
        ("c", Suit.CLUBS),
        ("♥", Suit.HEARTS),
        ("d", Suit.DIAMONDS),
        (None, None),
        ("П", Suit.SPADES),
        ("т", Suit.CLUBS),
        ("К", Suit.CLUBS),
        ("ч", Suit.HEARTS),
        ("Б", Suit.DIAMONDS),
    ],
)
def test_rules_2_trump_is_a_suit_or_null(text: str | None, suit: Suit | None) -> None:
    assert parse_suit(text) is suit


@pytest.mark.parametrize("bad", ["", "X", "SS", "spades", 1, True, "T", "K", "ПП"])
def test_rules_2_bad_trump_is_refused(bad: object) -> None:
    with pytest.raises(TrumpError):
        parse_suit(bad)


def test_rules_3_points_of_single_cards() -> None:
    points = {r: r.points for r in Rank}
    assert points == {
        Rank.KING: 1,
        Rank.QUEEN: 1,
        Rank.JACK: 1,
        Rank.TEN: 1,
        Rank.ACE: 0,
        Rank.NINE: 0,
    }
    assert all(c.points == c.rank.points for c in CARDS)


def test_cards_are_shared_instances_even_through_pickle() -> None:
    for c in CARDS:
        assert pickle.loads(pickle.dumps(c)) is c
