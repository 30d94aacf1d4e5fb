"""Gunicorn settings, all from the environment (read once, when the master starts).

| variable                  | default        | meaning                                       |
|---------------------------|----------------|-----------------------------------------------|
| HOST                      | 127.0.0.1      | address to listen on (0.0.0.0 in containers)  |
| PORT                      | 8000           | port to listen on                             |
| WEB_CONCURRENCY           | number of CPUs | worker processes (the work is CPU-bound)      |
| GUNICORN_WORKER_CLASS     | head-first     | the worker class (below); gthread, sync: stock |
| GUNICORN_THREADS          | 2              | threads per gthread worker                    |
| GUNICORN_WORKER_CONNECTIONS | 1000         | connections one worker holds (beyond: the     |
|                           |                | longest idle are shed; at most half the       |
|                           |                | descriptor limit)                             |
| GUNICORN_TIMEOUT          | 30             | seconds before a silent worker is replaced    |
| GUNICORN_GRACEFUL_TIMEOUT | 20             | seconds in-flight requests get after SIGTERM  |
| GUNICORN_DRAIN_SECONDS    | 5              | seconds still serving, /readyz 503, after the |
|                           |                | first SIGTERM, before the graceful stop       |
| GUNICORN_KEEPALIVE        | 5              | seconds an idle keep-alive connection is kept |
| GUNICORN_MAX_REQUESTS     | 0              | recycle a worker after N requests (0: never)  |
| GUNICORN_PRELOAD          | true           | build app and tables once, then fork          |
| GUNICORN_CONTROL_SOCKET   | false          | gunicorn's control socket (under $HOME)       |
| GUNICORN_ACCESS_LOG       | (off)          | "-" for an access log on stdout               |
| LOG_LEVEL                 | info           | gunicorn's error log level (stderr)           |
| LIMIT_REQUEST_LINE        | 4094           | longest request line (bigger: 414)            |
| LIMIT_REQUEST_FIELDS      | 100            | most header fields                            |
| LIMIT_REQUEST_FIELD_SIZE  | 8190           | longest header field (bigger: 431)            |
| PROMETHEUS_MULTIPROC_DIR  | (fresh, /tmp)  | where workers keep their metrics (see below)  |
| HEAD_READ_TIMEOUT, HEAD_MAX_BYTES, SEND_TIMEOUT, CLOSE_DRAIN_BYTES, CLOSE_DRAIN_TIMEOUT: the   |
| connection limits of the head-first worker (``service/quart_bezique/server/limits.py``)       |

The worker class is ``quart_bezique.server.worker.HeadFirstWorker``: gunicorn's gthread, except
that a connection only gets a thread once its request head is complete, answers are sent with a
time limit and an answer that leaves request bytes unread closes the connection honestly (see its
docstring). ``GUNICORN_WORKER_CLASS=gthread`` restores the stock worker, which a few idle or slow
connections can stall (``docs/operations.md``, "Slow clients").

The application's own settings (MAX_BODY_BYTES, MAX_BATCH_HANDS, MAX_ACTIONS, API_KEYS, ...) are
read by ``service/quart_bezique/api/config.py``. SIGTERM stops in two steps
(``service/quart_bezique/server/drain.py``): for GUNICORN_DRAIN_SECONDS the server keeps accepting
and serving while ``/readyz`` answers 503 and every answer says ``Connection: close``, so that load
balancers take it out of rotation and kept-alive clients move away before anything is refused; then
gunicorn's graceful stop: the listener closes and workers finish their in-flight requests (up to
GUNICORN_GRACEFUL_TIMEOUT).

Metrics (``GET /metrics``, ``service/quart_bezique/api/envelope/metrics.py``): every worker writes
its counts to memory-mapped files in one directory that a scrape sums. Unless
PROMETHEUS_MULTIPROC_DIR names one, the master creates a fresh private directory under ``$TMPDIR``
(``/tmp``: the only writable place in the container, an in-memory ``emptyDir`` in Kubernetes) and
removes it on exit. A directory named by the operator is emptied of old ``*.db`` files at start
(counts from a previous run must not be summed in): give each master its own. ``child_exit`` tells
the client library a worker is gone; ``worker_exit`` writes a stopping worker's last tallies.
Loading this file twice in one master (``SIGHUP``) keeps the directory.

No server banner: gunicorn's ``Server`` header says ``quart-bezique``, not ``gunicorn`` (gunicorn
has not sent its version since 20.0; this removes the product name as well).
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import signal
import tempfile
from typing import Any

from quart_bezique.api.envelope import sink as audit_sink
from quart_bezique.server import drain
from quart_bezique.server.gunicorn_internals import name_server
from quart_bezique.server.limits import ConnectionLimits, LimitError


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw, 10)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {raw!r}") from None


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    return raw in ("1", "true", "yes", "on")


_host = os.environ.get("HOST", "").strip() or "127.0.0.1"
_port = _int("PORT", 8000)
bind = [f"[{_host}]:{_port}" if ":" in _host else f"{_host}:{_port}"]

workers = _int("WEB_CONCURRENCY", os.cpu_count() or 1)
HEAD_FIRST = "quart_bezique.server.worker.HeadFirstWorker"
_worker = os.environ.get("GUNICORN_WORKER_CLASS", "").strip()
worker_class = HEAD_FIRST if _worker in ("", "head-first") else _worker
threads = _int("GUNICORN_THREADS", 2)
worker_connections = _int("GUNICORN_WORKER_CONNECTIONS", 1000)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
max_requests = _int("GUNICORN_MAX_REQUESTS", 0)
max_requests_jitter = max_requests // 10
preload_app = _flag("GUNICORN_PRELOAD", True)

try:  # read again by each worker; read here so that a bad value stops the start
    connection_limits = ConnectionLimits.from_environ()
except LimitError as error:
    raise SystemExit(str(error)) from None

try:
    drain_seconds = drain.drain_seconds()
except drain.DrainError as error:
    raise SystemExit(str(error)) from None

limit_request_line = _int("LIMIT_REQUEST_LINE", 4094)
limit_request_fields = _int("LIMIT_REQUEST_FIELDS", 100)
limit_request_field_size = _int("LIMIT_REQUEST_FIELD_SIZE", 8190)

accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "").strip() or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "").strip().lower() or "info"
# Every log line through a bounded buffer and a writer thread, cleaned
# (service/quart_bezique/server/errorlog.py).
logger_class = "quart_bezique.server.errorlog.ServerLogger"
# No SCRIPT_NAME or PATH_INFO from request headers, even from a trusted peer: dropped (header_map).
forwarder_headers = ""
proc_name = "quart-bezique"
# No control socket: it would be written under $HOME, which may be read-only in a container.
control_socket_disable = not _flag("GUNICORN_CONTROL_SOCKET", False)
# Workers' temporary heartbeat files in memory, not on a (possibly slow or read-only) disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

SERVER_NAME = "quart-bezique"
name_server(SERVER_NAME)  # the Server header of every answer (no banner)

_METRICS_ENV = "PROMETHEUS_MULTIPROC_DIR"
_METRICS_OWNER_ENV = "QUART_BEZIQUE_METRICS_DIR_OWNER"
"""Set to the master's pid when this file created the directory (removed again on exit)."""


def _metrics_dir() -> str:
    """The directory for the workers' metric files, set in the environment before the app (and
    with it prometheus_client) is imported, so that every worker inherits it."""
    owner = os.environ.get(_METRICS_OWNER_ENV, "")
    named = os.environ.get(_METRICS_ENV, "").strip()
    if named and owner == str(os.getpid()):
        return named  # this master's own directory, on a reload (SIGHUP)
    if named and not owner:  # named by the operator: start from zero
        os.makedirs(named, exist_ok=True)
        for stale in glob.glob(os.path.join(named, "*.db")):
            os.remove(stale)
        return named
    # None, or inherited from another master (a USR2 re-exec): a private one, never shared.
    created = tempfile.mkdtemp(prefix="quart-bezique-metrics-")
    os.environ[_METRICS_ENV] = created
    os.environ[_METRICS_OWNER_ENV] = str(os.getpid())
    return created


metrics_dir = _metrics_dir()


def _remove_own_metrics_dir() -> None:
    """Remove the metrics directory if this process created it: on a normal exit (``on_exit``)
    and, through ``atexit``, when the app fails to load and gunicorn exits before running any hook.
    Forked workers inherit the handler but not the ownership (their pid differs)."""
    if os.environ.get(_METRICS_OWNER_ENV) == str(os.getpid()):
        shutil.rmtree(metrics_dir, ignore_errors=True)


atexit.register(_remove_own_metrics_dir)

WARM_LIBRARIES = (
    "flask",
    "marshmallow",
    "orjson",
    "prometheus_client",
)
"""Third-party libraries every worker needs, imported by the master when it does not preload the
app: a worker started without preload (a respawn, a rolling restart, ``GUNICORN_PRELOAD=false``)
still loads the service's own code and tables afresh, but not the web stack. After the metrics
directory is in the environment, which prometheus_client reads at import."""


def _warm_libraries() -> None:
    import importlib

    for name in WARM_LIBRARIES:
        importlib.import_module(name)


if not preload_app:
    _warm_libraries()


def child_exit(server: Any, worker: Any) -> None:
    """A worker is gone (stopped, crashed, killed): its counters stay in (they never go back);
    the client library drops whatever only a live process may report."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, metrics_dir)  # type: ignore[no-untyped-call]


audit_stop_reports = audit_sink.stop_reports()  # made before the fork: workers report through it


def worker_exit(server: Any, worker: Any) -> None:
    """In the worker, as it stops: add its last tallies to the metrics files (they are otherwise
    flushed about once a second) and write the audit lines still buffered, within the exit budget
    (``audit_sink.exit_budget``: half of the graceful timeout). Lines it could not write are
    logged, reported to the master and make the worker exit non-zero (``audit_sink.EXIT_STATUS``).
    (gunicorn also calls this hook in the master for a worker found gone: nothing to do there.)"""
    state = getattr(getattr(worker, "wsgi", None), "extensions", {}).get("quart_bezique")
    if state is None or worker.pid != os.getpid():
        return
    state.observer.metrics.flush()
    sink = state.observer.sink
    if not isinstance(sink, audit_sink.AuditSink):
        return
    budget = audit_sink.exit_budget(server.cfg.graceful_timeout)
    if sink.pending and not sink.flush(min(budget, 0.05)):  # a slow reader: tell the master first
        audit_stop_reports.report(worker.pid, "pending", sink.pending)
        lost = sink.close(budget)
        audit_stop_reports.report(worker.pid, "lost" if lost else "written", lost)
    else:
        lost = sink.close(0)  # nothing waiting; lines lost earlier (stdout gone) still count
        if lost:
            audit_stop_reports.report(worker.pid, "lost", lost)
    if lost:
        server.log.error(
            "audit: %d audit lines taken by worker %d were not written within %.1f s: lost",
            lost,
            worker.pid,
            budget,
        )
        raise SystemExit(audit_sink.EXIT_STATUS)


def on_exit(server: Any) -> None:
    """Remove the metrics directory this master created (a named one is left in place). Exit
    non-zero (``audit_sink.EXIT_STATUS``), not 0, if a worker lost audit lines or had to be killed
    at the graceful timeout (gunicorn itself only logs a worker's status and exits 0)."""
    _remove_own_metrics_dir()
    lost, workers = audit_stop_reports.collect()
    killed = len(getattr(server, "WORKERS", {}))
    if lost:
        server.log.error("audit: %d audit lines lost by %d stopping workers", lost, workers)
    if killed:
        server.log.error(
            "audit: %d workers killed at the graceful timeout; audit lines they held are lost",
            killed,
        )
    if lost or killed:
        raise SystemExit(audit_sink.EXIT_STATUS)


def when_ready(server: Any) -> None:
    """The master's first SIGTERM starts the drain instead of the stop (``drain.py``)."""
    drain.install_in_master(server, drain_seconds)


def post_worker_init(worker: Any) -> None:
    """Report not-ready from the moment the drain starts, and on SIGTERM at the latest (when the
    drain is off, or the worker is stopped alone), before gunicorn's graceful stop begins."""
    from quart_bezique.api.envelope.draining import mark_draining

    previous = signal.getsignal(signal.SIGTERM)

    def draining(signum: int, frame: Any) -> None:
        mark_draining()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, draining)
    drain.watch_in_worker(mark_draining)
    state = getattr(getattr(worker, "wsgi", None), "extensions", {}).get("quart_bezique")
    if state is not None and hasattr(worker, "refuses_unread"):
        # The head-first worker sends 100 Continue only for a request the app will read.
        worker.refuses_unread = state.observer.refuses_unread
