"""``make bench``: the performance benchmark, the service side by side with a bare Flask view.

What it does, in order (docs/performance.md explains the method and how to read the results):

1. Checks that the machine is otherwise idle (samples ``/proc/stat`` for a second and names the
   busiest processes); a busy machine is reported loudly and recorded, never refused.
2. Starts three gunicorn servers with the *same* ``gunicorn.conf.py`` and environment
   (``WEB_CONCURRENCY`` workers, default 1), each on a free 127.0.0.1 port, all pinned to the
   server CPU(s): the service (``service.wsgi:app``), the bare Flask JSON view and a raw WSGI app
   (``scripts/bench_baseline.py``). Records spawn-to-ready time and idle worker RSS.
3. Drives each endpoint with ``wrk`` pinned to the other CPU(s) (a warm-up run, then the measured
   run): req/s, p50/p99 latency, server CPU µs per request (utime+stime of the gunicorn workers
   from ``/proc/<pid>/stat``, before and after, divided by the requests completed), the ratio to the
   baseline, and how much CPU *other* processes used meanwhile (a noise gauge).
4. Kills the service's worker to time a respawn (gunicorn forks a new one) to the first 200.
5. In a fresh process pinned to the server CPU: µs per hand of the core (``score_value``,
   ``score_hand``, the API's batch functions) and of ``treys`` evaluating 5-card poker hands, side
   by side; every endpoint called in-process through WSGI (no HTTP), to split the framework's cost
   from gunicorn's; the betting replay and the odds queries.
6. Cold start: a fresh interpreter importing and building the app, repeated.
7. Prints the tables and the performance targets with PASS/MISS, writes ``results.json``,
   ``results.md`` and ``bench.png`` into ``docs/bench/`` (``--out`` to change).

Everything it starts is stopped by pid on exit, error or Ctrl-C. Bodies are generated at run time
from a fixed seed. Run ``scripts/bench.py --quick`` for a short smoke run (figures meaningless).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = REPO / "scripts"
LUA_SCRIPT = SCRIPTS / "bench_lua" / "post.lua"
GUNICORN_CONF = REPO / "gunicorn.conf.py"
DEFAULT_OUT = REPO / "docs" / "bench"

SEED = 5_2024
BATCH_HANDS = 10_000
BETTING_ACTIONS = 100
ODDS_POOL = 20_000
"""Distinct odds bodies, sent in turn: more than the core's LRU cache holds (8,192), so a cyclic
pass never hits it and every request is a cold query."""
SCORE_BODY: dict[str, Any] = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}
"""The ``/v1/hands/score`` body, also sent to the baselines (coronka, bezique, trumps)."""

RANKS = ("A", "K", "Q", "J", "10", "9")
SUITS = ("S", "C", "H", "D")
CODES = tuple(r + s for s in SUITS for r in RANKS)
TRUMPS: tuple[str | None, ...] = (None, "S", "C", "H", "D")

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
IDLE_BUSY_CPUS = 0.10
"""More than this many CPUs' worth of busy time (summed over CPUs) means "not idle"."""
NOISE_CPUS = 0.10
"""Other processes using more than this fraction of a CPU during a run make it suspect."""

# The performance targets' limits (the odds latency included), in one place.
LIMIT_CPU_RATIO = 1.15
LIMIT_RPS_RATIO = 0.85
LIMIT_P99_RATIO = 1.5
LIMIT_BATCH_HANDS_S = 1_000_000
LIMIT_BATCH_VS_CORE = 0.5
LIMIT_BREAKDOWN_HANDS_S = 200_000
LIMIT_CORE_US = 1.0
LIMIT_VALIDATE_CPU_RATIO = 2.0
LIMIT_READY_S = 0.5
LIMIT_RSS_MIB = 60.0
LIMIT_ODDS_MS = 5.0


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def warn(message: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n[bench] WARNING: {message}\n{bar}\n", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# /proc readings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuTimes:
    """Jiffies summed over all CPUs, from the first line of /proc/stat."""

    tasks: int
    """user + nice + system: time that processes account for in their own utime/stime."""
    irq: int
    """irq + softirq: interrupt work (loopback networking shows up here), attributed to nobody."""
    steal: int
    """time the hypervisor gave to other guests: noise we cannot see from inside."""
    total: int

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(
            self.tasks - other.tasks,
            self.irq - other.irq,
            self.steal - other.steal,
            self.total - other.total,
        )


def read_cpu_times() -> CpuTimes:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]] + [0] * 8
    user, nice, system, _idle, _iowait, irq, softirq, steal = v[:8]
    return CpuTimes(user + nice + system, irq + softirq, steal, sum(v[:8]))


def proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (index 0 is the state), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def proc_cpu_ticks(pid: int) -> int | None:
    """utime + stime of a process (all its threads, live and finished), in clock ticks."""
    fields = proc_stat(pid)
    return None if fields is None else int(fields[11]) + int(fields[12])


def proc_start_s(pid: int) -> float | None:
    """When the process started, in seconds since boot (CLOCK_BOOTTIME), tick resolution."""
    fields = proc_stat(pid)
    return None if fields is None else int(fields[19]) / CLK_TCK


def proc_name(pid: int) -> str:
    """The process's short name (``comm``), never its command line (which may carry secrets)."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() or f"pid {pid}"
    except OSError:
        return f"pid {pid}"


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = proc_stat(int(entry))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry))
    return sorted(found)


def proc_memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM from /proc/<pid>/status, Pss from smaps_rollup (shared pages split)."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(rest.split()[0])
    with contextlib.suppress(OSError), open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key == "Pss":
                out["Pss"] = int(rest.split()[0])
    return out


def all_process_ticks() -> dict[int, int]:
    ticks = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            t = proc_cpu_ticks(int(entry))
            if t is not None:
                ticks[int(entry)] = t
    return ticks


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def idle_check(seconds: float = 1.0) -> dict[str, Any]:
    """Sample the whole machine's CPU use for ``seconds``; name the busiest processes."""
    with open("/proc/loadavg") as f:
        loadavg = [float(x) for x in f.read().split()[:3]]
    before_procs = all_process_ticks()
    cpu0 = read_cpu_times()
    time.sleep(seconds)
    delta = read_cpu_times() - cpu0
    after_procs = all_process_ticks()
    ncpu = os.cpu_count() or 1
    busy_cpus = (delta.tasks + delta.irq + delta.steal) / max(1, delta.total) * ncpu
    me = os.getpid()
    top = sorted(
        (
            ((after_procs[pid] - t0) / CLK_TCK / seconds, pid)
            for pid, t0 in before_procs.items()
            if pid in after_procs and pid != me and after_procs[pid] - t0 >= 0.02 * CLK_TCK
        ),
        reverse=True,
    )[:5]
    return {
        "sample_s": seconds,
        "loadavg": loadavg,
        "cpus": ncpu,
        "busy_cpus": round(busy_cpus, 3),
        "idle": busy_cpus <= IDLE_BUSY_CPUS,
        "busiest": [
            {"pid": pid, "cpus": round(share, 3), "command": proc_name(pid)} for share, pid in top
        ],
    }


# --------------------------------------------------------------------------------------------
# Processes we start, and stopping them whatever happens
# --------------------------------------------------------------------------------------------


class Terminated(Exception):
    """SIGTERM or SIGHUP arrived: unwind so every ``finally`` stops what we started."""


def _on_signal(signum: int, frame: Any) -> None:
    raise Terminated(signal.Signals(signum).name)


def _threaded(worker_class: str) -> bool:
    """gthread, or the service's head-first worker built on it: both have a thread pool."""
    return worker_class == "gthread" or worker_class.endswith("HeadFirstWorker")


def pin(cpus: Sequence[int]) -> Callable[[], None] | None:
    """A ``preexec_fn`` that pins the child to ``cpus`` (what ``taskset -c`` does)."""
    if not cpus:
        return None
    chosen = set(cpus)

    def apply() -> None:
        os.sched_setaffinity(0, chosen)

    return apply


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http(
    method: str, url: str, body: bytes | None = None, timeout: float = 30.0
) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return int(resp.status), resp.read()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read()


@dataclass
class Server:
    """One gunicorn master (and its workers) started by this script."""

    name: str
    app: str
    port: int
    cpus: list[int]
    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    spawned_at: float = 0.0
    known_workers: set[int] = field(default_factory=set)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = dict(self.env, PORT=str(self.port))
        cmd = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), self.app]
        self.log_file = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        self.spawned_at = time.monotonic()
        self.proc = subprocess.Popen(
            cmd,
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us only; we stop it ourselves, by pid
            preexec_fn=pin(self.cpus),
        )

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Seconds from spawn to the first 200 on /readyz."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                raise RuntimeError(f"{self.name} exited ({code}):\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                status, _ = http("GET", f"{self.url}/readyz", timeout=2.0)
                if status == 200:
                    ready = time.monotonic() - self.spawned_at
                    self.known_workers.update(self.workers())
                    return ready
            time.sleep(0.005)
        raise RuntimeError(f"{self.name} not ready after {timeout} s:\n{self.log_tail()}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def workers(self) -> list[int]:
        found = children_of(self.pid)
        self.known_workers.update(found)
        return found

    def worker_ticks(self) -> tuple[int, list[int]]:
        pids = self.workers()
        return sum(proc_cpu_ticks(p) or 0 for p in pids), pids

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.known_workers.update(self.workers())
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGQUIT)  # gunicorn: quick shutdown
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        for pid in sorted(self.known_workers):  # orphans only if the master was killed
            fields = proc_stat(pid)
            if fields is not None and fields[0] != "Z" and int(fields[1]) in (self.pid, 1):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self.log_file.close()
        self.proc = None


# --------------------------------------------------------------------------------------------
# Request bodies (seeded, generated at run time)
# --------------------------------------------------------------------------------------------


def random_hands(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` hands as the API takes them: four canonical codes (repeats allowed, as from a
    six-deck shoe) and a trump in four hands out of five."""
    rng = random.Random(seed)
    hands = []
    for _ in range(n):
        hand: dict[str, Any] = {"cards": [rng.choice(CODES) for _ in range(4)]}
        trump = rng.choice(TRUMPS)
        if trump is not None:
            hand["trump"] = trump
        hands.append(hand)
    return hands


def betting_sequence(n_actions: int, seed: int) -> dict[str, Any]:
    """A valid, unfinished ``/v1/betting/validate`` body of ``n_actions`` actions: stakes (some
    raising), the top-ups they cause, one fold. Built by asking the core for the legal actions."""
    from service.game.betting import validate_betting

    rng = random.Random(seed)
    players, dealer, ante = ["ann", "bob", "cid", "dan"], "dan", 10
    actions: list[dict[str, Any]] = []
    folded = False
    for i in range(n_actions):
        result = validate_betting(players, dealer, ante, actions)
        state = result.state
        if not result.valid or state.to_act is None:
            raise RuntimeError(f"betting sequence broke at action {i}: {result.error}")
        legal = {str(a.type): a for a in state.legal_actions}
        who = state.to_act
        if "top_up" in legal and not folded and i > n_actions // 2:
            actions.append({"player": who, "type": "fold"})
            folded = True
        elif "top_up" in legal:
            actions.append({"player": who, "type": "top_up", "amount": legal["top_up"].amount})
        else:
            stake = legal["stake"]
            low = int(stake.min or ante)
            amount = low if rng.random() < 0.7 else low + 10 * rng.randint(1, 3)
            if stake.max is not None:
                amount = min(amount, int(stake.max))
            actions.append({"player": who, "type": "stake", "amount": amount})
    final = validate_betting(players, dealer, ante, actions)
    if not final.valid:
        raise RuntimeError(f"generated betting sequence is not valid: {final.error}")
    return {"players": players, "dealer": dealer, "ante": ante, "actions": actions}


def odds_bodies(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` distinct one-opponent odds bodies: half with nothing seen, half with a shown hand."""
    rng = random.Random(seed)
    seen_keys: set[tuple[tuple[str, ...], str | None, tuple[str, ...]]] = set()
    bodies: list[dict[str, Any]] = []
    while len(bodies) < n:
        cards = [rng.choice(CODES) for _ in range(4)]
        trump = rng.choice(TRUMPS)
        seen = [rng.choice(CODES) for _ in range(4)] if rng.random() < 0.5 else []
        everything = cards + seen
        if any(everything.count(c) > 6 for c in everything):
            continue
        key = (tuple(sorted(cards)), trump, tuple(sorted(seen)))
        if key in seen_keys:
            continue
        seen_keys.add(key)
        body: dict[str, Any] = {"cards": cards}
        if trump is not None:
            body["trump"] = trump
        if seen:
            body["seen"] = seen
        bodies.append(body)
    return bodies


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Bodies:
    score: Path
    batch: Path
    batch_breakdown: Path
    validate: Path
    odds: Path
    """One body per line."""
    hands: Path
    """The batch's hands, for the in-process measurements."""


def write_bodies(tmp: Path, odds_pool: int) -> Bodies:
    hands = random_hands(BATCH_HANDS, SEED)
    paths = Bodies(
        score=tmp / "score.json",
        batch=tmp / "batch.json",
        batch_breakdown=tmp / "batch_breakdown.json",
        validate=tmp / "validate.json",
        odds=tmp / "odds.jsonl",
        hands=tmp / "hands.json",
    )
    paths.score.write_bytes(dumps(SCORE_BODY))
    paths.batch.write_bytes(dumps({"hands": hands, "breakdown": False}))
    paths.batch_breakdown.write_bytes(dumps({"hands": hands, "breakdown": True}))
    paths.validate.write_bytes(dumps(betting_sequence(BETTING_ACTIONS, SEED)))
    paths.odds.write_bytes(b"\n".join(dumps(b) for b in odds_bodies(odds_pool, SEED)) + b"\n")
    paths.hands.write_bytes(dumps(hands))
    return paths


# --------------------------------------------------------------------------------------------
# Load generation
# --------------------------------------------------------------------------------------------


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("wrk is missing: installing Debian's package (apt-get install -y wrk)")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")

        def apt(*words: str) -> int:
            command = ["apt-get", *words]
            return subprocess.run(command, env=env, stdout=subprocess.DEVNULL).returncode

        if apt("install", "-y", "-qq", "wrk") != 0:
            apt("update", "-qq")
            apt("install", "-y", "-qq", "wrk")
        found = shutil.which("wrk")
        if found:
            return found
    raise SystemExit(
        "bench: wrk not found and could not be installed; install Debian's wrk "
        "(apt-get install wrk) or run with --no-http"
    )


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


def run_wrk(
    wrk: str, endpoint: Endpoint, url: str, seconds: float, cpus: Sequence[int]
) -> dict[str, Any]:
    threads = max(1, min(endpoint.connections, len(cpus) or 1))
    cmd = [
        wrk,
        f"-t{threads}",
        f"-c{endpoint.connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "30s",
        "--latency",
        "-s",
        str(LUA_SCRIPT),
        url + endpoint.path,
    ]
    env = dict(os.environ, BENCH_BODY="", BENCH_BODIES="")
    env["BENCH_BODIES" if endpoint.cycle else "BENCH_BODY"] = str(endpoint.body)
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=pin(cpus),
    )
    try:
        out, err = proc.communicate(timeout=seconds + 60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = out.decode(errors="replace")
    for line in text.splitlines():
        if line.startswith("BENCH_JSON "):
            parsed: dict[str, Any] = json.loads(line[len("BENCH_JSON ") :])
            return parsed
    raise RuntimeError(f"wrk gave no result ({proc.returncode}): {text[-500:]} {err[-500:]!r}")


def measure(
    wrk: str,
    endpoint: Endpoint,
    server: Server,
    seconds: float,
    warmup: float,
    load_cpus: Sequence[int],
) -> dict[str, Any]:
    """A warm-up run, then the measured run with the server's CPU read around it."""
    if warmup > 0:
        run_wrk(wrk, endpoint, server.url, warmup, load_cpus)
    ticks0, pids0 = server.worker_ticks()
    master0 = proc_cpu_ticks(server.pid) or 0
    cpu0 = read_cpu_times()
    children0, self0 = children_cpu_s(), self_cpu_s()
    start = time.monotonic()
    result = run_wrk(wrk, endpoint, server.url, seconds, load_cpus)
    wall = time.monotonic() - start
    ticks1, pids1 = server.worker_ticks()
    master1 = proc_cpu_ticks(server.pid) or 0
    machine = read_cpu_times() - cpu0
    wrk_cpu = children_cpu_s() - children0
    own_cpu = self_cpu_s() - self0

    requests = int(result["requests"])
    duration = result["duration_us"] / 1e6
    server_cpu = (ticks1 - ticks0) / CLK_TCK
    master_cpu = (master1 - master0) / CLK_TCK
    tasks_cpu = machine.tasks / CLK_TCK
    other_cpu = max(0.0, tasks_cpu - server_cpu - master_cpu - wrk_cpu - own_cpu)
    steal_cpu = machine.steal / CLK_TCK
    errors = {k: int(v) for k, v in result["errors"].items() if v}
    lat = result["latency_us"]
    run: dict[str, Any] = {
        "requests": requests,
        "duration_s": round(duration, 3),
        "rps": round(requests / duration, 1) if duration else 0.0,
        "latency_ms": {k: round(v / 1000, 3) for k, v in lat.items()},
        "server_cpu_s": round(server_cpu, 3),
        "server_cpu_us_per_request": round(server_cpu * 1e6 / requests, 1) if requests else None,
        "server_utilisation": round(server_cpu / wall, 3) if wall else None,
        "master_cpu_s": round(master_cpu, 3),
        "wrk_cpu_s": round(wrk_cpu, 3),
        "other_cpu_s": round(other_cpu, 3),
        "other_cpus": round(other_cpu / wall, 3) if wall else None,
        "irq_cpu_s": round(machine.irq / CLK_TCK, 3),
        "steal_cpu_s": round(steal_cpu, 3),
        "errors": errors,
        "connections": endpoint.connections,
        "workers": len(pids1),
        "workers_changed": pids0 != pids1,
    }
    if endpoint.hands:
        run["hands_per_s"] = round(run["rps"] * endpoint.hands)
        if run["server_cpu_us_per_request"]:
            run["hands_per_cpu_s"] = round(endpoint.hands * 1e6 / run["server_cpu_us_per_request"])
    notes = []
    if errors:
        notes.append(f"errors {errors} (non-2xx counts as 'status'): figures unreliable")
    if pids0 != pids1:
        notes.append(f"worker pids changed during the run ({pids0} -> {pids1})")
    if run["other_cpus"] is not None and run["other_cpus"] > NOISE_CPUS:
        notes.append(f"other processes used {run['other_cpus']:.2f} CPU meanwhile: noisy")
    if wall and steal_cpu / wall > NOISE_CPUS:
        notes.append(f"the hypervisor stole {steal_cpu / wall:.2f} CPU meanwhile: noisy")
    run["notes"] = notes
    return run


def probe(endpoint: Endpoint, server: Server) -> str | None:
    """One request through urllib: None if it answers 200 as expected, else why to skip."""
    if endpoint.cycle:
        body = endpoint.body.read_bytes().split(b"\n", 1)[0]
    else:
        body = endpoint.body.read_bytes()
    try:
        status, answer = http("POST", server.url + endpoint.path, body)
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


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several rounds of one endpoint: each figure is the median over the rounds."""
    if len(runs) == 1:
        return dict(runs[0], rounds=1)
    out = dict(runs[0])
    for key in ("rps", "server_cpu_us_per_request", "hands_per_s", "other_cpus", "requests"):
        values = [r[key] for r in runs if r.get(key) is not None]
        if values:
            out[key] = statistics.median(values)
    out["latency_ms"] = {
        k: statistics.median(r["latency_ms"][k] for r in runs) for k in runs[0]["latency_ms"]
    }
    out["notes"] = sorted({n for r in runs for n in r["notes"]})
    out["rounds"] = len(runs)
    out["per_round"] = [
        {
            "rps": r["rps"],
            "p99_ms": r["latency_ms"]["p99"],
            "cpu_us": r["server_cpu_us_per_request"],
        }
        for r in runs
    ]
    return out


# --------------------------------------------------------------------------------------------
# In-process measurements (run in a fresh interpreter pinned to the server CPU)
# --------------------------------------------------------------------------------------------


def per_item_us(loop: Callable[[], object], n: int, repeats: int) -> dict[str, float]:
    """timeit-style: ``repeats`` runs of ``loop`` (which handles ``n`` items); best and median
    microseconds per item. GC stays on, as in a server."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        loop()
        times.append(time.perf_counter_ns() - t0)
    return {
        "best_us": round(min(times) / n / 1000, 4),
        "median_us": round(statistics.median(times) / n / 1000, 4),
        "mean_us": round(sum(times) / len(times) / n / 1000, 4),
        "n": n,
        "repeats": repeats,
    }


def interleaved_us(
    loops: dict[str, Callable[[], object]], n: int, repeats: int
) -> dict[str, dict[str, float]]:
    """Like ``per_item_us`` for several loops over ``n`` items, taking turns within each repeat
    (A B C, A B C, ...) so that every loop sees the same machine state: the side-by-side figures."""
    times: dict[str, list[int]] = {key: [] for key in loops}
    for _ in range(repeats):
        for key, loop in loops.items():
            t0 = time.perf_counter_ns()
            loop()
            times[key].append(time.perf_counter_ns() - t0)
    return {
        key: {
            "best_us": round(min(t) / n / 1000, 4),
            "median_us": round(statistics.median(t) / n / 1000, 4),
            "n": n,
            "repeats": repeats,
        }
        for key, t in times.items()
    }


def per_call_us(
    call: Callable[[], object],
    repeats: int,
    budget_s: float,
    before_timing: Callable[[], object] | None = None,
) -> dict[str, float]:
    """Calibrate a call count that fills ``budget_s``, then ``per_item_us`` over it."""
    t0 = time.perf_counter()
    call()
    once = max(time.perf_counter() - t0, 1e-7)
    if before_timing is not None:
        before_timing()
    n = max(3, min(50_000, int(budget_s / once)))

    def loop() -> None:
        for _ in range(n):
            call()

    return per_item_us(loop, n, repeats)


def percentiles_ms(samples_s: list[float]) -> dict[str, float]:
    ordered = sorted(samples_s)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] * 1000, 3)

    return {
        "p50": at(0.50),
        "p99": at(0.99),
        "max": round(ordered[-1] * 1000, 3),
        "mean": round(statistics.fmean(ordered) * 1000, 3),
        "n": len(ordered),
    }


def wsgi_call(app: Any, path: str, body: bytes) -> Callable[[], str]:
    """A call of the WSGI app with a prebuilt environ: the app's whole cost minus HTTP and
    gunicorn (Flask's routing, request and response objects, the view, orjson)."""
    from werkzeug.test import EnvironBuilder

    base = EnvironBuilder(
        path=path, method="POST", data=body, content_type="application/json"
    ).get_environ()

    def start_response(status: str, headers: list[tuple[str, str]], exc: Any = None) -> None:
        holder[0] = status

    holder = [""]

    def call() -> str:
        environ = dict(base)
        environ["wsgi.input"] = io.BytesIO(body)
        chunks = app(environ, start_response)
        try:
            for _ in chunks:
                pass
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        return holder[0]

    return call


def inprocess_main(params_path: str) -> None:
    """The child process: prints one JSON document of in-process figures on stdout."""
    params = json.loads(Path(params_path).read_text())
    repeats = int(params["repeats"])
    budget = float(params["budget_s"])
    out: dict[str, Any] = {"notes": []}

    import gc

    gc_seen = {0: [0, 0], 1: [0, 0], 2: [0, 0]}  # generation: collections, ns
    gc_started = [0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter_ns()
        else:
            seen = gc_seen[info["generation"]]
            seen[0] += 1
            seen[1] += time.perf_counter_ns() - gc_started[0]

    import orjson

    t0 = time.perf_counter()
    from service.game.cards import SUIT_BY_SPELLING
    from service.game.scoring import ensure_tables, score_hand, score_value

    ensure_tables()
    out["tables_build_s"] = round(time.perf_counter() - t0, 3)

    hands = json.loads(Path(params["hands"]).read_text())
    n = len(hands)
    by_codes = [(h["cards"], SUIT_BY_SPELLING[h["trump"]] if "trump" in h else None) for h in hands]
    by_text = [(h["cards"], h.get("trump")) for h in hands]
    core: dict[str, Any] = {}

    def noop(a: object, b: object) -> int:
        return 0

    def loop_noop() -> None:
        for a, b in by_codes:
            noop(a, b)

    def loop_value() -> None:
        for codes, trump in by_codes:
            score_value(codes, trump)

    def loop_hand() -> None:
        for codes, trump in by_text:
            score_hand(codes, trump)

    loops: dict[str, Callable[[], object]] = {
        "loop_overhead": loop_noop,
        "score_value": loop_value,
        "score_hand": loop_hand,
    }

    from service.api.endpoints import hands as api_hands

    batch_scores = getattr(api_hands, "_scores", None)
    batch_breakdowns = getattr(api_hands, "_breakdowns", None)
    if callable(batch_scores):
        loops["api_batch_scores"] = lambda: batch_scores(hands)
    else:
        out["notes"].append(
            "service.api.endpoints.hands._scores not found: API batch function not timed"
        )
    if callable(batch_breakdowns):
        loops["api_batch_breakdowns"] = lambda: batch_breakdowns(hands)

    try:
        from treys import Card, Evaluator
    except ImportError:
        out["notes"].append("treys is not installed: no side-by-side comparison")
    else:
        rng = random.Random(SEED)
        deck = [r + s for r in "23456789TJQKA" for s in "shdc"]
        poker = []
        for _ in range(n):
            cards = [Card.new(c) for c in rng.sample(deck, 5)]
            poker.append((cards[:2], cards[2:]))
        evaluator = Evaluator()
        evaluate = evaluator.evaluate

        def loop_treys() -> None:
            for hole, board in poker:
                evaluate(hole, board)

        loops["treys_evaluate"] = loop_treys
        five = getattr(evaluator, "_five", None)
        if callable(five):
            fives = [hole + board for hole, board in poker]

            def loop_five() -> None:
                for cards in fives:
                    five(cards)

            loops["treys_five_internal"] = loop_five
    for loop in loops.values():  # once untimed: first-call costs out of the way
        loop()
    core.update(interleaved_us(loops, n, repeats))
    out["core"] = core

    # The betting replay, in the core only.
    from service.game.betting import validate_betting

    betting = json.loads(Path(params["validate"]).read_text())
    out["validate_betting_core"] = per_call_us(
        lambda: validate_betting(
            betting["players"], betting["dealer"], betting["ante"], betting["actions"]
        ),
        repeats,
        budget,
    )

    # Odds, cold (each query distinct, so no cache hit), after building the odds tables.
    odds_lines = Path(params["odds"]).read_bytes().splitlines()[: int(params["odds_queries"])]
    try:
        import service.game.odds as odds_module
    except ImportError:
        out["notes"].append("service.game.odds not found: odds not timed")
    else:
        t0 = time.perf_counter()
        ensure = getattr(odds_module, "ensure_odds_tables", None)
        if callable(ensure):
            ensure()
        out["odds_tables_build_s"] = round(time.perf_counter() - t0, 3)
        samples = []
        for line in odds_lines:
            body = orjson.loads(line)
            t0 = time.perf_counter()
            odds_module.hand_odds(body["cards"], body.get("trump"), body.get("seen", ()))
            samples.append(time.perf_counter() - t0)
        out["odds_core_cold_ms"] = percentiles_ms(samples)

    # Every endpoint through WSGI, in-process: the app's cost without HTTP and gunicorn.
    sys.path.insert(0, str(SCRIPTS))
    import bench_baseline

    from service.wsgi import app

    wsgi: dict[str, Any] = {}
    gc.callbacks.append(on_gc)
    apps = {"service": app, "flask": bench_baseline.flask_app, "wsgi": bench_baseline.wsgi_app}
    for key, server, path, body_file in params["endpoints"]:
        body = Path(body_file).read_bytes()
        call = wsgi_call(apps[server], path, body)
        status = call()
        if not status.startswith("200"):
            wsgi[key] = {"skipped": f"answered {status}"}
            continue

        def reset_gc_counts() -> None:
            for seen in gc_seen.values():
                seen[:] = [0, 0]

        figures: dict[str, Any] = dict(per_call_us(call, repeats, budget, reset_gc_counts))
        calls = figures["n"] * figures["repeats"]
        figures["gc_per_call"] = {
            f"gen{g}": {"collections": round(c / calls, 3), "ms": round(ns / calls / 1e6, 3)}
            for g, (c, ns) in gc_seen.items()
        }
        wsgi[key] = figures
    gc.callbacks.remove(on_gc)
    out["gc_tracked_objects"] = len(gc.get_objects())
    if params.get("odds_endpoint") and odds_lines:
        call_odds = [wsgi_call(app, "/v1/hands/odds", line) for line in odds_lines]
        if call_odds[0]().startswith("200"):
            samples = []
            for call in call_odds[1:]:
                t0 = time.perf_counter()
                call()
                samples.append(time.perf_counter() - t0)
            wsgi["odds"] = {"cold_ms": percentiles_ms(samples)}
    out["wsgi"] = wsgi

    if params.get("profile_dir"):
        import cProfile
        import pstats

        profile_dir = Path(params["profile_dir"])
        profile_dir.mkdir(parents=True, exist_ok=True)
        for key, server, path, body_file in params["endpoints"]:
            if "skipped" in wsgi.get(key, {}):
                continue
            call = wsgi_call(apps[server], path, Path(body_file).read_bytes())
            calls = max(5, int(0.5 / max(wsgi[key]["best_us"] / 1e6, 1e-6)))
            profiler = cProfile.Profile()
            gc.collect()
            profiler.enable()
            for _ in range(calls):
                call()
            profiler.disable()
            text = io.StringIO()
            stats = pstats.Stats(profiler, stream=text)
            text.write(f"# {key}: {calls} in-process WSGI calls of {path}\n")
            stats.sort_stats("tottime").print_stats(25)
            stats.sort_stats("cumulative").print_stats(25)
            (profile_dir / f"profile_{key}.txt").write_text(text.getvalue())
        out["profiles"] = str(profile_dir)

    status_mem = proc_memory_kib(os.getpid())
    out["process_rss_kib"] = status_mem.get("VmRSS")
    print(json.dumps(out))


COLD_START_CODE = """
import json, os, time
t0 = time.monotonic()
import service.api.app as factory
t1 = time.monotonic()
from service.game.scoring import ensure_tables
ensure_tables()
t2 = time.monotonic()
factory.create_app()
t3 = time.monotonic()
rss = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
print(json.dumps({"code_start": t0, "imports_s": t1 - t0, "tables_s": t2 - t1,
                  "create_app_rest_s": t3 - t2, "ready": t3, "rss_kib": rss}))
"""


def cold_start(cpus: Sequence[int], repeats: int) -> dict[str, Any]:
    """A fresh interpreter (what a worker pays without preload): spawn to app built."""
    runs = []
    for _ in range(repeats):
        spawned = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", COLD_START_CODE],
            cwd=REPO,
            capture_output=True,
            preexec_fn=pin(cpus),
            check=True,
        )
        data = json.loads(done.stdout)
        runs.append(
            {
                "interpreter_s": data["code_start"] - spawned,
                "imports_s": data["imports_s"],
                "tables_s": data["tables_s"],
                "create_app_rest_s": data["create_app_rest_s"],
                "spawn_to_ready_s": data["ready"] - spawned,
                "rss_kib": data["rss_kib"],
            }
        )
    return {key: round(statistics.median(r[key] for r in runs), 4) for key in runs[0]} | {
        "repeats": repeats
    }


# --------------------------------------------------------------------------------------------
# Targets, tables, chart
# --------------------------------------------------------------------------------------------


def get(d: dict[str, Any] | None, *path: str) -> Any:
    cur: Any = d
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 3)


def target(
    tid: str, what: str, value: float | None, op: str, limit: float, unit: str, how: str
) -> dict[str, Any]:
    if value is None:
        status = "N/A"
    elif op == "<=":
        status = "PASS" if value <= limit else "MISS"
    elif op == "<":
        status = "PASS" if value < limit else "MISS"
    else:
        status = "PASS" if value >= limit else "MISS"
    return {
        "id": tid,
        "target": what,
        "value": value,
        "op": op,
        "limit": limit,
        "unit": unit,
        "measured_as": how,
        "status": status,
    }


def evaluate_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    http_runs = results.get("http", {})
    score, base = http_runs.get("score"), http_runs.get("baseline_flask")
    batch, batch_bd = http_runs.get("batch"), http_runs.get("batch_breakdown")
    validate, odds = http_runs.get("validate"), http_runs.get("odds")
    core = get(results, "inprocess", "core") or {}
    startup = results.get("startup", {})

    def cpu(run: dict[str, Any] | None) -> float | None:
        value = get(run, "server_cpu_us_per_request")
        return None if value is None else float(value)

    core_batch = get(core, "api_batch_scores", "best_us") or get(core, "score_value", "best_us")
    core_hands_s = 1e6 / core_batch if core_batch else None
    rss_values = [w.get("VmRSS") for w in get(startup, "service", "idle_workers") or []]
    rss_mib = max(rss_values) / 1024 if rss_values and None not in rss_values else None
    return [
        target(
            "1a",
            "score: server CPU/request vs bare Flask view",
            ratio(cpu(score), cpu(base)),
            "<=",
            LIMIT_CPU_RATIO,
            "x",
            "worker utime+stime / requests, both under the same gunicorn settings",
        ),
        target(
            "1b",
            "score: throughput vs bare Flask view",
            ratio(get(score, "rps"), get(base, "rps")),
            ">=",
            LIMIT_RPS_RATIO,
            "x",
            "wrk req/s ratio",
        ),
        target(
            "1c",
            "score: p99 latency vs bare Flask view",
            ratio(get(score, "latency_ms", "p99"), get(base, "latency_ms", "p99")),
            "<=",
            LIMIT_P99_RATIO,
            "x",
            "wrk p99 ratio, same connections",
        ),
        target(
            "2a",
            "batch 10k hands, no breakdown: hands/s per worker",
            get(batch, "hands_per_s"),
            ">=",
            LIMIT_BATCH_HANDS_S,
            "hands/s",
            "wrk req/s x 10,000, one worker",
        ),
        target(
            "2b",
            "batch, no breakdown: vs in-process core",
            ratio(get(batch, "hands_per_s"), core_hands_s),
            ">=",
            LIMIT_BATCH_VS_CORE,
            "x",
            "end-to-end hands/s / in-process hands/s of the API's batch function on the same hands",
        ),
        target(
            "2c",
            "batch 10k hands with breakdowns: hands/s per worker",
            get(batch_bd, "hands_per_s"),
            ">=",
            LIMIT_BREAKDOWN_HANDS_S,
            "hands/s",
            "wrk req/s x 10,000, one worker",
        ),
        target(
            "3a",
            "core: one hand as card codes",
            get(core, "score_value", "best_us"),
            "<=",
            LIMIT_CORE_US,
            "µs",
            "score_value(codes, trump) over 10,000 hands, best of repeats, loop included",
        ),
        target(
            "3b",
            "core vs treys (5-card poker hand)",
            ratio(get(core, "score_value", "best_us"), get(core, "treys_evaluate", "best_us")),
            "<=",
            1.0,
            "x",
            "µs/hand ratio, same process, same loop shape",
        ),
        target(
            "4",
            "validate (100 actions): server CPU vs score endpoint",
            ratio(cpu(validate), cpu(score)),
            "<=",
            LIMIT_VALIDATE_CPU_RATIO,
            "x",
            "worker CPU/request ratio",
        ),
        target(
            "5a",
            "worker start -> ready, as deployed",
            get(startup, "service", "respawn", "worker_start_to_ready_s"),
            "<=",
            LIMIT_READY_S,
            "s",
            "a worker killed; its replacement's process start (from /proc) to first 200 on /readyz",
        ),
        target(
            "5a'",
            "fresh process -> app built (strict: no preload)",
            get(startup, "cold", "spawn_to_ready_s"),
            "<=",
            LIMIT_READY_S,
            "s",
            "python spawn to create_app() done (tables built), median",
        ),
        target(
            "5b",
            "idle worker RSS",
            round(rss_mib, 1) if rss_mib else None,
            "<",
            LIMIT_RSS_MIB,
            "MiB",
            "VmRSS of each idle worker before any load (max)",
        ),
        target(
            "7",
            "odds, one opponent: p99 latency",
            get(odds, "latency_ms", "p99"),
            "<",
            LIMIT_ODDS_MS,
            "ms",
            "wrk, 1 connection, distinct bodies (no cache hit)",
        ),
    ]


def fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and abs(value) >= 1000):
        return f"{value:,.0f}"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table_lines(headers: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return lines
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return lines


def report(results: dict[str, Any], markdown: bool) -> str:
    out: list[str] = []

    def h(title: str) -> None:
        out.extend(["", f"### {title}", ""] if markdown else ["", title, "=" * len(title)])

    bullet = "- " if markdown else ""
    meta = results["meta"]
    out.append(
        f"{bullet}mode {meta['mode']}, {meta['when']}, commit {meta['commit']}"
        f"{' (dirty)' if meta['dirty'] else ''}, {meta['cpu_model']} x{meta['cpus']}"
    )
    settings = results["settings"]
    out.append(
        f"{bullet}gunicorn: {settings['gunicorn']}; {settings['pinning']}; each run "
        f"{settings['duration_s']} s after a {settings['warmup_s']} s warm-up"
    )
    idle = results["idle"]
    out.append(
        f"{bullet}machine {'idle' if idle['idle'] else 'NOT IDLE'} before the run: "
        f"{idle['busy_cpus']} CPUs busy, load {idle['loadavg']}"
    )

    http_runs = results.get("http", {})
    if http_runs:
        h("HTTP (wrk on 127.0.0.1)")
        base = http_runs.get("baseline_flask")
        base_cpu = get(base, "server_cpu_us_per_request")
        rows = []
        for key, run in http_runs.items():
            if "skipped" in run:
                rows.append([run["label"], "skipped"] + ["-"] * 8)
                continue
            vs = base if run["server"] == "service" and key in ("score",) else None
            rows.append(
                [
                    run["label"],
                    fmt(run["rps"]),
                    fmt(run["latency_ms"]["p50"], 2),
                    fmt(run["latency_ms"]["p99"], 2),
                    fmt(run["server_cpu_us_per_request"]),
                    ""
                    if "hands_per_s" in run
                    else fmt(ratio(run["server_cpu_us_per_request"], base_cpu), 2),
                    fmt(ratio(run["rps"], get(vs, "rps")), 2) if vs else "",
                    fmt(ratio(run["latency_ms"]["p99"], get(vs, "latency_ms", "p99")), 2)
                    if vs
                    else "",
                    fmt(run.get("hands_per_s")),
                    fmt(run["other_cpus"], 2) + (" !" if run["notes"] else ""),
                ]
            )
        out += table_lines(
            [
                "endpoint",
                "req/s",
                "p50 ms",
                "p99 ms",
                "CPU µs/req",
                "CPU x base",
                "req/s x base",
                "p99 x base",
                "hands/s",
                "other CPUs",
            ],
            rows,
            markdown,
        )
        out.append("")
        for key, run in http_runs.items():
            if "skipped" in run:
                out.append(f"{'- ' if markdown else '  note '}{key}: {run['skipped']}")
            for note in run.get("notes", []):
                out.append(f"{'- ' if markdown else '  note '}{key}: {note}")

    inproc = results.get("inprocess")
    if inproc:
        h("In-process (fresh interpreter pinned to the server CPU)")
        core = inproc.get("core", {})
        rows = []
        labels = {
            "score_value": "core score_value(codes, trump)",
            "score_hand": "core score_hand (breakdown)",
            "api_batch_scores": "API batch function, scores",
            "api_batch_breakdowns": "API batch function, breakdowns",
            "treys_evaluate": "treys Evaluator.evaluate (5 cards)",
            "treys_five_internal": "treys Evaluator._five (internal)",
            "loop_overhead": "empty loop + call (overhead)",
        }
        for key, label in labels.items():
            if key in core:
                best = core[key]["best_us"]
                rows.append(
                    [
                        label,
                        fmt(best, 3),
                        fmt(core[key]["median_us"], 3),
                        fmt(1e6 / best if best else None),
                    ]
                )
        out += table_lines(["per hand", "best µs", "median µs", "hands/s"], rows, markdown)
        wsgi = inproc.get("wsgi", {})
        if wsgi:
            out.append("")
            rows = []
            for key, figures in wsgi.items():
                server_cpu = get(http_runs, key, "server_cpu_us_per_request")
                if "best_us" in figures:
                    mean = figures.get("mean_us", figures["best_us"])
                    gunicorn_share = server_cpu - mean if server_cpu is not None else None
                    rows.append(
                        [
                            key,
                            fmt(figures["best_us"]),
                            fmt(mean),
                            fmt(server_cpu),
                            fmt(gunicorn_share),
                        ]
                    )
                elif "cold_ms" in figures:
                    rows.append(
                        [
                            key,
                            f"p50 {figures['cold_ms']['p50']} ms / p99 "
                            f"{figures['cold_ms']['p99']} ms",
                            "",
                            fmt(server_cpu),
                            "",
                        ]
                    )
                else:
                    rows.append([key, figures.get("skipped", "-"), "", "", ""])
            out += table_lines(
                [
                    "WSGI call in-process",
                    "best µs/req",
                    "mean µs/req (GC incl.)",
                    "server CPU µs/req (HTTP)",
                    "server - mean: gunicorn+HTTP µs",
                ],
                rows,
                markdown,
            )
        extra = []
        for key, figures in wsgi.items():
            gc_calls = figures.get("gc_per_call")
            if gc_calls and "mean_us" in figures:
                gc_ms = sum(g["ms"] for g in gc_calls.values())
                extra.append(
                    f"{key}: garbage collector {gc_ms:.3f} ms per call "
                    f"({gc_ms * 1000 / figures['mean_us']:.0%} of the mean; full collections "
                    f"{gc_calls['gen2']['collections']:.2f}/call, "
                    f"{inproc.get('gc_tracked_objects', 0):,} tracked objects)"
                )
        if "validate_betting_core" in inproc:
            extra.append(
                f"validate_betting core, 100 actions: "
                f"{fmt(inproc['validate_betting_core']['best_us'])} µs"
            )
        if "odds_core_cold_ms" in inproc:
            o = inproc["odds_core_cold_ms"]
            extra.append(
                f"hand_odds core, cold queries: p50 {o['p50']} ms, p99 {o['p99']} ms, "
                f"max {o['max']} ms (odds tables built in "
                f"{inproc.get('odds_tables_build_s')} s)"
            )
        extra.append(f"score tables built in {inproc.get('tables_build_s')} s")
        out += ["", *[("- " if markdown else "") + e for e in extra]]

    startup = results.get("startup")
    if startup:
        h("Start-up and memory")
        rows = []
        for name in ("service", "baseline_flask", "baseline_wsgi"):
            s = startup.get(name)
            if not s:
                continue
            idle_rss = [w.get("VmRSS", 0) / 1024 for w in s.get("idle_workers", [])]
            idle_pss = [w.get("Pss", 0) / 1024 for w in s.get("idle_workers", [])]
            loaded = [w.get("VmRSS", 0) / 1024 for w in s.get("loaded_workers", [])]
            rows.append(
                [
                    name,
                    fmt(s.get("spawn_to_ready_s"), 3),
                    fmt(get(s, "worker_start_to_ready_s"), 2),
                    fmt(get(s, "respawn", "kill_to_ready_s"), 3),
                    fmt(max(idle_rss), 1) if idle_rss else "-",
                    fmt(max(idle_pss), 1) if idle_pss else "-",
                    fmt(max(loaded), 1) if loaded else "-",
                ]
            )
        if rows:
            out += table_lines(
                [
                    "server",
                    "spawn->/readyz s",
                    "worker start->ready s",
                    "respawn s",
                    "idle RSS MiB",
                    "idle PSS MiB",
                    "RSS after load MiB",
                ],
                rows,
                markdown,
            )
        cold = startup.get("cold")
        if cold:
            out += [
                "",
                ("- " if markdown else "")
                + f"fresh interpreter (no preload): {cold['spawn_to_ready_s']:.3f} s spawn to "
                f"app built = interpreter {cold['interpreter_s']:.3f} + imports "
                f"{cold['imports_s']:.3f} + tables {cold['tables_s']:.3f} + rest of "
                f"create_app {cold['create_app_rest_s']:.3f}; RSS "
                f"{cold['rss_kib'] / 1024:.1f} MiB",
            ]

    h("Targets (7 is the odds latency)")
    rows = [
        [
            t["id"],
            t["target"],
            fmt(t["value"], 3 if t["unit"] in ("x", "µs", "s") else 1)
            + ("" if t["value"] is None else " " + t["unit"]),
            f"{t['op']} {fmt(t['limit'], 2)} {t['unit']}",
            t["status"],
        ]
        for t in results["targets"]
    ]
    out += table_lines(["#", "target", "measured", "limit", "result"], rows, markdown)
    if results.get("warnings"):
        out += ["", "WARNINGS:"] + [("- " if markdown else "  ") + w for w in results["warnings"]]
    return "\n".join(out) + "\n"


def chart(results: dict[str, Any], path: Path) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(k, r) for k, r in results.get("http", {}).items() if "skipped" not in r]
    if not runs:
        return False
    labels = [r["label"] for _, r in runs]
    colours = ["#888888" if r["server"] != "service" else "#2b6cb0" for _, r in runs]
    y = list(range(len(runs)))
    fig, axes = plt.subplots(1, 3, figsize=(16, 0.55 * len(runs) + 2.2), sharey=True)
    ax = axes[0]
    ax.barh(y, [r["rps"] for _, r in runs], color=colours)
    ax.set_xscale("log")
    ax.set_title("throughput (req/s, log)")
    for i, (_, r) in enumerate(runs):
        note = f"{r['rps']:,.0f}"
        if r.get("hands_per_s"):
            note += f"  ({r['hands_per_s'] / 1e6:.2f} M hands/s)"
        ax.text(r["rps"], i, " " + note, va="center", fontsize=8)
    ax.set_xlim(right=max(r["rps"] for _, r in runs) * 12)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax = axes[1]
    p50 = [r["latency_ms"]["p50"] for _, r in runs]
    p99 = [r["latency_ms"]["p99"] for _, r in runs]
    ax.barh([i - 0.2 for i in y], p50, height=0.4, color=colours, label="p50")
    ax.barh([i + 0.2 for i in y], p99, height=0.4, color=colours, alpha=0.5, label="p99")
    ax.set_xscale("log")
    ax.set_title("latency (ms, log): p50 solid, p99 light")
    ax.set_xlim(right=max(p99) * 6)
    for i in y:
        ax.text(p99[i], i + 0.2, f" {p99[i]:.2f}", va="center", fontsize=8)
    ax = axes[2]
    cpu = [r["server_cpu_us_per_request"] or 0 for _, r in runs]
    ax.barh(y, cpu, color=colours)
    ax.set_xscale("log")
    ax.set_title("server CPU per request (µs, log)")
    ax.set_xlim(right=max(cpu) * 6)
    for i in y:
        ax.text(cpu[i], i, f" {cpu[i]:,.0f}", va="center", fontsize=8)
    meta = results["meta"]
    fig.suptitle(
        f"Quart-Bezique service vs baselines (grey), {results['settings']['gunicorn']}, "
        f"{meta['mode']} run {meta['when']}" + ("" if results["idle"]["idle"] else " NOT IDLE"),
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


def plan_cpus(workers: int) -> tuple[list[int], list[int], str]:
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return allowed, allowed, "one CPU only: server and wrk share it (ratios still comparable)"
    n_server = max(1, min(workers, len(allowed) - 1))
    server, load = allowed[:n_server], allowed[n_server:]
    return server, load, f"server on CPU {server}, wrk on CPU {load}"


def gunicorn_settings(env: dict[str, str]) -> dict[str, Any]:
    """What gunicorn.conf.py resolves to under ``env`` (it only reads the environment)."""
    code = (
        "import json, runpy\n"
        f"c = runpy.run_path({str(GUNICORN_CONF)!r})\n"
        "print(json.dumps({k: c.get(k) for k in ('workers', 'worker_class', 'threads', "
        "'keepalive', 'preload_app', 'timeout', 'max_requests')}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    settings: dict[str, Any] = json.loads(done.stdout)
    return settings


def machine_meta(mode: str) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    cpu_model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu_model = line.partition(":")[2].strip()
                break
    versions: dict[str, str | None] = {}
    for package in ("flask", "werkzeug", "gunicorn", "orjson", "marshmallow", "treys"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None

    def git(*args: str) -> str:
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            return subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
            ).stdout.strip()
        return ""

    siblings = set()
    for cpu in sorted(os.sched_getaffinity(0)):
        with contextlib.suppress(OSError):
            topology = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
            siblings.add(topology.read_text().strip())
    virtual = False
    with contextlib.suppress(OSError):
        virtual = " hypervisor" in Path("/proc/cpuinfo").read_text()
    return {
        "mode": mode,
        "cpu_thread_siblings": sorted(siblings),
        "virtual_machine": virtual,
        "when": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit": git("rev-parse", "--short", "HEAD") or "?",
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "cpu_model": cpu_model,
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "versions": versions,
    }


def endpoints(bodies: Bodies, conns: int, batch_conns: int) -> list[Endpoint]:
    return [
        Endpoint(
            "baseline_flask",
            "baseline: bare Flask view",
            "flask",
            "/v1/hands/score",
            bodies.score,
            connections=conns,
        ),
        Endpoint(
            "score",
            "POST /v1/hands/score",
            "service",
            "/v1/hands/score",
            bodies.score,
            connections=conns,
        ),
        Endpoint(
            "baseline_wsgi",
            "baseline: raw WSGI",
            "wsgi",
            "/v1/hands/score",
            bodies.score,
            connections=conns,
        ),
        Endpoint(
            "batch",
            "batch-score 10k, no breakdown",
            "service",
            "/v1/hands/batch-score",
            bodies.batch,
            connections=batch_conns,
            hands=BATCH_HANDS,
        ),
        Endpoint(
            "batch_breakdown",
            "batch-score 10k, breakdown",
            "service",
            "/v1/hands/batch-score",
            bodies.batch_breakdown,
            connections=batch_conns,
            hands=BATCH_HANDS,
        ),
        Endpoint(
            "validate",
            "POST /v1/betting/validate (100)",
            "service",
            "/v1/betting/validate",
            bodies.validate,
            connections=conns,
        ),
        Endpoint(
            "odds",
            "POST /v1/hands/odds (1 opp.)",
            "service",
            "/v1/hands/odds",
            bodies.odds,
            cycle=True,
            connections=1,
        ),
    ]


def respawn(server: Server) -> dict[str, Any]:
    """Kill one worker; time until its replacement serves /readyz."""
    workers = server.workers()
    if not workers:
        return {"error": "no worker found"}
    victim = workers[0]
    killed = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    deadline = killed + 30
    new_pid = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if http("GET", f"{server.url}/readyz", timeout=5.0)[0] == 200:
                fresh = [p for p in server.workers() if p not in workers]
                if fresh:
                    new_pid = fresh[0]
                    break
        time.sleep(0.002)
    ready = time.monotonic()
    ready_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    if new_pid is None:
        return {"error": "no replacement worker answered within 30 s"}
    started = proc_start_s(new_pid)
    return {
        "kill_to_ready_s": round(ready - killed, 4),
        "worker_start_to_ready_s": round(ready_boot - started, 3) if started else None,
        "resolution_s": round(1 / CLK_TCK, 3),
    }


STARTUP_KEYS = {"service": "service", "flask": "baseline_flask", "wsgi": "baseline_wsgi"}


def run_http(
    args: argparse.Namespace,
    results: dict[str, Any],
    bodies: Bodies,
    tmp: Path,
    server_cpus: list[int],
    load_cpus: list[int],
    stack: contextlib.ExitStack,
) -> None:
    wrk = ensure_wrk()
    base_env = dict(os.environ)
    for name in ("GUNICORN_ACCESS_LOG", "PORT"):
        base_env.pop(name, None)
    base_env.update(HOST="127.0.0.1", WEB_CONCURRENCY=str(args.workers), LOG_LEVEL="warning")
    if "PYTHONPATH" in base_env:
        base_env["PYTHONPATH"] = f"{SCRIPTS}{os.pathsep}{base_env['PYTHONPATH']}"
    else:
        base_env["PYTHONPATH"] = str(SCRIPTS)
    settings = gunicorn_settings(base_env)
    results["settings"]["gunicorn_resolved"] = settings
    results["settings"]["gunicorn"] = (
        f"{settings['workers']} x {settings['worker_class']}"
        + (f" ({settings['threads']} threads)" if _threaded(settings["worker_class"]) else "")
        + f", keep-alive {settings['keepalive']} s, preload {settings['preload_app']}"
    )

    selected = [
        e
        for e in endpoints(bodies, args.connections, args.batch_connections)
        if not args.only or e.key in args.only
    ]
    wanted_servers = {e.server for e in selected} | {"service"}
    apps = {
        "service": "service.wsgi:app",
        "flask": "bench_baseline:flask_app",
        "wsgi": "bench_baseline:wsgi_app",
    }
    servers: dict[str, Server] = {}
    startup: dict[str, Any] = results.setdefault("startup", {})
    for name in ("service", "flask", "wsgi"):
        if name not in wanted_servers:
            continue
        server = Server(
            name, apps[name], free_port(), server_cpus, base_env, tmp / f"gunicorn-{name}.log"
        )
        stack.callback(server.stop)
        server.start()
        servers[name] = server
        spawn_to_ready = server.wait_ready()
        ready_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        workers = server.workers()
        starts = [proc_start_s(p) for p in workers]
        time.sleep(0.5)  # let the worker settle before reading its idle memory
        startup[STARTUP_KEYS[name]] = {
            "spawn_to_ready_s": round(spawn_to_ready, 3),
            "worker_start_to_ready_s": round(ready_boot - max(s for s in starts if s), 3)
            if any(starts)
            else None,
            "master": proc_memory_kib(server.pid),
            "idle_workers": [proc_memory_kib(p) for p in workers],
        }
        log(f"{name}: ready {spawn_to_ready:.2f} s after spawn on {server.url}, workers {workers}")

    http_results: dict[str, Any] = results.setdefault("http", {})
    order: list[Endpoint] = []
    pair = [e for e in selected if e.key in ("baseline_flask", "score")]
    for _ in range(args.rounds):
        order += pair
    order += [e for e in selected if e.key not in ("baseline_flask", "score")]
    per_key: dict[str, list[dict[str, Any]]] = {}
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
            f"[{i}/{len(order)}] {endpoint.label}: {args.warmup:g} s warm-up + "
            f"{args.duration:g} s, {endpoint.connections} connection(s)"
        )
        run = measure(
            wrk, endpoint, servers[endpoint.server], args.duration, args.warmup, load_cpus
        )
        per_key.setdefault(endpoint.key, []).append(run)
        log(
            f"    {run['rps']:,.0f} req/s, p50 {run['latency_ms']['p50']} ms, p99 "
            f"{run['latency_ms']['p99']} ms, {run['server_cpu_us_per_request']} µs CPU/req"
            + (f", {run['hands_per_s']:,} hands/s" if "hands_per_s" in run else "")
            + ("".join(f"\n    note: {n}" for n in run["notes"]))
        )
    for endpoint in selected:
        entry: dict[str, Any] = {
            "label": endpoint.label,
            "server": endpoint.server,
            "path": endpoint.path,
        }
        if endpoint.key in skipped:
            entry["skipped"] = skipped[endpoint.key]
        else:
            entry |= median_run(per_key[endpoint.key])
        http_results[endpoint.key] = entry

    for name, server in servers.items():
        loaded = [proc_memory_kib(p) for p in server.workers()]
        startup[STARTUP_KEYS[name]]["loaded_workers"] = loaded
    startup["service"]["respawn"] = respawn(servers["service"])
    log(f"service worker respawn: {startup['service']['respawn']}")
    for server in servers.values():
        server.stop()


def run_inprocess(
    args: argparse.Namespace,
    results: dict[str, Any],
    bodies: Bodies,
    tmp: Path,
    cpus: list[int],
    odds_endpoint: bool,
) -> None:
    params = {
        "hands": str(bodies.hands),
        "validate": str(bodies.validate),
        "odds": str(bodies.odds),
        "odds_queries": args.odds_queries,
        "odds_endpoint": odds_endpoint,
        "repeats": args.repeats,
        "budget_s": args.budget,
        "endpoints": [
            ("baseline_flask", "flask", "/v1/hands/score", str(bodies.score)),
            ("score", "service", "/v1/hands/score", str(bodies.score)),
            ("baseline_wsgi", "wsgi", "/v1/hands/score", str(bodies.score)),
            ("batch", "service", "/v1/hands/batch-score", str(bodies.batch)),
            ("batch_breakdown", "service", "/v1/hands/batch-score", str(bodies.batch_breakdown)),
            ("validate", "service", "/v1/betting/validate", str(bodies.validate)),
        ],
        "profile_dir": str(Path(args.out) / "profiles") if args.profile else None,
    }
    params_path = tmp / "inprocess.json"
    params_path.write_text(json.dumps(params))
    log("in-process measurements (fresh interpreter, pinned to the server CPU)")
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--inprocess", str(params_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=pin(cpus),
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"in-process measurements failed:\n{done.stderr[-3000:]}")
    # The app writes its audit lines to stdout too, from a writer thread (they may come after the
    # figures): the figures are the last line that is not an audit record.
    results["inprocess"] = next(
        record
        for record in map(json.loads, reversed(done.stdout.strip().splitlines()))
        if "request_id" not in record
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 2 s runs, 1 s warm-up, 1 round, fewer repeats",
    )
    parser.add_argument("--duration", type=float, help="seconds per measured run (10)")
    parser.add_argument("--warmup", type=float, help="seconds of warm-up before each run (2)")
    parser.add_argument(
        "--rounds", type=int, help="alternating rounds of baseline/score; medians are reported (2)"
    )
    parser.add_argument(
        "--connections",
        type=int,
        default=4,
        help="wrk connections for single-request endpoints (4)",
    )
    parser.add_argument(
        "--batch-connections",
        type=int,
        default=2,
        help="wrk connections for the batch endpoint (2)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="WEB_CONCURRENCY for every server (1: figures are per worker)",
    )
    parser.add_argument("--repeats", type=int, help="timeit repeats in-process (7)")
    parser.add_argument(
        "--budget", type=float, help="seconds per in-process repeat of a WSGI call (0.2)"
    )
    parser.add_argument("--odds-queries", type=int, help="distinct in-process odds queries (300)")
    parser.add_argument(
        "--only",
        type=lambda s: set(s.split(",")),
        help="comma-separated endpoint keys: baseline_flask,score,baseline_wsgi,"
        "batch,batch_breakdown,validate,odds",
    )
    parser.add_argument("--no-http", action="store_true", help="skip the servers and wrk")
    parser.add_argument("--no-inprocess", action="store_true", help="skip in-process figures")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also write cProfile tables of each endpoint (in-process WSGI) to OUT/profiles/",
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output directory (docs/bench)")
    parser.add_argument("--inprocess", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    quick = args.quick
    defaults = {
        "duration": 2.0 if quick else 10.0,
        "warmup": 1.0 if quick else 2.0,
        "rounds": 1 if quick else 2,
        "repeats": 3 if quick else 7,
        "budget": 0.05 if quick else 0.2,
        "odds_queries": 60 if quick else 300,
    }
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.inprocess:
        inprocess_main(args.inprocess)
        return 0
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with it ignored
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    mode = "quick (smoke: figures not meaningful)" if args.quick else "full"
    server_cpus, load_cpus, pinning = plan_cpus(args.workers)
    results: dict[str, Any] = {
        "meta": machine_meta("quick" if args.quick else "full"),
        "settings": {
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "rounds": args.rounds,
            "connections": args.connections,
            "batch_connections": args.batch_connections,
            "workers": args.workers,
            "server_cpus": server_cpus,
            "load_cpus": load_cpus,
            "pinning": pinning,
            "repeats": args.repeats,
            "seed": SEED,
            "batch_hands": BATCH_HANDS,
            "betting_actions": BETTING_ACTIONS,
            "gunicorn": "not started",
        },
        "warnings": [],
    }
    log(f"mode {mode}; {pinning}")
    idle = idle_check()
    results["idle"] = idle
    if not idle["idle"]:
        busiest = "; ".join(f"{p['cpus']:.2f} CPU {p['command']}" for p in idle["busiest"][:3])
        busiest = busiest or "short-lived processes (none ran through the whole sample)"
        message = (
            f"the machine is NOT idle: {idle['busy_cpus']:.2f} CPUs busy before the run "
            f"(load {idle['loadavg']}); busiest: {busiest}. Figures will be noisy."
        )
        warn(message)
        results["warnings"].append(message)
    if len(server_cpus) < 1 or server_cpus == load_cpus:
        results["warnings"].append(pinning)

    try:
        with (
            tempfile.TemporaryDirectory(prefix="bench-") as tmp_name,
            contextlib.ExitStack() as stack,
        ):
            tmp = Path(tmp_name)
            bodies = write_bodies(tmp, ODDS_POOL if not args.quick else 4000)
            odds_endpoint = False
            if not args.no_http:
                run_http(args, results, bodies, tmp, server_cpus, load_cpus, stack)
                odds_endpoint = "skipped" not in results["http"].get("odds", {"skipped": "x"})
            stack.close()
            if not args.no_inprocess:
                run_inprocess(args, results, bodies, tmp, server_cpus, odds_endpoint)
                log("cold start of a fresh interpreter")
                results.setdefault("startup", {})["cold"] = cold_start(
                    server_cpus, 1 if args.quick else 3
                )
    except (RuntimeError, subprocess.SubprocessError) as error:
        log(f"failed, everything started was stopped: {error}")
        return 1
    except (KeyboardInterrupt, Terminated) as stop:
        log(f"interrupted ({str(stop) or 'Ctrl-C'}): everything started was stopped")
        return 130

    for run in results.get("http", {}).values():
        for note in run.get("notes", []):
            if "noisy" in note or "errors" in note:
                results["warnings"].append(f"{run['label']}: {note}")
    results["targets"] = evaluate_targets(results)
    results["elapsed_s"] = round(time.monotonic() - started, 1)

    written = ["results.json", "results.md"]
    try:
        if chart(results, out_dir / "bench.png"):
            written.append("bench.png")
    except ImportError:
        results["warnings"].append("matplotlib is not installed: no chart")
    (out_dir / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out_dir / "results.md").write_text(report(results, markdown=True))
    text = report(results, markdown=False)
    print(text)
    print(f"wrote {', '.join(written)} into {out_dir} ({results['elapsed_s']} s in all)")
    if not results["idle"]["idle"] or args.quick:
        warn(
            "these figures are not a valid benchmark: "
            + ("quick mode" if args.quick else "the machine was not idle")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
