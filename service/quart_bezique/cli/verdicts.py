"""The adjudicating commands: each builds the request body the HTTP API would be sent, judges it
as that endpoint does (its schema with the service's default limits, then the core), and renders
the verdict both ways (the API's JSON answer, and a table for people).

The JSON is the HTTP answer's (``quart_bezique.wire.render``, stamped with the ruleset followed),
serialised by orjson as the API does, so ``--json`` prints the very bytes the service answers. A
refusal is the API's problem document. ``--ruleset SPEC`` becomes the body's ``ruleset`` member
(docs/verification.md, "The command line: `quart-bezique`"); without it, the body has none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from quart_bezique.game.errors import RulesError
from quart_bezique.game.messages import N_
from quart_bezique.game.ruleset import Ruleset, RulesetError, resolve_ruleset
from quart_bezique.wire import calls, render
from quart_bezique.wire.rulesets import rulesets_document

from . import human
from .problems import CliError, ExitCode

Spec = str | dict[str, Any]
"""What ``--ruleset`` puts in a body: a preset's name or an id as written, or a parsed object."""


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


def ruleset_spec(text: str) -> Spec:
    """``--ruleset``'s value as the body's member: a JSON object when it starts with ``{``
    (read as strictly as a body: a repeated switch is refused), else the text as given (a
    preset's name or an id, which the core reads)."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        spec = contract().parse_json_input(text.encode("utf-8", "surrogateescape"))
    except CliError as error:
        reason = error.problem.detail if error.problem is not None else error.document["detail"]
        raise _refused_ruleset(
            RulesetError(
                N_(
                    "--ruleset starts like a JSON object but cannot be read as one ({reason}); "
                    "give a preset's name, a ruleset id or a JSON object of switches"
                ).format(reason=reason),
                code="INVALID_RULESET",
                path=("ruleset",),
            )
        ) from None
    assert isinstance(spec, dict)  # JSON text starting with { is an object or no JSON at all
    return spec


def resolved(spec: object) -> Ruleset:
    """The ruleset ``spec`` names, or the API's 422 for it (the core's code, a pointer into
    ``/ruleset``)."""
    try:
        return resolve_ruleset(spec)  # type: ignore[arg-type]  # the core refuses other types
    except RulesetError as error:
        raise _refused_ruleset(error) from None


def _refused_ruleset(error: RulesetError) -> CliError:
    """Refused as the service refuses a body's ruleset: its field's 422."""
    refusal: CliError = contract().field_refusal(error)
    return refusal


def _judged(call: Callable[[Any], Any], body: Any) -> Any:
    """Run the core on an accepted body as the API's endpoint does (``wire.calls``); its
    refusals are the API's 422, pointing where the endpoint's would (the schema has read the
    body's ruleset already, as the endpoint's ``RulesetField`` does)."""
    try:
        return call(body)
    except RulesError as error:
        raise contract().rules_refusal(error) from None


def _named(body: Any) -> bool:
    """Whether the request named a ruleset, so the answer gives its digest (``render.stamped``)."""
    return isinstance(body, dict) and "ruleset" in body


def _with_ruleset(body: Any, spec: Spec | None) -> Any:
    """``body`` with ``--ruleset``'s member (it replaces one the file has); a body that is not
    an object is left for the schema to refuse."""
    if spec is None or not isinstance(body, dict):
        return body
    return {**body, "ruleset": spec}


def _accepted(schema: Callable[[Any], type[Any]], body: Any) -> Any:
    rules = contract()
    return rules.accepted(schema(rules.SCHEMAS), body)


def score(
    cards: Sequence[str], trump: str | None, voice: human.Voice, ruleset: Spec | None = None
) -> Outcome:
    """``POST /v1/hands/score``."""
    body: dict[str, Any] = {"cards": list(cards)}
    if trump is not None:
        body["trump"] = trump
    b = _accepted(lambda s: s.hand, _with_ruleset(body, ruleset))
    hand = _judged(calls.score, b)
    payload = render.stamped(render.scored_hand(hand), hand.ruleset, _named(b))
    return Outcome(payload, human.scored(hand, hand.ruleset.id, voice))


def compare(
    first: Sequence[str],
    second: Sequence[str],
    trump: str | None,
    players: Sequence[str],
    voice: human.Voice,
    ruleset: Spec | None = None,
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
    b = _accepted(lambda s: s.showdown, _with_ruleset(body, ruleset))
    one, two = b["hands"]
    result = _judged(calls.showdown, b)
    names = (one["player"], two["player"])
    payload = render.stamped(render.showdown(result, names), result.ruleset, _named(b))
    return Outcome(payload, human.showdown(result, names, result.ruleset.id, voice))


def validate(body: Any, voice: human.Voice, ruleset: Spec | None = None) -> Outcome:
    """``POST /v1/betting/validate``: an illegal sequence is a verdict, exit 1."""
    b = _accepted(lambda s: s.betting, _with_ruleset(body, ruleset))
    result = _judged(calls.betting, b)
    payload = render.stamped(render.betting(result), result.ruleset, _named(b))
    status = ExitCode.OK if result.valid else ExitCode.REFUSED
    return Outcome(payload, human.betting(result, result.ruleset.id, voice), status)


def settle(body: Any, voice: human.Voice, ruleset: Spec | None = None) -> Outcome:
    """``POST /v1/rounds/settle``: a round that cannot be settled is refused (exit 2), as the
    API refuses it with 422."""
    b = _accepted(lambda s: s.settle, _with_ruleset(body, ruleset))
    result = _judged(calls.settle, b)
    named = _named(b)
    payload = render.stamped(render.settlement(result, named), result.ruleset, named)
    return Outcome(payload, human.settlement(result, result.ruleset.id, voice))


def odds(
    cards: Sequence[str],
    trump: str | None,
    seen: Sequence[str],
    opponents: int,
    samples: int,
    seed: int,
    voice: human.Voice,
    ruleset: Spec | None = None,
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
    rules = contract()  # the odds endpoint always loads (the schema fills in the defaults)
    loaded = rules.loaded(rules.SCHEMAS.odds, _with_ruleset(body, ruleset))
    result = _judged(calls.odds, loaded)
    return Outcome(
        render.odds(result, _named(loaded)), human.odds(result, result.ruleset.id, voice)
    )


def rulesets(voice: human.Voice) -> Outcome:
    """``GET /v1/rulesets``: the presets and switches a ``--ruleset`` may name."""
    document = rulesets_document()
    return Outcome(document, human.rulesets(document, voice))
