"""The committed openapi.yaml against the app in-process: every operation, every default check.

Settings (seed, examples per operation, the few narrowed checks and why) are in schemathesis.toml.
The operations are the document's, so the endpoints of the registry are checked to be exactly
those (one missing from the document would never be fuzzed); the number of cases each endpoint
got is printed at the end and checked against a floor.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.registry import ENDPOINTS
from schemathesis import Case
from schemathesis.config import SchemathesisConfig

from tests.api.schemathesis_hooks import NDJSON

ROOT = Path(__file__).resolve().parents[2]
MIN_CASES = 200
"""Floor per operation that takes input. Operations without any (GET of a fixed document) have
a single valid request; they get it plus the coverage phase's wrong-method requests."""

schema = schemathesis.openapi.from_path(
    ROOT / "openapi.yaml", config=SchemathesisConfig.from_path(ROOT / "schemathesis.toml")
)
schema.app = create_app(Config())

CASES: Counter[str] = Counter()
STATUSES: Counter[tuple[str, int]] = Counter()
LABELS = sorted(f"{endpoint.method} {endpoint.path}" for endpoint in ENDPOINTS)
"""Every endpoint of the registry, as schemathesis labels its operation."""


def _operations() -> dict[str, Any]:
    return {op.label: op for op in (r.ok() for r in schema.get_all_operations())}  # type: ignore[union-attr]


def test_every_endpoint_of_the_registry_is_an_operation_fuzzed() -> None:
    assert sorted(_operations()) == LABELS


@pytest.mark.slow
@schema.parametrize()
def test_contract(case: Case[Any]) -> None:
    CASES[case.operation.label] += 1
    response = case.call_and_validate()
    STATUSES[case.operation.label, response.status_code] += 1
    if response.status_code == 200 and response.headers.get("content-type", [""])[0].startswith(
        NDJSON
    ):
        _each_line_conforms(case, response.content)


def _each_line_conforms(case: Case[Any], answer: bytes) -> None:
    """A JSON Lines answer, line by line against the contract's schema of one line (schemathesis
    parses an answer as one document), and its summary last."""
    media = case.operation.definition.raw["responses"]["200"]["content"][NDJSON]
    line_schema = Draft202012Validator(media["schema"])
    lines = [json.loads(line) for line in answer.splitlines()]
    for line in lines:
        line_schema.validate(line)
    assert lines and "summary" in lines[-1]


@pytest.mark.slow
def test_cases_per_operation(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs after the contract tests (same module, defined later): report and check the counts of
    every endpoint of the registry."""
    if not CASES:
        pytest.skip("the contract tests did not run in this session")
    operations = _operations()
    with capsys.disabled():
        print("\nschemathesis cases per operation (and answers by status):")
        for label in LABELS:
            statuses = sorted((status, n) for (op, status), n in STATUSES.items() if op == label)
            answers = ", ".join(f"{status}: {n}" for status, n in statuses)
            print(f"  {CASES[label]:6d}  {label}  ({answers})")
    for label in LABELS:
        operation = operations[label]
        takes_input = operation.body or any(True for _ in operation.iter_parameters())
        if takes_input:
            assert CASES[label] >= MIN_CASES, f"{label}: only {CASES[label]} cases"
            assert STATUSES[label, 200] > 0, f"{label}: no request reached the rules"
        else:
            assert CASES[label] >= 1, f"{label} never ran"
