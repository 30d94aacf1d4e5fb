"""Audit lines at a graceful stop with a slow stdout reader: verdicts delivered vs lines received.

A verdict is released once its audit line is in the worker's buffer, so whatever the buffers
hold at a stop must still reach stdout. This starts the real gunicorn (repository's
gunicorn.conf.py, two workers), reads its stdout at a capped rate, sends N score verdicts from
a few client threads, sends SIGTERM and, once the master has exited, reads what is left in the
pipe (it was written). It prints, per case: verdicts answered 200 and 503, how many of those
answered 200 have no audit line, the master's exit status and the losses logged on stderr.

    .venv/bin/python -m scripts.audit_drain                  # 20 KB/s x 3000, 200 KB/s x 6000
    .venv/bin/python -m scripts.audit_drain --case 50000:4000 --drain 5
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from scripts.harness.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
SCORE = "/v1/hands/score"
BODY = orjson.dumps({"cards": ["KS", "QS", "JS", "JC"], "trump": "S"})
HANG_GUARD = 120.0
DEFAULT_CASES = ("20000:3000", "200000:6000")
LOST = re.compile(rb"audit: (\d+) audit lines lost by (\d+) stopping workers")
WORKER_CODE = re.compile(rb"Worker \(pid:\d+\) exited with code (\d+)")


@dataclass
class Result:
    rate: int
    sent: int
    delivered: int = 0
    refused: int = 0
    other: int = 0
    lines: int = 0
    missing: int = 0
    master_status: int | None = None
    worker_codes: list[int] = field(default_factory=list)
    logged_lost: int = 0
    stop_seconds: float = 0.0


def run_case(rate: int, verdicts: int, args: argparse.Namespace, logs: Path) -> Result:
    port = free_port()
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(args.workers),
        "GUNICORN_DRAIN_SECONDS": str(args.drain),
        "GUNICORN_GRACEFUL_TIMEOUT": str(args.graceful),
    }
    env.pop("GUNICORN_ACCESS_LOG", None)  # stdout: the audit lines only
    stderr_path = logs / f"gunicorn-{rate}.stderr"
    with stderr_path.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "quart_bezique.wsgi:app"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    assert process.stdout is not None
    fd = process.stdout.fileno()
    out = bytearray()
    limit: list[int | None] = [rate]

    def read() -> None:
        started = time.monotonic()
        while True:
            cap = limit[0]
            allowed = 65536
            if cap is not None:
                allowed = min(allowed, int(cap * (time.monotonic() - started)) - len(out))
                if allowed < 512:
                    time.sleep(0.01)
                    continue
            chunk = os.read(fd, allowed)
            if not chunk:
                return
            out.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    result = Result(rate, verdicts)
    try:
        wait_ready(port, process, stderr_path)
        delivered = send(port, verdicts, args.clients, result)
        started = time.monotonic()
        process.terminate()
        process.wait(HANG_GUARD)
        result.stop_seconds = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(HANG_GUARD)
        limit[0] = None  # what is left in the pipe was written: read it at once
        reader.join(HANG_GUARD)
        process.stdout.close()
    recorded = set()
    for line in bytes(out).splitlines():
        record = orjson.loads(line)
        if record.get("endpoint") == SCORE and record.get("status") == 200:
            recorded.add(record["request_id"])
    result.lines = len(recorded)
    result.missing = sum(1 for rid in delivered if rid not in recorded)
    result.master_status = process.returncode
    stderr = stderr_path.read_bytes()
    result.worker_codes = [int(code) for code in WORKER_CODE.findall(stderr)]
    found = LOST.search(stderr)
    result.logged_lost = int(found[1]) if found else 0
    return result


def wait_ready(port: int, process: subprocess.Popen[bytes], stderr: Path) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited: {stderr.read_text()}")
        try:
            if request(port, "GET", "/readyz", None, None)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("gunicorn never got ready")


def request(
    port: int, method: str, path: str, body: bytes | None, request_id: str | None
) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if request_id is not None:
        headers["X-Request-ID"] = request_id
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def send(port: int, verdicts: int, clients: int, result: Result) -> list[str]:
    """``verdicts`` score requests from ``clients`` threads; the request ids answered 200."""
    counter = itertools.count()
    delivered: list[str] = []
    lock = threading.Lock()

    def run() -> None:
        while (n := next(counter)) < verdicts:
            request_id = f"audit-drain-{n:07d}"
            try:
                status, _ = request(port, "POST", SCORE, BODY, request_id)
            except OSError:
                status = 0
            with lock:
                if status == 200:
                    delivered.append(request_id)
                    result.delivered += 1
                elif status == 503:
                    result.refused += 1
                else:
                    result.other += 1

    threads = [threading.Thread(target=run, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return delivered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--case",
        action="append",
        metavar="RATE:N",
        help=f"reader rate in bytes/s and verdicts sent (repeatable; default: {DEFAULT_CASES})",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=4, help="client threads")
    parser.add_argument("--graceful", type=int, default=20, help="GUNICORN_GRACEFUL_TIMEOUT")
    parser.add_argument("--drain", type=int, default=0, help="GUNICORN_DRAIN_SECONDS")
    args = parser.parse_args(argv)
    cases = [tuple(int(part) for part in case.split(":")) for case in args.case or DEFAULT_CASES]
    print(
        f"workers {args.workers}, clients {args.clients}, graceful timeout {args.graceful} s, "
        f"drain {args.drain} s, AUDIT_MIN_DRAIN_RATE "
        f"{os.environ.get('AUDIT_MIN_DRAIN_RATE', 'default')}"
    )
    header = (
        f"{'reader B/s':>10} {'sent':>6} {'200':>6} {'503':>6} {'other':>5} "
        f"{'no line':>7} {'master':>6} {'worker codes':>12} {'logged lost':>11} {'stop s':>6}"
    )
    print(header)
    with tempfile.TemporaryDirectory(prefix="audit-drain-") as logs:
        for rate, verdicts in cases:
            r = run_case(rate, verdicts, args, Path(logs))
            codes = ",".join(map(str, r.worker_codes)) or "-"
            print(
                f"{r.rate:>10} {r.sent:>6} {r.delivered:>6} {r.refused:>6} {r.other:>5} "
                f"{r.missing:>7} {r.master_status!s:>6} {codes:>12} {r.logged_lost:>11} "
                f"{r.stop_seconds:>6.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
