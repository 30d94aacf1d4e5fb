"""The real server: gunicorn with the repository's gunicorn.conf.py, every endpoint over HTTP."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from quart_bezique.game.ruleset import CLASSIC, resolve_ruleset

from tests.api.api_support import LiveServer, start_server
from tests.api.registry_support import JSON_ENDPOINTS, paths

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
HAND = {"cards": ["KS", "QS", "JS", "JC"]}


def post(server: LiveServer, path: str, body: Any) -> tuple[int, Any]:
    status, _, data = server.request("POST", path, orjson.dumps(body), JSON)
    return status, orjson.loads(data)


def committed_examples(repo_root: Path) -> list[tuple[str, str, Any]]:
    spec = yaml.safe_load((repo_root / "openapi.yaml").read_text(encoding="utf-8"))
    found = []
    for path, item in spec["paths"].items():
        for method, op in item.items():
            content = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            for name, example in content.get("examples", {}).items():
                found.append((f"{method.upper()} {path} {name}", path, example["value"]))
    return found


def test_every_documented_example_is_answered(live_server: LiveServer, repo_root: Path) -> None:
    examples = committed_examples(repo_root)
    assert {path for _, path, _ in examples} == set(paths(JSON_ENDPOINTS))
    for label, path, body in examples:
        status, answer = post(live_server, path, body)
        assert status == 200, (label, answer)
        # The id the request names, or classic/1 (docs/rules.md §13.6).
        named = resolve_ruleset(body.get("ruleset")) if isinstance(body, dict) else CLASSIC
        assert answer["ruleset"] == named.id, label


def test_score_over_http(live_server: LiveServer) -> None:
    status, headers, data = live_server.request("POST", "/v1/hands/score", orjson.dumps(HAND), JSON)
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert headers["Cache-Control"] == "no-store"
    assert orjson.loads(data)["score"] == 10


def test_rounds_over_http(live_server: LiveServer) -> None:
    from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND

    status, verdict = post(live_server, "/v1/betting/validate", EXAMPLE_ROUND)
    assert status == 200 and verdict["state"]["pot"] == 120
    hands = {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]}
    status, settled = post(live_server, "/v1/rounds/settle", {**EXAMPLE_ROUND, "hands": hands})
    assert status == 200 and settled["winners"] == ["dan"]
    status, showdown = post(
        live_server,
        "/v1/showdown",
        {"hands": [{"player": p, "cards": c} for p, c in hands.items()]},
    )
    assert status == 200 and showdown["winner"] == "dan"
    status, batch = post(live_server, "/v1/hands/batch-score", {"hands": [HAND] * 3})
    assert status == 200 and [r["score"] for r in batch["results"]] == [10, 10, 10]


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/v1/rules", "application/json"),
        ("/healthz", "application/json"),
        ("/readyz", "application/json"),
        ("/openapi.json", "application/json"),
        ("/openapi.yaml", "application/yaml"),
        ("/docs", "text/html; charset=utf-8"),
        ("/docs/static/swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    ],
)
def test_get_endpoints_over_http(live_server: LiveServer, path: str, media: str) -> None:
    status, headers, _ = live_server.request("GET", path)
    assert status == 200
    assert headers["Content-Type"] == media


def test_served_spec_is_the_committed_file(live_server: LiveServer, repo_root: Path) -> None:
    _, _, data = live_server.request("GET", "/openapi.yaml")
    assert data == (repo_root / "openapi.yaml").read_bytes()


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status"),
    [
        ("GET", "/nowhere", None, {}, 404),
        ("GET", "/v1/hands/score", None, {}, 405),
        ("DELETE", "/healthz", None, {}, 405),
        ("POST", "/v1/hands/score", b"{", JSON, 400),
        ("POST", "/v1/hands/score", b'{"cards": NaN}', JSON, 400),
        ("POST", "/v1/hands/score", b'{"cards": ["\xff"]}', JSON, 400),
        ("POST", "/v1/hands/score", orjson.dumps(HAND), {"Content-Type": "text/plain"}, 415),
        ("POST", "/v1/hands/score", orjson.dumps(HAND), {}, 415),
        ("POST", "/v1/hands/score", b'{"cards": ["KS"]}', JSON, 422),
        ("POST", "/v1/betting/validate", b'{"players": ["a", "b"], "dealer": "c", "ante": 1}',
         JSON, 422),
    ],
)  # fmt: skip
def test_errors_over_http(
    live_server: LiveServer,
    method: str,
    path: str,
    body: bytes | None,
    headers: dict[str, str],
    status: int,
) -> None:
    got, response_headers, data = live_server.request(method, path, body, headers)
    assert got == status
    assert response_headers["Content-Type"] == PROBLEM
    assert orjson.loads(data)["status"] == status
    if status == 405:
        assert response_headers["Allow"]


def test_body_over_the_limit_over_http(live_server: LiveServer) -> None:
    """The client sends its whole body before reading (http.client does): the server answers
    413 at once, unread, and then discards the rest while the client is still sending
    (``service/quart_bezique/server/worker.py``, up to CLOSE_DRAIN_BYTES), so the client gets to
    read the 413 rather than a reset, whatever the machine's load. The answer says the connection
    closes."""
    big = b'{"hands": [' + b",".join([orjson.dumps(HAND)] * 40_000) + b"]}"
    assert 1 << 20 < len(big) < 4 << 20  # over MAX_BODY_BYTES, within CLOSE_DRAIN_BYTES
    for _ in range(3):  # the outcome must not depend on timing
        status, headers, data = live_server.request("POST", "/v1/hands/batch-score", big, JSON)
        assert status == 413
        assert headers["Content-Type"] == PROBLEM
        assert headers["Connection"] == "close"
        assert orjson.loads(data)["code"] == "BODY_TOO_LARGE"


def test_chunked_body_over_http(live_server: LiveServer) -> None:
    conn = http.client.HTTPConnection(live_server.host, live_server.port, timeout=30)
    try:
        body = iter([b'{"cards": ["KS", ', b'"QS", "JS", "JC"]}'])
        conn.request("POST", "/v1/hands/score", body=body, headers=JSON, encode_chunked=True)
        response = conn.getresponse()
        assert response.status == 200
        assert orjson.loads(response.read())["score"] == 10
    finally:
        conn.close()


def test_connections_are_kept_alive(live_server: LiveServer) -> None:
    conn = http.client.HTTPConnection(live_server.host, live_server.port, timeout=30)
    try:
        conn.connect()
        assert conn.sock is not None
        first = conn.sock.getsockname()
        for _ in range(3):
            status, _, _ = live_server.request(
                "POST", "/v1/hands/score", orjson.dumps(HAND), JSON, connection=conn
            )
            assert status == 200
        assert conn.sock is not None and conn.sock.getsockname() == first
    finally:
        conn.close()


def test_sigterm_stops_gracefully(tmp_path: Path) -> None:
    server = start_server(tmp_path, WEB_CONCURRENCY="1")
    status, _, _ = server.request("GET", "/healthz")
    assert status == 200
    assert server.stop() == 0
    log = server.log.read_text()
    assert "Shutting down" in log
    assert "Traceback" not in log
    with pytest.raises(OSError), socket.create_connection((server.host, server.port), timeout=2):
        pass
