"""The benchmark's results as typed records: what each measurement returns, what ``targets``
judges, what ``report`` prints and what ``results.json`` holds (``dataclasses.asdict``).

The in-process measurements run in a child interpreter and come back as JSON; ``decode`` turns
that JSON into these records again, checking every field against its annotation, so a change on
one side that the other does not expect fails at once rather than as a wrong figure."""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from scripts.harness.procfs import Memory

T = TypeVar("T")


# --------------------------------------------------------------------------- HTTP runs (wrk)


@dataclass(frozen=True)
class Latency:
    """Milliseconds, from wrk's histogram (closed loop: comparable between endpoints run with
    the same connections, not an SLO)."""

    p50: float
    p75: float
    p90: float
    p99: float
    p999: float
    min: float
    mean: float
    stdev: float
    max: float


@dataclass(frozen=True)
class HttpRun:
    """One measured wrk run, or the medians over several rounds of it."""

    requests: float
    duration_s: float
    rps: float
    latency_ms: Latency
    server_cpu_s: float
    server_cpu_us_per_request: float | None
    """Worker utime + stime over the run / requests completed: the figure the targets compare."""
    server_utilisation: float | None
    master_cpu_s: float
    wrk_cpu_s: float
    other_cpu_s: float
    other_cpus: float | None
    """CPUs' worth of time used by processes other than the server, wrk and us: noise."""
    irq_cpu_s: float
    steal_cpu_s: float
    errors: dict[str, int]
    connections: int
    workers: int
    workers_changed: bool
    hands_per_s: float | None = None
    hands_per_cpu_s: float | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RoundFigures:
    rps: float
    p99_ms: float
    cpu_us: float | None


@dataclass(frozen=True)
class EndpointResult:
    key: str
    label: str
    server: str
    """"service", "flask" or "wsgi": which server answered."""
    path: str
    skipped: str | None = None
    """Why the endpoint was not measured (absent, or not answering 200)."""
    run: HttpRun | None = None
    rounds: int = 0
    per_round: list[RoundFigures] = field(default_factory=list)


# --------------------------------------------------------------------------- start-up, memory


@dataclass(frozen=True)
class Respawn:
    kill_to_ready_s: float | None = None
    worker_start_to_ready_s: float | None = None
    """From the replacement's process start (``/proc``, tick resolution) to its first 200."""
    resolution_s: float | None = None
    error: str | None = None


@dataclass
class ServerStartup:
    spawn_to_ready_s: float
    worker_start_to_ready_s: float | None
    master: Memory
    idle_workers: list[Memory]
    loaded_workers: list[Memory] = field(default_factory=list)
    respawn: Respawn | None = None


@dataclass(frozen=True)
class Spread:
    """A start-up figure over ``n`` starts: one start is not a figure (page cache, scheduler), so
    the median is judged and the extremes show how far to trust it."""

    median: float
    min: float
    max: float
    n: int


@dataclass(frozen=True)
class FreshInterpreter:
    """``python -c "import quart_bezique.wsgi"``: what a worker without preload pays before
    gunicorn's own share. The parts add up to ``spawn_to_built_s`` run by run, not median by
    median."""

    spawn_to_built_s: Spread
    """From the parent's spawn to ``import quart_bezique.wsgi`` done (``create_app`` included)."""
    interpreter_s: Spread
    """Spawn to the first line of the child's code: interpreter start and ``site``."""
    imports_s: Spread
    """``import quart_bezique.api.app``: the package and the web stack."""
    app_s: Spread
    """The rest of ``import quart_bezique.wsgi``: ``create_app``, its tables, ``gc.freeze``."""
    rss_mib: Spread


@dataclass(frozen=True)
class WorkerStart:
    """A gunicorn master with one worker, started alone and then given a few requests."""

    preload: bool
    start_to_ready_s: Spread
    """The worker's process start (``/proc``, clock-tick resolution, so never under the truth)
    to its first 200 on /readyz: the figure judged."""
    seen_to_ready_s: Spread
    """The same from the moment the master's child was seen (polled): the finer clock, which can
    only start late, so it brackets the truth from below."""
    idle_rss_mib: Spread
    idle_pss_mib: Spread | None
    """PSS splits the pages shared with the master: with preload, the app's own share. None
    where the kernel has no ``smaps_rollup``."""
    requests: int
    """Requests served before the memory was read (one of each kind)."""


@dataclass(frozen=True)
class ColdStart:
    """The start-up part of the run (``--only startup`` runs just this)."""

    bytecode: str
    """Whether ``service/`` had current bytecode: without it every fresh interpreter compiles the
    package and the figures measure the compiler (``PYTHONDONTWRITEBYTECODE`` keeps it so)."""
    bytecode_current: bool
    interpreter: FreshInterpreter
    no_preload: WorkerStart
    preload: WorkerStart | None


@dataclass(frozen=True)
class ContainerStart:
    """The container's start as ``make container-test`` last measured it (its start-up series,
    ``scripts/container_start.py``): quoted by the bench, which runs no Docker of its own."""

    median_s: float
    starts_s: list[float]
    docker_alone_s: float
    """Docker's own start of the same image and limits running ``python3 -c pass`` (median)."""
    revision: str
    measured_at: str


# --------------------------------------------------------------------------- in-process


@dataclass(frozen=True)
class PerItem:
    """Microseconds per item (hand, call) over ``n`` items, ``repeats`` times."""

    best_us: float
    median_us: float
    mean_us: float | None
    n: int
    repeats: int


@dataclass(frozen=True)
class GcShare:
    collections: float
    """Per call."""
    ms: float
    """Per call."""


@dataclass(frozen=True)
class Percentiles:
    """Milliseconds over ``n`` samples."""

    p50: float
    p99: float
    max: float
    mean: float
    n: int


@dataclass(frozen=True)
class WsgiTiming:
    """One endpoint called in-process through WSGI (no HTTP, no gunicorn)."""

    timing: PerItem | None = None
    gc_per_call: dict[str, GcShare] = field(default_factory=dict)
    cold_ms: Percentiles | None = None
    """Odds only: latency of distinct (uncached) queries."""
    skipped: str | None = None


@dataclass(frozen=True)
class Inprocess:
    tables_build_s: float
    core: dict[str, PerItem]
    """Per hand: ``score_hand``, the batch's typed road (``typed_decoder``: decode, check, score;
    scores and breakdowns), treys, the empty loop."""
    validate_betting_core: PerItem
    odds_tables_build_s: float | None
    odds_core_cold_ms: Percentiles | None
    wsgi: dict[str, WsgiTiming]
    gc_tracked_objects: int
    process_rss_kib: int | None
    profiles: str | None
    notes: list[str]
    batch_tables_build_s: float | None = None
    """The batch loop's tables (``quart_bezique.api.fastpath.batch.tables``), built before
    timing."""


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class Busy:
    pid: int
    cpus: float
    command: str


@dataclass(frozen=True)
class Idle:
    sample_s: float
    loadavg: list[float]
    cpus: int
    busy_cpus: float
    idle: bool
    busiest: list[Busy]


@dataclass(frozen=True)
class Meta:
    mode: str
    cpu_thread_siblings: list[str]
    virtual_machine: bool
    when: str
    commit: str
    dirty: bool
    cpu_model: str
    cpus: int | None
    kernel: str
    python: str
    versions: dict[str, str | None]


@dataclass(frozen=True)
class GunicornSettings:
    """What gunicorn.conf.py resolves to under the servers' environment."""

    workers: int
    worker_class: str
    threads: int
    keepalive: float
    preload_app: bool
    timeout: float
    max_requests: int

    def summary(self) -> str:
        threaded = self.worker_class == "gthread" or self.worker_class.endswith("HeadFirstWorker")
        return (
            f"{self.workers} x {self.worker_class}"
            + (f" ({self.threads} threads)" if threaded else "")
            + f", keep-alive {self.keepalive:g} s, preload {self.preload_app}"
        )


@dataclass
class Settings:
    duration_s: float
    warmup_s: float
    rounds: int
    connections: int
    batch_connections: int
    workers: int
    server_cpus: list[int]
    load_cpus: list[int]
    pinning: str
    repeats: int
    seed: int
    batch_hands: int
    betting_actions: int
    gunicorn: str = "not started"
    gunicorn_resolved: GunicornSettings | None = None


@dataclass(frozen=True)
class Target:
    id: str
    target: str
    value: float | None
    op: str
    limit: float
    unit: str
    measured_as: str
    status: str
    """PASS, MISS or N/A (not measured)."""


@dataclass
class Results:
    meta: Meta
    settings: Settings
    idle: Idle
    http: dict[str, EndpointResult] = field(default_factory=dict)
    startup: dict[str, ServerStartup] = field(default_factory=dict)
    cold_start: ColdStart | None = None
    container_start: ContainerStart | None = None
    inprocess: Inprocess | None = None
    targets: list[Target] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


# --------------------------------------------------------------------------- JSON back to records


def decode(kind: type[T], data: Any) -> T:
    """``data`` (parsed JSON of ``dataclasses.asdict``) as a ``kind`` record, checked."""
    return typing.cast(T, _decode(kind, data, kind.__name__))


def _decode(hint: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if data is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return _decode(option, data, where)
            except TypeError:
                continue
        raise TypeError(f"{where}: {data!r} is none of {hint}")
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(data, list):
            raise TypeError(f"{where}: expected a list, got {data!r}")
        return [_decode(item, x, f"{where}[{i}]") for i, x in enumerate(data)]
    if origin is dict:
        key, value = typing.get_args(hint)
        if not isinstance(data, dict):
            raise TypeError(f"{where}: expected an object, got {data!r}")
        return {_decode(key, k, where): _decode(value, v, f"{where}.{k}") for k, v in data.items()}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if not isinstance(data, dict):
            raise TypeError(f"{where}: expected an object, got {data!r}")
        hints = typing.get_type_hints(hint, vars(sys.modules[hint.__module__]))
        return hint(
            **{
                f.name: _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
                for f in dataclasses.fields(hint)
                if f.name in data
            }
        )
    if hint is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise TypeError(f"{where}: expected a number, got {data!r}")
        return float(data)
    if hint in (int, str, bool):
        if not isinstance(data, hint) or (hint is int and isinstance(data, bool)):
            raise TypeError(f"{where}: expected {hint.__name__}, got {data!r}")
        return data
    raise TypeError(f"{where}: cannot decode {hint}")
