"""Tests of the betting state machine against docs/rules.md §9 (its decisions: §9.13).

Each test is named after the rule it checks. The property tests at the end drive the machine only
through what it advertises (``legal_actions``) and check it against an independent oracle (the pot
recomputed from the actions), so a bug in the shared bounds cannot hide behind itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.game.betting import (
    MAX_MONEY,
    Action,
    ActionType,
    BettingResult,
    BettingSetup,
    BettingState,
    LegalAction,
    Phase,
    ReasonCode,
    SetupError,
    validate_betting,
)

SEATS = ("ann", "bob", "cid", "dan")
FOLD, STAKE, TOP_UP, OPEN = ActionType.FOLD, ActionType.STAKE, ActionType.TOP_UP, ActionType.OPEN


def fold(player: str) -> Action:
    return Action(player, FOLD)


def stake(player: str, amount: int) -> Action:
    return Action(player, STAKE, amount)


def top_up(player: str, amount: int) -> Action:
    return Action(player, TOP_UP, amount)


def open_(player: str, amount: int) -> Action:
    return Action(player, OPEN, amount)


def run(
    actions: Sequence[Action | Mapping[str, object]],
    players: Sequence[str] = SEATS,
    dealer: str = "dan",
    ante: int = 10,
    minimum_stake: int | None = None,
    maximum_stake: int | None = None,
) -> BettingResult:
    return validate_betting(players, dealer, ante, actions, minimum_stake, maximum_stake)


def contributions(state: BettingState) -> dict[str, int]:
    return {p.player: p.contributed for p in state.players}


def folded(state: BettingState) -> set[str]:
    return {p.player for p in state.players if p.folded}


def legal(state: BettingState, kind: ActionType) -> LegalAction | None:
    return next((a for a in state.legal_actions if a.type is kind), None)


WORKED_EXAMPLE = (
    stake("ann", 10),
    stake("bob", 20),
    top_up("ann", 10),
    fold("cid"),
    stake("dan", 20),
    fold("ann"),
    open_("bob", 20),
)


# --- the worked example of section 9 ---------------------------------------------------------


def test_rules_9_worked_example_ann_bob_cid_dan() -> None:
    result = run(WORKED_EXAMPLE)
    assert result.valid and result.error is None
    state = result.state
    assert state.phase is Phase.SHOWDOWN
    assert state.pot == 40 + 10 + 20 + 10 + 20 + 20 == 120
    assert state.showdown == ("bob", "dan")
    assert contributions(state) == {"ann": 30, "bob": 50, "cid": 10, "dan": 30}
    assert folded(state) == {"ann", "cid"}
    assert state.current_stake == 20
    assert state.to_act is None and state.winner is None
    assert state.legal_actions == ()
    assert not state.top_up_pending


def test_rules_9_worked_example_step_by_step() -> None:
    """Who acts next and what they may do, after each action of the worked example."""
    expected = [
        ("ann", False, None),
        ("bob", False, 10),
        ("ann", True, 20),  # bob raised: ann owes 10 at once
        ("cid", False, 20),  # then the player after the raiser
        ("dan", False, 20),
        ("ann", False, 20),
        ("bob", False, 20),  # two left: bob may open
    ]
    for i, (to_act, pending, current) in enumerate(expected):
        state = run(WORKED_EXAMPLE[:i]).state
        assert (state.to_act, state.top_up_pending, state.current_stake) == (
            to_act,
            pending,
            current,
        ), i
    before_top_up = run(WORKED_EXAMPLE[:2]).state
    assert before_top_up.legal_actions == (
        LegalAction(FOLD),
        LegalAction(TOP_UP, amount=10),
    )
    before_open = run(WORKED_EXAMPLE[:6]).state
    assert legal(before_open, OPEN) == LegalAction(OPEN, amount=20)
    assert legal(before_open, STAKE) == LegalAction(STAKE, min=20, max=MAX_MONEY - 100)


def test_rules_9_wire_mappings_equal_dataclass_actions() -> None:
    wire = [{"player": a.player, "type": a.type.value, "amount": a.amount} for a in WORKED_EXAMPLE]
    wire[3] = {"player": "cid", "type": "fold"}  # amount may be left out of a fold
    assert run(wire) == run(WORKED_EXAMPLE)


# --- rules 9.1 to 9.8 ------------------------------------------------------------------------


def test_rules_9_1_every_player_antes() -> None:
    state = run([], players=("ann", "bob", "cid"), dealer="cid", ante=7).state
    assert state.phase is Phase.BETTING
    assert state.pot == 21
    assert contributions(state) == {"ann": 7, "bob": 7, "cid": 7}
    assert state.current_stake is None
    assert folded(state) == set()


@pytest.mark.parametrize(
    ("players", "dealer", "first"),
    [
        (SEATS, "dan", "ann"),  # dealer in the last seat: wrap round
        (SEATS, "ann", "bob"),
        (SEATS, "bob", "cid"),
        (SEATS, "cid", "dan"),
        (("x", "y"), "x", "y"),
        (("x", "y"), "y", "x"),
    ],
)
def test_rules_9_2_player_left_of_dealer_acts_first(
    players: tuple[str, ...], dealer: str, first: str
) -> None:
    assert run([], players=players, dealer=dealer).state.to_act == first


def test_rules_9_2_turns_go_clockwise_skipping_folded_players() -> None:
    actions = [stake("ann", 10), fold("bob"), stake("cid", 10), stake("dan", 10)]
    assert run(actions).state.to_act == "ann"
    assert run([*actions, stake("ann", 10)]).state.to_act == "cid"  # bob is out


def test_rules_9_3_first_stake_at_least_minimum_stake_defaulting_to_ante() -> None:
    assert legal(run([]).state, STAKE) == LegalAction(STAKE, min=10, max=MAX_MONEY - 40)
    assert run([stake("ann", 10)]).valid
    low = run([stake("ann", 9)]).error
    assert low is not None and low.code is ReasonCode.STAKE_BELOW_MINIMUM
    custom = run([stake("ann", 3)], minimum_stake=3)
    assert custom.valid
    assert legal(run([], minimum_stake=3).state, STAKE) == LegalAction(
        STAKE, min=3, max=MAX_MONEY - 40
    )


def test_rules_9_3_minimum_stake_may_be_below_the_ante() -> None:
    assert run([stake("ann", 1)], ante=10, minimum_stake=1).valid


def test_rules_9_3_later_stakes_at_least_current_stake() -> None:
    result = run([stake("ann", 10), stake("bob", 15), top_up("ann", 5)], minimum_stake=5)
    assert result.valid
    assert legal(result.state, STAKE) == LegalAction(STAKE, min=15, max=MAX_MONEY - 70)
    below = run([stake("ann", 10), stake("bob", 15), top_up("ann", 5), stake("cid", 14)])
    assert below.error is not None and below.error.code is ReasonCode.STAKE_BELOW_PREVIOUS


def test_rules_9_3_no_stake_above_maximum_stake() -> None:
    state = run([stake("ann", 10)], maximum_stake=25).state
    assert legal(state, STAKE) == LegalAction(STAKE, min=10, max=25)
    assert run([stake("ann", 10), stake("bob", 25)], maximum_stake=25).valid
    over = run([stake("ann", 10), stake("bob", 26)], maximum_stake=25)
    assert over.error is not None and over.error.code is ReasonCode.STAKE_ABOVE_MAXIMUM


def test_rules_9_3_fold_leaves_contribution_in_pot() -> None:
    state = run([stake("ann", 10), stake("bob", 20), top_up("ann", 10), fold("ann")]).state
    assert contributions(state)["ann"] == 30
    assert state.pot == 40 + 10 + 20 + 10


def test_rules_9_4_raise_owes_top_up_at_once() -> None:
    state = run([stake("ann", 10), stake("bob", 25)]).state
    assert state.to_act == "ann"
    assert state.top_up_pending
    assert state.current_stake == 25
    assert state.legal_actions == (LegalAction(FOLD), LegalAction(TOP_UP, amount=15))


def test_rules_9_4_turn_passes_to_player_after_raiser() -> None:
    state = run([stake("ann", 10), stake("bob", 25), top_up("ann", 15)]).state
    assert state.to_act == "cid"
    assert not state.top_up_pending
    assert contributions(state) == {"ann": 35, "bob": 35, "cid": 10, "dan": 10}


def test_rules_9_4_with_two_players_the_debtor_acts_again_at_once() -> None:
    actions = [stake("x", 10), stake("y", 30), top_up("x", 20)]
    state = run(actions, players=("x", "y"), dealer="y").state
    assert state.to_act == "x"  # the player after the raiser y is x again
    assert not state.top_up_pending
    assert legal(state, OPEN) == LegalAction(OPEN, amount=30)


def test_rules_9_4_debtor_may_fold_instead_and_play_resumes_after_raiser() -> None:
    state = run([stake("ann", 10), stake("bob", 20), fold("ann")]).state
    assert state.to_act == "cid"
    assert not state.top_up_pending
    assert folded(state) == {"ann"}
    assert state.pot == 70
    assert state.current_stake == 20


def test_rules_9_4_debtor_fold_resumes_after_raiser_skipping_folded() -> None:
    orbit = [stake("ann", 10), stake("bob", 10), fold("cid"), stake("dan", 10)]
    state = run([*orbit, stake("ann", 10), stake("bob", 20)]).state
    assert state.to_act == "ann"  # ann made the current stake, so ann owes
    after = run([*orbit, stake("ann", 10), stake("bob", 20), fold("ann")]).state
    assert after.to_act == "dan"  # after bob comes cid, who is out


def test_rules_9_4_debtor_fold_leaving_one_player_ends_uncontested() -> None:
    actions = [stake("ann", 10), fold("bob"), fold("cid"), stake("dan", 20), fold("ann")]
    result = run(actions)
    assert result.valid
    assert result.state.phase is Phase.UNCONTESTED
    assert result.state.winner == "dan"


def test_rules_9_4_only_the_latest_staker_owes() -> None:
    state = run([stake("ann", 10), stake("bob", 10), stake("cid", 30)]).state
    assert state.to_act == "bob"
    assert state.legal_actions == (LegalAction(FOLD), LegalAction(TOP_UP, amount=20))
    after = run([stake("ann", 10), stake("bob", 10), stake("cid", 30), top_up("bob", 20)])
    assert after.state.to_act == "dan"
    assert not after.state.top_up_pending


def test_rules_9_4_equal_stake_is_no_raise() -> None:
    state = run([stake("ann", 10), stake("bob", 10)]).state
    assert not state.top_up_pending
    assert state.to_act == "cid"


def test_rules_9_4_top_up_does_not_change_the_current_stake_or_its_maker() -> None:
    actions = [stake("ann", 10), stake("bob", 20), top_up("ann", 10), stake("cid", 30)]
    state = run(actions).state
    assert state.to_act == "bob"  # bob made the stake of 20, not ann's top-up
    assert legal(state, TOP_UP) == LegalAction(TOP_UP, amount=10)


def test_rules_9_5_open_costs_exactly_current_stake_and_ends_in_showdown() -> None:
    actions = [fold("ann"), stake("bob", 12), fold("cid"), open_("dan", 12)]
    state = run(actions).state
    assert state.phase is Phase.SHOWDOWN
    assert state.showdown == ("bob", "dan")
    assert contributions(state)["dan"] == 22
    assert state.pot == 40 + 12 + 12


def test_rules_9_5_showdown_pair_listed_clockwise_from_dealers_left() -> None:
    # dealer bob: order is cid, dan, ann, bob; dan opens against ann
    actions = [fold("cid"), stake("dan", 10), stake("ann", 10), fold("bob"), open_("dan", 10)]
    state = run(actions, dealer="bob").state
    assert state.showdown == ("dan", "ann")


def test_rules_9_5_stake_still_allowed_with_two_left() -> None:
    actions = [fold("ann"), stake("bob", 10), fold("cid"), stake("dan", 15), top_up("bob", 5)]
    result = run(actions)
    assert result.valid
    assert result.state.phase is Phase.BETTING
    assert result.state.to_act == "bob"


def test_rules_9_5_no_open_offered_before_a_stake_or_with_three_in() -> None:
    assert legal(run([fold("ann"), fold("bob")]).state, OPEN) is None
    assert legal(run([stake("ann", 10)]).state, OPEN) is None


def test_rules_9_6_last_player_in_wins_uncontested() -> None:
    state = run([fold("ann"), fold("bob"), fold("cid")]).state
    assert state.phase is Phase.UNCONTESTED
    assert state.winner == "dan"
    assert state.to_act is None and state.showdown is None
    assert state.legal_actions == ()
    assert state.pot == 40


def test_rules_9_betting_ends_only_by_open_or_folds() -> None:
    """The staker of the current stake does not close the round: stakes go round again."""
    actions = [stake(p, 10) for p in SEATS]
    state = run(actions).state
    assert state.phase is Phase.BETTING
    assert state.to_act == "ann"
    assert legal(state, STAKE) is not None


@pytest.mark.parametrize("last", [open_("ann", 10), fold("ann"), stake("ann", 10)])
def test_rules_9_7_no_action_after_showdown(last: Action) -> None:
    actions = [stake("ann", 10), fold("bob"), fold("cid"), open_("dan", 10), last]
    error = run(actions).error
    assert error is not None and (error.index, error.code) == (4, ReasonCode.ROUND_OVER)


def test_rules_9_7_no_action_after_uncontested_win() -> None:
    error = run([fold("ann"), fold("bob"), fold("cid"), fold("dan")]).error
    assert error is not None and (error.index, error.code) == (3, ReasonCode.ROUND_OVER)


# --- rule 9.8: the pot limit -----------------------------------------------------------------

BIG = MAX_MONEY // 2 - 10  # two antes of BIG leave 21 chips of room in the pot


def test_rules_9_8_stake_maximum_is_what_the_pot_can_hold() -> None:
    state = run([], players=("x", "y"), dealer="y", ante=BIG).state
    assert state.pot == MAX_MONEY - 21
    small = run([], players=("x", "y"), dealer="y", ante=BIG, minimum_stake=5).state
    assert legal(small, STAKE) == LegalAction(STAKE, min=5, max=21)
    assert run([stake("x", 21)], players=("x", "y"), dealer="y", ante=BIG, minimum_stake=5).valid
    over = run([stake("x", 22)], players=("x", "y"), dealer="y", ante=BIG, minimum_stake=5)
    assert over.error is not None and over.error.code is ReasonCode.POT_LIMIT_EXCEEDED


def test_rules_9_8_no_stake_offered_when_none_fits() -> None:
    state = run([], players=("x", "y"), dealer="y", ante=BIG).state
    assert state.legal_actions == (LegalAction(FOLD),)


def test_rules_9_8_no_top_up_or_open_offered_when_it_does_not_fit() -> None:
    setup: dict[str, Any] = {"players": ("x", "y"), "dealer": "y", "ante": BIG, "minimum_stake": 5}
    raised = run([stake("x", 5), stake("y", 15)], **setup).state
    assert raised.pot == MAX_MONEY - 1
    assert raised.legal_actions == (LegalAction(FOLD),)  # the top-up of 10 cannot fit
    refused = run([stake("x", 5), stake("y", 15), top_up("x", 10)], **setup).error
    assert refused is not None and refused.code is ReasonCode.POT_LIMIT_EXCEEDED
    level = run([stake("x", 5), stake("y", 5), stake("x", 6), top_up("y", 1)], **setup).state
    assert level.pot == MAX_MONEY - 21 + 17
    assert level.to_act == "y"  # after the top-up, the player after the raiser x: y again
    assert legal(level, OPEN) is None  # opening needs 6, only 4 fit
    assert legal(level, STAKE) is None
    refused_open = run(
        [stake("x", 5), stake("y", 5), stake("x", 6), top_up("y", 1), open_("y", 6)], **setup
    ).error
    assert refused_open is not None and refused_open.code is ReasonCode.POT_LIMIT_EXCEEDED


def test_rules_9_8_antes_that_overflow_the_pot_are_refused() -> None:
    with pytest.raises(SetupError) as caught:
        BettingSetup.create(SEATS, "dan", MAX_MONEY // 4 + 1)
    assert (caught.value.code, caught.value.path) == ("INVALID_AMOUNT", ("ante",))
    assert BettingSetup.create(SEATS, "dan", MAX_MONEY // 4).ante == MAX_MONEY // 4


# --- every reason code ------------------------------------------------------------------------

REASONS: list[tuple[str, list[Action], dict[str, Any], int, ReasonCode]] = [
    ("unknown", [stake("ann", 10), fold("zed")], {}, 1, ReasonCode.UNKNOWN_PLAYER),
    ("unknown beats round over", [*WORKED_EXAMPLE, fold("zed")], {}, 7, ReasonCode.UNKNOWN_PLAYER),
    ("not first", [stake("bob", 10)], {}, 0, ReasonCode.NOT_YOUR_TURN),
    (
        "folded acts",
        [fold("ann"), stake("bob", 10), stake("ann", 10)],
        {},
        2,
        ReasonCode.NOT_YOUR_TURN,
    ),
    (
        "other acts while top-up owed",
        [stake("ann", 10), stake("bob", 20), stake("cid", 20)],
        {},
        2,
        ReasonCode.NOT_YOUR_TURN,
    ),
    (
        "other folds while top-up owed",
        [stake("ann", 10), stake("bob", 20), fold("cid")],
        {},
        2,
        ReasonCode.NOT_YOUR_TURN,
    ),
    (
        "other tops up",
        [stake("ann", 10), stake("bob", 20), top_up("cid", 10)],
        {},
        2,
        ReasonCode.NOT_YOUR_TURN,
    ),
    ("top-up out of turn with nothing owed", [top_up("bob", 10)], {}, 0, ReasonCode.NOT_YOUR_TURN),
    ("first stake low", [stake("ann", 9)], {}, 0, ReasonCode.STAKE_BELOW_MINIMUM),
    (
        "first stake below custom minimum",
        [fold("ann"), stake("bob", 19)],
        {"minimum_stake": 20},
        1,
        ReasonCode.STAKE_BELOW_MINIMUM,
    ),
    (
        "later stake low",
        [stake("ann", 12), stake("bob", 11)],
        {},
        1,
        ReasonCode.STAKE_BELOW_PREVIOUS,
    ),
    (
        "first stake high",
        [stake("ann", 31)],
        {"maximum_stake": 30},
        0,
        ReasonCode.STAKE_ABOVE_MAXIMUM,
    ),
    (
        "debtor stakes",
        [stake("ann", 10), stake("bob", 20), stake("ann", 20)],
        {},
        2,
        ReasonCode.TOP_UP_REQUIRED,
    ),
    (
        "debtor opens",
        [fold("ann"), fold("bob"), stake("cid", 10), stake("dan", 20), open_("cid", 20)],
        {},
        4,
        ReasonCode.TOP_UP_REQUIRED,
    ),
    (
        "top-up too small",
        [stake("ann", 10), stake("bob", 20), top_up("ann", 9)],
        {},
        2,
        ReasonCode.WRONG_TOP_UP_AMOUNT,
    ),
    (
        "top-up too big",
        [stake("ann", 10), stake("bob", 20), top_up("ann", 20)],
        {},
        2,
        ReasonCode.WRONG_TOP_UP_AMOUNT,
    ),
    ("top-up of nothing", [stake("ann", 10), top_up("bob", 10)], {}, 1, ReasonCode.NO_TOP_UP_OWED),
    (
        "top-up after paying it",
        [stake("ann", 10), stake("bob", 20), top_up("ann", 10), top_up("cid", 10)],
        {},
        3,
        ReasonCode.NO_TOP_UP_OWED,
    ),
    ("open with four in", [stake("ann", 10), open_("bob", 10)], {}, 1, ReasonCode.OPEN_NOT_ALLOWED),
    (
        "open before any stake",
        [fold("ann"), fold("bob"), open_("cid", 10)],
        {},
        2,
        ReasonCode.OPEN_NOT_ALLOWED,
    ),
    (
        "open not allowed beats wrong amount",
        [stake("ann", 10), open_("bob", 99)],
        {},
        1,
        ReasonCode.OPEN_NOT_ALLOWED,
    ),
    (
        "open for less",
        [fold("ann"), fold("bob"), stake("cid", 10), open_("dan", 9)],
        {},
        3,
        ReasonCode.WRONG_OPEN_AMOUNT,
    ),
    (
        "open for more",
        [fold("ann"), fold("bob"), stake("cid", 10), open_("dan", 11)],
        {},
        3,
        ReasonCode.WRONG_OPEN_AMOUNT,
    ),
    ("after showdown", [*WORKED_EXAMPLE, stake("dan", 20)], {}, 7, ReasonCode.ROUND_OVER),
    (
        "after uncontested",
        [fold("ann"), fold("bob"), fold("cid"), stake("dan", 10)],
        {},
        3,
        ReasonCode.ROUND_OVER,
    ),
    ("stake overflows pot", [stake("ann", MAX_MONEY - 39)], {}, 0, ReasonCode.POT_LIMIT_EXCEEDED),
    (
        "maximum checked before pot",
        [stake("ann", MAX_MONEY - 39)],
        {"maximum_stake": 100},
        0,
        ReasonCode.STAKE_ABOVE_MAXIMUM,
    ),
]


@pytest.mark.parametrize(
    ("actions", "setup", "index", "code"),
    [pytest.param(a, s, i, c, id=name) for name, a, s, i, c in REASONS],
)
def test_rules_9_reason_codes(
    actions: list[Action], setup: dict[str, Any], index: int, code: ReasonCode
) -> None:
    result = run(actions, **setup)
    assert not result.valid
    assert result.error is not None
    assert (result.error.index, result.error.code) == (index, code)
    assert result.error.message  # a sentence for humans, never empty
    # the state is the one just before the illegal action
    assert result.state == run(actions[:index], **setup).state
    assert run(actions[:index], **setup).valid


def test_rules_9_every_reason_code_is_produced_by_a_test() -> None:
    assert {code for *_, code in REASONS} == set(ReasonCode)


def test_rules_9_reason_codes_are_their_own_wire_names() -> None:
    assert all(code.value == code.name for code in ReasonCode)
    assert [t.value for t in ActionType] == ["fold", "stake", "top_up", "open"]
    assert [p.value for p in Phase] == ["betting", "showdown", "uncontested"]


def test_rules_9_only_the_first_illegal_action_is_reported() -> None:
    result = run([stake("ann", 10), stake("cid", 10), stake("zed", 1)])
    assert result.error is not None
    assert (result.error.index, result.error.code) == (1, ReasonCode.NOT_YOUR_TURN)
    assert result.state.to_act == "bob"


def test_rules_9_not_your_turn_message_names_who_acts() -> None:
    error = run([stake("ann", 10), stake("bob", 20), fold("cid")]).error
    assert error is not None
    assert "ann" in error.message and "cid" in error.message and "10" in error.message


# --- setup errors -----------------------------------------------------------------------------

SETUPS: list[tuple[str, dict[str, Any], str, tuple[str | int, ...]]] = [
    ("one player", {"players": ["ann"], "dealer": "ann"}, "TOO_FEW_PLAYERS", ("players",)),
    ("no players", {"players": [], "dealer": "ann"}, "TOO_FEW_PLAYERS", ("players",)),
    (
        "five players",
        {"players": ["a", "b", "c", "d", "e"], "dealer": "a"},
        "TOO_MANY_PLAYERS",
        ("players",),
    ),
    ("duplicate", {"players": ["a", "b", "a"], "dealer": "a"}, "DUPLICATE_PLAYER", ("players", 2)),
    ("non-string id", {"players": ["a", 7], "dealer": "a"}, "INVALID_PLAYER", ("players", 1)),
    ("players not a list", {"players": "ab", "dealer": "a"}, "INVALID_PLAYER", ("players",)),
    ("dealer away", {"dealer": "zed"}, "DEALER_NOT_SEATED", ("dealer",)),
    ("dealer not a string", {"dealer": 1}, "DEALER_NOT_SEATED", ("dealer",)),
    ("ante zero", {"ante": 0}, "INVALID_AMOUNT", ("ante",)),
    ("ante negative", {"ante": -5}, "INVALID_AMOUNT", ("ante",)),
    ("ante bool", {"ante": True}, "INVALID_AMOUNT", ("ante",)),
    ("ante float", {"ante": 10.0}, "INVALID_AMOUNT", ("ante",)),
    ("ante string", {"ante": "10"}, "INVALID_AMOUNT", ("ante",)),
    ("ante too big", {"ante": MAX_MONEY + 1}, "INVALID_AMOUNT", ("ante",)),
    ("antes overflow pot", {"ante": MAX_MONEY // 4 + 1}, "INVALID_AMOUNT", ("ante",)),
    ("minimum zero", {"minimum_stake": 0}, "INVALID_AMOUNT", ("minimum_stake",)),
    ("maximum float", {"maximum_stake": 2.5}, "INVALID_AMOUNT", ("maximum_stake",)),
    (
        "maximum below minimum",
        {"minimum_stake": 20, "maximum_stake": 19},
        "MAXIMUM_BELOW_MINIMUM",
        ("maximum_stake",),
    ),
    (
        "maximum below default minimum",
        {"maximum_stake": 9},
        "MAXIMUM_BELOW_MINIMUM",
        ("maximum_stake",),
    ),
    (
        "unknown type",
        {"actions": [{"player": "ann", "type": "check"}]},
        "INVALID_ACTION",
        ("actions", 0, "type"),
    ),
    ("missing type", {"actions": [{"player": "ann"}]}, "INVALID_ACTION", ("actions", 0, "type")),
    (
        "upper-case type",
        {"actions": [{"player": "ann", "type": "FOLD"}]},
        "INVALID_ACTION",
        ("actions", 0, "type"),
    ),
    (
        "stake without amount",
        {"actions": [{"player": "ann", "type": "stake"}]},
        "INVALID_ACTION",
        ("actions", 0, "amount"),
    ),
    (
        "top-up without amount",
        {"actions": [stake("ann", 10), Action("bob", TOP_UP)]},
        "INVALID_ACTION",
        ("actions", 1, "amount"),
    ),
    (
        "open without amount",
        {"actions": [{"player": "ann", "type": "open", "amount": None}]},
        "INVALID_ACTION",
        ("actions", 0, "amount"),
    ),
    (
        "fold with amount",
        {"actions": [{"player": "ann", "type": "fold", "amount": 10}]},
        "INVALID_ACTION",
        ("actions", 0, "amount"),
    ),
    (
        "player not a string",
        {"actions": [{"player": 3, "type": "fold"}]},
        "INVALID_ACTION",
        ("actions", 0, "player"),
    ),
    ("player missing", {"actions": [{"type": "fold"}]}, "INVALID_ACTION", ("actions", 0, "player")),
    (
        "unknown field",
        {"actions": [{"player": "ann", "type": "fold", "amuont": 1}]},
        "INVALID_ACTION",
        ("actions", 0, "amuont"),
    ),
    (
        "action not an object",
        {"actions": [stake("ann", 10), "fold"]},
        "INVALID_ACTION",
        ("actions", 1),
    ),
    ("actions not a list", {"actions": {"player": "ann"}}, "INVALID_ACTION", ("actions",)),
    ("amount zero", {"actions": [stake("ann", 0)]}, "INVALID_AMOUNT", ("actions", 0, "amount")),
    (
        "amount negative",
        {"actions": [{"player": "ann", "type": "stake", "amount": -10}]},
        "INVALID_AMOUNT",
        ("actions", 0, "amount"),
    ),
    (
        "amount float",
        {"actions": [{"player": "ann", "type": "stake", "amount": 10.0}]},
        "INVALID_AMOUNT",
        ("actions", 0, "amount"),
    ),
    (
        "amount bool",
        {"actions": [{"player": "ann", "type": "open", "amount": True}]},
        "INVALID_AMOUNT",
        ("actions", 0, "amount"),
    ),
    (
        "amount beyond money",
        {"actions": [stake("ann", MAX_MONEY + 1)]},
        "INVALID_AMOUNT",
        ("actions", 0, "amount"),
    ),
    (
        "malformed after an illegal action",
        {"actions": [stake("bob", 10), {"player": "ann", "type": "raise"}]},
        "INVALID_ACTION",
        ("actions", 1, "type"),
    ),
]


@pytest.mark.parametrize(
    ("overrides", "code", "path"),
    [pytest.param(o, c, p, id=name) for name, o, c, p in SETUPS],
)
def test_rules_9_setup_errors_are_refused_not_judged(
    overrides: dict[str, Any], code: str, path: tuple[str | int, ...]
) -> None:
    args: dict[str, Any] = {"players": SEATS, "dealer": "dan", "ante": 10, "actions": []}
    args.update(overrides)
    with pytest.raises(SetupError) as caught:
        validate_betting(**args)
    assert caught.value.code == code
    assert caught.value.path == path
    assert caught.value.message


def test_rules_9_every_setup_error_code_is_tested() -> None:
    assert {code for _, _, code, _ in SETUPS} == {
        "TOO_FEW_PLAYERS",
        "TOO_MANY_PLAYERS",
        "DUPLICATE_PLAYER",
        "INVALID_PLAYER",
        "DEALER_NOT_SEATED",
        "INVALID_AMOUNT",
        "MAXIMUM_BELOW_MINIMUM",
        "INVALID_ACTION",
    }


def test_rules_9_setup_error_points_into_the_input() -> None:
    with pytest.raises(SetupError) as caught:
        run([stake("ann", 10), stake("bob", 10), {"player": "cid", "type": "stake"}])
    assert caught.value.pointer() == "/actions/2/amount"
    assert isinstance(caught.value, ValueError)


def test_rules_9_setup_defaults() -> None:
    setup = BettingSetup.create(["a", "b"], "a", 5)
    assert setup == BettingSetup(("a", "b"), "a", 5, 5, None)
    assert setup.acting_order == ("b", "a")
    assert BettingSetup.create(SEATS, "bob", 1).acting_order == ("cid", "dan", "ann", "bob")


def test_rules_9_results_are_frozen() -> None:
    result = run(WORKED_EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.state.pot = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.state.players[0].contributed = 0  # type: ignore[misc]


# --- properties -------------------------------------------------------------------------------

NAMES = ("ann", "bob", "cid", "dan")


@st.composite
def setups(draw: st.DrawFn) -> BettingSetup:
    """Small realistic tables, and tables whose antes nearly fill the pot (to reach rule 9.8)."""
    n = draw(st.integers(2, 4))
    players = NAMES[:n]
    dealer = draw(st.sampled_from(players))
    room = draw(st.sampled_from([None] * 6 + [0, 1, 7, 40, 1000]))
    ante = draw(st.integers(1, 20)) if room is None else max(1, (MAX_MONEY - room) // n)
    minimum = draw(st.one_of(st.none(), st.integers(1, 30)))
    floor = ante if minimum is None else minimum
    maximum = draw(st.one_of(st.none(), st.integers(floor, floor + 60)))
    return BettingSetup.create(players, dealer, ante, minimum, maximum)


def pick_amount(draw: st.DrawFn, low: int, high: int) -> int:
    """Amounts at and near the advertised bounds, where off-by-one bugs live."""
    near = [low, min(low + 1, high), max(high - 1, low), high]
    return draw(st.one_of(st.integers(low, min(high, low + 40)), st.sampled_from(near)))


def pick_legal(draw: st.DrawFn, state: BettingState) -> Action:
    """Fold rarely, so that rounds last long enough to reach raises, openings and the pot limit."""
    assert state.to_act is not None
    options = state.legal_actions[1:] or state.legal_actions
    fold_too = draw(st.sampled_from([False] * 3 + [True]))  # small indexes are drawn more often
    choice = draw(st.sampled_from(state.legal_actions if fold_too else options))
    if choice.type is STAKE:
        assert choice.min is not None and choice.max is not None
        return Action(state.to_act, STAKE, pick_amount(draw, choice.min, choice.max))
    return Action(state.to_act, choice.type, choice.amount)


@st.composite
def legal_rounds(draw: st.DrawFn, max_steps: int = 24) -> tuple[BettingSetup, list[Action]]:
    """A setup and a sequence built only from advertised legal actions."""
    setup = draw(setups())
    actions: list[Action] = []
    for _ in range(draw(st.integers(0, max_steps))):
        state = validate(setup, actions).state
        if state.phase is not Phase.BETTING:
            break
        actions.append(pick_legal(draw, state))
    return setup, actions


def validate(setup: BettingSetup, actions: Sequence[Action]) -> BettingResult:
    return validate_betting(
        setup.players,
        setup.dealer,
        setup.ante,
        actions,
        setup.minimum_stake,
        setup.maximum_stake,
    )


def paid(setup: BettingSetup, actions: Sequence[Action]) -> int:
    """The pot recomputed independently of the machine: antes plus every amount paid."""
    return setup.ante * len(setup.players) + sum(a.amount or 0 for a in actions)


def check_invariants(setup: BettingSetup, actions: Sequence[Action], state: BettingState) -> None:
    assert state.pot == sum(p.contributed for p in state.players) == paid(setup, actions)
    assert state.pot <= MAX_MONEY
    still_in = [p.player for p in state.players if not p.folded]
    if state.phase is Phase.BETTING:
        assert state.to_act in still_in
        assert len(still_in) >= 2
        assert state.legal_actions[0] == LegalAction(FOLD)
        types = [a.type for a in state.legal_actions]
        assert TOP_UP not in types or state.top_up_pending
        if state.top_up_pending:
            assert STAKE not in types and OPEN not in types
        for option in state.legal_actions:
            if option.type is STAKE:
                assert option.min is not None and option.max is not None
                assert option.min <= option.max
                assert state.pot + option.max <= MAX_MONEY
                if setup.maximum_stake is not None:
                    assert option.max <= setup.maximum_stake
    else:
        assert state.to_act is None and state.legal_actions == ()
    if state.phase is Phase.SHOWDOWN:
        assert state.showdown is not None and sorted(state.showdown) == sorted(still_in)
    if state.phase is Phase.UNCONTESTED:
        assert still_in == [state.winner]


PROPERTY_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(legal_rounds())
def test_rules_9_random_legal_play_stays_valid(round_: tuple[BettingSetup, list[Action]]) -> None:
    setup, actions = round_
    result = validate(setup, actions)
    assert result.valid, result.error
    check_invariants(setup, actions, result.state)


@PROPERTY_SETTINGS
@given(legal_rounds())
def test_rules_9_any_prefix_of_a_valid_sequence_is_valid(
    round_: tuple[BettingSetup, list[Action]],
) -> None:
    setup, actions = round_
    for cut in range(len(actions) + 1):
        result = validate(setup, actions[:cut])
        assert result.valid, (cut, result.error)
        check_invariants(setup, actions[:cut], result.state)


def advertised(state: BettingState, action: Action) -> bool:
    if action.player != state.to_act:
        return False
    for option in state.legal_actions:
        if option.type is not action.type:
            continue
        if option.type is FOLD:
            return True
        if option.type is STAKE:
            assert option.min is not None and option.max is not None and action.amount is not None
            return option.min <= action.amount <= option.max
        return option.amount == action.amount
    return False


@st.composite
def probes(draw: st.DrawFn, state: BettingState, setup: BettingSetup) -> Action:
    """Any well-formed action, legal or not, with amounts at and around every bound that matters."""
    anyone = st.sampled_from([*setup.players, "zed"])
    player = draw(anyone if state.to_act is None else st.one_of(st.just(state.to_act), anyone))
    offered = [a.type for a in state.legal_actions[1:]] or list(ActionType)
    kind = draw(st.one_of(st.sampled_from(offered), st.sampled_from(list(ActionType))))
    if kind is FOLD:
        return Action(player, FOLD)
    own = [a for a in state.legal_actions if a.type is kind]
    anchors = [x for a in own for x in (a.amount, a.min, a.max) if x is not None]
    if not anchors or draw(st.booleans()):
        anchors += [setup.minimum_stake, MAX_MONEY - state.pot]
        anchors += [a for a in (state.current_stake, setup.maximum_stake) if a is not None]
    base = draw(st.sampled_from(anchors))
    amount = min(MAX_MONEY, max(1, base + draw(st.sampled_from([0, 0, 0, -1, 1, -2, 2]))))
    return Action(player, kind, amount)


@PROPERTY_SETTINGS
@given(st.data())
def test_rules_9_an_action_is_accepted_exactly_when_advertised(data: st.DataObject) -> None:
    setup, played = data.draw(legal_rounds(max_steps=12))
    actions = played[: data.draw(st.integers(0, len(played)))]  # mostly still betting
    before = validate(setup, actions)
    probe = data.draw(probes(before.state, setup))
    after = validate(setup, [*actions, probe])
    assert after.valid == advertised(before.state, probe), (probe, after.error)
    if not after.valid:
        assert after.error is not None and after.error.index == len(actions)
        assert after.state == before.state
    else:
        check_invariants(setup, [*actions, probe], after.state)
