"""What a house ruleset costs (docs/rules.md §13; docs/performance.md, "House rules").

    .venv/bin/python -m scripts.ruleset_cost

Three figures, each against ``classic/1`` measured in the same run (the machine is shared and
noisy, so only ratios mean anything):

- **Warm requests.** One app, called in-process (its envelope, road and core; no HTTP), is sent
  the same score, batch and betting bodies with and without ``"ruleset": "literal/1"``, in
  alternating rounds; each request's CPU time (``thread_time``) and its throughput on one core.
  ``literal/1`` changes every scoring switch, so its tables are built from the definition (first
  use, untimed) rather than loaded; once built they are served alike. The target: at most 10 %
  slower.
- **First use** of each of the seven scoring readings that do not ship, in a fresh interpreter:
  the time to build its score tables, its batch tables and its odds models, and what they add to
  the process's resident memory; then the memory once every reading was asked for (a process
  keeps ``BUILT_TABLES_KEPT`` of them).
- **A worker's start-up and idle memory** are ``make bench``'s own figures: nothing is built for
  another ruleset until a request asks for it.

Run it on an otherwise idle machine: ``make bench`` runs it after the main benchmark.
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Final

os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="ruleset-cost-"))

import orjson
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.game.scoring import BUILT_TABLES_KEPT

from scripts.harness.sinks import fd_sink
from scripts.loadtest.envelope_cost import Wsgi, bodies, cpu_us

TARGET: Final = 1.10
"""A named ruleset's warm request may cost at most this many times classic/1's."""
RULESET: Final = "literal/1"
REQUESTS: Final = ("score", "betting, 7 actions", "batch, 10,000 hands")
FIRST_USE: Final = r"""
import gc, json, resource, time
from quart_bezique.api.fastpath import batch
from quart_bezique.game import odds, scoring
from quart_bezique.game.ruleset import EVERY_RULESET

def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

scoring.ensure_tables(); odds.ensure_odds_tables(); batch.tables()
gc.collect()
base = rss_kib()
readings = list(dict.fromkeys(r.scoring for r in EVERY_RULESET))[1:]
rows = []
for rules in readings:
    before = rss_kib()
    t0 = time.perf_counter(); scoring.table(None, rules); t1 = time.perf_counter()
    batch.tables(rules); t2 = time.perf_counter()
    odds._model(None, rules); t3 = time.perf_counter()
    gc.collect()
    rows.append([rules.three_aces, rules.coronka, rules.trump_doubles,
                 t1 - t0, t2 - t1, t3 - t2, rss_kib() - before])
print(json.dumps({"rows": rows, "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "final_kib": rss_kib(), "base_kib": base}))
"""


def named(body: bytes, ruleset: str = RULESET) -> bytes:
    document: dict[str, Any] = orjson.loads(body)
    return orjson.dumps({**document, "ruleset": ruleset})


def warm() -> None:
    app: Wsgi = create_app(Config(), audit_sink=fd_sink(os.open(os.devnull, os.O_WRONLY))).wsgi_app
    requests = bodies()
    for name in REQUESTS:  # first use of literal/1's tables: built here, untimed
        path, body = requests[name]
        assert body is not None
        cpu_us(app, path, named(body), 1)
    gc.collect()
    gc.freeze()
    print(
        f"warm requests, CPU µs per request in-process (no HTTP): classic/1 (no ruleset named), "
        f"classic/1 named, {RULESET}; the ratios are {RULESET}'s to each"
    )
    header = f"{'request':24s} {'classic/1':>10s} {'named':>10s} {RULESET:>10s}"
    print(f"{header} {'ratio':>7s} {'ratio':>7s}")
    for name in REQUESTS:
        path, body = requests[name]
        assert body is not None
        sent = (body, named(body, "classic/1"), named(body))
        count, rounds = (3, 15) if name.startswith("batch") else (300, 31)
        runs = [tuple(cpu_us(app, path, b, count) for b in sent) for _ in range(rounds)]
        plain, same, house = (statistics.median(run[i] for run in runs) for i in range(3))
        ratio = statistics.median(run[2] / run[0] for run in runs)
        to_named = statistics.median(run[2] / run[1] for run in runs)
        verdict = "PASS" if ratio <= TARGET else "FAIL"
        print(
            f"{name:24s} {plain:10.1f} {same:10.1f} {house:10.1f} {ratio:6.2f}x {to_named:6.2f}x  "
            f"{verdict} (target ≤ {TARGET:.2f}x CPU)"
        )


def first_use() -> None:
    started = time.perf_counter()
    found = subprocess.run(
        [sys.executable, "-c", FIRST_USE], capture_output=True, text=True, check=True
    )
    report = orjson.loads(found.stdout)
    print(
        "first use of each unshipped scoring reading (a fresh process; "
        f"{time.perf_counter() - started:.1f} s in all):"
    )
    print(
        f"{'three_aces coronka trump_doubles':40s} {'scores s':>9s} {'batch s':>8s} "
        f"{'odds s':>7s} {'+RSS MiB':>9s}"
    )
    for aces, coronka, doubles, scores, batch, odds, kib in report["rows"]:
        reading = f"{aces} {coronka} {doubles}"
        print(f"{reading:40s} {scores:9.2f} {batch:8.2f} {odds:7.2f} {kib / 1024:9.1f}")
    print(
        f"classic/1 loaded: RSS {report['base_kib'] / 1024:.1f} MiB; after all seven "
        f"({BUILT_TABLES_KEPT} kept): {report['final_kib'] / 1024:.1f} MiB, "
        f"peak {report['peak_kib'] / 1024:.1f} MiB"
    )


def main() -> None:
    warm()
    first_use()


if __name__ == "__main__":
    main()
