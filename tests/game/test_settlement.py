"""Tests of settlement against docs/rules.md §10 (its decisions: §10.4)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.game.betting import (
    MAX_MONEY,
    Action,
    ActionType,
    BettingSetup,
    LegalAction,
    Phase,
    validate_betting,
)
from quart_bezique.game.cards import CARDS, Card, Suit
from quart_bezique.game.errors import RulesError
from quart_bezique.game.settlement import (
    Payout,
    Settlement,
    SettlementError,
    settle,
    settle_round,
    split_pot,
)

SEATS = ("ann", "bob", "cid", "dan")
FOLD, STAKE, TOP_UP, OPEN = ActionType.FOLD, ActionType.STAKE, ActionType.TOP_UP, ActionType.OPEN

WORKED_EXAMPLE = (
    Action("ann", STAKE, 10),
    Action("bob", STAKE, 20),
    Action("ann", TOP_UP, 10),
    Action("cid", FOLD),
    Action("dan", STAKE, 20),
    Action("ann", FOLD),
    Action("bob", OPEN, 20),
)
TEN = ["KS", "QS", "JS", "JC"]  # coronka 6 + bezique 4 (section 7)
SIX = ["KH", "QH", "KD", "10D"]  # marriage 4 + K + 10
ALSO_SIX = ["QS", "JC", "KD", "JD"]  # bezique 4 + K + J
ZERO = ["AS", "AC", "AH", "AD"]


def payouts(settlement: Settlement) -> dict[str, tuple[int, int]]:
    return {p.player: (p.payout, p.net) for p in settlement.players}


def worked(hands: Mapping[str, Sequence[str]] | None, trump: str | None = None) -> Settlement:
    return settle_round(SEATS, "dan", 10, WORKED_EXAMPLE, hands, trump)


# --- section 10, by example ------------------------------------------------------------------


def test_rules_10_worked_example_higher_score_takes_the_pot() -> None:
    result = worked({"bob": TEN, "dan": SIX})
    assert result.pot == 120
    assert result.winners == ("bob",)
    assert payouts(result) == {
        "ann": (0, -30),
        "bob": (120, 70),
        "cid": (0, -10),
        "dan": (0, -30),
    }
    assert result.showdown is not None
    assert [h.score for h in result.showdown.hands] == [10, 6]
    assert result.showdown.winner == 0
    assert result.betting.valid


def test_rules_10_worked_example_other_hand_wins() -> None:
    result = worked({"bob": ZERO, "dan": SIX})
    assert result.winners == ("dan",)
    assert payouts(result)["dan"] == (120, 90)
    assert payouts(result)["bob"] == (0, -50)


def test_rules_10_players_listed_in_seat_order() -> None:
    result = worked({"dan": SIX, "bob": TEN})  # the order of the hands given does not matter
    assert [p.player for p in result.players] == list(SEATS)
    assert result.winners == ("bob",)


def test_rules_10_trump_decides_the_showdown() -> None:
    assert worked({"bob": ALSO_SIX, "dan": SIX}).winners == ("bob", "dan")  # 6 against 6
    hearts = worked({"bob": ALSO_SIX, "dan": SIX}, trump="H")  # 6 against 8 + 1 + 1
    assert hearts.winners == ("dan",)
    assert hearts.showdown is not None and hearts.showdown.trump is Suit.HEARTS
    assert [h.score for h in hearts.showdown.hands] == [6, 10]


def test_rules_10_uncontested_last_player_in_takes_the_pot() -> None:
    actions = [Action("ann", STAKE, 10), Action("bob", FOLD), Action("cid", FOLD)]
    no_hands: list[dict[str, list[str]] | None] = [None, {}]
    for hands in no_hands:
        result = settle_round(SEATS[:3], "cid", 5, actions, hands)
        assert result.winners == ("ann",)
        assert result.showdown is None
        assert payouts(result) == {"ann": (25, 10), "bob": (0, -5), "cid": (0, -5)}


def test_rules_10_tie_splits_an_even_pot_equally() -> None:
    result = worked({"bob": SIX, "dan": ALSO_SIX})
    assert result.showdown is not None and result.showdown.tie
    assert result.winners == ("bob", "dan")
    assert payouts(result)["bob"] == (60, 10)
    assert payouts(result)["dan"] == (60, 30)


@pytest.mark.parametrize(
    ("dealer", "first", "actions"),
    [
        # dealer dan: order ann bob dan, so ann comes first
        ("dan", "ann", [Action("ann", STAKE, 5), Action("bob", FOLD), Action("dan", OPEN, 5)]),
        # dealer bob: order dan ann bob, so dan comes first although ann sits before dan
        (
            "bob",
            "dan",
            [
                Action("dan", STAKE, 5),
                Action("ann", STAKE, 6),
                Action("dan", TOP_UP, 1),
                Action("bob", FOLD),
                Action("dan", OPEN, 6),
            ],
        ),
        # dealer ann: order bob dan ann; the dealer comes last
        ("ann", "dan", [Action("bob", FOLD), Action("dan", STAKE, 5), Action("ann", OPEN, 5)]),
    ],
)
def test_rules_10_odd_chip_goes_first_clockwise_from_dealers_left(
    dealer: str, first: str, actions: Sequence[Action]
) -> None:
    result = settle_round(("ann", "bob", "dan"), dealer, 5, actions, {"ann": SIX, "dan": ALSO_SIX})
    assert result.pot % 2 == 1
    other = "dan" if first == "ann" else "ann"
    assert result.winners == (first, other)
    shares = payouts(result)
    assert shares[first][0] == result.pot // 2 + 1
    assert shares[other][0] == result.pot // 2
    assert sum(net for _, net in shares.values()) == 0


def test_rules_10_net_counts_everything_put_in_ante_included() -> None:
    result = worked({"bob": TEN, "dan": SIX})
    contributed = {p.player: p.contributed for p in result.betting.state.players}
    for payout in result.players:
        assert payout.net == payout.payout - contributed[payout.player]
    assert payouts(result)["cid"] == (0, -10)  # folded before staking: loses the ante only


def test_rules_10_settle_takes_a_betting_result() -> None:
    betting = validate_betting(SEATS, "dan", 10, WORKED_EXAMPLE)
    assert settle(betting, {"bob": TEN, "dan": SIX}) == worked({"bob": TEN, "dan": SIX})


def test_rules_10_payout_records_are_plain_values() -> None:
    result = worked({"bob": TEN, "dan": SIX})
    assert result.players[1] == Payout("bob", 120, 70)


# --- refusals -----------------------------------------------------------------------------------

UNFINISHED = WORKED_EXAMPLE[:6]
INVALID = (*WORKED_EXAMPLE[:6], Action("dan", OPEN, 20))  # bob is to act
UNCONTESTED = (
    Action("ann", STAKE, 10),
    Action("bob", FOLD),
    Action("cid", FOLD),
    Action("dan", FOLD),
)

REFUSALS: list[tuple[str, Sequence[Action], Any, Any, str, tuple[str | int, ...]]] = [
    ("invalid betting", INVALID, {"bob": TEN, "dan": SIX}, None, "ROUND_INVALID", ("actions", 6)),
    ("unfinished", UNFINISHED, {"bob": TEN, "dan": SIX}, None, "ROUND_NOT_FINISHED", ("actions",)),
    ("no hands", WORKED_EXAMPLE, None, None, "HANDS_MISMATCH", ("hands",)),
    ("hand missing", WORKED_EXAMPLE, {"bob": TEN}, None, "HANDS_MISMATCH", ("hands", "dan")),
    (
        "folded player's hand",
        WORKED_EXAMPLE,
        {"bob": TEN, "dan": SIX, "ann": ZERO},
        None,
        "HANDS_MISMATCH",
        ("hands", "ann"),
    ),
    (
        "stranger's hand",
        WORKED_EXAMPLE,
        {"bob": TEN, "dan": SIX, "zed": ZERO},
        None,
        "HANDS_MISMATCH",
        ("hands", "zed"),
    ),
    ("hands not a mapping", WORKED_EXAMPLE, [TEN, SIX], None, "HANDS_MISMATCH", ("hands",)),
    ("hands for uncontested", UNCONTESTED, {"ann": TEN}, None, "HANDS_MISMATCH", ("hands", "ann")),
    (
        "bad card",
        WORKED_EXAMPLE,
        {"bob": TEN, "dan": ["KH", "QH", "XX", "10D"]},
        None,
        "INVALID_CARD",
        ("hands", "dan", 2),
    ),
    (
        "short hand",
        WORKED_EXAMPLE,
        {"bob": TEN[:3], "dan": SIX},
        None,
        "WRONG_HAND_SIZE",
        ("hands", "bob"),
    ),
    (
        "beyond the shoe",
        WORKED_EXAMPLE,
        {"bob": ["KS"] * 4, "dan": ["KS", "KS", "KS", "QS"]},
        None,
        "SHOE_EXCEEDED",
        ("hands",),
    ),
    ("bad trump", WORKED_EXAMPLE, {"bob": TEN, "dan": SIX}, "X", "INVALID_TRUMP", ("trump",)),
    ("bad trump, uncontested", UNCONTESTED, None, "spades", "INVALID_TRUMP", ("trump",)),
]


@pytest.mark.parametrize(
    ("actions", "hands", "trump", "code", "path"),
    [pytest.param(a, h, t, c, p, id=name) for name, a, h, t, c, p in REFUSALS],
)
def test_rules_10_refusals(
    actions: Sequence[Action], hands: Any, trump: Any, code: str, path: tuple[str | int, ...]
) -> None:
    with pytest.raises(RulesError) as caught:
        settle_round(SEATS, "dan", 10, actions, hands, trump)
    assert caught.value.code == code
    assert caught.value.path == path
    if code in {"ROUND_INVALID", "ROUND_NOT_FINISHED", "HANDS_MISMATCH"}:
        assert isinstance(caught.value, SettlementError)


def test_rules_10_every_settlement_error_code_is_tested() -> None:
    codes = {code for *_, code, _ in REFUSALS}
    assert {"ROUND_INVALID", "ROUND_NOT_FINISHED", "HANDS_MISMATCH"} <= codes


# --- properties -------------------------------------------------------------------------------


@st.composite
def finished_rounds(draw: st.DrawFn) -> tuple[BettingSetup, list[Action]]:
    """Rounds played only through advertised legal actions, driven to their end."""
    n = draw(st.integers(2, 4))
    players = SEATS[:n]
    ante = draw(st.one_of(st.integers(1, 25), st.just(MAX_MONEY // n - draw(st.integers(0, 9)))))
    setup = BettingSetup.create(players, draw(st.sampled_from(players)), ante, 1)
    actions: list[Action] = []
    while True:
        state = validate_betting(setup.players, setup.dealer, setup.ante, actions, 1).state
        if state.phase is not Phase.BETTING:
            return setup, actions
        assert state.to_act is not None
        actions.append(pick(draw, state.to_act, state.legal_actions, len(actions)))


def pick(draw: st.DrawFn, player: str, legal: Sequence[LegalAction], played: int) -> Action:
    """Prefer opening when offered and fold more as the round drags on, so it always ends."""
    by_type = {option.type: option for option in legal}
    if OPEN in by_type and draw(st.booleans()):
        return Action(player, OPEN, by_type[OPEN].amount)
    if played > 12 or len(by_type) == 1 or draw(st.sampled_from([False, False, True])):
        return Action(player, FOLD)
    if TOP_UP in by_type:
        return Action(player, TOP_UP, by_type[TOP_UP].amount)
    option = by_type.get(STAKE)
    if option is None:
        return Action(player, FOLD)
    assert option.min is not None and option.max is not None
    return Action(player, STAKE, draw(st.integers(option.min, min(option.max, option.min + 30))))


@st.composite
def hands_for(draw: st.DrawFn, pair: tuple[str, str]) -> dict[str, list[Card]]:
    """Two hands one shoe can hold; often the same cards reordered, which forces a tie."""
    first = draw(st.lists(st.sampled_from(CARDS), min_size=4, max_size=4))
    mirror = max(Counter(first).values()) <= 3 and draw(st.booleans())
    if mirror:
        second = draw(st.permutations(first))
    else:
        second = draw(
            st.lists(st.sampled_from(CARDS), min_size=4, max_size=4).filter(
                lambda cards: max(Counter(first + cards).values()) <= 6
            )
        )
    return {pair[0]: first, pair[1]: list(second)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_rules_10_chips_are_conserved(data: st.DataObject) -> None:
    setup, actions = data.draw(finished_rounds())
    betting = validate_betting(setup.players, setup.dealer, setup.ante, actions, 1)
    pair = betting.state.showdown
    hands = None if pair is None else data.draw(hands_for(pair))
    trump = data.draw(st.sampled_from([None, *Suit]))
    result = settle(betting, hands, trump)

    assert sum(p.payout for p in result.players) == result.pot == betting.state.pot
    assert sum(p.net for p in result.players) == 0
    shares = {p.player: p.payout for p in result.players}
    losers = [p for p in setup.players if p not in result.winners]
    assert all(shares[p] == 0 for p in losers)
    if len(result.winners) == 2:
        assert result.showdown is not None and result.showdown.tie
        first, second = result.winners
        order = setup.acting_order
        assert order.index(first) < order.index(second)
        assert shares[first] - shares[second] == result.pot % 2
        assert shares[second] == result.pot // 2
    else:
        assert shares[result.winners[0]] == result.pot
        if result.showdown is not None:
            assert not result.showdown.tie
            scores = dict(zip(pair or (), (h.score for h in result.showdown.hands), strict=True))
            assert scores[result.winners[0]] == max(scores.values())


@given(
    st.integers(1, MAX_MONEY),
    st.lists(st.sampled_from(SEATS), min_size=1, max_size=4, unique=True),
)
def test_rules_10_split_pot_conserves_every_chip(pot: int, winners: list[str]) -> None:
    shares = split_pot(pot, winners)
    assert sum(shares.values()) == pot
    amounts = [shares[w] for w in winners]
    assert max(amounts) - min(amounts) <= 1
    assert amounts == sorted(amounts, reverse=True)  # leftover chips go to the earliest
    assert all(isinstance(a, int) for a in amounts)


def test_rules_10_odd_chip_order_comes_from_the_seats_not_the_showdown_listing() -> None:
    actions = [Action("bob", FOLD), Action("dan", STAKE, 5), Action("ann", OPEN, 5)]
    betting = validate_betting(("ann", "bob", "dan"), "ann", 5, actions)
    assert betting.state.showdown == ("dan", "ann")
    flipped = dataclasses.replace(
        betting, state=dataclasses.replace(betting.state, showdown=("ann", "dan"))
    )
    result = settle(flipped, {"ann": SIX, "dan": ALSO_SIX})
    assert result.winners == ("dan", "ann")  # dealer ann comes last whatever the listing says
    assert payouts(result)["dan"][0] == result.pot // 2 + 1
