"""What crowds of hostile clients do to a probe: the figures of docs/operations.md, "Capacity".

One worker (two threads) is started fresh for each crowd; the crowd connects and keeps at its
attack while ``/healthz`` is probed on new connections; the probe's latency is printed beside a
control measured on the same server before the crowd arrived. The crowds: silent connections
(renewed as the server sheds them), body tricklers (a complete head, then a byte every 0.5 s),
and pipeliners of the 1.7 MB Swagger bundle that never read. Beside each: the server's CPU time
and the lines it logged meanwhile. ``--nofile N`` starts the server with that descriptor limit (a
crowd beyond it runs the process out of descriptors). ``--worker-class`` runs another worker
(``gthread``, or an older checkout's, with ``--pythonpath``) for the before figure.

    .venv/bin/python -m scripts.held_threads [--crowds silent:2200 trickle:50 pipeline:64]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import resource
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from scripts.harness.ports import free_port
from scripts.harness.procfs import CLK_TCK, children_of, proc_cpu_ticks
from scripts.harness.server import GunicornServer, server_env

DEFAULT_CROWDS = (
    "silent:100",
    "silent:2200",
    "trickle:4",
    "trickle:50",
    "pipeline:8",
    "pipeline:64",
)
PROBES = 20
PROBE_TIMEOUT = 20.0
SETTLE_SECONDS = 2.0
BUNDLE = b"GET /docs/static/swagger-ui/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n"
SCORE_HEAD = (
    b"POST /v1/hands/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 64\r\n\r\n"
)


def probe(port: int) -> float:
    """Seconds for ``GET /healthz`` on a new connection; ``inf`` when it fails or times out."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT)
    try:
        conn.request("GET", "/healthz")
        if conn.getresponse().status != 200:
            return float("inf")
    except OSError:
        return float("inf")
    finally:
        conn.close()
    return time.monotonic() - started


def probes(port: int, count: int = PROBES) -> list[float]:
    return [probe(port) for _ in range(count)]


class Crowd:
    """``size`` attacking connections, kept at ``size`` (a shed one is replaced) by one thread."""

    def __init__(self, port: int, kind: str, size: int) -> None:
        self.port, self.kind, self.size = port, kind, size
        self.socks: list[socket.socket] = []
        self.opened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Crowd:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.socks:
            sock.close()

    def _open(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=2.0)
        except OSError:
            return None
        self.opened += 1
        with contextlib.suppress(OSError):
            if self.kind == "pipeline":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.sendall(BUNDLE * 4)
            elif self.kind == "trickle":
                sock.sendall(SCORE_HEAD)
        sock.setblocking(False)
        return sock

    def _alive(self, sock: socket.socket) -> bool:
        try:
            return sock.recv(1, socket.MSG_PEEK) != b"" or self.kind == "pipeline"
        except BlockingIOError:
            return True
        except OSError:
            return False

    def _run(self) -> None:
        while not self._stop.is_set():
            kept = []
            for sock in self.socks:
                if self._alive(sock):
                    kept.append(sock)
                    if self.kind == "trickle":
                        with contextlib.suppress(OSError):
                            sock.send(b" ")
                else:
                    sock.close()
            self.socks = kept
            while len(self.socks) < self.size and not self._stop.is_set():
                opened = self._open()
                if opened is None:
                    break
                self.socks.append(opened)
            self._stop.wait(0.5)


def cpu_seconds(live: GunicornServer) -> float:
    """CPU time of the master and its workers so far."""
    pids = [live.pid, *children_of(live.pid)]
    return sum(proc_cpu_ticks(pid) or 0 for pid in pids) / CLK_TCK


def log_lines(live: GunicornServer) -> int:
    with contextlib.suppress(OSError):
        return len(live.stdout.read_bytes().splitlines())
    return 0


@contextlib.contextmanager
def descriptor_limit(nofile: int | None) -> Iterator[None]:
    """The soft descriptor limit for what is started inside (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if nofile is not None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@contextlib.contextmanager
def server(
    worker_class: str, pythonpath: str | None, workdir: Path, nofile: int | None
) -> Iterator[GunicornServer]:
    port = free_port()
    env = server_env(
        port,
        drop=("API_KEYS", "GUNICORN_ACCESS_LOG"),
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="2",
        GUNICORN_WORKER_CLASS=worker_class,
        AUDIT_LOG="false",
    )
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + os.getcwd()
    live = GunicornServer(env, workdir / f"gunicorn-{port}.log")
    with descriptor_limit(nofile):
        live.start()
    try:
        live.wait_ready()
        yield live
    finally:
        if live.process is not None:
            live.process.terminate()
            with contextlib.suppress(Exception):
                live.process.wait(30)


def summary(seconds: list[float]) -> str:
    failed = sum(1 for s in seconds if s == float("inf"))
    done = sorted(s for s in seconds if s != float("inf"))
    if not done:
        return f"all {failed} failed"
    p50, worst = statistics.median(done) * 1000, done[-1] * 1000
    return f"p50 {p50:8.1f} ms  max {worst:8.1f} ms  failed {failed}/{len(seconds)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowds", nargs="*", default=list(DEFAULT_CROWDS))
    parser.add_argument("--worker-class", default="head-first")
    parser.add_argument("--pythonpath", default=None, help="for a worker class of another tree")
    parser.add_argument("--probes", type=int, default=PROBES, help="probes per line")
    parser.add_argument("--nofile", type=int, default=None, help="the server's descriptor limit")
    parser.add_argument(
        "--settle", type=float, default=SETTLE_SECONDS, help="attack before probing"
    )
    args = parser.parse_args()
    print(f"worker: {args.worker_class}; {args.probes} probes of /healthz per line")
    with tempfile.TemporaryDirectory(prefix="held-threads-") as tmp:
        for crowd in args.crowds:
            kind, _, size = crowd.partition(":")
            with server(args.worker_class, args.pythonpath, Path(tmp), args.nofile) as live:
                control = probes(live.port, args.probes)
                cpu, lines, started = cpu_seconds(live), log_lines(live), time.monotonic()
                with Crowd(live.port, kind, int(size)) as attack:
                    time.sleep(args.settle)
                    under = probes(live.port, args.probes)
                    opened = attack.opened
                    cpu, lines = cpu_seconds(live) - cpu, log_lines(live) - lines
                    seconds = time.monotonic() - started
            print(f"{crowd:>14}  control: {summary(control)}")
            print(f"{'':>14}  attacked: {summary(under)}")
            print(
                f"{'':>14}  {opened} attacker connections opened; server CPU {cpu:.1f} s "
                f"in {seconds:.1f} s; {lines} log lines"
            )


if __name__ == "__main__":
    main()
