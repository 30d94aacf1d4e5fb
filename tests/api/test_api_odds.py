"""``POST /v1/hands/odds``: the HTTP face of ``quart_bezique.game.odds``."""

from __future__ import annotations

from math import comb

import pytest
from flask.testing import FlaskClient
from quart_bezique.game.odds import hand_odds

URL = "/v1/hands/odds"


def test_one_opponent_is_exact_and_matches_the_core(client: FlaskClient) -> None:
    response = client.post(URL, json={"cards": ["ks", "Q♠", "JS", "JC"], "trump": "S"})
    assert response.status_code == 200
    body = response.get_json()
    core = hand_odds(["KS", "QS", "JS", "JC"], "S")
    assert body["exact"] is True
    assert body["total"] == comb(140, 4) == 15_329_615
    assert body["wins"] + body["ties"] + body["losses"] == body["total"]
    assert (body["wins"], body["ties"], body["losses"]) == (core.wins, core.ties, core.losses)
    assert body["score"] == 16
    assert body["cards"] == [c.code for c in core.cards]
    assert body["samples"] is None and body["standard_error"] is None
    assert body["ruleset"] == "classic/1"
    assert response.headers["Cache-Control"] == "no-store"


def test_seen_cards_shrink_the_shoe(client: FlaskClient) -> None:
    body = client.post(
        URL, json={"cards": ["KH", "QH", "KD", "10D"], "seen": ["QS", "JC", "QH", "JD"]}
    ).get_json()
    assert body["remaining"] == 136
    assert body["total"] == comb(136, 4)


def test_three_opponents_is_a_seeded_estimate(client: FlaskClient) -> None:
    request = {"cards": ["KS", "QS", "JS", "JC"], "opponents": 3, "samples": 2000, "seed": 7}
    first = client.post(URL, json=request).get_json()
    again = client.post(URL, json=request).get_json()
    assert first == again
    assert first["exact"] is False
    assert (first["samples"], first["seed"]) == (2000, 7)
    assert first["total"] is None
    assert first["standard_error"] > 0
    assert first["win"] + first["tie"] + first["loss"] == pytest.approx(1.0)


def test_a_card_more_than_six_times_is_refused_with_a_pointer(client: FlaskClient) -> None:
    response = client.post(URL, json={"cards": ["KS"] * 4, "seen": ["QS", "KS", "KS", "KS"]})
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "SHOE_EXCEEDED"
    assert problem["errors"][0]["pointer"] == "/seen/3"


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"cards": ["KS", "QS", "JS"]}, "/cards"),
        ({"cards": ["KS", "QS", "JS", "JX"]}, "/cards/3"),
        ({"cards": ["KS", "QS", "JS", "JC"], "opponents": 4}, "/opponents"),
        ({"cards": ["KS", "QS", "JS", "JC"], "opponents": 1.0}, "/opponents"),
        ({"cards": ["KS", "QS", "JS", "JC"], "samples": 20_001}, "/samples"),
        ({"cards": ["KS", "QS", "JS", "JC"], "seen": "KS"}, "/seen"),
        ({"cards": ["KS", "QS", "JS", "JC"], "extra": 1}, "/extra"),
    ],
)
def test_malformed_requests_are_422_with_a_pointer(
    client: FlaskClient, body: dict[str, object], pointer: str
) -> None:
    response = client.post(URL, json=body)
    assert response.status_code == 422
    assert pointer in [e["pointer"] for e in response.get_json()["errors"]]
