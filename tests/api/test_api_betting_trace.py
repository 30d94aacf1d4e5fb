"""``trace: true`` on ``POST /v1/betting/validate``: the timeline in one call, for the page and
any client; absent unless asked for, refused on settlement (a settled round has no use for it)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND

from tests.api.api_support import ok, problem

URL = "/v1/betting/validate"


def test_the_trace_holds_the_state_after_each_action(client: FlaskClient) -> None:
    answer = ok(client.post(URL, json={**EXAMPLE_ROUND, "trace": True}))
    actions = EXAMPLE_ROUND["actions"]
    assert len(answer["trace"]) == len(actions)
    for index, state in enumerate(answer["trace"]):
        prefix = {**EXAMPLE_ROUND, "actions": actions[: index + 1]}
        assert state == ok(client.post(URL, json=prefix))["state"]
    assert answer["trace"][-1] == answer["state"]


def test_the_trace_stops_before_the_first_illegal_action(client: FlaskClient) -> None:
    actions = [*EXAMPLE_ROUND["actions"][:3], {"player": "ann", "type": "stake", "amount": 5}]
    answer = ok(client.post(URL, json={**EXAMPLE_ROUND, "actions": actions, "trace": True}))
    assert answer["valid"] is False and answer["error"]["index"] == 3
    assert len(answer["trace"]) == 3 and answer["trace"][-1] == answer["state"]


@pytest.mark.parametrize("body", [EXAMPLE_ROUND, {**EXAMPLE_ROUND, "trace": False}])
def test_no_trace_unless_asked(client: FlaskClient, body: dict[str, Any]) -> None:
    assert "trace" not in ok(client.post(URL, json=body))


@pytest.mark.parametrize("value", [1, "true", None])
def test_trace_is_a_boolean(client: FlaskClient, value: Any) -> None:
    doc = problem(client.post(URL, json={**EXAMPLE_ROUND, "trace": value}), 422)
    assert doc["errors"][0]["pointer"] == "/trace"


def test_settlement_takes_no_trace(client: FlaskClient) -> None:
    hands = {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]}
    body = {**EXAMPLE_ROUND, "hands": hands, "trace": True}
    doc = problem(client.post("/v1/rounds/settle", json=body), 422)
    assert doc["errors"][0] == {
        "pointer": "/trace",
        "message": "is not a field of this request",
        "code": "UNKNOWN_FIELD",
    }
