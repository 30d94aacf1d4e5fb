"""The audit record: one JSON line per request, enough to recall and re-create every verdict.

A platform that must answer a dispute needs, for each verdict, who asked (``request_id``,
``key_id``), what was asked (``body_sha256``, the digest of the body's canonical form from
``quart_bezique.wire.canonical``, the one a receipt signs) and what was answered
(``response_sha256`` and a short ``verdict``). This module makes those fields and the line that
carries them, safe from client text that would break or forge a line; docs/operations.md, "The audit
record", defines each field, and docs/verification.md the canonical form.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from quart_bezique.wire.clock import now as now

REQUEST_ID_HEADER: Final = "X-Request-ID"
_SANE_REQUEST_ID: Final = re.compile(r"[A-Za-z0-9._~:/+=@-]{1,128}")
MAX_PATH_LOGGED: Final = 200
_LINE: Final = orjson.OPT_APPEND_NEWLINE


class _RequestIds:
    """Fresh request ids: 16 random hex digits drawn once per process, then a 16-digit counter.

    Unique without coordination (2^64 prefixes between workers and pods), and cheaper than a
    random draw per request; the prefix is drawn again in every forked child, so two gunicorn
    workers never share one.
    """

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._prefix = os.urandom(8).hex()
        self._counter = itertools.count(1)

    def next(self) -> str:
        return f"{self._prefix}{next(self._counter):016x}"


_ids = _RequestIds()


def request_id(sent: str | None) -> str:
    """The client's request id if it is sane (short, no spaces or control characters), else a
    fresh one."""
    if sent is not None and _SANE_REQUEST_ID.fullmatch(sent) is not None:
        return sent
    return _ids.next()


@dataclass(frozen=True, slots=True)
class Kind:
    """How one endpoint's answers are summarised for the audit line and counted for metrics."""

    summary: Callable[[Any], dict[str, Any]]
    """A few fields of the 200 answer, from its payload."""
    hands: Callable[[Any], int] | None = None
    """Hands scored (for the metrics), from the payload."""
    betting: bool = False
    """Count the verdict by reason (metrics)."""


# Summaries read the rendered payload only. A batch's results may be pre-encoded fragments, so its
# summary is their count; its scores are in ``response_sha256``.


def _summary_score(p: Any) -> dict[str, Any]:
    return {"score": p["score"]}


def _summary_batch(p: Any) -> dict[str, Any]:
    return {"hands": len(p["results"])}


def _summary_showdown(p: Any) -> dict[str, Any]:
    return {"winner": p["winner"], "tie": p["tie"], "scores": [h["score"] for h in p["hands"]]}


def _summary_betting(p: Any) -> dict[str, Any]:
    error = p["error"]
    return {
        "valid": p["valid"],
        "code": None if error is None else error["code"],
        "index": None if error is None else error["index"],
        "pot": p["state"]["pot"],
    }


def _summary_settle(p: Any) -> dict[str, Any]:
    return {
        "pot": p["pot"],
        "winners": p["winners"],
        "payouts": {x["player"]: x["payout"] for x in p["players"]},
    }


def _summary_round(p: Any) -> dict[str, Any]:
    settled = p["settlement"]
    claim = p["claim"]
    return {
        "round_id": p["round_id"],
        "valid": p["betting"]["valid"],
        "winners": None if settled is None else settled["winners"],
        "matches": None if claim is None else claim["matches"],
    }


def _summary_odds(p: Any) -> dict[str, Any]:
    return {"score": p["score"], "win": p["win"], "tie": p["tie"], "loss": p["loss"]}


def _none(p: Any) -> dict[str, Any]:
    return {}


def _one(p: Any) -> int:
    return 1


def _two(p: Any) -> int:
    return 2


def _batch_hands(p: Any) -> int:
    return len(p["results"])


def _round_hands(p: Any) -> int:
    return len(p["hands"])


def _settled_hands(p: Any) -> int:
    return 0 if p["showdown"] is None else 2


_SHAPE_ERRORS: Final = (KeyError, TypeError, IndexError, AttributeError)


def betting_reason(payload: Any) -> str:
    """The metrics label of a betting verdict: ``valid`` or the first violation's reason code."""
    try:
        error = payload["error"]
        return "valid" if error is None else str(error["code"])
    except _SHAPE_ERRORS:
        return "unknown"


SCORE: Final = Kind(_summary_score, _one)
BATCH: Final = Kind(_summary_batch, _batch_hands)
ODDS: Final = Kind(_summary_odds, _one)
SHOWDOWN: Final = Kind(_summary_showdown, _two)
BETTING: Final = Kind(_summary_betting, betting=True)
SETTLE: Final = Kind(_summary_settle, _settled_hands)
ROUND_RECORD: Final = Kind(_summary_round, _round_hands)
PLAIN: Final = Kind(_none)
"""Any route that judges nothing."""


def summary(kind: Kind, payload: Any) -> dict[str, Any]:
    """The verdict summary; ``{}`` if the answer's shape is not the expected one (never fails)."""
    try:
        return kind.summary(payload)
    except _SHAPE_ERRORS:
        return {}


def hands_scored(kind: Kind, payload: Any) -> int:
    """Hands scored by this answer (0 if the shapes are not the expected ones: never fails)."""
    if kind.hands is None:
        return 0
    try:
        return kind.hands(payload)
    except _SHAPE_ERRORS:
        return 0


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_UNSAFE: Final = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]")
"""What orjson writes raw and a line splitter may cut at: DEL, the C1 controls (U+0080-U+009F,
two bytes in UTF-8, U+0085 being NEL) and U+2028/U+2029. In valid UTF-8 these byte sequences
are always exactly those characters (0xC2 and 0xE2 only ever lead a character)."""


def _escape(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match[0].decode())


def line(fields: dict[str, Any]) -> bytes:
    """One audit line: ``fields`` as compact JSON, newline-terminated, with no character a
    Unicode-aware line splitter (``str.splitlines``, log tools, JavaScript) takes for a line end.

    orjson escapes the C0 controls (U+0000-U+001F) but writes DEL, the C1 controls and U+2028/
    U+2029 raw: those are escaped here as ``\\uXXXX``, for every field and key, so no
    client-supplied text can break or forge a line. They only occur inside strings (everything
    else orjson writes is ASCII punctuation, digits and literals), so the JSON stays valid and
    reads back as sent. A line that is pure ASCII without DEL (nearly all) is returned as is."""
    data = orjson.dumps(fields, option=_LINE)
    if data.isascii() and b"\x7f" not in data:
        return data
    return _UNSAFE.sub(_escape, data)
