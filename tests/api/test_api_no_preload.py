"""Without ``preload_app`` (``GUNICORN_PRELOAD=false``) each worker builds the app itself, from
libraries the master imported beforehand (``gunicorn.conf.py``, ``WARM_LIBRARIES``): the workers
still serve verdicts, and their metrics still add up in one scrape (prometheus_client, imported
by the master, must have read the metrics directory from the environment)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import orjson

from tests.api.api_support import start_server

SCORED = re.compile(
    rb'quart_bezique_http_requests_total\{endpoint="/v1/hands/score",status="200"\} ([0-9.e+]+)'
)


def test_workers_without_preload_serve_and_count_together(tmp_path: Path) -> None:
    server = start_server(tmp_path, GUNICORN_PRELOAD="false")
    try:
        body = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"], "trump": "S"})
        for _ in range(20):
            status, _, answer = server.request(
                "POST", "/v1/hands/score", body, {"Content-Type": "application/json"}
            )
            assert status == 200 and orjson.loads(answer)["score"] == 16
        # Workers add their tallies to the shared files about once a second: wait for them.
        deadline = time.monotonic() + 30
        while True:
            status, _, scrape = server.request("GET", "/metrics")
            assert status == 200
            counted = sum(float(n) for n in SCORED.findall(scrape))
            if counted == 20 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert counted == 20
    finally:
        server.stop()
