"""The ``wrk`` driver: find (or install) Debian's wrk, run it with one of our Lua scripts, read
the one JSON line the script prints at the end.

Both scripts in ``lua/`` end with the same ``WRK_JSON`` line (requests, errors, wrk's own latency
histogram; status classes where the script counts them), so one parser serves the benchmark
(``post.lua``: one body or a rotating pool, no per-answer Lua) and the load test (``mix.lua``:
rotating bodies or GETs, each answer's status counted, an ``X-Request-ID`` per request).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.harness.processes import Started, pin

LUA = Path(__file__).resolve().parent / "lua"
POST_LUA = LUA / "post.lua"
MIX_LUA = LUA / "mix.lua"
MARKER = "WRK_JSON "


class WrkMissing(SystemExit):
    """wrk is not installed and we may not install it."""


def ensure_wrk(log: Any = print) -> str:
    """The path of ``wrk``; installs Debian's package first when missing and we are root."""
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
    raise WrkMissing("wrk not found and could not be installed: apt-get install -y wrk (as root)")


@dataclass(frozen=True)
class WrkErrors:
    connect: int
    read: int
    write: int
    status: int
    """Answers outside 2xx/3xx, as wrk counts them."""
    timeout: int

    @property
    def socket(self) -> int:
        """Failures to get any answer: connect, read, write errors and timeouts."""
        return self.connect + self.read + self.write + self.timeout

    def nonzero(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if v}


@dataclass(frozen=True)
class Statuses:
    """Answers by status class (only ``mix.lua`` counts them)."""

    s2xx: int
    s3xx: int
    s4xx: int
    s5xx: int
    other: int

    @property
    def non_2xx(self) -> int:
        return self.s3xx + self.s4xx + self.s5xx + self.other


@dataclass(frozen=True)
class WrkLatency:
    """wrk's latency histogram, microseconds. Closed loop: each connection waits for its answer
    before sending again, so these include no queueing a real arrival rate would cause."""

    min: float
    mean: float
    stdev: float
    max: float
    p50: float
    p75: float
    p90: float
    p99: float
    p999: float


@dataclass(frozen=True)
class WrkResult:
    requests: int
    duration_us: int
    bytes: int
    errors: WrkErrors
    latency_us: WrkLatency
    statuses: Statuses | None

    @property
    def duration_s(self) -> float:
        return self.duration_us / 1e6

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_us else 0.0

    @classmethod
    def parse(cls, line: str) -> WrkResult:
        raw = json.loads(line.removeprefix(MARKER))
        statuses = raw.get("statuses")
        return cls(
            requests=int(raw["requests"]),
            duration_us=int(raw["duration_us"]),
            bytes=int(raw["bytes"]),
            errors=WrkErrors(**{k: int(v) for k, v in raw["errors"].items()}),
            latency_us=WrkLatency(**{k: float(v) for k, v in raw["latency_us"].items()}),
            statuses=None
            if statuses is None
            else Statuses(
                s2xx=int(statuses["2xx"]),
                s3xx=int(statuses["3xx"]),
                s4xx=int(statuses["4xx"]),
                s5xx=int(statuses["5xx"]),
                other=int(statuses["other"]),
            ),
        )


class RunningWrk:
    """A wrk process started; ``result`` waits for it and reads its line."""

    def __init__(self, process: subprocess.Popen[bytes], seconds: float, name: str) -> None:
        self.process = process
        self.seconds = seconds
        self.name = name

    def result(self, grace_s: float = 60.0) -> WrkResult:
        try:
            out, err = self.process.communicate(timeout=self.seconds + grace_s)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        text = out.decode(errors="replace")
        for line in text.splitlines():
            if line.startswith(MARKER):
                return WrkResult.parse(line)
        raise RuntimeError(
            f"wrk ({self.name}) gave no result ({self.process.returncode}): "
            f"{text[-500:]} {err.decode(errors='replace')[-500:]}"
        )


def start_wrk(
    wrk: str,
    url: str,
    script: Path,
    *,
    seconds: float,
    connections: int,
    threads: int = 1,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 30.0,
    cpus: Sequence[int] = (),
    started: Started | None = None,
    name: str = "wrk",
) -> RunningWrk:
    """Start wrk against ``url`` for ``seconds`` (whole seconds: wrk's own resolution) with
    ``script``; ``env`` is added to ours (the scripts read their inputs from it)."""
    whole = max(1, round(seconds))
    command = [
        wrk,
        f"-t{max(1, threads)}",
        f"-c{connections}",
        f"-d{whole}s",
        f"--timeout={max(1, round(timeout_s))}s",
        "-s",
        str(script),
        url,
    ]
    process = subprocess.Popen(
        command,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=pin(cpus),
    )
    if started is not None:
        started.add(process)
    return RunningWrk(process, whole, name)


def run_wrk(
    wrk: str,
    url: str,
    script: Path,
    *,
    seconds: float,
    connections: int,
    threads: int = 1,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 30.0,
    cpus: Sequence[int] = (),
    started: Started | None = None,
    name: str = "wrk",
) -> WrkResult:
    return start_wrk(
        wrk,
        url,
        script,
        seconds=seconds,
        connections=connections,
        threads=threads,
        env=env,
        timeout_s=timeout_s,
        cpus=cpus,
        started=started,
        name=name,
    ).result()
