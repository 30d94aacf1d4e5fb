"""``make loadtest-open`` runs end to end: a short run starts the service, builds the mix from
the contract's examples, measures a capacity and three steps, and every request of every step is
answered 200 (timings are not asserted: they are the script's output, not its correctness)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.harness.server import REPO


@pytest.mark.slow
def test_a_short_open_model_run_answers_every_request(tmp_path: Path) -> None:
    figures = tmp_path / "open-model.json"
    run = subprocess.run(
        [sys.executable, "-m", "scripts.loadtest.open_model", "--step-seconds", "1",
         "--saturation", "1", "--warmup", "0.5", "--json", str(figures)],
        cwd=REPO, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    steps = json.loads(figures.read_text())
    assert [step["name"] for step in steps] == ["capacity", "50%", "80%", "100%"]
    for step in steps:
        assert step["sent"] > 0 and step["ok"] > 0, step
        assert step["errors"] == 0, step
        assert step["p50_ms"] is not None and step["p50_ms"] <= step["p99_ms"], step
    assert "target at 80% of capacity" in run.stdout
