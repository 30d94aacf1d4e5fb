"""What each verdict endpoint answers to a body, without HTTP: the same call of the core
(``wire.calls``) and the same rendering (``wire.render``) the endpoints use, so a vector's answer
is the service's answer by construction, and a refusal is the 422's code and pointer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from quart_bezique.game.errors import RulesError
from quart_bezique.rounds import RecordError, adjudicate_record
from quart_bezique.rounds import render as rounds_render
from quart_bezique.wire import calls, render
from quart_bezique.wire.canonical import (
    BETTING_PATH,
    ROUND_PATH,
    SCORE_PATH,
    SETTLE_PATH,
    SHOWDOWN_PATH,
)

from .digests import line


def score(body: Any) -> dict[str, Any]:
    """``POST /v1/hands/score``."""
    result = calls.score(body)
    return render.stamped(render.scored_hand(result), result.ruleset, "ruleset" in body)


def showdown(body: Any) -> dict[str, Any]:
    """``POST /v1/showdown``: the players name the hands, in the order sent."""
    first, second = body["hands"]
    result = calls.showdown(body)
    out = render.showdown(result, (first["player"], second["player"]))
    return render.stamped(out, result.ruleset, "ruleset" in body)


def betting(body: Any) -> dict[str, Any]:
    """``POST /v1/betting/validate``: an illegal sequence is an answer, not a refusal."""
    result = calls.betting(body)
    return render.stamped(render.betting(result), result.ruleset, "ruleset" in body)


def settlement(body: Any) -> dict[str, Any]:
    """``POST /v1/rounds/settle``."""
    result = calls.settle(body)
    named = "ruleset" in body
    return render.stamped(render.settlement(result, named), result.ruleset, named)


def round_record(body: Any) -> dict[str, Any]:
    """``POST /v1/rounds/adjudicate``: ``trace`` is the request's option, not the record's."""
    record = dict(body)
    trace = record.pop("trace", False) is True
    return rounds_render.verdict(adjudicate_record(record, trace=trace))


Endpoint = Callable[[Any], dict[str, Any]]

PATHS: Final[dict[str, str]] = {
    "scores.jsonl": SCORE_PATH,
    "showdowns.jsonl": SHOWDOWN_PATH,
    "betting.jsonl": BETTING_PATH,
    "settlements.jsonl": SETTLE_PATH,
    "rounds.jsonl": ROUND_PATH,
}
"""The endpoint every file's requests are for (docs/conformance.md)."""


def case(body: dict[str, Any], endpoint: Endpoint) -> dict[str, Any]:
    """One vector: the request with its ``answer`` (HTTP 200) or its ``refusal`` (HTTP 422 from
    the rules: the problem's ``code`` and its first error's ``pointer``; for a round record,
    also ``error``, that error's own code, since the reader's refusals share one problem code).
    The answer is to the request as its line reads back (keys sorted), the very body a client
    would post."""
    body = json.loads(line(body))
    try:
        return {"request": body, "answer": endpoint(body)}
    except RecordError as error:  # a round record's reader: its problem, and its first error
        problem = error.problem
        first = (problem.errors or [{}])[0]
        refusal = {"code": problem.code, "pointer": first.get("pointer", ""), "error": error.code}
        return {"request": body, "refusal": refusal}
    except RulesError as error:
        return {"request": body, "refusal": {"code": error.code, "pointer": error.pointer()}}
