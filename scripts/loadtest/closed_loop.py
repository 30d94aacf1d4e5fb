"""``make loadtest`` (``python -m scripts.loadtest``): the load and fault test of the real server.

It starts the service as deployed (gunicorn with the repository's ``gunicorn.conf.py``, 2 workers
of 2 threads, preloaded, on a free 127.0.0.1 port, its audit log on stdout captured to a file) and
drives it from other processes:

1. **Warm-up** (5 s of the mix below), then each worker's RSS ("before").
2. **Mixed load** (30 s): one ``wrk`` process per endpoint, all at once, keep-alive, 11 connections
   in all: score (3), batch-score (1; 10 to 2,000 hands, with and without breakdowns), showdown
   (2), betting/validate (2; 1 to 60 actions), rounds/settle (1), hands/odds (1; 1 or 2 opponents),
   and one connection of GETs (rules, healthz, readyz, metrics, openapi.json, docs). Every body is
   generated from a fixed seed and checked in-process to be answered 200, some with card aliases.
   Pass: zero 5xx, zero non-2xx, zero connection errors; one audit line per request answered
   (matched by the ``X-Request-ID`` each request carries); ``/metrics``, summed over both
   workers, counts exactly the score answers the audit log holds. Prints throughput and p50/p99
   per endpoint. Then each worker's RSS again ("after"): growth must stay under ``RSS_GROWTH_MIB``.
3. **A slow client** (5 s + 5 s): score alone, then score alone while a connection trickles its
   body (one byte every 30 ms, 4.4 s in all, within ``BODY_READ_TIMEOUT``). Pass: the slow request
   is answered 200 and no other request waits behind it (none takes ``STALL_MS``, half the
   trickle; their throughput and p99 against the baseline are printed, not asserted: a loaded
   machine moves them): the trickling body holds one thread of one worker, never a whole worker
   (see docs/operations.md for the bound with more slow clients).
4. **SIGKILL one worker** during 10 s of the mix. Gunicorn replaces it. Errors are counted and must
   not exceed the client connections the killed worker held at that moment (read from ``/proc``):
   a connection carries at most one request at a time (no pipelining), so this counts every
   request that worker had in flight -- being served by one of its threads or waiting in its
   queue or poller. Zero 5xx. The replacement must serve.
5. **SIGTERM to the master** while 6 client threads keep requests in flight (10,000-hand batches
   with breakdowns among them). Pass: every request sent before the signal is answered 200, no
   request the audit log shows as answered is missing at the client, and the master exits 0.

Everything it starts (gunicorn, wrk) is stopped by pid on success, failure or Ctrl-C. ``wrk`` is
Debian's package: installed with ``apt-get install -y wrk`` when missing and running as root.
Exit status 0 only if every check passes. ``--json PATH`` writes the figures as JSON too.
"""

from __future__ import annotations

import argparse
import dataclasses
import http.client
import json
import os
import random
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scripts.harness.ports import LOOPBACK
from scripts.harness.processes import Started
from scripts.harness.procfs import connections_held, rss_mib
from scripts.harness.server import GunicornServer, ServerError, server_env, start_server
from scripts.harness.wrk import MIX_LUA, RunningWrk, Statuses, WrkResult, ensure_wrk, start_wrk

SEED = 20_261_130

WORKERS = 2
THREADS = 2
WARMUP_S = 5
MAIN_S = 30
SLOW_S = 5
KILL_S = 10
KILL_AT_S = 3.0
TERM_AT_S = 2.0
SLOW_CLIENTS = 1
TRICKLE_INTERVAL_S = 0.03
RSS_GROWTH_MIB = 24
"""Largest RSS growth of a worker over the 30 s of mixed load (after a warm-up that fills the
caches: scoring breakdowns, odds answers, allocator arenas); a leak would pass it within seconds."""
STALL_MS = 2200
"""Half the trickle's 4.4 s: an answer that waited behind the slow body would take longer."""
WRK_TIMEOUT_S = 10
DROPPED_PREFIXES = ("GUNICORN_", "PROMETHEUS_", "API_KEYS", "MAX_", "QUART_BEZIQUE")
"""The caller's settings that would make the server differ from the one the checks expect."""

RANKS = ("A", "K", "Q", "J", "10", "9")
SUITS = ("S", "C", "H", "D")
CODES = tuple(r + s for s in SUITS for r in RANKS)
ALIASES = {"10": ("T", "t", "10"), "A": ("a",), "K": ("k",), "Q": ("q",), "J": ("j",)}
SUIT_ALIASES = {"S": ("s", "♠"), "C": ("c", "♣"), "H": ("h", "♥"), "D": ("d", "♦")}

STARTED = Started()
"""Every process this test started (gunicorn, wrk), stopped by pid on the way out."""


def log(message: str) -> None:
    print(f"[loadtest {time.strftime('%H:%M:%S')}] {message}", flush=True)


def request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=10)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def start(tmp: Path) -> GunicornServer:
    """The service as deployed, its audit log (stdout) and its own log (stderr) kept apart."""
    tmpdir = tmp / "tmp"
    tmpdir.mkdir()
    env = server_env(
        0,
        drop_prefixes=DROPPED_PREFIXES,
        WEB_CONCURRENCY=str(WORKERS),
        GUNICORN_THREADS=str(THREADS),
        LOG_LEVEL="info",
        TMPDIR=str(tmpdir),  # the only place written to, as in the container
    )
    env.pop("PORT")
    server = start_server(tmp / "audit.log", env, errors=tmp / "gunicorn.log", workers=WORKERS)
    if server.process is not None:
        STARTED.add(server.process)
    return server


# ------------------------------------------------------------------------------ the mix


@dataclass
class Endpoint:
    name: str
    path: str | None
    """POST path; None for the GET pool."""
    connections: int
    items: list[str] = field(default_factory=list)


def _spell(card: str, rng: random.Random) -> str:
    rank, suit = card[:-1], card[-1]
    return rng.choice((rank, *ALIASES.get(rank, ()))) + rng.choice((suit, *SUIT_ALIASES[suit]))


def _cards(rng: random.Random, count: int, aliases: bool) -> list[str]:
    cards = [rng.choice(CODES) for _ in range(count)]
    return [_spell(c, rng) for c in cards] if aliases else cards


def _trump(rng: random.Random) -> str | None:
    return rng.choice((None, "S", "C", "H", "D", "h", "♠"))


def _round(rng: random.Random, max_actions: int) -> tuple[dict[str, Any], Any]:
    """A valid betting body (legal actions only, from the core) and the core's last state."""
    from quart_bezique.game.betting import validate_betting

    players = ["ann", "bob", "cid", "dan"][: rng.randint(2, 4)]
    body: dict[str, Any] = {
        "players": players,
        "dealer": rng.choice(players),
        "ante": rng.choice((1, 5, 10)),
        "actions": [],
    }
    for _ in range(rng.randint(1, max_actions)):
        state = validate_betting(
            body["players"], body["dealer"], body["ante"], body["actions"]
        ).state
        if state.to_act is None or not state.legal_actions:
            break
        legal = rng.choice(state.legal_actions)
        action: dict[str, Any] = {"player": state.to_act, "type": legal.type.value}
        if legal.amount is not None:
            action["amount"] = legal.amount
        elif legal.min is not None:
            top = legal.max if legal.max is not None else legal.min * 3
            action["amount"] = rng.randint(legal.min, max(legal.min, min(top, legal.min * 3)))
        if legal.type.value == "fold" and rng.random() < 0.7:
            continue  # folds end rounds quickly: keep some sequences long
        body["actions"].append(action)
    final = validate_betting(body["players"], body["dealer"], body["ante"], body["actions"])
    return body, final.state


def build_mix(rng: random.Random) -> list[Endpoint]:
    score = Endpoint("score", "/v1/hands/score", 3)
    batch = Endpoint("batch", "/v1/hands/batch-score", 1)
    showdown = Endpoint("showdown", "/v1/showdown", 2)
    betting = Endpoint("betting", "/v1/betting/validate", 2)
    settle = Endpoint("settle", "/v1/rounds/settle", 1)
    odds = Endpoint("odds", "/v1/hands/odds", 1)
    gets = Endpoint("get", None, 1)
    for i in range(400):
        body: dict[str, Any] = {"cards": _cards(rng, 4, aliases=i % 5 == 0)}
        if rng.random() < 0.7:
            body["trump"] = _trump(rng)
        score.items.append(json.dumps(body, ensure_ascii=False))
    for size in (10, 50, 100, 250, 500, 1000, 2000) * 3:
        hands = []
        for _ in range(size):
            hand: dict[str, Any] = {"cards": _cards(rng, 4, aliases=rng.random() < 0.1)}
            if rng.random() < 0.8:
                hand["trump"] = rng.choice("SCHD")
            hands.append(hand)
        batch.items.append(json.dumps({"hands": hands, "breakdown": rng.random() < 0.5}))
    for i in range(200):
        hands = [{"player": p, "cards": _cards(rng, 4, aliases=i % 4 == 0)} for p in ("p1", "p2")]
        showdown.items.append(json.dumps({"trump": _trump(rng), "hands": hands}))
    for _ in range(120):
        betting.items.append(json.dumps(_round(rng, 60)[0]))
    while len(settle.items) < 80:
        body, state = _round(rng, 40)
        if state.phase.value == "betting":
            continue
        if state.showdown is not None:
            body["hands"] = {p: _cards(rng, 4, aliases=False) for p in state.showdown}
            body["trump"] = _trump(rng)
        settle.items.append(json.dumps(body))
    for _ in range(150):
        body = {"cards": _cards(rng, 4, aliases=False), "trump": _trump(rng)}
        body["seen"] = _cards(rng, rng.choice((0, 0, 4, 8)), aliases=False)
        body["opponents"] = rng.choice((1, 1, 1, 2))
        odds.items.append(json.dumps(body))
    gets.items = ["/v1/rules", "/healthz", "/readyz"] * 6 + ["/metrics", "/openapi.json", "/docs"]
    return [score, batch, showdown, betting, settle, odds, gets]


def check_mix(mix: list[Endpoint]) -> list[Endpoint]:
    """Keep only bodies the service answers 200 (in-process), so any other answer is a failure;
    drop an endpoint this version does not have."""
    from quart_bezique.api.app import create_app
    from quart_bezique.api.config import Config

    client = create_app(Config(), audit_sink=lambda line: None).test_client()
    kept = []
    for endpoint in mix:
        if endpoint.path is None:
            endpoint.items = [p for p in endpoint.items if client.get(p).status_code == 200]
        else:
            statuses = [
                client.post(
                    endpoint.path, data=item.encode(), content_type="application/json"
                ).status_code
                for item in endpoint.items
            ]
            if set(statuses) <= {404, 405}:
                log(f"{endpoint.path} does not exist here: left out of the mix")
                continue
            endpoint.items = [i for i, s in zip(endpoint.items, statuses, strict=True) if s == 200]
        if not endpoint.items:
            raise SystemExit(f"no body for {endpoint.name} is answered 200 in-process")
        kept.append(endpoint)
    return kept


# ------------------------------------------------------------------------------ wrk


def run_wrk(
    wrk: str,
    server: GunicornServer,
    mix: list[Endpoint],
    seconds: float,
    tag: str,
    work: Path,
    during: Callable[[float], object] | None = None,
) -> dict[str, WrkResult]:
    """One wrk per endpoint, all at once; ``during(started)`` runs meanwhile."""
    running: dict[str, RunningWrk] = {}
    for endpoint in mix:
        env = {"LOADTEST_NAME": f"{tag}_{endpoint.name}"}
        pool = work / f"{endpoint.name}.txt"
        if not pool.exists():
            pool.write_text("\n".join(endpoint.items) + "\n", encoding="utf-8")
        if endpoint.path is None:
            env["LOADTEST_GETS"] = str(pool)
        else:
            env["LOADTEST_BODIES"] = str(pool)
            env["LOADTEST_PATH"] = endpoint.path
        running[endpoint.name] = start_wrk(
            wrk,
            server.url,
            MIX_LUA,
            seconds=seconds,
            connections=endpoint.connections,
            env=env,
            timeout_s=WRK_TIMEOUT_S,
            started=STARTED,
            name=endpoint.name,
        )
    started = time.monotonic()
    if during is not None:
        during(started)
    return {name: job.result(WRK_TIMEOUT_S + 30) for name, job in running.items()}


def errors_of(result: WrkResult) -> int:
    """Requests that got no answer at all: connection errors and timeouts."""
    return result.errors.socket


def statuses(result: WrkResult) -> Statuses:
    if result.statuses is None:
        raise RuntimeError("mix.lua counts statuses: this result has none")
    return result.statuses


def table(results: dict[str, WrkResult], mix: list[Endpoint]) -> list[str]:
    paths = {e.name: e.path or "GET mix" for e in mix}
    rows = [
        f"{'endpoint':24s} {'conns':>5s} {'requests':>9s} {'req/s':>8s} {'p50 ms':>8s} "
        f"{'p99 ms':>8s} {'max ms':>8s} {'non-2xx':>7s} {'errors':>6s}"
    ]
    total = 0
    for endpoint in mix:
        r = results[endpoint.name]
        total += r.requests
        lat = r.latency_us
        rows.append(
            f"{paths[endpoint.name]:24s} {endpoint.connections:5d} {r.requests:9d} "
            f"{r.rps:8.1f} {lat.p50 / 1000:8.2f} {lat.p99 / 1000:8.2f} "
            f"{lat.max / 1000:8.1f} {statuses(r).non_2xx:7d} {errors_of(r):6d}"
        )
    seconds = max(r.duration_s for r in results.values())
    rows.append(f"{'all':24s} {'':5s} {total:9d} {total / seconds:8.1f}")
    return rows


# ------------------------------------------------------------------------------ phases


class Checks:
    def __init__(self) -> None:
        self.failed: list[str] = []

    def expect(self, ok: bool, what: str) -> None:
        log(("PASS  " if ok else "FAIL  ") + what)
        if not ok:
            self.failed.append(what)


def audit_ids(server: GunicornServer) -> dict[str, int]:
    """request id -> status, from the audit log (stdout)."""
    found = {}
    with server.stdout.open("rb") as lines:
        for line in lines:
            if line.startswith(b"{"):
                record = json.loads(line)
                found[record["request_id"]] = record["status"]
    return found


def trickle(port: int, body: bytes, results: list[tuple[int, float]]) -> None:
    """One slow client: the headers at once, then the body a byte at a time."""
    started = time.monotonic()
    status = 0
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            head = (
                f"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            sock.sendall(head.encode())
            for byte in body:
                sock.sendall(bytes((byte,)))
                time.sleep(TRICKLE_INTERVAL_S)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            status = int(answer.split(b" ", 2)[1])
    except OSError:
        status = -1
    results.append((status, time.monotonic() - started))


@dataclass
class Sent:
    request_id: str
    sent: float
    done: float
    status: int
    """HTTP status, or 0 for a connection error."""


def term_client(port: int, bodies: list[tuple[str, bytes]], name: str, log_: list[Sent]) -> None:
    """Keep one keep-alive connection busy until the server is gone."""
    conn: http.client.HTTPConnection | None = None
    count = 0
    refused = 0
    while refused < 20:
        path, body = bodies[count % len(bodies)]
        count += 1
        rid = f"term-{name}-{count}"
        sent = done = time.monotonic()
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request(
                "POST",
                path,
                body=body,
                headers={"Content-Type": "application/json", "X-Request-ID": rid},
            )
            sent = time.monotonic()
            response = conn.getresponse()
            response.read()
            status = response.status
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            status = 0
            if conn is not None:
                conn.close()
                conn = None
            refused += 1
            time.sleep(0.05)
        log_.append(Sent(rid, sent, time.monotonic() if status else done, status))


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.loadtest", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--main-seconds", type=int, default=MAIN_S)
    args = parser.parse_args()
    checks = Checks()
    figures: dict[str, Any] = {}
    wrk = ensure_wrk(log)
    rng = random.Random(SEED)
    log("building request bodies (seeded) and checking them in-process")
    mix = check_mix(build_mix(rng))
    work = Path(tempfile.mkdtemp(prefix="quart-bezique-loadtest-"))
    started = time.monotonic()
    try:
        server = start(work)
        log(f"gunicorn master {server.pid} on 127.0.0.1:{server.port}, workers {server.workers()}")
        idle = {pid: rss_mib(pid) for pid in server.workers()}

        # 1. warm-up, RSS before
        run_wrk(wrk, server, mix, WARMUP_S, "warm", work)
        before = {pid: rss_mib(pid) for pid in server.workers()}

        # 2. mixed load
        log(f"mixed load: {args.main_seconds} s, {sum(e.connections for e in mix)} connections")
        results = run_wrk(wrk, server, mix, args.main_seconds, "main", work)
        for row in table(results, mix):
            print("    " + row, flush=True)
        figures["main"] = {name: dataclasses.asdict(r) for name, r in results.items()}
        after = {pid: rss_mib(pid) for pid in server.workers()}
        five = sum(statuses(r).s5xx for r in results.values())
        non2xx = sum(statuses(r).non_2xx - statuses(r).s5xx for r in results.values())
        errors = sum(errors_of(r) for r in results.values())
        checks.expect(five == 0, f"mixed load: {five} answers 5xx")
        checks.expect(non2xx == 0, f"mixed load: {non2xx} answers 3xx/4xx (every body is valid)")
        checks.expect(errors == 0, f"mixed load: {errors} connection errors or timeouts")
        ids = audit_ids(server)
        for endpoint in mix:
            logged = sum(1 for rid in ids if rid.startswith(f"ltmain_{endpoint.name}-"))
            answered = results[endpoint.name].requests
            checks.expect(
                answered <= logged <= answered + endpoint.connections,
                f"audit: {logged} lines for {answered} {endpoint.name} answers "
                f"(+ at most {endpoint.connections} cut off when wrk stopped)",
            )
        time.sleep(1.3)  # every worker's tallies reach the metrics files within a second
        scraped = request(server.port, "GET", "/metrics")[1].decode()
        counted = sum(
            float(line.rsplit(" ", 1)[1])
            for line in scraped.splitlines()
            if line.startswith("quart_bezique_http_requests_total{")
            and 'endpoint="/v1/hands/score"' in line
            and 'status="200"' in line
        )
        logged = sum(1 for rid in ids if rid.startswith(("ltwarm_score-", "ltmain_score-")))
        checks.expect(
            counted == logged,
            f"metrics: {counted:.0f} score answers counted over both workers, {logged} logged",
        )
        growth = {pid: after[pid] - before[pid] for pid in before if pid in after}
        rss = ", ".join(
            f"{pid}: idle {idle.get(pid, 0):.1f}, before {before[pid]:.1f}, after {after[pid]:.1f}"
            for pid in growth
        )
        log(f"worker RSS MiB {rss}")
        figures["rss_mib"] = {"idle": idle, "before": before, "after": after}
        checks.expect(
            len(growth) == WORKERS and max(growth.values()) < RSS_GROWTH_MIB,
            f"RSS growth over the mixed load {max(growth.values(), default=0):.1f} MiB "
            f"< {RSS_GROWTH_MIB} MiB per worker",
        )

        # 3. slow clients
        score = [e for e in mix if e.name == "score"]
        base = run_wrk(wrk, server, score, SLOW_S, "slowbase", work)["score"]
        trickled: list[tuple[int, float]] = []
        padded = json.dumps({"cards": ["KS", "QS", "JS", "JC"]}).encode() + b" " * 110
        threads = [
            threading.Thread(target=trickle, args=(server.port, padded, trickled))
            for _ in range(SLOW_CLIENTS)
        ]

        def start_trickling(_: float) -> None:
            for thread in threads:
                thread.start()

        slow = run_wrk(wrk, server, score, SLOW_S, "slow", work, during=start_trickling)["score"]
        for thread in threads:
            thread.join(timeout=60)
        rate = slow.requests / base.requests
        p99 = slow.latency_us.p99 / max(1, base.latency_us.p99)
        log(
            f"slow client: {SLOW_CLIENTS} body of {len(padded)} bytes at one byte per "
            f"{TRICKLE_INTERVAL_S * 1000:.0f} ms -> {trickled}; score alone "
            f"{base.requests / SLOW_S:.0f} req/s p99 {base.latency_us.p99 / 1000:.2f} ms, "
            f"meanwhile {slow.requests / SLOW_S:.0f} req/s p99 "
            f"{slow.latency_us.p99 / 1000:.2f} ms"
        )
        figures["slow"] = {
            "baseline": dataclasses.asdict(base),
            "during": dataclasses.asdict(slow),
            "trickled": trickled,
        }
        checks.expect(
            len(trickled) == SLOW_CLIENTS and all(s == 200 for s, _ in trickled),
            "slow client answered 200",
        )
        # Stalled means waiting behind the trickle: a latency of seconds. Throughput ratios are
        # printed, never asserted (a loaded machine moves them: a timing check is a fragile check).
        longest_ms = slow.latency_us.max / 1000
        checks.expect(
            errors_of(slow) == 0 and slow.requests > 0 and longest_ms < STALL_MS,
            f"others not stalled: none waited {STALL_MS / 1000:.1f} s (longest {longest_ms:.0f} "
            f"ms); meanwhile {rate:.0%} of the throughput, p99 x{p99:.2f}",
        )

        # 4. SIGKILL one worker
        victims: dict[str, int] = {}

        def kill_one(start: float) -> None:
            time.sleep(max(0.0, KILL_AT_S - (time.monotonic() - start)))
            victim = server.workers()[0]
            victims["pid"] = victim
            victims["connections"] = connections_held(victim, server.port)
            os.kill(victim, signal.SIGKILL)

        log(f"SIGKILL one worker {KILL_AT_S:.0f} s into {KILL_S} s of the mix")
        killed = run_wrk(wrk, server, mix, KILL_S, "kill", work, during=kill_one)
        for row in table(killed, mix):
            print("    " + row, flush=True)
        lost = sum(errors_of(r) + statuses(r).s4xx + statuses(r).s5xx for r in killed.values())
        five = sum(statuses(r).s5xx for r in killed.values())
        workers = server.workers()
        figures["kill"] = {
            "results": {name: dataclasses.asdict(r) for name, r in killed.items()},
            "victim": victims,
            "errors": lost,
        }
        checks.expect(five == 0, f"SIGKILL: {five} answers 5xx")
        checks.expect(
            lost <= victims["connections"],
            f"SIGKILL: {lost} failed requests <= {victims['connections']} connections the "
            f"killed worker held (each with at most one request in flight)",
        )
        checks.expect(
            victims["pid"] not in workers and len(workers) == WORKERS,
            f"SIGKILL: worker {victims['pid']} replaced, workers now {workers}",
        )
        checks.expect(request(server.port, "GET", "/readyz")[0] == 200, "SIGKILL: ready again")

        # 5. SIGTERM to the master
        batch = json.dumps(
            {"hands": [{"cards": _cards(rng, 4, False)} for _ in range(10_000)]}
        ).encode()
        small = [(e.path, e.items[0].encode()) for e in mix if e.path is not None]
        sent: list[Sent] = []
        clients = [
            threading.Thread(
                target=term_client,
                args=(server.port, [("/v1/hands/batch-score", batch)] if i < 2 else small, i, sent),
            )
            for i in range(6)
        ]
        for client in clients:
            client.start()
        time.sleep(TERM_AT_S)
        signalled = time.monotonic()
        os.kill(server.pid, signal.SIGTERM)
        code = server.stop(timeout=60)
        stopped = time.monotonic() - signalled
        for client in clients:
            client.join(timeout=60)
        before_term = [s for s in sent if s.sent < signalled]
        in_flight = [s for s in before_term if s.done >= signalled]
        failed = [s for s in before_term if s.status != 200]
        answered_ids = audit_ids(server)
        received = {s.request_id for s in sent if s.status}
        dropped = [rid for rid in answered_ids if rid.startswith("term-") and rid not in received]
        log(
            f"SIGTERM: {len(sent)} requests, {len(in_flight)} in flight at the signal, "
            f"master exited {code} after {stopped:.2f} s"
        )
        figures["term"] = {
            "requests": len(sent),
            "in_flight": len(in_flight),
            "failed_before_signal": len(failed),
            "answered_but_lost": len(dropped),
            "exit_code": code,
            "seconds_to_exit": round(stopped, 2),
        }
        checks.expect(len(in_flight) > 0, f"SIGTERM: {len(in_flight)} requests were in flight")
        checks.expect(not failed, f"SIGTERM: {len(failed)} requests sent before it failed")
        checks.expect(not dropped, f"SIGTERM: {len(dropped)} answers logged but not received")
        checks.expect(code == 0, f"SIGTERM: master exit code {code}")
        log_text = server.log_tail(10_000)
        checks.expect("Traceback" not in log_text, "no traceback in gunicorn's log")
    finally:
        STARTED.stop_all()
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["failed"] = checks.failed
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n")
    if checks.failed:
        log(f"FAILED ({len(checks.failed)}): " + "; ".join(checks.failed))
        log(f"logs kept in {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    log(f"all checks passed in {figures['seconds']} s")
    return 0


def _interrupted(signum: int, frame: object) -> None:
    STARTED.stop_all()
    raise SystemExit(128 + signum)


def run() -> int:
    """``main`` with every process it started stopped however it ends."""
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        return main()
    except KeyboardInterrupt:
        STARTED.stop_all()
        return 130
    except ServerError as error:
        STARTED.stop_all()
        log(f"the server did not start: {error}")
        return 1


if __name__ == "__main__":
    raise SystemExit(run())
