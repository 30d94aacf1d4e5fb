"""Start-up and memory, the figures the start-up targets are judged on.

Two sources. The HTTP servers, as they come up for the wrk runs (``record_startup``, ``respawn``):
spawn to ready, a respawn after SIGKILL, memory before and after load. And servers started for
nothing else (``measure_startup``, ``--only startup`` runs just it): a worker without preload is
what a crash, a rolling restart or ``GUNICORN_PRELOAD=false`` leaves a replica waiting on, so it is
started alone, timed from its process start to its first 200 and then weighed idle after one
request of each kind (first use builds caches the idle figure must include); the same with preload
for comparison; and a fresh interpreter importing ``quart_bezique.wsgi``, the app without gunicorn.

The fresh interpreters must not compile the package: with ``PYTHONDONTWRITEBYTECODE`` set nothing
ever writes the bytecode, and every start would pay the compiler. So ``service/`` is compiled first
and its bytecode checked; when it cannot be made current, the run says so.
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from scripts.bench.log import log
from scripts.bench.records import (
    ColdStart,
    FreshInterpreter,
    Respawn,
    ServerStartup,
    Spread,
    WorkerStart,
)
from scripts.harness.ports import free_port
from scripts.harness.processes import pin
from scripts.harness.procfs import CLK_TCK, Memory, proc_memory, proc_start_s
from scripts.harness.server import REPO, GunicornServer, ServerError, server_env

SETTLE_S = 0.5
"""Pause after ready before reading idle memory: the worker finishes its first request."""


def record_startup(server: GunicornServer, spawn_to_ready_s: float) -> ServerStartup:
    """Just after ``server`` got ready: when its workers started, and their idle memory."""
    ready_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    workers = server.workers()
    starts = [s for s in (proc_start_s(p) for p in workers) if s]
    time.sleep(SETTLE_S)
    return ServerStartup(
        spawn_to_ready_s=round(spawn_to_ready_s, 3),
        worker_start_to_ready_s=round(ready_boot - max(starts), 3) if starts else None,
        master=proc_memory(server.pid),
        idle_workers=[proc_memory(p) for p in workers],
    )


def respawn(server: GunicornServer) -> Respawn:
    """Kill one worker; time until its replacement serves /readyz."""
    workers = server.workers()
    if not workers:
        return Respawn(error="no worker found")
    killed = time.monotonic()
    os.kill(workers[0], signal.SIGKILL)
    deadline = killed + 30
    new_pid = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if server.request("GET", "/readyz", timeout=5.0)[0] == 200:
                fresh = [p for p in server.workers() if p not in workers]
                if fresh:
                    new_pid = fresh[0]
                    break
        time.sleep(0.002)
    ready = time.monotonic()
    ready_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    if new_pid is None:
        return Respawn(error="no replacement worker answered within 30 s")
    started = proc_start_s(new_pid)
    return Respawn(
        kill_to_ready_s=round(ready - killed, 4),
        worker_start_to_ready_s=round(ready_boot - started, 3) if started else None,
        resolution_s=round(1 / CLK_TCK, 3),
    )


PACKAGE: Final = REPO / "service"

FRESH_CODE: Final = """
import time
code_start = time.monotonic()
import gc
gc.disable()
import quart_bezique.api.app
imported = time.monotonic()
import quart_bezique.wsgi
built = time.monotonic()
import json
rss = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
print(json.dumps({"code_start": code_start, "imported": imported, "built": built, "rss": rss}))
"""
"""Runs in the fresh interpreter. ``quart_bezique.wsgi`` turns the collector off and imports
``quart_bezique.api.app`` first, so doing both here, then timing that import on its own, splits the
same work without adding any; ``json`` is imported after the clock stops. ``time.monotonic`` is
CLOCK_MONOTONIC, shared with the parent."""

REQUESTS: Final[tuple[tuple[str, str, object], ...]] = (
    ("POST", "/v1/hands/score", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}),
    ("POST", "/v1/hands/score", {"cards": ["K♥", "Q♥", "9S", "9C"]}),
    (
        "POST",
        "/v1/hands/batch-score",
        {"hands": [{"cards": ["QS", "QC", "QH", "KH"]}, {"cards": ["KH", "QH", "KD", "10D"]}]},
    ),
    (
        "POST",
        "/v1/showdown",
        {
            "trump": "H",
            "hands": [
                {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
                {"player": "dan", "cards": ["QS", "JC", "QH", "JD"]},
            ],
        },
    ),
    (
        "POST",
        "/v1/betting/validate",
        {
            "players": ["ann", "bob"],
            "dealer": "bob",
            "ante": 10,
            "actions": [{"player": "ann", "type": "stake", "amount": 10}],
        },
    ),
    ("POST", "/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}),
    ("POST", "/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"], "opponents": 2}),
    ("GET", "/v1/rules", None),
    ("GET", "/readyz", None),
)
"""One of each kind: what first use builds (breakdowns, the odds models) is part of what an
idle worker holds from then on."""

POLL_S: Final = 0.001
"""How often the master's children are listed while waiting for the worker: the seen-to-ready
figure can start at most this late (plus a scheduling delay)."""
START_TIMEOUT_S: Final = 60.0


def spread(values: Sequence[float], digits: int = 4) -> Spread:
    return Spread(
        median=round(statistics.median(values), digits),
        min=round(min(values), digits),
        max=round(max(values), digits),
        n=len(values),
    )


# --------------------------------------------------------------------------- bytecode


def stale_bytecode(root: Path = PACKAGE) -> list[Path]:
    """The modules under ``root`` whose cached bytecode is missing or older than the source (by
    the source mtime and size recorded in the ``.pyc`` header, as the import system checks)."""
    stale = []
    for source in sorted(root.rglob("*.py")):
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            header = cached.read_bytes()[:16]
            info = source.stat()
        except OSError:
            stale.append(source)
            continue
        if len(header) < 16 or header[:4] != importlib.util.MAGIC_NUMBER:
            stale.append(source)
            continue
        if int.from_bytes(header[4:8], "little") != 0:
            continue  # hash-based bytecode: the import system checks it itself (or trusts it)
        mtime = int.from_bytes(header[8:12], "little")
        size = int.from_bytes(header[12:16], "little")
        if mtime != int(info.st_mtime) & 0xFFFFFFFF or size != info.st_size & 0xFFFFFFFF:
            stale.append(source)
    return stale


def compile_package() -> tuple[bool, str]:
    """Compile ``service/`` as an image's install does; whether its bytecode is now current, and
    a line saying so for the report."""
    dont_write = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    setting = "PYTHONDONTWRITEBYTECODE set" if dont_write else "PYTHONDONTWRITEBYTECODE not set"
    done = subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(PACKAGE.relative_to(REPO))],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    stale = stale_bytecode()
    if not stale:
        return True, f"service/ compiled first (python -m compileall -q service; {setting})"
    why = (done.stdout + done.stderr).strip().splitlines()
    return False, (
        f"service/ bytecode NOT current for {len(stale)} module(s) (e.g. "
        f"{stale[0].relative_to(REPO)}; compileall: {why[-1] if why else 'no message'}; "
        f"{setting}): the fresh-interpreter figures include compiling them"
    )


# --------------------------------------------------------------------------- fresh interpreter


def _fresh_run(cpus: Sequence[int], env: Mapping[str, str]) -> dict[str, float]:
    spawned = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", FRESH_CODE],
        cwd=REPO,
        env=dict(env),
        capture_output=True,
        text=True,
        preexec_fn=pin(cpus),
        check=False,
        timeout=START_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"import quart_bezique.wsgi failed:\n{done.stderr[-3000:]}")
    child = json.loads(done.stdout.strip().splitlines()[-1])
    if not spawned <= child["code_start"] <= child["imported"] <= child["built"]:
        raise RuntimeError("the child's monotonic clock is not ours: the split is meaningless")
    return {
        "total": child["built"] - spawned,
        "interpreter": child["code_start"] - spawned,
        "imports": child["imported"] - child["code_start"],
        "app": child["built"] - child["imported"],
        "rss": child["rss"] / 1024,
    }


def fresh_interpreter(cpus: Sequence[int], env: Mapping[str, str], runs: int) -> FreshInterpreter:
    """Spawn to ``import quart_bezique.wsgi`` done, ``runs`` times, pinned where the servers run."""
    found = [_fresh_run(cpus, env) for _ in range(runs)]

    def of(key: str, digits: int = 4) -> Spread:
        return spread([r[key] for r in found], digits)

    return FreshInterpreter(
        spawn_to_built_s=of("total"),
        interpreter_s=of("interpreter"),
        imports_s=of("imports"),
        app_s=of("app"),
        rss_mib=of("rss", 1),
    )


# --------------------------------------------------------------------------- one worker, alone


def _first_200(server: GunicornServer, deadline: float) -> None:
    """The master listens before it forks, so a connection made now waits in the backlog until
    the worker accepts: the answer comes back the moment the worker serves, without polling."""
    while True:
        with contextlib.suppress(OSError, http.client.HTTPException):
            if server.request("GET", "/readyz", timeout=START_TIMEOUT_S)[0] == 200:
                return
        if (
            time.monotonic() > deadline
            or server.process is None
            or server.process.poll() is not None
        ):
            raise ServerError(f"{server.name}: no 200 on /readyz:\n{server.log_tail()}")
        time.sleep(0.002)


def _worker_run(
    preload: bool, cpus: Sequence[int], env: Mapping[str, str], log_path: Path, settle_s: float
) -> tuple[float, float, Memory]:
    server = GunicornServer(
        {**env, "PORT": str(free_port()), "GUNICORN_PRELOAD": "true" if preload else "false"},
        log_path,
        cpus=cpus,
        new_session=True,
        name=f"gunicorn ({'preload' if preload else 'no preload'})",
    )
    server.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        workers: list[int] = []
        while not workers:
            if server.process is None or server.process.poll() is not None:
                raise ServerError(f"{server.name} exited:\n{server.log_tail()}")
            if time.monotonic() > deadline:
                raise ServerError(f"{server.name} forked no worker:\n{server.log_tail()}")
            time.sleep(POLL_S)
            workers = server.workers()
        seen = time.monotonic()
        _first_200(server, deadline)
        ready = time.monotonic()
        ready_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        worker = workers[0]
        started = proc_start_s(worker)
        if started is None or server.workers() != [worker]:
            raise ServerError(f"{server.name}: the first worker did not survive its start")
        for method, path, body in REQUESTS:
            data = None if body is None else json.dumps(body).encode()
            headers = {} if data is None else {"Content-Type": "application/json"}
            status = server.request(method, path, data, headers)[0]
            if status != 200:
                raise ServerError(f"{server.name}: {method} {path} answered {status}")
        time.sleep(settle_s)
        return ready_boot - started, ready - seen, proc_memory(worker)
    finally:
        server.stop(graceful=False)


def _worker_start(preload: bool, runs: list[tuple[float, float, Memory]]) -> WorkerStart:
    rss = [m.rss_mib for _, _, m in runs]
    pss = [m.pss_mib for _, _, m in runs]
    if any(r is None for r in rss):
        raise RuntimeError("the kernel did not report the worker's VmRSS")
    return WorkerStart(
        preload=preload,
        start_to_ready_s=spread([r[0] for r in runs], 3),
        seen_to_ready_s=spread([r[1] for r in runs]),
        idle_rss_mib=spread([r for r in rss if r is not None], 1),
        idle_pss_mib=spread([p for p in pss if p is not None], 1) if None not in pss else None,
        requests=len(REQUESTS),
    )


def measure_startup(
    cpus: Sequence[int], runs: int, tmp: Path, settle_s: float, preload: bool = True
) -> tuple[ColdStart, list[str]]:
    """The start-up part: bytecode, then ``runs`` fresh interpreters and ``runs`` lone workers
    without preload (and with, alternating, so both see the same machine). Warnings come back
    with the record."""
    warnings: list[str] = []
    current, bytecode = compile_package()
    log(bytecode)
    if not current:
        warnings.append(bytecode)
    env = server_env(0, drop=("GUNICORN_ACCESS_LOG",), WEB_CONCURRENCY="1", LOG_LEVEL="warning")
    log(f"fresh interpreter: import quart_bezique.wsgi, {runs} run(s)")
    interpreter = fresh_interpreter(cpus, env, runs)
    cold: list[tuple[float, float, Memory]] = []
    warm: list[tuple[float, float, Memory]] = []
    log(f"one worker alone, no preload{' and preload' if preload else ''}: {runs} run(s) each")
    for i in range(runs):
        cold.append(_worker_run(False, cpus, env, tmp / f"startup-{i}.log", settle_s))
        if preload:
            warm.append(_worker_run(True, cpus, env, tmp / f"startup-preload-{i}.log", settle_s))
    record = ColdStart(
        bytecode=bytecode,
        bytecode_current=current,
        interpreter=interpreter,
        no_preload=_worker_start(False, cold),
        preload=_worker_start(True, warm) if warm else None,
    )
    log(
        f"no preload: start -> ready {record.no_preload.start_to_ready_s.median} s, idle RSS "
        f"{record.no_preload.idle_rss_mib.median} MiB; fresh interpreter "
        f"{interpreter.spawn_to_built_s.median} s"
    )
    return record, warnings
