"""``/healthz`` latency once gunicorn's stderr is a pipe nobody reads and malformed requests
(one warning line each) have filled it, with the service's logger or gunicorn's:

    .venv/bin/python -m scripts.blocked_stderr                  # the service's logger
    .venv/bin/python -m scripts.blocked_stderr --stock-logger   # gunicorn's, for comparison

The real server (``gunicorn.conf.py``, stderr piped and unread) is sent the malformed requests
(each on its own connection, not waited for), then probed; then stderr is read and the drops the
server counted are reported. ``--worker-class gthread``: gunicorn's stock worker.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import socket
import subprocess
import sys
import threading
import time

from scripts.harness.ports import free_port
from scripts.harness.server import GUNICORN_CONF, REPO, SERVICE_APP, server_env

KEY = "blocked-stderr-key-0123456789abcdef"
STOCK_LOGGER = "--logger-class gunicorn.glogging.Logger"


def malformed(n: int) -> bytes:
    """A request line gunicorn refuses (a control byte in the target) and logs a warning for."""
    return b"GET /v1/rules?n=%d&pad=%s\x01 HTTP/1.1\r\nHost: x\r\n\r\n" % (n, b"p" * 200)


def send(port: int, request: bytes) -> None:
    """Send ``request`` on a new connection and close it without waiting for the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)


def answered(port: int, request: bytes, timeout: float) -> bool:
    """True when the server answered ``request`` (any status) within ``timeout`` seconds."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(request)
            return sock.recv(16).startswith(b"HTTP/1.1 ")
    except OSError:
        return False


def probe(port: int, timeout: float) -> float | None:
    """Seconds ``GET /healthz`` took to answer 200, or None (no answer, or another status)."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        response.read()
        return time.perf_counter() - started if response.status == 200 else None
    except OSError:
        return None
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=2000, help="malformed requests to send")
    parser.add_argument("--stock-logger", action="store_true", help="gunicorn's own logger")
    parser.add_argument("--worker-class", default="head-first", help="head-first, gthread, ...")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--probe-timeout", type=float, default=90.0, help="seconds per probe")
    parser.add_argument("--probes", type=int, default=5)
    args = parser.parse_args(argv)

    port = free_port()
    env = server_env(
        port,
        drop=("GUNICORN_ACCESS_LOG", "GUNICORN_CMD_ARGS"),
        WEB_CONCURRENCY=args.workers,
        GUNICORN_WORKER_CLASS=args.worker_class,
        API_KEYS=KEY,
    )
    if args.stock_logger:
        env["GUNICORN_CMD_ARGS"] = STOCK_LOGGER
    command = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), SERVICE_APP]
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=devnull, stderr=subprocess.PIPE
        )
    assert process.stderr is not None
    err = bytearray()
    try:
        deadline = time.monotonic() + 60
        while probe(port, 5) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                print("the server did not start")
                return 1
            time.sleep(0.1)
        logger = "gunicorn's (stock)" if args.stock_logger else "the service's"
        print(f"logger: {logger}; worker class: {args.worker_class}; workers: {args.workers}")

        started = time.perf_counter()
        for n in range(args.requests):  # sent, not awaited: a hung server cannot slow this down
            send(port, malformed(n))
        took = time.perf_counter() - started
        print(f"{args.requests} malformed requests sent in {took:.2f} s, stderr unread")
        time.sleep(1)  # the server takes them in

        for _ in range(args.probes):
            seconds = probe(port, args.probe_timeout)
            shown = "no answer" if seconds is None else f"{seconds * 1000:.1f} ms"
            print(f"/healthz: {shown} (limit {args.probe_timeout:.0f} s)")

        late = answered(port, malformed(args.requests), args.probe_timeout)
        print(f"one more malformed request: {'answered' if late else 'no answer'}")

        fd = process.stderr.fileno()

        def read() -> None:
            while chunk := os.read(fd, 65536):
                err.extend(chunk)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(2)  # the writers catch up and report their drops
        text = err.decode(errors="replace")
        dropped = sum(int(n) for n in re.findall(r"(\d+) log lines dropped", text))
        print(
            f"stderr once read: {text.count('Invalid HTTP request line')} warning lines, "
            f"{dropped} reported dropped"
        )
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
