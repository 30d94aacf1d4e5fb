"""The corpus as a whole: which files it has, how many cases each holds (``Plan``), and writing
them with their manifest. Nothing in it depends on the clock or the machine: a version, a ruleset
and a seed always write the same bytes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from quart_bezique.game.ruleset import Ruleset

from . import betting, digests, records, scores, settlements, showdowns

FORMAT: Final = "quart-bezique-vectors/1"
"""The corpus's format: raised whenever a file's shape or the manifest's changes."""
DEFAULT_SEED: Final = 0


@dataclass(frozen=True, slots=True)
class Plan:
    """How many cases each file holds. The default is the published corpus; a smaller plan
    makes a smaller corpus of the same form (the tests use one)."""

    hands: int | None = None
    """Lines of ``scores.jsonl`` (None: every hand under every trump, 87,750)."""
    showdowns: int = 2000
    legal_bets: int = 1500
    per_reason: int = 25
    per_setup_error: int = 10
    settlements: int = 1500
    per_refusal: int = 10
    records: int = 1000
    per_record_refusal: int = 10


Cases = Callable[[Ruleset, int, Plan], Iterator[dict[str, Any]]]

FILES: Final[dict[str, Cases]] = {
    "scores.jsonl": lambda r, seed, plan: scores.cases(r, 0, plan.hands),
    "showdowns.jsonl": lambda r, seed, plan: showdowns.cases(r, seed, plan.showdowns),
    "betting.jsonl": lambda r, seed, plan: betting.cases(
        r, seed, plan.legal_bets, plan.per_reason, plan.per_setup_error
    ),
    "settlements.jsonl": lambda r, seed, plan: settlements.cases(
        r, seed, plan.settlements, plan.per_refusal
    ),
    "rounds.jsonl": lambda r, seed, plan: records.cases(
        r, seed, plan.records, plan.per_record_refusal
    ),
}
"""Every file of the corpus, in the manifest's order, with what writes its cases."""


def lines(name: str, ruleset: Ruleset, seed: int, plan: Plan = Plan()) -> Iterator[bytes]:
    """The lines of one file, as written."""
    for case in FILES[name](ruleset, seed, plan):
        yield digests.line(case)


def manifest(
    ruleset: Ruleset, seed: int, version: str, files: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "ruleset": {"id": ruleset.id, "sha256": ruleset.digest},
        "service_version": version,
        "seed": seed,
        "chunk_lines": digests.CHUNK_LINES,
        "files": files,
    }


def manifest_bytes(value: dict[str, Any]) -> bytes:
    """The manifest as written: indented for people, keys sorted, one ``\\n`` at the end."""
    return (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def write_corpus(
    out: Path, ruleset: Ruleset, seed: int, version: str, plan: Plan = Plan()
) -> dict[str, Any]:
    """Write every file and ``manifest.json`` into ``out`` (created if needed); returns the
    manifest. A file is written whole under a temporary name, then renamed, so a stopped run
    never leaves a file that looks complete."""
    out.mkdir(parents=True, exist_ok=True)
    entries: dict[str, dict[str, Any]] = {}
    for name in FILES:
        digester = digests.Digester()
        partial = out / (name + ".partial")
        with partial.open("wb") as file:
            for data in lines(name, ruleset, seed, plan):
                digester.add(data)
                file.write(data)
        partial.replace(out / name)
        entries[name] = digester.entry()
    written = manifest(ruleset, seed, version, entries)
    partial = out / "manifest.json.partial"
    partial.write_bytes(manifest_bytes(written))
    partial.replace(out / "manifest.json")
    return written
