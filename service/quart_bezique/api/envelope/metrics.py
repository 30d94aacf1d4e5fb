"""``GET /metrics``: Prometheus metrics, summed over every gunicorn worker.

Operators watch rates, latencies and audit failures of the whole pod, but gunicorn's workers are
separate processes: each keeps its counts in memory-mapped files under
``PROMETHEUS_MULTIPROC_DIR``, which a scrape served by any worker sums (without that variable, as
under Flask's test client, each app keeps an in-memory registry). Labels never hold a
client-chosen path, so the number of series stays fixed. A request's duration is kept in memory
and added to the files about once a second (``Metrics``), so a request does not pay for the
files. docs/operations.md, "Metrics", lists the metrics and their labels.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Final

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from quart_bezique.api.envelope import prometheus_adapter

log = logging.getLogger("quart_bezique.api.metrics")

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
PREFIX: Final = "quart_bezique"
LATENCY_BUCKETS: Final = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)
"""From a cached score's answer to a worker timeout (30 s)."""


class BuildInfo(Collector):
    """``quart_bezique_build_info{version, ruleset} 1``: computed at scrape time, never stored."""

    def __init__(self, version: str, ruleset: str) -> None:
        self._labels = [version, ruleset]

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            f"{PREFIX}_build_info",
            "The running service's version and the ruleset it implements.",
            labels=["version", "ruleset"],
        )
        family.add_metric(self._labels, 1)
        yield family


class Metrics:
    """This app's metrics and the per-request recording the WSGI wrapper calls.

    Requests are kept in plain Python objects under a lock (``record``: the duration appended to
    its (endpoint, status) list, a few additions) and added to the Prometheus values by
    ``flush``: at most every ``FLUSH_SECONDS`` from a background thread, before each scrape this
    process serves, and when a gunicorn worker exits (``worker_exit`` in ``gunicorn.conf.py``).
    In multi-process mode each value update is a locked write to a memory-mapped file, dearer in
    a busy process: written straight, a request would make up to four, each behind a ``labels``
    lookup; flushed, it makes one ``observe`` (two writes) and its (endpoint, status) one lookup
    and one count per second. The price: a scrape sees another worker's last second or so late,
    and a worker killed outright (SIGKILL, OOM) loses at most that second's counts -- along with
    the requests it was serving.
    """

    FLUSH_SECONDS: Final = 1.0

    def __init__(self, version: str, ruleset: str) -> None:
        self.multiprocess = bool(os.environ.get(MULTIPROC_ENV))
        if self.multiprocess and not prometheus_adapter.multiprocess_values():
            # prometheus_client picks its storage when first imported; if something imported it
            # before the directory was set, pick again so that this process's counts are shared.
            prometheus_adapter.pick_storage_again()
        # *_created series: noise here (multi-process mode has none).
        disable_created_metrics()  # type: ignore[no-untyped-call]
        registry = None if self.multiprocess else CollectorRegistry()
        self._registry = registry
        self._build_info = BuildInfo(version, ruleset)
        if registry is not None:
            registry.register(self._build_info)
        labels = ("endpoint", "status")
        self.requests = Counter(
            f"{PREFIX}_http_requests",
            "HTTP requests answered, by endpoint and status.",
            labels,
            registry=registry,
        )
        self.latency = Histogram(
            f"{PREFIX}_http_request_duration_seconds",
            "Time from the request reaching the app to its answer being ready.",
            labels,
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.hands = Counter(
            f"{PREFIX}_hands_scored",
            "Hands scored in answers given (a batch counts each of its hands).",
            ("endpoint",),
            registry=registry,
        )
        self.verdicts = Counter(
            f"{PREFIX}_betting_verdicts",
            "Betting sequences judged, by outcome: valid, or the first violation's reason code.",
            ("reason",),
            registry=registry,
        )
        self.audit_failures = Counter(
            f"{PREFIX}_audit_write_failures",
            "Audit lines that could not be written (each one is also logged on stderr).",
            registry=registry,
        )
        self._lock = threading.Lock()
        self._durations: dict[tuple[str, int], list[float]] = {}
        """(endpoint, status) to the seconds each request took, since the last flush."""
        self._hand_tallies: dict[str, int] = {}
        self._verdict_tallies: dict[str, int] = {}
        self._flusher_pid = 0

    def record(
        self, endpoint: str, status: int, seconds: float, hands: int = 0, reason: str | None = None
    ) -> None:
        """Keep one answered request (and its hands scored, or its betting verdict's reason)."""
        with self._lock:
            durations = self._durations.get((endpoint, status))
            if durations is None:
                durations = self._durations[endpoint, status] = []
            durations.append(seconds)
            if hands:
                self._hand_tallies[endpoint] = self._hand_tallies.get(endpoint, 0) + hands
            if reason is not None:
                self._verdict_tallies[reason] = self._verdict_tallies.get(reason, 0) + 1
        if self._flusher_pid != os.getpid() and self.multiprocess:
            self._start_flusher()

    def flush(self) -> None:
        """Add what was kept to the Prometheus values (the files, in multi-process mode)."""
        with self._lock:
            kept, self._durations = self._durations, {}
            hands, self._hand_tallies = self._hand_tallies, {}
            verdicts, self._verdict_tallies = self._verdict_tallies, {}
        for (endpoint, status), durations in kept.items():
            code = str(status)
            self.requests.labels(endpoint, code).inc(len(durations))
            observe = self.latency.labels(endpoint, code).observe
            for seconds in durations:  # no public call observes many at once
                observe(seconds)
        for endpoint, count in hands.items():
            self.hands.labels(endpoint).inc(count)
        for reason, count in verdicts.items():
            self.verdicts.labels(reason).inc(count)

    def _start_flusher(self) -> None:
        """One daemon thread per process (started on its first request, so after the fork)."""
        with self._lock:
            if self._flusher_pid == os.getpid():
                return
            self._flusher_pid = os.getpid()
        threading.Thread(target=self._flush_forever, name="metrics-flush", daemon=True).start()

    def _flush_forever(self) -> None:
        while True:
            time.sleep(self.FLUSH_SECONDS)
            try:
                self.flush()
            except Exception:  # pragma: no cover - a full /tmp, say: keep serving, say so
                log.exception("could not update the metrics")

    def exposition(self) -> bytes:
        """The text exposition: every worker's files summed, or this app's own registry."""
        self.flush()
        if self._registry is not None:
            return generate_latest(self._registry)
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(self._build_info)
        return generate_latest(registry)
