"""Rewrite the docs' generated blocks from the code: answers, the canonical forms, the manifest.

A hand-written example goes stale the day a message or a dependency changes, and an auditor who
follows the page then sees another answer than the page shows. Each block of docs/api.md and
docs/verification.md that follows a ``<!-- doc_examples: ... -->`` marker is written here from
the app's test client, ``quart_bezique.wire.canonical.FORMS`` or the installed build's manifest.
Run ``python -m scripts.doc_examples`` after changing any of them (it rewrites only what differs,
so a second run changes nothing); ``--check`` exits 1 naming the blocks that differ, and
``tests/test_docs_generated.py`` fails while one does.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from marshmallow import fields
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.contract.fields import HandsByPlayer
from quart_bezique.api.contract.schemas import request_schemas
from quart_bezique.api.openapi import example_manifest
from quart_bezique.api.registry import ENDPOINTS
from quart_bezique.game.cards import CARDS, SUITS
from quart_bezique.integrity import current_manifest
from quart_bezique.wire.canonical import FORMS, form_of

ROOT: Final = Path(__file__).resolve().parent.parent
DOCS: Final = (ROOT / "docs" / "api.md", ROOT / "docs" / "verification.md")
MARKER: Final = re.compile(r"^<!-- doc_examples: (.*) -->$")
END: Final = "end"
CARD_PROBE: Final = "ts"
"""A card in an alias spelling (``10S``): a card position rewrites it."""
TRUMP_PROBE: Final = "♠"
"""A suit in an alias spelling (``S``): a trump position rewrites it."""
ANY_INDEX: Final = "*"
ANY_KEY: Final = "{player id}"


# ------------------------------------------------------------------------------------------------
# The canonical forms, probed from FORMS
# ------------------------------------------------------------------------------------------------


def _probe(field: Any, text: str, pointer: str, leaves: list[str]) -> Any:
    """A value for marshmallow ``field`` whose every string is ``text``; ``leaves`` gets the
    pointer of each (``*`` for any index, ``{player id}`` for any key of a map)."""
    if isinstance(field, fields.Nested):
        schema = field.schema
        return {
            name: _probe(inner, text, f"{pointer}/{name}", leaves)
            for name, inner in schema.fields.items()
        }
    if isinstance(field, fields.List):
        return [_probe(field.inner, text, f"{pointer}/{ANY_INDEX}", leaves)]
    if isinstance(field, HandsByPlayer):
        return {"p": [_probe(field.hand.inner, text, f"{pointer}/{ANY_KEY}/{ANY_INDEX}", leaves)]}
    if isinstance(field, fields.String):
        leaves.append(pointer)
        return text
    return None


def _at(value: Any, pointer: str) -> Any:
    """The value at ``pointer`` of a probe (each ``*`` or key pattern: the only entry)."""
    for part in pointer.split("/")[1:]:
        if isinstance(value, list):
            value = value[0]
        elif part == ANY_KEY:
            value = next(iter(value.values()))
        else:
            value = value[part]
    return value


@dataclass(frozen=True)
class Positions:
    cards: tuple[str, ...]
    trumps: tuple[str, ...]
    strings: tuple[str, ...]
    """Every string position of the request schema, rewritten or not."""


def request_schema(path: str) -> Any:
    """The request schema (an instance) the app serves at ``path``, under the default limits."""
    (endpoint,) = [e for e in ENDPOINTS if e.path == path and e.operation.request is not None]
    request = endpoint.operation.request
    assert request is not None
    schema_class = request if isinstance(request, type) else request(request_schemas(Config()))
    return schema_class()


def positions(path: str) -> Positions:
    """Which string positions of ``path``'s request ``FORMS`` rewrites as cards, and as trumps:
    every string of a maximal body set to an alias, then compared with its canonical form."""
    schema = request_schema(path)
    whole = fields.Nested(type(schema))
    found: dict[str, tuple[str, ...]] = {}
    strings: list[str] = []
    for name, probe, canonical in (
        ("cards", CARD_PROBE, "10S"),
        ("trumps", TRUMP_PROBE, "S"),
    ):
        leaves: list[str] = []
        body = _probe(whole, probe, "", leaves)
        rewritten = form_of(path).canonical(body)
        found[name] = tuple(p for p in leaves if _at(rewritten, p) == canonical)
        strings = leaves
    return Positions(found["cards"], found["trumps"], tuple(strings))


def canonical_forms() -> str:
    """The table of every verdict endpoint's card and trump positions, and how they are written."""

    def shown(pointers: tuple[str, ...]) -> str:
        return ", ".join(f"`{p}`" for p in pointers) or "none"

    rows = ["| endpoint | card positions | trump positions | other strings, kept as sent |"]
    rows.append("|---|---|---|---|")
    for path in FORMS:
        found = positions(path)
        others = tuple(p for p in found.strings if p not in found.cards + found.trumps)
        rows.append(
            f"| `POST {path}` | {shown(found.cards)} | {shown(found.trumps)} | {shown(others)} |"
        )
    codes = " ".join(f"`{card.code}`" for card in CARDS)
    suits = " ".join(f"`{suit.value}`" for suit in SUITS)
    prose = textwrap.fill(
        f"A card at a card position is written as its code, rank then suit letter: {codes}. "
        f"A trump is written as its suit letter ({suits}) or stays `null`. Positions are JSON "
        f"pointers: `{ANY_INDEX}` is any index of an array, `{ANY_KEY}` any key of the map. "
        "Every object's keys are sorted by code point, at every depth; there is no whitespace "
        "at all (`,` and `:` only); strings are UTF-8, non-ASCII characters as themselves.",
        width=100,
        break_on_hyphens=False,
        break_long_words=False,
    )
    return "\n".join([*rows, "", prose])


# ------------------------------------------------------------------------------------------------
# The build manifest
# ------------------------------------------------------------------------------------------------


def manifest_example() -> str:
    """The canonical manifest as ``GET /v1/build``'s example shows it: the installed build's own,
    its files cut to the example's few whose bytes are the same on every machine."""
    return example_manifest(current_manifest()).canonical().decode("utf-8")


# ------------------------------------------------------------------------------------------------
# Answers
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


def exchange(spec: str) -> Exchange:
    """``METHOD PATH [Header=value ...] [JSON body]``: the request whose answer the block shows."""
    words = spec.split(" ")
    method, path, rest = words[0], words[1], words[2:]
    headers = {}
    while rest and not rest[0].startswith(("{", "[")) and "=" in rest[0]:
        name, _, value = rest.pop(0).partition("=")
        headers[name] = value
    body = json.loads(" ".join(rest)) if rest else None
    return Exchange(method, path, headers, body)


@cache
def _client() -> Any:

    return create_app(Config(), audit_sink=lambda line: None).test_client()


def answer(spec: str) -> str:
    """The exact body the service answers ``spec`` with (default configuration, no keys)."""
    asked = exchange(spec)
    response = _client().open(
        asked.path, method=asked.method, headers=dict(asked.headers), json=asked.body
    )
    text: str = response.get_data(as_text=True)
    return text


# ------------------------------------------------------------------------------------------------
# Blocks
# ------------------------------------------------------------------------------------------------

GENERATORS: Final[dict[str, Callable[[], str]]] = {
    "canonical-forms": canonical_forms,
    "manifest": manifest_example,
}


def generate(spec: str) -> str:
    generator = GENERATORS.get(spec)
    return generator() if generator is not None else answer(spec)


@dataclass(frozen=True)
class Block:
    spec: str
    start: int
    """Index of the block's first line (after the marker)."""
    end: int
    """Index after its last line."""
    fenced: str | None
    """The fence's language, or None for a block closed by ``<!-- doc_examples: end -->``."""


def blocks(lines: list[str]) -> Iterator[Block]:
    for index, line in enumerate(lines):
        match = MARKER.match(line.strip())
        if match is None or match.group(1) == END:
            continue
        start = index + 1
        if lines[start].startswith("```"):
            end = start + 1
            while lines[end].strip() != "```":
                end += 1
            yield Block(match.group(1), start, end + 1, lines[start][3:])
        else:
            end = start
            while lines[end].strip() != f"<!-- doc_examples: {END} -->":
                end += 1
            yield Block(match.group(1), start, end, None)


def rendered(block: Block, content: str) -> list[str]:
    if block.fenced is None:
        return content.splitlines()
    return [f"```{block.fenced}", *content.splitlines(), "```"]


def rewrite(text: str) -> tuple[str, list[str]]:
    """``text`` with every generated block as the code writes it now, and the specs that
    differed."""
    lines = text.split("\n")
    changed: list[str] = []
    for block in reversed(list(blocks(lines))):
        fresh = rendered(block, generate(block.spec))
        if lines[block.start : block.end] != fresh:
            changed.append(block.spec)
            lines[block.start : block.end] = fresh
    return "\n".join(lines), changed[::-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on a drift")
    args = parser.parse_args(argv)
    drifted = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        new, changed = rewrite(text)
        drifted += [f"{doc.relative_to(ROOT)}: {spec}" for spec in changed]
        if changed and not args.check:
            doc.write_text(new, encoding="utf-8")
    for line in drifted:
        print(("differs: " if args.check else "rewritten: ") + line)
    return 1 if drifted and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
