"""POST /v1/hands/score and /v1/hands/batch-score through Flask's test client."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from quart_bezique.game.scoring import score_hand

from tests.api.api_support import ok, pointers, problem

SCORE = "/v1/hands/score"
BATCH = "/v1/hands/batch-score"

# docs/rules.md §7, the worked examples (hand, trump, score).
WORKED = [
    (["QS", "QC", "QH", "KH"], None, 7),
    (["KH", "QH", "KD", "10D"], None, 6),
    (["QS", "JC", "KD", "JD"], None, 6),
    (["QS", "JC", "QH", "JD"], None, 9),
    (["KS", "QS", "JS", "JC"], None, 10),
    (["KS", "QS", "JS", "10S"], None, 9),
    (["AS", "AC", "AH", "AD"], None, 0),
    (["KS", "KC", "KH", "KD"], None, 8),
    (["9S", "9C", "9H", "9D"], None, 9),
    (["KS", "QS", "JS", "JC"], "S", 16),
    (["KS", "QS", "JS", "JC"], "C", 10),
    (["KH", "QH", "KD", "10D"], "H", 10),
    (["KH", "QH", "KD", "10D"], "D", 8),
    (["QH", "QH", "QH", "QH"], "H", 18),
    (["QH", "QH", "QH", "QS"], "H", 9),
    (["KS", "KS", "QS", "QS"], None, 8),
    (["KH", "QH", "QS", "JC"], None, 8),
    (["AS", "AC", "AH", "KH"], None, 7),
    (["QS", "KS", "AS", "JC"], None, 10),
    (["JC", "JC", "JC", "QS"], "C", 13),
    (["9H", "AH", "9D", "AD"], "H", 0),
]


@pytest.mark.parametrize(("cards", "trump", "score"), WORKED)
def test_score_worked_examples(
    client: FlaskClient, cards: list[str], trump: str | None, score: int
) -> None:
    body = ok(client.post(SCORE, json={"cards": cards, "trump": trump}))
    assert body["score"] == score
    assert body["trump"] == trump
    assert body["ruleset"] == "classic/1"


def test_score_renders_the_cores_breakdown(client: FlaskClient) -> None:
    body = ok(client.post(SCORE, json={"cards": ["KS", "QS", "JS", "JC"]}))
    assert body == {
        "cards": ["KS", "QS", "JS", "JC"],
        "trump": None,
        "score": 10,
        "combinations": [
            {"type": "bezique", "cards": ["QS", "JC"], "points": 4},
            {"type": "coronka", "cards": ["KS", "QS", "JS"], "points": 6},
        ],
        "loose": [],
        "ruleset": "classic/1",
    }
    marriage = ok(client.post(SCORE, json={"cards": ["KH", "QH", "KD", "10D"], "trump": "D"}))
    assert marriage["loose"] == [{"card": "KD", "points": 2}, {"card": "10D", "points": 2}]


def test_score_accepts_aliases_and_answers_canonically(client: FlaskClient) -> None:
    body = ok(client.post(SCORE, json={"cards": ["ks", "q♠", "Js", "tS"], "trump": "♠"}))
    assert body["cards"] == ["KS", "QS", "JS", "10S"]
    assert body["trump"] == "S"
    assert body["score"] == 18


def test_score_verdicts_are_not_cached(client: FlaskClient) -> None:
    response = client.post(SCORE, json={"cards": ["KS", "QS", "JS", "JC"]})
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"cards": ["KS", "QS", "JS"]}, "/cards"),
        ({"cards": ["KS", "QS", "JS", "JC", "9S"]}, "/cards"),
        ({"cards": ["KS", "QS", "JS", "1C"]}, "/cards/3"),
        ({"cards": ["KS", "QS", 5, "JC"]}, "/cards/2"),
        ({"cards": ["KS", "QS", "JS", "JC"], "trump": "X"}, "/trump"),
        ({"cards": ["KS", "QS", "JS", "JC"], "trump": 1}, "/trump"),
        ({"cards": ["KS", "QS", "JS", "JC"], "extra": 1}, "/extra"),
        ({"trump": "S"}, "/cards"),
        ({"cards": "KSQSJSJC"}, "/cards"),
        ([["KS", "QS", "JS", "JC"]], ""),
        ("KS", ""),
    ],
)
def test_score_validation_errors_point_at_the_field(
    client: FlaskClient, body: object, pointer: str
) -> None:
    doc = problem(client.post(SCORE, json=body), 422, "VALIDATION_ERROR")
    assert pointer in pointers(doc)
    assert all({"pointer", "message"} <= e.keys() for e in doc["errors"])


def test_score_lists_every_bad_field(client: FlaskClient) -> None:
    doc = problem(client.post(SCORE, json={"cards": ["XX", "KS", "YY", "KS"], "trump": "Z"}), 422)
    assert pointers(doc) == ["/cards/0", "/cards/2", "/trump"]


def test_batch_scores_in_input_order(client: FlaskClient) -> None:
    hands = [{"cards": c, "trump": t} for c, t, _ in WORKED]
    body = ok(client.post(BATCH, json={"hands": hands}))
    assert [r["score"] for r in body["results"]] == [s for _, _, s in WORKED]
    first = body["results"][0]
    assert first.keys() == {"cards", "trump", "score", "combinations", "loose"}
    assert body["ruleset"] == "classic/1"


def test_batch_without_breakdown_answers_only_scores(client: FlaskClient) -> None:
    hands = [{"cards": c, "trump": t} if t else {"cards": c} for c, t, _ in WORKED]
    body = ok(client.post(BATCH, json={"hands": hands, "breakdown": False}))
    assert body["results"] == [{"score": s} for _, _, s in WORKED]


def test_batch_fast_path_agrees_with_the_core_on_aliases(client: FlaskClient) -> None:
    hands: list[dict[str, Any]] = [
        {"cards": ["t♥", "Th", "10H", "10h"], "trump": "h"},
        {"cards": ["q♠", "j♣", "Q♥", "jd"], "trump": "♦"},
        {"cards": ["a♠", "AC", "ah", "kh"], "trump": None},
    ]
    fast = ok(client.post(BATCH, json={"hands": hands, "breakdown": False}))["results"]
    slow = ok(client.post(BATCH, json={"hands": hands}))["results"]
    core = [score_hand(h["cards"], h.get("trump")).score for h in hands]
    assert [r["score"] for r in fast] == [r["score"] for r in slow] == core


def test_batch_takes_the_configured_maximum(client: FlaskClient) -> None:
    hands = [{"cards": ["KS", "QS", "JS", "JC"]}] * 10_000
    body = ok(client.post(BATCH, json={"hands": hands, "breakdown": False}))
    assert len(body["results"]) == 10_000
    doc = problem(client.post(BATCH, json={"hands": [*hands, hands[0]]}), 422, "VALIDATION_ERROR")
    assert pointers(doc) == ["/hands"]


def test_one_bad_hand_rejects_the_batch_with_a_pointer_to_it(client: FlaskClient) -> None:
    hands = [{"cards": ["KS", "QS", "JS", "JC"]}] * 5
    hands[3] = {"cards": ["KS", "QS", "JS", "JX"]}
    doc = problem(client.post(BATCH, json={"hands": hands, "breakdown": False}), 422)
    assert pointers(doc) == ["/hands/3/cards/3"]


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"hands": []}, "/hands"),
        ({}, "/hands"),
        ({"hands": [{"cards": ["KS", "QS", "JS", "JC"]}], "breakdown": "no"}, "/breakdown"),
        ({"hands": [{"cards": ["KS", "QS", "JS", "JC"]}], "breakdown": 0}, "/breakdown"),
        ({"hands": [{"cards": ["KS", "QS", "JS", "JC"], "trump": "Q"}]}, "/hands/0/trump"),
        ({"hands": [["KS", "QS", "JS", "JC"]]}, "/hands/0"),
    ],
)
def test_batch_validation_errors(client: FlaskClient, body: object, pointer: str) -> None:
    doc = problem(client.post(BATCH, json=body), 422, "VALIDATION_ERROR")
    assert pointer in pointers(doc)


def test_error_list_is_bounded(client: FlaskClient) -> None:
    hands = [{"cards": ["XX", "XX", "XX", "XX"]}] * 100
    doc = problem(client.post(BATCH, json={"hands": hands}), 422)
    assert len(doc["errors"]) == 50
    assert "(and 399 more)" in doc["detail"]
