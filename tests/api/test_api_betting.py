"""POST /v1/betting/validate through Flask's test client (docs/rules.md §9)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND

from tests.api.api_support import ok, pointers, problem

URL = "/v1/betting/validate"
MAX_MONEY = 2**53 - 1


def seq(*actions: dict[str, Any], **setup: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"players": ["ann", "bob"], "dealer": "bob", "ante": 10}
    base.update(setup)
    base["actions"] = list(actions)
    return base


def test_rules_example_ends_in_a_showdown(client: FlaskClient) -> None:
    result = ok(client.post(URL, json=EXAMPLE_ROUND))
    assert result["valid"] is True
    assert result["error"] is None
    state = result["state"]
    assert state["phase"] == "showdown"
    assert state["pot"] == 120
    assert state["showdown"] == ["bob", "dan"]
    assert state["to_act"] is None
    assert state["legal_actions"] == []
    assert [p["player"] for p in state["players"]] == ["ann", "bob", "cid", "dan"]
    assert result["ruleset"] == "classic/1"


def test_unfinished_sequence_says_who_acts_and_what_is_legal(client: FlaskClient) -> None:
    result = ok(client.post(URL, json=seq()))
    state = result["state"]
    assert result["valid"] is True
    assert state["phase"] == "betting"
    assert state["to_act"] == "ann"
    assert state["current_stake"] is None
    kinds = {a["type"]: a for a in state["legal_actions"]}
    assert kinds["fold"] == {"type": "fold"}
    assert kinds["stake"]["min"] == 10
    assert "max" in kinds["stake"]


def test_actions_may_be_omitted(client: FlaskClient) -> None:
    payload = seq()
    del payload["actions"]
    assert ok(client.post(URL, json=payload))["state"]["to_act"] == "ann"


def test_illegal_action_is_a_200_verdict(client: FlaskClient) -> None:
    payload = seq(
        {"player": "ann", "type": "stake", "amount": 20},
        {"player": "ann", "type": "stake", "amount": 20},
    )
    result = ok(client.post(URL, json=payload))
    assert result["valid"] is False
    assert result["error"]["index"] == 1
    assert result["error"]["code"] == "NOT_YOUR_TURN"
    assert result["state"]["to_act"] == "bob"  # the state just before the illegal action


def test_unknown_player_is_a_verdict_not_an_error(client: FlaskClient) -> None:
    result = ok(client.post(URL, json=seq({"player": "zed", "type": "fold"})))
    assert result["error"]["code"] == "UNKNOWN_PLAYER"


def test_stake_below_minimum(client: FlaskClient) -> None:
    payload = seq({"player": "ann", "type": "stake", "amount": 5}, minimum_stake=20)
    assert ok(client.post(URL, json=payload))["error"]["code"] == "STAKE_BELOW_MINIMUM"


@pytest.mark.parametrize(
    ("setup", "code", "pointer"),
    [
        ({"dealer": "zed"}, "DEALER_NOT_SEATED", "/dealer"),
        ({"minimum_stake": 50, "maximum_stake": 20}, "MAXIMUM_BELOW_MINIMUM", "/maximum_stake"),
        ({"ante": MAX_MONEY}, "INVALID_AMOUNT", "/ante"),
    ],
)
def test_setup_errors_are_422_with_the_setup_code(
    client: FlaskClient, setup: dict[str, Any], code: str, pointer: str
) -> None:
    doc = problem(client.post(URL, json=seq(**setup)), 422, code)
    assert pointers(doc) == [pointer]
    assert doc["type"] == "urn:quart-bezique:problem:rules-violation"


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (1.0, "float"),
        (10.5, "fraction"),
        (True, "boolean"),
        ("10", "string"),
        (0, "zero"),
        (-5, "negative"),
        (MAX_MONEY + 1, "above 2^53-1"),
        (None, "null"),
    ],
)
def test_money_is_a_strict_integer(client: FlaskClient, value: object, name: str) -> None:
    doc = problem(client.post(URL, json=seq(ante=value)), 422, "VALIDATION_ERROR")
    assert pointers(doc) == ["/ante"], name
    action = {"player": "ann", "type": "stake", "amount": value}
    doc = problem(client.post(URL, json=seq(action)), 422, "VALIDATION_ERROR")
    assert pointers(doc) == ["/actions/0/amount"], name


def test_largest_money_is_accepted(client: FlaskClient) -> None:
    payload = seq(ante=1, maximum_stake=MAX_MONEY, minimum_stake=MAX_MONEY - 2)
    assert ok(client.post(URL, json=payload))["valid"] is True


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        (seq(players=["ann"]), "/players"),
        (seq(players=["ann", "bob", "cid", "dan", "eve"]), "/players"),
        (seq(players=["ann", "ann"], dealer="ann"), "/players"),
        (seq(players=["ann", 7]), "/players/1"),
        (seq({"player": "ann", "type": "fold", "amount": 10}), "/actions/0/amount"),
        (seq({"player": "ann", "type": "stake"}), "/actions/0/amount"),
        (seq({"player": "ann", "type": "raise", "amount": 10}), "/actions/0/type"),
        (seq({"player": "ann", "type": "fold", "note": "x"}), "/actions/0/note"),
        (seq({"type": "fold"}), "/actions/0/player"),
        ({"players": ["ann", "bob"], "dealer": "bob"}, "/ante"),
        ({**seq(), "actions": None}, "/actions"),
        ({**seq(), "hands": {}}, "/hands"),
    ],
)
def test_validation_errors(client: FlaskClient, payload: object, pointer: str) -> None:
    doc = problem(client.post(URL, json=payload), 422, "VALIDATION_ERROR")
    assert pointer in pointers(doc)


def test_action_limit(client: FlaskClient) -> None:
    folds = [{"player": "zed", "type": "fold"}] * 1000
    assert ok(client.post(URL, json=seq(*folds)))["valid"] is False
    doc = problem(client.post(URL, json=seq(*folds, folds[0])), 422, "VALIDATION_ERROR")
    assert pointers(doc) == ["/actions"]
