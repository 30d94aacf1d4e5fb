"""Hostile input gets a 4xx problem in bounded time and memory; every answer carries the security
headers; no answer names the server software."""

from __future__ import annotations

import gc
import re
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.endpoint import ASSETS

from tests.api.api_support import LiveServer, problem
from tests.api.registry_support import JSON_ENDPOINTS, VIEW_ENDPOINTS, example, paths

POSTS = paths(JSON_ENDPOINTS)
"""Every JSON endpoint of the registry: each gets every hostile body."""
MIB = 1024 * 1024
TIME_BOUND = 30.0
"""A hang guard, not a measure: ``scripts/worst_shapes.py`` measures the CPU time of the worst
bodies (figures in docs/operations.md, "Hostile input"); ``tests/security/test_worst_shapes.py``
bounds their allocations deterministically."""
MEMORY_BOUND = 64 * MIB
"""Peak resident memory added while answering one 1 MiB body (what the worst bodies add is
measured in docs/operations.md, "Hostile input")."""
ANSWER_BOUND = 16 * 1024


def _nested(depth: int) -> bytes:
    return b'{"cards":' + b"[" * depth + b"]" * depth + b"}"


HOSTILE: dict[str, tuple[bytes, int]] = {
    "nesting 100": (_nested(100), 422),
    "nesting 300": (_nested(300), 400),
    "nesting 5000": (b"[" * 5000 + b"]" * 5000, 400),
    "1e309": (b'{"ante": 1e309, "cards": ["KS", "QS", "JS", "JC"]}', 400),
    "400 digits": (b'{"ante": ' + b"9" * 400 + b"}", 400),
    "-400 digits": (b'{"ante": -' + b"9" * 400 + b"}", 400),
    "NaN": (b'{"ante": NaN}', 400),
    "Infinity": (b'{"ante": -Infinity}', 400),
    "invalid UTF-8": (b'{"cards": ["K\xffS", "QS", "JS", "JC"]}', 400),
    "overlong UTF-8": (b'{"cards": ["\xc0\xafS"]}', 400),
    "lone surrogate": (b'{"cards": ["\\ud800S", "QS", "JS", "JC"]}', 400),
    "duplicate key": (
        b'{"cards": ["KS", "QS", "JS", "JC"], "cards": ["KS", "QS", "JS", "JC"]}',
        400,
    ),
    "duplicate nested key": (b'{"hands": [{"cards": [], "trump": "S", "trump": "H"}]}', 400),
    "duplicate key hidden by an escaped colon": (
        b'{"cards": 1, "cards": ["KS", "QS", "JS", "JC"], "x": "\\u003a"}',
        400,
    ),
    "big string": (b'{"cards": ["' + b"K" * 900_000 + b'"]}', 422),
    "big key": (b'{"' + b"k" * 900_000 + b'": 1}', 422),
    "many keys": (orjson.dumps({f"k{i}": i for i in range(60_000)}), 422),
    "long list": (b'{"hands": [' + b",".join([b"0"] * 400_000) + b"]}", 413),
    "long nested lists": (b'{"hands": [{"cards": [' + b",".join([b"[]"] * 300_000) + b"]}]}", 413),
    "list at the value budget": (b'{"hands": [' + b",".join([b"0"] * 60_000) + b"]}", 422),
    "empty lists": (b"[" + b",".join([b"[]"] * 300_000) + b"]", 413),
    "empty objects": (b"[" + b",".join([b"{}"] * 300_000) + b"]", 413),
    "short strings": (b'{"cards": [' + b",".join([b'"a"'] * 250_000) + b"]}", 413),
    "floats": (b'{"cards": [' + b",".join([b"0.5"] * 250_000) + b"]}", 413),
    "a string of commas": (b'{"cards": ["' + b"," * 900_000 + b'"]}', 413),
    "a repeated key among 60,000": (
        b"{" + b",".join(b'"k%d": 0' % i for i in range(60_000)) + b', "k7": 1}',
        400,
    ),
    "float for an int": (b'{"players": ["a", "b"], "dealer": "a", "ante": 10.0}', 422),
    "bool for an int": (b'{"players": ["a", "b"], "dealer": "a", "ante": true}', 422),
    "bool for a card": (b'{"cards": [true, false, null, 1]}', 422),
}


@pytest.fixture(scope="module")
def hostile_app() -> Flask:
    return create_app(Config(), audit_sink=lambda line: None)


def _peak_rss() -> int:
    status = Path("/proc/self/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024  # type: ignore[union-attr]


def measured(call: Callable[[], object]) -> tuple[object, float, int]:
    """The call's result, its duration and the resident memory it added at its peak (the kernel's
    high-water mark, reset first: what the pod's memory limit sees, unlike allocator counters)."""
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    before = _peak_rss()
    started = time.perf_counter()
    result = call()
    elapsed = time.perf_counter() - started
    return result, elapsed, _peak_rss() - before


def _hostile_cases() -> list[Any]:
    """Every body against every endpoint. Each case costs a fifth of a second of measuring (a
    full collection and a reset of the memory high-water mark), so ``make check`` takes one
    diagonal of the product: every body once, the endpoints in turn (each gets some); the rest
    is marked slow and ``make test`` runs it."""
    cases = []
    for index, name in enumerate(sorted(HOSTILE)):
        for path in POSTS:
            diagonal = path == POSTS[index % len(POSTS)]
            marks = () if diagonal else (pytest.mark.slow,)
            cases.append(pytest.param(path, name, marks=marks, id=f"{path}-{name}"))
    return cases


@pytest.mark.parametrize(("path", "name"), _hostile_cases())
def test_hostile_bodies_get_a_bounded_4xx(hostile_app: Flask, path: str, name: str) -> None:
    body, status = HOSTILE[name]
    client = hostile_app.test_client()
    response, elapsed, peak = measured(
        lambda: client.post(path, data=body, content_type="application/json")
    )
    assert 400 <= response.status_code < 500  # type: ignore[attr-defined]
    if status == 413:
        problem(response, 413, "BODY_TOO_LARGE")  # type: ignore[arg-type]
    elif status == 400 or response.status_code == 400:  # type: ignore[attr-defined]
        problem(response, 400, "MALFORMED_JSON")  # type: ignore[arg-type]
    else:
        problem(response, 422)  # type: ignore[arg-type]
    assert elapsed < TIME_BOUND, f"{elapsed:.2f} s"
    assert peak < MEMORY_BOUND, f"{peak / MIB:.0f} MiB"
    assert len(response.get_data()) < ANSWER_BOUND  # type: ignore[attr-defined]


ESCAPES = [
    (b'{"cards": ["KS", "QS", "JS", "JC"], "x": "\\u003a"}', "escaped colon, no repeat", 422, None),
    (b'{"a": "\\\\u003a", "a": 1}', "escaped backslash then u003a, a repeat", 400, '"a"'),
    (b'{"a": "\\\\\\u003A", "a": 1}', "escaped backslash then an escaped colon", 400, '"a"'),
    (b'{"b": "\\u003a\\u003a", "c": {"d": 1, "d": 2}}', "two escapes and a nested repeat", 400,
     '"d"'),
    (b'{"cards": ["KS", "QS", "JS", "JC"], "\\u003a": "\\\\u003a"}', "escapes, no repeat", 422,
     None),
]  # fmt: skip


@pytest.mark.parametrize(("body", "name", "status", "key"), ESCAPES, ids=[e[1] for e in ESCAPES])
def test_escaped_colons_never_hide_or_invent_a_repeated_key(
    hostile_app: Flask, body: bytes, name: str, status: int, key: str | None
) -> None:
    """The colon count of the repeated-key test counts escaped colons exactly: an escaped
    backslash before ``u003a`` is no colon, and no escape is taken for a repeated key."""
    response = hostile_app.test_client().post(
        "/v1/hands/score", data=body, content_type="application/json"
    )
    doc = problem(response, status)
    if key is None:
        assert "repeats" not in doc["detail"]
    else:
        assert doc["detail"] == f"the body repeats the key {key} in one object"


def test_ten_megabytes_are_refused_unread(hostile_app: Flask) -> None:
    client = hostile_app.test_client()
    body = b'{"cards": ["' + b"x" * (10 * MIB) + b'"]}'
    response, elapsed, peak = measured(
        lambda: client.post("/v1/hands/score", data=body, content_type="application/json")
    )
    problem(response, 413, "BODY_TOO_LARGE")  # type: ignore[arg-type]
    assert elapsed < TIME_BOUND and peak < 4 * MIB


def send_while_reading(server: LiveServer, head: bytes, body: bytes) -> bytes:
    """Send ``head`` and ``body`` from a thread while reading the answer: the server may answer
    (and close) long before a 10 MB body is sent, as it should."""
    with socket.create_connection((server.host, server.port), timeout=30) as sock:

        def send() -> None:
            try:
                sock.sendall(head)
                for start in range(0, len(body), 65536):
                    sock.sendall(body[start : start + 65536])
            except OSError:
                pass  # closed by the server after its answer: expected

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        answer = b""
        try:
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except ConnectionResetError:
            pass
        sender.join(timeout=30)
    return answer


def test_ten_megabytes_over_http(live_server: LiveServer) -> None:
    """Sized or chunked: a 413 problem, fast, and the server goes on serving."""
    body = b'{"cards": ["' + b"x" * (10 * MIB) + b'"]}'
    started = time.perf_counter()
    sized = (
        b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    answer = send_while_reading(live_server, sized, body)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b'"code":"BODY_TOO_LARGE"' in answer
    chunked = (
        b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    framed = b"".join(
        b"%x\r\n%s\r\n" % (len(part), part)
        for part in (body[i : i + MIB] for i in range(0, len(body), MIB))
    )
    answer = send_while_reading(live_server, chunked, framed + b"0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert time.perf_counter() - started < 30
    assert live_server.request("GET", "/healthz")[0] == 200


# --- security headers ---------------------------------------------------------------------------


def _asset(folder: Path) -> str:
    """A file a page serves from its assets folder (a script or a style sheet)."""
    return min(p.name for p in folder.iterdir() if p.suffix in (".js", ".css"))


OWN_ANSWERS = [
    *(("POST", e.path, orjson.dumps(example(e)), 200) for e in JSON_ENDPOINTS),
    *((e.method, e.path, None, 200) for e in VIEW_ENDPOINTS),
    *(
        ("GET", f"{e.path}{ASSETS}/{name}", None, status)
        for e in VIEW_ENDPOINTS
        if e.assets is not None
        for name, status in ((_asset(e.assets), 200), ("missing.js", 404))
    ),
]
"""Each endpoint of the registry answering its own request (a page: also one of its assets)."""
ANSWERS = [
    *OWN_ANSWERS,
    ("POST", "/v1/hands/score", b'{"cards": []}', 422),
    ("POST", "/v1/hands/score", b"{", 400),
    ("GET", "/nowhere", None, 404),
    ("DELETE", "/healthz", None, 405),
]
PAGES = {e.path: e.page_csp for e in VIEW_ENDPOINTS if e.page_csp is not None}
"""The page policy of each page, which its assets share."""
DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'"


def _page_csp(path: str) -> str | None:
    for page, csp in PAGES.items():
        if path == page or path.startswith(page + ASSETS + "/"):
            return csp
    return None


@pytest.mark.parametrize(("method", "path", "body", "status"), ANSWERS)
def test_every_answer_carries_the_security_headers(
    hostile_app: Flask, method: str, path: str, body: bytes | None, status: int
) -> None:
    response = hostile_app.test_client().open(
        path, method=method, data=body, content_type="application/json"
    )
    assert response.status_code == status
    headers = response.headers
    names = [name.lower() for name, _ in headers]
    assert len(names) == len(set(names)), f"a header appears twice: {names}"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert len(headers["X-Request-ID"]) == 32
    assert headers["Content-Security-Policy"] == (_page_csp(path) or DEFAULT_CSP)
    if method == "POST" or status >= 400 or path in ("/metrics", "/healthz", "/readyz"):
        assert headers["Cache-Control"] == "no-store"
    assert "Server" not in headers
    response.close()


def test_no_server_banner_over_http(live_server: LiveServer) -> None:
    for method, path, body, status in ANSWERS:
        got, headers, _ = live_server.request(
            method, path, body, {"Content-Type": "application/json"}
        )
        assert got == status
        assert headers.get_all("Server") == ["quart-bezique"], path
        assert "gunicorn" not in str(headers).lower()
