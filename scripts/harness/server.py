"""A gunicorn master serving a WSGI app with the repository's ``gunicorn.conf.py``, as deployed:
started with an explicit environment on a free loopback port, ready when ``/readyz`` answers 200,
stopped by pid (its orphaned workers too, if the master died first)."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from scripts.harness.ports import LOOPBACK, free_port
from scripts.harness.processes import pin
from scripts.harness.procfs import children_of, proc_cpu_ticks, proc_stat

REPO = Path(__file__).resolve().parents[2]
GUNICORN_CONF = REPO / "gunicorn.conf.py"
SERVICE_APP = "quart_bezique.wsgi:app"
READY_PATH = "/readyz"


class ServerError(RuntimeError):
    """The server exited or never got ready; the message ends with its log's tail."""


def server_env(
    port: int,
    base: Mapping[str, str] | None = None,
    *,
    drop: Iterable[str] = (),
    drop_prefixes: tuple[str, ...] = (),
    **overrides: str,
) -> dict[str, str]:
    """The environment a server runs with: ``base`` (default: ours) without ``drop`` and the
    variables starting with ``drop_prefixes``, then ``HOST``/``PORT`` and ``overrides``. A tool
    drops what would change the server under test (a caller's ``API_KEYS``, access log...). A
    server under test stops without the SIGTERM drain (``GUNICORN_DRAIN_SECONDS=0``: the drain
    would add its seconds to every stop) unless the caller asks for one."""
    dropped = set(drop)
    env = {
        key: value
        for key, value in (os.environ if base is None else base).items()
        if key not in dropped and not (drop_prefixes and key.startswith(drop_prefixes))
    }
    env.setdefault("GUNICORN_DRAIN_SECONDS", "0")
    env.update(HOST=LOOPBACK, PORT=str(port))
    env.update(overrides)
    return env


@dataclass
class GunicornServer:
    """One gunicorn master (and its workers) started by us."""

    env: Mapping[str, str]
    """The whole environment; ``PORT`` in it is where the server listens."""
    stdout: Path
    stderr: Path | None = None
    """None: gunicorn's stderr goes to ``stdout``'s file too."""
    app: str = SERVICE_APP
    cpus: Sequence[int] = ()
    new_session: bool = False
    """Start it in a session of its own, so that a Ctrl-C at the terminal reaches only us and
    we stop it in order (the benchmark); the tests keep it in theirs."""
    name: str = "gunicorn"
    process: subprocess.Popen[bytes] | None = None
    spawned_at: float = 0.0
    known_workers: set[int] = field(default_factory=set)

    @property
    def host(self) -> str:
        return self.env.get("HOST", LOOPBACK)

    @property
    def port(self) -> int:
        return int(self.env["PORT"])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        if self.process is None:
            raise ServerError(f"{self.name} is not running")
        return self.process.pid

    def start(self) -> None:
        command = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), self.app]
        with contextlib.ExitStack() as files:
            out: IO[bytes] = files.enter_context(self.stdout.open("wb"))
            err: IO[bytes] | int = (
                subprocess.STDOUT
                if self.stderr is None
                else files.enter_context(self.stderr.open("wb"))
            )
            self.spawned_at = time.monotonic()
            self.process = subprocess.Popen(
                command,
                cwd=REPO,
                env=dict(self.env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=self.new_session,
                preexec_fn=pin(self.cpus),
            )

    def log_tail(self, lines: int = 20) -> str:
        tails = []
        for path in (self.stdout, self.stderr):
            if path is not None:
                with contextlib.suppress(OSError):
                    text = path.read_text(errors="replace").splitlines()[-lines:]
                    tails.append("\n".join(text))
        return "\n".join(tails)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        connection: http.client.HTTPConnection | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One request on a fresh connection (or ``connection``, left open)."""
        conn = connection or http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=dict(headers or {}))
            response = conn.getresponse()
            return response.status, response.headers, response.read()
        finally:
            if connection is None:
                conn.close()

    def ready(self) -> bool:
        with contextlib.suppress(OSError, http.client.HTTPException):
            return self.request("GET", READY_PATH, timeout=2.0)[0] == 200
        return False

    def wait_ready(
        self, timeout: float = 60.0, workers: int | None = None, poll_s: float = 0.005
    ) -> float:
        """Seconds from spawn to the first 200 on ``/readyz`` (with ``workers`` live workers, if
        given: the load tests want every worker forked before they count per worker)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                code = None if self.process is None else self.process.returncode
                raise ServerError(f"{self.name} exited ({code}):\n{self.log_tail()}")
            if self.ready():
                ready_s = time.monotonic() - self.spawned_at
                if workers is None or len(self.workers()) >= workers:
                    self.known_workers.update(self.workers())
                    return ready_s
            time.sleep(poll_s)
        raise ServerError(f"{self.name} not ready after {timeout} s:\n{self.log_tail()}")

    def workers(self) -> list[int]:
        if self.process is None:
            return []
        found = children_of(self.process.pid)
        self.known_workers.update(found)
        return found

    def worker_ticks(self) -> tuple[int, list[int]]:
        """CPU clock ticks of the live workers, summed, and their pids."""
        pids = self.workers()
        return sum(proc_cpu_ticks(p) or 0 for p in pids), pids

    def stop(self, graceful: bool = True, timeout: float = 30.0) -> int | None:
        """Stop the master (SIGTERM: graceful, in-flight requests finish; else SIGQUIT: quick),
        SIGKILL after ``timeout``; then any worker orphaned by a master that died first. The
        master's exit code, or None if it was never started."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.known_workers.update(self.workers())
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM if graceful else signal.SIGQUIT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                self.process.wait(timeout=10)
        master = self.process.pid
        for pid in sorted(self.known_workers):
            fields = proc_stat(pid)
            if fields is not None and fields[0] != "Z" and int(fields[1]) in (master, 1):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        return self.process.returncode


def start_server(
    log: Path,
    env: Mapping[str, str] | None = None,
    *,
    errors: Path | None = None,
    app: str = SERVICE_APP,
    cpus: Sequence[int] = (),
    workers: int | None = None,
    timeout: float = 60.0,
    name: str = "gunicorn",
    new_session: bool = False,
) -> GunicornServer:
    """Start a server and wait until it is ready; stopped again if it never gets there. ``env``
    without a ``PORT`` gets ``server_env`` on a free port."""
    if env is None or "PORT" not in env:
        env = server_env(free_port(), env)
    server = GunicornServer(
        env, log, errors, app=app, cpus=cpus, name=name, new_session=new_session
    )
    server.start()
    try:
        server.wait_ready(timeout, workers=workers)
    except BaseException:
        server.stop(graceful=False, timeout=10)
        raise
    return server
