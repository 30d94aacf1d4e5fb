"""POST /v1/showdown through Flask's test client (docs/rules.md §8)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.api_support import ok, pointers, problem

URL = "/v1/showdown"


def body(a: list[str], b: list[str], trump: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "trump": trump,
        "hands": [{"player": "bob", "cards": a}, {"player": "dan", "cards": b}],
        **extra,
    }


def test_higher_score_wins(client: FlaskClient) -> None:
    result = ok(client.post(URL, json=body(["KH", "QH", "KD", "10D"], ["9H", "AH", "9D", "AD"])))
    assert result["winner"] == "bob"
    assert result["tie"] is False
    assert [h["player"] for h in result["hands"]] == ["bob", "dan"]
    assert [h["score"] for h in result["hands"]] == [6, 0]
    assert result["hands"][0]["combinations"] == [
        {"type": "marriage", "cards": ["KH", "QH"], "points": 4}
    ]
    assert result["ruleset"] == "classic/1"


def test_trump_changes_the_winner(client: FlaskClient) -> None:
    hands = (["KS", "QS", "JS", "JC"], ["KH", "QH", "KD", "10D"])
    assert ok(client.post(URL, json=body(*hands)))["winner"] == "bob"  # 10 vs 6
    result = ok(client.post(URL, json=body(*hands, trump="h")))  # 10 vs 10
    assert result["winner"] is None
    assert result["tie"] is True
    assert result["trump"] == "H"


def test_hands_no_shoe_can_hold_are_refused(client: FlaskClient) -> None:
    doc = problem(
        client.post(URL, json=body(["KS", "KS", "KS", "KS"], ["KS", "KS", "KS", "QS"])),
        422,
        "SHOE_EXCEEDED",
    )
    assert pointers(doc) == ["/hands"]
    assert doc["errors"][0]["code"] == "SHOE_EXCEEDED"


def test_six_copies_between_two_hands_are_fine(client: FlaskClient) -> None:
    ok(client.post(URL, json=body(["KS", "KS", "KS", "KS"], ["KS", "KS", "QS", "QS"])))


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({"hands": [{"player": "bob", "cards": ["KS", "QS", "JS", "JC"]}]}, "/hands"),
        (
            {
                "hands": [
                    {"player": "bob", "cards": ["KS", "QS", "JS", "JC"]},
                    {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
                ]
            },
            "/hands/1/player",
        ),
        (body(["KS", "QS", "JS", "JC"], ["KH", "QH", "KD", "1D"]), "/hands/1/cards/3"),
        (body(["KS", "QS", "JS"], ["KH", "QH", "KD", "10D"]), "/hands/0/cards"),
        (body(["KS", "QS", "JS", "JC"], ["KH", "QH", "KD", "10D"], trump="N"), "/trump"),
        (
            {
                "hands": [
                    {"player": "", "cards": ["KS", "QS", "JS", "JC"]},
                    {"player": "dan", "cards": ["KH", "QH", "KD", "10D"]},
                ]
            },
            "/hands/0/player",
        ),
        (body(["KS", "QS", "JS", "JC"], ["KH", "QH", "KD", "10D"], winner="bob"), "/winner"),
    ],
)
def test_validation_errors(client: FlaskClient, payload: object, pointer: str) -> None:
    doc = problem(client.post(URL, json=payload), 422, "VALIDATION_ERROR")
    assert pointer in pointers(doc)
