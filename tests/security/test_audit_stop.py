"""Audit lines at the real pipe: a graceful stop with a slow stdout reader, and hostile text.

A verdict is released once its line is in the worker's buffer, so what the buffer holds when the
worker stops must still reach stdout. gunicorn (two workers) writes into a pipe this test reads
at a throttled rate; verdicts are sent until both workers refuse them (their buffers full), then
the master gets SIGTERM. Either every verdict answered 200 has its line, or the stop says it
lost some: the master exits non-zero and stderr counts at least the missing lines. Read faster
than the stated minimum, nothing may be missing; slower, the stop must fail loudly. A throttle
only caps the rate (a loaded machine reads slower still), so neither outcome depends on speed.
"""

from __future__ import annotations

import http.client
import itertools
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest
import yaml
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.api.envelope import sink
from quart_bezique.api.envelope.sink import EXIT_STATUS

from tests.api.api_support import ROOT, free_port
from tests.security.piped import end, read_into

HANG_GUARD = 60.0
"""Seconds before a phase is called hung (never reached by a working service)."""
SCORE = "/v1/hands/score"
BODY = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"]})
REFUSALS = 100
"""Refusals that show the buffers full (a slow reader still frees room for a line now and then)."""
MAX_VERDICTS = 1000
"""Verdicts sent at most: far more than the buffers and the pipe hold (about 76 KiB of lines of
640 bytes), and than a stop that waits a fixed few seconds writes at these rates."""
GRACEFUL = 6
"""GUNICORN_GRACEFUL_TIMEOUT of the server under test: an exit budget of 3 s."""
MIN_RATE = 2048
"""AUDIT_MIN_DRAIN_RATE of the server under test (per worker): 6 KiB of buffer per worker."""
LOST = re.compile(rb"audit: (\d+) audit lines lost by (\d+) stopping workers")


@dataclass
class Server:
    """gunicorn whose stdout is a pipe read at most ``rate`` bytes per second (None: at once)."""

    process: subprocess.Popen[bytes]
    port: int
    stderr: Path
    rate: float | None
    out: bytearray = field(default_factory=bytearray)
    reader: threading.Thread | None = None

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        request_id: str | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if request_id is not None:
            headers["X-Request-ID"] = request_id
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.headers, response.read()
        finally:
            conn.close()

    def start_reading(self) -> None:
        assert self.process.stdout is not None
        self.reader = read_into(self.process.stdout.fileno(), self.out, lambda: self.rate)

    def stop(self) -> int:
        """SIGTERM, wait for the master, then read the rest of the pipe at once (what is in it
        was written); the master's exit status."""
        end(self.process, HANG_GUARD)
        self.rate = None
        if self.reader is not None:
            self.reader.join(HANG_GUARD)
            assert not self.reader.is_alive()
        return self.process.returncode

    def records(self) -> list[dict[str, object]]:
        """Every line read, each one whole (it parses) and one line under ``str.splitlines``."""
        text = bytes(self.out).decode()
        assert text.splitlines() == text.split("\n")[:-1]
        return [orjson.loads(line) for line in text.splitlines()]


@pytest.fixture()
def start(tmp_path: Path) -> Iterator[list[Server]]:
    """``start(rate)``: a server on its own pipe; every one is stopped at the end."""
    servers: list[Server] = []
    yield servers
    for server in servers:
        server.stop()
        if server.process.stdout is not None:
            server.process.stdout.close()


def launch(servers: list[Server], tmp_path: Path, rate: float | None, **extra: str) -> Server:
    port = free_port()
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "GUNICORN_DRAIN_SECONDS": "0",
        "GUNICORN_GRACEFUL_TIMEOUT": str(GRACEFUL),
        "AUDIT_MIN_DRAIN_RATE": str(MIN_RATE),
        **extra,
    }
    env.pop("GUNICORN_ACCESS_LOG", None)  # stdout carries the audit lines and nothing else
    stderr = tmp_path / f"gunicorn-{port}.stderr"
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "quart_bezique.wsgi:app"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    server = Server(process, port, stderr, rate)
    servers.append(server)
    server.start_reading()
    deadline = time.monotonic() + HANG_GUARD
    while True:
        try:
            if server.request("GET", "/readyz")[0] == 200:
                return server
        except OSError:
            pass
        assert process.poll() is None, stderr.read_text()
        assert time.monotonic() < deadline, stderr.read_text()
        time.sleep(0.1)


def fill(server: Server) -> tuple[list[str], int]:
    """Send verdicts from a few threads until ``REFUSALS`` refusals (or ``MAX_VERDICTS``
    verdicts); the request ids answered 200, and how many were refused."""
    counter = itertools.count()
    accepted: list[str] = []
    state = {"refused": 0}
    lock = threading.Lock()
    failures: list[BaseException] = []

    def run() -> None:
        try:
            while state["refused"] < REFUSALS and not failures:
                n = next(counter)
                if n >= MAX_VERDICTS:
                    return
                request_id = f"audit-stop-{n:06d}-".ljust(128, "x")
                status, _, body = server.request("POST", SCORE, BODY, request_id)
                with lock:
                    if status == 200:
                        accepted.append(request_id)
                    else:
                        assert status == 503, body
                        assert orjson.loads(body)["code"] == "AUDIT_UNAVAILABLE"
                        state["refused"] += 1
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD * 5)
        assert not thread.is_alive(), "a verdict hung"
    if failures:
        raise failures[0]
    assert accepted
    return accepted, state["refused"]


def missing_after_stop(server: Server, accepted: list[str]) -> tuple[int, list[str], bytes]:
    status = server.stop()
    recorded = {r["request_id"] for r in server.records() if r["status"] == 200}
    return status, [rid for rid in accepted if rid not in recorded], server.stderr.read_bytes()


@pytest.mark.slow  # a real server stopped under a stream of verdicts
def test_read_above_the_stated_minimum_every_verdict_keeps_its_line(
    start: list[Server], tmp_path: Path
) -> None:
    server = launch(start, tmp_path, rate=8 * MIN_RATE)  # 4x the minimum of two workers
    accepted, refused = fill(server)
    status, missing, stderr = missing_after_stop(server, accepted)
    if status == 0:
        assert not missing, f"{len(missing)} of {len(accepted)} verdicts without a line, exit 0"
        assert LOST.search(stderr) is None
    else:  # only a machine too loaded to read at the rate: then the loss is counted
        assert status == EXIT_STATUS, stderr.decode()
        found = LOST.search(stderr)
        assert found is not None and int(found[1]) >= len(missing) > 0, stderr.decode()
    assert refused, "the buffers never refused: not bounded by what the reader can take"


@pytest.mark.slow  # a real server stopped under a stream of verdicts
def test_read_below_the_stated_minimum_the_stop_fails_loudly(
    start: list[Server], tmp_path: Path
) -> None:
    server = launch(start, tmp_path, rate=MIN_RATE / 2)  # a quarter of the minimum
    accepted, _ = fill(server)
    status, missing, stderr = missing_after_stop(server, accepted)
    assert missing, "the buffers drained in time at a quarter of the minimum rate?"
    assert status == EXIT_STATUS, f"{len(missing)} verdicts without a line, exit {status}"
    found = LOST.search(stderr)
    assert found is not None, stderr.decode()
    assert int(found[1]) >= len(missing)  # every missing verdict is within the count
    assert rb"were not written within 3.0 s: lost" in stderr  # the worker's own count
    assert re.search(rb"Worker \(pid:\d+\) exited with code %d" % EXIT_STATUS, stderr)


def test_a_player_id_with_c1_controls_leaves_one_line(start: list[Server], tmp_path: Path) -> None:
    # The lines are checked for being whole, not for speed: a budget no loaded machine misses.
    server = launch(start, tmp_path, rate=None, GUNICORN_GRACEFUL_TIMEOUT="40")
    player = "b\x85o\u2028b\x9f"
    body = orjson.dumps(
        {
            **EXAMPLE_ROUND,
            "hands": {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]},
        }
    ).replace(b'"bob"', orjson.dumps(player))
    status, _, answer = server.request("POST", "/v1/rounds/settle", body, "c1-settle")
    assert status == 200, answer
    status, _, _ = server.request("GET", "/nowhere%C2%85%E2%80%A8x", None, "c1-path")
    assert status == 404
    assert server.stop() == 0
    records = {r["request_id"]: r for r in server.records()}  # every line one line, whole
    verdict = records["c1-settle"]["verdict"]
    assert isinstance(verdict, dict) and player in verdict["payouts"]
    assert "\x85" in str(records["c1-path"]["path"])
    raw = bytes(server.out)
    assert b"\xc2\x85" not in raw and "\u2028".encode() not in raw


def test_the_manifests_leave_time_to_write_every_line() -> None:
    """A terminating pod: the preStop pause, the drain (still serving), then gunicorn's graceful
    stop, whose master kills any worker still there at its end. A worker's share of it: its
    in-flight requests, then at most the flush budget for its audit lines, within which the
    stated minimum reader rate writes all its buffer can hold. All before the kubelet's SIGKILL,
    with a second for the master's own exit."""
    k8s = ROOT / "k8s"
    deployment = yaml.safe_load((k8s / "deployment.yaml").read_text())
    config = yaml.safe_load((k8s / "configmap.yaml").read_text())["data"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    pause = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    drain = int(config["GUNICORN_DRAIN_SECONDS"])
    graceful = int(config["GUNICORN_GRACEFUL_TIMEOUT"])
    workers = int(config["WEB_CONCURRENCY"])
    flush = sink.exit_budget(graceful)
    in_flight = graceful - flush
    assert in_flight >= 5 and flush >= 5, (in_flight, flush)
    assert pause + drain + in_flight + flush + 1 < pod["terminationGracePeriodSeconds"]
    rate = int(config.get(sink.MIN_DRAIN_RATE_ENV, sink.MIN_DRAIN_RATE))
    capacity = sink.default_capacity(config)
    # Every worker's full buffer, read at the pod's stated minimum, is written within the budget.
    assert workers * capacity <= flush * (workers * rate)
    assert capacity >= 100 * 640  # a backlog of a hundred long lines at least
