"""How fast a new worker is ready, and how much memory an idle one holds, against the targets.

A worker that starts without gunicorn's ``preload_app`` (a respawn after a crash, a rolling
restart, ``GUNICORN_PRELOAD=false``) pays for everything the app does before it can answer: its
imports, its tables and ``create_app``. Two measurements, each repeated ``--runs`` times (the
median is printed beside the target, with the minimum and maximum):

* **fresh interpreter**: ``python -c`` importing ``service.wsgi`` (the app gunicorn serves, built
  by ``create_app``), timed from the parent's spawn to the child's report; the child splits it
  into interpreter start, imports and ``create_app``.
* **gunicorn worker**: a master with one worker and no preload, this repo's ``gunicorn.conf.py``;
  from the moment the worker process exists (the master's children, polled every millisecond) to
  its first 200 on ``/readyz``. Then a few requests of every kind and a short pause, and the
  worker's VmRSS (and PSS, which splits the pages shared with the master) from ``/proc``.

It measures the tree it lives in (``PYTHONPATH`` is set to it), with the interpreter running it
(``.venv/bin/python scripts/startup.py``). Everything it starts is stopped by pid. Figures from a
machine that is busy with other work are inflated; they are recorded as such, not asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parent.parent
GUNICORN_CONF: Final = REPO / "gunicorn.conf.py"

READY_TARGET_S: Final = 0.3
"""A worker in a fresh interpreter (no preload): process start to the first 200 on /readyz."""
RSS_TARGET_MIB: Final = 50.0
"""An idle worker's VmRSS after a few requests."""

_CHILD: Final = """
import time
start = time.perf_counter()
import service.wsgi
built = time.perf_counter()
import json, re, sys
status = open("/proc/self/status").read()
rss = int(re.search(r"VmRSS:\\s+(\\d+)", status).group(1)) / 1024
modules = len(sys.modules)
print(json.dumps({"start": start, "built": built, "rss": rss, "modules": modules}))
"""
"""Runs in the fresh interpreter: ``service.wsgi`` imports the app and calls ``create_app``."""

_REQUESTS: Final[tuple[tuple[str, str, object], ...]] = (
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
"""One of each kind, so the idle figure includes what first use builds (breakdowns, odds)."""


@dataclass(frozen=True, slots=True)
class Fresh:
    """One fresh interpreter: seconds from spawn, and where they went."""

    total: float
    interpreter: float
    app: float
    rss_mib: float


@dataclass(frozen=True, slots=True)
class Worker:
    """One gunicorn worker without preload."""

    ready: float
    rss_mib: float
    pss_mib: float


def _environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.setdefault("PYTHONDONTWRITEBYTECODE", "")
    env.pop("GUNICORN_ACCESS_LOG", None)
    env.update(extra or {})
    return env


def fresh_interpreter(python: str) -> Fresh:
    """Spawn ``python``, import and build the app, and split the wall time."""
    clock = time.perf_counter
    spawned = clock()
    out = subprocess.run(
        [python, "-c", _CHILD],
        cwd=REPO,
        env=_environment({"AUDIT_LOG": "false"}),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    done = clock()
    child = json.loads(out.stdout.strip().splitlines()[-1])
    if not spawned <= child["start"] <= child["built"] <= done:
        raise RuntimeError("the child's clock is not the parent's: perf_counter is not monotonic")
    # perf_counter is CLOCK_MONOTONIC on Linux: the child's readings share the parent's clock.
    return Fresh(
        total=child["built"] - spawned,
        interpreter=child["start"] - spawned,
        app=child["built"] - child["start"],
        rss_mib=child["rss"],
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _request(port: int, method: str, path: str, body: object, timeout: float) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {} if data is None else {"Content-Type": "application/json"}
        connection.request(method, path, body=data, headers=headers)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def _memory(pid: int) -> tuple[float, float]:
    """VmRSS and PSS of a process, in MiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    pss = 0
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        pss = next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
    except (OSError, StopIteration):
        pass
    return rss / 1024, pss / 1024


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def gunicorn_worker(python: str, preload: bool, settle: float) -> Worker:
    """Start a master with one worker, time the worker to /readyz, then load it and read memory."""
    port = _free_port()
    env = _environment(
        {
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "WEB_CONCURRENCY": "1",
            "GUNICORN_PRELOAD": "true" if preload else "false",
            "LOG_LEVEL": "warning",
            "AUDIT_LOG": "false",
        }
    )
    command = [python, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "service.wsgi:app"]
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    clock = time.perf_counter
    try:
        deadline = clock() + 60
        workers: list[int] = []
        while not workers:
            if process.poll() is not None or clock() > deadline:
                raise RuntimeError(f"gunicorn did not fork a worker (exit {process.poll()})")
            time.sleep(0.001)
            workers = _children(process.pid)
        forked = clock()
        while True:
            # The master listens before it forks, so this waits in the backlog until the worker
            # accepts: the answer comes back the moment the worker serves.
            try:
                if _request(port, "GET", "/readyz", None, timeout=30) == 200:
                    break
            except OSError:
                pass
            if clock() > deadline:
                raise RuntimeError("the worker never answered /readyz with 200")
            time.sleep(0.002)
        ready = clock() - forked
        for method, path, body in _REQUESTS:
            status = _request(port, method, path, body, timeout=30)
            if status != 200:
                raise RuntimeError(f"{method} {path} answered {status}")
        time.sleep(settle)
        rss, pss = _memory(workers[0])
        return Worker(ready, rss, pss)
    finally:
        _stop(process)
        if process.stderr is not None:
            errors = process.stderr.read().decode("utf-8", "replace").strip()
            process.stderr.close()
            if errors:
                print(errors, file=sys.stderr)


def _row(name: str, values: Sequence[float], unit: str, target: float | None) -> str:
    median = statistics.median(values)
    verdict = "" if target is None else ("PASS" if median <= target else "MISS")
    limit = "" if target is None else f"<= {target:g} {unit}"
    return (
        f"| {name} | {median:.3f} {unit} | {min(values):.3f} | {max(values):.3f} "
        f"| {limit} | {verdict} |"
    )


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each measurement")
    parser.add_argument("--python", default=sys.executable, help="interpreter to measure")
    parser.add_argument(
        "--settle", type=float, default=1.0, help="seconds between the last request and the RSS"
    )
    parser.add_argument(
        "--preload", action="store_true", help="also measure a worker as deployed (preload)"
    )
    args = parser.parse_args(argv)
    print(f"{REPO} with {args.python}; {_load()}")
    fresh = [fresh_interpreter(args.python) for _ in range(args.runs)]
    cold = [gunicorn_worker(args.python, False, args.settle) for _ in range(args.runs)]
    repeats = args.runs if args.preload else 0
    warm = [gunicorn_worker(args.python, True, args.settle) for _ in range(repeats)]
    rows: list[tuple[str, list[float], str, float | None]] = [
        ("worker, no preload: fork -> /readyz 200", [w.ready for w in cold], "s", READY_TARGET_S),
        ("idle worker, no preload: VmRSS", [w.rss_mib for w in cold], "MiB", RSS_TARGET_MIB),
        ("idle worker, no preload: PSS", [w.pss_mib for w in cold], "MiB", None),
        ("fresh interpreter: spawn -> app built", [f.total for f in fresh], "s", None),
        ("  of which interpreter start", [f.interpreter for f in fresh], "s", None),
        ("  of which imports + create_app", [f.app for f in fresh], "s", None),
        ("fresh interpreter: VmRSS once built", [f.rss_mib for f in fresh], "MiB", None),
        ("worker, preload: fork -> /readyz 200", [w.ready for w in warm], "s", None),
        ("idle worker, preload: VmRSS", [w.rss_mib for w in warm], "MiB", None),
        ("idle worker, preload: PSS", [w.pss_mib for w in warm], "MiB", None),
    ]
    print(f"\nmedian of {args.runs} runs; {_load()}\n")
    print("| figure | median | min | max | target | result |")
    print("|---|---|---|---|---|---|")
    for name, values, unit, target in rows:
        if values:
            print(_row(name, values, unit, target))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
