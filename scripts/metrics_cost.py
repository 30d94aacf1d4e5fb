"""What recording one request's metrics costs (``Metrics.record``, its share of ``flush``) with
the public prometheus_client calls ``service/quart_bezique/api/envelope/metrics.py`` makes, against
the histogram internals it once wrote to, beside one score request (Flask's test client, in-process)
for scale.

public: durations kept, one ``Histogram.observe`` each at the flush. private: counts per bucket
kept, added to the histogram's ``_sum`` and ``_buckets`` per flush. unbatched: every value written
during the request. In memory, then in multi-process mode (files, as under gunicorn);
``--requests`` per flush (a busy worker's second); the fastest of ``--repeat`` runs.

    .venv/bin/python -m scripts.metrics_cost [--repeat N] [--requests N]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import tempfile
import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

from quart_bezique.api.envelope.metrics import LATENCY_BUCKETS, Metrics

Request = tuple[str, int, float, int, str | None]
"""``Metrics.record``'s arguments: endpoint, status, seconds, hands, reason."""
HAND = {"cards": ["KS", "QS", "JS", "JC"]}


class Private(Metrics):
    """The tallies ``metrics.py`` kept before it used public calls only."""

    def __init__(self, version: str, ruleset: str) -> None:
        super().__init__(version, ruleset)
        self._bounds = (*LATENCY_BUCKETS, math.inf)
        self._tallies: dict[tuple[str, int], list[float]] = {}

    def record(
        self, endpoint: str, status: int, seconds: float, hands: int = 0, reason: str | None = None
    ) -> None:
        bucket = bisect_left(self._bounds, seconds) + 2
        with self._lock:
            tally = self._tallies.get((endpoint, status))
            if tally is None:
                tally = self._tallies[endpoint, status] = [0.0] * (len(self._bounds) + 2)
            tally[0] += 1
            tally[1] += seconds
            tally[bucket] += 1
            if hands:
                self._hand_tallies[endpoint] = self._hand_tallies.get(endpoint, 0) + hands
            if reason is not None:
                self._verdict_tallies[reason] = self._verdict_tallies.get(reason, 0) + 1

    def flush(self) -> None:
        with self._lock:
            tallies, self._tallies = self._tallies, {}
            hands, self._hand_tallies = self._hand_tallies, {}
            verdicts, self._verdict_tallies = self._verdict_tallies, {}
        for (endpoint, status), tally in tallies.items():
            code = str(status)
            self.requests.labels(endpoint, code).inc(tally[0])
            histogram: Any = self.latency.labels(endpoint, code)
            histogram._sum.inc(tally[1])
            for value, count in zip(histogram._buckets, tally[2:], strict=True):
                if count:
                    value.inc(count)
        for endpoint, count in hands.items():
            self.hands.labels(endpoint).inc(count)
        for reason, count in verdicts.items():
            self.verdicts.labels(reason).inc(count)


class Unbatched(Metrics):
    """Every value written during the request, with public calls."""

    def record(
        self, endpoint: str, status: int, seconds: float, hands: int = 0, reason: str | None = None
    ) -> None:
        code = str(status)
        self.requests.labels(endpoint, code).inc()
        self.latency.labels(endpoint, code).observe(seconds)
        if hands:
            self.hands.labels(endpoint).inc(hands)
        if reason is not None:
            self.verdicts.labels(reason).inc()


VARIANTS: dict[str, Callable[[str, str], Metrics]] = {
    "public": Metrics,
    "private": Private,
    "unbatched": Unbatched,
}


def workload(count: int) -> list[Request]:
    """A busy worker's requests: mostly scores, some refused, batches and betting verdicts;
    durations around half a millisecond (a served score), a few much longer."""
    rng = random.Random(7)
    made: list[Request] = []
    for _ in range(count):
        seconds = rng.lognormvariate(math.log(0.0005), 1.0)
        roll = rng.random()
        if roll < 0.7:
            made.append(("/v1/hands/score", 200, seconds, 1, None))
        elif roll < 0.8:
            made.append(("/v1/hands/score", 422, seconds, 0, None))
        elif roll < 0.9:
            made.append(("/v1/hands/batch-score", 200, seconds * 20, 50, None))
        else:
            made.append(("/v1/betting/validate", 200, seconds, 0, rng.choice(["valid", "X1"])))
    return made


def recording_cost(
    make: Callable[[str, str], Metrics], requests: Sequence[Request], repeat: int
) -> float:
    """Seconds per request of recording ``requests`` then one flush: the min over ``repeat``."""
    metrics = make("1.0.0", "classic/1")
    metrics._flusher_pid = os.getpid()  # no background flusher: the flush is timed here
    for request in requests:  # every label set made before timing
        metrics.record(*request)
    metrics.flush()
    best = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        for request in requests:
            metrics.record(*request)
        metrics.flush()
        best = min(best, time.perf_counter() - started)
    return best / len(requests)


def request_cost(repeat: int, count: int = 300) -> float:
    """Seconds per score request through Flask's test client (in memory: no flusher thread)."""
    from quart_bezique.api.app import create_app
    from quart_bezique.api.config import Config

    client = create_app(Config(), audit_sink=lambda line: None).test_client()
    for _ in range(count):
        if client.post("/v1/hands/score", json=HAND).status_code != 200:
            raise SystemExit("the score request was refused: nothing to compare with")
    best = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(count):
            client.post("/v1/hands/score", json=HAND)
        best = min(best, time.perf_counter() - started)
    return best / count


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=20, help="runs; the fastest counts")
    parser.add_argument("--requests", type=int, default=1000, help="recorded per flush")
    args = parser.parse_args(argv)
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    request = request_cost(max(3, args.repeat // 2))
    print(f"score request, Flask test client, in-process: {request * 1e6:.1f} µs")
    requests = workload(args.requests)
    directory = tempfile.mkdtemp(prefix="metrics-cost-")
    try:
        for mode in ("in memory", "multi-process"):
            if mode == "multi-process":  # each Metrics made from now on picks the files
                os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
            costs = {
                name: recording_cost(make, requests, args.repeat) for name, make in VARIANTS.items()
            }
            print(f"\n{mode}: {args.requests} requests per flush, per request")
            for name, cost in costs.items():
                print(
                    f"  {name:<10} {cost * 1e6:6.2f} µs  {cost / costs['private']:5.2f}x private"
                    f"  {cost / request:6.2%} of a score request"
                )
            extra = costs["public"] - costs["private"]
            print(
                f"  public over private: {extra * 1e6:+.2f} µs, {extra / request:+.2%} of a request"
            )
    finally:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
