"""openapi.yaml is the contract: committed, served byte for byte, complete, and exact."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from quart_bezique.api import openapi
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.contract.fields import CARD_PATTERN, TRUMP_PATTERN
from quart_bezique.api.endpoints.endpoint import ASSETS
from quart_bezique.game.betting import ActionType
from quart_bezique.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING

EXPECTED_OPERATIONS = {
    ("post", "/v1/rounds/adjudicate"),
    ("post", "/v1/rounds/reconcile"),
    ("get", "/v1/rulesets"),
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
    """`make openapi` runs exactly this command; its output must be what is committed. It runs in
    another process, under another hash seed than the served document's: the generated answer
    examples depend on neither (nor on the machine, but for the installed dependencies' versions,
    which constraints.txt pins)."""
    printed = subprocess.run(
        [sys.executable, "-m", "quart_bezique.api"],
        cwd=repo_root,
        capture_output=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "MAX_BATCH_HANDS": "7"},  # env must not leak in
    )
    committed = (repo_root / "openapi.yaml").read_bytes()
    assert printed.stdout == committed, "openapi.yaml is stale: run `make openapi`"
    assert b"Warning" not in printed.stderr


def test_every_route_is_an_operation(app: Flask) -> None:
    spec = app.extensions["quart_bezique"].spec
    assert spec["openapi"] == "3.1.0"
    assert operations(spec) == EXPECTED_OPERATIONS
    for rule in app.url_map.iter_rules():
        if not rule.rule.endswith(ASSETS + "/<path:filename>"):  # a page's assets
            assert rule.rule in spec["paths"], rule.rule


def test_every_operation_documents_its_errors(app: Flask) -> None:
    """A generated client types every answer the server can give: the explicit statuses, and the
    4XX/5XX ranges every route can get (404, 405, 408, 413; 500, 503) as problem documents."""
    spec = app.extensions["quart_bezique"].spec
    for path, item in spec["paths"].items():
        for method, op in item.items():
            assert op["operationId"] and op["summary"] and op["tags"]
            responses = op["responses"]
            assert responses["4XX"] == {"$ref": "#/components/responses/ClientError"}, path
            assert responses["5XX"] == {"$ref": "#/components/responses/ServerError"}, path
            if method == "post":
                # 401: every /v1 operation, for deployments with API keys
                expected = {"200", "400", "401", "413", "415", "422", "4XX", "5XX"}
                assert set(responses) == expected, path
                assert op["requestBody"]["required"] is True
    responses = spec["components"]["responses"]
    assert set(responses) >= {"ClientError", "ServerError", "MalformedJson", "BodyTooLarge"}
    assert "Allow" in responses["ClientError"]["headers"]
    assert "Retry-After" in responses["ServerError"]["headers"]
    for name, response in responses.items():
        assert list(response["content"]) == ["application/problem+json"]
        assert response["content"]["application/problem+json"]["examples"], name


def test_security_is_explicit_on_every_operation(app: Flask) -> None:
    """/v1 takes a key or none (the deployment decides); everything else is open, and says so,
    so no generator applies a key to it."""
    spec = app.extensions["quart_bezique"].spec
    assert spec["servers"] == [{"url": "/"}]
    assert "security" not in spec
    for path, item in spec["paths"].items():
        for op in item.values():
            if path.startswith("/v1/"):
                assert op["security"] == [{"apiKey": []}, {}], path
            else:
                assert op["security"] == [], path


def test_the_documents_are_typed_as_what_is_sent(app: Flask) -> None:
    paths = app.extensions["quart_bezique"].spec["paths"]
    as_yaml = paths["/openapi.yaml"]["get"]["responses"]["200"]["content"]
    assert list(as_yaml) == ["application/yaml"]
    assert as_yaml["application/yaml"]["schema"]["type"] == "string"
    as_json = paths["/openapi.json"]["get"]["responses"]["200"]["content"]["application/json"]
    assert as_json["schema"]["type"] == "object"
    assert as_json["schema"]["additionalProperties"] is True


def test_an_action_is_a_union_discriminated_by_its_type(app: Flask) -> None:
    """One schema per action type; ``fold`` alone has no ``amount``, the others require it."""
    schemas = app.extensions["quart_bezique"].spec["components"]["schemas"]
    action = schemas["Action"]
    mapping = action["discriminator"]["mapping"]
    assert action["discriminator"]["propertyName"] == "type"
    assert set(mapping) == {t.value for t in ActionType}
    assert [v["$ref"] for v in action["oneOf"]] == list(mapping.values())
    for kind, ref in mapping.items():
        variant = schemas[ref.rsplit("/", 1)[1]]
        assert variant["properties"]["type"] == {"type": "string", "const": kind}
        assert variant["additionalProperties"] is False
        if kind == ActionType.FOLD:
            assert set(variant["properties"]) == {"player", "type"}
            assert variant["required"] == ["player", "type"]
        else:
            assert set(variant["required"]) == {"player", "type", "amount"}
    assert not {"if", "then", "else"} & set(action)


def _walk(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            if key not in ("example", "examples"):
                yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{where}/{index}")


def test_shared_value_sets_are_components_used_by_reference(app: Flask) -> None:
    """Each shared enumeration or spelling is defined once, so a generator makes one type of it."""
    spec = app.extensions["quart_bezique"].spec
    shared = {**openapi.SHARED_ENUMS, **openapi.SHARED_PATTERNS}
    schemas = spec["components"]["schemas"]
    assert set(shared) <= set(schemas)
    refs = {
        node["$ref"].rsplit("/", 1)[1]
        for _, node in _walk(spec)
        if isinstance(node.get("$ref"), str)
    }
    assert set(shared) <= refs, set(shared) - refs
    for where, node in _walk(spec):
        owner = where.split("/")[3] if where.startswith("/components/schemas/") else None
        if owner in shared:
            continue
        assert node.get("pattern") not in (CARD_PATTERN, TRUMP_PATTERN), where
        if "enum" in node:
            values = tuple(v for v in node["enum"] if v is not None)
            assert values not in {v for _, v in openapi.SHARED_ENUMS.values()}, where


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
