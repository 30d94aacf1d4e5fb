"""One error table (``PROBLEM_TYPES``): the contract's description and problem responses and the
table of ``docs/api.md`` are all generated from it, so none can drift from the others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from quart_bezique.api.contract.problems import (
    PROBLEM_TYPES,
    problem_table,
    problems_by_status,
    shown_code,
)
from quart_bezique.api.openapi import PROBLEM_RESPONSES

DOCS_API = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def _spec(app: Flask) -> dict[str, Any]:
    spec: dict[str, Any] = app.extensions["quart_bezique"].spec
    return spec


def test_every_problem_type_says_when_it_is_given() -> None:
    assert len({kind.code for kind in PROBLEM_TYPES}) == len(PROBLEM_TYPES)
    for kind in PROBLEM_TYPES:
        assert kind.when.strip(), kind.code
        assert 400 <= kind.status < 600


def test_the_docs_table_is_the_generated_one() -> None:
    """After changing a problem type, paste ``problem_table()`` into docs/api.md."""
    assert problem_table() in DOCS_API.read_text(encoding="utf-8")


def test_the_contract_describes_every_problem_type(app: Flask) -> None:
    description = _spec(app)["info"]["description"]
    for kind in PROBLEM_TYPES:
        assert f"| {kind.status} | {shown_code(kind)} | {kind.when} |" in description


def test_each_problem_response_lists_its_types(app: Flask) -> None:
    responses = _spec(app)["components"]["responses"]
    listed: set[int] = set()
    for name, statuses in PROBLEM_RESPONSES.values():
        assert responses[name]["description"] == problems_by_status(statuses)
        listed.update(statuses)
    assert {kind.status for kind in PROBLEM_TYPES} <= listed
