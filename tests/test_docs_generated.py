"""The docs' generated blocks are what the code writes now (``python -m scripts.doc_examples``).

A page that shows another answer, another canonical form or another manifest than the service's
misleads the integrator or the auditor who follows it; these tests fail until the script is run
again, and check that what it writes is taken from the code (change the code, the block moves).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from quart_bezique.integrity import current_manifest
from quart_bezique.wire import canonical

from scripts import doc_examples

ROOT = Path(__file__).resolve().parent.parent


def _generated(doc: Path) -> dict[str, str]:
    lines = doc.read_text(encoding="utf-8").split("\n")
    return {b.spec: "\n".join(lines[b.start : b.end]) for b in doc_examples.blocks(lines)}


@pytest.mark.parametrize("doc", doc_examples.DOCS, ids=lambda d: d.name)
def test_every_generated_block_is_what_the_code_writes_now(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    new, changed = doc_examples.rewrite(text)
    assert changed == [], "run: python -m scripts.doc_examples"
    assert new == text


def test_each_page_has_its_generated_blocks() -> None:
    api, verification = (_generated(doc) for doc in doc_examples.DOCS)
    assert {"canonical-forms", "manifest"} <= set(verification)
    answers = [spec for spec in api if spec.startswith("POST ")]
    assert len(answers) >= 2 and any("Accept-Language=ru" in spec for spec in answers)


def test_rewriting_is_idempotent_and_repairs_a_stale_block() -> None:
    doc = doc_examples.DOCS[0]
    text = doc.read_text(encoding="utf-8")
    spec = next(s for s in _generated(doc) if s.startswith("POST "))
    fence = text.index("```json\n", text.index(f"<!-- doc_examples: {spec} -->")) + len("```json\n")
    stale = text[:fence] + '{"stale": true}\n' + text[text.index("```", fence) :]
    repaired, changed = doc_examples.rewrite(stale)
    assert changed == [spec]
    assert repaired == text
    assert doc_examples.rewrite(repaired) == (text, [])


def test_an_answer_block_is_the_services_exact_body() -> None:
    spec = next(s for s in _generated(doc_examples.DOCS[0]) if "Accept-Language=ru" in s)
    shown = _generated(doc_examples.DOCS[0])[spec].split("\n")[1]
    document: dict[str, Any] = json.loads(shown)
    assert document["status"] == 422
    assert document["title"] != "Invalid request"  # the Russian answer, as asked
    assert shown == doc_examples.answer(spec)


def test_the_canonical_table_follows_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _generated(doc_examples.DOCS[1])["canonical-forms"]
    for path in canonical.FORMS:
        assert f"| `POST {path}` |" in table
    assert "| `POST /v1/hands/score` | `/cards/*` | `/trump` |" in table
    # the table is probed from FORMS: an endpoint whose form rewrites nothing loses its positions
    monkeypatch.setitem(canonical.FORMS, canonical.SCORE_PATH, canonical.AS_SENT)
    assert doc_examples.positions(canonical.SCORE_PATH).cards == ()
    assert doc_examples.canonical_forms() != table


def test_every_card_position_of_a_schema_is_rewritten() -> None:
    """The schema's card fields and FORMS agree: no card a client may alias is hashed as sent."""
    from quart_bezique.api.contract.fields import CardField, HandsByPlayer

    for path in canonical.FORMS:
        found = doc_examples.positions(path)
        declared = _card_fields(doc_examples.request_schema(path), "", (CardField, HandsByPlayer))
        assert sorted(found.cards) == sorted(declared), path


def _card_fields(schema: Any, pointer: str, kinds: tuple[type, ...]) -> list[str]:
    from marshmallow import fields

    found: list[str] = []
    for name, field in schema.fields.items():
        where = f"{pointer}/{name}"
        inner = field.inner if isinstance(field, fields.List) else field
        suffix = "/*" if isinstance(field, fields.List) else ""
        if isinstance(inner, fields.Nested):
            found += _card_fields(inner.schema, where + suffix, kinds)
        elif isinstance(inner, kinds[1]):
            found.append(f"{where}/{doc_examples.ANY_KEY}/*")
        elif isinstance(inner, kinds[0]):
            found.append(where + suffix)
    return found


def test_the_manifest_example_is_the_real_manifest_cut_short() -> None:
    shown = json.loads(_generated(doc_examples.DOCS[1])["manifest"].split("\n")[1])
    real = json.loads(current_manifest().canonical())
    assert list(shown) == list(real)
    assert shown["dependencies"] == real["dependencies"]
    assert shown["format"] == real["format"]
    assert (shown["ruleset"], shown["version"]) == (real["ruleset"], real["version"])
    assert shown["files"] and all(real["files"][k] == v for k, v in shown["files"].items())
