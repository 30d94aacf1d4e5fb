"""docs/rules.md §13: house rules, as switches and named rulesets.

Every worked example of §13 is checked one by one, under each value of its switch. Then every
scoring reading (the eight combinations of the three scoring switches) is checked over the whole
hand space: the tables the service builds against the definition (the declaration search), and
against an independent reference written from §13's text (``reference_rulesets.py``). The odds
under another reading are checked against brute-force counts from that reading's tables, the
carried pot of ``tie=carry`` against the round it settles, and ``resolve_ruleset`` against every
form §13.6 lets a request name a ruleset in, and every refusal.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.game import scoring
from quart_bezique.game.betting import validate_betting
from quart_bezique.game.cards import CARDS, Card, Rank, Suit, parse_card, parse_suit
from quart_bezique.game.odds import FULL_SHOE_HANDS, hand_odds
from quart_bezique.game.reading_cache import ReadingCache
from quart_bezique.game.ruleset import (
    CLASSIC,
    LITERAL,
    PRESETS,
    SWITCHES,
    Ruleset,
    RulesetError,
    ScoringRules,
    resolve_ruleset,
)
from quart_bezique.game.scoring import (
    BUILT_TABLES_KEPT,
    TRUMP_SETTINGS,
    Breakdown,
    CombinationType,
    HandScore,
    distinct_hands,
    hand_key,
    score_hand,
    search_declaration,
    table,
)
from quart_bezique.game.settlement import Settlement, settle, settle_round
from quart_bezique.game.showdown import compare_hands

from tests.game.reference_rulesets import (
    ALL_SWITCHES,
    Switches,
    combination_points,
    loose_points,
    reference_scores,
)
from tests.game.test_odds import _left_in_shoe, _physical_shoe, counts, random_deal
from tests.game.test_settlement import SEATS, WORKED_EXAMPLE, finished_rounds, hands_for

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
ALL_HANDS = list(distinct_hands())
TRUMP_CODES = [t.value if t else None for t in TRUMP_SETTINGS]


def _rules_of(switches: Switches) -> ScoringRules:
    return ScoringRules(switches.three_aces, switches.coronka, switches.trump_doubles)


def _reading_id(switches: Switches) -> str:
    return Ruleset(switches.three_aces, switches.coronka, switches.trump_doubles).id


# --- §13.1 to §13.3: the worked examples, verbatim --------------------------------------------

Row = tuple[str, str | None, object, int, list[tuple[str, list[str], int]], list[tuple[str, int]]]

THREE_ACES: list[Row] = [
    # (hand, trump, value, score, combinations (type, cards, points), loose (card, points))
    ("A♠ A♣ A♥ K♥", None, 6, 7, [("three_of_a_kind", ["AS", "AC", "AH"], 6)], [("KH", 1)]),
    ("A♠ A♣ A♥ K♥", None, 0, 1, [], [("AS", 0), ("AC", 0), ("AH", 0), ("KH", 1)]),
    ("A♥ A♥ A♥ Q♠", "H", 6, 13, [("three_of_a_kind", ["AH", "AH", "AH"], 12)], [("QS", 1)]),
    ("A♥ A♥ A♥ Q♠", "H", 0, 1, [], [("QS", 1), ("AH", 0), ("AH", 0), ("AH", 0)]),
]

CORONKA: list[Row] = [
    (
        "Q♠ K♠ A♠ J♣",
        None,
        "consecutive",
        10,
        [("bezique", ["QS", "JC"], 4), ("coronka", ["AS", "KS", "QS"], 6)],
        [],
    ),
    ("Q♠ K♠ A♠ J♣", None, "from_king", 5, [("marriage", ["KS", "QS"], 4)], [("AS", 0), ("JC", 1)]),
    ("9♠ 10♠ J♠ Q♠", None, "consecutive", 9, [("coronka", ["QS", "JS", "10S", "9S"], 9)], []),
    ("9♠ 10♠ J♠ Q♠", None, "from_king", 3, [], [("QS", 1), ("JS", 1), ("10S", 1), ("9S", 0)]),
    ("J♠ Q♠ K♠ A♠", None, "consecutive", 9, [("coronka", ["AS", "KS", "QS", "JS"], 9)], []),
    ("J♠ Q♠ K♠ A♠", None, "from_king", 6, [("coronka", ["KS", "QS", "JS"], 6)], [("AS", 0)]),
    *(
        (
            "K♠ Q♠ J♠ J♣",
            None,
            value,
            10,
            [("bezique", ["QS", "JC"], 4), ("coronka", ["KS", "QS", "JS"], 6)],
            [],
        )
        for value in ("consecutive", "from_king")
    ),
    *(
        ("K♠ Q♠ J♠ 10♠", None, value, 9, [("coronka", ["KS", "QS", "JS", "10S"], 9)], [])
        for value in ("consecutive", "from_king")
    ),
]

_BEZIQUE, _CORONKA = ("bezique", ["QS", "JC"]), ("coronka", ["KS", "QS", "JS"])
_KINGS = ("three_of_a_kind", ["KS", "KS", "KC"])
_FOUR_SUITS = ("double_bezique", ["QS", "JC", "QH", "JD"])
_BLACK = ("double_bezique", ["QS", "JS", "QC", "JC"])
_QUEENS = ("four_of_a_kind", ["QS", "QH", "QH", "QH"])
TRUMP_DOUBLES: list[Row] = [
    ("K♠ Q♠ J♠ J♣", "C", "pure_trump", 10, [(*_BEZIQUE, 4), (*_CORONKA, 6)], []),
    ("K♠ Q♠ J♠ J♣", "C", "any_trump_card", 14, [(*_BEZIQUE, 8), (*_CORONKA, 6)], []),
    ("K♠ Q♠ J♠ J♣", "S", "pure_trump", 16, [(*_BEZIQUE, 4), (*_CORONKA, 12)], []),
    ("K♠ Q♠ J♠ J♣", "S", "any_trump_card", 20, [(*_BEZIQUE, 8), (*_CORONKA, 12)], []),
    ("K♠ K♠ K♣ 9♦", "S", "pure_trump", 6, [(*_KINGS, 6)], [("9D", 0)]),
    ("K♠ K♠ K♣ 9♦", "S", "any_trump_card", 12, [(*_KINGS, 12)], [("9D", 0)]),
    ("Q♠ J♣ Q♥ J♦", "S", "pure_trump", 9, [(*_FOUR_SUITS, 9)], []),
    ("Q♠ J♣ Q♥ J♦", "S", "any_trump_card", 18, [(*_FOUR_SUITS, 18)], []),
    ("Q♠ J♠ Q♣ J♣", "H", "any_trump_card", 9, [(*_BLACK, 9)], []),
    ("Q♠ J♠ Q♣ J♣", "S", "any_trump_card", 18, [(*_BLACK, 18)], []),
    ("Q♥ Q♥ Q♥ Q♠", "H", "pure_trump", 9, [(*_QUEENS, 9)], []),
    ("Q♥ Q♥ Q♥ Q♠", "H", "any_trump_card", 18, [(*_QUEENS, 18)], []),
    *(
        ("K♥ Q♥ K♦ 10♦", "D", value, 8, [("marriage", ["KH", "QH"], 4)], [("KD", 2), ("10D", 2)])
        for value in ("pure_trump", "any_trump_card")
    ),
]  # fmt: skip


def _check_row(switch: str, row: Row) -> HandScore:
    hand, trump, value, score, combinations, loose = row
    result = score_hand(hand.split(), trump, {switch: value})
    assert result.ruleset.switches()[switch] == value
    assert result.score == score
    assert [(c.type.value, [x.code for x in c.cards], c.points) for c in result.combinations] == (
        combinations
    )
    assert [(lc.card.code, lc.points) for lc in result.loose] == loose
    total = sum(c.points for c in result.combinations) + sum(lc.points for lc in result.loose)
    assert total == result.score
    return result


def _row_id(row: Row) -> str:
    return f"{row[0]}|{row[1] or '-'}|{row[2]}"


@pytest.mark.parametrize("row", THREE_ACES, ids=_row_id)
def test_rules_13_1_three_aces_worked_examples(row: Row) -> None:
    _check_row("three_aces", row)


@pytest.mark.parametrize("row", CORONKA, ids=_row_id)
def test_rules_13_2_coronka_worked_examples(row: Row) -> None:
    _check_row("coronka", row)


@pytest.mark.parametrize("row", TRUMP_DOUBLES, ids=_row_id)
def test_rules_13_3_trump_doubles_worked_examples(row: Row) -> None:
    _check_row("trump_doubles", row)


def test_rules_13_the_worked_examples_cover_every_value_of_every_scoring_switch() -> None:
    for switch, rows in (
        ("three_aces", THREE_ACES),
        ("coronka", CORONKA),
        ("trump_doubles", TRUMP_DOUBLES),
    ):
        (found,) = [s for s in SWITCHES if s.name == switch]
        assert {row[2] for row in rows} == set(found.values)


# --- §13.1 to §13.3: what each value says, over the whole hand space --------------------------


def _has_three_aces(breakdown: Breakdown) -> bool:
    return any(
        c.type is CombinationType.THREE_OF_A_KIND and c.cards[0].rank is Rank.ACE
        for c in breakdown.combinations
    )


@pytest.mark.parametrize("value", [6, 0])
def test_rules_13_1_three_aces_are_reported_only_when_they_score(value: int) -> None:
    """Under 0 no hand and no trump reports three aces: the declaration without them is reported.
    Under 6 every hand holding exactly three aces reports them (a fourth card alone never beats
    6). Checked on the definition, which the tables equal (§13.7's test)."""
    aces = [h for h in ALL_HANDS if sum(c.rank is Rank.ACE for c in h) == 3]
    assert len(aces) == 20 * 20  # 20 multisets of three aces, times a fourth card not an ace
    readings = [_rules_of(s) for s in ALL_SWITCHES if s.three_aces == value]
    found = Counter(
        _has_three_aces(search_declaration(hand, trump, rules))
        for rules in readings
        for trump in TRUMP_SETTINGS
        for hand in aces
    )
    assert found == {value == 6: len(readings) * len(TRUMP_SETTINGS) * len(aces)}


def test_rules_13_1_three_nines_and_four_aces_do_not_depend_on_the_switch() -> None:
    for value in (6, 0):
        assert score_hand(["9S", "9C", "9H", "AD"], None, {"three_aces": value}).score == 6
        assert score_hand(["AS", "AC", "AH", "AD"], None, {"three_aces": value}).score == 0
        assert score_hand(["AS"] * 4, "S", {"three_aces": value}).score == 0


_SUITED_THREE = [h for h in ALL_HANDS if max(Counter(c.suit for c in h).values()) >= 3]
"""The hands that can hold a coronka (three cards of one suit)."""


@pytest.mark.parametrize("coronka", ["consecutive", "from_king"])
def test_rules_13_2_the_coronkas_each_value_reports(coronka: str) -> None:
    """from_king reports only the source's two coronkas; consecutive reports all seven runs."""
    shapes: Counter[str] = Counter()
    for trump_doubles in ("pure_trump", "any_trump_card"):
        rules = ScoringRules(6, coronka, trump_doubles)
        for trump in TRUMP_SETTINGS:
            for hand in _SUITED_THREE:
                for combo in search_declaration(hand, trump, rules).combinations:
                    if combo.type is CombinationType.CORONKA:
                        shapes["-".join(c.rank.value for c in combo.cards)] += 1
    if coronka == "from_king":
        assert set(shapes) == {"K-Q-J", "K-Q-J-10"}
    else:
        assert set(shapes) == {
            "J-10-9",
            "Q-J-10",
            "K-Q-J",
            "A-K-Q",
            "Q-J-10-9",
            "K-Q-J-10",
            "A-K-Q-J",
        }


def _double_bezique_hands() -> list[tuple[Card, ...]]:
    plain = table(None).breakdowns
    return [
        h
        for h in ALL_HANDS
        if [c.type for c in plain[hand_key(h)].combinations] == [CombinationType.DOUBLE_BEZIQUE]
    ]


def test_rules_13_3_a_double_bezique_doubles_when_it_holds_a_trump() -> None:
    """It holds the two suits of one colour or all four; under any_trump_card it scores 18
    exactly under the suits it holds, and 9 under the others (always 9 under pure_trump)."""
    hands = _double_bezique_hands()
    suits_held = Counter(frozenset(c.suit for c in h) for h in hands)
    black, red = frozenset({Suit.SPADES, Suit.CLUBS}), frozenset({Suit.HEARTS, Suit.DIAMONDS})
    assert set(suits_held) == {black, red, black | red}
    any_card = ScoringRules(6, "consecutive", "any_trump_card")
    for hand in hands:
        held = {c.suit for c in hand}
        for trump in Suit:
            doubled = search_declaration(hand, trump, any_card)
            assert [(c.type, c.points) for c in doubled.combinations] == [
                (CombinationType.DOUBLE_BEZIQUE, 18 if trump in held else 9)
            ], (hand, trump)
            assert table(trump).scores[hand_key(hand)] == 9


def test_rules_13_3_any_trump_card_doubles_whatever_holds_a_trump() -> None:
    any_card = {"trump_doubles": "any_trump_card"}
    # A bezique holds the two suits of its colour.
    assert score_hand(["QS", "JC", "9H", "9D"], "C", any_card).score == 8
    assert score_hand(["QS", "JC", "9H", "9D"], "S", any_card).score == 8
    assert score_hand(["QS", "JC", "9H", "9D"], "H", any_card).score == 4
    # Four of a kind of mixed suits with a trump among them; four aces stay 0.
    for rank, points in (("K", 16), ("9", 18), ("10", 18), ("A", 0)):
        hand = [rank + suit for suit in "SCHD"]
        assert score_hand(hand, "D", any_card).score == points
        assert score_hand(hand, "D").score == points // 2
    # A marriage of one suit is doubled only by its own suit under both readings.
    assert score_hand(["KH", "QH", "9S", "9C"], "H", any_card).score == 8
    assert score_hand(["KH", "QH", "9S", "9C"], "D", any_card).score == 4


# --- exhaustive: every reading, every hand, every trump ---------------------------------------

ALL_KEYS = [hand_key(h) for h in ALL_HANDS]


@functools.cache
def _scores(switches: Switches) -> tuple[bytes, ...]:
    """A reading's served scores, one byte per hand in ``ALL_HANDS`` order, for each trump
    setting: kept so that the checks below ask the service to build each reading once (a
    process keeps only three), and small enough to keep all eight."""
    rules = _rules_of(switches)
    return tuple(bytes(map(table(t, rules).scores.__getitem__, ALL_KEYS)) for t in TRUMP_SETTINGS)


@pytest.mark.parametrize("switches", ALL_SWITCHES, ids=_reading_id)
def test_rules_13_7_built_tables_equal_the_declaration_search(switches: Switches) -> None:
    """Every hand under every trump: the served table's score and breakdown are the definition's,
    and every reported combination and loose card has the points §13 gives it (the reference's
    point rules, which share no code with the service)."""
    rules = _rules_of(switches)
    scores = _scores(switches)
    for column, trump, code in zip(scores, TRUMP_SETTINGS, TRUMP_CODES, strict=True):
        served = table(trump, rules)
        for hand, key, score in zip(ALL_HANDS, ALL_KEYS, column, strict=True):
            found = served.breakdowns[key]
            assert found == search_declaration(hand, trump, rules), (hand, trump)
            assert served.scores[key] == found.score == score
            for combo in found.combinations:
                kind = combo.type.value  # the reference names the kinds as §4 and the wire do
                assert combo.points == combination_points(kind, combo.cards, code, switches)
            for lc in found.loose:
                assert lc.points == loose_points([lc.card], code)


@pytest.mark.parametrize("switches", ALL_SWITCHES, ids=_reading_id)
def test_rules_13_3_highest_scores(switches: Switches) -> None:
    """10 without trumps under every reading; with a trump 18, or 20 under any_trump_card
    (K♠ Q♠ J♠ J♣ with spades: coronka in trumps 12 + bezique 8); a trump never lowers a score."""
    plain, *trumps = _scores(switches)
    assert max(plain) == 10 and min(plain) == 0
    highest = 20 if switches.trump_doubles == "any_trump_card" else 18
    assert max(max(column) for column in trumps) == highest
    for doubled in trumps:
        assert all(d >= p for d, p in zip(doubled, plain, strict=True))


@pytest.mark.parametrize("switches", ALL_SWITCHES, ids=_reading_id)
def test_rules_13_built_tables_agree_with_the_reference_on_a_sample(switches: Switches) -> None:
    """Every 23rd hand (all trumps): the quick form of the exhaustive check below."""
    _check_against_reference(switches, range(0, len(ALL_HANDS), 23))


@pytest.mark.slow
@pytest.mark.parametrize("switches", ALL_SWITCHES, ids=_reading_id)
def test_rules_13_built_tables_agree_with_the_reference_for_every_hand(
    switches: Switches,
) -> None:
    _check_against_reference(switches, range(len(ALL_HANDS)))


def _check_against_reference(switches: Switches, rows: Iterable[int]) -> None:
    columns = _scores(switches)
    for row in rows:
        hand = ALL_HANDS[row]
        served = [column[row] for column in columns]
        assert served == reference_scores(hand, TRUMP_CODES, switches), hand


def _switched(name: str, value: int | str) -> Switches:
    values: dict[str, int | str] = dataclasses.asdict(Switches())
    values[name] = value
    three_aces, coronka, trump_doubles = values.values()
    assert isinstance(three_aces, int) and isinstance(coronka, str)
    assert isinstance(trump_doubles, str)
    return Switches(three_aces, coronka, trump_doubles)


def test_rules_13_the_reference_is_not_blind_to_the_switches() -> None:
    """Each scoring switch changes some reference score: the agreement above is not vacuous."""
    samples = {
        "three_aces": (["AS", "AC", "AH", "KH"], None),
        "coronka": (["QS", "KS", "AS", "JC"], None),
        "trump_doubles": (["KS", "QS", "JS", "JC"], "C"),
    }
    for name, (codes, trump) in samples.items():
        hand = [parse_card(c) for c in codes]
        first, second = (
            reference_scores(hand, [trump], _switched(name, value))[0]
            for value in next(s for s in SWITCHES if s.name == name).values
        )
        assert first != second, name


def test_rules_13_6_classic_answers_are_unchanged_by_naming_classic() -> None:
    """A request without a ruleset gets exactly the classic/1 answer, for every hand and trump."""
    for trump in TRUMP_SETTINGS:
        assert table(trump, CLASSIC.scoring) is table(trump)
        for hand in ALL_HANDS:
            unnamed = score_hand(hand, trump)
            assert unnamed == score_hand(hand, trump, "classic/1")
            assert unnamed.ruleset is CLASSIC


def test_rules_13_7_a_process_keeps_the_most_recent_readings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """White-box, with a stand-in for the build: the readings used last are served again
    without a rebuild; the one used before them was dropped and is built anew."""
    assert BUILT_TABLES_KEPT == 2
    builds: list[ScoringRules] = []

    def build(rules: ScoringRules) -> dict[Suit | None, object]:
        builds.append(rules)
        return dict.fromkeys(TRUMP_SETTINGS, object())

    shipped: dict[Suit | None, object] = {trump: table(trump) for trump in TRUMP_SETTINGS}
    monkeypatch.setattr(scoring, "_TABLES", ReadingCache(CLASSIC.scoring, lambda: shipped, build))
    readings = [_rules_of(s) for s in ALL_SWITCHES[1:4]]
    first = [table(None, rules) for rules in readings]
    assert builds == readings
    for rules, served in zip(readings[1:], first[1:], strict=True):
        assert table(None, rules) is served
    assert builds == readings
    again = table(None, readings[0])
    assert again is not first[0] and builds == [*readings, readings[0]]
    assert table(None) is table(None, CLASSIC.scoring) is shipped[None]  # never dropped


# --- §13.4: a tie carried over -----------------------------------------------------------------

TEN = ["KS", "QS", "JS", "JC"]
SIX = ["KH", "QH", "KD", "10D"]
ALSO_SIX = ["QS", "JC", "KD", "JD"]


def _paid(settlement: Settlement) -> dict[str, tuple[int, int]]:
    return {p.player: (p.payout, p.net) for p in settlement.players}


Spec = Ruleset | str | Mapping[str, object] | None


def _worked(hands: Mapping[str, Sequence[str]], ruleset: Spec) -> Settlement:
    return settle_round(SEATS, "dan", 10, WORKED_EXAMPLE, hands, None, ruleset=ruleset)


def test_rules_13_4_split_worked_example() -> None:
    result = _worked({"bob": SIX, "dan": ALSO_SIX}, {"tie": "split"})
    assert result.pot == 120 and result.showdown is not None and result.showdown.tie
    assert result.winners == ("bob", "dan") and result.carried == 0
    assert _paid(result) == {"ann": (0, -30), "bob": (60, 10), "cid": (0, -10), "dan": (60, 30)}
    assert result.ruleset == CLASSIC


@pytest.mark.parametrize("ruleset", [{"tie": "carry"}, "classic/1:tie=carry", "literal/1"])
def test_rules_13_4_carry_worked_example(ruleset: Spec) -> None:
    result = _worked({"bob": SIX, "dan": ALSO_SIX}, ruleset)
    assert result.showdown is not None and result.showdown.tie
    assert [h.score for h in result.showdown.hands] == [6, 6]
    assert result.winners == () and result.carried == result.pot == 120
    assert _paid(result) == {
        "ann": (0, -30),
        "bob": (0, -50),
        "cid": (0, -10),
        "dan": (0, -30),
    }
    assert sum(p.net for p in result.players) == -result.pot
    assert result.ruleset.tie == "carry" and result.showdown.ruleset is result.ruleset
    assert result.betting.ruleset is result.ruleset


@pytest.mark.parametrize("ruleset", [{"tie": "carry"}, "literal/1"])
def test_rules_13_4_carry_with_a_winner_is_settled_as_split(ruleset: Spec) -> None:
    carried = _worked({"bob": TEN, "dan": SIX}, ruleset)
    split = _worked({"bob": TEN, "dan": SIX}, None)
    assert carried.winners == ("bob",) and carried.carried == 0
    assert _paid(carried) == {"ann": (0, -30), "bob": (120, 70), "cid": (0, -10), "dan": (0, -30)}
    assert _paid(carried) == _paid(split) and carried.winners == split.winners


def test_rules_13_4_carry_leaves_an_uncontested_round_alone() -> None:
    actions: list[Mapping[str, object]] = [
        {"player": "ann", "type": "stake", "amount": 10},
        {"player": "bob", "type": "fold"},
        {"player": "cid", "type": "fold"},
    ]
    for ruleset in (None, "literal/1", {"tie": "carry"}):
        result = settle_round(["ann", "bob", "cid"], "cid", 5, actions, None, ruleset=ruleset)
        assert result.winners == ("ann",) and result.carried == 0 and result.showdown is None
        assert _paid(result) == {"ann": (25, 10), "bob": (0, -5), "cid": (0, -5)}


def test_rules_13_4_carry_takes_the_odd_chip_too() -> None:
    actions: list[Mapping[str, object]] = [
        {"player": "ann", "type": "stake", "amount": 5},
        {"player": "bob", "type": "fold"},
        {"player": "dan", "type": "open", "amount": 5},
    ]
    hands = {"ann": SIX, "dan": ALSO_SIX}
    seats = ["ann", "bob", "dan"]
    split = settle_round(seats, "dan", 5, actions, hands)
    assert _paid(split) == {"ann": (13, 3), "bob": (0, -5), "dan": (12, 2)}
    carried = settle_round(seats, "dan", 5, actions, hands, ruleset={"tie": "carry"})
    assert carried.carried == 25 and carried.winners == ()
    assert _paid(carried) == {"ann": (0, -10), "bob": (0, -5), "dan": (0, -10)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_rules_13_4_carry_changes_only_showdown_ties(data: st.DataObject) -> None:
    """Any finished round: tie=carry settles exactly as tie=split except on a showdown tie,
    where nobody is paid and the whole pot is carried."""
    setup, actions = data.draw(finished_rounds())
    betting = validate_betting(setup.players, setup.dealer, setup.ante, actions, 1)
    pair = betting.state.showdown
    hands = None if pair is None else data.draw(hands_for(pair))
    trump = data.draw(st.sampled_from([None, *Suit]))
    # Two scoring readings, whose tables a process keeps at once: the tie rule reads none.
    base = data.draw(st.sampled_from([CLASSIC, dataclasses.replace(LITERAL, tie="split")]))
    split = settle(betting, hands, trump, base)
    carry = settle(betting, hands, trump, dataclasses.replace(base, tie="carry"))
    assert carry.ruleset.tie == "carry" and split.ruleset == base
    assert sum(p.payout for p in carry.players) + carry.carried == carry.pot
    if split.showdown is not None and split.showdown.tie:
        assert carry.winners == () and carry.carried == carry.pot == betting.state.pot
        assert all(p.payout == 0 for p in carry.players)
        contributed = {seat.player: seat.contributed for seat in betting.state.players}
        assert _paid(carry) == {p: (0, -c) for p, c in contributed.items()}
        assert sum(p.net for p in carry.players) == -carry.pot
    else:
        assert carry.carried == split.carried == 0
        assert (carry.winners, carry.players) == (split.winners, split.players)


def test_rules_13_verdicts_name_the_ruleset_they_followed() -> None:
    for spec, expected in (
        (None, CLASSIC),
        ("literal/1", LITERAL),
        ({"coronka": "from_king"}, Ruleset(coronka="from_king")),
    ):
        assert score_hand(TEN, "S", spec).ruleset == expected
        assert compare_hands(TEN, SIX, None, spec).ruleset == expected
        assert validate_betting(SEATS, "dan", 10, WORKED_EXAMPLE, ruleset=spec).ruleset == expected
        assert _worked({"bob": TEN, "dan": SIX}, spec).ruleset == expected
        assert hand_odds(TEN, None, ruleset=spec).ruleset == expected


def test_rules_13_betting_has_no_switch() -> None:
    classic = validate_betting(SEATS, "dan", 10, WORKED_EXAMPLE)
    for ruleset in PRESETS.values():
        judged = validate_betting(SEATS, "dan", 10, WORKED_EXAMPLE, ruleset=ruleset)
        assert dataclasses.replace(judged, ruleset=CLASSIC) == classic
    assert [s.name for s in SWITCHES if not s.scoring] == ["tie"]


# --- odds under another reading (§12 with §13's scores) ----------------------------------------


def _literal_score(trump: Suit | None) -> Mapping[int, int]:
    return table(trump, LITERAL.scoring).scores


def _weighted_count(
    hand: Sequence[str], trump: str | None, seen: Sequence[str], ruleset: Ruleset
) -> tuple[int, int, int]:
    """One opponent: every distinct multiset weighed by prod_c C(left_c, m_c), scored under
    ``ruleset``'s tables."""
    scores = table(parse_suit(trump), ruleset.scoring).scores
    left = _left_in_shoe(hand, seen)
    mine = scores[hand_key([parse_card(code) for code in hand])]
    tally = [0, 0, 0]
    for multiset in ALL_HANDS:
        weight = math.prod(math.comb(left[c], n) for c, n in Counter(multiset).items())
        theirs = scores[hand_key(multiset)]
        tally[(theirs > mine) - (theirs < mine) + 1] += weight
    wins, ties, losses = tally
    return wins, ties, losses


@pytest.mark.parametrize(
    ("hand", "trump", "seen"),
    [
        (["KS", "QS", "JS", "JC"], "S", []),
        (["KS", "QS", "JS", "JC"], "C", ["JC", "JC"]),
        (["AS", "AC", "AH", "KH"], None, []),
        (["QS", "KS", "AS", "JC"], None, ["KS", "QH"]),
        (["QS", "JC", "QH", "JD"], "H", []),
        (["KH", "QH", "KD", "10D"], "D", [c.code for c in CARDS][:30]),
    ],
)
def test_rules_13_odds_one_opponent_match_weighted_multisets_under_literal(
    hand: list[str], trump: str | None, seen: list[str]
) -> None:
    odds = hand_odds(hand, trump, seen, ruleset=LITERAL)
    assert odds.ruleset is LITERAL
    assert odds.score == score_hand(hand, trump, LITERAL).score
    assert counts(odds) == _weighted_count(hand, trump, seen, LITERAL)


def test_rules_13_odds_differ_between_readings() -> None:
    """The literal counts above are not the classic ones in disguise."""
    for hand, trump in ((["KS", "QS", "JS", "JC"], "S"), (["AS", "AC", "AH", "KH"], None)):
        literal = hand_odds(hand, trump, ruleset=LITERAL)
        classic = hand_odds(hand, trump)
        assert literal.score != classic.score and counts(literal) != counts(classic)
        assert counts(classic) == _weighted_count(hand, trump, [], CLASSIC)


def test_rules_13_odds_percentile_under_literal() -> None:
    for trump in (None, Suit.SPADES):
        scores = _literal_score(trump)
        by_score: Counter[int] = Counter()
        for multiset in ALL_HANDS:
            weight = math.prod(math.comb(6, n) for n in Counter(multiset).values())
            by_score[scores[hand_key(multiset)]] += weight
        assert sum(by_score.values()) == FULL_SHOE_HANDS
        for hand in (["AS", "AC", "AH", "KH"], ["KS", "QS", "JS", "JC"], ["QH"] * 4):
            mine = scores[hand_key([parse_card(c) for c in hand])]
            lower = sum(n for s, n in by_score.items() if s < mine)
            expected = 100 * (lower + by_score[mine] / 2) / FULL_SHOE_HANDS
            odds = hand_odds(hand, trump, ruleset=LITERAL)
            assert odds.percentile == pytest.approx(expected, rel=1e-12)


def _literal_brute_force(
    hand: Sequence[str], trump: str | None, seen: Sequence[str], opponents: int
) -> tuple[int, int, int]:
    """Every ordered deal of physical cards to the opponents, scored under literal/1."""
    scores = _literal_score(parse_suit(trump))
    shoe = _physical_shoe(hand, seen)
    mine = scores[hand_key([parse_card(code) for code in hand])]
    tally: Counter[int] = Counter()
    for first in itertools.combinations(range(len(shoe)), 4):
        best = scores[hand_key([shoe[i] for i in first])]
        if opponents == 1:
            tally[(best > mine) - (best < mine)] += 1
            continue
        rest = [i for i in range(len(shoe)) if i not in first]
        for second in itertools.combinations(rest, 4):
            both = max(best, scores[hand_key([shoe[i] for i in second])])
            tally[(both > mine) - (both < mine)] += 1
    return tally[-1], tally[0], tally[1]


@pytest.mark.parametrize("seed", range(3))
def test_rules_13_odds_match_physical_brute_force_under_literal(seed: int) -> None:
    """Small shoes: one opponent from 30 cards, two opponents from 14."""
    rng = random.Random(500 + seed)
    hand, seen = random_deal(rng, 140 - 30)
    trump = rng.choice(["S", "H", None])
    one = hand_odds(hand, trump, seen, 1, ruleset=LITERAL)
    assert counts(one) == _literal_brute_force(hand, trump, seen, 1)
    hand, seen = random_deal(rng, 140 - 14)
    two = hand_odds(hand, trump, seen, 2, ruleset=LITERAL)
    assert counts(two) == _literal_brute_force(hand, trump, seen, 2)
    assert two.total == math.comb(14, 4) * math.comb(10, 4)


# --- §13.5 and §13.6: presets, ids, digests, the forms a request may use -----------------------

EVERY = [
    Ruleset(**dict(zip([s.name for s in SWITCHES], values, strict=True)))  # type: ignore[arg-type]
    for values in itertools.product(*(s.values for s in SWITCHES))
]


def test_rules_13_5_presets() -> None:
    assert PRESETS == {"classic/1": CLASSIC, "literal/1": LITERAL}
    assert CLASSIC.switches() == {
        "three_aces": 6,
        "coronka": "consecutive",
        "trump_doubles": "pure_trump",
        "tie": "split",
    }
    assert LITERAL.switches() == {
        "three_aces": 0,
        "coronka": "from_king",
        "trump_doubles": "any_trump_card",
        "tie": "carry",
    }
    assert all(s.values[0] == CLASSIC.switches()[s.name] for s in SWITCHES)
    assert all(LITERAL.switches()[s.name] == s.values[1] for s in SWITCHES)
    assert (CLASSIC.preset, LITERAL.preset, Ruleset(tie="carry").preset) == (
        "classic/1",
        "literal/1",
        None,
    )


def test_rules_13_5_the_page_states_the_presets_as_the_code_does() -> None:
    section = RULES[RULES.index('<a id="s13-5">') : RULES.index('<a id="s13-6">')]
    for name, ruleset in PRESETS.items():
        (row,) = re.findall(rf"^\| `{re.escape(name)}`[^|]*\|(.*)\|$", section, re.M)
        cells = [cell.strip().strip("`") for cell in row.split("|")]
        assert cells == [str(v) for v in ruleset.switches().values()], name


def test_rules_13_the_page_has_an_anchor_for_every_switch() -> None:
    for switch in SWITCHES:
        assert f'<a id="{switch.anchor}"></a>' in RULES
        heading = RULES[RULES.index(f'<a id="{switch.anchor}">') :].split("\n", 1)[0]
        assert f"(`{switch.name}`)" in heading


def test_rules_13_6_digests_are_sha256_of_the_sorted_switch_values() -> None:
    assert CLASSIC.digest == "320d6499549929986ec6c9f0f71fb1c62c62dc53be1025d263366f6e8f9b5d4d"
    assert LITERAL.digest == "d77dbb9649faed0564e878067ae0186d83a1e3c565171fec86d7454e6ca3f95b"
    section = RULES[RULES.index('<a id="s13-6">') : RULES.index('<a id="s13-7">')]
    for ruleset in EVERY:
        canonical = json.dumps(ruleset.switches(), sort_keys=True, separators=(",", ":"))
        assert ruleset.digest == hashlib.sha256(canonical.encode("ascii")).hexdigest()
    for ruleset in (CLASSIC, LITERAL):
        canonical = json.dumps(ruleset.switches(), sort_keys=True, separators=(",", ":"))
        assert f"`{canonical}`" in section and f"`{ruleset.digest}`" in section
    assert len({r.digest for r in EVERY}) == 16


def test_rules_13_6_every_ruleset_has_one_id_that_names_it_back() -> None:
    assert len(EVERY) == 16 and len({r.id for r in EVERY}) == 16
    for ruleset in EVERY:
        assert resolve_ruleset(ruleset.id) == ruleset
        assert resolve_ruleset(ruleset.switches()) == ruleset
        assert resolve_ruleset({"base": ruleset.id}) == ruleset
        if ruleset.preset is None:
            base, _, changed = ruleset.id.partition(":")
            assert base == "classic/1"
            pairs = [item.split("=") for item in changed.split(",")]
            assert [name for name, _ in pairs] == sorted(name for name, _ in pairs)
            differing = {k: v for k, v in ruleset.switches().items() if CLASSIC.switches()[k] != v}
            assert {name: value for name, value in pairs} == {
                k: str(v) for k, v in differing.items()
            }
        else:
            assert ruleset.id == ruleset.preset
    assert Ruleset(coronka="from_king", tie="carry").id == "classic/1:coronka=from_king,tie=carry"


def test_rules_13_6_the_id_does_not_depend_on_how_the_switches_were_given() -> None:
    values = {"tie": "carry", "three_aces": 0, "coronka": "from_king"}
    named = [
        resolve_ruleset({name: values[name] for name in order})
        for order in itertools.permutations(values)
    ]
    assert {r.id for r in named} == {"classic/1:coronka=from_king,three_aces=0,tie=carry"}
    assert len({r.digest for r in named}) == 1
    with_base = resolve_ruleset({"base": "literal/1", "trump_doubles": "pure_trump"})
    assert with_base == resolve_ruleset({"trump_doubles": "pure_trump", "base": "literal/1"})
    assert with_base.id == "classic/1:coronka=from_king,three_aces=0,tie=carry"
    assert with_base.digest == named[0].digest
    # literal/1's four values, from classic/1 in any order, are literal/1 itself.
    literal = resolve_ruleset(dict(reversed(list(LITERAL.switches().items()))))
    assert literal == LITERAL and literal.id == "literal/1" and literal.digest == LITERAL.digest


CARRY_FROM_KING = Ruleset(coronka="from_king", tie="carry")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (None, CLASSIC),
        (CLASSIC, CLASSIC),
        ("classic/1", CLASSIC),
        ("literal/1", LITERAL),
        ({}, CLASSIC),
        ({"base": "literal/1"}, LITERAL),
        ({"base": "classic/1", "tie": "carry"}, Ruleset(tie="carry")),
        ({"tie": "carry"}, Ruleset(tie="carry")),
        ({"base": "literal/1", "tie": "split"}, dataclasses.replace(LITERAL, tie="split")),
        ({"base": "classic/1:tie=carry", "coronka": "from_king"}, CARRY_FROM_KING),
        ({"three_aces": 0}, Ruleset(three_aces=0)),
        ({"three_aces": 6, "tie": "split"}, CLASSIC),
    ],
    ids=repr,
)  # fmt: skip
def test_rules_13_6_request_forms(spec: object, expected: Ruleset) -> None:
    assert resolve_ruleset(spec) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "code", "path"),
    [
        (5, "INVALID_RULESET", ("ruleset",)),
        (True, "INVALID_RULESET", ("ruleset",)),
        (["classic/1"], "INVALID_RULESET", ("ruleset",)),
        ({1: "carry"}, "INVALID_RULESET", ("ruleset",)),
        ({"base": 1}, "INVALID_RULESET", ("ruleset", "base")),
        ({"base": None}, "INVALID_RULESET", ("ruleset", "base")),
        ("classic/2", "UNKNOWN_RULESET", ("ruleset",)),
        ("Classic/1", "UNKNOWN_RULESET", ("ruleset",)),
        ("", "UNKNOWN_RULESET", ("ruleset",)),
        ("classic/1:tie", "UNKNOWN_RULESET", ("ruleset",)),
        ("classic/1:tie=draw", "UNKNOWN_RULESET", ("ruleset",)),
        ("classic/1:tie=carry,coronka=from_king", "UNKNOWN_RULESET", ("ruleset",)),
        ("classic/1:three_aces=6", "UNKNOWN_RULESET", ("ruleset",)),
        ({"base": "classic/2", "tie": "carry"}, "UNKNOWN_RULESET", ("ruleset", "base")),
        ({"ties": "carry"}, "UNKNOWN_SWITCH", ("ruleset", "ties")),
        ({"base": "literal/1", "colour": 1}, "UNKNOWN_SWITCH", ("ruleset", "colour")),
        ({"tie": "draw"}, "INVALID_SWITCH_VALUE", ("ruleset", "tie")),
        ({"tie": None}, "INVALID_SWITCH_VALUE", ("ruleset", "tie")),
        ({"three_aces": 3}, "INVALID_SWITCH_VALUE", ("ruleset", "three_aces")),
        ({"three_aces": "6"}, "INVALID_SWITCH_VALUE", ("ruleset", "three_aces")),
        ({"three_aces": True}, "INVALID_SWITCH_VALUE", ("ruleset", "three_aces")),
        ({"three_aces": False}, "INVALID_SWITCH_VALUE", ("ruleset", "three_aces")),
        ({"coronka": "From_King"}, "INVALID_SWITCH_VALUE", ("ruleset", "coronka")),
        ({"trump_doubles": [6]}, "INVALID_SWITCH_VALUE", ("ruleset", "trump_doubles")),
    ],
    ids=repr,
)  # fmt: skip
def test_rules_13_6_refusals(spec: object, code: str, path: tuple[object, ...]) -> None:
    with pytest.raises(RulesetError) as caught:
        resolve_ruleset(spec)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.path) == (code, path)


def test_rules_13_6_refusals_point_under_the_callers_path() -> None:
    with pytest.raises(RulesetError) as caught:
        resolve_ruleset({"tie": "draw"}, ("rounds", 2, "ruleset"))
    assert caught.value.path == ("rounds", 2, "ruleset", "tie")
    assert caught.value.pointer() == "/rounds/2/ruleset/tie"


def test_rules_13_6_true_is_not_six() -> None:
    """Python's True == 1 and hashes like it; a boolean is never a switch's value."""
    with pytest.raises(RulesetError) as caught:
        Ruleset(three_aces=True)
    assert caught.value.code == "INVALID_SWITCH_VALUE"
    with pytest.raises(RulesetError):
        score_hand(TEN, None, {"three_aces": False})


def test_rules_13_6_a_number_equal_to_a_value_is_that_value() -> None:
    """JSON may spell 6 as 6.0: the same ruleset, id and digest (the digest holds 6, not 6.0)."""
    for number, expected in ((6.0, CLASSIC), (0.0, Ruleset(three_aces=0))):
        found = resolve_ruleset({"three_aces": number})
        assert found == expected and found.id == expected.id
        assert found.digest == expected.digest
        assert type(found.three_aces) is int


def test_rules_13_6_every_verdict_refuses_a_bad_ruleset_at_its_path() -> None:
    calls: list[Callable[[Spec], object]] = [
        lambda spec: score_hand(TEN, None, spec),
        lambda spec: compare_hands(TEN, SIX, None, spec),
        lambda spec: validate_betting(SEATS, "dan", 10, WORKED_EXAMPLE, ruleset=spec),
        lambda spec: _worked({"bob": TEN, "dan": SIX}, spec),
        lambda spec: hand_odds(TEN, None, ruleset=spec),
    ]
    for call in calls:
        with pytest.raises(RulesetError) as caught:
            call({"tie": "draw"})
        assert (caught.value.code, caught.value.path) == (
            "INVALID_SWITCH_VALUE",
            ("ruleset", "tie"),
        )
