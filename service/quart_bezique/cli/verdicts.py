"""The adjudicating commands: each builds the request body the HTTP API would be sent, judges it
as that endpoint does (its schema with the service's default limits, then the core), and renders
the verdict both ways (the API's JSON answer, and a table for people).

The JSON is the HTTP answer's: the same ``quart_bezique.wire.render`` functions plus
``ruleset``, serialised by orjson as the API does, so ``--json`` prints the very bytes the
service answers (and whose SHA-256 a receipt records). A refusal is the API's problem document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from quart_bezique.game.errors import RulesError
from quart_bezique.game.ruleset import RULESET
from quart_bezique.wire import calls, render

from . import human
from .problems import ExitCode


@dataclass(frozen=True, slots=True)
class Outcome:
    """A verdict: the API's JSON payload, its human form, and the exit code it means."""

    payload: Any
    text: str
    exit: ExitCode = ExitCode.OK


def contract() -> ModuleType:
    """``quart_bezique.cli.contract``, imported on first use: the schemas cost a command that only
    prints a JWKS or a digest nothing."""
    from . import contract as module

    return module


def read_body(data: bytes, where: str) -> Any:
    """A request body read as the service reads it (``contract.read_body``)."""
    return contract().read_body(data, where)


def _judged(call: Callable[[Any], Any], body: Any) -> Any:
    """Run the core on an accepted body as the API's endpoint does (``wire.calls``); its
    refusals are the API's 422, pointing where the endpoint's would."""
    try:
        return call(body)
    except RulesError as error:
        raise contract().rules_refusal(error) from None


def _accepted(schema: Callable[[Any], type[Any]], body: Any) -> Any:
    rules = contract()
    return rules.accepted(schema(rules.SCHEMAS), body)


def score(cards: Sequence[str], trump: str | None, voice: human.Voice) -> Outcome:
    """``POST /v1/hands/score``."""
    body: dict[str, Any] = {"cards": list(cards)}
    if trump is not None:
        body["trump"] = trump
    hand = _judged(calls.score, _accepted(lambda s: s.hand, body))
    payload = render.scored_hand(hand)
    payload["ruleset"] = RULESET
    return Outcome(payload, human.scored(hand, RULESET, voice))


def compare(
    first: Sequence[str],
    second: Sequence[str],
    trump: str | None,
    players: Sequence[str],
    voice: human.Voice,
) -> Outcome:
    """``POST /v1/showdown``."""
    body: dict[str, Any] = {
        "hands": [
            {"player": player, "cards": list(cards)}
            for player, cards in zip(players, (first, second), strict=True)
        ]
    }
    if trump is not None:
        body["trump"] = trump
    b = _accepted(lambda s: s.showdown, body)
    one, two = b["hands"]
    result = _judged(calls.showdown, b)
    names = (one["player"], two["player"])
    payload = render.showdown(result, names)
    payload["ruleset"] = RULESET
    return Outcome(payload, human.showdown(result, names, RULESET, voice))


def validate(body: Any, voice: human.Voice) -> Outcome:
    """``POST /v1/betting/validate``: an illegal sequence is a verdict, exit 1."""
    result = _judged(calls.betting, _accepted(lambda s: s.betting, body))
    payload = render.betting(result)
    payload["ruleset"] = RULESET
    status = ExitCode.OK if result.valid else ExitCode.REFUSED
    return Outcome(payload, human.betting(result, RULESET, voice), status)


def settle(body: Any, voice: human.Voice) -> Outcome:
    """``POST /v1/rounds/settle``: a round that cannot be settled is refused (exit 2), as the
    API refuses it with 422."""
    result = _judged(calls.settle, _accepted(lambda s: s.settle, body))
    payload = render.settlement(result)
    payload["ruleset"] = RULESET
    return Outcome(payload, human.settlement(result, RULESET, voice))


def odds(
    cards: Sequence[str],
    trump: str | None,
    seen: Sequence[str],
    opponents: int,
    samples: int,
    seed: int,
    voice: human.Voice,
) -> Outcome:
    """``POST /v1/hands/odds``."""
    body: dict[str, Any] = {
        "cards": list(cards),
        "seen": list(seen),
        "opponents": opponents,
        "samples": samples,
        "seed": seed,
    }
    if trump is not None:
        body["trump"] = trump
    loaded = contract().loaded(contract().SCHEMAS.odds, body)  # the odds endpoint always loads
    result = _judged(calls.odds, loaded)
    return Outcome(render.odds(result), human.odds(result, RULESET, voice))
