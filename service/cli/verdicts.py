"""The adjudicating commands: the library API called as the HTTP API calls it, each verdict
rendered both ways (the API's JSON answer, and a table for people).

The JSON is the HTTP answer's: the same ``service.api.contract.render`` functions (they import
no Flask)
plus ``ruleset``, serialised by orjson as the API does, so ``--json`` prints the very bytes the
service answers (and whose SHA-256 a receipt records).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from service import compare_hands, hand_odds, score_hand, settle_round, validate_betting
from service.api.contract import render
from service.game.cards import TrumpError
from service.game.errors import PathElement, RulesError
from service.game.ruleset import RULESET

from . import human
from .problems import CliError, ExitCode


@dataclass(frozen=True, slots=True)
class Outcome:
    """A verdict: the API's JSON payload, its human form, and the exit code it means."""

    payload: Any
    text: str
    exit: ExitCode = ExitCode.OK


VALIDATE_FIELDS: Final = frozenset(
    {"players", "dealer", "ante", "actions", "minimum_stake", "maximum_stake"}
)
SETTLE_FIELDS: Final = VALIDATE_FIELDS | {"hands", "trump"}
REQUIRED_FIELDS: Final = ("players", "dealer", "ante")
_SHAPE_ERRORS: Final = (TypeError, KeyError, AttributeError, IndexError, ValueError)


def _judged(call: Callable[[], Any], anchor: Callable[[RulesError], RulesError]) -> Any:
    """Run the core; its refusals become the API's problem, anchored as the API anchors them."""
    try:
        return call()
    except RulesError as error:
        raise CliError.rules(anchor(error)) from None
    except _SHAPE_ERRORS as error:  # a shape the API's schema would have refused first
        raise CliError.validation("", f"not a request the rules can judge ({error})") from None


def score(cards: Sequence[str], trump: str | None) -> Outcome:
    def anchor(error: RulesError) -> RulesError:
        return error.at("trump" if isinstance(error, TrumpError) else "cards")

    hand = _judged(lambda: score_hand(cards, trump), anchor)
    payload = render.scored_hand(hand)
    payload["ruleset"] = RULESET
    return Outcome(payload, human.scored(hand, RULESET))


def compare(
    first: Sequence[str], second: Sequence[str], trump: str | None, players: Sequence[str]
) -> Outcome:
    def anchor(error: RulesError) -> RulesError:
        """As the API's showdown view: a hand's index then a card's; a trump is ``/trump``."""
        path: tuple[PathElement, ...] = error.path
        if isinstance(error, TrumpError):
            error.path = ("trump",)
        elif path and isinstance(path[0], int):
            error.path = ("hands", path[0], "cards", *path[1:])
        else:
            error.path = ("hands", *path)
        return error

    result = _judged(lambda: compare_hands(first, second, trump), anchor)
    payload = render.showdown(result, players)
    payload["ruleset"] = RULESET
    return Outcome(payload, human.showdown(result, players, RULESET))


def _check_fields(body: Any, allowed: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise CliError.validation("", "the request must be a JSON object")
    for name in sorted(body):
        if name not in allowed:
            raise CliError.validation(f"/{name}", "Unknown field.")
    for name in REQUIRED_FIELDS:
        if name not in body:
            raise CliError.validation(f"/{name}", "Missing data for required field.")
    return body


def _rooted(error: RulesError) -> RulesError:
    return error


def validate(body: Any) -> Outcome:
    """``POST /v1/betting/validate``: an illegal sequence is a verdict, exit 1."""
    b = _check_fields(body, VALIDATE_FIELDS)
    result = _judged(
        lambda: validate_betting(
            b["players"],
            b["dealer"],
            b["ante"],
            b.get("actions", ()),
            b.get("minimum_stake"),
            b.get("maximum_stake"),
        ),
        _rooted,
    )
    payload = render.betting(result)
    payload["ruleset"] = RULESET
    status = ExitCode.OK if result.valid else ExitCode.REFUSED
    return Outcome(payload, human.betting(result, RULESET), status)


def settle(body: Any) -> Outcome:
    """``POST /v1/rounds/settle``: a round that cannot be settled is refused (exit 2), as the
    API refuses it with 422."""
    b = _check_fields(body, SETTLE_FIELDS)
    result = _judged(
        lambda: settle_round(
            b["players"],
            b["dealer"],
            b["ante"],
            b.get("actions", ()),
            b.get("hands"),
            trump=b.get("trump"),
            minimum_stake=b.get("minimum_stake"),
            maximum_stake=b.get("maximum_stake"),
        ),
        _rooted,
    )
    payload = render.settlement(result)
    payload["ruleset"] = RULESET
    return Outcome(payload, human.settlement(result, RULESET))


def odds(
    cards: Sequence[str],
    trump: str | None,
    seen: Sequence[str],
    opponents: int,
    samples: int,
    seed: int,
) -> Outcome:
    """``POST /v1/hands/odds``."""
    result = _judged(
        lambda: hand_odds(cards, trump, seen, opponents, samples=samples, seed=seed), _rooted
    )
    return Outcome(render.odds(result), human.odds(result, RULESET))
