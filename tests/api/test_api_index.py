"""``GET /`` and the answers that point a lost caller to the right place."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from quart_bezique.api.config import service_version
from quart_bezique.game.ruleset import RULESET

from tests.api.api_support import ok, problem


def test_the_root_is_a_json_index_of_the_service(client: FlaskClient) -> None:
    index = ok(client.get("/"))
    assert index["service"] == "quart-bezique"
    assert index["version"] == service_version()
    assert index["ruleset"] == RULESET
    for name in ("docs", "openapi_json", "openapi_yaml", "rules"):
        link = index["links"][name]
        assert client.get(link).status_code == 200, link


@pytest.mark.parametrize(
    ("sent", "meant"),
    [
        ("/v1/hands/score/", "/v1/hands/score"),
        ("/v1//hands/score", "/v1/hands/score"),
        ("/V1/Hands/Score", "/v1/hands/score"),
        ("/healthz/", "/healthz"),
    ],
)
def test_a_near_miss_is_told_the_right_path(client: FlaskClient, sent: str, meant: str) -> None:
    doc = problem(client.post(sent, json={}), 404, "NOT_FOUND")
    assert doc["detail"].endswith(f"did you mean {meant}?")


def test_a_plain_miss_suggests_nothing(client: FlaskClient) -> None:
    doc = problem(client.get("/v1/nothing-here"), 404, "NOT_FOUND")
    assert doc["detail"] == "no resource at /v1/nothing-here"


def test_a_long_path_is_clipped_in_the_detail(client: FlaskClient) -> None:
    doc = problem(client.get("/" + "x" * 5000), 404, "NOT_FOUND")
    assert len(doc["detail"]) < 300


def test_a_missing_content_type_reads_naturally(client: FlaskClient) -> None:
    doc = problem(client.post("/v1/hands/score", data=b"{}"), 415, "UNSUPPORTED_MEDIA_TYPE")
    assert doc["detail"] == (
        "the body must be sent as application/json; no Content-Type header was sent"
    )
    doc = problem(client.post("/v1/hands/score", data=b"{}", content_type="text/plain"), 415)
    assert doc["detail"].endswith("it was sent as text/plain")


@pytest.mark.parametrize(
    ("accept", "page"),
    [
        (None, False),
        ("*/*", False),
        ("application/json", False),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", True),
    ],
)
def test_a_browser_is_sent_to_the_page(client: FlaskClient, accept: str | None, page: bool) -> None:
    response = client.get("/", headers={"Accept": accept} if accept else {})
    if page:
        assert response.status_code == 303
        assert (
            response.headers["Location"] == "/adjudicate"
        )  # a path: no Host taken from the request
    else:
        assert response.status_code == 200 and response.get_json()["service"] == "quart-bezique"
