"""The performance targets, judged from the typed results: PASS, MISS, or N/A when the figure was
not measured (an endpoint still missing, ``--only``, ``--no-inprocess``, ``--no-startup``); the
container's start is measured by the container test and quoted (``container.py``), N/A when that
test has not run on this machine.

Ids are stable across definitions, docs/performance.md says how each one changed: 3a and 3b are
judged on the batch's table loop (they timed a helper the service never called); 1b' (the
redesign's throughput bar) and 2a' (the batch as ``json.dumps`` writes it) are new."""

from __future__ import annotations

from scripts.bench import config as c
from scripts.bench.container import provenance
from scripts.bench.records import HttpRun, Results, Target


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 3)


def judge(
    tid: str, what: str, value: float | None, op: str, limit: float, unit: str, how: str
) -> Target:
    if value is None:
        status = "N/A"
    elif op == "<=":
        status = "PASS" if value <= limit else "MISS"
    elif op == "<":
        status = "PASS" if value < limit else "MISS"
    else:
        status = "PASS" if value >= limit else "MISS"
    return Target(tid, what, value, op, limit, unit, how, status)


def evaluate(results: Results) -> list[Target]:
    def run(key: str) -> HttpRun | None:
        found = results.http.get(key)
        return None if found is None else found.run

    score, base = run("score"), run("baseline_flask")
    container = results.container_start
    batch, breakdown = run("batch"), run("batch_breakdown")
    batch_dumps = run("batch_dumps")
    validate, odds = run("validate"), run("odds")
    core = results.inprocess.core if results.inprocess else {}

    def cpu(r: HttpRun | None) -> float | None:
        return None if r is None else r.server_cpu_us_per_request

    def best(key: str) -> float | None:
        found = core.get(key)
        return None if found is None else found.best_us

    loop_us = best("batch_loop_scores")
    loop_hands_s = 1e6 / loop_us if loop_us else None
    score_vs_base = ratio(score.rps if score else None, base.rps if base else None)
    cold = results.cold_start
    no_preload = cold.no_preload if cold else None
    preload = cold.preload if cold else None
    return [
        judge("1a", "score: server CPU/request vs bare Flask view", ratio(cpu(score), cpu(base)),
              "<=", c.LIMIT_CPU_RATIO, "x",
              "worker utime+stime / requests, both under the same gunicorn settings"),
        judge("1b", "score: throughput vs bare Flask view", score_vs_base,
              ">=", c.LIMIT_RPS_RATIO, "x", "wrk req/s ratio"),
        judge("1b'", "score: throughput vs bare Flask view, the redesign's bar", score_vs_base,
              ">=", c.LIMIT_RPS_RATIO_KEPT, "x",
              "wrk req/s ratio, both under the same gunicorn settings"),
        judge("1c", "score: p99 latency vs bare Flask view",
              ratio(score.latency_ms.p99 if score else None, base.latency_ms.p99 if base else None),
              "<=", c.LIMIT_P99_RATIO, "x", "wrk p99 ratio, same connections"),
        judge("2a", "batch 10k hands, no breakdown, compact: hands/s per worker",
              batch.hands_per_s if batch else None, ">=", c.LIMIT_BATCH_HANDS_S, "hands/s",
              "wrk req/s x 10,000, one worker, body without whitespace"),
        judge("2a'", "batch 10k hands, no breakdown, json.dumps layout: hands/s per worker",
              batch_dumps.hands_per_s if batch_dumps else None, ">=", c.LIMIT_BATCH_HANDS_S,
              "hands/s", "wrk req/s x 10,000, one worker, the same batch as json.dumps writes it "
              "(', ' and ': ')"),
        judge("2b", "batch, no breakdown, compact: vs its typed road in-process",
              ratio(batch.hands_per_s if batch else None, loop_hands_s),
              ">=", c.LIMIT_BATCH_VS_CORE, "x",
              "end-to-end hands/s / in-process hands/s of the typed road (decode, check, score) on "
              "the same hands"),
        judge("2c", "batch 10k hands with breakdowns: hands/s per worker",
              breakdown.hands_per_s if breakdown else None, ">=", c.LIMIT_BREAKDOWN_HANDS_S,
              "hands/s", "wrk req/s x 10,000, one worker"),
        judge("3a", "batch typed road: one hand, no breakdown", loop_us, "<=",
              c.LIMIT_BATCH_LOOP_US, "µs", "the typed road (decode, check, score) on a 10,000-hand "
              "body / 10,000, best of repeats: each hand decoded, checked, its result encoded"),
        judge("3b", "batch typed road vs treys (5-card poker hand)",
              ratio(loop_us, best("treys_evaluate")), "<=", c.LIMIT_BATCH_LOOP_VS_TREYS, "x",
              "µs/hand ratio, same process, taking turns; treys' evaluate called per hand"),
        judge("4", "validate (100 actions): server CPU vs score endpoint",
              ratio(cpu(validate), cpu(score)), "<=", c.LIMIT_VALIDATE_CPU_RATIO, "x",
              "worker CPU/request ratio"),
        judge("5a", "worker without preload: process start -> ready",
              no_preload.start_to_ready_s.median if no_preload else None, "<=", c.LIMIT_READY_S,
              "s", "GUNICORN_PRELOAD=false, one worker started alone: its process start (/proc) "
              "to its first 200 on /readyz, median"),
        judge("5a'", "fresh interpreter -> app built (strict reading)",
              cold.interpreter.spawn_to_built_s.median if cold else None, "<=", c.LIMIT_READY_S,
              "s", "python spawn to `import quart_bezique.wsgi` done (create_app), bytecode "
              "compiled, "
              "median"),
        judge("5b", "idle worker RSS, no preload",
              no_preload.idle_rss_mib.median if no_preload else None, "<=", c.LIMIT_RSS_MIB, "MiB",
              "VmRSS of the lone worker of 5a after one request of each kind, median"),
        judge("5b'", "idle worker RSS, preload",
              preload.idle_rss_mib.median if preload else None, "<=", c.LIMIT_RSS_MIB, "MiB",
              "the same with GUNICORN_PRELOAD=true (as deployed), median"),
        judge("5c", "container: docker run -> ready",
              container.median_s if container else None, "<=", c.LIMIT_CONTAINER_READY_S, "s",
              f"median of {len(container.starts_s)} fresh starts, "
              f"{provenance(container, results.meta.commit)} ({c.CONTAINER_TEST})"
              if container else f"N/A here: measured by the container test, {c.CONTAINER_TEST}"),
        judge("7", "odds, one opponent: p99 latency", odds.latency_ms.p99 if odds else None, "<",
              c.LIMIT_ODDS_MS, "ms", "wrk, 1 connection, distinct bodies (no cache hit)"),
    ]  # fmt: skip
