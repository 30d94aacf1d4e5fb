"""Graceful shutdown of the running container: SIGTERM arrives while a request is in flight; the
container drains (``/readyz`` 503 while it still serves), that request still gets its full answer,
and the container then exits 0 well within the grace period.
Run last by ``scripts/container_test.sh`` (it stops the container), with ``QB_CONTAINER`` naming it
and ``DOCKER_HOST`` pointing at the script's private dockerd."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

pytestmark = pytest.mark.container

GRACE_SECONDS = 40  # k8s/deployment.yaml: terminationGracePeriodSeconds minus the preStop pause
PROBE_SECONDS = 10


def docker(*args: str, timeout: float = 60) -> str:
    command = [os.environ.get("QB_DOCKER", "docker"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)
    return done.stdout.strip()


@pytest.fixture
def container(base_url: str) -> str:
    name = os.environ.get("QB_CONTAINER", "")
    if not name:
        pytest.skip("QB_CONTAINER is not set: run scripts/container_test.sh")
    return name


def probe(base_url: str, path: str) -> int:
    try:
        with urllib.request.urlopen(f"{base_url}{path}", timeout=PROBE_SECONDS) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def read_response(sock: socket.socket) -> tuple[int, bytes]:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, body


def test_sigterm_lets_the_request_in_flight_finish_then_exits_0(
    base_url: str, container: str
) -> None:
    host, port = base_url.removeprefix("http://").split(":")
    body = json.dumps({"cards": ["KS", "QS", "JS", "JC"], "trump": None}).encode()
    head = (
        f"POST /v1/hands/score HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=GRACE_SECONDS) as sock:
        # The request is in flight: a worker has accepted it and is reading its body.
        sock.sendall(head + body[:10])
        time.sleep(1.0)
        docker("kill", "--signal", "TERM", container)
        signalled = time.monotonic()
        time.sleep(1.5)
        assert docker("inspect", "-f", "{{.State.Running}}", container) == "true", (
            "the container died before its request in flight was answered"
        )
        # Draining: out of rotation for load balancers, still serving on a new connection.
        assert probe(base_url, "/readyz") == 503
        assert probe(base_url, "/healthz") == 200
        sock.sendall(body[10:])
        status, answer = read_response(sock)
    assert status == 200, answer
    assert json.loads(answer)["score"] == 10

    exit_code = docker("wait", container, timeout=GRACE_SECONDS + 10)
    stopped_after = time.monotonic() - signalled
    assert exit_code == "0", f"exit code {exit_code} after SIGTERM"
    assert stopped_after < GRACE_SECONDS, f"took {stopped_after:.1f} s to stop"
    assert docker("inspect", "-f", "{{.State.OOMKilled}}", container) == "false"
