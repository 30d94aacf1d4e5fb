"""The machine the benchmark runs on: is it idle, what is it, which CPUs serve and which load.

Figures from a busy machine are recorded with a loud warning rather than refused: whoever reads
them must be able to tell, and a refused run tells nothing."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from scripts.bench.config import IDLE_BUSY_CPUS
from scripts.bench.records import Busy, GunicornSettings, Idle, Meta
from scripts.harness.procfs import CLK_TCK, all_process_ticks, proc_name, read_cpu_times
from scripts.harness.server import GUNICORN_CONF, REPO


def idle_check(seconds: float = 1.0) -> Idle:
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
    return Idle(
        sample_s=seconds,
        loadavg=loadavg,
        cpus=ncpu,
        busy_cpus=round(busy_cpus, 3),
        idle=busy_cpus <= IDLE_BUSY_CPUS,
        busiest=[Busy(pid, round(share, 3), proc_name(pid)) for share, pid in top],
    )


def plan_cpus(workers: int) -> tuple[list[int], list[int], str]:
    """Server CPUs, load-generator CPUs, and how to say it."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return allowed, allowed, "one CPU only: server and wrk share it (ratios still comparable)"
    n_server = max(1, min(workers, len(allowed) - 1))
    server, load = allowed[:n_server], allowed[n_server:]
    return server, load, f"server on CPU {server}, wrk on CPU {load}"


def gunicorn_settings(env: Mapping[str, str]) -> GunicornSettings:
    """What gunicorn.conf.py resolves to under ``env`` (it only reads the environment)."""
    code = (
        "import json, runpy\n"
        f"c = runpy.run_path({str(GUNICORN_CONF)!r})\n"
        "print(json.dumps({k: c.get(k) for k in ('workers', 'worker_class', 'threads', "
        "'keepalive', 'preload_app', 'timeout', 'max_requests')}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=dict(env), capture_output=True, text=True, check=True
    )
    raw = json.loads(done.stdout)
    return GunicornSettings(
        workers=int(raw["workers"] or 1),
        worker_class=str(raw["worker_class"] or "sync"),
        threads=int(raw["threads"] or 1),
        keepalive=float(raw["keepalive"] or 0),
        preload_app=bool(raw["preload_app"]),
        timeout=float(raw["timeout"] or 0),
        max_requests=int(raw["max_requests"] or 0),
    )


def machine_meta(mode: str) -> Meta:
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
    return Meta(
        mode=mode,
        cpu_thread_siblings=sorted(siblings),
        virtual_machine=virtual,
        when=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        commit=git("rev-parse", "--short", "HEAD") or "?",
        dirty=bool(git("status", "--porcelain", "--untracked-files=no")),
        cpu_model=cpu_model,
        cpus=os.cpu_count(),
        kernel=platform.release(),
        python=platform.python_version(),
        versions=versions,
    )
