"""GET /v1/rules, /healthz, /readyz, /docs and its assets, through Flask's test client."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints import health as meta
from quart_bezique.api.envelope import draining as draining_state
from quart_bezique.game import scoring
from quart_bezique.game.betting import MAX_MONEY, ReasonCode
from quart_bezique.game.cards import CARD_BY_SPELLING, RANKS

from tests.api.api_support import ok, problem


def test_rules_are_the_cores_tables(client: FlaskClient) -> None:
    rules = ok(client.get("/v1/rules"))
    assert rules["ruleset"] == "classic/1"
    assert {r["code"]: r["points"] for r in rules["cards"]["ranks"]} == {
        "9": 0,
        "10": 1,
        "J": 1,
        "Q": 1,
        "K": 1,
        "A": 0,
    }
    assert [s["code"] for s in rules["cards"]["suits"]] == ["S", "C", "H", "D"]
    combos = {c["type"]: c for c in rules["combinations"]}
    assert combos["three_of_a_kind"]["points"] == 6
    assert combos["four_of_a_kind"]["points_by_rank"] == {
        "9": 9,
        "10": 9,
        "J": 9,
        "Q": 9,
        "K": 8,
        "A": 0,
    }
    assert combos["marriage"]["points"] == 4
    assert combos["bezique"]["points"] == 4
    assert combos["double_bezique"]["points"] == 9
    assert combos["coronka"]["points_by_length"] == {"3": 6, "4": 9}
    assert rules["trump"]["factor"] == 2
    assert rules["shoe"] == {"decks": 6, "copies_per_card": 6, "cards": 144}
    assert rules["hand_size"] == 4
    assert rules["betting"]["money"] == {"min": 1, "max": MAX_MONEY}
    assert rules["betting"]["reason_codes"] == [c.value for c in ReasonCode]
    assert rules["limits"]["max_batch_hands"] == 10_000
    assert rules["limits"]["max_actions"] == 1_000
    assert rules["limits"]["max_body_bytes"] == 1024 * 1024


def test_rules_card_pattern_accepts_every_spelling(client: FlaskClient) -> None:
    rules = ok(client.get("/v1/rules"))
    pattern = re.compile(rules["cards"]["pattern"].replace("$", r"\Z"))  # ECMA-262 "$"
    assert all(pattern.match(s) for s in CARD_BY_SPELLING)
    assert [r["code"] for r in rules["cards"]["ranks"]] == [r.value for r in RANKS]


def test_rules_follow_the_core_constants(client: FlaskClient) -> None:
    rules = ok(client.get("/v1/rules"))
    combos = {c["type"]: c for c in rules["combinations"]}
    assert combos["marriage"]["points"] == scoring.MARRIAGE_POINTS
    assert combos["double_bezique"]["points"] == scoring.DOUBLE_BEZIQUE_POINTS


def test_healthz(client: FlaskClient) -> None:
    assert ok(client.get("/healthz")) == {"status": "ok"}


@pytest.fixture()
def draining() -> Iterator[None]:
    draining_state.mark_draining()
    try:
        yield
    finally:
        draining_state._draining = False


def test_readyz_when_tables_are_built(client: FlaskClient) -> None:
    assert scoring.tables_ready()
    assert ok(client.get("/readyz")) == {"status": "ready"}


@pytest.mark.usefixtures("draining")
def test_readyz_reports_not_ready_while_draining(client: FlaskClient) -> None:
    response = client.get("/readyz")
    problem(response, 503, "NOT_READY")
    assert response.headers["Retry-After"] == "1"
    assert ok(client.get("/healthz")) == {"status": "ok"}  # alive all the same


@pytest.mark.usefixtures("draining")
def test_a_stopping_worker_still_serves_the_contract() -> None:
    """The contract's examples show a serving worker's answers: a worker asked to stop builds
    the document as any other (its own ``/readyz`` says 503, the document's example 200)."""
    app = create_app(Config())
    response = app.test_client().get("/openapi.json")
    assert response.status_code == 200
    assert b'"status":"ready"' in response.get_data()
    problem(app.test_client().get("/readyz"), 503, "NOT_READY")


def test_readyz_reports_not_ready_before_the_tables(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meta, "tables_ready", lambda: False)
    doc = problem(client.get("/readyz"), 503, "NOT_READY")
    assert "tables" in doc["detail"]


def test_docs_page_is_served_with_a_strict_csp(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    page = response.get_data(as_text=True)
    assert "http://" not in page and "https://" not in page  # no CDN, nothing off-site
    assert "<script>" not in page  # no inline script


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/docs/static/swagger-ui/swagger-ui-bundle.js", "text/javascript"),
        ("/docs/static/swagger-ui/swagger-ui.css", "text/css"),
        ("/docs/static/swagger-ui/favicon-32x32.png", "image/png"),
        ("/docs/static/docs.js", "text/javascript"),
    ],
)
def test_docs_assets_are_served_locally(client: FlaskClient, path: str, media: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith(media)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    response.close()


def test_missing_docs_asset_is_a_404_problem(client: FlaskClient) -> None:
    problem(client.get("/docs/static/nope.js"), 404, "NOT_FOUND")
