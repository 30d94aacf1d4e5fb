"""Schemathesis hooks shared by the in-process contract test and the container test's command
line run (``SCHEMATHESIS_HOOKS`` names this file there): the one body schemathesis cannot write
itself, JSON Lines."""

from __future__ import annotations

import json
from typing import Any, Final

import schemathesis

NDJSON: Final = "application/x-ndjson"


@schemathesis.serializer(NDJSON)
def _one_line(_context: Any, value: Any) -> bytes:
    """A JSON Lines body of one generated record (the contract's schema is one line's)."""
    return json.dumps(value).encode() + b"\n"  # stdlib: integers beyond 64 bits too
