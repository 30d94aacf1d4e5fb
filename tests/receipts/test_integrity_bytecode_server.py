"""The finding against a real gunicorn: a copy of the package (sources, bytecode and the
configuration, on ``PYTHONPATH``) is served twice, honest and with the renderer's ``.pyc``
swapped for one that adds 100 to every showdown score under the header the interpreter checks.
The tampered bytecode runs (the score moves), and so does ``/v1/build``'s digest, by the
tampered file's own digest."""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import http.client
import importlib.util
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

import pytest
from quart_bezique.integrity import installed_root
from quart_bezique.integrity.manifest import config_of

from scripts.harness.ports import LOOPBACK, free_port
from scripts.harness.server import server_env
from tests.receipts.tree_support import HONEST, RENDER, TAMPERED, timestamp_pyc

SHOWDOWN: Final = json.dumps(
    {
        "hands": [
            {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
            {"player": "dan", "cards": ["QS", "JC", "KD", "JD"]},
        ]
    }
).encode()
READY_SECONDS: Final = 60


def _get(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        return answer.status, json.loads(data) if data else None
    finally:
        conn.close()


def _serve(app: Path, log: Path) -> tuple[dict[str, Any], list[int]]:
    """Start gunicorn on the copy at ``app``; return ``/v1/build`` and the showdown's scores."""
    port = free_port()
    env = server_env(
        port,
        drop_prefixes=("API_KEYS", "SIGNING_", "PYTHONPYCACHEPREFIX"),
        PYTHONPATH=str(app),
        PYTHONDONTWRITEBYTECODE="1",
        WEB_CONCURRENCY="1",
    )
    command = [sys.executable, "-m", "gunicorn", "-c", str(app / "gunicorn.conf.py")]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "quart_bezique.wsgi:app"], cwd=app, env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            assert process.poll() is None, log.read_text()
            with contextlib.suppress(OSError, http.client.HTTPException):
                if _get(port, "GET", "/readyz")[0] == 200:
                    break
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        status, build = _get(port, "GET", "/v1/build")
        assert status == 200, build
        status, showdown = _get(port, "POST", "/v1/showdown", SHOWDOWN)
        assert status == 200, showdown
        return build, [hand["score"] for hand in showdown["hands"]]
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.slow  # two gunicorn starts
def test_a_swapped_pyc_runs_under_gunicorn_and_moves_the_served_digest(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(
        installed_root() / "quart_bezique",
        app / "quart_bezique",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy2(config_of(installed_root()), app / "gunicorn.conf.py")
    assert compileall.compile_dir(app, quiet=1)  # the bytecode pip would have written
    honest, honest_scores = _serve(app, tmp_path / "honest.log")
    assert (
        honest["manifest"]["files"]["quart_bezique/wire/render.py"]
        == hashlib.sha256((app / RENDER).read_bytes()).hexdigest()
    )

    source = app / RENDER
    cached = Path(importlib.util.cache_from_source(str(source)))
    key = cached.relative_to(app).as_posix()
    assert key in honest["manifest"]["files"]
    cached.write_bytes(timestamp_pyc(source, source.read_text().replace(HONEST, TAMPERED)))
    tampered, tampered_scores = _serve(app, tmp_path / "tampered.log")

    assert tampered_scores == [score + 100 for score in honest_scores]  # the swapped pyc ran
    assert tampered["build"] != honest["build"]
    assert tampered["manifest"]["files"][key] == hashlib.sha256(cached.read_bytes()).hexdigest()
    differ = {
        name
        for name in {*honest["manifest"]["files"], *tampered["manifest"]["files"]}
        if honest["manifest"]["files"].get(name) != tampered["manifest"]["files"].get(name)
    }
    assert differ == {key}
