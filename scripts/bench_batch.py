"""Batch throughput at the client: ``POST /v1/hands/batch-score`` with 10,000 hands and
``"breakdown": false``, on one gunicorn worker (the repository's ``gunicorn.conf.py``, as deployed),
over one kept-alive ``http.client`` connection, for a fixed time; printed next to the target of
1,000,000 hands per second.

    .venv/bin/python -m scripts.bench_batch                  # 10 s after a 2 s warm-up
    .venv/bin/python -m scripts.bench_batch --seconds 30 --runs 3

The figure is end to end: the client's send and receive are in it, as are the audit line (to the
server's log file) and the metrics, which the service computes for every request. With two or more
CPUs the server is pinned to the first and the client to the second (``--no-pin`` to leave both
free). The load average before the run is printed: on a busy machine the figure is not a
benchmark. The server is stopped by pid on exit, whatever happens.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from scripts.harness.ports import free_port
from scripts.harness.processes import Terminated, unwind_on_signals
from scripts.harness.server import GunicornServer, server_env

TARGET: Final = 1_000_000
"""Hands per second at the client, one worker."""
PATH: Final = "/v1/hands/batch-score"
SEED: Final = 20261130
CODES: Final = tuple(r + s for r in ("9", "10", "J", "Q", "K", "A") for s in "SCHD")
TRUMPS: Final = (None, "S", "C", "H", "D")
DROPPED: Final = ("API_KEYS", "API_KEYS_FILE", "SIGNING_KEY_FILE", "GUNICORN_ACCESS_LOG")
"""A caller's keys or access log would change what is measured."""


def batch_body(hands: int, seed: int = SEED) -> bytes:
    """``hands`` seeded hands of canonical codes (repeats allowed, as from the six-deck shoe), a
    trump in four out of five, compact JSON, ``"breakdown": false``."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(hands):
        hand: dict[str, Any] = {"cards": [rng.choice(CODES) for _ in range(4)]}
        trump = rng.choice(TRUMPS)
        if trump is not None:
            hand["trump"] = trump
        out.append(hand)
    return json.dumps({"hands": out, "breakdown": False}, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Run:
    requests: int
    seconds: float
    hands: int
    server_cpu_s: float

    @property
    def hands_per_s(self) -> float:
        return self.requests * self.hands / self.seconds

    @property
    def server_ms_per_request(self) -> float:
        return 1000 * self.server_cpu_s / self.requests if self.requests else 0.0


def post(conn: http.client.HTTPConnection, body: bytes) -> bytes:
    conn.request("POST", PATH, body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{PATH} answered {response.status}: {data[:300]!r}")
    return data


def measure(server: GunicornServer, body: bytes, hands: int, seconds: float, warmup: float) -> Run:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    try:
        answer = json.loads(post(conn, body))
        if len(answer["results"]) != hands:
            raise RuntimeError(f"expected {hands} results, got {len(answer['results'])}")
        end = time.perf_counter() + warmup
        while time.perf_counter() < end:
            post(conn, body)
        ticks_before, _ = server.worker_ticks()
        requests = 0
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            post(conn, body)
            requests += 1
        elapsed = time.perf_counter() - start
        ticks_after, _ = server.worker_ticks()
    finally:
        conn.close()
    cpu_s = (ticks_after - ticks_before) / os.sysconf("SC_CLK_TCK")
    return Run(requests, elapsed, hands, cpu_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per run (10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up per run (2)")
    parser.add_argument("--runs", type=int, default=1, help="runs on the same server (1)")
    parser.add_argument("--hands", type=int, default=10_000, help="hands per request (10000)")
    parser.add_argument("--no-pin", action="store_true", help="pin neither server nor client")
    args = parser.parse_args(argv)

    cpus = sorted(os.sched_getaffinity(0))
    pinned = not args.no_pin and len(cpus) >= 2
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {len(cpus)} CPUs", end="")
    print(" (busy: figures are not a benchmark)" if load[0] > 0.5 else "")
    body = batch_body(args.hands)
    unwind_on_signals()
    with tempfile.TemporaryDirectory(prefix="bench_batch-") as tmp:
        port = free_port()
        env = server_env(port, drop=DROPPED, WEB_CONCURRENCY="1", LOG_LEVEL="warning")
        server = GunicornServer(
            env=env, stdout=Path(tmp) / "server.log", cpus=cpus[:1] if pinned else ()
        )
        try:
            server.start()
            server.wait_ready(workers=1)
            if pinned:
                os.sched_setaffinity(0, cpus[1:2])
            print(
                f"1 worker, {args.hands:,} hands/request ({len(body):,} bytes), kept-alive "
                f"connection, {args.seconds:g} s per run"
                + (f", server on CPU {cpus[0]}, client on CPU {cpus[1]}" if pinned else "")
            )
            for index in range(args.runs):
                run = measure(server, body, args.hands, args.seconds, args.warmup)
                verdict = "meets" if run.hands_per_s >= TARGET else "misses"
                print(
                    f"run {index + 1}: {run.requests} requests in {run.seconds:.2f} s: "
                    f"{run.hands_per_s:,.0f} hands/s at the client ({verdict} the target of "
                    f"{TARGET:,}); server CPU {run.server_ms_per_request:.2f} ms/request"
                )
        except Terminated:
            print("interrupted", file=sys.stderr)
            return 130
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
