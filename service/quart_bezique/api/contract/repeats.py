"""Repeated keys in a JSON text: the escaped colons the cheap test must count, and the exact check
that names the key when the test finds one.

Two parsers that read a repeated key differently (first or last wins) would adjudicate different
requests from one text; a record-keeping service refuses the ambiguity instead. orjson keeps the
last value silently, so ``reading.repeats_a_key`` compares colon counts, which must include the
colons a string spells as the escape ``\\u003a`` (``escaped_colons``). Only a body with a repeated
key is parsed a second time, by Python's ``json`` (the one parser with a hook on each object's
pairs), to name it; the hook keeps nothing, so that parse never holds a second copy of the body.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from quart_bezique.api.contract.problems import MALFORMED_JSON, Problem, quoting
from quart_bezique.game.messages import N_

_RUN: Final = re.compile(rb"\\+u003[aA]")
"""A run of backslashes, then ``u003a`` (either case): an escaped colon when the run is odd (an
even run is escaped backslashes, then the text ``u003a``)."""
_SHOWN: Final = 40
"""Longest key named in full in the refusal."""


def escaped_colons(data: bytes) -> int:
    """The colons ``data`` (a valid JSON text) spells as escapes. Without two backslashes before
    a ``u003``, every ``\\u003a`` is an escape and C-speed counts suffice; otherwise each run of
    backslashes is measured."""
    if b"\\\\u003" not in data:
        return data.count(b"\\u003a") + data.count(b"\\u003A")
    return sum((len(run) - 5) % 2 for run in _RUN.findall(data))


def refuse_repeated_key(data: bytes) -> None:
    """A 400 naming the first key repeated in an object (objects are met as they close, innermost
    first), if any."""

    def pairs(items: list[tuple[str, Any]]) -> None:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                shown = key if len(key) <= _SHOWN else key[: _SHOWN - 1] + "…"
                template = N_("the body repeats the key {key} in one object")
                raise Problem(MALFORMED_JSON, quoting(template, {"key": json.dumps(shown)}))
            seen.add(key)

    try:
        json.loads(data, object_pairs_hook=pairs)
    except (RecursionError, ValueError):  # pragma: no cover - orjson accepted it already
        raise Problem(MALFORMED_JSON, N_("the body is not valid JSON")) from None
