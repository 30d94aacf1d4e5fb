"""Baseline apps for ``make bench``: "the framework's own cost", measured in the same run.

``python -m scripts.bench`` serves each of these with the *same* ``gunicorn.conf.py`` and
environment as the service (worker class, worker count, threads, keep-alive, preload, limits),
pinned to the same CPU, and drives it with the same body as ``POST /v1/hands/score``. The
performance targets are ratios to ``flask_app``:

* ``flask_app``: a bare Flask JSON view, written the way the Flask documentation writes one. It
  parses the body (``request.get_json()``, Flask's default JSON provider) and returns a small dict
  (which Flask serialises with ``jsonify``). No extension, no validation, no error handlers.
* ``wsgi_app``: the same work with no framework at all (``json.loads`` of ``wsgi.input``, a
  ``json.dumps`` answer), the floor under gunicorn; reported for information only.

Run by gunicorn as ``scripts.bench.baseline:flask_app`` / ``scripts.bench.baseline:wsgi_app`` from
the repository root (gunicorn puts its working directory on ``sys.path``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, request

flask_app = Flask("scripts.bench.baseline")


@flask_app.post("/v1/hands/score")
def score() -> dict[str, Any]:
    body = request.get_json()
    return {"score": len(body["cards"]), "ruleset": "baseline"}


@flask_app.get("/readyz")
def ready() -> dict[str, str]:
    return {"status": "ready"}


StartResponse = Callable[[str, list[tuple[str, str]]], Any]

_NOT_FOUND = b'{"status":"not found"}'
_READY = b'{"status":"ready"}'


def wsgi_app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    """``POST /v1/hands/score`` and ``GET /readyz`` in plain WSGI."""
    path = environ.get("PATH_INFO", "")
    method = environ.get("REQUEST_METHOD", "GET")
    if method == "POST" and path == "/v1/hands/score":
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(length))
        out = json.dumps({"score": len(body["cards"]), "ruleset": "baseline"}).encode()
        status = "200 OK"
    elif method == "GET" and path == "/readyz":
        out, status = _READY, "200 OK"
    else:
        out, status = _NOT_FOUND, "404 Not Found"
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(out)))]
    )
    return [out]
