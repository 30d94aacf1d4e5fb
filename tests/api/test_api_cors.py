"""CORS: off by default; with ``CORS_ORIGINS`` set, the named origins may call from a browser."""

from __future__ import annotations

import hashlib

import pytest
from flask import Flask
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config, ConfigError

GAME = "https://game.example"
KEY = "cors-test-key-0123456789abcdef"
SCORE = "/v1/hands/score"
BODY = {"cards": ["KS", "QS", "JS", "JC"]}
PREFLIGHT = {
    "Origin": GAME,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


def _app(origins: tuple[str, ...] = (), keyed: bool = True) -> Flask:
    keys = (hashlib.sha256(KEY.encode()).digest(),) if keyed else ()
    config = Config(build_tables=False, api_keys=keys, cors_origins=origins)
    return create_app(config, audit_sink=lambda line: None)


def test_cors_is_off_by_default() -> None:
    client = _app().test_client()
    preflight = client.options(SCORE, headers=PREFLIGHT)
    assert "Access-Control-Allow-Origin" not in preflight.headers
    answer = client.post(
        SCORE, json=BODY, headers={"Origin": GAME, "Authorization": f"Bearer {KEY}"}
    )
    assert answer.status_code == 200
    assert "Access-Control-Allow-Origin" not in answer.headers


def test_a_preflight_from_an_allowed_origin_is_answered_without_a_key() -> None:
    response = _app((GAME,)).test_client().options(SCORE, headers=PREFLIGHT)
    assert response.status_code == 204
    assert response.get_data() == b""
    assert response.headers["Access-Control-Allow-Origin"] == GAME
    assert response.headers["Access-Control-Allow-Methods"] == "POST"
    allowed = response.headers["Access-Control-Allow-Headers"]
    assert "Authorization" in allowed and "Content-Type" in allowed
    assert response.headers["Vary"] == "Origin"
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_the_actual_request_still_needs_its_key() -> None:
    client = _app((GAME,)).test_client()
    refused = client.post(SCORE, json=BODY, headers={"Origin": GAME})
    assert refused.status_code == 401
    assert refused.headers["Access-Control-Allow-Origin"] == GAME  # the page may read why
    answer = client.post(
        SCORE, json=BODY, headers={"Origin": GAME, "Authorization": f"Bearer {KEY}"}
    )
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == GAME
    assert "X-Request-ID" in answer.headers["Access-Control-Expose-Headers"]


@pytest.mark.parametrize(
    "headers",
    [
        {**PREFLIGHT, "Origin": "https://evil.example"},
        {**PREFLIGHT, "Access-Control-Request-Method": "DELETE"},
    ],
)
def test_a_preflight_not_allowed_gets_no_allowing_headers(headers: dict[str, str]) -> None:
    response = _app((GAME,)).test_client().options(SCORE, headers=headers)
    assert response.status_code == 204
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Methods" not in response.headers


def test_an_unknown_path_gets_no_cors_and_stays_protected() -> None:
    client = _app((GAME,)).test_client()
    assert client.options("/v1/nope", headers=PREFLIGHT).status_code == 401
    response = client.post("/v1/nope", json=BODY, headers={"Origin": GAME})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_a_wildcard_allows_any_origin() -> None:
    client = _app(("*",), keyed=False).test_client()
    answer = client.post(SCORE, json=BODY, headers={"Origin": "https://any.example"})
    assert answer.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize(
    "raw", ["game.example", "https://game.example/path", "ftp://x", "https://"]
)
def test_a_malformed_origin_refuses_to_start(raw: str) -> None:
    with pytest.raises(ConfigError, match="CORS_ORIGINS"):
        Config.from_env({"CORS_ORIGINS": raw})


def test_origins_are_read_from_the_environment() -> None:
    config = Config.from_env({"CORS_ORIGINS": f"{GAME}, https://b.example/"})
    assert config.cors_origins == (GAME, "https://b.example")
