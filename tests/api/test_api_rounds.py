"""POST /v1/rounds/settle through Flask's test client (docs/rules.md §10)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND

from tests.api.api_support import ok, pointers, problem

URL = "/v1/rounds/settle"
BOB = ["KH", "QH", "KD", "10D"]  # marriage 4 + K 1 + 10 1 = 6; in hearts 10
DAN = ["QS", "JC", "QH", "JD"]  # double bezique 9


def settle(**changes: Any) -> dict[str, Any]:
    return {**EXAMPLE_ROUND, "hands": {"bob": BOB, "dan": DAN}, **changes}


def test_showdown_pays_the_better_hand(client: FlaskClient) -> None:
    result = ok(client.post(URL, json=settle()))
    assert result["pot"] == 120
    assert result["winners"] == ["dan"]
    payouts = {p["player"]: (p["payout"], p["net"]) for p in result["players"]}
    assert payouts == {"ann": (0, -30), "bob": (0, -50), "cid": (0, -10), "dan": (120, 90)}
    assert sum(net for _, net in payouts.values()) == 0
    showdown = result["showdown"]
    assert showdown["winner"] == "dan"
    assert [(h["player"], h["score"]) for h in showdown["hands"]] == [("bob", 6), ("dan", 9)]
    assert result["ruleset"] == "classic/1"


def test_trump_applies_to_the_showdown(client: FlaskClient) -> None:
    result = ok(client.post(URL, json=settle(trump="H")))
    assert result["showdown"]["trump"] == "H"
    assert [h["score"] for h in result["showdown"]["hands"]] == [10, 9]
    assert result["winners"] == ["bob"]


def test_uncontested_round_needs_no_hands(client: FlaskClient) -> None:
    payload = {
        "players": ["ann", "bob"],
        "dealer": "bob",
        "ante": 5,
        "actions": [
            {"player": "ann", "type": "stake", "amount": 5},
            {"player": "bob", "type": "fold"},
        ],
    }
    result = ok(client.post(URL, json=payload))
    assert result["showdown"] is None
    assert result["winners"] == ["ann"]
    assert result["pot"] == 15
    assert ok(client.post(URL, json={**payload, "hands": None}))["winners"] == ["ann"]


@pytest.mark.parametrize(
    ("changes", "code", "pointer"),
    [
        ({"actions": EXAMPLE_ROUND["actions"][:3]}, "ROUND_NOT_FINISHED", "/actions"),
        (
            {"actions": [{"player": "bob", "type": "stake", "amount": 10}]},
            "ROUND_INVALID",
            "/actions/0",
        ),
        ({"hands": {"bob": BOB}}, "HANDS_MISMATCH", "/hands/dan"),
        ({"hands": {"bob": BOB, "dan": DAN, "ann": DAN}}, "HANDS_MISMATCH", "/hands/ann"),
        ({"hands": None}, "HANDS_MISMATCH", "/hands"),
        (
            {"hands": {"bob": ["KS"] * 4, "dan": ["KS", "KS", "KS", "QS"]}},
            "SHOE_EXCEEDED",
            "/hands",
        ),
        ({"dealer": "zed"}, "DEALER_NOT_SEATED", "/dealer"),
    ],
)
def test_rounds_that_cannot_be_settled_are_422_with_a_code(
    client: FlaskClient, changes: dict[str, Any], code: str, pointer: str
) -> None:
    doc = problem(client.post(URL, json=settle(**changes)), 422, code)
    assert pointers(doc) == [pointer]


@pytest.mark.parametrize(
    ("changes", "pointer"),
    [
        ({"hands": {"bob": BOB, "dan": ["QS", "JC", "QH"]}}, "/hands/dan"),
        ({"hands": {"bob": BOB, "dan": ["QS", "JC", "QH", "ZZ"]}}, "/hands/dan/3"),
        ({"hands": {"bob": BOB, "": DAN}}, "/hands/"),
        ({"hands": {"a/b~c": BOB, "dan": 5}}, "/hands/dan"),
        ({"hands": ["bob", BOB]}, "/hands"),
        ({"hands": {p: BOB for p in "abcde"}}, "/hands"),
        ({"trump": "spades"}, "/trump"),
    ],
)
def test_validation_errors(client: FlaskClient, changes: dict[str, Any], pointer: str) -> None:
    doc = problem(client.post(URL, json=settle(**changes)), 422, "VALIDATION_ERROR")
    assert pointer in pointers(doc)


def test_pointers_escape_player_ids(client: FlaskClient) -> None:
    doc = problem(client.post(URL, json=settle(hands={"a/b~c": ["XX"] * 4})), 422)
    assert "/hands/a~1b~0c/0" in pointers(doc)
