"""Every example in openapi.yaml is what the service really does.

The answer examples are generated (``openapi.answers``: each request example sent down its road,
each fetched answer asked of its view); these tests check that each is answered with the status it
is shown under, that a refused example stops the document, and that a client of the running app
gets the very answer shown, apart from the declared stand-ins for the build (``example_manifest``).
The problem examples are made from the problem types; each is compared with a real request's answer.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from flask import Flask
from flask.testing import FlaskClient
from quart_bezique.api import openapi
from quart_bezique.api.app import EXTENSION, create_app
from quart_bezique.api.config import Config, service_version
from quart_bezique.api.endpoints.endpoint import Endpoint
from quart_bezique.api.envelope import draining as draining_state
from quart_bezique.api.registry import ENDPOINTS
from quart_bezique.integrity import current_manifest
from quart_bezique.receipts import Keyring, Signer, SigningKey, thumbprint
from werkzeug.test import TestResponse

ROOT: Final = Path(__file__).resolve().parents[2]
SPEC: Final[dict[str, Any]] = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
JSON_MEDIA: Final = ("application/json", "application/jwk-set+json")

NO_EXAMPLE: Final = {
    "/openapi.yaml": "the document itself: an example would have to contain itself",
    "/openapi.json": "the document itself: an example would have to contain itself",
    "/docs": "an HTML page",
    "/adjudicate": "an HTML page",
    "/metrics": "counters that change with every request",
    "/v1/rounds/reconcile": "JSON Lines, streamed: docs/reconcile-http.md shows a run",
}
"""Operations whose 200 answer has no example, and why."""


def _operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            yield method, path, op


def _shown(op: dict[str, Any]) -> dict[str, Any]:
    """The answer examples ``op`` shows under 200, by name."""
    for media, body in op["responses"]["200"].get("content", {}).items():
        if media in JSON_MEDIA:
            return {name: example["value"] for name, example in body.get("examples", {}).items()}
    return {}


@pytest.fixture(scope="module")
def answered(app: Flask) -> dict[str, dict[str, openapi.Answer]]:
    """The answers ``make openapi`` shows, made again by the session's app."""
    return openapi.answers(ENDPOINTS, app, current_manifest(), service_version())


def test_every_json_answer_has_its_examples() -> None:
    for method, path, op in _operations():
        shown = _shown(op)
        if path in NO_EXAMPLE:
            assert not shown, path
        elif "requestBody" in op:
            requests = op["requestBody"]["content"]["application/json"]["examples"]
            assert list(shown) == list(requests), path
        else:
            assert len(shown) == 1, f"{method} {path}: no example of its 200 answer"


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: f"{e.method} {e.path}")
def test_each_example_is_answered_with_the_status_it_is_shown_under(
    answered: dict[str, dict[str, openapi.Answer]], endpoint: Endpoint
) -> None:
    operation = endpoint.operation
    names = list(operation.request_examples)
    if operation.answer_example is not None:
        names.append(operation.answer_example)
    got = answered.get(operation.operation_id, {})
    assert list(got) == names
    documented = _shown(SPEC["paths"][endpoint.path][endpoint.method.lower()])
    for name, answer in got.items():
        assert answer.status == 200, (name, answer.body)
        assert answer.body == documented[name], name


def test_an_example_the_service_refuses_stops_the_document(app: Flask) -> None:
    """A request example that drifted from the schema would otherwise be shown with a 422."""
    score = next(e for e in ENDPOINTS if e.path == "/v1/hands/score")
    short = dataclasses.replace(
        score,
        operation=dataclasses.replace(
            score.operation, request_examples={"short": {"cards": ["KS"]}}
        ),
    )
    answered = openapi.answers([short], app, current_manifest(), service_version())
    assert answered[score.name]["short"].status == 422
    with pytest.raises(ValueError, match="'short' is answered 422, not 200"):
        openapi.build_spec([short], app.extensions[EXTENSION].schemas, answered)


def test_an_example_without_its_answer_stops_the_document(app: Flask) -> None:
    score = next(e for e in ENDPOINTS if e.path == "/v1/hands/score")
    answered = openapi.answers([score], app, current_manifest(), service_version())
    del answered[score.name]["marriage_in_trumps"]
    with pytest.raises(ValueError, match=r"scoreHand: examples .*, answers to \['coronka_and_"):
        openapi.build_spec([score], app.extensions[EXTENSION].schemas, answered)


# ------------------------------------------------------------------------------------------------
# The shown answers against a client's: equal, apart from the build's declared stand-ins
# ------------------------------------------------------------------------------------------------


def _as_shown(answer: Any) -> Any:
    """A client's answer with the build described as the examples describe it: the running
    build's digest and manifest (checked to be this process's) replaced by those of
    ``example_manifest``."""
    if not isinstance(answer, dict) or "build" not in answer:
        return answer
    running, example = current_manifest(), openapi.example_manifest(current_manifest())
    assert answer["build"] == running.digest
    answer = {**answer, "build": example.digest}
    if "manifest" in answer:
        assert answer["manifest"] == orjson.loads(running.canonical())
        answer["manifest"] = orjson.loads(example.canonical())
    return answer


REQUEST_EXAMPLES: Final = [
    pytest.param(path, name, example["value"], id=f"{path} {name}")
    for method, path, op in _operations()
    if method == "post" and "application/json" in op["requestBody"]["content"]
    for name, example in op["requestBody"]["content"]["application/json"]["examples"].items()
]


@pytest.mark.parametrize(("path", "name", "body"), REQUEST_EXAMPLES)
def test_each_request_example_gets_the_shown_answer(
    client: FlaskClient, path: str, name: str, body: Any
) -> None:
    response = client.post(path, data=orjson.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.get_data()
    shown = _shown(SPEC["paths"][path]["post"])[name]
    assert _as_shown(orjson.loads(response.get_data())) == shown


@pytest.mark.parametrize(
    "path",
    [path for method, path, op in _operations() if method == "get" and path not in NO_EXAMPLE],
)
def test_each_fetched_answer_is_the_shown_one(client: FlaskClient, path: str) -> None:
    response = client.get(path, headers={"Accept": "application/json"})
    assert response.status_code == 200
    (shown,) = _shown(SPEC["paths"][path]["get"]).values()
    assert _as_shown(orjson.loads(response.get_data())) == shown


def test_the_shown_build_is_the_digest_of_the_shown_manifest() -> None:
    (shown,) = _shown(SPEC["paths"]["/v1/build"]["get"]).values()
    text = json.dumps(shown["manifest"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == shown["build"]
    assert sorted(shown["manifest"]["files"]) == sorted(openapi.EXAMPLE_FILES)
    (index,) = _shown(SPEC["paths"]["/"]["get"]).values()
    assert index["build"] == shown["build"]


def test_the_verification_example_matches() -> None:
    """The request example's ``response_sha256`` is the digest of the score example's answer."""
    (shown,) = _shown(SPEC["paths"]["/v1/verdicts/verify"]["post"]).values()
    assert shown["match"] is True
    assert shown["response_sha256"]["recorded"] == shown["response_sha256"]["recomputed"]


def test_the_examples_are_the_same_in_every_deployment() -> None:
    """Limits, keys and a signing key change the served schemas, never the examples."""
    private = Ed25519PrivateKey.generate()
    key = SigningKey(thumbprint(private.public_key()), private)
    signing = (
        Signer(key, version="1.0.0", build=current_manifest().digest),
        Keyring(key, (key.public,)),
    )
    config = Config(max_actions=3, max_batch_hands=1, api_keys=(b"k" * 32,), build_tables=False)
    deployed = create_app(config, audit_sink=lambda line: None, signing=signing)
    spec = deployed.extensions[EXTENSION].spec
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            assert _shown(spec["paths"][path][method]) == _shown(op), (method, path)


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
