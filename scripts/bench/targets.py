"""The performance targets, judged from the typed results: PASS, MISS, or N/A when the figure was
not measured (an endpoint still missing, ``--only``, ``--no-inprocess``)."""

from __future__ import annotations

from scripts.bench import config as c
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
    batch, breakdown = run("batch"), run("batch_breakdown")
    validate, odds = run("validate"), run("odds")
    core = results.inprocess.core if results.inprocess else {}

    def cpu(r: HttpRun | None) -> float | None:
        return None if r is None else r.server_cpu_us_per_request

    def best(key: str) -> float | None:
        found = core.get(key)
        return None if found is None else found.best_us

    core_batch = best("api_batch_scores") or best("score_value")
    core_hands_s = 1e6 / core_batch if core_batch else None
    service = results.startup.get("service")
    rss = [w.rss_mib for w in service.idle_workers] if service else []
    rss_mib = max(r for r in rss if r is not None) if rss and None not in rss else None
    respawn = service.respawn if service else None
    return [
        judge("1a", "score: server CPU/request vs bare Flask view", ratio(cpu(score), cpu(base)),
              "<=", c.LIMIT_CPU_RATIO, "x",
              "worker utime+stime / requests, both under the same gunicorn settings"),
        judge("1b", "score: throughput vs bare Flask view",
              ratio(score.rps if score else None, base.rps if base else None),
              ">=", c.LIMIT_RPS_RATIO, "x", "wrk req/s ratio"),
        judge("1c", "score: p99 latency vs bare Flask view",
              ratio(score.latency_ms.p99 if score else None, base.latency_ms.p99 if base else None),
              "<=", c.LIMIT_P99_RATIO, "x", "wrk p99 ratio, same connections"),
        judge("2a", "batch 10k hands, no breakdown: hands/s per worker",
              batch.hands_per_s if batch else None, ">=", c.LIMIT_BATCH_HANDS_S, "hands/s",
              "wrk req/s x 10,000, one worker"),
        judge("2b", "batch, no breakdown: vs in-process core",
              ratio(batch.hands_per_s if batch else None, core_hands_s),
              ">=", c.LIMIT_BATCH_VS_CORE, "x",
              "end-to-end hands/s / in-process hands/s of the API's batch function on the same "
              "hands"),
        judge("2c", "batch 10k hands with breakdowns: hands/s per worker",
              breakdown.hands_per_s if breakdown else None, ">=", c.LIMIT_BREAKDOWN_HANDS_S,
              "hands/s", "wrk req/s x 10,000, one worker"),
        judge("3a", "core: one hand as card codes", best("score_value"), "<=", c.LIMIT_CORE_US,
              "µs", "score_value(codes, trump) over 10,000 hands, best of repeats, loop included"),
        judge("3b", "core vs treys (5-card poker hand)",
              ratio(best("score_value"), best("treys_evaluate")), "<=", c.LIMIT_CORE_VS_TREYS,
              "x", "µs/hand ratio, same process, same loop shape"),
        judge("4", "validate (100 actions): server CPU vs score endpoint",
              ratio(cpu(validate), cpu(score)), "<=", c.LIMIT_VALIDATE_CPU_RATIO, "x",
              "worker CPU/request ratio"),
        judge("5a", "worker start -> ready, as deployed",
              respawn.worker_start_to_ready_s if respawn else None, "<=", c.LIMIT_READY_S, "s",
              "a worker killed; its replacement's process start (from /proc) to first 200 on "
              "/readyz"),
        judge("5a'", "fresh process -> app built (strict: no preload)",
              results.cold.spawn_to_ready_s if results.cold else None, "<=", c.LIMIT_READY_S,
              "s", "python spawn to create_app() done (tables built), median"),
        judge("5b", "idle worker RSS", round(rss_mib, 1) if rss_mib else None, "<",
              c.LIMIT_RSS_MIB, "MiB", "VmRSS of each idle worker before any load (max)"),
        judge("7", "odds, one opponent: p99 latency", odds.latency_ms.p99 if odds else None, "<",
              c.LIMIT_ODDS_MS, "ms", "wrk, 1 connection, distinct bodies (no cache hit)"),
    ]  # fmt: skip
