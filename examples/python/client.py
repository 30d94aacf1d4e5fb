"""A Quart-Bezique client in plain Python: the standard library only (urllib), typed.

It makes the same calls as the TypeScript example and prints the same lines, so the two can be
compared line for line. Nothing here is generated: the TypedDicts below name only the fields this
program reads, as the contract (openapi.yaml) defines them.

Environment: QB_BASE_URL (default http://127.0.0.1:8000, where `make run` serves) and QB_API_KEY
(sent as ``Authorization: Bearer <key>`` when set, for deployments with API keys).

    python3 examples/python/client.py
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any, NotRequired, TypedDict, cast

BASE_URL = os.environ.get("QB_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
API_KEY = os.environ.get("QB_API_KEY", "")


class ProblemError(TypedDict):
    pointer: str
    message: str
    code: str


class Problem(TypedDict):
    """RFC 9457 problem document: the body of every refusal."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: NotRequired[list[ProblemError]]


class Combination(TypedDict):
    type: str
    points: int


class ScoreResponse(TypedDict):
    score: int
    combinations: list[Combination]


class ShowdownHandResult(TypedDict):
    player: str
    score: int


class ShowdownResponse(TypedDict):
    winner: str | None
    tie: bool
    hands: list[ShowdownHandResult]


class Violation(TypedDict):
    index: int
    code: str
    message: str


class BettingState(TypedDict):
    pot: int
    to_act: str | None


class BettingResponse(TypedDict):
    valid: bool
    error: Violation | None
    state: BettingState


class Payout(TypedDict):
    player: str
    payout: int
    net: int


class SettleResponse(TypedDict):
    pot: int
    players: list[Payout]
    winners: list[str]


class OddsResponse(TypedDict):
    win: float
    exact: bool
    total: int | None


class Refused(Exception):
    """A non-2XX answer, with its problem document."""

    def __init__(self, status: int, problem: Problem) -> None:
        super().__init__(f"HTTP {status} {problem['code']}: {problem['detail']}")
        self.status = status
        self.problem = problem


def post(path: str, body: dict[str, Any]) -> Any:
    """POST ``body`` as JSON; the decoded 2XX answer, or raise Refused with the problem."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if API_KEY:  # only when given: an empty Bearer would be refused by a keyed deployment
        headers["Authorization"] = f"Bearer {API_KEY}"
    request = urllib.request.Request(
        BASE_URL + path, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)
    except urllib.error.HTTPError as refusal:  # every refusal is application/problem+json
        with refusal:
            raise Refused(refusal.code, cast(Problem, json.load(refusal))) from None


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def main() -> int:
    # Score a hand (docs/rules.md §3-§7).
    score = cast(
        ScoreResponse, post("/v1/hands/score", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"})
    )
    combinations = ", ".join(f"{c['type']} {c['points']}" for c in score["combinations"])
    print(f"score: {score['score']} [{combinations}]")

    # Compare two hands at a showdown (§8).
    showdown = cast(
        ShowdownResponse,
        post(
            "/v1/showdown",
            {
                "trump": "H",
                "hands": [
                    {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
                    {"player": "dan", "cards": ["QS", "JC", "QH", "JD"]},
                ],
            },
        ),
    )
    scores = " to ".join(str(h["score"]) for h in showdown["hands"])
    print(f"showdown: winner {showdown['winner'] or 'none (tie)'} ({scores})")

    # Validate a betting round (§9). A sequence that breaks a rule is a 200 verdict, not an error.
    betting = cast(
        BettingResponse,
        post(
            "/v1/betting/validate",
            {
                "players": ["ann", "bob", "cid", "dan"],
                "dealer": "dan",
                "ante": 10,
                "actions": [
                    {"player": "ann", "type": "stake", "amount": 10},
                    {"player": "bob", "type": "stake", "amount": 20},
                ],
            },
        ),
    )
    state = betting["state"]
    print(
        f"betting: valid {str(betting['valid']).lower()}, pot {state['pot']}, "
        f"to act {state['to_act'] or 'nobody'}"
    )
    out_of_turn = cast(
        BettingResponse,
        post(
            "/v1/betting/validate",
            {
                "players": ["ann", "bob"],
                "dealer": "bob",
                "ante": 10,
                "actions": [{"player": "bob", "type": "stake", "amount": 10}],
            },
        ),
    )
    violation = out_of_turn["error"]
    refused_action = (
        f", action {violation['index']} refused: {violation['code']}" if violation else ""
    )
    print(f"betting: valid {str(out_of_turn['valid']).lower()}{refused_action}")

    # Settle a finished round (§10): a stake, a matching open, then the showdown hands.
    settled = cast(
        SettleResponse,
        post(
            "/v1/rounds/settle",
            {
                "players": ["ann", "bob"],
                "dealer": "bob",
                "ante": 10,
                "trump": "S",
                "actions": [
                    {"player": "ann", "type": "stake", "amount": 10},
                    {"player": "bob", "type": "open", "amount": 10},
                ],
                "hands": {"ann": ["KS", "QS", "JS", "JC"], "bob": ["KH", "QH", "KD", "10D"]},
            },
        ),
    )
    nets = ", ".join(f"{p['player']} {signed(p['net'])}" for p in settled["players"])
    print(f"settle: pot {settled['pot']}, winners {' '.join(settled['winners'])}; {nets}")

    # A hand's odds against one opponent, enumerated exactly.
    odds = cast(
        OddsResponse,
        post("/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "opponents": 1}),
    )
    deals = odds["total"] if odds["total"] is not None else "sampled"
    print(f"odds: win {odds['win']:.4f}, exact {str(odds['exact']).lower()}, deals {deals}")

    # A refusal: "1C" is no card. The 422 body is a problem document; `errors` points at the field.
    try:
        post("/v1/hands/score", {"cards": ["KS", "QS", "JS", "1C"]})
    except Refused as refused:
        if refused.status != 422:
            raise
        problem = refused.problem
        fields = ", ".join(f"{e['pointer']} {e['code']}" for e in problem.get("errors", []))
        print(f"refused: {problem['status']} {problem['code']} {fields}")
    else:
        raise RuntimeError("expected a 422 problem for the card '1C'")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Refused as refused:
        sys.exit(f"{refused} [{BASE_URL}]")
    except urllib.error.URLError as unreachable:
        sys.exit(f"cannot reach the service: {unreachable.reason} [{BASE_URL}]")
