"""The benchmark's fixed inputs and its performance targets' limits, in one place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from scripts.harness.server import REPO

DEFAULT_OUT: Final = REPO / "docs" / "bench"

SEED: Final = 5_2024
BATCH_HANDS: Final = 10_000
BETTING_ACTIONS: Final = 100
ODDS_POOL: Final = 20_000
"""Distinct odds bodies, sent in turn: more than the core's LRU cache holds (8,192), so a cyclic
pass never hits it and every request is a cold query."""
ODDS_POOL_QUICK: Final = 4_000

IDLE_BUSY_CPUS: Final = 0.10
"""More than this many CPUs' worth of busy time (summed over CPUs) means "not idle"."""
NOISE_CPUS: Final = 0.10
"""Other processes using more than this fraction of a CPU during a run make it suspect."""

LIMIT_CPU_RATIO: Final = 1.15
LIMIT_RPS_RATIO: Final = 0.85
LIMIT_RPS_RATIO_KEPT: Final = 1.2
"""The score endpoint's throughput the HTTP-layer redesign had to keep, vs the bare Flask view."""
LIMIT_P99_RATIO: Final = 1.5
LIMIT_BATCH_HANDS_S: Final = 1_000_000
"""Hands per second at the client, a batch of scores only, in either layout (compact or
``json.dumps``' default)."""
LIMIT_BATCH_VS_CORE: Final = 0.5
LIMIT_BREAKDOWN_HANDS_S: Final = 200_000
LIMIT_BATCH_LOOP_US: Final = 1.0
"""Per hand in the batch's table loop, scores only: 3a's limit, kept when its measurement
changed."""
LIMIT_BATCH_LOOP_VS_TREYS: Final = 1.0
LIMIT_VALIDATE_CPU_RATIO: Final = 2.0
LIMIT_READY_S: Final = 0.3
"""A worker without preload, process start to its first 200 on /readyz; also the reference for
a fresh interpreter building the app (the target's strict reading)."""
LIMIT_RSS_MIB: Final = 50.0
"""An idle worker's VmRSS after a few requests, with and without preload."""
LIMIT_CONTAINER_READY_S: Final = 0.6
"""``docker run`` to the first 200 on /readyz: measured by the container test, quoted here."""
LIMIT_ODDS_MS: Final = 5.0

STARTUP_RUNS: Final = 5
"""Start-up figures move from run to run (page cache, scheduler): medians of this many starts."""
STARTUP_RUNS_QUICK: Final = 2
IDLE_SETTLE_S: Final = 1.0
"""Pause between a worker's last request and reading its memory, so that what the requests set
going (the audit writer's flush, freed buffers) has finished."""
CONTAINER_TEST: Final = "scripts/container_start.py, make container-test"
CONTAINER_START_JSON: Final = (
    Path(os.environ.get("QB_DOCKER_ROOT", "/var/tmp/qb-docker")) / "logs" / "container-start.json"
)
"""Where the container test leaves its start-up series' figures, which the bench quotes (5c)."""
