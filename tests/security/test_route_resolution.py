"""Route-based protection: whatever the spelling of a path, the route it resolves to decides
whether a key is needed, how it is audited and labelled, and which view answers.

The attack these pin: ``POST /%2Fv1/hands/score`` (``PATH_INFO`` ``//v1/hands/score``) was scored
without a key, because protection tested the raw path while Werkzeug, stripping leading slashes,
routed it to the score view. Tests go through the whole WSGI stack (envelope and Flask), with the
test client, which hands ``PATH_INFO`` over decoded as gunicorn does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.envelope.routes import RESOLUTION_KEY, Router
from werkzeug.test import EnvironBuilder

API_KEY = "route-resolution-key-0123456789"
AUTH = {"Authorization": f"Bearer {API_KEY}"}
SCORE_BODY = {"cards": ["KS", "QS", "JS", "JC"]}
ANN = "ann\u2028x\u2029"
SETTLE_BODY = {
    "players": [ANN, "bob"],
    "dealer": "bob",
    "ante": 5,
    "actions": [
        {"player": ANN, "type": "stake", "amount": 5},
        {"player": "bob", "type": "open", "amount": 5},
    ],
    "hands": {ANN: ["KH", "QH", "9S", "9C"], "bob": ["KD", "QD", "AS", "AC"]},
}
"""A player id holding the two line separators JSON allows raw (the verdict names the player)."""


class Keyed:
    """The app with one API key configured; its audit lines land in a list."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        config = Config(api_keys=(hashlib.sha256(API_KEY.encode()).digest(),))
        self.app: Flask = create_app(config, audit_sink=self.lines.append)
        self.client = self.app.test_client()
        self.router: Router = self.app.extensions["quart_bezique"].observer.router

    def records(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.lines]


@pytest.fixture(scope="module")
def keyed() -> Iterator[Keyed]:
    yield Keyed()


def _v1_routes(app: Flask) -> list[tuple[str, str]]:
    """Every (method, template) of ``/v1``: the routes that must never answer without a key."""
    return sorted(
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/v1/")
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    )


def _spellings(template: str) -> list[str]:
    """Other spellings of one path: what a client, a proxy or a URL parser might send."""
    slashes = [i for i, c in enumerate(template) if c == "/"]
    out = {
        "/" + template,
        "//" + template,
        "/%2F" + template[1:],
        "/%2f" + template[1:],
        "/%2F%2F" + template[1:],
        "/./" + template[1:],
        "/x/.." + template,
        template + "/",
        template + "//",
        template + "/.",
        template.upper(),
        template.replace("/v1/", "/V1/"),
        template + "%00",
        template + ";x=1",
    }
    for i in slashes:
        out.add(template[:i] + "/" + template[i:])
        out.add(template[:i] + "%2F" + template[i + 1 :])
        out.add(template[:i] + "/./" + template[i + 1 :])
    out.discard(template)
    return sorted(out)


def test_every_spelling_of_every_v1_path_is_refused_or_no_verdict(keyed: Keyed) -> None:
    """Each spelling of each ``/v1`` route, without a key: a 401, never a verdict."""
    checked = 0
    for method, template in _v1_routes(keyed.app):
        for path in _spellings(template):
            before = len(keyed.lines)
            response = keyed.client.open(path, method=method, json=SCORE_BODY)
            assert response.status_code == 401, (method, path, response.status_code)
            assert b'"score"' not in response.get_data()
            (line,) = keyed.lines[before:]
            record = orjson.loads(line)
            assert record["status"] == 401
            assert "path" not in record, "a refused request's raw path is never logged"
            assert record["endpoint"] in (template, "unmatched")
            checked += 1
    assert checked > 100


def test_the_absolute_form_is_routed_by_its_path(keyed: Keyed) -> None:
    """``POST http://host//v1/...``: the server hands over the path; the path decides."""
    for target in ("http://evil.example//v1/hands/score", "http://localhost/v1/hands/score"):
        environ = EnvironBuilder(method="POST", json=SCORE_BODY).get_environ()
        environ["PATH_INFO"] = target.split("example", 1)[-1].split("localhost", 1)[-1]
        environ["REQUEST_URI"] = target
        response = keyed.client.open(environ)
        assert response.status_code == 401


def test_the_key_opens_only_the_exact_spelling(keyed: Keyed) -> None:
    assert keyed.client.post("/v1/hands/score", json=SCORE_BODY, headers=AUTH).status_code == 200
    for path in ("/%2Fv1/hands/score", "/%2f%2Fv1/hands/score", "/v1/hands/score/"):
        response = keyed.client.post(path, json=SCORE_BODY, headers=AUTH)
        assert response.status_code == 404, path
        record = keyed.records()[-1]
        assert record["endpoint"] == "unmatched"
        assert record["verdict"] == {"code": "NOT_FOUND"}
        decoded = path.replace("%2F", "/").replace("%2f", "/")
        assert record["path"] == decoded, "an authenticated miss logs its path"


def test_no_answer_is_a_redirect(keyed: Keyed) -> None:
    """A redirect's Location would come from the client's Host header: there are none."""
    for path in ("/docs//static/x", "/docs/", "//docs", "/openapi.json/", "/healthz//"):
        response = keyed.client.get(path, headers={"Host": "evil.example", **AUTH})
        assert response.status_code == 404, path
        assert "Location" not in response.headers


def test_head_answers_have_no_body(keyed: Keyed) -> None:
    for path, headers in (("/v1/rules", {}), ("/v1/rules", AUTH), ("/healthz", {}), ("/nope", {})):
        response = keyed.client.head(path, headers=headers)
        assert response.get_data() == b"", (path, response.status_code)
        assert int(response.headers["Content-Length"]) > 0


def test_line_separators_are_escaped_in_the_audit_line(keyed: Keyed) -> None:
    before = len(keyed.lines)
    response = keyed.client.post("/v1/rounds/settle", json=SETTLE_BODY, headers=AUTH)
    assert response.status_code == 200
    assert ANN.encode() in response.get_data(), "the verdict names the player (raw is valid JSON)"
    (line,) = keyed.lines[before:]
    assert b"ann\\u2028x\\u2029" in line
    assert "\u2028".encode() not in line and "\u2029".encode() not in line
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert ANN in orjson.loads(line)["verdict"]["winners"]


PIECES = st.sampled_from(
    ["/", "//", "v1", "V1", "hands", "score", "batch-score", "odds", "showdown", "betting",
     "validate", "rounds", "settle", "rules", "docs", "static", "healthz", "readyz", "metrics",
     "openapi.json", ".", "..", "%2F", "%2f", ";", "x", "", "%00", "\xe2\x80\xa8"]
)  # fmt: skip
METHODS = st.sampled_from(["GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"])


def _environ(method: str, path: str) -> dict[str, Any]:
    environ: dict[str, Any] = EnvironBuilder(method=method).get_environ()
    environ["PATH_INFO"] = path
    return environ


@settings(
    max_examples=600,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(PIECES, min_size=1, max_size=8).map("".join), METHODS)
def test_the_fast_table_agrees_with_the_full_match(path: str, method: str) -> None:
    """The dictionary lookup is derived from Werkzeug's match: both resolve every path alike."""
    router = _router()
    fast = router.resolve(_environ(method, path))
    full = router.match(_environ(method, path))
    assert fast.route == full.route
    assert fast.rule is full.rule
    assert type(fast.error) is type(full.error)


@settings(
    max_examples=600,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(PIECES, min_size=1, max_size=8).map(lambda parts: "/" + "".join(parts)), METHODS)
def test_no_path_reaching_a_v1_view_is_unprotected(path: str, method: str) -> None:
    """Whatever resolves to a ``/v1`` rule is protected; whatever resolves to none is too."""
    resolution = _router().resolve(_environ(method, path))
    if resolution.rule is None or resolution.rule.rule.startswith("/v1"):
        assert resolution.route.protected, path
    if resolution.rule is not None:
        assert path == resolution.rule.rule or "<" in resolution.rule.rule


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(PIECES, min_size=1, max_size=8).map(lambda parts: "/" + "".join(parts)))
def test_no_path_gives_a_verdict_without_a_key(path: str) -> None:
    """End to end: a POST with a valid verdict body and no key is never answered 200."""
    app = _keyed_app()
    environ = EnvironBuilder(method="POST", json=SCORE_BODY).get_environ()
    environ["PATH_INFO"] = path  # as the server hands it over (no URL parsing on the way)
    seen: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
        seen.append(status)
        return lambda data: None

    body = b"".join(app.wsgi_app(environ, start_response))
    assert not seen[0].startswith("200") or b'"score"' not in body, path


def test_flask_dispatches_on_the_envelopes_resolution(keyed: Keyed) -> None:
    """One match: the view Flask runs is the one the envelope resolved (it does not match again)."""
    seen: list[Any] = []
    view = keyed.app.view_functions["health"]

    def spy() -> Any:
        from flask import request

        seen.append(request.environ[RESOLUTION_KEY].rule.rule)
        return view()

    keyed.app.view_functions["health"] = spy
    try:
        assert keyed.client.get("/healthz").status_code == 200
    finally:
        keyed.app.view_functions["health"] = view
    assert seen == ["/healthz"]


_cache: dict[str, Any] = {}


def _router() -> Router:
    return _keyed_app().extensions["quart_bezique"].observer.router  # type: ignore[no-any-return]


def _keyed_app() -> Flask:
    if "app" not in _cache:
        config = Config(api_keys=(hashlib.sha256(API_KEY.encode()).digest(),), build_tables=False)
        _cache["app"] = create_app(config, audit_sink=lambda line: None)
    app: Flask = _cache["app"]
    return app
