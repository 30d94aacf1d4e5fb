"""Every limit is configurable and enforced: body size, batch size, actions per sequence (the app);
request line, header count and size, worker timeout (gunicorn); no server banner."""

from __future__ import annotations

import contextlib
import http.client
import os
import runpy
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config

from tests.api.api_support import ROOT, LiveServer, problem, start_server

HAND = {"cards": ["KS", "QS", "JS", "JC"]}
FOLD = {"player": "ann", "type": "fold"}


def app_from_env(**env: str) -> Any:
    return create_app(Config.from_env({"BUILD_TABLES": "false", **env}), audit_sink=lambda b: None)


def test_body_size_limit_from_the_environment() -> None:
    client = app_from_env(MAX_BODY_BYTES="2048").test_client()
    body = orjson.dumps(HAND)
    padded = body[:-1] + b" " * (2048 - len(body)) + b"}"
    assert len(padded) == 2048
    assert (
        client.post("/v1/hands/score", data=padded, content_type="application/json").status_code
        == 200
    )
    doc = problem(
        client.post("/v1/hands/score", data=padded + b" ", content_type="application/json"),
        413,
        "BODY_TOO_LARGE",
    )
    assert "2048" in doc["detail"]
    assert orjson.loads(client.get("/v1/rules").get_data())["limits"]["max_body_bytes"] == 2048


def test_batch_size_limit_from_the_environment() -> None:
    client = app_from_env(MAX_BATCH_HANDS="5").test_client()
    ok = client.post("/v1/hands/batch-score", json={"hands": [HAND] * 5})
    assert ok.status_code == 200 and len(orjson.loads(ok.get_data())["results"]) == 5
    doc = problem(client.post("/v1/hands/batch-score", json={"hands": [HAND] * 6}), 422)
    assert [e["pointer"] for e in doc["errors"]] == ["/hands"]


def test_actions_limit_from_the_environment() -> None:
    client = app_from_env(MAX_ACTIONS="3").test_client()
    base = {"players": ["ann", "bob", "cid", "dan"], "dealer": "dan", "ante": 1}
    actions = [FOLD, {"player": "bob", "type": "fold"}, {"player": "cid", "type": "fold"}]
    assert client.post("/v1/betting/validate", json={**base, "actions": actions}).status_code == 200
    doc = problem(
        client.post("/v1/betting/validate", json={**base, "actions": [*actions, FOLD]}), 422
    )
    assert [e["pointer"] for e in doc["errors"]] == ["/actions"]


@pytest.mark.parametrize(
    ("path", "body", "pointer"),
    [
        ("/v1/hands/batch-score", {"hands": [HAND] * 10_100}, "/hands"),
        ("/v1/hands/score", {"cards": ["KS"] * 60_000}, "/cards"),
        ("/v1/hands/batch-score", {"hands": [HAND, {"cards": [0] * 60_000}]}, "/hands/1/cards"),
        ("/v1/showdown", {"hands": [{"player": "a", "cards": [0] * 30_000}] * 2}, "/hands/0/cards"),
        ("/v1/betting/validate", {"players": ["a", "b"], "dealer": "a", "ante": 1,
                                  "actions": [FOLD] * 20_000}, "/actions"),
        ("/v1/rounds/settle", {"players": ["a", "b"], "dealer": "a", "ante": 1,
                               "hands": {"a": [0] * 60_000}}, "/hands/a"),
    ],
)  # fmt: skip
def test_far_over_a_limit_is_refused_before_any_item_is_read(
    path: str, body: dict[str, Any], pointer: str
) -> None:
    """One error, not one per item: marshmallow is not asked to look at 100,000 items."""
    client = app_from_env().test_client()
    doc = problem(client.post(path, data=orjson.dumps(body), content_type="application/json"), 422)
    assert [e["pointer"] for e in doc["errors"]] == [pointer]
    assert doc["errors"][0]["code"] in (
        "WRONG_LENGTH",
        "TOO_LONG",
        "WRONG_HAND_SIZE",
        "TOO_MANY_PLAYERS",
    )


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/hands/batch-score", {"hands": [HAND] * 20_000}),
        ("/v1/hands/score", {"cards": ["KS"] * 100_000}),
        ("/v1/rounds/settle", {"players": ["a", "b"], "dealer": "a", "ante": 1,
                               "hands": {"a": [[]] * 100_000}}),
    ],
)  # fmt: skip
def test_more_values_than_any_valid_body_is_refused_unparsed(path: str, body: Any) -> None:
    """Past the value budget (what the largest valid body can hold), the body is not parsed."""
    client = app_from_env().test_client()
    data = orjson.dumps(body)
    doc = problem(client.post(path, data=data, content_type="application/json"), 413,
                  "BODY_TOO_LARGE")  # fmt: skip
    assert "JSON values" in doc["detail"] and "errors" not in doc


def test_the_value_budget_follows_the_configured_limits() -> None:
    """A batch limit raised by the operator raises the budget with it: the largest valid batch
    is served, one hand too many is still a 422 pointing at the list."""
    client = app_from_env(MAX_BATCH_HANDS="20000").test_client()
    hand = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}

    def batch(count: int) -> Any:
        body = orjson.dumps({"hands": [hand] * count, "breakdown": False})
        return client.post("/v1/hands/batch-score", data=body, content_type="application/json")

    ok = batch(20_000)
    assert ok.status_code == 200 and len(orjson.loads(ok.get_data())["results"]) == 20_000
    doc = problem(batch(20_001), 422)
    assert [e["pointer"] for e in doc["errors"]] == ["/hands"]
    small = app_from_env(MAX_BATCH_HANDS="5", MAX_ACTIONS="3").test_client()
    problem(small.post("/v1/hands/score", json={"cards": [[]] * 2_000}), 413, "BODY_TOO_LARGE")


def test_the_largest_valid_bodies_fit_the_value_budget() -> None:
    """Counted from commas and brackets, even inside strings: the budget leaves room for the
    largest valid batch and for every action's player id spelt with 64 of them."""
    client = app_from_env().test_client()
    ids = ["," * 64, "[" * 64, "{" * 64, ",[" * 32]
    actions = [{"player": ids[i % 4], "type": "stake", "amount": 9_007_199_254_740_991}
               for i in range(1_000)]  # fmt: skip
    body = {"players": ids, "dealer": ids[3], "ante": 1, "minimum_stake": 1,
            "maximum_stake": 9_007_199_254_740_991, "actions": actions}  # fmt: skip
    data = orjson.dumps(body)
    response = client.post("/v1/betting/validate", data=data, content_type="application/json")
    assert response.status_code == 200, response.get_data()[:300]
    hand = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
    data = orjson.dumps({"hands": [hand] * 10_000, "breakdown": True})
    response = client.post("/v1/hands/batch-score", data=data, content_type="application/json")
    assert response.status_code == 200
    assert len(orjson.loads(response.get_data())["results"]) == 10_000


def test_floods_of_unknown_fields_are_reported_bounded() -> None:
    client = app_from_env().test_client()
    body = {f"field{i:05d}": i for i in range(20_000)}
    doc = problem(client.post("/v1/hands/score", json=body), 422, "VALIDATION_ERROR")
    assert len(doc["errors"]) == 50
    assert doc["errors"][0] == {
        "pointer": "/field00000",
        "message": "is not a field of this request",
        "code": "UNKNOWN_FIELD",
    }


# --- gunicorn's settings ------------------------------------------------------------------------


def load_gunicorn_conf(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(Path(os.environ.get("TMPDIR", "/tmp"))))
    monkeypatch.setenv("QUART_BEZIQUE_METRICS_DIR_OWNER", str(os.getpid()))  # reuse, never wipe
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_gunicorn_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = load_gunicorn_conf(
        monkeypatch,
        GUNICORN_TIMEOUT="7",
        LIMIT_REQUEST_LINE="512",
        LIMIT_REQUEST_FIELDS="20",
        LIMIT_REQUEST_FIELD_SIZE="1024",
        GUNICORN_GRACEFUL_TIMEOUT="9",
    )
    assert conf["timeout"] == 7 and conf["graceful_timeout"] == 9
    assert conf["limit_request_line"] == 512
    assert conf["limit_request_fields"] == 20
    assert conf["limit_request_field_size"] == 1024
    import gunicorn.http.wsgi  # type: ignore[import-untyped]

    assert gunicorn.http.wsgi.SERVER == "quart-bezique"


def test_gunicorn_refuses_a_non_integer_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit, match="LIMIT_REQUEST_LINE"):
        load_gunicorn_conf(monkeypatch, LIMIT_REQUEST_LINE="lots")


@pytest.fixture(scope="module")
def small_limits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(
        tmp_path_factory.mktemp("limits"),
        WEB_CONCURRENCY="1",
        LIMIT_REQUEST_LINE="256",
        LIMIT_REQUEST_FIELDS="12",
        LIMIT_REQUEST_FIELD_SIZE="512",
        MAX_BODY_BYTES="4096",
        AUDIT_LOG="false",
    )
    yield server
    server.stop()


def raw_exchange(server: LiveServer, request: bytes) -> bytes:
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_request_line_over_the_limit_is_414(small_limits: LiveServer) -> None:
    answer = raw_exchange(small_limits, b"GET /" + b"a" * 300 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 414 ")
    assert b"gunicorn" not in answer.lower()


def test_header_field_over_the_limit_is_431(small_limits: LiveServer) -> None:
    answer = raw_exchange(small_limits, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 600
                          + b"\r\n\r\n")  # fmt: skip
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_too_many_header_fields_is_431(small_limits: LiveServer) -> None:
    fields = b"".join(b"X-F%d: v\r\n" % i for i in range(20))
    answer = raw_exchange(small_limits, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_within_the_limits_and_no_banner(small_limits: LiveServer) -> None:
    status, headers, _ = small_limits.request("GET", "/healthz", headers={"X-Ok": "v" * 400})
    assert status == 200
    assert headers.get_all("Server") == ["quart-bezique"]


def chunked(server: LiveServer, body: bytes) -> int:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        parts = iter([body[i : i + 1000] for i in range(0, len(body), 1000)])
        conn.request(
            "POST",
            "/v1/hands/score",
            body=parts,
            headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_chunked_body_limit_is_exact(small_limits: LiveServer) -> None:
    """Without Content-Length the limit holds too, to the byte: 4096 is read, 4097 is a 413."""
    body = orjson.dumps(HAND)
    exact = body[:-1] + b" " * (4096 - len(body)) + b"}"
    assert chunked(small_limits, exact) == 200
    assert chunked(small_limits, exact + b" ") == 413


def test_readyz_turns_503_as_shutdown_starts(tmp_path: Path) -> None:
    """After SIGTERM a worker still answers its kept-alive connections for a moment: readiness
    says 503 there, so a load balancer probing it stops sending work."""
    server = start_server(tmp_path, WEB_CONCURRENCY="1", AUDIT_LOG="false")
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("GET", "/readyz")
        response = conn.getresponse()
        assert response.status == 200
        response.read()
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        conn.request("GET", "/readyz")
        response = conn.getresponse()
        assert response.status == 503
        assert orjson.loads(response.read())["detail"] == "the service is shutting down"
        assert response.getheader("Retry-After") == "1"
    finally:
        conn.close()
    assert server.process.wait(timeout=30) == 0


@pytest.fixture(scope="module", params=["head-first", "gthread"])
def short_deadline(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[LiveServer]:
    """The service's worker cuts a late body in its poller; under stock gthread (the documented
    fallback) the app's own body deadline (``deadline.py``) does."""
    server = start_server(
        tmp_path_factory.mktemp("deadline"),
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="2",
        BODY_READ_TIMEOUT="1",
        AUDIT_LOG="false",
        GUNICORN_WORKER_CLASS=request.param,
    )
    yield server
    server.stop()


def late_body(server: LiveServer, sent: bytes, length: int, trickle: float | None) -> bytes:
    """Announce ``length`` bytes, send ``sent`` (a byte per ``trickle`` s, or at once), wait."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % length
        )
        pieces = [sent[i : i + 1] for i in range(len(sent))] if trickle else [sent]
        for piece in pieces:
            if select.select([sock], [], [], trickle or 0)[0]:
                break  # answered already: stop sending
            with contextlib.suppress(OSError):
                sock.sendall(piece)
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answer += chunk
    return answer


@pytest.mark.slow  # waits out BODY_READ_TIMEOUT (1 s) on a real server
@pytest.mark.parametrize("trickle", [None, 0.1])
def test_a_late_body_is_cut_and_others_are_served(
    short_deadline: LiveServer, trickle: float | None
) -> None:
    """A client that stops sending its body, or trickles it, holds a thread for BODY_READ_TIMEOUT
    at most (then 408 and the connection closes); the worker's other thread serves meanwhile."""
    results: list[bytes] = []
    started = time.monotonic()
    body = b'{"cards": [' + b" " * 60

    def send_late() -> None:
        results.append(late_body(short_deadline, body, 100, trickle))

    slow = threading.Thread(target=send_late)
    slow.start()
    time.sleep(0.2)
    for _ in range(5):
        status, _, _ = short_deadline.request("POST", "/v1/hands/score", orjson.dumps(HAND),
                                              {"Content-Type": "application/json"})  # fmt: skip
        assert status == 200
    slow.join(timeout=15)
    elapsed = time.monotonic() - started
    (answer,) = results
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:300]
    assert b'"code":"REQUEST_TIMEOUT"' in answer
    assert 1.0 <= elapsed < 5
