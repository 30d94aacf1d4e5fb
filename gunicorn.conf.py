"""Gunicorn settings, all from the environment (read once, when the master starts).

| variable                  | default        | meaning                                       |
|---------------------------|----------------|-----------------------------------------------|
| HOST                      | 127.0.0.1      | address to listen on (0.0.0.0 in containers)  |
| PORT                      | 8000           | port to listen on                             |
| WEB_CONCURRENCY           | number of CPUs | worker processes (the work is CPU-bound)      |
| GUNICORN_WORKER_CLASS     | gthread        | sync or gthread (gthread keeps alive)         |
| GUNICORN_THREADS          | 2              | threads per gthread worker                    |
| GUNICORN_TIMEOUT          | 30             | seconds before a silent worker is replaced    |
| GUNICORN_GRACEFUL_TIMEOUT | 20             | seconds in-flight requests get after SIGTERM  |
| GUNICORN_KEEPALIVE        | 5              | seconds an idle keep-alive connection is kept |
| GUNICORN_MAX_REQUESTS     | 0              | recycle a worker after N requests (0: never)  |
| GUNICORN_PRELOAD          | true           | build app and tables once, then fork          |
| GUNICORN_CONTROL_SOCKET   | false          | gunicorn's control socket (under $HOME)       |
| GUNICORN_ACCESS_LOG       | (off)          | "-" for an access log on stdout               |
| LOG_LEVEL                 | info           | gunicorn's error log level (stderr)           |
| LIMIT_REQUEST_LINE        | 4094           | longest request line (bigger: 414)            |
| LIMIT_REQUEST_FIELDS      | 100            | most header fields                            |
| LIMIT_REQUEST_FIELD_SIZE  | 8190           | longest header field                          |

The application's own settings (MAX_BODY_BYTES, MAX_BATCH_HANDS, MAX_ACTIONS) are read by
``service/api/config.py``. SIGTERM stops gracefully: workers finish their in-flight requests (up to
GUNICORN_GRACEFUL_TIMEOUT) and report not-ready on ``/readyz`` meanwhile.
"""

from __future__ import annotations

import os
import signal
from typing import Any


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
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "").strip() or "gthread"
threads = _int("GUNICORN_THREADS", 2)
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
max_requests = _int("GUNICORN_MAX_REQUESTS", 0)
max_requests_jitter = max_requests // 10
preload_app = _flag("GUNICORN_PRELOAD", True)

limit_request_line = _int("LIMIT_REQUEST_LINE", 4094)
limit_request_fields = _int("LIMIT_REQUEST_FIELDS", 100)
limit_request_field_size = _int("LIMIT_REQUEST_FIELD_SIZE", 8190)

accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "").strip() or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "").strip().lower() or "info"
proc_name = "quart-bezique"
# No control socket: it would be written under $HOME, which may be read-only in a container.
control_socket_disable = not _flag("GUNICORN_CONTROL_SOCKET", False)
# Workers' temporary heartbeat files in memory, not on a (possibly slow or read-only) disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None


def post_worker_init(worker: Any) -> None:
    """On SIGTERM, report not-ready before gunicorn's own graceful stop begins."""
    from service.api.meta import mark_draining

    previous = signal.getsignal(signal.SIGTERM)

    def draining(signum: int, frame: Any) -> None:
        mark_draining()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, draining)
