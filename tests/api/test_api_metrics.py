"""GET /metrics: Prometheus text, counts by endpoint and status, hands, verdicts, build info; in
gunicorn, summed over every worker (multi-process mode), dead workers' counts kept."""

from __future__ import annotations

import http.client
import os
import re
import signal
import time
from pathlib import Path

import orjson
import pytest
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.api.envelope.metrics import Metrics

from tests.api.api_support import LiveServer, start_server

HAND = {"cards": ["KS", "QS", "JS", "JC"]}
JSON = {"Content-Type": "application/json"}
KEY = "k" * 16 + "-metrics-test"


def value(text: str, name: str, **labels: str) -> float:
    """The sample ``name{labels}`` of an exposition (labels in any order), 0 if absent."""
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        match = re.fullmatch(r"([a-z_]+)(?:\{(.*)\})? (\S+)", line)
        if match is None or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if found == labels:
            return float(match.group(3))
    return 0.0


@pytest.fixture()
def fresh() -> FlaskClient:
    return create_app(Config(build_tables=False), audit_sink=lambda line: None).test_client()


def scrape(client: FlaskClient) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_data(as_text=True)


def test_requests_are_counted_by_endpoint_and_status(fresh: FlaskClient) -> None:
    for _ in range(3):
        fresh.post("/v1/hands/score", json=HAND)
    fresh.post("/v1/hands/score", json={"cards": []})
    fresh.get("/healthz")
    fresh.get("/no/such/path/1")
    fresh.get("/no/such/path/2")
    text = scrape(fresh)
    name = "quart_bezique_http_requests_total"
    assert value(text, name, endpoint="/v1/hands/score", status="200") == 3
    assert value(text, name, endpoint="/v1/hands/score", status="422") == 1
    assert value(text, name, endpoint="/healthz", status="200") == 1
    assert value(text, name, endpoint="unmatched", status="404") == 2  # never the path itself
    assert "/no/such" not in text
    histogram = "quart_bezique_http_request_duration_seconds"
    assert value(text, histogram + "_count", endpoint="/v1/hands/score", status="200") == 3
    assert (
        value(text, histogram + "_bucket", endpoint="/v1/hands/score", status="200", le="+Inf") == 3
    )
    assert 0 < value(text, histogram + "_sum", endpoint="/v1/hands/score", status="200") < 30
    buckets = [
        value(text, histogram + "_bucket", endpoint="/v1/hands/score", status="200", le=le)
        for le in ("0.0005", "0.005", "0.05", "0.5", "5.0", "+Inf")
    ]
    assert buckets == sorted(buckets), "cumulative buckets"


def test_hands_verdicts_and_build_info(fresh: FlaskClient) -> None:
    fresh.post("/v1/hands/batch-score", json={"hands": [HAND] * 7, "breakdown": False})
    fresh.post("/v1/hands/score", json=HAND)
    fresh.post("/v1/betting/validate", json=EXAMPLE_ROUND)
    illegal = {**EXAMPLE_ROUND, "actions": [{"player": "ann", "type": "stake", "amount": 5}]}
    fresh.post("/v1/betting/validate", json=illegal)
    fresh.post("/v1/betting/validate", json=illegal)
    text = scrape(fresh)
    hands = "quart_bezique_hands_scored_total"
    assert value(text, hands, endpoint="/v1/hands/batch-score") == 7
    assert value(text, hands, endpoint="/v1/hands/score") == 1
    verdicts = "quart_bezique_betting_verdicts_total"
    assert value(text, verdicts, reason="valid") == 1
    reasons = [
        line for line in text.splitlines() if line.startswith(verdicts) and "valid" not in line
    ]
    assert len(reasons) == 1 and reasons[0].endswith(" 2.0"), reasons
    assert value(text, "quart_bezique_build_info", version="1.0.0", ruleset="classic/1") == 1


def test_metrics_stay_open_with_api_keys() -> None:
    from quart_bezique.api.config import _api_keys

    app = create_app(
        Config(build_tables=False, api_keys=_api_keys({"API_KEYS": KEY})),
        audit_sink=lambda line: None,
    )
    client = app.test_client()
    assert client.post("/v1/hands/score", json=HAND).status_code == 401
    text = scrape(client)
    assert value(text, "quart_bezique_http_requests_total", endpoint="/v1/hands/score",
                 status="401") == 1  # fmt: skip


def test_tallies_reach_prometheus_exactly_once() -> None:
    """``record`` tallies; ``flush`` adds and resets: nothing counted twice or lost."""
    metrics = Metrics("1.0.0", "classic/1")
    for seconds in (0.0001, 0.003, 0.2, 99.0):
        metrics.record("/x", 200, seconds, hands=2)
    metrics.flush()
    metrics.flush()
    metrics.record("/x", 200, 0.0001, reason="valid")
    text = metrics.exposition().decode()
    name = "quart_bezique_http_request_duration_seconds"
    assert value(text, name + "_count", endpoint="/x", status="200") == 5
    assert value(text, name + "_bucket", endpoint="/x", status="200", le="0.0005") == 2
    assert value(text, name + "_bucket", endpoint="/x", status="200", le="0.005") == 3
    assert value(text, name + "_bucket", endpoint="/x", status="200", le="30.0") == 4
    assert value(text, name + "_sum", endpoint="/x", status="200") == pytest.approx(99.2032)
    assert value(text, "quart_bezique_hands_scored_total", endpoint="/x") == 8
    assert value(text, "quart_bezique_betting_verdicts_total", reason="valid") == 1


# --- gunicorn: every worker summed ---------------------------------------------------------------


def post_on_fresh_connections(server: LiveServer, count: int) -> None:
    """New connection each: gunicorn's workers race to accept, so both get some."""
    for _ in range(count):
        status, _, _ = server.request("POST", "/v1/hands/score", orjson.dumps(HAND), JSON)
        assert status == 200


def served_by(server: LiveServer) -> int:
    text = server.request("GET", "/metrics")[2].decode()
    return int(value(text, "quart_bezique_http_requests_total", endpoint="/v1/hands/score",
                     status="200"))  # fmt: skip


def wait_for_count(server: LiveServer, expected: int) -> int:
    deadline = time.monotonic() + 10
    count = served_by(server)
    while count < expected and time.monotonic() < deadline:
        time.sleep(0.2)
        count = served_by(server)
    return count


def worker_pids(server: LiveServer) -> list[int]:
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
    return [int(pid) for pid in children.read_text().split()]


def test_gunicorn_workers_are_summed_and_dead_ones_kept(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    server = start_server(tmp_path, WEB_CONCURRENCY="2", TMPDIR=str(tmp), AUDIT_LOG="false")
    try:
        dirs = list(tmp.glob("quart-bezique-metrics-*"))
        assert len(dirs) == 1, "the master made its own directory under TMPDIR"
        post_on_fresh_connections(server, 40)
        assert wait_for_count(server, 40) == 40
        assert len(list(dirs[0].glob("counter_*.db"))) >= 2, "both workers served"

        victim = worker_pids(server)[0]
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (
            victim in worker_pids(server) or len(worker_pids(server)) < 2
        ):
            time.sleep(0.1)
        assert victim not in worker_pids(server) and len(worker_pids(server)) == 2
        assert served_by(server) == 40, "a dead worker's counts stay in"
        post_on_fresh_connections(server, 10)
        assert wait_for_count(server, 50) == 50
    finally:
        assert server.stop() == 0
    assert not dirs[0].exists(), "removed when the master exits"


def test_scrape_over_http_is_text(live_server: LiveServer) -> None:
    """Another worker's tallies arrive within about a second (``Metrics.FLUSH_SECONDS``)."""
    live_server.request("GET", "/healthz")
    deadline = time.monotonic() + 10
    while True:
        conn = http.client.HTTPConnection(live_server.host, live_server.port, timeout=10)
        try:
            conn.request("GET", "/metrics")
            response = conn.getresponse()
            body = response.read().decode()
        finally:
            conn.close()
        assert response.status == 200
        if "quart_bezique_http_request_duration_seconds_bucket" in body:
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert response.getheader("Content-Type", "").startswith("text/plain; version=0.0.4")
    assert "# TYPE quart_bezique_http_request_duration_seconds histogram" in body
    assert 'quart_bezique_build_info{ruleset="classic/1",version="1.0.0"} 1.0' in body
