"""The bench measures what the service runs and judges every target on the line it names: the
batch is sent in both layouts clients write (compact, and ``json.dumps``' default), each judged
against the hands-per-second target; the per-hand figures time the batch's own table loop; and a
figure that was not measured is N/A rather than borrowed from another line. No timing is
asserted: figures here are made up, only the bench's bookkeeping is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts.bench import config
from scripts.bench.bodies import write_bodies
from scripts.bench.http_runs import endpoints
from scripts.bench.inprocess import core_loops
from scripts.bench.options import parse_args
from scripts.bench.records import (
    EndpointResult,
    HttpRun,
    Idle,
    Inprocess,
    Latency,
    Meta,
    PerItem,
    Results,
    Settings,
    Target,
)
from scripts.bench.targets import evaluate


def test_the_batch_is_written_in_both_layouts_with_the_same_content(tmp_path: Path) -> None:
    bodies = write_bodies(tmp_path, odds_pool=10)
    compact = bodies.batch.read_bytes()
    spaced = bodies.batch_dumps.read_bytes()
    assert b" " not in compact
    assert spaced.startswith(b'{"hands": [{"cards": ["')
    assert b'", "' in spaced and b", {" in spaced
    assert spaced != compact
    assert json.loads(spaced) == json.loads(compact)
    assert json.loads(compact)["breakdown"] is False
    assert len(json.loads(compact)["hands"]) == config.BATCH_HANDS


def test_both_layouts_are_sent_to_the_batch_endpoint_and_selectable(tmp_path: Path) -> None:
    bodies = write_bodies(tmp_path, odds_pool=10)
    by_key = {e.key: e for e in endpoints(bodies, conns=4, batch_conns=2)}
    assert by_key["batch_dumps"].body == bodies.batch_dumps
    assert by_key["batch_dumps"].path == by_key["batch"].path == "/v1/hands/batch-score"
    assert by_key["batch_dumps"].hands == config.BATCH_HANDS
    assert "json.dumps" in by_key["batch_dumps"].label
    assert parse_args(["--only", "batch_dumps"], None).only == {"batch_dumps"}


def test_the_per_hand_loops_are_the_services_own() -> None:
    hands: list[dict[str, Any]] = [
        {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},
        {"cards": ["AH", "AH", "9D", "10C"]},
    ]
    notes: list[str] = []
    loops, fresh = core_loops(hands, seed=1, notes=notes)
    assert {"score_hand", "batch_loop_scores", "batch_loop_breakdowns"} <= set(loops)
    for loop in loops.values():
        fresh()
        loop()


def _run(rps: float, hands: int = 0) -> HttpRun:
    latency = Latency(p50=1, p75=1, p90=1, p99=2, p999=2, min=0.5, mean=1, stdev=0.1, max=3)
    return HttpRun(
        requests=rps * 10, duration_s=10, rps=rps, latency_ms=latency, server_cpu_s=1,
        server_cpu_us_per_request=100, server_utilisation=1, master_cpu_s=0, wrk_cpu_s=0,
        other_cpu_s=0, other_cpus=0, irq_cpu_s=0, steal_cpu_s=0, errors={}, connections=2,
        workers=1, workers_changed=False, hands_per_s=rps * hands if hands else None,
    )  # fmt: skip


def _results(http: dict[str, HttpRun], core: dict[str, float]) -> Results:
    results = Results(
        meta=Meta(
            mode="test", cpu_thread_siblings=[], virtual_machine=False, when="now", commit="x",
            dirty=False, cpu_model="cpu", cpus=1, kernel="k", python="3", versions={},
        ),
        settings=Settings(
            duration_s=10, warmup_s=2, rounds=1, connections=4, batch_connections=2, workers=1,
            server_cpus=[0], load_cpus=[1], pinning="test", repeats=1, seed=1, batch_hands=10_000,
            betting_actions=100,
        ),
        idle=Idle(sample_s=1, loadavg=[0, 0, 0], cpus=1, busy_cpus=0, idle=True, busiest=[]),
    )  # fmt: skip
    for key, run in http.items():
        results.http[key] = EndpointResult(key=key, label=key, server="service", path="/", run=run)
    if core:
        results.inprocess = Inprocess(
            tables_build_s=0, validate_betting_core=PerItem(1, 1, 1, 1, 1),
            odds_tables_build_s=None, odds_core_cold_ms=None, wsgi={}, gc_tracked_objects=0,
            process_rss_kib=None, profiles=None, notes=[],
            core={k: PerItem(best_us=v, median_us=v, mean_us=v, n=10_000, repeats=1)
                  for k, v in core.items()},
        )  # fmt: skip
    return results


def _by_id(targets: list[Target]) -> dict[str, Target]:
    return {t.id: t for t in targets}


@pytest.mark.parametrize(
    ("compact_rps", "dumps_rps", "compact", "dumps"),
    [(120, 80, "PASS", "MISS"), (80, 120, "MISS", "PASS"), (100, 100, "PASS", "PASS")],
)
def test_each_batch_layout_is_judged_on_its_own_line(
    compact_rps: float, dumps_rps: float, compact: str, dumps: str
) -> None:
    hands = config.BATCH_HANDS
    results = _results(
        {"batch": _run(compact_rps, hands), "batch_dumps": _run(dumps_rps, hands)}, {}
    )
    judged = _by_id(evaluate(results))
    assert (judged["2a"].status, judged["2a'"].status) == (compact, dumps)
    assert judged["2a'"].value == dumps_rps * hands
    assert judged["2a'"].limit == judged["2a"].limit == 1_000_000


def test_a_layout_not_measured_is_not_applicable() -> None:
    judged = _by_id(evaluate(_results({"batch": _run(200, config.BATCH_HANDS)}, {})))
    assert judged["2a"].status == "PASS"
    assert judged["2a'"].status == "N/A" and judged["2a'"].value is None


@pytest.mark.parametrize(("score_rps", "status"), [(125, "PASS"), (115, "MISS")])
def test_score_throughput_keeps_the_redesigns_bar(score_rps: float, status: str) -> None:
    judged = _by_id(evaluate(_results({"baseline_flask": _run(100), "score": _run(score_rps)}, {})))
    assert judged["1b'"].status == status
    assert judged["1b'"].limit == 1.2
    assert judged["1b"].status == "PASS"


def test_per_hand_targets_are_judged_on_the_batch_loop() -> None:
    core = {"batch_loop_scores": 0.5, "treys_evaluate": 0.4, "score_hand": 0.1}
    results = _results({"batch": _run(100, config.BATCH_HANDS)}, core)
    judged = _by_id(evaluate(results))
    assert judged["3a"].value == 0.5 and judged["3a"].status == "PASS"
    assert judged["3b"].value == 1.25 and judged["3b"].status == "MISS"
    assert judged["2b"].value == 0.5  # 1,000,000 hands/s over HTTP / 2,000,000 in-process


def test_per_hand_targets_borrow_no_other_line() -> None:
    core = {"score_hand": 0.1, "treys_evaluate": 0.4, "score_value": 0.3}  # an older bench's line
    judged = _by_id(evaluate(_results({"batch": _run(100, config.BATCH_HANDS)}, core)))
    assert [judged[i].status for i in ("2b", "3a", "3b")] == ["N/A", "N/A", "N/A"]
