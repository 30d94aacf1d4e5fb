"""One road per request: each answered or refused verdict request reads its body once, parses it
once, loads it through its validator at most once and enters the rules core at most once
(counted with ``sys.setprofile`` by ``scripts/road_counts.py``, in a fresh interpreter). The one
exception is deliberate: a batch its typed decoder refuses is parsed again for the schema to
explain it, since a typed decoder keeps nothing of a body it refuses (docs/performance.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scripts.road_counts import CASES, KINDS, measure

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def counts() -> dict[str, dict[str, Any]]:
    return measure(ROOT)


@pytest.mark.parametrize("name", [name for name, _, _ in CASES])
def test_each_request_takes_one_road(counts: dict[str, dict[str, Any]], name: str) -> None:
    found = counts[name]
    assert found["reads"] == 1, found  # every case sends a body, read exactly once
    assert found["parses"] == (2 if name == "batch refused" else 1), found
    assert all(found[kind] <= 1 for kind in KINDS if kind != "parses"), found
    refused = "refused" in name
    assert found["status"] == ("422" if refused else "200"), found
    if refused:  # only a refusal is explained by the validator (the core's own refusals aside)
        assert found["loads"] == (0 if "(setup)" in name else 1), found
    elif not name.startswith("odds"):  # odds loads every body: its schema fills the defaults
        assert found["loads"] == 0, found
    judged = not refused or "(setup)" in name
    assert found["core"] == (1 if judged else 0), found
