"""Small helpers shared by the HTTP tests: problem and success answers, a real gunicorn server,
random mutations of valid request bodies (``registry_support`` has the bodies)."""

from __future__ import annotations

import http.client
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from werkzeug.test import TestResponse

from scripts.harness import ports as harness_ports
from scripts.harness.server import GunicornServer, ServerError, server_env
from scripts.harness.server import start_server as harness_start_server

PROBLEM = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}


def problem(response: TestResponse, status: int, code: str | None = None) -> dict[str, Any]:
    """Assert ``response`` is an RFC 9457 problem with ``status`` (and ``code``); return it."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == PROBLEM
    doc: dict[str, Any] = orjson.loads(response.get_data())
    assert doc.keys() >= PROBLEM_KEYS
    assert doc["status"] == status
    assert doc["type"].startswith("urn:quart-bezique:problem:")
    assert "Traceback" not in doc["detail"] and "<html" not in response.get_data(as_text=True)
    if code is not None:
        assert doc["code"] == code, doc
    return doc


def pointers(doc: dict[str, Any]) -> list[str]:
    return [e["pointer"] for e in doc.get("errors", [])]


def ok(response: TestResponse) -> dict[str, Any]:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == "application/json"
    body: dict[str, Any] = orjson.loads(response.get_data())
    return body


# --- a real gunicorn server, for the over-HTTP and browser tests -------------------------------
# Started by the same harness as the benchmark and the load tests (scripts/harness/server.py).

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    return harness_ports.free_port()


@dataclass
class LiveServer:
    """A gunicorn master started with the repository's gunicorn.conf.py."""

    process: subprocess.Popen[bytes]
    host: str
    port: int
    log: Path
    server: GunicornServer

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        connection: http.client.HTTPConnection | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        return self.server.request(method, path, body, headers, connection=connection)

    def stop(self, timeout: float = 30) -> int:
        code = self.server.stop(graceful=True, timeout=timeout)
        return self.process.returncode if code is None else code


def start_server(log_dir: Path, **env: str) -> LiveServer:
    port = free_port()
    log = log_dir / f"gunicorn-{port}.log"
    environ = server_env(port, WEB_CONCURRENCY="2", GUNICORN_ACCESS_LOG="-") | env
    try:
        server = harness_start_server(log, environ)
    except ServerError as error:
        raise RuntimeError(f"gunicorn did not get ready: {error}") from None
    assert server.process is not None
    return LiveServer(server.process, server.host, server.port, log, server)


# --- random mutations of valid bodies (error-vocabulary and language tests) --------------------

ODD_VALUES: list[Any] = [
    None,
    True,
    1.5,
    -1,
    0,
    2**60,
    "",
    "x" * 70,
    "KS",
    [],
    {},
    ["KS"],
    {"a": 1},
]


def mutate(value: Any, rng: random.Random) -> Any:
    """One random change somewhere in ``value``: a replaced leaf, a dropped or added key."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(sorted(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.2:
            del out[key]
        elif roll < 0.3:
            out["unexpected"] = 1
        else:
            out[key] = mutate(value[key], rng)
        return out
    if isinstance(value, list) and value and rng.random() < 0.7:
        out_list = list(value)
        index = rng.randrange(len(out_list))
        out_list[index] = mutate(out_list[index], rng)
        return out_list
    return rng.choice(ODD_VALUES)
