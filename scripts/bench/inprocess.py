"""In-process figures, in a fresh interpreter pinned to the server CPU: what the service runs per
hand (``score_hand`` as the score endpoint calls it, the batch's typed road ``typed_decoder``), side
by side with treys on poker hands, taking turns; the betting replay, cold odds queries, and every
endpoint called through WSGI with a prebuilt environ, which splits the app's own cost from
gunicorn's and HTTP's. Only public names of the service are used.

The parent runs ``python -m scripts.bench.inprocess PARAMS.json`` and reads one JSON document
(an ``Inprocess`` record) from the last line of stdout that is not an audit record."""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.bench.records import GcShare, Inprocess, Percentiles, PerItem, WsgiTiming
from scripts.harness.procfs import proc_memory

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@dataclass(frozen=True)
class Params:
    hands: str
    validate: str
    odds: str
    odds_queries: int
    odds_endpoint: bool
    repeats: int
    budget_s: float
    endpoints: list[tuple[str, str, str, str]]
    """(key, server, path, body file) for each endpoint called through WSGI."""
    profile_dir: str | None
    seed: int


def per_item_us(loop: Callable[[], object], n: int, repeats: int) -> PerItem:
    """timeit-style: ``repeats`` runs of ``loop`` (which handles ``n`` items); best and median
    microseconds per item. GC stays on, as in a server."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        loop()
        times.append(time.perf_counter_ns() - t0)
    return PerItem(
        best_us=round(min(times) / n / 1000, 4),
        median_us=round(statistics.median(times) / n / 1000, 4),
        mean_us=round(sum(times) / len(times) / n / 1000, 4),
        n=n,
        repeats=repeats,
    )


def interleaved_us(
    loops: dict[str, Callable[[], object]],
    n: int,
    repeats: int,
    before: Callable[[], object] | None = None,
) -> dict[str, PerItem]:
    """Like ``per_item_us`` for several loops over ``n`` items, taking turns within each repeat
    (A B C, A B C, ...) so that every loop sees the same machine state: the side-by-side figures.
    ``before`` runs untimed before each timed loop."""
    times: dict[str, list[int]] = {key: [] for key in loops}
    for _ in range(repeats):
        for key, loop in loops.items():
            if before is not None:
                before()
            t0 = time.perf_counter_ns()
            loop()
            times[key].append(time.perf_counter_ns() - t0)
    return {
        key: PerItem(
            best_us=round(min(t) / n / 1000, 4),
            median_us=round(statistics.median(t) / n / 1000, 4),
            mean_us=None,
            n=n,
            repeats=repeats,
        )
        for key, t in times.items()
    }


def per_call_us(
    call: Callable[[], object],
    repeats: int,
    budget_s: float,
    before_timing: Callable[[], object] | None = None,
) -> PerItem:
    """Calibrate a call count that fills ``budget_s``, then ``per_item_us`` over it."""
    t0 = time.perf_counter()
    call()
    once = max(time.perf_counter() - t0, 1e-7)
    if before_timing is not None:
        before_timing()
    n = max(3, min(50_000, int(budget_s / once)))

    def loop() -> None:
        for _ in range(n):
            call()

    return per_item_us(loop, n, repeats)


def percentiles_ms(samples_s: Sequence[float]) -> Percentiles:
    ordered = sorted(samples_s)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] * 1000, 3)

    return Percentiles(
        p50=at(0.50),
        p99=at(0.99),
        max=round(ordered[-1] * 1000, 3),
        mean=round(statistics.fmean(ordered) * 1000, 3),
        n=len(ordered),
    )


def wsgi_call(app: Wsgi, path: str, body: bytes) -> Callable[[], str]:
    """A call of the WSGI app with a prebuilt environ: the app's whole cost minus HTTP and
    gunicorn (for the service, its envelope and the endpoint's road; for a baseline, its own
    handling)."""
    from werkzeug.test import EnvironBuilder

    base = EnvironBuilder(
        path=path, method="POST", data=body, content_type="application/json"
    ).get_environ()
    holder = [""]

    def start_response(status: str, headers: list[tuple[str, str]], exc: Any = None) -> None:
        holder[0] = status

    def call() -> str:
        environ = dict(base)
        environ["wsgi.input"] = io.BytesIO(body)
        chunks = app(environ, start_response)
        try:
            for _ in chunks:
                pass
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        return holder[0]

    return call


class GcClock:
    """Collections and their time, per generation, from ``gc.callbacks``: how much of a WSGI
    call's mean is the collector's."""

    def __init__(self) -> None:
        self.seen = {0: [0, 0], 1: [0, 0], 2: [0, 0]}  # generation: collections, ns
        self.started = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter_ns()
        else:
            seen = self.seen[info["generation"]]
            seen[0] += 1
            seen[1] += time.perf_counter_ns() - self.started

    def reset(self) -> None:
        for seen in self.seen.values():
            seen[:] = [0, 0]

    def per_call(self, calls: int) -> dict[str, GcShare]:
        return {
            f"gen{g}": GcShare(round(c / calls, 3), round(ns / calls / 1e6, 3))
            for g, (c, ns) in self.seen.items()
        }


def core_loops(
    hands: list[dict[str, Any]], seed: int, notes: list[str]
) -> tuple[dict[str, Callable[[], object]], Callable[[], None]]:
    """The per-hand loops timed side by side: the score endpoint's core call, the batch's typed
    road on the whole batch's bytes (decoded, checked, scored: scores, breakdowns), treys, and an
    empty loop; and what to run before each timed loop: the hands parsed again from their text by
    orjson, as every request parses its own body, so that no loop meets strings whose hashes a
    previous loop computed."""
    import orjson
    from quart_bezique.api.config import Config
    from quart_bezique.api.contract.schemas import request_schemas
    from quart_bezique.api.fastpath.batch import typed_decoder
    from quart_bezique.game.scoring import score_hand
    from quart_bezique.wire.canonical import BATCH_PATH, form_of, spelled_canonically

    text = orjson.dumps(hands)
    parsed = [orjson.loads(text)]

    def fresh() -> None:
        parsed[0] = orjson.loads(text)

    def noop(a: object, b: object) -> int:
        return 0

    def loop_noop() -> None:
        for h in parsed[0]:
            noop(h["cards"], h.get("trump"))

    def loop_hand() -> None:
        for h in parsed[0]:
            score_hand(h["cards"], h.get("trump"))

    config = Config(max_batch_hands=max(len(hands), 1), build_tables=False)
    decode = typed_decoder(request_schemas(config).batch())
    scores_body = orjson.dumps({"hands": hands, "breakdown": False})
    breakdowns_body = orjson.dumps({"hands": hands, "breakdown": True})

    def loop_scores() -> None:
        decode(scores_body)

    def loop_breakdowns() -> None:
        decode(breakdowns_body)

    found = decode(scores_body)
    if found is None or len(found.judged.payload["results"]) != len(hands):
        raise RuntimeError("the batch's typed road refused the bench's hands")
    if not spelled_canonically(form_of(BATCH_PATH), orjson.loads(scores_body)):
        raise RuntimeError("the bench's hands are not spelled canonically (the road's usual case)")
    loops: dict[str, Callable[[], object]] = {
        "loop_overhead": loop_noop,
        "score_hand": loop_hand,
        "batch_loop_scores": loop_scores,
        "batch_loop_breakdowns": loop_breakdowns,
    }

    try:
        from treys import Card, Evaluator  # type: ignore[import-untyped]
    except ImportError:
        notes.append("treys is not installed: no side-by-side comparison")
        return loops, fresh
    rng = random.Random(seed)
    deck = [r + s for r in "23456789TJQKA" for s in "shdc"]
    poker = []
    for _ in range(len(hands)):
        cards = [Card.new(c) for c in rng.sample(deck, 5)]
        poker.append((cards[:2], cards[2:]))
    evaluator = Evaluator()
    evaluate = evaluator.evaluate

    def loop_treys() -> None:
        for hole, board in poker:
            evaluate(hole, board)

    loops["treys_evaluate"] = loop_treys
    five = getattr(evaluator, "_five", None)  # treys' own internal, shown for information
    if callable(five):
        fives = [hole + board for hole, board in poker]

        def loop_five() -> None:
            for cards in fives:
                five(cards)

        loops["treys_five_internal"] = loop_five
    return loops, fresh


def measure(params: Params) -> Inprocess:
    import orjson
    from quart_bezique.api.fastpath.batch import tables
    from quart_bezique.game.betting import validate_betting
    from quart_bezique.game.odds import ensure_odds_tables, hand_odds
    from quart_bezique.game.scoring import ensure_tables

    notes: list[str] = []
    t0 = time.perf_counter()
    ensure_tables()
    tables_build_s = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    tables()
    batch_tables_build_s = round(time.perf_counter() - t0, 3)

    hands = json.loads(Path(params.hands).read_text())
    loops, fresh = core_loops(hands, params.seed, notes)
    for loop in loops.values():  # once untimed: first-call costs out of the way
        loop()
    core = interleaved_us(loops, len(hands), params.repeats, fresh)

    betting = json.loads(Path(params.validate).read_text())
    validate_core = per_call_us(
        lambda: validate_betting(
            betting["players"], betting["dealer"], betting["ante"], betting["actions"]
        ),
        params.repeats,
        params.budget_s,
    )

    # Odds, cold (each query distinct, so no cache hit), after building the odds tables.
    odds_lines = Path(params.odds).read_bytes().splitlines()[: params.odds_queries]
    t0 = time.perf_counter()
    ensure_odds_tables()
    odds_tables_build_s = round(time.perf_counter() - t0, 3)
    samples = []
    for line in odds_lines:
        body = orjson.loads(line)
        t0 = time.perf_counter()
        hand_odds(body["cards"], body.get("trump"), body.get("seen", ()))
        samples.append(time.perf_counter() - t0)
    odds_core = percentiles_ms(samples) if samples else None

    # Every endpoint through WSGI, in-process: the app's cost without HTTP and gunicorn.
    from quart_bezique.wsgi import app

    from scripts.bench import baseline

    apps: dict[str, Wsgi] = {
        "service": app,
        "flask": baseline.flask_app,
        "wsgi": baseline.wsgi_app,
    }
    wsgi: dict[str, WsgiTiming] = {}
    clock = GcClock()
    gc.callbacks.append(clock)
    for key, server, path, body_file in params.endpoints:
        call = wsgi_call(apps[server], path, Path(body_file).read_bytes())
        status = call()
        if not status.startswith("200"):
            wsgi[key] = WsgiTiming(skipped=f"answered {status}")
            continue
        timing = per_call_us(call, params.repeats, params.budget_s, clock.reset)
        wsgi[key] = WsgiTiming(timing=timing, gc_per_call=clock.per_call(timing.n * timing.repeats))
    gc.callbacks.remove(clock)
    tracked = len(gc.get_objects())
    if params.odds_endpoint and odds_lines:
        calls = [wsgi_call(app, "/v1/hands/odds", line) for line in odds_lines]
        if calls[0]().startswith("200"):
            samples = []
            for call in calls[1:]:
                t0 = time.perf_counter()
                call()
                samples.append(time.perf_counter() - t0)
            wsgi["odds"] = WsgiTiming(cold_ms=percentiles_ms(samples))

    profiles = None
    if params.profile_dir:
        profiles = profile(params, apps, wsgi)
    return Inprocess(
        tables_build_s=tables_build_s,
        batch_tables_build_s=batch_tables_build_s,
        core=core,
        validate_betting_core=validate_core,
        odds_tables_build_s=odds_tables_build_s,
        odds_core_cold_ms=odds_core,
        wsgi=wsgi,
        gc_tracked_objects=tracked,
        process_rss_kib=proc_memory(os.getpid()).rss_kib,
        profiles=profiles,
        notes=notes,
    )


def profile(params: Params, apps: dict[str, Wsgi], wsgi: dict[str, WsgiTiming]) -> str:
    """cProfile tables of each endpoint's WSGI call, half a second of calls each."""
    import cProfile
    import pstats

    assert params.profile_dir is not None
    profile_dir = Path(params.profile_dir)
    profile_dir.mkdir(parents=True, exist_ok=True)
    for key, server, path, body_file in params.endpoints:
        timing = wsgi[key].timing
        if timing is None:
            continue
        call = wsgi_call(apps[server], path, Path(body_file).read_bytes())
        calls = max(5, int(0.5 / max(timing.best_us / 1e6, 1e-6)))
        profiler = cProfile.Profile()
        gc.collect()
        profiler.enable()
        for _ in range(calls):
            call()
        profiler.disable()
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        text.write(f"# {key}: {calls} in-process WSGI calls of {path}\n")
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(25)
        (profile_dir / f"profile_{key}.txt").write_text(text.getvalue())
    return str(profile_dir)


def main(argv: Sequence[str]) -> int:
    raw = json.loads(Path(argv[0]).read_text())
    raw["endpoints"] = [tuple(e) for e in raw["endpoints"]]
    params = Params(**raw)
    print(json.dumps(dataclasses.asdict(measure(params))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
