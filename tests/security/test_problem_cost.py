"""A problem document costs bounded work whatever the request line: what a detail quotes from the
request (path, method, header) is filled into the translated template as data, never parsed back.

Over a real gunicorn, the worst lines of ``scripts/problem_cost.py`` (which prints their CPU time)
get a 405 or 404 problem quoting the clipped path, and the server logs no error or traceback.
In-process, over random paths, methods and languages, no text handed to the catalogs' lookup
(``gettext``) holds the path: a request's words are data, never a template.
"""

from __future__ import annotations

import gettext
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote, unquote

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.contract.i18n import RUSSIAN, negotiate
from quart_bezique.api.contract.problems import MAX_REPORTED_TEXT

from tests.api.api_support import LiveServer, start_server
from tests.security.raw_http import RawResponse, exchange


def _script(name: str) -> ModuleType:
    """A script of ``scripts/`` as a module (the request lines are built there, for both)."""
    path = Path(__file__).resolve().parents[2] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


pc = _script("problem_cost")
SHOWN_PATH = 200
"""Longest path a 404 or 405 detail quotes (``errors.py``)."""
STATIC_ALLOW = {"GET", "HEAD", "OPTIONS"}
ATTACKS = pc.attacks()
"""Every method the static routes lack, on every static route, with the path spelt every way."""


def clipped(path: str) -> str:
    return path if len(path) <= SHOWN_PATH else path[: SHOWN_PATH - 1] + "…"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("problem-cost"))
    yield server
    server.stop()


def send(server: LiveServer, method: str, target: str, headers: tuple[tuple[str, str], ...],
         body: bytes = b"") -> RawResponse:  # fmt: skip
    head = f"{method} {target} HTTP/1.1\r\nHost: {server.host}\r\nConnection: close\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers)
    head += f"Content-Length: {len(body)}\r\n\r\n"
    return exchange(server.host, server.port, head.encode("latin-1") + body, timeout=60)


def document(response: RawResponse, status: int, code: str) -> dict[str, Any]:
    assert response.status == status, response.raw[:300]
    assert response.header("Content-Type") == "application/problem+json"
    doc: dict[str, Any] = orjson.loads(response.body)
    assert doc["status"] == status and doc["code"] == code
    assert doc["type"] == "urn:quart-bezique:problem:" + code.lower().replace("_", "-")
    return doc


def log_errors(server: LiveServer) -> list[str]:
    text = server.log.read_text(encoding="utf-8", errors="replace")
    return [line for line in text.splitlines() if "Traceback" in line or "Error" in line]


@pytest.mark.parametrize("line", ATTACKS, ids=[line.name for line in ATTACKS])
def test_a_static_route_refuses_the_attack_with_a_405_in_russian(
    live: LiveServer, line: Any
) -> None:
    target = line.target.replace("{n}", "0")
    response = send(live, line.method, target, line.headers)
    doc = document(response, 405, "METHOD_NOT_ALLOWED")
    assert response.header("Content-Language") == RUSSIAN
    assert set(response.header("Allow").split(", ")) == STATIC_ALLOW  # type: ignore[union-attr]
    path = unquote(target)
    assert len(path) > 4 * SHOWN_PATH
    assert doc["detail"].startswith(f"метод {line.method} не разрешён для {clipped(path)};")
    assert doc["detail"].endswith("; разрешены: GET, HEAD, OPTIONS")
    assert log_errors(live) == []


@pytest.mark.parametrize("route", [*pc.STATIC_ROUTES, "/nowhere/"])
@pytest.mark.parametrize("spelling", sorted(pc.SEGMENTS))
def test_a_missing_path_of_the_attack_is_a_404_quoting_it_clipped(
    live: LiveServer, route: str, spelling: str
) -> None:
    target = pc.attack_target(route, pc.SEGMENTS[spelling], method="GET").replace("{n}", "1")
    doc = document(send(live, "GET", target, pc.RUSSIAN), 404, "NOT_FOUND")
    assert doc["detail"] == f"по адресу {clipped(unquote(target))} ресурса нет"
    assert log_errors(live) == []


def test_the_attack_in_english_quotes_the_path_clipped(live: LiveServer) -> None:
    target = pc.attack_target("/docs/static/", "ten:%20", method="POST").replace("{n}", "2")
    doc = document(send(live, "POST", target, pc.ENGLISH), 405, "METHOD_NOT_ALLOWED")
    path = clipped(unquote(target))
    assert doc["detail"] == f"POST is not allowed on {path}; allowed: GET, HEAD, OPTIONS"


def test_a_content_type_of_the_attack_is_quoted_clipped(live: LiveServer) -> None:
    media = "a variation selector u+1 after x: " + "ten: " * 790
    headers = (*pc.RUSSIAN, ("Content-Type", media))
    doc = document(
        send(live, "POST", "/v1/hands/score", headers, b"{}"), 415, "UNSUPPORTED_MEDIA_TYPE"
    )
    shown = media[: MAX_REPORTED_TEXT - 1] + "…"
    assert doc["detail"].endswith(f"; оно отправлено как {shown}")
    assert log_errors(live) == []


# --- in-process: nothing from the request is looked up in a catalog ----------------------------


@pytest.fixture(scope="module")
def app() -> Flask:
    return create_app(Config(build_tables=False), audit_sink=lambda line: True)


@pytest.fixture()
def handed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text looked up in a compiled catalog (``GNUTranslations.gettext``/``ngettext``)."""
    seen: list[str] = []
    lookup, plural = gettext.GNUTranslations.gettext, gettext.GNUTranslations.ngettext

    def spy(self: gettext.GNUTranslations, text: str) -> str:
        seen.append(text)
        return lookup(self, text)

    def spy_plural(self: gettext.GNUTranslations, one: str, many: str, n: int) -> str:
        seen.extend((one, many))
        return plural(self, one, many, n)

    monkeypatch.setattr(gettext.GNUTranslations, "gettext", spy)
    monkeypatch.setattr(gettext.GNUTranslations, "ngettext", spy_plural)
    return seen


SEGMENT = st.sampled_from(
    ["ten: ", "ten", ": ", "a variation selector U+1 after x: ", "{where}", "(", ")", ", or ",
     " with ", "Latin s (spades)", "я", "%", "+", ";", " allowed: ", "x"]
)  # fmt: skip
LANGUAGES = st.sampled_from(["ru", "ru-RU,ru;q=0.9", "en", "de, ru;q=0.5", "*", "ru;q=0"])


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from([*pc.STATIC_ROUTES, "/nowhere/", "/v1/hands/score/"]),
    st.lists(SEGMENT, min_size=1, max_size=300).map("".join),
    st.sampled_from([*pc.LACKING, "GET"]),
    LANGUAGES,
)
def test_the_request_is_never_looked_up_in_a_catalog(
    app: Flask, handed: list[str], route: str, tail: str, method: str, language: str
) -> None:
    client: FlaskClient = app.test_client()
    path = route + tail
    handed.clear()
    response = client.open(quote(path, safe="/"), method=method,
                           headers={"Accept-Language": language})  # fmt: skip
    assert response.status_code in (404, 405), response.get_data()[:200]
    doc = orjson.loads(response.get_data())
    assert response.headers["Content-Language"] == negotiate(language)
    assert clipped(path) in doc["detail"]
    assert not [text for text in handed if tail in text]
    if negotiate(language) != "en":
        assert handed, "the translated detail was looked up in no catalog"


KEY = "a variation selector U+1 after x: " + "ten: " * 200
"""A key the client wrote, shaped like nested messages."""
BODIES = [
    (orjson.dumps({"cards": ["KS", "QS", "JS", "JC"], KEY: 1}), 422, ("/" + KEY)[:299] + "…"),
    (
        b'{"cards": [], "%s": 1, "%s": 2}' % (KEY.encode(), KEY.encode()),
        400,
        json.dumps(KEY[:39] + "…"),
    ),
]
"""Each body, its status, and the key as its detail quotes it: a pointer clipped to 300
characters; the key itself clipped to 40, as JSON."""


@pytest.mark.parametrize(("body", "status", "shown"), BODIES, ids=["unknown-key", "repeated-key"])
def test_a_key_the_client_wrote_is_never_looked_up_in_a_catalog(
    app: Flask, handed: list[str], body: bytes, status: int, shown: str
) -> None:
    """The detail quotes the key (a pointer to it, or the key itself) clipped; the Russian detail
    quotes it the same way, and no text holding it was looked up."""
    client: FlaskClient = app.test_client()
    english = client.post("/v1/hands/score", data=body, content_type="application/json")
    handed.clear()
    russian = client.post("/v1/hands/score", data=body, content_type="application/json",
                          headers={"Accept-Language": "ru"})  # fmt: skip
    assert russian.status_code == english.status_code == status
    en, doc = orjson.loads(english.get_data()), orjson.loads(russian.get_data())
    assert doc["code"] == en["code"]
    assert shown in en["detail"] and shown in doc["detail"] and doc["detail"] != en["detail"]
    assert handed
    assert not [text for text in handed if "variation selector" in text]
