"""``make loadtest-open`` (``python -m scripts.loadtest.open_model``): latency at a constant
arrival rate, the way traffic from many independent clients arrives.

A closed-loop test (``make loadtest``, wrk) sends the next request only when the previous answer
came back, so a slow server is sent less and its queueing never shows: coordinated omission. Here
send times are fixed in advance (one every 1/rate seconds) and each request's latency is measured
from its *scheduled* time, so time spent waiting for a free connection, in the server's accept
queue or in the generator itself counts against the server, as a user would feel it.

1. The service starts as deployed (``scripts.harness``: gunicorn with ``gunicorn.conf.py``, an
   API key configured and sent, the audit log on), with one worker of 2 threads pinned to the
   first CPU while the generator runs on the second (``--workers``, ``--no-pin``): the figures are
   one worker's, which a platform multiplies by its workers, and the generator never takes CPU
   time from the server it measures.
2. The mix: every verdict endpoint (``SIGNED_ROUTES``) with the request examples of
   ``openapi.yaml``, each checked in-process to be answered 200, endpoints taking equal turns.
3. Capacity: a short closed-loop saturation step through the same client code (so the client's
   own cost is the same in every step): completed requests per second.
4. Steps at 50 %, 80 % and 100 % of that capacity, each for ``--step-seconds``: achieved rate,
   p50/p99/p99.9/max latency from the scheduled time, errors (no answer, or not 200).

The target (80 %: p99 under ``TARGET_P99_MS``, no errors) is printed against the measured figures,
never asserted: a shared machine moves them. Everything started is stopped by pid; it stops by
itself after the steps. Run it on an otherwise idle machine for figures worth writing down.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import math
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from scripts.harness.ports import LOOPBACK
from scripts.harness.server import REPO, GunicornServer, ServerError, server_env, start_server

WORKERS: Final = 1
THREADS: Final = 2
SERVER_CPU: Final = 0
CLIENT_CPU: Final = 1
FRACTIONS: Final = (0.5, 0.8, 1.0)
TARGET_FRACTION: Final = 0.8
TARGET_P99_MS: Final = 10.0
STEP_S: Final = 20.0
SATURATION_S: Final = 5.0
WARMUP_S: Final = 2.0
PAUSE_S: Final = 1.0
"""Between steps: the previous step's stragglers are done before the next schedule starts."""
CONNECTIONS: Final = 64
"""Open-model connections: enough that, at the target rate, a request seldom waits for one."""
SATURATION_CONNECTIONS: Final = 16
REQUEST_TIMEOUT_S: Final = 10.0
DROPPED_PREFIXES: Final = ("GUNICORN_", "PROMETHEUS_", "API_KEYS", "MAX_", "QUART_BEZIQUE")


def log(message: str) -> None:
    print(f"[open-model {time.strftime('%H:%M:%S')}] {message}", flush=True)


# ------------------------------------------------------------------------------ the mix


@dataclass(frozen=True)
class Request:
    endpoint: str
    example: str
    raw: bytes
    """The whole HTTP/1.1 request, encoded once."""


def verdict_examples() -> dict[str, list[tuple[str, Any]]]:
    """Each verdict endpoint's request examples from the published contract, by endpoint."""
    from quart_bezique.wire.canonical import SIGNED_ROUTES

    spec = yaml.safe_load((REPO / "openapi.yaml").read_text(encoding="utf-8"))
    found: dict[str, list[tuple[str, Any]]] = {}
    for path in sorted(SIGNED_ROUTES):
        operation = spec["paths"].get(path, {}).get("post", {})
        content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        examples = content.get("examples", {})
        found[path] = [(name, example["value"]) for name, example in examples.items()]
    return found


def build_mix(api_key: str, port: int) -> list[Request]:
    """Examples the service answers 200 (checked in-process, so that any other answer under load
    is an error), interleaved so that every endpoint takes its turn in each round."""
    from quart_bezique.api.app import create_app
    from quart_bezique.api.config import Config

    client = create_app(Config(), audit_sink=lambda line: None).test_client()
    per_endpoint: list[list[Request]] = []
    for path, examples in verdict_examples().items():
        kept = []
        for name, value in examples:
            body = json.dumps(value, ensure_ascii=False).encode()
            answer = client.post(path, data=body, content_type="application/json")
            if answer.status_code != 200:
                log(f"{path} example {name!r}: answered {answer.status_code} in-process, left out")
                continue
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\n"
                f"Content-Type: application/json\r\nAuthorization: Bearer {api_key}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            )
            kept.append(Request(path, name, head.encode() + body))
        if kept:
            per_endpoint.append(kept)
        else:
            log(f"{path}: no example answered 200, endpoint left out")
    if not per_endpoint:
        raise SystemExit("no verdict example is answered 200 in-process")
    rounds = math.lcm(*(len(r) for r in per_endpoint))
    return [requests[i % len(requests)] for i in range(rounds) for requests in per_endpoint]


# ------------------------------------------------------------------------------ the client


class Connection:
    """One keep-alive HTTP/1.1 connection; answers read by Content-Length or chunked."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def exchange(self, raw: bytes) -> int:
        """Send one request, read its answer; the status, or raise OSError/EOF on failure."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(raw)
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip().lower()
        if "content-length" in headers:
            await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                await self.reader.readexactly(size + 2)
                if size == 0:
                    break
        if headers.get("connection") == "close":
            self.close()
        return status

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Tally:
    """What one step saw. Latencies are seconds from the scheduled send time."""

    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    completed_in_window: int = 0
    sent: int = 0
    generator_lag: list[float] = field(default_factory=list)
    """How late the generator itself started each request (included in the latencies)."""


async def send(
    request: Request,
    scheduled: float,
    pool: asyncio.Queue[Connection],
    tally: Tally,
    window_end: float,
) -> None:
    loop = asyncio.get_running_loop()
    tally.generator_lag.append(loop.time() - scheduled)
    conn = await pool.get()
    try:
        status = await asyncio.wait_for(conn.exchange(request.raw), REQUEST_TIMEOUT_S)
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as error:
        conn.close()
        kind = type(error).__name__
        tally.failures[kind] = tally.failures.get(kind, 0) + 1
        return
    except TimeoutError:
        conn.close()
        tally.failures["timeout"] = tally.failures.get("timeout", 0) + 1
        return
    finally:
        pool.put_nowait(conn)
    done = loop.time()
    tally.latencies.append(done - scheduled)
    tally.statuses[status] = tally.statuses.get(status, 0) + 1
    if done <= window_end:
        tally.completed_in_window += 1


async def open_step(
    mix: Sequence[Request], rate: float, seconds: float, port: int, connections: int
) -> Tally:
    """Requests at ``rate`` per second for ``seconds``, on a schedule fixed in advance."""
    loop = asyncio.get_running_loop()
    pool: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(connections):
        pool.put_nowait(Connection(LOOPBACK, port))
    tally = Tally()
    total = int(rate * seconds)
    start = loop.time() + 0.05
    window_end = start + seconds
    tasks: set[asyncio.Task[None]] = set()
    for i in range(total):
        scheduled = start + i / rate
        delay = scheduled - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        task = loop.create_task(send(mix[i % len(mix)], scheduled, pool, tally, window_end))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        tally.sent += 1
    if tasks:
        await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT_S + 5)
    for task in tasks:
        task.cancel()
    while not pool.empty():
        pool.get_nowait().close()
    return tally


async def closed_step(mix: Sequence[Request], seconds: float, port: int, connections: int) -> Tally:
    """Each connection sends its next request as soon as the answer is in: saturation."""
    loop = asyncio.get_running_loop()
    tally = Tally()
    end = loop.time() + seconds

    async def client(offset: int) -> None:
        conn = Connection(LOOPBACK, port)
        pool: asyncio.Queue[Connection] = asyncio.Queue()
        pool.put_nowait(conn)
        i = offset
        while loop.time() < end:
            tally.sent += 1
            await send(mix[i % len(mix)], loop.time(), pool, tally, end)
            i += connections
        conn.close()

    await asyncio.gather(*(client(i) for i in range(connections)))
    return tally


# ------------------------------------------------------------------------------ figures


@dataclass(frozen=True)
class StepResult:
    name: str
    target_rate: float | None
    seconds: float
    sent: int
    achieved_rate: float
    """Answers completed within the step's window, per second."""
    ok: int
    errors: int
    """No answer (connection error, timeout) or an answer other than 200."""
    error_kinds: dict[str, int]
    p50_ms: float | None
    p99_ms: float | None
    p999_ms: float | None
    max_ms: float | None
    generator_lag_p99_ms: float | None
    client_cpu: float
    """CPUs' worth of time the generator (this process) used: a busy client delays sends."""


def quantile_ms(ordered: Sequence[float], q: float) -> float | None:
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] * 1000, 3)


def summarise(
    name: str, tally: Tally, seconds: float, rate: float | None, cpu_s: float
) -> StepResult:
    ordered = sorted(tally.latencies)
    ok = tally.statuses.get(200, 0)
    kinds = {f"status {s}": n for s, n in tally.statuses.items() if s != 200} | tally.failures
    unfinished = tally.sent - len(tally.latencies) - sum(tally.failures.values())
    if unfinished > 0:
        kinds["unfinished"] = unfinished
    return StepResult(
        name=name,
        target_rate=rate,
        seconds=seconds,
        sent=tally.sent,
        achieved_rate=round(tally.completed_in_window / seconds, 1),
        ok=ok,
        errors=sum(kinds.values()),
        error_kinds=kinds,
        p50_ms=quantile_ms(ordered, 0.50),
        p99_ms=quantile_ms(ordered, 0.99),
        p999_ms=quantile_ms(ordered, 0.999),
        max_ms=round(ordered[-1] * 1000, 3) if ordered else None,
        generator_lag_p99_ms=quantile_ms(sorted(tally.generator_lag), 0.99),
        client_cpu=round(cpu_s / seconds, 2),
    )


def table(results: Sequence[StepResult]) -> list[str]:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    rows = [
        f"{'step':10s} {'target/s':>9s} {'achieved/s':>10s} {'sent':>7s} {'errors':>6s} "
        f"{'p50 ms':>8s} {'p99 ms':>8s} {'p99.9 ms':>9s} {'max ms':>8s} {'gen lag p99':>11s} "
        f"{'client CPU':>10s}"
    ]
    for r in results:
        target = "-" if r.target_rate is None else f"{r.target_rate:.0f}"
        rows.append(
            f"{r.name:10s} {target:>9s} {r.achieved_rate:10.1f} {r.sent:7d} {r.errors:6d} "
            f"{ms(r.p50_ms):>8s} {ms(r.p99_ms):>8s} {ms(r.p999_ms):>9s} {ms(r.max_ms):>8s} "
            f"{ms(r.generator_lag_p99_ms):>11s} {r.client_cpu:10.2f}"
        )
    return rows


# ------------------------------------------------------------------------------ the run


def start(work: Path, api_key: str, workers: int, cpus: Sequence[int]) -> GunicornServer:
    tmpdir = work / "tmp"
    tmpdir.mkdir()
    env = server_env(
        0,
        drop_prefixes=DROPPED_PREFIXES,
        WEB_CONCURRENCY=str(workers),
        GUNICORN_THREADS=str(THREADS),
        LOG_LEVEL="warning",
        API_KEYS=api_key,
        TMPDIR=str(tmpdir),
    )
    env.pop("PORT")
    return start_server(
        work / "audit.log", env, errors=work / "gunicorn.log", workers=workers, cpus=cpus
    )


def placement(pin: bool) -> tuple[tuple[int, ...], str]:
    """The server's CPUs and a description; pins this process (the generator) to another CPU
    when there are two or more and ``pin`` is asked."""
    if not pin or len(os.sched_getaffinity(0)) < 2:
        return (), "server and generator unpinned"
    os.sched_setaffinity(0, {CLIENT_CPU})
    return (SERVER_CPU,), f"server on CPU {SERVER_CPU}, generator on CPU {CLIENT_CPU}"


async def measure(args: argparse.Namespace, mix: Sequence[Request], port: int) -> list[StepResult]:
    results = []
    log(f"warm-up: {args.warmup:g} s closed loop")
    await closed_step(mix, args.warmup, port, args.saturation_connections)
    cpu0 = time.process_time()
    log(f"capacity: {args.saturation:g} s closed loop, {args.saturation_connections} connections")
    tally = await closed_step(mix, args.saturation, port, args.saturation_connections)
    capacity = summarise("capacity", tally, args.saturation, None, time.process_time() - cpu0)
    results.append(capacity)
    if capacity.achieved_rate <= 0:
        raise SystemExit("no request completed in the saturation step")
    for fraction in FRACTIONS:
        rate = capacity.achieved_rate * fraction
        await asyncio.sleep(PAUSE_S)
        log(f"{fraction:.0%} of capacity: {rate:.0f} req/s for {args.step_seconds:g} s")
        cpu0 = time.process_time()
        tally = await open_step(mix, rate, args.step_seconds, port, args.connections)
        results.append(
            summarise(f"{fraction:.0%}", tally, args.step_seconds, rate, time.process_time() - cpu0)
        )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.loadtest.open_model", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--step-seconds", type=float, default=STEP_S, help="seconds per step")
    parser.add_argument("--saturation", type=float, default=SATURATION_S, help="capacity step s")
    parser.add_argument("--warmup", type=float, default=WARMUP_S)
    parser.add_argument("--connections", type=int, default=CONNECTIONS)
    parser.add_argument("--saturation-connections", type=int, default=SATURATION_CONNECTIONS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--workers", type=int, default=WORKERS, help="gunicorn workers (1)")
    parser.add_argument(
        "--no-pin", action="store_true", help="pin neither server nor generator to a CPU"
    )
    args = parser.parse_args(argv)
    api_key = secrets.token_urlsafe(24)
    work = Path(tempfile.mkdtemp(prefix="quart-bezique-open-model-"))
    server: GunicornServer | None = None
    try:
        cpus, where = placement(not args.no_pin)
        server = start(work, api_key, args.workers, cpus)
        log(f"gunicorn master {server.pid} on {server.url}, workers {server.workers()}; {where}")
        mix = build_mix(api_key, server.port)
        endpoints = sorted({r.endpoint for r in mix})
        log(f"mix: {len(mix)} requests per round over {', '.join(endpoints)}")
        results = asyncio.run(measure(args, mix, server.port))
    except ServerError as error:
        log(f"the server did not start: {error}")
        return 1
    except KeyboardInterrupt:
        log("interrupted: everything started was stopped")
        return 130
    finally:
        if server is not None:
            server.stop()
    for row in table(results):
        print("    " + row, flush=True)
    at_target = next(r for r in results if r.name == f"{TARGET_FRACTION:.0%}")
    met = at_target.p99_ms is not None and at_target.p99_ms < TARGET_P99_MS and not at_target.errors
    print(
        f"target at {TARGET_FRACTION:.0%} of capacity: p99 < {TARGET_P99_MS:g} ms and no errors; "
        f"measured p99 {at_target.p99_ms} ms, {at_target.errors} errors at "
        f"{at_target.achieved_rate:.0f} req/s -> {'met' if met else 'NOT met'} (not asserted)",
        flush=True,
    )
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
