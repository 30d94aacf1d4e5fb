"""A batch body's values are bounded once per request.

The batch tries its typed decoder first and, when that refuses the body, parses it for the schema
to explain: the bound on the body's values (``budget.refuse_excess``, a pass over every byte of a
large body) is for the body, not for each decoder, so it runs once whichever road answers.
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest
from flask import Flask
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.envelope import body, budget, road

CONFIG = Config(max_batch_hands=10, max_actions=10, audit_log=False)
BUDGET = budget.value_budget(CONFIG)
HAND = {"cards": ["KS", "QS", "JS", "JC"]}


@pytest.fixture(scope="module")
def app() -> Flask:
    return create_app(CONFIG, audit_sink=lambda line: None)


@pytest.fixture()
def passes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the bound ran, and how many of those counted the body's values."""
    calls = [0, 0]
    check, count = budget.refuse_excess, budget.values_bound

    def counted_check(data: bytes, limit: int) -> None:
        calls[0] += 1
        check(data, limit)

    def counted_bound(data: bytes) -> int:
        calls[1] += 1
        return count(data)

    monkeypatch.setattr(budget, "values_bound", counted_bound)
    for module in (road, body):  # wherever the road reaches the check from
        monkeypatch.setattr(module, "refuse_excess", counted_check, raising=False)
    yield calls


@pytest.mark.parametrize(
    ("name", "request_body", "status"),
    [
        ("answered", {"hands": [HAND] * 10}, 200),
        ("refused", {"hands": [HAND], "padding": None}, 422),
        ("refused, large", {"hands": [{**HAND, "trump": "x" * BUDGET}]}, 422),
        ("too many values", {"hands": [HAND] * 10, "breakdown": [[]] * BUDGET}, 413),
    ],
)
def test_a_batch_is_bounded_once(
    app: Flask, passes: list[int], name: str, request_body: object, status: int
) -> None:
    data = orjson.dumps(request_body)
    with app.test_client() as client:
        answer = client.post(
            "/v1/hands/batch-score", data=data, headers={"Content-Type": "application/json"}
        )
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert passes[0] == 1, name
    assert passes[1] == (1 if len(data) >= BUDGET else 0), name
