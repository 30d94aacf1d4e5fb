"""The drain before a graceful stop (``service/quart_bezique/server/drain.py``), on a real gunicorn
master with the repository's ``gunicorn.conf.py``: no container needed, so ``make unit`` runs it.
The replicas test (``test_container_replicas.py``) shows what it is for: a rolling restart behind
HAProxy without one failed request."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from quart_bezique.server.drain import DRAIN_ENV, DrainError, drain_seconds

REPO = Path(__file__).resolve().parents[2]
LONG_DRAIN = 60
"""Far longer than the checks made inside it take, even on a loaded machine; a second SIGTERM
then ends it, so the test does not wait for it."""
SHORT_DRAIN = 1


def test_drain_seconds_come_from_the_environment() -> None:
    assert drain_seconds({}) == 5
    assert drain_seconds({DRAIN_ENV: " 0 "}) == 0
    assert drain_seconds({DRAIN_ENV: "30"}) == 30
    for bad in ("soon", "-1", "1.5", "301"):
        with pytest.raises(DrainError, match=DRAIN_ENV):
            drain_seconds({DRAIN_ENV: bad})


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return sorted(int(pid) for pid in children.read_text().split())


def get(conn: http.client.HTTPConnection, path: str) -> tuple[int, str, bytes]:
    conn.request("GET", path)
    answer = conn.getresponse()
    return answer.status, answer.getheader("Connection", ""), answer.read()


def ask(server: Server, path: str) -> tuple[int, str, bytes]:
    """One request on a connection of its own."""
    conn = server.connect()
    try:
        return get(conn, path)
    finally:
        conn.close()


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    drain: int = getattr(request, "param", LONG_DRAIN)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    log = tmp_path / "gunicorn.log"
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "AUDIT_LOG": "false",
        DRAIN_ENV: str(drain),
    }
    env.pop("API_KEYS", None)
    env.pop("API_KEYS_FILE", None)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "quart_bezique.wsgi:app"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    started = Server(process, port, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if ask(started, "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield started
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)  # at once, whatever the test left
            process.wait(timeout=30)


def test_sigterm_drains_then_a_second_one_stops(server: Server) -> None:
    """During the drain the server still accepts and serves, says not-ready and closes every
    connection after its answer; a worker forked during the drain says not-ready as well. A
    second SIGTERM ends the drain: the listener closes and the master exits 0."""
    kept = server.connect()
    assert get(kept, "/readyz")[:2] == (200, "keep-alive")
    server.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 30
    while (answer := get(kept, "/readyz"))[0] == 200:  # the master relays it to the workers
        assert time.monotonic() < deadline, "readiness never turned 503"
        kept.close()
        kept = server.connect()
    status, connection, body = answer  # on the kept-alive connection, still served
    assert (status, connection) == (503, "close")
    assert json.loads(body)["detail"] == "the service is shutting down"
    kept.close()
    assert ask(server, "/healthz")[:2] == (200, "close")  # a new connection is still accepted

    # A replacement worker starts inside the drain: it finds the flag, with no signal.
    victim = server.workers()[0]
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while victim in server.workers() or len(server.workers()) < 2:
        assert time.monotonic() < deadline, "the killed worker was not replaced"
        time.sleep(0.02)
    time.sleep(0.5)  # the replacement is accepting
    answers = {ask(server, "/readyz")[0] for _ in range(40)}  # both workers answer
    assert answers == {503}

    server.process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    assert server.process.wait(timeout=30) == 0
    assert time.monotonic() - signalled < LONG_DRAIN, "the second SIGTERM did not end the drain"
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", server.port), timeout=2):
        pass
    log = server.log.read_text()
    assert f"draining for {LONG_DRAIN} s" in log and "Shutting down" in log
    assert "Traceback" not in log


@pytest.mark.slow  # waits out the drain
@pytest.mark.parametrize("server", [SHORT_DRAIN], indirect=True)
def test_the_drain_ends_by_itself(server: Server) -> None:
    signalled = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=SHORT_DRAIN + 30) == 0
    assert time.monotonic() - signalled >= SHORT_DRAIN
