"""``rounds.jsonl``: seeded round records (docs/round-record.md) with the whole verdict of
``POST /v1/rounds/adjudicate``. Most are finished rounds whose claim is the reference outcome;
some claim a wrong payout, pot or winner (the verdict lists the difference), some have no claim,
an illegal or unfinished betting (a verdict too, never a refusal); then records the reader
refuses, each refusal a fixed number of times, so an engine's reader is checked as well."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any, Final

from quart_bezique.game.ruleset import CLASSIC, Ruleset
from quart_bezique.rounds import FORMAT, adjudicate_record
from quart_bezique.rounds.adjudicate import reference

from . import answers, deal, rounds

ODD_SPELLING: Final = 0.05
CLAIMED: Final = 0.8
"""Records that claim an outcome; of those, ``WRONG_CLAIM`` claim a wrong one."""
WRONG_CLAIM: Final = 0.25
UNFINISHED: Final = 0.1
"""Records whose betting stops before its end (no settlement: a claim is one difference)."""
ILLEGAL: Final = 0.05
TRACED: Final = 0.2
"""Requests that ask for the betting's trace (the endpoint's ``trace`` member)."""
REFUSALS: Final = (
    "UNKNOWN_FORMAT",
    "WRONG_HAND_SIZE",
    "HAND_NOT_SEATED",
    "HAND_MISSING",
    "SHOE_EXCEEDED",
    "DEALER_NOT_SEATED",
)
"""The refused records written, each ``per_refusal`` times."""


def _betting(rng: random.Random, body: dict[str, Any]) -> list[dict[str, Any]]:
    draw = rng.random()
    if draw < ILLEGAL:
        actions, result = rounds.play(rng, body, rng.randrange(0, 6), finish=False)
        while rounds.judge(body, actions).valid:
            actions.append(rounds.wrong_move(rng, body, result.state))
        return actions
    finish = draw >= ILLEGAL + UNFINISHED
    return rounds.play(rng, body, rng.randrange(0, 12), finish=finish)[0]


def _claim(rng: random.Random, record: dict[str, Any]) -> dict[str, Any] | None:
    """The reference outcome of ``record``, now and then with one member made wrong; None when
    nothing was settled and the claim is then any outcome at all."""
    verdict = adjudicate_record(record)
    claimed = reference(verdict.settlement, verdict.hands)
    if claimed is None:
        return {"pot": rng.randrange(1, 200)}
    claimed = copy.deepcopy(claimed)
    if claimed["showdown"] is not None:  # a claim names a shown hand's cards and score only
        claimed["showdown"]["hands"] = [
            {k: hand[k] for k in ("player", "cards", "score")}
            for hand in claimed["showdown"]["hands"]
        ]
    if rng.random() < WRONG_CLAIM:
        what = rng.choice(("payout", "pot", "winners", "score"))
        if what == "payout":
            seat = rng.choice(claimed["players"])
            seat["payout"] += rng.choice((-1, 1)) * rng.randrange(1, 10)
        elif what == "pot":
            claimed["pot"] += rng.randrange(1, 10)
        elif what == "winners":
            claimed["winners"] = [rng.choice(record["players"])]
        else:
            player = rng.choice(record["players"])
            claimed["scores"][player] += rng.randrange(1, 5)
    for member in [m for m in claimed if rng.random() < 0.2]:  # a claim may be partial
        del claimed[member]
    return claimed


def judged(rng: random.Random, ruleset: Ruleset, number: int) -> dict[str, Any]:
    """One record of a played round, as a platform would keep it."""
    body = rounds.setup(rng)
    record: dict[str, Any] = {"format": FORMAT, **body}
    if ruleset != CLASSIC:
        record["ruleset"] = ruleset.id
    players = body["players"]
    dealt = deal.shoe_hands(rng, len(players))
    record["hands"] = {
        p: deal.spelled(rng, h, ODD_SPELLING) for p, h in zip(players, dealt, strict=True)
    }
    trump = deal.trump(rng, ODD_SPELLING)
    if trump is not None:
        record["trump"] = trump
    record["actions"] = _betting(rng, body)
    if rng.random() < CLAIMED:
        record["claimed"] = _claim(rng, record)
    record["context"] = {"round_id": f"vectors/round-{number}"}
    if rng.random() < TRACED:
        record["trace"] = True
    return record


def refused(rng: random.Random, kind: str, ruleset: Ruleset, number: int) -> dict[str, Any]:
    """A record the reader refuses, for the reason ``kind`` names."""
    record = judged(rng, ruleset, number)
    record.pop("claimed", None)
    players = record["players"]
    if kind == "UNKNOWN_FORMAT":
        record["format"] = "quart-bezique-round/2"
    elif kind == "WRONG_HAND_SIZE":
        seat = rng.choice(players)
        record["hands"][seat] = record["hands"][seat][:3]
    elif kind == "HAND_NOT_SEATED":
        record["hands"][rounds.STRANGER] = [c.code for c in deal.shoe_hands(rng, 1)[0]]
    elif kind == "HAND_MISSING":
        del record["hands"][rng.choice(players)]
    elif kind == "SHOE_EXCEEDED":
        card = rng.choice(deal.SHOE).code
        first, second = players[0], players[1]
        record["hands"][first] = [card] * 4
        record["hands"][second] = [card] * 3 + record["hands"][second][:1]
    elif kind == "DEALER_NOT_SEATED":
        record["dealer"] = rounds.STRANGER
    return record


def cases(ruleset: Ruleset, seed: int, count: int, per_refusal: int) -> Iterator[dict[str, Any]]:
    rng = deal.rng_for("rounds", seed)
    for number in range(1, count + 1):
        yield answers.case(judged(rng, ruleset, number), answers.round_record)
    number = count
    for kind in REFUSALS:
        for _ in range(per_refusal):
            number += 1
            yield answers.case(refused(rng, kind, ruleset, number), answers.round_record)
