"""openapi.yaml is the contract: committed, served byte for byte, complete, and exact."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from service.api import openapi
from service.api.app import create_app
from service.api.config import Config
from service.api.fields import CARD_PATTERN, TRUMP_PATTERN
from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING

EXPECTED_OPERATIONS = {
    ("post", "/v1/hands/score"),
    ("post", "/v1/hands/batch-score"),
    ("post", "/v1/hands/odds"),
    ("post", "/v1/showdown"),
    ("post", "/v1/betting/validate"),
    ("post", "/v1/rounds/settle"),
    ("get", "/v1/rules"),
    ("get", "/healthz"),
    ("get", "/readyz"),
    ("get", "/metrics"),
    ("get", "/openapi.yaml"),
    ("get", "/openapi.json"),
    ("get", "/docs"),
    ("get", "/"),
    ("get", "/adjudicate"),
    ("get", "/.well-known/jwks.json"),
    ("get", "/v1/build"),
    ("post", "/v1/verdicts/verify"),
}


def operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method, path) for path, item in spec["paths"].items() for method in item}


def test_served_yaml_is_the_committed_file(client: FlaskClient, repo_root: Path) -> None:
    served = client.get("/openapi.yaml")
    assert served.status_code == 200
    assert served.headers["Content-Type"] == "application/yaml"
    committed = (repo_root / "openapi.yaml").read_bytes()
    assert served.get_data() == committed, "openapi.yaml is stale: run `make openapi`"


def test_served_json_is_the_same_document(client: FlaskClient) -> None:
    as_yaml = yaml.safe_load(client.get("/openapi.yaml").get_data())
    as_json = orjson.loads(client.get("/openapi.json").get_data())
    assert as_json == as_yaml


def test_module_prints_the_committed_file(repo_root: Path) -> None:
    """`make openapi` runs exactly this command; its output must be what is committed."""
    printed = subprocess.run(
        [sys.executable, "-m", "service.api"],
        cwd=repo_root,
        capture_output=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "MAX_BATCH_HANDS": "7"},  # env must not leak in
    )
    assert printed.stdout == (repo_root / "openapi.yaml").read_bytes()
    assert b"Warning" not in printed.stderr


def test_every_route_is_an_operation(app: Flask) -> None:
    spec = app.extensions["quart_bezique"].spec
    assert spec["openapi"] == "3.1.0"
    assert operations(spec) == EXPECTED_OPERATIONS
    for rule in app.url_map.iter_rules():
        if rule.endpoint not in openapi.UNDOCUMENTED_ENDPOINTS:
            assert rule.rule in spec["paths"], rule.rule


def test_every_operation_documents_its_errors(app: Flask) -> None:
    spec = app.extensions["quart_bezique"].spec
    for path, item in spec["paths"].items():
        for method, op in item.items():
            assert op["operationId"] and op["summary"] and op["tags"]
            if method == "post":
                # 401: every /v1 operation, for deployments with API keys
                assert set(op["responses"]) == {"200", "400", "401", "413", "415", "422"}, path
                assert op["requestBody"]["required"] is True
    responses = spec["components"]["responses"]
    assert set(responses) >= {"NotFound", "MethodNotAllowed", "MalformedJson", "BodyTooLarge"}
    assert "Allow" in responses["MethodNotAllowed"]["headers"]
    for response in responses.values():
        assert list(response["content"]) == ["application/problem+json"]


def test_limits_in_the_spec_follow_the_configuration() -> None:
    app = create_app(Config(max_batch_hands=7, max_actions=3, build_tables=False))
    schemas = app.extensions["quart_bezique"].spec["components"]["schemas"]
    assert schemas["BatchScore"]["properties"]["hands"]["maxItems"] == 7
    assert schemas["Betting"]["properties"]["actions"]["maxItems"] == 3


def _ecma(pattern: str) -> re.Pattern[str]:
    """JSON Schema patterns are ECMA 262: ``$`` is the end of input, never before a newline."""
    return re.compile(pattern.replace("$", r"\Z"))


ALPHABET = "910TtJjQqKkAaSsCcHhDd♠♣♥♦Xx0 \nВвДдКкТтПпЧчБб"


def _strings(max_length: int) -> list[str]:
    found = [""]
    layer = [""]
    for _ in range(max_length):
        layer = [s + c for s in layer for c in ALPHABET]
        found.extend(layer)
    return found


@pytest.mark.parametrize(
    ("pattern", "accepted"), [(CARD_PATTERN, CARD_BY_SPELLING), (TRUMP_PATTERN, SUIT_BY_SPELLING)]
)
def test_patterns_describe_exactly_what_the_parser_accepts(
    pattern: str, accepted: dict[str, object]
) -> None:
    regex = _ecma(pattern)
    for text in _strings(3):
        assert bool(regex.match(text)) == (text in accepted), repr(text)
    assert all(regex.match(text) for text in accepted)
