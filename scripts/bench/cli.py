"""The run: idle check, HTTP measurements, in-process measurements, the start-up part, then
targets, report, chart and ``results.json``. Everything started is stopped by pid on success, error,
Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from scripts.bench import __doc__ as package_doc
from scripts.bench.bodies import Bodies, write_bodies
from scripts.bench.chart import chart
from scripts.bench.config import (
    BATCH_HANDS,
    BETTING_ACTIONS,
    IDLE_SETTLE_S,
    ODDS_POOL,
    ODDS_POOL_QUICK,
    SEED,
)
from scripts.bench.container import quoted_start
from scripts.bench.http_runs import run_http
from scripts.bench.inprocess import Params
from scripts.bench.log import log, warn
from scripts.bench.machine import idle_check, machine_meta, plan_cpus
from scripts.bench.options import Options, parse_args
from scripts.bench.records import Inprocess, Results, Settings, decode
from scripts.bench.report import report
from scripts.bench.startup import measure_startup
from scripts.bench.targets import evaluate
from scripts.harness.processes import Terminated, pin, unwind_on_signals
from scripts.harness.server import REPO, ServerError
from scripts.harness.wrk import WrkMissing

INPROCESS_TIMEOUT_S = 900


def run_inprocess(
    options: Options, bodies: Bodies, tmp: Path, cpus: list[int], odds_endpoint: bool
) -> Inprocess:
    """The in-process measurements, in a fresh interpreter pinned to the server CPU: nothing
    the HTTP runs warmed (caches, allocator) flatters them."""
    score, batch = "/v1/hands/score", "/v1/hands/batch-score"
    params = Params(
        hands=str(bodies.hands),
        validate=str(bodies.validate),
        odds=str(bodies.odds),
        odds_queries=options.odds_queries,
        odds_endpoint=odds_endpoint,
        repeats=options.repeats,
        budget_s=options.budget,
        endpoints=[
            ("baseline_flask", "flask", score, str(bodies.score)),
            ("score", "service", score, str(bodies.score)),
            ("baseline_wsgi", "wsgi", score, str(bodies.score)),
            ("batch", "service", batch, str(bodies.batch)),
            ("batch_dumps", "service", batch, str(bodies.batch_dumps)),
            ("batch_breakdown", "service", batch, str(bodies.batch_breakdown)),
            ("validate", "service", "/v1/betting/validate", str(bodies.validate)),
        ],
        profile_dir=str(options.out / "profiles") if options.profile else None,
        seed=SEED,
    )
    params_path = tmp / "inprocess.json"
    params_path.write_text(json.dumps(dataclasses.asdict(params)))
    log("in-process measurements (fresh interpreter, pinned to the server CPU)")
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench.inprocess", str(params_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=pin(cpus),
        timeout=INPROCESS_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"in-process measurements failed:\n{done.stderr[-3000:]}")
    # The app writes its audit lines to stdout too, from a writer thread (they may come after the
    # figures): the figures are the last line that is not an audit record.
    record = next(
        found
        for found in map(json.loads, reversed(done.stdout.strip().splitlines()))
        if "request_id" not in found
    )
    return decode(Inprocess, record)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv, (package_doc or "").split("\n\n")[0])
    unwind_on_signals()
    options.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    mode = "quick (smoke: figures not meaningful)" if options.quick else "full"
    server_cpus, load_cpus, pinning = plan_cpus(options.workers)
    results = Results(
        meta=machine_meta("quick" if options.quick else "full"),
        settings=Settings(
            duration_s=options.duration,
            warmup_s=options.warmup,
            rounds=options.rounds,
            connections=options.connections,
            batch_connections=options.batch_connections,
            workers=options.workers,
            server_cpus=server_cpus,
            load_cpus=load_cpus,
            pinning=pinning,
            repeats=options.repeats,
            seed=SEED,
            batch_hands=BATCH_HANDS,
            betting_actions=BETTING_ACTIONS,
        ),
        idle=idle_check(),
    )
    log(f"mode {mode}; {pinning}")
    idle = results.idle
    if not idle.idle:
        busiest = "; ".join(f"{p.cpus:.2f} CPU {p.command}" for p in idle.busiest[:3])
        busiest = busiest or "short-lived processes (none ran through the whole sample)"
        message = (
            f"the machine is NOT idle: {idle.busy_cpus:.2f} CPUs busy before the run "
            f"(load {idle.loadavg}); busiest: {busiest}. Figures will be noisy."
        )
        warn(message)
        results.warnings.append(message)
    if not server_cpus or server_cpus == load_cpus:
        results.warnings.append(pinning)

    try:
        with (
            tempfile.TemporaryDirectory(prefix="bench-") as tmp_name,
            contextlib.ExitStack() as stack,
        ):
            tmp = Path(tmp_name)
            odds_endpoint = False
            if not (options.no_http and options.no_inprocess):
                bodies = write_bodies(tmp, ODDS_POOL_QUICK if options.quick else ODDS_POOL)
            if not options.no_http:
                run_http(options, results, bodies, tmp, server_cpus, load_cpus, stack)
                odds = results.http.get("odds")
                odds_endpoint = odds is not None and odds.run is not None
            stack.close()
            if not options.no_inprocess:
                results.inprocess = run_inprocess(options, bodies, tmp, server_cpus, odds_endpoint)
            if options.startup:
                # Last: nothing of ours runs beside the servers it starts one at a time.
                results.cold_start, notes = measure_startup(
                    server_cpus, options.startup_runs, tmp, IDLE_SETTLE_S
                )
                results.warnings += notes
                results.container_start, notes = quoted_start()
                results.warnings += notes
    except (RuntimeError, ServerError, subprocess.SubprocessError) as error:
        log(f"failed, everything started was stopped: {error}")
        return 1
    except WrkMissing as missing:
        log(f"{missing.code}; run with --no-http to skip the HTTP measurements")
        return 1
    except (KeyboardInterrupt, Terminated) as stop:
        log(f"interrupted ({str(stop) or 'Ctrl-C'}): everything started was stopped")
        return 130

    for entry in results.http.values():
        for note in entry.run.notes if entry.run else []:
            if "noisy" in note or "errors" in note:
                results.warnings.append(f"{entry.label}: {note}")
    results.targets = evaluate(results)
    results.elapsed_s = round(time.monotonic() - started, 1)

    written = ["results.json", "results.md"]
    try:
        if chart(results, options.out / "bench.png"):
            written.append("bench.png")
    except ImportError:
        results.warnings.append("matplotlib is not installed: no chart")
    (options.out / "results.json").write_text(
        json.dumps(dataclasses.asdict(results), indent=2) + "\n"
    )
    (options.out / "results.md").write_text(report(results, markdown=True))
    print(report(results, markdown=False))
    print(f"wrote {', '.join(written)} into {options.out} ({results.elapsed_s} s in all)")
    if not idle.idle or options.quick:
        warn(
            "these figures are not a valid benchmark: "
            + ("quick mode" if options.quick else "the machine was not idle")
        )
    return 0
