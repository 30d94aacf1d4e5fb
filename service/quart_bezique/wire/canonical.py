"""The canonical form of a request body and its digest: one function for every road.

Two bodies that differ only in key order, spacing, escapes or card aliases ask the same question,
so the audit line, the receipt and a later re-adjudication must name them by the same digest. The
form is defined per verdict endpoint (which members are cards and trumps), and this table of
verdict paths is the only one: the endpoints, the envelope and the receipts all read it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from quart_bezique.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING

CANONICAL_CARD: Final[dict[str, str]] = {s: c.code for s, c in CARD_BY_SPELLING.items()}
CANONICAL_SUIT: Final[dict[str, str]] = {s: suit.value for s, suit in SUIT_BY_SPELLING.items()}
CODES: Final = frozenset(CANONICAL_CARD.values())
TRUMPS: Final = frozenset((None, *CANONICAL_SUIT.values()))
_SORT_KEYS: Final = orjson.OPT_SORT_KEYS

SCORE_PATH: Final = "/v1/hands/score"
BATCH_PATH: Final = "/v1/hands/batch-score"
ODDS_PATH: Final = "/v1/hands/odds"
SHOWDOWN_PATH: Final = "/v1/showdown"
BETTING_PATH: Final = "/v1/betting/validate"
SETTLE_PATH: Final = "/v1/rounds/settle"
ROUND_PATH: Final = "/v1/rounds/adjudicate"


def _cards(value: Any) -> Any:
    if type(value) is not list:
        return value
    get = CANONICAL_CARD.get
    return [get(c, c) if type(c) is str else c for c in value]


def _trump(value: Any) -> Any:
    return CANONICAL_SUIT.get(value, value) if type(value) is str else value


def _hand(hand: Any) -> Any:
    """A ``{"cards", "trump"?, "seen"?}`` object (score, batch item, showdown hand, odds)."""
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


def _round(body: Any) -> Any:
    """A round record: the settle body's cards and trump, and those of a claimed showdown."""
    out = _settle(body)
    if type(out) is dict and type(out.get("claimed")) is dict and "showdown" in out["claimed"]:
        claimed = out["claimed"]
        out["claimed"] = {**claimed, "showdown": _showdown(claimed["showdown"])}
    return out


def _as_sent(body: Any) -> Any:
    return body


def _hand_is_canonical(hand: Any) -> bool:
    return (
        CODES.issuperset(hand["cards"])
        and hand.get("trump") in TRUMPS
        and CODES.issuperset(hand.get("seen", ()))
    )


def _batch_is_canonical(body: Any) -> bool:
    return all(map(_hand_is_canonical, body["hands"]))


def _showdown_is_canonical(body: Any) -> bool:
    return body.get("trump") in TRUMPS and all(
        CODES.issuperset(hand["cards"]) for hand in body["hands"]
    )


def _settle_is_canonical(body: Any) -> bool:
    hands = body.get("hands")
    return body.get("trump") in TRUMPS and (
        hands is None or all(CODES.issuperset(cards) for cards in hands.values())
    )


def _round_is_canonical(body: Any) -> bool:
    showdown = (body.get("claimed") or {}).get("showdown")
    return _settle_is_canonical(body) and (showdown is None or _showdown_is_canonical(showdown))


def _always(body: Any) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Form:
    """How one endpoint's bodies are made canonical."""

    canonical: Callable[[Any], Any]
    """The body with every alias replaced (shape kept; tolerant of any shape)."""
    is_canonical: Callable[[Any], bool]
    """Whether an *accepted* body already is canonical (may raise on any other shape)."""

    @property
    def has_cards(self) -> bool:
        return self.canonical is not _as_sent


AS_SENT: Final = Form(_as_sent, _always)
"""A body without cards: canonical as sent, keys sorted (also every route that judges nothing)."""
HAND: Final = Form(_hand, _hand_is_canonical)
FORMS: Final[dict[str, Form]] = {
    SCORE_PATH: HAND,
    BATCH_PATH: Form(_batch, _batch_is_canonical),
    ODDS_PATH: HAND,
    SHOWDOWN_PATH: Form(_showdown, _showdown_is_canonical),
    BETTING_PATH: AS_SENT,
    SETTLE_PATH: Form(_settle, _settle_is_canonical),
    ROUND_PATH: Form(_round, _round_is_canonical),
}
"""The verdict endpoints by path, with their bodies' canonical form."""
SIGNED_ROUTES: Final = frozenset(FORMS)
"""The verdict endpoints: their 200 answers carry a signed receipt when a key is configured."""


def form_of(path: str) -> Form:
    return FORMS.get(path, AS_SENT)


def canonical_text(form: Form, body: Any) -> bytes:
    """The canonical form of a parsed JSON ``body``, serialised: aliases replaced, keys sorted,
    no whitespace, UTF-8 (absent and ``null`` stay distinct; every other string as sent)."""
    return orjson.dumps(form.canonical(body), option=_SORT_KEYS)


_SHAPE_ERRORS: Final = (KeyError, TypeError, IndexError, AttributeError)


def digest(
    form: Form, body: Any, *, sorted_text: bytes | None = None, canonical: bool = False
) -> str:
    """SHA-256 (hex) of ``body``'s canonical form: the one request digest of the audit line, the
    receipt and every re-adjudication. ``sorted_text``: the body already serialised with sorted
    keys, hashed as is when nothing in it needs rewriting (the body has no cards, or is known to be
    spelled ``canonical``ly: ``spelled_canonically`` or its endpoint's own check says so)."""
    if sorted_text is not None and (canonical or not form.has_cards):
        return hashlib.sha256(sorted_text).hexdigest()
    return hashlib.sha256(canonical_text(form, body)).hexdigest()


def spelled_canonically(form: Form, body: Any) -> bool:
    """Whether an accepted ``body`` already is its canonical form but for key order (False for
    any shape its form does not expect: such a body is rebuilt, which never fails)."""
    try:
        return form.is_canonical(body)
    except _SHAPE_ERRORS:
        return False


def request_digest(path: str, body: Any) -> str:
    """The digest of ``body`` sent to ``path``, for anyone holding the parsed body."""
    return digest(form_of(path), body)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
