"""A whole round judged at once: every hand, the betting, the showdown, the settlement, and the
platform's claim against them (docs/round-record.md, "How a record is judged").

A record that cannot be read is refused (``RecordError``); everything a well-formed record says
about play is a verdict, never an exception: an illegal action or an unfinished betting leaves
the settlement out and says why in the betting verdict. The claim is compared with the
reference in the settlement answer's own wire shape, member by member, so a difference is named
by a JSON pointer into the claim the platform wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from quart_bezique.api.config import Config
from quart_bezique.game.betting import BettingResult, Phase, validate_betting
from quart_bezique.game.errors import json_pointer
from quart_bezique.game.ruleset import Ruleset
from quart_bezique.game.scoring import HandScore, score_hand
from quart_bezique.game.settlement import Settlement, settle
from quart_bezique.game.showdown import Showdown
from quart_bezique.wire import render

from .record import RoundRecord, read_record


@dataclass(frozen=True, slots=True)
class Difference:
    """One member where the claim and the reference differ."""

    field: str
    """A JSON pointer into the claim (``""``: the whole claim, when nothing was settled)."""
    claimed: Any
    reference: Any
    """The reference value in wire form (null where the reference has none)."""


@dataclass(frozen=True, slots=True)
class RoundVerdict:
    record: RoundRecord
    hands: tuple[tuple[str, HandScore], ...]
    """Every seated hand under the record's trump and ruleset, in seat order."""
    betting: BettingResult
    settlement: Settlement | None
    """None unless the betting is valid and finished."""
    differences: tuple[Difference, ...] | None
    """None when the record claims nothing."""

    @property
    def ruleset(self) -> Ruleset:
        return self.record.ruleset

    @property
    def showdown(self) -> Showdown | None:
        return None if self.settlement is None else self.settlement.showdown

    @property
    def settled(self) -> bool:
        return self.settlement is not None

    @property
    def matches(self) -> bool | None:
        """Whether the claim is the reference outcome (None without a claim)."""
        return None if self.differences is None else not self.differences


def adjudicate_record(
    record: RoundRecord | Any, *, trace: bool = False, config: Config | None = None
) -> RoundVerdict:
    """The verdict on ``record`` (a ``RoundRecord``, or parsed JSON read by ``read_record``);
    ``trace``: the betting verdict keeps the state after each accepted action."""
    if not isinstance(record, RoundRecord):
        record = read_record(record, config)
    rules = record.ruleset
    hands = tuple(
        (player, score_hand(cards, record.trump, rules)) for player, cards in record.hands.items()
    )
    betting = validate_betting(
        record.players,
        record.dealer,
        record.ante,
        record.actions,
        record.minimum_stake,
        record.maximum_stake,
        trace=trace,
        ruleset=rules,
    )
    settlement = None
    if betting.valid and betting.state.phase is not Phase.BETTING:
        shown = betting.state.showdown or ()
        settlement = settle(betting, {p: record.hands[p] for p in shown}, record.trump, rules)
    differences = None
    if record.claimed is not None:
        differences = tuple(compare_claim(record.claimed, reference(settlement, hands)))
    return RoundVerdict(record, hands, betting, settlement, differences)


def reference(
    settlement: Settlement | None, hands: Sequence[tuple[str, HandScore]]
) -> dict[str, Any] | None:
    """What a claim is compared with: the settlement answer (``carried`` always) and every
    seated hand's score; None when the round was not settled."""
    if settlement is None:
        return None
    out = render.settlement(settlement, named=True)
    out["scores"] = {player: hand.score for player, hand in hands}
    return out


def compare_claim(claimed: Mapping[str, Any], ref: Mapping[str, Any] | None) -> list[Difference]:
    """Every member of ``claimed`` that differs from ``ref``, in the claim's order. Without a
    reference (nothing settled) a claim is wrong as a whole."""
    if ref is None:
        return [Difference("", _plain(claimed), None)]
    found: list[Difference] = []
    _compare(claimed, ref, (), found)
    return found


_BY_PLAYER: Final = frozenset({("players",), ("showdown", "hands")})
"""Lists of per-player entries: matched by player id, so a claim in another order still names
the member that differs, not every entry after it."""


def _compare(claim: Any, ref: Any, path: tuple[str | int, ...], found: list[Difference]) -> None:
    named = tuple(p for p in path if isinstance(p, str))
    if isinstance(claim, Mapping) and isinstance(ref, Mapping):
        for key, value in claim.items():
            _compare(value, ref.get(key), (*path, key), found)
        return
    if named in _BY_PLAYER and _same_players(claim, ref):
        by_player = {entry["player"]: entry for entry in ref}
        for index, entry in enumerate(claim):
            _compare(entry, by_player[entry["player"]], (*path, index), found)
        return
    if not _equal(claim, ref):
        found.append(Difference(json_pointer(path), _plain(claim), ref))


def _same_players(claim: Any, ref: Any) -> bool:
    """Both lists of per-player entries, naming the same players once each."""
    if not isinstance(claim, list) or not isinstance(ref, list):
        return False
    players = [str(entry["player"]) for entry in claim if isinstance(entry, Mapping)]
    theirs = [str(entry["player"]) for entry in ref]
    return len(players) == len(claim) == len(set(players)) and sorted(players) == sorted(theirs)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def _plain(value: Any) -> Any:
    """A loaded claim value as JSON (mappings and lists copied)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
