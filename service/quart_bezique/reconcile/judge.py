"""One chunk of an archive's lines judged in a worker process, its report lines made there too.

A worker returns the report's bytes for its chunk, not verdict objects: what crosses the process
boundary is what will be written, so the parent only counts, orders and appends. Each line is
read exactly as the service reads a request body (``parse``: a repeated key, NaN or a nesting too
deep is refused, never resolved), then as ``read_record`` reads a record, and judged by the
reference (``adjudicate_record``), so a line is reported here exactly when
``quart-bezique adjudicate`` would disagree with it or refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import orjson
from marshmallow import Schema

from quart_bezique.api.config import Config
from quart_bezique.api.contract.problems import Problem
from quart_bezique.api.contract.reading import load, parse, too_large
from quart_bezique.rounds import RecordError, RoundRecord, adjudicate_record
from quart_bezique.rounds.record import accepted, record_schemas

MAX_LINE_BYTES: Final = Config().max_body_bytes
"""The longest line judged: the service's own body limit (a longer one is refused as the
service refuses such a body, with its code, and is never held in memory whole)."""

Line = tuple[int, bytes | None]
"""A line's number (from 1, the file's own) and its bytes; None: longer than the limit."""


@dataclass(frozen=True, slots=True)
class Tally:
    """What a run (or a chunk of it) found; ``records`` is the sum of the four kinds."""

    records: int = 0
    matching: int = 0
    """Records whose claim is the reference outcome."""
    disagreeing: int = 0
    """Records whose claim differs from the reference in at least one member."""
    unreadable: int = 0
    """Lines the reader refuses (not JSON, not a record the service would judge)."""
    unclaimed: int = 0
    """Records that claim nothing (no ``claimed``): judged, nothing to compare."""
    differences: int = 0
    """Report lines of disagreement (a record may differ in several members)."""

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.records + other.records,
            self.matching + other.matching,
            self.disagreeing + other.disagreeing,
            self.unreadable + other.unreadable,
            self.unclaimed + other.unclaimed,
            self.differences + other.differences,
        )

    @property
    def clean(self) -> bool:
        """Nothing to report: every claim matched (or was absent) and every line was read."""
        return self.disagreeing == 0 and self.unreadable == 0


@dataclass(frozen=True, slots=True)
class Judged:
    """A chunk's verdicts: its counts and its report lines (JSON Lines, in input order)."""

    tally: Tally
    report: bytes


def judge_chunk(lines: Sequence[Line], ruleset: str | dict[str, Any] | None = None) -> Judged:
    """Judge every line of the chunk (``ruleset``: replaces each record's own, as the command's
    ``--ruleset`` does). Never raises for a line: a bad line is a report line."""
    out = bytearray()
    matching = disagreeing = unreadable = unclaimed = differences = 0
    for number, text in lines:
        found = _judge(number, text, ruleset)
        if found is None:
            unclaimed += 1
        elif isinstance(found, _Unreadable):
            unreadable += 1
            out += found.line
        elif not found:
            matching += 1
        else:
            disagreeing += 1
            differences += len(found)
            out += b"".join(found)
    tally = Tally(len(lines), matching, disagreeing, unreadable, unclaimed, differences)
    return Judged(tally, bytes(out))


@dataclass(frozen=True, slots=True)
class _Unreadable:
    line: bytes


def _judge(
    number: int, text: bytes | None, ruleset: str | dict[str, Any] | None
) -> list[bytes] | _Unreadable | None:
    """The report lines of one line's disagreements (empty: it matches), its unreadable line,
    or None when it claims nothing."""
    if text is None:
        problem = too_large(MAX_LINE_BYTES)
        return _unreadable(number, problem.code, "", problem.detail, None)
    try:
        data = parse(text)
    except Problem as problem:
        return _unreadable(number, problem.code, "", problem.detail, None)
    if ruleset is not None and isinstance(data, dict):
        data = {**data, "ruleset": ruleset}
    try:
        verdict = adjudicate_record(_read(data))
    except RecordError as error:
        first = (error.problem.errors or [{}])[0]
        pointer = str(first.get("pointer", ""))
        return _unreadable(number, error.code, pointer, str(error), _round_id(data))
    if verdict.differences is None:
        return None
    round_id = verdict.record.round_id
    return [
        _line(
            {
                "type": "difference",
                "line": number,
                "round_id": round_id,
                "field": d.field,
                "claimed": d.claimed,
                "reference": d.reference,
            }
        )
        for d in verdict.differences
    ]


@cache
def _reader() -> Schema:
    """The record's schema, one instance per process, as the endpoint keeps one."""
    return record_schemas().record()


def _read(data: Any) -> RoundRecord:
    """``read_record``'s reading (the same schema, then the same core checks) with one schema
    instance for every line: ``read_record`` makes a new one per call, and the contract's
    guard keeps each instance it meets (its plans are cached by identity), so a million calls
    would keep a million schemas: memory that grows with the file."""
    try:
        loaded = load(_reader(), data)
    except Problem as problem:
        raise RecordError(problem) from None
    return accepted(loaded)


def _unreadable(
    number: int, code: str, pointer: str, message: str, round_id: str | None
) -> _Unreadable:
    entry = {
        "type": "unreadable",
        "line": number,
        "round_id": round_id,
        "code": code,
        "pointer": pointer,
        "message": str(message),
    }
    return _Unreadable(_line(entry))


def _round_id(data: Any) -> str | None:
    """A refused record's ``context.round_id`` when it can be found, so the platform can look
    the round up (the reader may have refused that very member: then only if it is text)."""
    context = data.get("context") if isinstance(data, Mapping) else None
    found = context.get("round_id") if isinstance(context, Mapping) else None
    return found if isinstance(found, str) else None


def _line(entry: Mapping[str, Any]) -> bytes:
    return orjson.dumps(entry) + b"\n"
