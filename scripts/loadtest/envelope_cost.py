"""What the per-request envelope (``service/quart_bezique/api/envelope/middleware.py``) costs,
measured in-process.

    .venv/bin/python scripts/loadtest/envelope_cost.py

Calls the WSGI app directly with a prebuilt environ, with the envelope (``app.wsgi_app``) and
without it (the Flask app it wraps), alternating in pairs, and prints the median CPU time
(``time.thread_time``) per request of each and the median of the paired differences: request id,
security headers, metrics tally, audit line with its digests (written to ``/dev/null``), in
multi-process metrics mode as under gunicorn. A second pass turns the audit line off. Then the
cost ``envelope/body.py``'s ``parse`` adds to parsing (the key-sorted copy and the duplicate-key
check). The figures in docs/operations.md come from this script; the machine should be otherwise
idle.
"""

from __future__ import annotations

import gc
import io
import os
import random
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Iterable
from typing import Any

# Chosen before prometheus_client is imported (with the app), as gunicorn.conf.py does.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="envelope-cost-"))

import orjson
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.game.betting import validate_betting

from scripts.harness.sinks import fd_sink

CODES = [r + s for s in "SCHD" for r in ("A", "K", "Q", "J", "10", "9")]
Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def betting_round(actions: int) -> dict[str, Any]:
    rng = random.Random(1)
    players = ["ann", "bob", "cid", "dan"]
    done: list[dict[str, Any]] = []
    while len(done) < actions:
        state = validate_betting(players, "dan", 10, done).state
        legal = [a for a in state.legal_actions if a.type.value != "fold"]
        if not legal:
            break
        choice = rng.choice(legal)
        action: dict[str, Any] = {"player": state.to_act, "type": choice.type.value}
        if choice.amount is not None:
            action["amount"] = choice.amount
        elif choice.min is not None:
            action["amount"] = choice.min
        done.append(action)
    return {"players": players, "dealer": "dan", "ante": 10, "actions": done}


def bodies() -> dict[str, tuple[str, bytes | None]]:
    rng = random.Random(5)
    hands = [
        {"cards": rng.choices(CODES, k=4), **({"trump": rng.choice("SCHD")} if i % 5 else {})}
        for i in range(10_000)
    ]
    return {
        "GET /v1/rules": ("/v1/rules", None),
        "score": (
            "/v1/hands/score",
            orjson.dumps({"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}),
        ),
        "betting, 7 actions": ("/v1/betting/validate", orjson.dumps(EXAMPLE_ROUND)),
        "betting, 100 actions": ("/v1/betting/validate", orjson.dumps(betting_round(100))),
        "batch, 10,000 hands": (
            "/v1/hands/batch-score",
            orjson.dumps({"hands": hands, "breakdown": False}),
        ),
    }


def environ(path: str, body: bytes | None) -> dict[str, Any]:
    env: dict[str, Any] = {
        "REQUEST_METHOD": "POST" if body else "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
    }
    if body:
        env.update(
            CONTENT_TYPE="application/json",
            CONTENT_LENGTH=str(len(body)),
            **{"wsgi.input": io.BytesIO(body)},
        )
    return env


def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
    if not status.startswith("200"):
        raise SystemExit(f"unexpected {status}")


def cpu_us(app: Wsgi, path: str, body: bytes | None, count: int) -> float:
    started = time.thread_time()
    for _ in range(count):
        for _chunk in app(environ(path, body), start_response):
            pass
    return (time.thread_time() - started) / count * 1e6


def paired(app: Wsgi, inner: Wsgi, path: str, body: bytes | None) -> tuple[float, float, float]:
    count = 3 if body and len(body) > 100_000 else 300
    rounds = 21 if count == 3 else 41
    pairs = [
        (cpu_us(app, path, body, count), cpu_us(inner, path, body, count)) for _ in range(rounds)
    ]
    return (
        statistics.median(a for a, _ in pairs),
        statistics.median(b for _, b in pairs),
        statistics.median(a - b for a, b in pairs),
    )


def main() -> None:
    sink = fd_sink(os.open(os.devnull, os.O_WRONLY))
    app = create_app(Config(), audit_sink=sink)
    observer = app.extensions["quart_bezique"].observer
    outer: Wsgi = app.wsgi_app
    inner: Wsgi = observer.app
    requests = bodies()
    gc.collect()
    gc.freeze()
    print(f"{'request':24s} {'with':>10s} {'without':>10s} {'envelope':>10s}  (CPU µs per request)")
    for name, (path, body) in requests.items():
        with_, without, envelope = paired(outer, inner, path, body)
        print(f"{name:24s} {with_:10.1f} {without:10.1f} {envelope:10.1f}")
    observer.audit_log = False
    print("audit line off:")
    for name in ("score", "batch, 10,000 hands"):
        path, body = requests[name]
        print(f"{name:24s} {'':10s} {'':10s} {paired(outer, inner, path, body)[2]:10.1f}")
    print("body.parse: the key-sorted copy and the duplicate-key check, added to parsing:")
    for name in ("score", "betting, 100 actions", "batch, 10,000 hands"):
        raw = requests[name][1]
        assert raw is not None
        batch = name.startswith("batch")

        def parse(raw: bytes = raw) -> object:
            return orjson.loads(raw)

        def parse_and_check(raw: bytes = raw) -> object:
            sorted_body = orjson.dumps(orjson.loads(raw), option=orjson.OPT_SORT_KEYS)
            return raw.count(b":") != sorted_body.count(b":") or b"\\u003" in raw

        count = 30 if batch else 3000
        before = min(timeit.repeat(parse, number=count, repeat=7)) / count * 1e6
        after = min(timeit.repeat(parse_and_check, number=count, repeat=7)) / count * 1e6
        print(f"{name:24s} parse {before:9.1f} µs, + {after - before:.1f} µs")


if __name__ == "__main__":
    main()
