"""``betting.jsonl``: seeded betting sequences, legal ones (finished or not) and illegal ones
with every reason code of docs/rules.md §9.11 a fixed number of times, most asking for the
``trace``; then setups the rules refuse (§9.12) that reach the rules over HTTP."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Final

from quart_bezique.game.betting import MAX_MONEY, ReasonCode
from quart_bezique.game.ruleset import CLASSIC, Ruleset

from . import answers, deal, rounds

SETUP_ERRORS: Final = ("DEALER_NOT_SEATED", "MAXIMUM_BELOW_MINIMUM", "INVALID_AMOUNT")
"""The setup refusals of §9.12 the HTTP schema leaves to the rules (the others are its own
``VALIDATION_ERROR``: a shape, a count, a duplicate)."""
ATTEMPTS: Final = 200_000
"""Wrong moves tried before giving up on filling every reason code's quota: a bound, so that a
seed that cannot fill it fails with the codes it missed instead of running for ever."""


def _named(body: dict[str, Any], ruleset: Ruleset, rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.75:
        body["trace"] = True
    if ruleset != CLASSIC:
        body["ruleset"] = ruleset.id
    return body


def legal(rng: random.Random, ruleset: Ruleset) -> dict[str, Any]:
    body = rounds.setup(rng)
    actions, _ = rounds.play(rng, body, rng.randrange(0, 14), finish=rng.random() < 0.5)
    return _named({**body, "actions": actions}, ruleset, rng)


def illegal(rng: random.Random, ruleset: Ruleset, per_code: int) -> Iterator[dict[str, Any]]:
    """``per_code`` sequences for each reason code, in the order the seed finds them: a legal
    prefix, a wrong move, then up to two moves after it (never judged, §9.10)."""
    found = dict.fromkeys(ReasonCode, 0)
    for _ in range(ATTEMPTS):
        if min(found.values()) >= per_code:
            return
        body = rounds.setup(rng)
        actions, result = rounds.play(rng, body, rng.randrange(0, 10), rng.random() < 0.3)
        actions.append(rounds.wrong_move(rng, body, result.state))
        verdict = rounds.judge(body, actions)
        if verdict.error is None or found[verdict.error.code] >= per_code:
            continue
        found[verdict.error.code] += 1
        for _ in range(rng.randrange(3)):
            actions.append(rounds.wrong_move(rng, body, verdict.state))
        yield _named({**body, "actions": actions}, ruleset, rng)
    missing = [code.value for code, n in found.items() if n < per_code]
    raise AssertionError(f"no seeded sequence found for {missing}")


def refused_setup(rng: random.Random, code: str, ruleset: Ruleset) -> dict[str, Any]:
    body = rounds.setup(rng)
    body.pop("maximum_stake", None)
    if code == "DEALER_NOT_SEATED":
        outside = [name for name in (*deal.NAMES, rounds.STRANGER) if name not in body["players"]]
        body["dealer"] = rng.choice(outside)
    elif code == "MAXIMUM_BELOW_MINIMUM":
        floor = body.get("minimum_stake", body["ante"])
        if floor == 1:
            body["minimum_stake"] = floor = 2
        body["maximum_stake"] = floor - 1 - rng.randrange(floor - 1)
    else:
        body["ante"] = MAX_MONEY // len(body["players"]) + 1 + rng.randrange(1000)
    body["actions"] = [{"player": p, "type": "fold"} for p in body["players"][: rng.randrange(2)]]
    return _named(body, ruleset, rng)


def cases(
    ruleset: Ruleset, seed: int, legal_count: int, per_code: int, per_setup: int
) -> Iterator[dict[str, Any]]:
    rng = deal.rng_for("betting", seed)
    for _ in range(legal_count):
        yield answers.case(legal(rng, ruleset), answers.betting)
    for body in illegal(rng, ruleset, per_code):
        yield answers.case(body, answers.betting)
    for code in SETUP_ERRORS:
        for _ in range(per_setup):
            yield answers.case(refused_setup(rng, code, ruleset), answers.betting)
