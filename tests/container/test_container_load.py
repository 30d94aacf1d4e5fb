"""The heaviest requests the configuration allows, all at once, against the running container:
every worker thread busy with a largest batch (``MAX_BATCH_HANDS`` hands, full breakdown). They
must all succeed inside the memory limit; ``scripts/container_test.sh`` then reads the container's
peak memory from its cgroup and checks it against the limit in k8s/deployment.yaml."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.container

HANDS = (
    {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},  # 16
    {"cards": ["QS", "JC", "QH", "JD"], "trump": None},  # 9
    {"cards": ["10H", "10H", "10H", "10H"], "trump": "H"},  # 18
)


def largest_batch_size(base_url: str) -> int:
    spec: dict[str, Any] = requests.get(f"{base_url}/openapi.json", timeout=10).json()
    batch = spec["components"]["schemas"]["BatchScore"]
    size: int = batch["properties"]["hands"]["maxItems"]
    return size


def test_concurrent_largest_batches_fit_in_memory(base_url: str) -> None:
    size = largest_batch_size(base_url)
    body: dict[str, Any] = {
        "hands": [HANDS[i % len(HANDS)] for i in range(size)],
        "breakdown": True,
    }
    # Every thread of every worker, twice over: the most work a pod can hold at once, plus a queue.
    workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
    threads = int(os.environ.get("GUNICORN_THREADS", "2"))
    parallel = 2 * workers * threads

    def post(_: int) -> tuple[int, list[int]]:
        response = requests.post(f"{base_url}/v1/hands/batch-score", json=body, timeout=120)
        scores = [r["score"] for r in response.json()["results"]] if response.ok else []
        return response.status_code, scores

    with ThreadPoolExecutor(parallel) as pool:
        answers = list(pool.map(post, range(parallel)))
    expected = [(16, 9, 18)[i % 3] for i in range(size)]
    assert [status for status, _ in answers] == [200] * parallel
    assert all(scores == expected for _, scores in answers)
