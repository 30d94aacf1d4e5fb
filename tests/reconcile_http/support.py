"""What the streaming endpoint's tests share: the records they send and how they read answers."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Final

import orjson

REPO: Final = Path(__file__).resolve().parents[2]
PATH: Final = "/v1/rounds/reconcile"
NDJSON: Final = "application/x-ndjson"
API_KEY: Final = "reconcile-http-key-0123456789abcdef"
AUTH: Final = {"Authorization": f"Bearer {API_KEY}"}
EXAMPLES: Final = REPO / "examples" / "rounds" / "rounds.jsonl"


def records() -> list[bytes]:
    """The example records, one line each (without its newline): matching, differing, a tie
    carried, an illegal betting."""
    return [line for line in EXAMPLES.read_bytes().splitlines() if line.strip()]


def jsonl(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def answer_lines(data: bytes) -> list[dict[str, Any]]:
    """An answer's lines, parsed; every line of it must be a whole JSON object."""
    assert data.endswith(b"\n"), data[-200:]
    return [orjson.loads(line) for line in data.split(b"\n")[:-1]]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def big_claim_record(size: int) -> bytes:
    """A record whose betting is illegal and whose claim is large (a showdown winner's name of
    ``size`` characters): its answer line repeats the whole claim (one difference at ``""``),
    so the answer is as large as the body, and it costs little to judge."""
    record = orjson.loads(records()[3])
    record["claimed"] = {"showdown": {"winner": "w" * size}}
    return orjson.dumps(record)
