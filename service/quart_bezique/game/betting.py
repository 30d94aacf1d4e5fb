"""The betting state machine of docs/rules.md §9 ("торговля").

A betting verdict must be exactly reproducible and must never advertise an action it would then
refuse, so the round is replayed action by action (pokerkit's shape): one pure *check* per action
kind says whether an action is legal and why not, one *apply* moves a small mutable ``_Table`` on,
and the legal actions a ``BettingState`` snapshot advertises come from the very bounds the checks
use. Malformed input raises ``SetupError`` before any action is judged; a well-formed action that
breaks a rule is a verdict (``BettingResult.valid`` False, the first illegal action named with a
stable ``ReasonCode``). Where rules 9.1 to 9.8 are silent, this module follows docs/rules.md
§9.13 (and §11's register): change the two together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeGuard

from .errors import PathElement, RulesError
from .messages import N_, NP_, Message
from .ruleset import CLASSIC, Ruleset, resolve_ruleset

__all__ = [
    "MAX_MONEY",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Action",
    "ActionType",
    "BettingResult",
    "BettingSetup",
    "BettingState",
    "LegalAction",
    "Phase",
    "PlayerState",
    "ReasonCode",
    "SetupError",
    "Violation",
    "parse_action",
    "replay",
    "validate_betting",
]

MAX_MONEY: Final = 2**53 - 1
"""The largest amount of money and the largest pot (section 2, rule 9.8): exact in JavaScript."""

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4


class ActionType(StrEnum):
    """The action kinds on the wire (section 9)."""

    FOLD = "fold"
    STAKE = "stake"
    TOP_UP = "top_up"
    OPEN = "open"


class Phase(StrEnum):
    """Where the round stands: still betting, or ended one of the two ways rules 9.5/9.6 allow."""

    BETTING = "betting"
    SHOWDOWN = "showdown"
    UNCONTESTED = "uncontested"


class ReasonCode(StrEnum):
    """Why an action is illegal: stable, machine-readable, listed in section 9."""

    UNKNOWN_PLAYER = "UNKNOWN_PLAYER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    STAKE_BELOW_MINIMUM = "STAKE_BELOW_MINIMUM"
    STAKE_BELOW_PREVIOUS = "STAKE_BELOW_PREVIOUS"
    STAKE_ABOVE_MAXIMUM = "STAKE_ABOVE_MAXIMUM"
    TOP_UP_REQUIRED = "TOP_UP_REQUIRED"
    WRONG_TOP_UP_AMOUNT = "WRONG_TOP_UP_AMOUNT"
    NO_TOP_UP_OWED = "NO_TOP_UP_OWED"
    OPEN_NOT_ALLOWED = "OPEN_NOT_ALLOWED"
    WRONG_OPEN_AMOUNT = "WRONG_OPEN_AMOUNT"
    ROUND_OVER = "ROUND_OVER"
    POT_LIMIT_EXCEEDED = "POT_LIMIT_EXCEEDED"


class SetupError(RulesError):
    """Input that cannot be judged at all: the setup or the shape of an action is wrong.

    Codes: TOO_FEW_PLAYERS, TOO_MANY_PLAYERS, DUPLICATE_PLAYER, INVALID_PLAYER, DEALER_NOT_SEATED,
    INVALID_AMOUNT, MAXIMUM_BELOW_MINIMUM, INVALID_ACTION.
    """

    code = "INVALID_SETUP"


@dataclass(frozen=True)
class Action:
    """One action as it happened; ``amount`` is None exactly for a fold."""

    player: str
    type: ActionType
    amount: int | None = None


@dataclass(frozen=True)
class PlayerState:
    """One seat: everything they put in (ante included) and whether they threw their cards in."""

    player: str
    contributed: int
    folded: bool


@dataclass(frozen=True)
class LegalAction:
    """An action open to the player to act: ``amount`` for top_up/open, ``min``/``max`` for stake.

    ``max`` is typed optional to keep "unbounded" expressible, but the pot limit always bounds a
    stake, so this module always fills it.
    """

    type: ActionType
    amount: int | None = None
    min: int | None = None
    max: int | None = None


@dataclass(frozen=True)
class BettingState:
    """A snapshot of the round: ``players`` in seat order, ``showdown`` from the dealer's left."""

    phase: Phase
    pot: int
    current_stake: int | None
    players: tuple[PlayerState, ...]
    to_act: str | None
    top_up_pending: bool
    legal_actions: tuple[LegalAction, ...]
    showdown: tuple[str, str] | None
    winner: str | None


@dataclass(frozen=True)
class Violation:
    """The first illegal action: its index in the input, why, and a sentence for humans."""

    index: int
    code: ReasonCode
    message: str


def _is_money(value: object) -> TypeGuard[int]:
    """Section 2: an integer from 1 to 2^53−1. ``bool`` is an ``int`` in Python but not money."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_MONEY


def _is_integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _money(value: object, path: tuple[PathElement, ...], what: Message) -> int:
    if not _is_money(value):
        raise SetupError(
            N_("{what} must be a whole number of chips, at least 1, not {value}").format(
                what=what, value=repr(value)
            )
            if not _is_integer(value) or value < 1
            else N_("{what} of {value} is too large to be counted exactly").format(
                what=what, value=value
            ),
            code="INVALID_AMOUNT",
            path=path,
        )
    return value


def _seats(players: object) -> tuple[str, ...]:
    """Rule 9 input: 2–4 distinct string ids, in clockwise order."""
    if isinstance(players, str | bytes) or not isinstance(players, Sequence):
        raise SetupError(
            N_("the players must be a list of player ids"),
            code="INVALID_PLAYER",
            path=("players",),
        )
    for i, player in enumerate(players):
        if not isinstance(player, str):
            raise SetupError(
                N_("the player id {player} is not text").format(player=repr(player)),
                code="INVALID_PLAYER",
                path=("players", i),
            )
    if len(players) < MIN_PLAYERS:
        raise SetupError(
            NP_(
                "a table seats at least {min} players, not {count}",
                "a table seats at least {min} players, not {count}",
                "count",
                min=MIN_PLAYERS,
                count=len(players),
            ),
            code="TOO_FEW_PLAYERS",
            path=("players",),
        )
    if len(players) > MAX_PLAYERS:
        raise SetupError(
            N_("a table seats at most {max} players, not {count}").format(
                max=MAX_PLAYERS, count=len(players)
            ),
            code="TOO_MANY_PLAYERS",
            path=("players",),
        )
    for i, player in enumerate(players):
        if player in players[:i]:
            raise SetupError(
                N_("the player {player} is seated twice").format(player=player),
                code="DUPLICATE_PLAYER",
                path=("players", i),
            )
    return tuple(players)


@dataclass(frozen=True)
class BettingSetup:
    """The agreed conditions of a round (section 9 input); build it with ``create``."""

    players: tuple[str, ...]
    dealer: str
    ante: int
    minimum_stake: int
    maximum_stake: int | None

    @classmethod
    def create(
        cls,
        players: Sequence[str],
        dealer: str,
        ante: int,
        minimum_stake: int | None = None,
        maximum_stake: int | None = None,
    ) -> BettingSetup:
        """Validate the setup as a whole: a broken setup is refused, never judged (section 9)."""
        seats = _seats(players)
        if not isinstance(dealer, str) or dealer not in seats:
            raise SetupError(
                N_("the dealer {dealer} is not seated at this table").format(dealer=repr(dealer)),
                code="DEALER_NOT_SEATED",
                path=("dealer",),
            )
        ante = _money(ante, ("ante",), N_("the ante"))
        if ante * len(seats) > MAX_MONEY:
            raise SetupError(
                N_("{count} antes of {ante} are too large a pot to be counted exactly").format(
                    count=len(seats), ante=ante
                ),
                code="INVALID_AMOUNT",
                path=("ante",),
            )
        minimum = (
            ante
            if minimum_stake is None
            else _money(minimum_stake, ("minimum_stake",), N_("the minimum stake"))
        )
        maximum = (
            None
            if maximum_stake is None
            else _money(maximum_stake, ("maximum_stake",), N_("the maximum stake"))
        )
        if maximum is not None and maximum < minimum:
            raise SetupError(
                N_("the maximum stake {maximum} is below the minimum stake {minimum}").format(
                    maximum=maximum, minimum=minimum
                ),
                code="MAXIMUM_BELOW_MINIMUM",
                path=("maximum_stake",),
            )
        return cls(seats, dealer, ante, minimum, maximum)

    @property
    def acting_order(self) -> tuple[str, ...]:
        """Seats clockwise from the dealer's left: who acts first (9.2), odd chip (10)."""
        first = (self.players.index(self.dealer) + 1) % len(self.players)
        return self.players[first:] + self.players[:first]


@dataclass(frozen=True)
class BettingResult:
    """The verdict: ``state`` is after all actions if valid, else just before ``error``."""

    setup: BettingSetup
    valid: bool
    error: Violation | None
    state: BettingState
    trace: tuple[BettingState, ...] | None = None
    """When asked for: the state after each accepted action, in order (one per action if valid;
    as many as were accepted before ``error`` otherwise). The timeline of the round."""
    ruleset: Ruleset = CLASSIC
    """The ruleset the verdict names. No switch changes betting (docs/rules.md §13): every
    ruleset judges the same actions alike, and the verdict says which one the caller asked for."""


# --- parsing actions -------------------------------------------------------------------------

_ACTION_FIELDS: Final = frozenset(("player", "type", "amount"))
_NEEDS_AMOUNT: Final = {
    ActionType.STAKE: N_("action {number} is a stake and needs an amount"),
    ActionType.TOP_UP: N_("action {number} is a top-up and needs an amount"),
    ActionType.OPEN: N_("action {number} is an open and needs an amount"),
}

_Move = tuple[str, "_Kind", int | None]
"""A well-formed action as the replay consumes it: player, kind (from ``_KINDS``), amount."""


def _action_error(message: Message, *path: PathElement) -> SetupError:
    return SetupError(message, code="INVALID_ACTION", path=("actions", *path))


def _action_fields(raw: object, index: int) -> Mapping[str, object]:
    """Both spellings of an action (dataclass or wire mapping) as one mapping; no unknown keys."""
    if isinstance(raw, Action):
        return {"player": raw.player, "type": raw.type, "amount": raw.amount}
    if not isinstance(raw, Mapping):
        raise _action_error(N_("action {number} is not an object").format(number=index + 1), index)
    for key in raw:
        if key not in _ACTION_FIELDS:
            raise _action_error(
                N_("action {number} has an unknown field {key}").format(
                    number=index + 1, key=repr(key)
                ),
                index,
                str(key),
            )
    return raw


def _parse(raw: object, index: int) -> _Move:
    """One input action checked for shape, field by field: a ``_Move``, or a ``SetupError``.

    The wire's own form, a plain dict with no unknown field, skips the general checks of
    ``_action_fields``; the checks that follow, and so the errors, are the same for every form.
    """
    if type(raw) is dict and raw.keys() <= _ACTION_FIELDS:
        fields: Mapping[str, object] = raw
    else:
        fields = _action_fields(raw, index)
    player = fields.get("player")
    if not isinstance(player, str):
        raise _action_error(
            N_("action {number} needs the player's id").format(number=index + 1), index, "player"
        )
    value = fields.get("type")
    kind = _KINDS.get(value) if isinstance(value, str) else None
    if kind is None:
        raise _action_error(
            N_(
                "action {number} has the type {value}; the types are 'fold', 'stake', 'top_up' "
                "and 'open'"
            ).format(number=index + 1, value=repr(value)),
            index,
            "type",
        )
    amount = fields.get("amount")
    if not kind.pays:  # a fold carries no amount; every other action carries money (section 2)
        if amount is not None:
            raise _action_error(
                N_("action {number} is a fold and takes no amount").format(number=index + 1),
                index,
                "amount",
            )
        return player, kind, None
    if type(amount) is int and 0 < amount <= MAX_MONEY:  # plain money: the common case
        return player, kind, amount
    if amount is None:
        raise _action_error(_NEEDS_AMOUNT[kind.type].format(number=index + 1), index, "amount")
    return (
        player,
        kind,
        _money(
            amount,
            ("actions", index, "amount"),
            N_("the amount of action {number}").format(number=index + 1),
        ),
    )


def parse_action(raw: object, index: int) -> Action:
    """One input action as a well-formed ``Action``, or a ``SetupError`` pointing into it."""
    player, kind, amount = _parse(raw, index)
    return Action(player, kind.type, amount)


# --- the table -------------------------------------------------------------------------------

_BETTING: Final = Phase.BETTING  # the hot loop's alias: an enum attribute lookup is slow

_CLOCKWISE: Final = {
    n: tuple(tuple((seat + step) % n for step in range(1, n + 1)) for seat in range(n))
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}
"""For each table size, for each seat: the other seats clockwise after it, then itself."""


@dataclass(slots=True)
class _Table:
    """The round while it is replayed. Only the apply functions below mutate it.

    ``debtor`` is who owes a top-up of ``owed`` now (rule 9.4), or None; once it is paid or folded,
    play resumes after ``raiser``. ``clockwise[s]`` lists the other seats clockwise after seat
    ``s``, then ``s`` itself, and ``in_count`` counts the seats not folded: the turn arithmetic is
    done once, not per action.
    """

    setup: BettingSetup
    contributed: list[int]
    folded: list[bool]
    pot: int
    to_act: int | None
    seat_of: dict[str, int]
    clockwise: tuple[tuple[int, ...], ...]
    in_count: int
    phase: Phase = Phase.BETTING
    current_stake: int | None = None
    stake_maker: int | None = None
    debtor: int | None = None
    owed: int = 0
    raiser: int = 0
    showdown: tuple[int, int] | None = None
    winner: int | None = None

    @classmethod
    def start(cls, setup: BettingSetup) -> _Table:
        """Rules 9.1 and 9.2: everyone antes, the dealer's left acts first."""
        n = len(setup.players)
        first = (setup.players.index(setup.dealer) + 1) % n
        return cls(
            setup,
            [setup.ante] * n,
            [False] * n,
            setup.ante * n,
            first,
            seat_of={p: i for i, p in enumerate(setup.players)},
            clockwise=_CLOCKWISE[n],
            in_count=n,
        )

    def name(self, seat: int) -> str:
        return self.setup.players[seat]

    def remaining(self) -> list[int]:
        return [seat for seat, out in enumerate(self.folded) if not out]

    def next_in(self, after: int) -> int:
        """The next seat clockwise after ``after`` that has not folded (rule 9.2)."""
        folded = self.folded
        for seat in self.clockwise[after]:
            if not folded[seat]:
                return seat
        raise AssertionError("no player left in")  # pragma: no cover - callers keep two in

    def fits(self, amount: int) -> bool:
        """Rule 9.8: can the pot take ``amount`` more?"""
        return self.pot + amount <= MAX_MONEY

    def stake_floor(self) -> int:
        """Rule 9.3: the minimum stake first, the current stake afterwards."""
        return self.setup.minimum_stake if self.current_stake is None else self.current_stake

    def stake_ceiling(self) -> int:
        """The largest stake both the maximum stake and the pot limit allow."""
        cap = MAX_MONEY if self.setup.maximum_stake is None else self.setup.maximum_stake
        return min(cap, MAX_MONEY - self.pot)

    def may_open(self) -> bool:
        """Rule 9.5, apart from the amount: two players in and a stake already made."""
        return self.in_count == 2 and self.current_stake is not None

    def pay(self, seat: int, amount: int) -> None:
        self.contributed[seat] += amount
        self.pot += amount

    def pass_turn(self, after: int) -> None:
        """Pass the turn clockwise, or end the round uncontested when one player is left (9.6)."""
        if self.in_count == 1:
            self.phase, self.winner, self.to_act = Phase.UNCONTESTED, self.folded.index(False), None
        else:
            self.to_act = self.next_in(after)


# --- checks: pure, one per action kind -------------------------------------------------------

Refusal = tuple[ReasonCode, Message]
_Check = Callable[[_Table, int, int | None], Refusal | None]


def _pot_limit(table: _Table, amount: int) -> Refusal | None:
    if table.fits(amount):
        return None
    return (
        ReasonCode.POT_LIMIT_EXCEEDED,
        N_("the pot holds {pot}; {amount} more would be too large to count exactly").format(
            pot=table.pot, amount=amount
        ),
    )


def _check_fold(table: _Table, seat: int, amount: int | None) -> Refusal | None:
    """Folding is always open to the player to act (rules 9.3, 9.4)."""
    return None


def _check_stake(table: _Table, seat: int, amount: int | None) -> Refusal | None:
    assert amount is not None
    floor = table.stake_floor()
    if amount < floor:
        if table.current_stake is None:
            return (
                ReasonCode.STAKE_BELOW_MINIMUM,
                N_(
                    "the first stake must be at least the minimum stake {floor}, not {amount}"
                ).format(floor=floor, amount=amount),
            )
        return (
            ReasonCode.STAKE_BELOW_PREVIOUS,
            N_("a stake must be at least the current stake {floor}, not {amount}").format(
                floor=floor, amount=amount
            ),
        )
    cap = table.setup.maximum_stake
    if cap is not None and amount > cap:
        return (
            ReasonCode.STAKE_ABOVE_MAXIMUM,
            N_("a stake of {amount} is above the maximum stake {cap}").format(
                amount=amount, cap=cap
            ),
        )
    return _pot_limit(table, amount)


def _check_top_up(table: _Table, seat: int, amount: int | None) -> Refusal | None:
    assert amount is not None
    if table.debtor is None:
        return (
            ReasonCode.NO_TOP_UP_OWED,
            N_("{player} owes no top-up").format(player=table.name(seat)),
        )
    owed = table.owed
    if amount != owed:
        return (
            ReasonCode.WRONG_TOP_UP_AMOUNT,
            N_("{player} owes a top-up of exactly {owed}, not {amount}").format(
                player=table.name(seat), owed=owed, amount=amount
            ),
        )
    return _pot_limit(table, amount)


def _check_open(table: _Table, seat: int, amount: int | None) -> Refusal | None:
    assert amount is not None
    if not table.may_open():
        why = (
            N_("opening needs a stake, and none has been made yet")
            if table.current_stake is None
            else N_("opening needs exactly two players in, and {count} are still in").format(
                count=table.in_count
            )
        )
        return ReasonCode.OPEN_NOT_ALLOWED, why
    if amount != table.current_stake:
        return (
            ReasonCode.WRONG_OPEN_AMOUNT,
            N_("opening costs exactly the current stake {stake}, not {amount}").format(
                stake=table.current_stake, amount=amount
            ),
        )
    return _pot_limit(table, amount)


def _refuse_turn(table: _Table, seat: int) -> Refusal:
    """Rules 9.2 and 9.4: only the player to act may act; a debtor may only top up or fold."""
    to_act = table.to_act
    assert to_act is not None
    debt = table.debtor is not None
    if seat != to_act:
        words = (
            N_("{player} acted out of turn: it is {other}'s turn (to top up {owed} or fold)")
            if debt
            else N_("{player} acted out of turn: it is {other}'s turn")
        )
        return (
            ReasonCode.NOT_YOUR_TURN,
            words.format(player=table.name(seat), other=table.name(to_act), owed=table.owed),
        )
    return (
        ReasonCode.TOP_UP_REQUIRED,
        N_("{player} owes a top-up of {owed}: top up or fold first").format(
            player=table.name(seat), owed=table.owed
        ),
    )


def _round_over(table: _Table) -> Refusal:
    if table.showdown is not None:
        a, b = table.showdown
        ended = N_(
            "the betting has ended in a showdown between {first} and {second}; no action is "
            "legal after that (rule 9.7)"
        ).format(first=table.name(a), second=table.name(b))
    else:
        assert table.winner is not None
        ended = N_(
            "the betting has ended with {winner} winning uncontested; no action is legal after "
            "that (rule 9.7)"
        ).format(winner=table.name(table.winner))
    return ReasonCode.ROUND_OVER, ended


def _judge(
    table: _Table, player: str, seat: int | None, kind: _Kind, amount: int | None
) -> Refusal | None:
    """The one order of checks (see Decisions): who, whether the round is on, whose turn, what."""
    if seat is None:
        return (
            ReasonCode.UNKNOWN_PLAYER,
            N_("{player} is not seated at this table").format(player=repr(player)),
        )
    if table.phase is not _BETTING:
        return _round_over(table)
    if seat != table.to_act or (table.debtor is not None and not kind.debtor_may):
        return _refuse_turn(table, seat)
    return kind.check(table, seat, amount)


# --- applies: the only mutations, one per action kind ----------------------------------------

_Apply = Callable[[_Table, int, int | None], None]


def _apply_fold(table: _Table, seat: int, amount: int | None) -> None:
    """A debtor's fold resumes play after the raiser (9.4); any other fold after the folder."""
    table.folded[seat] = True
    table.in_count -= 1
    resume_after = seat if table.debtor is None else table.raiser
    table.debtor = None
    table.pass_turn(resume_after)


def _apply_stake(table: _Table, seat: int, amount: int | None) -> None:
    """Rules 9.3 and 9.4: a stake above the current one makes the previous staker owe at once."""
    assert amount is not None
    table.pay(seat, amount)
    previous, previous_maker = table.current_stake, table.stake_maker
    table.current_stake, table.stake_maker = amount, seat
    if previous is not None and amount > previous:
        assert previous_maker is not None
        table.debtor, table.owed, table.raiser = previous_maker, amount - previous, seat
        table.to_act = previous_maker
    else:
        table.pass_turn(seat)


def _apply_top_up(table: _Table, seat: int, amount: int | None) -> None:
    assert amount is not None and table.debtor is not None
    table.pay(seat, amount)
    table.debtor = None
    table.pass_turn(table.raiser)


def _apply_open(table: _Table, seat: int, amount: int | None) -> None:
    """Rule 9.5: the opener matches the current stake and the two still in go to a showdown."""
    assert amount is not None
    table.pay(seat, amount)
    order = table.setup.acting_order
    a, b = sorted(table.remaining(), key=lambda s: order.index(table.name(s)))
    table.phase, table.showdown, table.to_act = Phase.SHOWDOWN, (a, b), None


# --- action kinds: the wire type mapped once to its rules ------------------------------------


@dataclass(frozen=True, slots=True)
class _Kind:
    """One action kind: its check and apply, whether it carries money, whether a debtor may."""

    type: ActionType
    check: _Check
    apply: _Apply
    pays: bool
    debtor_may: bool


_KINDS: Final[dict[str, _Kind]] = {
    kind.type: kind
    for kind in (
        _Kind(ActionType.FOLD, _check_fold, _apply_fold, pays=False, debtor_may=True),
        _Kind(ActionType.STAKE, _check_stake, _apply_stake, pays=True, debtor_may=False),
        _Kind(ActionType.TOP_UP, _check_top_up, _apply_top_up, pays=True, debtor_may=True),
        _Kind(ActionType.OPEN, _check_open, _apply_open, pays=True, debtor_may=False),
    )
}
"""Keyed by the wire string; an ``ActionType`` is a ``str`` and finds its kind the same way."""


# --- snapshots -------------------------------------------------------------------------------


def _legal_actions(table: _Table) -> tuple[LegalAction, ...]:
    """What the player to act may do, from the same bounds the checks enforce."""
    if table.phase is not Phase.BETTING:
        return ()
    legal = [LegalAction(ActionType.FOLD)]
    if table.debtor is not None:
        if table.fits(table.owed):
            legal.append(LegalAction(ActionType.TOP_UP, amount=table.owed))
        return tuple(legal)
    floor, ceiling = table.stake_floor(), table.stake_ceiling()
    if floor <= ceiling:
        legal.append(LegalAction(ActionType.STAKE, min=floor, max=ceiling))
    current = table.current_stake
    if table.may_open() and current is not None and table.fits(current):
        legal.append(LegalAction(ActionType.OPEN, amount=current))
    return tuple(legal)


def _snapshot(table: _Table) -> BettingState:
    names = table.setup.players
    return BettingState(
        phase=table.phase,
        pot=table.pot,
        current_stake=table.current_stake,
        players=tuple(
            PlayerState(names[i], table.contributed[i], table.folded[i]) for i in range(len(names))
        ),
        to_act=None if table.to_act is None else names[table.to_act],
        top_up_pending=table.debtor is not None,
        legal_actions=_legal_actions(table),
        showdown=None
        if table.showdown is None
        else (names[table.showdown[0]], names[table.showdown[1]]),
        winner=None if table.winner is None else names[table.winner],
    )


def _replay(
    setup: BettingSetup,
    moves: Iterable[_Move],
    *,
    trace: bool = False,
    ruleset: Ruleset = CLASSIC,
) -> BettingResult:
    """Judge moves in order on a mutable table; snapshot once, at the end or at the refusal
    (and after every accepted move when a ``trace`` is asked for)."""
    table = _Table.start(setup)
    seat_of = table.seat_of
    states: list[BettingState] | None = [] if trace else None
    for index, (player, kind, amount) in enumerate(moves):
        seat = seat_of.get(player)
        refusal = _judge(table, player, seat, kind, amount)
        if refusal is not None:
            code, message = refusal
            violation = Violation(index, code, message)
            return BettingResult(
                setup, False, violation, _snapshot(table), _frozen(states), ruleset
            )
        assert seat is not None
        kind.apply(table, seat, amount)
        if states is not None:
            states.append(_snapshot(table))
    return BettingResult(setup, True, None, _snapshot(table), _frozen(states), ruleset)


def _frozen(states: list[BettingState] | None) -> tuple[BettingState, ...] | None:
    return None if states is None else tuple(states)


def replay(setup: BettingSetup, actions: Sequence[Action], *, trace: bool = False) -> BettingResult:
    """Judge well-formed actions in order, stopping at the first illegal one."""
    return _replay(setup, ((a.player, _KINDS[a.type], a.amount) for a in actions), trace=trace)


def validate_betting(
    players: Sequence[str],
    dealer: str,
    ante: int,
    actions: Iterable[Action | Mapping[str, object]],
    minimum_stake: int | None = None,
    maximum_stake: int | None = None,
    *,
    trace: bool = False,
    ruleset: Ruleset | str | Mapping[str, object] | None = None,
) -> BettingResult:
    """Section 9 end to end: refuse malformed input, then judge the actions as a verdict
    (``trace``: with the state after each accepted action, ``BettingResult.trace``).

    The replay is the hot path: each action's wire type is mapped once, while its shape is
    checked, to its kind (``_KINDS``: its check and apply), the actions are replayed as plain
    tuples on a slotted table, and the frozen snapshot is built once, after the last action or
    just before the first illegal one (``BettingResult.state``)."""
    rules = resolve_ruleset(ruleset)
    setup = BettingSetup.create(players, dealer, ante, minimum_stake, maximum_stake)
    if isinstance(actions, str | bytes | Mapping) or not isinstance(actions, Iterable):
        raise SetupError(N_("the actions must be a list"), code="INVALID_ACTION", path=("actions",))
    moves = [_parse(raw, index) for index, raw in enumerate(actions)]  # all shapes first
    return _replay(setup, moves, trace=trace, ruleset=rules)
