"""Every way a client can get a request wrong gets a problem document, never a 500 or HTML."""

from __future__ import annotations

import io
import logging

import pytest
from flask import Flask
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from werkzeug.test import EnvironBuilder

from tests.api.api_support import problem
from tests.api.registry_support import JSON_ENDPOINTS, VIEW_ENDPOINTS, paths

SCORE = "/v1/hands/score"
HAND = b'{"cards": ["KS", "QS", "JS", "JC"]}'
POSTS = paths(JSON_ENDPOINTS)
"""Every JSON endpoint of the registry."""
GETS = [e.path for e in VIEW_ENDPOINTS if e.method == "GET"]
"""Every page, document and probe of the registry."""


@pytest.mark.parametrize("path", ["/v1", "/v1/hands", "/v1/hands/score/", "/v2/x", "/docs/"])
def test_unknown_path_is_404(client: FlaskClient, path: str) -> None:
    problem(client.get(path), 404, "NOT_FOUND")
    problem(client.post(path, data=HAND, content_type="application/json"), 404, "NOT_FOUND")


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH", "HEAD", "TRACE"])
def test_wrong_method_on_a_post_endpoint_is_405_with_allow(
    client: FlaskClient, path: str, method: str
) -> None:
    response = client.open(path, method=method)
    assert response.status_code == 405
    assert set(response.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    if method != "HEAD":
        problem(response, 405, "METHOD_NOT_ALLOWED")


@pytest.mark.parametrize("path", GETS)
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_wrong_method_on_a_get_endpoint_is_405_with_allow(
    client: FlaskClient, path: str, method: str
) -> None:
    response = client.open(path, method=method, data=HAND, content_type="application/json")
    problem(response, 405, "METHOD_NOT_ALLOWED")
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "text/json"],
)
def test_body_not_sent_as_json_is_415(
    client: FlaskClient, path: str, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    doc = problem(client.post(path, data=HAND, headers=headers), 415, "UNSUPPORTED_MEDIA_TYPE")
    assert "application/json" in doc["detail"]


@pytest.mark.parametrize(
    "content_type", ["application/json", "Application/JSON", "application/json; charset=utf-8"]
)
def test_json_media_type_parameters_and_case_are_accepted(
    client: FlaskClient, content_type: str
) -> None:
    assert client.post(SCORE, data=HAND, headers={"Content-Type": content_type}).status_code == 200


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{",
        b'{"cards": ["KS", "QS", "JS", "JC"]} trailing',
        b'{"cards": NaN}',
        b'{"cards": Infinity}',
        b'{"ante": 1e309}',
        b'{"ante": ' + b"9" * 400 + b"}",
        b'{"cards": ["\xff\xfe", "KS", "JS", "JC"]}',
        b"[" * 5000 + b"]" * 5000,
        b"{'cards': []}",
    ],
)
@pytest.mark.parametrize("path", POSTS)
def test_malformed_json_is_400(client: FlaskClient, path: str, raw: bytes) -> None:
    problem(client.post(path, data=raw, content_type="application/json"), 400, "MALFORMED_JSON")


def test_body_over_the_limit_is_413(client: FlaskClient) -> None:
    big = b'{"hands": [' + b",".join([HAND] * 40_000) + b"]}"
    assert len(big) > 1024 * 1024
    doc = problem(
        client.post("/v1/hands/batch-score", data=big, content_type="application/json"),
        413,
        "BODY_TOO_LARGE",
    )
    assert "1048576" in doc["detail"]


def test_streamed_body_over_the_limit_is_413(client: FlaskClient) -> None:
    """No Content-Length (chunked transfer, as gunicorn hands it over): the limit still holds."""
    big = b'{"hands": [' + b",".join([HAND] * 40_000) + b"]}"
    environ = EnvironBuilder(
        path="/v1/hands/batch-score", method="POST", data=big, content_type="application/json"
    ).get_environ()
    del environ["CONTENT_LENGTH"]
    environ["wsgi.input"] = io.BytesIO(big)
    environ["wsgi.input_terminated"] = True
    problem(client.open(environ), 413, "BODY_TOO_LARGE")


def test_limit_is_configurable() -> None:
    small = create_app(Config(max_body_bytes=1024, build_tables=False)).test_client()
    problem(
        small.post(SCORE, data=b" " * 2000 + HAND, content_type="application/json"),
        413,
        "BODY_TOO_LARGE",
    )
    assert small.post(SCORE, data=HAND, content_type="application/json").status_code == 200


def test_duplicate_keys_are_refused(client: FlaskClient) -> None:
    """Parsers disagree on repeated keys (first or last wins): refused, never guessed."""
    raw = b'{"cards": ["XX"], "cards": ["KS", "QS", "JS", "JC"]}'
    doc = problem(client.post(SCORE, data=raw, content_type="application/json"), 400)
    assert doc["code"] == "MALFORMED_JSON" and '"cards"' in doc["detail"]


def test_unexpected_exception_is_a_500_problem_without_trace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app: Flask = create_app(Config(build_tables=False))

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("secret internals")

    with caplog.at_level(logging.ERROR, logger="quart_bezique.api"):
        response = app.test_client().get("/boom")
    doc = problem(response, 500, "INTERNAL_ERROR")
    assert "secret" not in response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)
    assert any("secret internals" in r.exc_text for r in caplog.records if r.exc_text)
    assert doc["title"] == "Internal Server Error"


def test_other_http_errors_are_problems_too() -> None:
    from werkzeug.exceptions import ImATeapot

    app: Flask = create_app(Config(build_tables=False))

    @app.get("/teapot")
    def teapot() -> str:
        raise ImATeapot()

    doc = problem(app.test_client().get("/teapot"), 418, "HTTP_ERROR")
    # No status-specific words: the neutral title of its kind, which every language has (never
    # Werkzeug's English name, and never another status's title).
    assert doc["title"] == "HTTP error"
    assert doc["detail"] == "the request could not be answered as sent"


def test_options_lists_the_methods(client: FlaskClient) -> None:
    response = client.options(SCORE)
    assert response.status_code == 200
    assert set(response.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}


ENGLISH_DETAILS = [
    ("DELETE", SCORE, {}, "DELETE is not allowed on /v1/hands/score; allowed: OPTIONS, POST"),
    ("GET", "/v1/nowhere", {}, "no resource at /v1/nowhere"),
    ("GET", "/V1/RULES", {}, "no resource at /V1/RULES; did you mean /v1/rules?"),
    ("POST", SCORE, {"data": HAND, "content_type": "text/plain"},
     "the body must be sent as application/json; it was sent as text/plain"),
    ("POST", SCORE, {"data": HAND},
     "the body must be sent as application/json; no Content-Type header was sent"),
    ("POST", SCORE, {"data": b'{"cards": 1, "cards": 2}', "content_type": "application/json"},
     'the body repeats the key "cards" in one object'),
    ("POST", SCORE, {"json": {"cards": ["KS"], "x": 1}},
     "/cards: a hand holds exactly 4 cards, not 1 (and 1 more)"),
    ("POST", SCORE, {"json": []}, "the body: must be an object with named fields"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "path", "kwargs", "detail"), ENGLISH_DETAILS)
def test_a_detail_made_of_a_template_and_values_reads_as_before(
    client: FlaskClient, method: str, path: str, kwargs: dict[str, object], detail: str
) -> None:
    """Details that quote the request are kept as a template and its values: the English text
    is the template filled in, exactly as the finished text was before."""
    response = client.open(path, method=method, **kwargs)  # type: ignore[arg-type]
    assert response.status_code >= 400
    assert response.get_json()["detail"] == detail


def test_a_long_path_or_content_type_is_quoted_clipped(client: FlaskClient) -> None:
    """The 405 quotes the path clipped to 200 characters as the 404 does; the 415 its
    Content-Type clipped to 300: a 4 KB request line is not echoed whole."""
    path = "/docs/static/" + "ten: " * 700
    shown = path[:199] + "…"
    doc = problem(client.post(path), 405, "METHOD_NOT_ALLOWED")
    assert doc["detail"] == f"POST is not allowed on {shown}; allowed: GET, HEAD, OPTIONS"
    doc = problem(client.get(path), 404, "NOT_FOUND")
    assert doc["detail"] == f"no resource at {shown}"
    media = "text/" + "x" * 1000
    doc = problem(client.post(SCORE, data=HAND, content_type=media), 415)
    assert doc["detail"].endswith(f"it was sent as {media[:299]}…")
