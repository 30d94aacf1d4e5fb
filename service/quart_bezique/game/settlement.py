"""Settlement of a finished round: docs/rules.md §10.

Settlement moves money, so it trusts nothing it did not check itself: it settles only a round the
betting machine judged valid and finished, and only against exactly the hands that round calls
for. Money stays in integers and is conserved by construction: the pot is split with ``divmod``
and the remainder is handed out chip by chip, so the payouts always sum to the pot and the nets
to zero. Where rules 10.1 to 10.3 are silent (refusals and their order, the odd chip, the net),
this module follows docs/rules.md §10.4 (and §11's register): change the two together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .betting import Action, BettingResult, Phase, PlayerState, validate_betting
from .cards import Card, Suit, parse_suit
from .errors import RulesError
from .messages import N_, Message
from .ruleset import CLASSIC, Ruleset, resolve_ruleset
from .scoring import HandScore, score_hand
from .showdown import ShoeError, Showdown, compare_hands

__all__ = ["Payout", "Settlement", "SettlementError", "settle", "settle_round", "split_pot"]

Hands = Mapping[str, Sequence[Card | str]]


class SettlementError(RulesError):
    """A round that cannot be settled. Codes: ROUND_INVALID, ROUND_NOT_FINISHED, HANDS_MISMATCH."""

    code = "SETTLEMENT_ERROR"


@dataclass(frozen=True)
class Payout:
    """What one seat receives from the pot, and its result after everything it put in."""

    player: str
    payout: int
    net: int


@dataclass(frozen=True)
class Settlement:
    """A settled round: ``players`` in seat order, ``winners`` clockwise from dealer's left.

    ``carried`` is the part of the pot nobody was paid: the whole pot on a tie under
    ``tie=carry`` (docs/rules.md §13.4), else 0; payouts plus ``carried`` are the pot."""

    pot: int
    players: tuple[Payout, ...]
    showdown: Showdown | None
    winners: tuple[str, ...]
    betting: BettingResult
    carried: int = 0
    ruleset: Ruleset = CLASSIC


def split_pot(pot: int, winners: Sequence[str]) -> dict[str, int]:
    """Equal shares of ``pot``; the leftover chips go one each to the first ``winners`` in order."""
    share, odd = divmod(pot, len(winners))
    return {player: share + (1 if i < odd else 0) for i, player in enumerate(winners)}


def _require_finished(result: BettingResult) -> None:
    if result.error is not None:
        raise SettlementError(
            N_("the betting went wrong at action {number}: {reason}").format(
                number=result.error.index + 1, reason=result.error.message
            ),
            code="ROUND_INVALID",
            path=("actions", result.error.index),
        )
    if result.state.phase is Phase.BETTING:
        raise SettlementError(
            N_("the betting has not ended: it is {player}'s turn").format(
                player=result.state.to_act
            ),
            code="ROUND_NOT_FINISHED",
            path=("actions",),
        )


def _mismatch(message: Message, *path: str) -> SettlementError:
    return SettlementError(message, code="HANDS_MISMATCH", path=("hands", *path))


def _given_hands(hands: Hands | None) -> Hands:
    """``hands`` as a mapping; absent means empty (an uncontested round shows no cards)."""
    if hands is None:
        return {}
    if not isinstance(hands, Mapping):
        raise _mismatch(N_("the hands must map player ids to their cards"))
    return hands


def _require_hands_of(expected: Sequence[str], given: Hands) -> None:
    """Section 10 compares the showdown's two hands: no hand may be missing, none extra."""
    for player in expected:
        if player not in given:
            raise _mismatch(N_("the hand of {player} is missing").format(player=player), player)
    for key in given:
        if key not in expected:
            words = (
                N_("a hand was given for {player}, but the round ended uncontested")
                if not expected
                else N_("a hand was given for {player}, who is not in the showdown")
            )
            raise _mismatch(words.format(player=repr(key)), str(key))


def _score(
    player: str, cards: Sequence[Card | str], trump: Suit | None, rules: Ruleset
) -> HandScore:
    """Score one hand; its errors point at ``hands/<player>/...`` (score_hand checks the shape)."""
    try:
        return score_hand(cards, trump, rules)
    except RulesError as error:
        raise error.at("hands", player) from None


def _show(pair: tuple[str, str], hands: Hands, trump: Suit | None, rules: Ruleset) -> Showdown:
    """Section 8 between the showdown's pair, with every error pointing into ``hands``."""
    first, second = (_score(player, hands[player], trump, rules) for player in pair)
    try:
        return compare_hands(first.cards, second.cards, trump, rules)
    except ShoeError as error:
        raise error.at("hands") from None


def _payout(seat: PlayerState, shares: Mapping[str, int]) -> Payout:
    """Net counts everything the seat put in, ante included (section 10)."""
    received = shares.get(seat.player, 0)
    return Payout(seat.player, received, received - seat.contributed)


def _outcome(
    result: BettingResult, given: Hands, trump: Suit | None, rules: Ruleset
) -> tuple[Showdown | None, tuple[str, ...]]:
    """Who shares the pot: the last player in, the better hand, both tied hands in order, or
    nobody (a tie under ``tie=carry``, docs/rules.md §13.4)."""
    state = result.state
    if state.showdown is None:
        assert state.winner is not None
        _require_hands_of((), given)
        return None, (state.winner,)
    if not given:
        first, second = state.showdown
        raise _mismatch(
            N_("a showdown needs the hands of {first} and {second}").format(
                first=first, second=second
            )
        )
    _require_hands_of(state.showdown, given)
    showdown = _show(state.showdown, given, trump, rules)
    if showdown.winner is None and rules.tie == "carry":
        return showdown, ()
    sharing = state.showdown if showdown.winner is None else (state.showdown[showdown.winner],)
    return showdown, tuple(sorted(sharing, key=result.setup.acting_order.index))


def settle(
    result: BettingResult,
    hands: Hands | None,
    trump: Suit | str | None = None,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> Settlement:
    """Pay out a finished round (section 10) under ``ruleset`` (docs/rules.md §13): to the last
    player in, or by the showdown; a tie under ``tie=carry`` pays nobody and carries the pot."""
    rules = resolve_ruleset(ruleset)
    _require_finished(result)
    try:
        trump_suit = parse_suit(trump)
    except RulesError as error:
        raise error.at("trump") from None
    showdown, winners = _outcome(result, _given_hands(hands), trump_suit, rules)
    pot = result.state.pot
    shares = split_pot(pot, winners) if winners else {}
    payouts = tuple(_payout(seat, shares) for seat in result.state.players)
    carried = 0 if winners else pot
    return Settlement(pot, payouts, showdown, winners, result, carried, rules)


def settle_round(
    players: Sequence[str],
    dealer: str,
    ante: int,
    actions: Iterable[Action | Mapping[str, object]],
    hands: Hands | None,
    trump: Suit | str | None = None,
    minimum_stake: int | None = None,
    maximum_stake: int | None = None,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> Settlement:
    """Sections 9 and 10 in one call: judge the betting, then settle it against the hands."""
    rules = resolve_ruleset(ruleset)
    result = validate_betting(
        players, dealer, ante, actions, minimum_stake, maximum_stake, ruleset=rules
    )
    return settle(result, hands, trump, rules)
