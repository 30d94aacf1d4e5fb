"""Rulesets over HTTP (docs/rules.md §13.6): every verdict endpoint takes one, names it in its
answer, refuses a bad one with a code and a pointer, and answers exactly as before without one."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient
from quart_bezique.api.endpoints.rounds import TIED_ROUND
from quart_bezique.api.fastpath import batch
from quart_bezique.game.reading_cache import BUILT_TABLES_KEPT
from quart_bezique.game.ruleset import CLASSIC, EVERY_RULESET, LITERAL, resolve_ruleset
from quart_bezique.game.scoring import distinct_hands, score_hand
from quart_bezique.wire import render
from quart_bezique.wire.canonical import request_digest
from quart_bezique.wire.rulesets import rulesets_document

from tests.api.api_support import ok, pointers, problem

SCORE = "/v1/hands/score"
BATCH = "/v1/hands/batch-score"
HAND = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
BODIES: dict[str, dict[str, Any]] = {
    SCORE: HAND,
    BATCH: {"hands": [HAND, {"cards": ["AS", "AC", "AH", "KH"]}]},
    "/v1/showdown": {
        "trump": "S",
        "hands": [
            {"player": "a", "cards": HAND["cards"]},
            {"player": "b", "cards": ["AS", "AC", "AH", "KH"]},
        ],
    },
    "/v1/betting/validate": {"players": ["ann", "bob"], "dealer": "bob", "ante": 5},
    "/v1/rounds/settle": TIED_ROUND,
    "/v1/hands/odds": HAND,
}
SPECS: list[Any] = ["literal/1", "classic/1:tie=carry", {"base": "literal/1", "tie": "split"}]


@pytest.mark.parametrize("path", sorted(BODIES))
@pytest.mark.parametrize("spec", SPECS, ids=repr)
def test_every_verdict_names_the_ruleset_it_was_asked_for(
    client: FlaskClient, path: str, spec: Any
) -> None:
    answer = ok(client.post(path, json={**BODIES[path], "ruleset": spec}))
    ruleset = resolve_ruleset(spec)
    assert answer["ruleset"] == ruleset.id
    assert answer["ruleset_sha256"] == ruleset.digest
    assert ("carried" in answer) == (path == "/v1/rounds/settle")


@pytest.mark.parametrize("path", sorted(BODIES))
def test_without_a_ruleset_the_answer_is_classic_and_unchanged(
    client: FlaskClient, path: str
) -> None:
    plain = ok(client.post(path, json=BODIES[path]))
    named = ok(client.post(path, json={**BODIES[path], "ruleset": "classic/1"}))
    assert plain["ruleset"] == "classic/1"
    assert "ruleset_sha256" not in plain and "carried" not in plain
    extra = {"ruleset_sha256": CLASSIC.digest}
    if path == "/v1/rounds/settle":
        extra["carried"] = 0  # type: ignore[assignment]
    assert named == {**plain, **extra}


def test_scores_follow_the_ruleset(client: FlaskClient) -> None:
    """docs/rules.md §13.3: with spades trump the bezique Q♠ J♣ holds a trump and doubles."""
    assert ok(client.post(SCORE, json=HAND))["score"] == 16
    assert ok(client.post(SCORE, json={**HAND, "ruleset": "literal/1"}))["score"] == 20


@pytest.mark.parametrize("ruleset", EVERY_RULESET, ids=lambda r: r.id)
def test_the_batch_scores_every_hand_as_the_core_does(client: FlaskClient, ruleset: Any) -> None:
    hands = [list(h) for h in distinct_hands()][::97]
    for breakdown in (True, False):
        body = {
            "hands": [{"cards": [c.code for c in h], "trump": "H"} for h in hands],
            "breakdown": breakdown,
            "ruleset": ruleset.id,
        }
        answer = ok(client.post(BATCH, json=body))
        expected = [render.scored_hand(score_hand(h, "H", ruleset)) for h in hands]
        if not breakdown:
            expected = [{"score": e["score"]} for e in expected]
        assert answer["results"] == expected
        assert answer["ruleset"] == ruleset.id


def test_the_batch_keeps_its_tables_as_the_core_keeps_its_own() -> None:
    """The batch's tables follow the one policy (``ReadingCache``): a reading's are built on first
    use and served again while kept, at most ``BUILT_TABLES_KEPT`` beside classic/1's."""
    rules = LITERAL.scoring
    first = batch.tables(rules)
    assert first.rules is rules and batch.tables(rules) is first
    assert batch._TABLES.built()[0] is rules and len(batch._TABLES.built()) <= BUILT_TABLES_KEPT
    assert batch.tables() is batch.tables(CLASSIC.scoring)
    assert batch.tables().rules is CLASSIC.scoring


def test_a_tie_under_tie_carry_pays_nobody(client: FlaskClient) -> None:
    """docs/rules.md §13.4."""
    split = ok(client.post("/v1/rounds/settle", json={**TIED_ROUND, "ruleset": "classic/1"}))
    carry = ok(client.post("/v1/rounds/settle", json={**TIED_ROUND, "ruleset": {"tie": "carry"}}))
    assert split["winners"] == ["ann", "bob"] and split["carried"] == 0
    assert carry["winners"] == [] and carry["carried"] == carry["pot"] == 20
    assert [p["payout"] for p in carry["players"]] == [0, 0]
    assert [p["net"] for p in carry["players"]] == [-10, -10]
    assert carry["showdown"] == split["showdown"]


REFUSALS: list[tuple[Any, str, str]] = [
    ("nope/1", "/ruleset", "UNKNOWN_RULESET"),
    ("classic/1:tie=split", "/ruleset", "UNKNOWN_RULESET"),  # not an id: nothing differs
    (7, "/ruleset", "INVALID_RULESET"),
    (None, "/ruleset", "NULL_NOT_ALLOWED"),
    ({"tie": "swap"}, "/ruleset/tie", "INVALID_SWITCH_VALUE"),
    ({"three_aces": True}, "/ruleset/three_aces", "INVALID_SWITCH_VALUE"),
    ({"three_aces": 3}, "/ruleset/three_aces", "INVALID_SWITCH_VALUE"),
    ({"jokers": 2}, "/ruleset/jokers", "UNKNOWN_SWITCH"),
    ({"base": "house/9"}, "/ruleset/base", "UNKNOWN_RULESET"),
    ({"base": 1}, "/ruleset/base", "INVALID_RULESET"),
]


@pytest.mark.parametrize("path", sorted(BODIES))
@pytest.mark.parametrize(("spec", "pointer", "code"), REFUSALS, ids=repr)
def test_a_bad_ruleset_is_a_422_with_its_code_and_pointer(
    client: FlaskClient, path: str, spec: Any, pointer: str, code: str
) -> None:
    doc = problem(client.post(path, json={**BODIES[path], "ruleset": spec}), 422)
    assert pointers(doc) == [pointer]
    assert [e["code"] for e in doc["errors"]] == [code]


@pytest.mark.parametrize(("language", "word"), [("ru", "переключатель"), ("uk", "перемикач")])
def test_a_bad_ruleset_is_refused_in_the_client_s_language(
    client: FlaskClient, language: str, word: str
) -> None:
    response = client.post(
        SCORE, json={**HAND, "ruleset": {"tie": "swap"}}, headers={"Accept-Language": language}
    )
    doc = problem(response, 422)
    assert word in doc["errors"][0]["message"].lower()
    assert response.headers["Content-Language"] == language


def test_a_batch_s_canonical_form_keeps_its_ruleset(client: FlaskClient) -> None:
    """The typed road's request digest is the canonical form's, whatever the ruleset's shape."""
    for spec in ("literal/1", {"tie": "carry", "base": "literal/1"}):
        body = {"ruleset": spec, "hands": [{"cards": ["ks", "QS", "JS", "JC"]}]}
        text = orjson.dumps(body)
        response = client.post(BATCH, data=text, content_type="application/json")
        assert response.status_code == 200
        digest = request_digest(BATCH, orjson.loads(text))
        assert digest == request_digest(BATCH, {**body, "hands": [{"cards": HAND["cards"]}]})


def test_a_repeated_switch_is_not_read_silently(client: FlaskClient) -> None:
    text = (
        b'{"hands": [{"cards": ["KS", "QS", "JS", "JC"]}], '
        b'"ruleset": {"tie": "carry", "tie": "split"}}'
    )
    assert client.post(BATCH, data=text, content_type="application/json").status_code == 400
    score = b'{"cards": ["KS", "QS", "JS", "JC"], "ruleset": {"tie": "carry", "tie": "split"}}'
    assert client.post(SCORE, data=score, content_type="application/json").status_code == 400


def test_the_rulesets_document_lists_every_preset_and_switch(client: FlaskClient) -> None:
    response = client.get("/v1/rulesets")
    assert response.status_code == 200
    assert orjson.loads(response.get_data()) == rulesets_document()
    presets = {p["id"]: p for p in response.get_json()["presets"]}
    assert presets["literal/1"]["sha256"] == LITERAL.digest
    assert presets["classic/1"]["switches"] == CLASSIC.switches()


def test_the_rules_document_follows_the_ruleset(client: FlaskClient) -> None:
    plain = ok(client.get("/v1/rules"))
    assert plain["ruleset"] == "classic/1" and "switches" not in plain
    literal = ok(client.get("/v1/rules?ruleset=literal/1"))
    assert literal["ruleset"] == "literal/1" and literal["name"] == "literal"
    assert literal["switches"] == LITERAL.switches()
    assert literal["ruleset_sha256"] == LITERAL.digest
    three = {c["type"]: c for c in literal["combinations"]}["three_of_a_kind"]
    assert three["points_by_rank"]["A"] == 0 and three["points_by_rank"]["K"] == 6
    custom = ok(client.get("/v1/rules", query_string={"ruleset": "classic/1:tie=carry"}))
    assert custom["name"] == "classic" and custom["switches"]["tie"] == "carry"


@pytest.mark.parametrize(
    ("query", "code"),
    [("ruleset=house/9", "UNKNOWN_RULESET"), ("ruleset=a&ruleset=b", "INVALID_RULESET")],
)
def test_the_rules_document_refuses_a_bad_ruleset(
    client: FlaskClient, query: str, code: str
) -> None:
    doc = problem(client.get("/v1/rules?" + query), 422)
    assert pointers(doc) == ["/ruleset"] and doc["errors"][0]["code"] == code
