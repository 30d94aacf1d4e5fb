"""Start-up and memory: spawn to ready, each worker's start to ready, a respawn after SIGKILL,
idle and loaded memory, and a cold start in a fresh interpreter (a worker without preload)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from scripts.bench.records import ColdStart, Respawn, ServerStartup
from scripts.harness.processes import pin
from scripts.harness.procfs import CLK_TCK, proc_memory, proc_start_s
from scripts.harness.server import REPO, GunicornServer

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


def cold_start(cpus: Sequence[int], repeats: int) -> ColdStart:
    """A fresh interpreter (what a worker pays without preload): spawn to app built."""
    runs: list[dict[str, float]] = []
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

    def median(key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 4)

    return ColdStart(
        interpreter_s=median("interpreter_s"),
        imports_s=median("imports_s"),
        tables_s=median("tables_s"),
        create_app_rest_s=median("create_app_rest_s"),
        spawn_to_ready_s=median("spawn_to_ready_s"),
        rss_kib=median("rss_kib"),
        repeats=repeats,
    )
