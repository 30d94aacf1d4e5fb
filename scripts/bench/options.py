"""The command line, parsed into one typed record that every measurement reads."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scripts.bench.config import DEFAULT_OUT, STARTUP_RUNS, STARTUP_RUNS_QUICK

ENDPOINT_KEYS = "baseline_flask,score,baseline_wsgi,batch,batch_dumps,batch_breakdown,validate,odds"
STARTUP = "startup"
"""Not an endpoint: in ``--only`` it selects the start-up part (fresh interpreters, lone
workers)."""


@dataclass(frozen=True)
class Options:
    quick: bool
    duration: float
    warmup: float
    rounds: int
    connections: int
    batch_connections: int
    workers: int
    repeats: int
    budget: float
    odds_queries: int
    only: frozenset[str]
    """Endpoint keys to measure; empty: all."""
    no_http: bool
    no_inprocess: bool
    startup: bool
    """Measure the start-up part (the start-up targets are judged on it)."""
    startup_runs: int
    profile: bool
    out: Path


def parse_args(argv: Sequence[str] | None, description: str | None) -> Options:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench", description=description)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 2 s runs, 1 s warm-up, 1 round, fewer repeats",
    )
    parser.add_argument("--duration", type=float, help="seconds per measured run (10)")
    parser.add_argument("--warmup", type=float, help="seconds of warm-up before each run (2)")
    parser.add_argument(
        "--rounds", type=int, help="alternating rounds of baseline/score; medians are reported (2)"
    )
    parser.add_argument(
        "--connections", type=int, default=4, help="wrk connections for single-request endpoints"
    )
    parser.add_argument(
        "--batch-connections", type=int, default=2, help="wrk connections for the batch endpoint"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="WEB_CONCURRENCY for every server (1: figures are per worker)",
    )
    parser.add_argument("--repeats", type=int, help="timeit repeats in-process (7)")
    parser.add_argument(
        "--budget", type=float, help="seconds per in-process repeat of a WSGI call (0.2)"
    )
    parser.add_argument("--odds-queries", type=int, help="distinct in-process odds queries (300)")
    parser.add_argument(
        "--only",
        help=f"comma-separated endpoint keys ({ENDPOINT_KEYS}) and/or {STARTUP!r} (the start-up "
        f"part; alone, nothing else runs)",
    )
    parser.add_argument("--no-http", action="store_true", help="skip the servers and wrk")
    parser.add_argument("--no-inprocess", action="store_true", help="skip in-process figures")
    parser.add_argument(
        "--no-startup",
        action="store_true",
        help="skip the start-up part (fresh interpreters, lone workers with and without preload)",
    )
    parser.add_argument(
        "--startup-runs",
        type=int,
        help=f"starts of each kind in the start-up part, medians reported ({STARTUP_RUNS})",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also write cProfile tables of each endpoint (in-process WSGI) to OUT/profiles/",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    args = parser.parse_args(argv)
    quick: bool = args.quick

    def given(value: float | None, full: float, smoke: float) -> float:
        return value if value is not None else (smoke if quick else full)

    chosen = frozenset(args.only.split(",")) if args.only else frozenset()
    unknown = chosen - set(ENDPOINT_KEYS.split(",")) - {STARTUP}
    if unknown:
        parser.error(f"--only: unknown keys {sorted(unknown)}")
    only = chosen - {STARTUP}
    endpoints_wanted = not chosen or bool(only)
    runs = int(given(args.startup_runs, STARTUP_RUNS, STARTUP_RUNS_QUICK))
    if runs < 1:
        parser.error("--startup-runs: at least 1")
    return Options(
        quick=quick,
        duration=given(args.duration, 10.0, 2.0),
        warmup=given(args.warmup, 2.0, 1.0),
        rounds=int(given(args.rounds, 2, 1)),
        connections=args.connections,
        batch_connections=args.batch_connections,
        workers=args.workers,
        repeats=int(given(args.repeats, 7, 3)),
        budget=given(args.budget, 0.2, 0.05),
        odds_queries=int(given(args.odds_queries, 300, 60)),
        only=only,
        no_http=args.no_http or not endpoints_wanted,
        no_inprocess=args.no_inprocess or not endpoints_wanted,
        startup=not args.no_startup and (not chosen or STARTUP in chosen),
        startup_runs=runs,
        profile=args.profile,
        out=args.out,
    )
