"""Every example in openapi.yaml is what the service really does.

The examples are data in the operations (``response_examples``) and in ``openapi.PROBLEM_EXAMPLES``,
never computed at start-up: these tests make each documented request and compare the answer with
the documented one, JSON value for JSON value, so an example that drifts from the service fails
here instead of misleading a reader of /docs or a generated client's tests.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.api.app import create_app
from service.api.config import Config
from service.api.envelope import draining as draining_state

ROOT: Final = Path(__file__).resolve().parents[2]
SPEC: Final[dict[str, Any]] = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
JSON_MEDIA: Final = ("application/json", "application/jwk-set+json")

NO_EXAMPLE: Final = {
    "/openapi.yaml": "the document itself: an example would have to contain itself",
    "/openapi.json": "the document itself: an example would have to contain itself",
    "/docs": "an HTML page",
    "/adjudicate": "an HTML page",
    "/metrics": "counters that change with every request",
}
"""Operations whose 200 answer has no example, and why."""

DIGEST: Final = re.compile(r"^[0-9a-f]{64}$")
BUILT: Final = frozenset({"/", "/v1/build", "/v1/verdicts/verify"})
"""Answers naming the running build by its digest, which changes with every change to the code."""


def _operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            yield method, path, op


def _ok_content(op: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = op["responses"]["200"].get("content", {})
    return content


def _response_examples(op: dict[str, Any]) -> dict[str, Any]:
    for media, body in _ok_content(op).items():
        if media in JSON_MEDIA:
            return {name: example["value"] for name, example in body.get("examples", {}).items()}
    return {}


def _unbuilt(path: str, body: Any) -> Any:
    """``body`` with the build's digests checked for their form, then replaced by a marker (and a
    manifest's files by their names: the documented one lists three of them)."""
    if path not in BUILT:
        return body
    body = orjson.loads(orjson.dumps(body))
    assert DIGEST.match(body["build"]), body["build"]
    body["build"] = "<build>"
    manifest = body.get("manifest")
    if manifest is not None:
        assert all(DIGEST.match(digest) for digest in manifest["files"].values())
        assert re.fullmatch(r"\d+\.\d+\.\d+\S*", manifest["python"]), manifest["python"]
        manifest["python"] = "<python>"
        manifest["files"] = sorted(manifest["files"])
        manifest["dependencies"] = sorted(manifest["dependencies"])
    return body


def _same(path: str, answer: Any, documented: Any) -> None:
    answer, documented = _unbuilt(path, answer), _unbuilt(path, documented)
    if path == "/v1/build":
        shown = documented["manifest"].pop("files")
        assert set(shown) <= set(answer["manifest"].pop("files")), shown
    assert answer == documented


REQUEST_EXAMPLES: Final = [
    pytest.param(path, name, example["value"], id=f"{path} {name}")
    for method, path, op in _operations()
    if method == "post"
    for name, example in op["requestBody"]["content"]["application/json"]["examples"].items()
]


def test_every_operation_with_a_body_has_request_and_answer_examples() -> None:
    for method, path, op in _operations():
        if path in NO_EXAMPLE:
            assert not _response_examples(op), path
            continue
        answers = _response_examples(op)
        assert answers, f"{method} {path}: no example of its 200 answer"
        if "requestBody" in op:
            requests = op["requestBody"]["content"]["application/json"]["examples"]
            assert set(requests) == set(answers), path
        else:
            assert len(answers) == 1, path


@pytest.mark.parametrize(("path", "name", "body"), REQUEST_EXAMPLES)
def test_each_request_example_gets_the_documented_answer(
    client: FlaskClient, path: str, name: str, body: Any
) -> None:
    response = client.post(path, data=orjson.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.get_data()
    op = SPEC["paths"][path]["post"]
    _same(path, orjson.loads(response.get_data()), _response_examples(op)[name])


@pytest.mark.parametrize(
    "path",
    [path for method, path, op in _operations() if method == "get" and path not in NO_EXAMPLE],
)
def test_each_answer_example_of_a_fetch_is_the_answer(client: FlaskClient, path: str) -> None:
    response = client.get(path, headers={"Accept": "application/json"})
    assert response.status_code == 200
    (documented,) = _response_examples(SPEC["paths"][path]["get"]).values()
    _same(path, orjson.loads(response.get_data()), documented)


# ------------------------------------------------------------------------------------------------
# Problems: each documented problem document, and a real request that gets it
# ------------------------------------------------------------------------------------------------

SCORE: Final = "/v1/hands/score"
JSON: Final = "application/json"
KEY: Final = "a-documented-example-key-0123456789"


def _keyed_app() -> Flask:
    keys = (hashlib.sha256(KEY.encode("ascii")).digest(),)
    return create_app(Config(api_keys=keys, build_tables=False), audit_sink=lambda line: None)


def _refusing_audit_app() -> Flask:
    """An app whose audit sink refuses every line (a full pipe, a broken log)."""
    return create_app(Config(build_tables=False), audit_sink=lambda line: False)


def _draining(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> TestResponse:
    monkeypatch.setattr(draining_state, "_draining", True)
    return client.get("/readyz")


Request = Callable[[FlaskClient, pytest.MonkeyPatch], TestResponse]
PROBLEM_REQUESTS: Final[dict[tuple[str, str], Request]] = {
    ("MalformedJson", "truncated_body"): lambda c, _: c.post(SCORE, data=b"{", content_type=JSON),
    ("Unauthorized", "no_key"): lambda _, __: _keyed_app().test_client().post(SCORE, json={}),
    ("BodyTooLarge", "too_many_bytes"): lambda c, _: c.post(
        SCORE, data=b" " * (1024 * 1024 + 1), content_type=JSON
    ),
    ("UnsupportedMediaType", "text_plain"): lambda c, _: c.post(
        SCORE, data=b"{}", content_type="text/plain"
    ),
    ("Unprocessable", "validation_error"): lambda c, _: c.post(SCORE, json={"cards": ["KS"]}),
    ("Unprocessable", "rules_violation"): lambda c, _: c.post(
        "/v1/showdown",
        json={
            "hands": [
                {"player": "ann", "cards": ["KS", "KS", "KS", "KS"]},
                {"player": "bob", "cards": ["KS", "KS", "KS", "QS"]},
            ]
        },
    ),
    ("NotReady", "shutting_down"): _draining,
    ("ClientError", "not_found"): lambda c, _: c.get("/v1/hand/score"),
    ("ClientError", "method_not_allowed"): lambda c, _: c.get(SCORE),
    ("ServerError", "shutting_down"): _draining,
    ("ServerError", "audit_unavailable"): lambda _, __: (
        _refusing_audit_app().test_client().post(SCORE, json={"cards": ["KS", "QS", "JS", "JC"]})
    ),
}
"""For each example of a problem response in the document: a request that gets it."""


def _problem_examples() -> dict[tuple[str, str], Any]:
    found = {}
    for name, response in SPEC["components"]["responses"].items():
        content = response["content"]["application/problem+json"]
        for example, value in content.get("examples", {}).items():
            found[name, example] = value["value"]
    return found


def test_every_problem_example_has_its_request() -> None:
    assert set(_problem_examples()) == set(PROBLEM_REQUESTS)


@pytest.mark.parametrize("key", sorted(PROBLEM_REQUESTS), ids="/".join)
def test_each_problem_example_is_what_its_request_gets(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, key: tuple[str, str]
) -> None:
    documented = _problem_examples()[key]
    response = PROBLEM_REQUESTS[key](client, monkeypatch)
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.status_code == documented["status"]
    assert orjson.loads(response.get_data()) == documented
