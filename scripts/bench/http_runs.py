"""Each endpoint over HTTP under wrk, the service and the baselines served alike.

Three gunicorn masters (the service, a bare Flask view, a raw WSGI app) share one environment and
``gunicorn.conf.py``, so that the ratios compare the app and nothing else. The baseline and the
score endpoint, whose ratio matters most, run in alternating rounds and report medians."""

from __future__ import annotations

import contextlib
import json
import statistics
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from scripts.bench.bodies import Bodies
from scripts.bench.config import BATCH_HANDS, NOISE_CPUS
from scripts.bench.log import log
from scripts.bench.machine import gunicorn_settings
from scripts.bench.options import Options
from scripts.bench.records import EndpointResult, HttpRun, Latency, Results, RoundFigures
from scripts.bench.startup import record_startup, respawn
from scripts.harness.ports import free_port
from scripts.harness.procfs import (
    CLK_TCK,
    children_cpu_s,
    proc_cpu_ticks,
    proc_memory,
    read_cpu_times,
    self_cpu_s,
)
from scripts.harness.server import SERVICE_APP, GunicornServer, server_env
from scripts.harness.wrk import POST_LUA, WrkResult, ensure_wrk, run_wrk

APPS: Final = {
    "service": SERVICE_APP,
    "flask": "scripts.bench.baseline:flask_app",
    "wsgi": "scripts.bench.baseline:wsgi_app",
}
STARTUP_KEYS: Final = {"service": "service", "flask": "baseline_flask", "wsgi": "baseline_wsgi"}
PAIRED: Final = ("baseline_flask", "score")
"""Run in alternating rounds: their ratio is the headline figure."""


@dataclass(frozen=True)
class Endpoint:
    key: str
    label: str
    server: str
    """"service", "flask" or "wsgi"."""
    path: str
    body: Path
    cycle: bool = False
    """The body file holds one body per line, sent in turn."""
    connections: int = 4
    hands: int = 0
    """Hands per request (batch endpoints)."""


def endpoints(bodies: Bodies, conns: int, batch_conns: int) -> list[Endpoint]:
    score = "/v1/hands/score"
    batch = "/v1/hands/batch-score"
    service = "service"
    return [
        Endpoint("baseline_flask", "baseline: bare Flask view", "flask", score, bodies.score,
                 connections=conns),
        Endpoint("score", "POST /v1/hands/score", service, score, bodies.score, connections=conns),
        Endpoint("baseline_wsgi", "baseline: raw WSGI", "wsgi", score, bodies.score,
                 connections=conns),
        Endpoint("batch", "batch-score 10k, no breakdown, compact", service, batch, bodies.batch,
                 connections=batch_conns, hands=BATCH_HANDS),
        Endpoint("batch_dumps", "batch-score 10k, no breakdown, json.dumps layout", service,
                 batch, bodies.batch_dumps, connections=batch_conns, hands=BATCH_HANDS),
        Endpoint("batch_breakdown", "batch-score 10k, breakdown", service, batch,
                 bodies.batch_breakdown, connections=batch_conns, hands=BATCH_HANDS),
        Endpoint("validate", "POST /v1/betting/validate (100)", service, "/v1/betting/validate",
                 bodies.validate, connections=conns),
        Endpoint("odds", "POST /v1/hands/odds (1 opp.)", service, "/v1/hands/odds", bodies.odds,
                 cycle=True, connections=1),
    ]  # fmt: skip


def post(url: str, body: bytes, timeout: float = 30.0) -> tuple[int, bytes]:
    req = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return int(resp.status), resp.read()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read()


def probe(endpoint: Endpoint, server: GunicornServer) -> str | None:
    """One request: None if it answers 200 as expected, else why to skip the endpoint (so the
    harness keeps working while an endpoint is missing or broken)."""
    body = endpoint.body.read_bytes()
    if endpoint.cycle:
        body = body.split(b"\n", 1)[0]
    try:
        status, answer = post(server.url + endpoint.path, body)
    except OSError as error:
        return f"request failed: {error}"
    if status in (404, 405):
        return f"not implemented here ({status}): skipped"
    if status != 200:
        return f"answered {status}: {answer[:300].decode(errors='replace')}"
    try:
        payload = json.loads(answer)
    except ValueError:
        return "answer is not JSON"
    if endpoint.hands and len(payload.get("results", ())) != endpoint.hands:
        return f"expected {endpoint.hands} results, got {len(payload.get('results', ()))}"
    return None


def drive(wrk: str, endpoint: Endpoint, url: str, seconds: float, cpus: Sequence[int]) -> WrkResult:
    env = {"BENCH_BODY": "", "BENCH_BODIES": ""}
    env["BENCH_BODIES" if endpoint.cycle else "BENCH_BODY"] = str(endpoint.body)
    return run_wrk(
        wrk,
        url + endpoint.path,
        POST_LUA,
        seconds=seconds,
        connections=endpoint.connections,
        threads=max(1, min(endpoint.connections, len(cpus) or 1)),
        env=env,
        timeout_s=30,
        cpus=cpus,
    )


def measure(
    wrk: str,
    endpoint: Endpoint,
    server: GunicornServer,
    seconds: float,
    warmup: float,
    load_cpus: Sequence[int],
) -> HttpRun:
    """A warm-up run, then the measured run with the server's and the machine's CPU read around
    it: CPU per request is the figure that does not depend on how busy wrk kept the server."""
    if warmup > 0:
        drive(wrk, endpoint, server.url, warmup, load_cpus)
    ticks0, pids0 = server.worker_ticks()
    master0 = proc_cpu_ticks(server.pid) or 0
    cpu0 = read_cpu_times()
    children0, self0 = children_cpu_s(), self_cpu_s()
    start = time.monotonic()
    result = drive(wrk, endpoint, server.url, seconds, load_cpus)
    wall = time.monotonic() - start
    ticks1, pids1 = server.worker_ticks()
    master1 = proc_cpu_ticks(server.pid) or 0
    machine = read_cpu_times() - cpu0
    wrk_cpu = children_cpu_s() - children0
    own_cpu = self_cpu_s() - self0

    requests = result.requests
    duration = result.duration_s
    server_cpu = (ticks1 - ticks0) / CLK_TCK
    master_cpu = (master1 - master0) / CLK_TCK
    other_cpu = max(0.0, machine.tasks / CLK_TCK - server_cpu - master_cpu - wrk_cpu - own_cpu)
    steal_cpu = machine.steal / CLK_TCK
    errors = result.errors.nonzero()
    lat = result.latency_us
    rps = round(requests / duration, 1) if duration else 0.0
    cpu_per_request = round(server_cpu * 1e6 / requests, 1) if requests else None
    other_cpus = round(other_cpu / wall, 3) if wall else None
    notes = []
    if errors:
        notes.append(f"errors {errors} (non-2xx counts as 'status'): figures unreliable")
    if pids0 != pids1:
        notes.append(f"worker pids changed during the run ({pids0} -> {pids1})")
    if other_cpus is not None and other_cpus > NOISE_CPUS:
        notes.append(f"other processes used {other_cpus:.2f} CPU meanwhile: noisy")
    if wall and steal_cpu / wall > NOISE_CPUS:
        notes.append(f"the hypervisor stole {steal_cpu / wall:.2f} CPU meanwhile: noisy")
    return HttpRun(
        requests=requests,
        duration_s=round(duration, 3),
        rps=rps,
        latency_ms=Latency(
            **{k: round(v / 1000, 3) for k, v in vars(lat).items()},
        ),
        server_cpu_s=round(server_cpu, 3),
        server_cpu_us_per_request=cpu_per_request,
        server_utilisation=round(server_cpu / wall, 3) if wall else None,
        master_cpu_s=round(master_cpu, 3),
        wrk_cpu_s=round(wrk_cpu, 3),
        other_cpu_s=round(other_cpu, 3),
        other_cpus=other_cpus,
        irq_cpu_s=round(machine.irq / CLK_TCK, 3),
        steal_cpu_s=round(steal_cpu, 3),
        errors=errors,
        connections=endpoint.connections,
        workers=len(pids1),
        workers_changed=pids0 != pids1,
        hands_per_s=round(rps * endpoint.hands) if endpoint.hands else None,
        hands_per_cpu_s=round(endpoint.hands * 1e6 / cpu_per_request)
        if endpoint.hands and cpu_per_request
        else None,
        notes=notes,
    )


def median_run(runs: list[HttpRun]) -> HttpRun:
    """Several rounds of one endpoint: each headline figure is the median over the rounds."""
    if len(runs) == 1:
        return runs[0]

    def median(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return statistics.median(present) if present else None

    first = runs[0]
    latency = {
        key: statistics.median(getattr(r.latency_ms, key) for r in runs)
        for key in vars(first.latency_ms)
    }
    return replace(
        first,
        rps=statistics.median(r.rps for r in runs),
        requests=statistics.median(r.requests for r in runs),
        server_cpu_us_per_request=median([r.server_cpu_us_per_request for r in runs]),
        hands_per_s=median([r.hands_per_s for r in runs]),
        other_cpus=median([r.other_cpus for r in runs]),
        latency_ms=Latency(**latency),
        notes=sorted({n for r in runs for n in r.notes}),
    )


def run_http(
    options: Options,
    results: Results,
    bodies: Bodies,
    tmp: Path,
    server_cpus: list[int],
    load_cpus: list[int],
    stack: contextlib.ExitStack,
) -> None:
    """Start the servers, measure every selected endpoint, then the respawn; fills ``results``."""
    wrk = ensure_wrk(log)
    base_env = server_env(
        0,
        drop=("GUNICORN_ACCESS_LOG",),
        WEB_CONCURRENCY=str(options.workers),
        LOG_LEVEL="warning",
    )
    settings = gunicorn_settings(base_env)
    results.settings.gunicorn_resolved = settings
    results.settings.gunicorn = settings.summary()

    selected = [
        e
        for e in endpoints(bodies, options.connections, options.batch_connections)
        if not options.only or e.key in options.only
    ]
    wanted = {e.server for e in selected} | {"service"}
    servers: dict[str, GunicornServer] = {}
    for name in ("service", "flask", "wsgi"):
        if name not in wanted:
            continue
        server = GunicornServer(
            {**base_env, "PORT": str(free_port())},
            tmp / f"gunicorn-{name}.log",
            app=APPS[name],
            cpus=server_cpus,
            new_session=True,
            name=name,
        )
        stack.callback(server.stop, False)
        server.start()
        servers[name] = server
        spawn_to_ready = server.wait_ready()
        results.startup[STARTUP_KEYS[name]] = record_startup(server, spawn_to_ready)
        log(f"{name}: ready {spawn_to_ready:.2f} s after spawn on {server.url}, "
            f"workers {server.workers()}")  # fmt: skip

    order: list[Endpoint] = []
    pair = [e for e in selected if e.key in PAIRED]
    for _ in range(options.rounds):
        order += pair
    order += [e for e in selected if e.key not in PAIRED]
    per_key: dict[str, list[HttpRun]] = {}
    skipped: dict[str, str] = {}
    for endpoint in selected:
        why = probe(endpoint, servers[endpoint.server])
        if why:
            skipped[endpoint.key] = why
            log(f"{endpoint.key}: {why}")
    for i, endpoint in enumerate(order, 1):
        if endpoint.key in skipped:
            continue
        log(
            f"[{i}/{len(order)}] {endpoint.label}: {options.warmup:g} s warm-up + "
            f"{options.duration:g} s, {endpoint.connections} connection(s)"
        )
        run = measure(
            wrk, endpoint, servers[endpoint.server], options.duration, options.warmup, load_cpus
        )
        per_key.setdefault(endpoint.key, []).append(run)
        log(
            f"    {run.rps:,.0f} req/s, p50 {run.latency_ms.p50} ms, p99 "
            f"{run.latency_ms.p99} ms, {run.server_cpu_us_per_request} µs CPU/req"
            + (f", {run.hands_per_s:,.0f} hands/s" if run.hands_per_s else "")
            + "".join(f"\n    note: {n}" for n in run.notes)
        )
    for endpoint in selected:
        runs = per_key.get(endpoint.key, [])
        results.http[endpoint.key] = EndpointResult(
            key=endpoint.key,
            label=endpoint.label,
            server=endpoint.server,
            path=endpoint.path,
            skipped=skipped.get(endpoint.key),
            run=median_run(runs) if runs else None,
            rounds=len(runs),
            per_round=[
                RoundFigures(r.rps, r.latency_ms.p99, r.server_cpu_us_per_request) for r in runs
            ]
            if len(runs) > 1
            else [],
        )

    for name, server in servers.items():
        results.startup[STARTUP_KEYS[name]].loaded_workers = [
            proc_memory(p) for p in server.workers()
        ]
    service_respawn = respawn(servers["service"])
    results.startup["service"].respawn = service_respawn
    log(f"service worker respawn: {service_respawn}")
    for server in servers.values():
        server.stop(graceful=False)
