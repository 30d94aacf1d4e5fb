"""Shared test settings: the repository root, for tests that read committed files, and one
Hypothesis profile for the whole suite.

The profile makes every property test deterministic (``derandomize``: the same examples on every
run, on every machine) and takes timing out of it (no ``deadline``, no too-slow health check): a
test that fails only under a loaded CPU, or only on one run in fifty, is a bug in the test. Set
``HYPOTHESIS_PROFILE=explore`` to search new examples locally.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

settings.register_profile(
    "deterministic",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT
