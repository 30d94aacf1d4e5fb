"""A log pipeline that stops reading stdout must not stop the service, and must not let a verdict
out without its audit record.

The real gunicorn server (same command line as ``api_support.start_server``, two workers) has its
stdout piped into this test, which reads nothing at first. Once the pipe and both workers' audit
buffers are full, verdicts are refused at once (503 problem+json, ``Retry-After``), ``/readyz``
says 503 so that traffic moves elsewhere, and ``/healthz`` stays 200 (the process is alive and
must not be killed for it). Then the test starts reading: the service recovers by itself, and
every verdict that was answered 200, before or after, has its line in what was read.

Every wait is a hang guard, generous enough for two busy cores; nothing asserts a speed.
"""

from __future__ import annotations

import http.client
import itertools
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest
from quart_bezique.api.contract.problems import AUDIT_UNAVAILABLE

from tests.api.api_support import PROBLEM, ROOT, free_port
from tests.security.piped import end, read_into

HANG_GUARD = 60.0
"""Seconds before a phase is called hung (never reached by a working service)."""
REQUEST_TIMEOUT = 30.0
"""Socket timeout of each request: a blocked worker would show as a timeout here."""
SCORE = "/v1/hands/score"
BODY = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"]})
STREAK = 200
"""Refused verdicts in a row that show both workers refusing (one worker left accepting would
have to miss every one of these connections)."""
MAX_FILL_REQUESTS = 100_000
"""Far more than the pipe and two workers' buffers hold (about 4 MiB of ~600-byte lines)."""


@dataclass
class Server:
    """gunicorn whose stdout is a pipe that nobody reads until ``start_reading``."""

    process: subprocess.Popen[bytes]
    port: int
    stderr: Path
    out: bytearray = field(default_factory=bytearray)
    reader: threading.Thread | None = None

    def request(
        self, method: str, path: str, body: bytes | None = None, request_id: str | None = None
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One request on a fresh connection (so that both workers get a share)."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if request_id is not None:
            headers["X-Request-ID"] = request_id
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.headers, response.read()
        finally:
            conn.close()

    def start_reading(self) -> None:
        assert self.process.stdout is not None
        self.reader = read_into(self.process.stdout.fileno(), self.out)

    def stop(self) -> None:
        end(self.process, HANG_GUARD)


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    port = free_port()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": "2"}
    env.pop("GUNICORN_ACCESS_LOG", None)  # stdout carries the audit lines and nothing else
    stderr = tmp_path / "gunicorn.stderr"
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "quart_bezique.wsgi:app"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    running = Server(process, port, stderr)
    try:
        deadline = time.monotonic() + HANG_GUARD
        while not _answers(running, "/readyz", 200):
            assert process.poll() is None, stderr.read_text()
            assert time.monotonic() < deadline, stderr.read_text()
            time.sleep(0.1)
        yield running
    finally:
        if running.reader is None:
            running.start_reading()  # let the workers' exit flush go somewhere
        running.stop()
        assert running.reader is not None
        running.reader.join(HANG_GUARD)
        if process.stdout is not None:
            process.stdout.close()


def _answers(server: Server, path: str, status: int) -> bool:
    try:
        return server.request("GET", path)[0] == status
    except OSError:
        return False


class Verdicts:
    """Score requests with unique 128-character request ids, and what each was answered."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.counter = itertools.count()
        self.lock = threading.Lock()
        self.accepted: list[str] = []
        self.refused = 0
        self.streak = 0
        """Consecutive refusals (any other answer starts it again)."""

    def send(self) -> int:
        n = next(self.counter)
        request_id = f"blocked-sink-{n:09d}-".ljust(128, "x")
        status, headers, body = self.server.request("POST", SCORE, BODY, request_id)
        assert headers["X-Request-ID"] == request_id
        with self.lock:
            if status == 200:
                self.accepted.append(request_id)
                self.streak = 0
            else:
                assert status == 503, body
                assert headers["Content-Type"] == PROBLEM
                assert headers["Retry-After"]
                assert orjson.loads(body)["code"] == AUDIT_UNAVAILABLE.code
                self.refused += 1
                self.streak += 1
        return status

    def until_streak(self, threads: int = 4) -> None:
        """Send from a few threads until ``STREAK`` refusals in a row."""
        failures: list[BaseException] = []

        def run() -> None:
            try:
                while self.streak < STREAK and not failures:
                    sent = self.refused + len(self.accepted)
                    assert sent < MAX_FILL_REQUESTS, "verdicts never refused"
                    self.send()
            except BaseException as error:
                failures.append(error)

        workers = [threading.Thread(target=run, daemon=True) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(HANG_GUARD * 10)
            assert not worker.is_alive(), "a verdict hung"
        if failures:
            raise failures[0]


@pytest.mark.slow
def test_a_stalled_log_reader_is_refused_not_waited_for(server: Server) -> None:
    verdicts = Verdicts(server)
    verdicts.until_streak()
    assert verdicts.accepted, "nothing was accepted before the pipe filled"

    # Both workers refuse: not ready, yet alive.
    for _ in range(10):
        status, headers, body = server.request("GET", "/readyz")
        assert status == 503, body
        assert headers["Content-Type"] == PROBLEM and headers["Retry-After"] == "1"
        status, _, body = server.request("GET", "/healthz")
        assert status == 200, body
    assert verdicts.send() == 503

    # The reader reads again: the service comes back by itself.
    server.start_reading()
    deadline = time.monotonic() + HANG_GUARD
    ready_in_a_row = 0
    while ready_in_a_row < 20:
        assert time.monotonic() < deadline, "never ready again"
        ready_in_a_row = ready_in_a_row + 1 if _answers(server, "/readyz", 200) else 0
    answered_before = len(verdicts.accepted)
    deadline = time.monotonic() + HANG_GUARD
    in_a_row = 0
    while in_a_row < 50:
        assert time.monotonic() < deadline, "verdicts never accepted again"
        in_a_row = in_a_row + 1 if verdicts.send() == 200 else 0
    assert len(verdicts.accepted) >= answered_before + 50

    # Every verdict given has its record (the workers flush their buffers as they stop).
    server.stop()
    assert server.reader is not None
    server.reader.join(HANG_GUARD)
    assert not server.reader.is_alive()
    lines = bytes(server.out).splitlines()
    records = [orjson.loads(line) for line in lines]  # every line whole: each parses
    recorded = {r["request_id"] for r in records if r["endpoint"] == SCORE and r["status"] == 200}
    missing = [rid for rid in verdicts.accepted if rid not in recorded]
    assert not missing, f"{len(missing)} verdicts without a record, e.g. {missing[:3]}"
