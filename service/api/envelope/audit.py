"""The audit record: one JSON line per request, enough to recall and re-create every verdict.

Each line (on stdout, never a file: the platform collects container output) holds::

    {"ts": "2026-05-10T06:06:10.123456Z", "request_id": "…", "method": "POST",
     "endpoint": "/v1/hands/score", "status": 200, "duration_ms": 0.412,
     "version": "1.0.0", "ruleset": "classic/1", "key_id": "…",
     "body_sha256": "…", "response_sha256": "…", "verdict": {"score": 10}}

- ``request_id``: the client's ``X-Request-ID`` when sane (1 to 128 of ``A-Z a-z 0-9 . _ ~ : / + =
  @ -``), else 32 random hex digits; always echoed in the ``X-Request-ID`` response header.
- ``endpoint``: the route (a fixed set; ``unmatched`` for any other path, whose ``path`` is then
  added, clipped to 200 characters).
- ``body_sha256``: SHA-256 of the request body's **canonical form** (below); for a body that is
  not JSON, of its raw bytes; absent when no body was read (GET, 401, 413, 415).
- ``response_sha256``: SHA-256 of the 200 answer's bytes: a replay by the same version must give
  exactly these bytes.
- ``verdict``: a summary of the 200 answer (``score``; for a batch the hand count, the answer's
  digest covering every score; ``winner`` and ``scores``; ``valid``, ``code``, ``index`` and
  ``pot``; ``pot``, ``winners`` and ``payouts``; ``win``/``tie``/``loss`` for odds), or for a
  refusal ``{"code": <problem code>}``. Bounded: never more than a few hundred bytes.
- ``key_id``: which API key authenticated the request (first 12 hex digits of its SHA-256), when
  API keys are configured. Keys themselves are never logged.

Canonical form of a body: every card at a card position (``/cards/*``, ``/seen/*``,
``/hands/*/cards/*`` and, for ``/v1/rounds/settle``, ``/hands/<player>/*``) spelled in any
accepted alias is replaced by its canonical code (``ts``, ``T♠``, ``10s`` → ``10S``), every trump
(``/trump``, ``/hands/*/trump`` in a batch) by its suit letter (``♥``, ``h`` → ``H``), and the
result is serialised by orjson with keys sorted, no whitespace, UTF-8. Nothing else changes
(absent and ``null`` stay distinct; strings elsewhere, such as player ids, are kept as sent), so
two bodies have one digest exactly when they differ only in key order, spacing, escapes and card
aliases. Anyone holding a body can recompute its digest with ``canonical_body``.

Cost: the key-sorted serialisation is made once by ``http.read_json`` (it also detects repeated
keys); for a batch answered 200, a byte-level test on it tells whether any alias is present at all
(``_batch_uses_aliases``: C-speed passes, no Python per card), so a batch in canonical codes is
hashed as is; only bodies using aliases are rebuilt, one dictionary lookup per card. Small bodies
(one hand, a showdown, a round) are simply rebuilt: a few card lookups. A batch on the happy path
is read without that serialisation at all (``hands._answer_raw``): ``batch_body_digest`` hashes
its raw text when a few byte searches show it is the canonical form but for the top-level order.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING

CANONICAL_CARD: Final[dict[str, str]] = {s: c.code for s, c in CARD_BY_SPELLING.items()}
CANONICAL_SUIT: Final[dict[str, str]] = {s: suit.value for s, suit in SUIT_BY_SPELLING.items()}

REQUEST_ID_HEADER: Final = "X-Request-ID"
_SANE_REQUEST_ID: Final = re.compile(r"[A-Za-z0-9._~:/+=@-]{1,128}")
MAX_PATH_LOGGED: Final = 200
_SORT_KEYS: Final = orjson.OPT_SORT_KEYS
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


# ------------------------------------------------------------------------------ canonical form


def _cards(value: Any) -> Any:
    if type(value) is not list:
        return value
    get = CANONICAL_CARD.get
    return [get(c, c) if type(c) is str else c for c in value]


def _trump(value: Any) -> Any:
    return CANONICAL_SUIT.get(value, value) if type(value) is str else value


def _hand(hand: Any) -> Any:
    """A ``{"cards", "trump"?}`` object (score, batch item, showdown hand, odds)."""
    if type(hand) is not dict:
        return hand
    out = dict(hand)
    if "cards" in out:
        out["cards"] = _cards(out["cards"])
    if "trump" in out:
        out["trump"] = _trump(out["trump"])
    if "seen" in out:
        out["seen"] = _cards(out["seen"])
    return out


def _batch(body: Any) -> Any:
    if type(body) is not dict or type(body.get("hands")) is not list:
        return body
    return {**body, "hands": [_hand(h) for h in body["hands"]]}


def _showdown(body: Any) -> Any:
    if type(body) is not dict:
        return body
    out = dict(body)
    if "trump" in out:
        out["trump"] = _trump(out["trump"])
    if type(out.get("hands")) is list:
        out["hands"] = [_hand(h) for h in out["hands"]]
    return out


def _settle(body: Any) -> Any:
    if type(body) is not dict:
        return body
    out = dict(body)
    if "trump" in out:
        out["trump"] = _trump(out["trump"])
    if type(out.get("hands")) is dict:
        out["hands"] = {player: _cards(cards) for player, cards in out["hands"].items()}
    return out


def _as_sent(body: Any) -> Any:
    return body


# Already canonical? For accepted bodies only (their cards are strings, their trump a string or
# null): a few set lookups, against rebuilding and re-serialising the body.
_CODES: Final = frozenset(CANONICAL_CARD.values())
_TRUMPS: Final = frozenset((None, *CANONICAL_SUIT.values()))


def _hand_is_canonical(hand: Any) -> bool:
    return (
        _CODES.issuperset(hand["cards"])
        and hand.get("trump") in _TRUMPS
        and _CODES.issuperset(hand.get("seen", ()))
    )


def _showdown_is_canonical(body: Any) -> bool:
    return body.get("trump") in _TRUMPS and all(
        _CODES.issuperset(hand["cards"]) for hand in body["hands"]
    )


def _settle_is_canonical(body: Any) -> bool:
    hands = body.get("hands")
    return body.get("trump") in _TRUMPS and (
        hands is None or all(_CODES.issuperset(cards) for cards in hands.values())
    )


def _always(body: Any) -> bool:
    return True


def _never(body: Any) -> bool:
    return False


# The alias test of a batch answered 200 (so accepted by the schema: every string in it is a key
# -- cards, trump, hands, breakdown --, a card or a suit; the only other words are the literals
# null, true and false). ``read_json`` deletes from the key-sorted serialisation every byte that
# canonical codes and JSON punctuation are made of, except the colon, and keeps the rest: the
# *residue*. Without aliases it holds exactly "hands:", "breakdown:" with "true" or "false" when
# present, and per hand "cards:", "trump:" when present and "null" for a null trump -- so its
# length is known from counts of "trump:" and "null" in it. An alias (lower case, "T", a suit
# symbol's UTF-8) adds bytes, and cannot change those counts: "trump:" ends with a colon, which
# only follows a key, and no alias has an "n", "u" or "l". So: aliases present exactly when the
# residue is longer than that. Each step is one C-speed pass over bytes; nothing per card.
_CODE_BYTES: Final = b'{}[],"0123456789JQKASCHD'
"""Deleted from the serialisation to make the residue (the colon stays: see ``colons``)."""


def residue(sorted_body: bytes) -> bytes:
    return sorted_body.translate(None, _CODE_BYTES)


def _batch_uses_aliases(body: Any, rest: bytes) -> bool:
    expected = len(b"hands:") + len(b"cards:") * len(body["hands"])
    expected += len(b"trump:") * rest.count(b"trump:") + len(b"null") * rest.count(b"null")
    if "breakdown" in body:
        expected += len(b"breakdown:") + len(b"true" if body["breakdown"] else b"false")
    return len(rest) != expected


@dataclass(frozen=True, slots=True)
class Kind:
    """How one endpoint's body is canonicalised and its answer summarised."""

    canonical: Callable[[Any], Any]
    """The body with every alias replaced (shape kept; tolerant of any shape)."""
    is_canonical: Callable[[Any], bool]
    """Whether an *accepted* body already is canonical (then its key-sorted form is hashed)."""
    summary: Callable[[Any, Any], dict[str, Any]]
    """A few fields of the 200 answer, from the (accepted) body and the answer's payload."""
    hands: Callable[[Any, Any], int] | None = None
    """Hands scored (for the metrics), from the body and the payload."""
    batch: bool = False
    """Keep a residue of the body for the alias test (``read_json``)."""
    betting: bool = False
    """Count the verdict by reason (metrics)."""


# Summaries read the accepted body and the rendered payload. A batch's answer may be spliced from
# pre-encoded fragments, so its count comes from the body, its scores from ``response_sha256``.


def _summary_score(body: Any, p: Any) -> dict[str, Any]:
    return {"score": p["score"]}


def _summary_batch(body: Any, p: Any) -> dict[str, Any]:
    return {"hands": len(p["results"])}  # one result per hand (a batch read as text has no body)


def _summary_showdown(body: Any, p: Any) -> dict[str, Any]:
    return {"winner": p["winner"], "tie": p["tie"], "scores": [h["score"] for h in p["hands"]]}


def _summary_betting(body: Any, p: Any) -> dict[str, Any]:
    error = p["error"]
    return {
        "valid": p["valid"],
        "code": None if error is None else error["code"],
        "index": None if error is None else error["index"],
        "pot": p["state"]["pot"],
    }


def _summary_settle(body: Any, p: Any) -> dict[str, Any]:
    return {
        "pot": p["pot"],
        "winners": p["winners"],
        "payouts": {x["player"]: x["payout"] for x in p["players"]},
    }


def _summary_odds(body: Any, p: Any) -> dict[str, Any]:
    return {"score": p["score"], "win": p["win"], "tie": p["tie"], "loss": p["loss"]}


def _none(body: Any, p: Any) -> dict[str, Any]:
    return {}


def _one(body: Any, p: Any) -> int:
    return 1


def _two(body: Any, p: Any) -> int:
    return 2


def _batch_hands(body: Any, p: Any) -> int:
    return len(p["results"])


def _settled_hands(body: Any, p: Any) -> int:
    return 0 if p["showdown"] is None else 2


_SHAPE_ERRORS: Final = (KeyError, TypeError, IndexError, AttributeError)


def betting_reason(payload: Any) -> str:
    """The metrics label of a betting verdict: ``valid`` or the first violation's reason code."""
    try:
        error = payload["error"]
        return "valid" if error is None else str(error["code"])
    except _SHAPE_ERRORS:
        return "unknown"


SCORE: Final = Kind(_hand, _hand_is_canonical, _summary_score, _one)
BATCH: Final = Kind(_batch, _never, _summary_batch, _batch_hands, True)
ODDS: Final = Kind(_hand, _hand_is_canonical, _summary_odds, _one)
SHOWDOWN: Final = Kind(_showdown, _showdown_is_canonical, _summary_showdown, _two)
BETTING: Final = Kind(_as_sent, _always, _summary_betting, betting=True)
SETTLE: Final = Kind(_settle, _settle_is_canonical, _summary_settle, _settled_hands)
PLAIN: Final = Kind(_as_sent, _always, _none)
"""Any route that judges nothing: its body is canonical as sent (keys sorted)."""
KINDS: Final[dict[str, Kind]] = {
    "/v1/hands/score": SCORE,
    "/v1/hands/batch-score": BATCH,
    "/v1/hands/odds": ODDS,
    "/v1/showdown": SHOWDOWN,
    "/v1/betting/validate": BETTING,
    "/v1/rounds/settle": SETTLE,
}
"""The verdict kinds by endpoint path, for checking a receipt away from the service
(``service.receipts``, which must not import the web layer). The service itself takes each
route's kind from its endpoint record; a test keeps this table equal to the registry's."""
SIGNED_ROUTES: Final = frozenset(KINDS)
"""The verdict endpoints: their 200 answers carry a signed receipt when a key is configured."""


def canonical_body(path: str, body: Any) -> bytes:
    """The canonical form of a parsed JSON ``body`` sent to ``path`` (see the module docstring)."""
    return orjson.dumps(KINDS.get(path, PLAIN).canonical(body), option=_SORT_KEYS)


def body_digest(kind: Kind, body: Any, sorted_body: bytes, rest: bytes | None, ok: bool) -> str:
    """SHA-256 (hex) of the canonical form, hashing ``sorted_body`` as is when it already is
    canonical: bodies without cards, and accepted (``ok``) bodies without aliases (for a batch,
    as its residue ``rest`` shows)."""
    if kind.canonical is _as_sent or (ok and _canonical_as_sent(kind, body, rest)):
        return hashlib.sha256(sorted_body).hexdigest()
    canonical = orjson.dumps(kind.canonical(body), option=_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()


_BLANKS: Final = (b" ", b"\n", b"\r", b"\t", b"\\")
"""JSON whitespace, and the backslash every escape starts with: none in a canonical text."""
_HANDS_HEAD: Final = b'{"hands":'


_STRUCTURE: Final = bytes(b for b in range(256) if b not in b",[{:")


def structure(data: bytes) -> bytes:
    """The commas, opening brackets and colons of ``data``, in order: one C-speed pass that the
    batch's value budget, its repeated-key test and ``batch_body_digest`` all read."""
    return data.translate(None, _STRUCTURE)


def batch_body_digest(data: bytes, marks: bytes, body: Any, spelled_canonically: bool) -> str:
    """SHA-256 (hex) of an accepted batch's canonical form, from its raw text ``data``, its
    ``structure`` ``marks`` and parsed ``body``, for a text without a repeated key.
    ``spelled_canonically``: every card and trump in it is a canonical code (the batch loop knows,
    having looked each up).

    The canonical form is then the raw text itself, but for the order of the top-level keys,
    whenever the text has no whitespace and no escape, its top level is one of the compact
    layouts below, and no hand names its trump before its cards: what is left of a text the
    schema accepted is exactly what orjson writes (``[{"cards":[...]}``, ``"trump":"S"`` or
    ``null``...). Those are C-speed byte searches; the hash then covers the sorted head and the
    raw hands, with no copy. Any other batch is rebuilt and re-serialised (``canonical_body``)."""
    span = _canonical_hands(data, marks, body) if spelled_canonically else None
    if span is None:
        return hashlib.sha256(orjson.dumps(_batch(body), option=_SORT_KEYS)).hexdigest()
    head, start, end = span
    digest = hashlib.sha256(head)
    digest.update(memoryview(data)[start:end])
    digest.update(b"}")
    return digest.hexdigest()


def _canonical_hands(data: bytes, marks: bytes, body: Any) -> tuple[bytes, int, int] | None:
    """The canonical form's head (``{"breakdown":…,"hands":``) and where the raw text holds the
    canonical hands array, if it does; for an accepted batch spelled canonically, without a
    repeated key."""
    for blank in _BLANKS:
        if blank in data:
            return None
    # No string of such a text holds a comma, bracket or colon, so its marks are its structure:
    # a hand in key order reads "{:[,,," (cards first), one naming its trump first "{:,:[": after
    # the top level's own "{" (followed by "{:,:[" when "breakdown" comes first), never "{:,".
    if marks.find(b"{:,", 1) != -1:
        return None
    if "breakdown" not in body:
        if data.startswith(_HANDS_HEAD + b"[") and data.endswith(b"]}"):
            return _HANDS_HEAD, len(_HANDS_HEAD), len(data) - 1
        return None
    literal = b"true" if body["breakdown"] else b"false"
    head = b'{"breakdown":' + literal + b',"hands":'
    if data.startswith(head + b"[") and data.endswith(b"]}"):
        return head, len(head), len(data) - 1
    tail = b',"breakdown":' + literal + b"}"
    if data.startswith(_HANDS_HEAD + b"[") and data.endswith(b"]" + tail):
        return head, len(_HANDS_HEAD), len(data) - len(tail)
    return None


def _canonical_as_sent(kind: Kind, body: Any, rest: bytes | None) -> bool:
    try:
        if kind.batch:
            return rest is not None and not _batch_uses_aliases(body, rest)
        return kind.is_canonical(body)
    except _SHAPE_ERRORS:  # not the accepted shape after all: rebuild, which never fails
        return False


def summary(kind: Kind, body: Any, payload: Any) -> dict[str, Any]:
    """The verdict summary; ``{}`` if the answer's shape is not the expected one (never fails)."""
    try:
        return kind.summary(body, payload)
    except _SHAPE_ERRORS:
        return {}


def hands_scored(kind: Kind, body: Any, payload: Any) -> int:
    """Hands scored by this answer (0 if the shapes are not the expected ones: never fails)."""
    if kind.hands is None:
        return 0
    try:
        return kind.hands(body, payload)
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


class _Clock:
    """UTC timestamps with microseconds (``2026-05-10T06:06:10.123456Z``): the date and time of
    day are formatted once per second, then only the fraction per line."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def now(self) -> str:
        stamp = time.time()
        second = int(stamp)
        if second != self._second:  # a race only formats the same second twice
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        return f"{self._prefix}.{int((stamp - second) * 1e6):06d}Z"


now = _Clock().now


def fd_sink(fd: int) -> Callable[[bytes], None]:
    """Write each line with one blocking ``write(2)`` on the caller's thread. Not for serving:
    a reader that stops reading would block every request (the service uses ``sink.AuditSink``);
    kept for measuring the envelope's own cost without a writer thread."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    return write
