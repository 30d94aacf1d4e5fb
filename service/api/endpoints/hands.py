"""``POST /v1/hands/score`` and ``POST /v1/hands/batch-score`` (docs/rules.md sections 3 to 7)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

import orjson
from flask import Response

from service.api.contract import render
from service.api.contract.checks import hand_ok
from service.api.contract.operation import BODY_ERRORS, Operation
from service.api.contract.problems import rules_problem
from service.api.contract.schemas import (
    BatchScoreResponseSchema,
    ScoreResponseSchema,
)
from service.api.endpoints.endpoint import Endpoint, Resources, View
from service.api.envelope import audit
from service.api.envelope.body import json_response, load, read_json
from service.api.fastpath.shortcut import JsonShortcut
from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING, Suit, TrumpError
from service.game.errors import PathElement, RulesError
from service.game.ruleset import RULESET
from service.game.scoring import (
    TRUMP_SETTINGS,
    WEIGHT_BY_SPELLING,
    Combination,
    HandScore,
    LooseCard,
    batch_table,
    score_hand,
    table,
)

SCORE_ANSWERS = {
    "coronka_and_bezique": {
        "cards": ["KS", "QS", "JS", "JC"],
        "trump": None,
        "score": 10,
        "combinations": [
            {"type": "bezique", "cards": ["QS", "JC"], "points": 4},
            {"type": "coronka", "cards": ["KS", "QS", "JS"], "points": 6},
        ],
        "loose": [],
        "ruleset": "classic/1",
    },
    "marriage_in_trumps": {
        "cards": ["KH", "QH", "KD", "10D"],
        "trump": "H",
        "score": 10,
        "combinations": [{"type": "marriage", "cards": ["KH", "QH"], "points": 8}],
        "loose": [{"card": "KD", "points": 1}, {"card": "10D", "points": 1}],
        "ruleset": "classic/1",
    },
}
"""The service's answers to the operation's request examples, by the same names (a test posts
each request and compares)."""

SCORE = Operation(
    operation_id="scoreHand",
    summary="Score one hand",
    tag="hands",
    description=(
        "The best total over all legal declarations of four cards (docs/rules.md §3-§6), with "
        "the declaration that reaches it (ties broken by the documented fixed rule)."
    ),
    request=lambda schemas: schemas.hand,
    response=ScoreResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "coronka_and_bezique": {"cards": ["KS", "QS", "JS", "JC"]},
        "marriage_in_trumps": {"cards": ["KH", "QH", "KD", "10D"], "trump": "H"},
    },
    response_examples=SCORE_ANSWERS,
)

BATCH_PATH: Final = "/v1/hands/batch-score"

BATCH_ANSWERS = {"scores_only": {"results": [{"score": 7}, {"score": 0}], "ruleset": "classic/1"}}
"""The service's answers to the operation's request examples, by the same names (a test posts
each request and compares)."""

BATCH = Operation(
    operation_id="scoreHands",
    summary="Score many hands",
    tag="hands",
    description=(
        "Scores every hand, in input order. One bad hand rejects the whole batch with a pointer "
        'to it. `"breakdown": false` answers only the scores (the fast path).'
    ),
    request=lambda schemas: schemas.batch,
    response=BatchScoreResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "scores_only": {
            "hands": [{"cards": ["QS", "QC", "QH", "KH"]}, {"cards": ["9H", "AH", "9D", "AD"]}],
            "breakdown": False,
        }
    },
    response_examples=BATCH_ANSWERS,
)


def _hand_error(error: RulesError, *prefix: PathElement) -> RulesError:
    """Anchor a scoring error at the hand's ``trump`` or ``cards`` member."""
    return error.at(*prefix, "trump" if isinstance(error, TrumpError) else "cards")


def _score_view(resources: Resources) -> View:
    hand_schema = resources.schemas.hand()

    def score() -> Response:
        body = read_json()
        if not hand_ok(body):
            body = load(hand_schema, body)
        try:
            out = _scored(body)
        except RulesError as error:  # the checks above leave nothing for the core to refuse
            raise rules_problem(_hand_error(error)) from None
        return json_response(out)

    return score


def _batch_view(resources: Resources) -> View:
    batch_schema = resources.schemas.batch()
    max_hands = resources.config.max_batch_hands
    if resources.config.build_tables:
        _batch_tables()  # now, so that gunicorn's workers share it (preload), like the tables

    def batch_score() -> Response:
        with CollectorPause():
            body = read_json()
            results = _batch_results(body, max_hands)
            if results is None:
                # The fast path refused the body: the schema explains why (a 422 pointing at
                # each bad field). Whatever it accepts comes back canonical, which the fast path
                # always takes.
                results = _batch_results(load(batch_schema, body), max_hands)
                if results is None:  # pragma: no cover - would be a fast-path bug
                    raise RuntimeError("the batch fast path refused a body the schema accepts")
            return json_response({"results": results, "ruleset": RULESET})

    return batch_score


SCORE_PATH: Final = "/v1/hands/score"


# ------------------------------------------------------------------------------------------------
# The score pre-dispatch
# ------------------------------------------------------------------------------------------------
#
# ``POST /v1/hands/score`` is the hottest request there is, and most of its cost is Flask's own.
# The WSGI wrapper offers it to ``ScoreShortcut`` first (``shortcut.py``): a hand ``hand_ok``
# accepts is answered as the view would, with the view's own ``_scored``; anything else is Flask's.


def _scored(body: Any) -> dict[str, Any]:
    """The verdict on a hand ``hand_ok`` (or the schema) accepted: the view's and the shortcut's."""
    out = render.scored_hand(score_hand(body["cards"], body.get("trump")))
    out["ruleset"] = RULESET
    return out


class ScoreShortcut(JsonShortcut):
    """``POST /v1/hands/score`` served without entering Flask when nothing can go wrong."""

    __slots__ = ()

    def __init__(self, max_body: int | None) -> None:
        super().__init__(max_body, hand_ok, _scored)


# ------------------------------------------------------------------------------------------------
# The batch fast path
# ------------------------------------------------------------------------------------------------
#
# One pass over the parsed hands both checks them (exactly what ``fastcheck.batch_ok``, and so the
# schema, accepts) and scores them: the weight lookup of each card is also the check of its
# spelling, the trump lookup the check of the trump, and a hand's size says whether it holds
# anything but "cards" and "trump". A refusal raises one of ``_REFUSED`` and the caller hands the
# body to the schema, which explains it. Each result is a pre-encoded ``orjson.Fragment`` (shared
# by every hand with the same score, or spliced from shared parts for a breakdown), the same bytes
# orjson writes for the equivalent dict (the tests compare them with the slow path); the results
# stay a list, one item per hand, for whoever looks at the verdict (the audit record counts them).

_REFUSED: Final = (KeyError, TypeError, ValueError)
_TRUMP_SETTING: Final[dict[str | None, int]] = {
    None: 0,
    **{spelling: TRUMP_SETTINGS.index(suit) for spelling, suit in SUIT_BY_SPELLING.items()},
}
"""A hand's ``trump`` value (any accepted spelling, or null) to its index in ``TRUMP_SETTINGS``."""
_CARDS_HEAD: Final = b'{"cards":['
_LOOSE_HEAD: Final = b'],"loose":['
_EMPTY_END: Final = b'"combinations":[' + _LOOSE_HEAD + b"]}"
_TAIL_LIMIT: Final = 4096
"""Breakdown tails kept per trump setting (at most about 4 MiB in all): every hand of a few large
batches; past it, a tail is spliced again from its parts each time it is needed (a few µs)."""

_Row = TypeVar("_Row", int, orjson.Fragment)
_Part = TypeVar("_Part", Combination, LooseCard)


@dataclass(frozen=True, slots=True)
class _BatchTables:
    weights: dict[str, int]
    """Card spelling to compact weight (``scoring.batch_table``): a compact hand key is the sum."""
    row_by_key: dict[int, int]
    """Compact key to the hand's row in ``scores`` and ``score_json``."""
    scores: tuple[tuple[int, ...], ...]
    """Per row, the score under each trump setting, in ``TRUMP_SETTINGS`` order."""
    score_json: tuple[tuple[orjson.Fragment, ...], ...]
    """The same, pre-encoded: ``{"score":N}``."""
    first: dict[str, bytes]
    """Card spelling to ``{"cards":["KS"``: a breakdown's start, its first card canonical."""
    rest: dict[str, bytes]
    """Card spelling to ``,"KS"``: each further card, canonical."""
    tails: tuple[dict[int, bytes], ...]
    """Per trump setting, compact key to the rest of a breakdown, from ``],"trump":`` to its
    closing brace: filled on first use, up to ``_TAIL_LIMIT`` each."""
    heads: tuple[tuple[bytes, ...], ...]
    """Per trump setting and score, a tail's start: ``],"trump":…,"score":…,"combinations":[``."""


def _build_batch_tables() -> _BatchTables:
    core = batch_table()
    top = max(max(row) for row in core.rows)
    score_json = [orjson.Fragment(_exact(orjson.dumps({"score": s}))) for s in range(top + 1)]
    codes = {spelling: orjson.dumps(card.code) for spelling, card in CARD_BY_SPELLING.items()}
    heads = tuple(
        tuple(_head(trump, score) for score in range(top + 1)) for trump in TRUMP_SETTINGS
    )
    return _BatchTables(
        weights=core.weight_by_spelling,
        row_by_key=core.row_by_key,
        scores=core.rows,
        score_json=tuple(tuple(score_json[score] for score in row) for row in core.rows),
        first={spelling: _CARDS_HEAD + code for spelling, code in codes.items()},
        rest={spelling: b"," + code for spelling, code in codes.items()},
        tails=tuple({} for _ in TRUMP_SETTINGS),
        heads=heads,
    )


def _exact(data: bytes) -> bytes:
    """A copy of what orjson wrote, for keeping: its own buffer is often far larger (~2 KiB)."""
    return memoryview(data).tobytes()


def _head(trump: Suit | None, score: int) -> bytes:
    """The start of a tail, cut from ``render.scored_hand`` of an empty breakdown."""
    text = orjson.dumps(render.scored_hand(HandScore((), trump, score, (), ())))
    if not (text.startswith(_CARDS_HEAD + b"]") and text.endswith(_EMPTY_END)):
        raise RuntimeError("render.scored_hand changed its order: the batch splices its parts")
    return text[len(_CARDS_HEAD) : -len(_LOOSE_HEAD + b"]}")]


_BATCH_TABLES: list[_BatchTables] = []


def _batch_tables() -> _BatchTables:
    if not _BATCH_TABLES:
        _BATCH_TABLES.append(_build_batch_tables())
    return _BATCH_TABLES[0]


def _lookup(hands: Sequence[Any], rows: tuple[tuple[_Row, ...], ...]) -> list[_Row]:
    """Check every hand and pick its entry of ``rows`` by compact key and trump setting."""
    tables = _batch_tables()
    w, row = tables.weights, tables.row_by_key
    settings = _TRUMP_SETTING
    out: list[_Row] = []
    append = out.append
    for hand in hands:
        cards = hand["cards"]  # a TypeError unless a dict, a KeyError without "cards"
        if type(cards) is not list:
            raise TypeError("cards")
        a, b, c, d = cards  # a ValueError unless four
        size = len(hand)
        if size == 1:
            append(rows[row[w[a] + w[b] + w[c] + w[d]]][0])
        elif size == 2:  # so "cards" and one more, which must be a valid "trump"
            append(rows[row[w[a] + w[b] + w[c] + w[d]]][settings[hand["trump"]]])
        else:
            raise KeyError("hand")
    return out


def _scores(hands: Sequence[Any]) -> list[int]:
    """The hands' scores, in order; raises one of ``_REFUSED`` on anything ``batch_ok`` refuses."""
    return _lookup(hands, _batch_tables().scores)


def _score_results(hands: Sequence[Any]) -> list[orjson.Fragment]:
    """``_scores`` as ``{"score": N}`` objects, pre-encoded."""
    return _lookup(hands, _batch_tables().score_json)


def _breakdowns(hands: Sequence[Any]) -> list[orjson.Fragment]:
    """Each hand's scored breakdown (``render.scored_hand``), pre-encoded, in order; raises one of
    ``_REFUSED`` on anything ``batch_ok`` refuses."""
    tables = _batch_tables()
    w, first, rest, tails = tables.weights, tables.first, tables.rest, tables.tails
    settings = _TRUMP_SETTING
    fragment, join = orjson.Fragment, b"".join
    out: list[orjson.Fragment] = []
    append = out.append
    for hand in hands:
        cards = hand["cards"]
        if type(cards) is not list:
            raise TypeError("cards")
        a, b, c, d = cards
        size = len(hand)
        if size == 1:
            setting = 0
        elif size == 2:
            setting = settings[hand["trump"]]
        else:
            raise KeyError("hand")
        key = w[a] + w[b] + w[c] + w[d]
        tail = tails[setting].get(key)
        if tail is None:
            tail = _tail(setting, key, a, b, c, d)
        append(fragment(join((first[a], rest[b], rest[c], rest[d], tail))))
    return out


def _tail(setting: int, key: int, a: str, b: str, c: str, d: str) -> bytes:
    """Splice (and keep, within the limit) the part of a breakdown that the cards' order does not
    change: everything after the cards, as ``render.scored_hand`` writes it."""
    tables = _BATCH_TABLES[0]
    w = WEIGHT_BY_SPELLING
    found = table(TRUMP_SETTINGS[setting]).breakdowns[w[a] + w[b] + w[c] + w[d]]
    tail = b"".join(
        (
            tables.heads[setting][found.score],
            b",".join([_part(x, render.combinations) for x in found.combinations]),
            _LOOSE_HEAD,
            b",".join([_part(x, render.loose) for x in found.loose]),
            b"]}",
        )
    )
    kept = tables.tails[setting]
    if len(kept) < _TAIL_LIMIT:
        kept[key] = tail
    return tail


_PARTS: dict[int, tuple[object, bytes]] = {}
"""A few hundred shared ``Combination`` and ``LooseCard`` instances (by identity, each kept alive
here with its rendering) to their JSON."""


def _part(part: _Part, rendering: Callable[[Sequence[_Part]], list[dict[str, Any]]]) -> bytes:
    found = _PARTS.get(id(part))
    if found is not None and found[0] is part:
        return found[1]
    encoded = _exact(orjson.dumps(rendering((part,))[0]))
    _PARTS[id(part)] = (part, encoded)
    return encoded


def _batch_results(body: Any, max_hands: int) -> list[orjson.Fragment] | None:
    """The ``results`` of a batch, or None if ``batch_ok`` would refuse the body."""
    if type(body) is not dict:
        return None
    size = len(body)
    breakdown: Any = True
    if size == 2:  # "hands" and one more, which must be a boolean "breakdown"
        breakdown = body.get("breakdown")
        if type(breakdown) is not bool:
            return None
    elif size != 1:
        return None
    hands = body.get("hands")
    if type(hands) is not list or not 1 <= len(hands) <= max_hands:
        return None
    try:
        return _breakdowns(hands) if breakdown else _score_results(hands)
    except _REFUSED:
        return None


# The collector, held off while a batch is served: 10,000 hands parse into some 20,000 new
# containers, which would set off dozens of young collections, each walking the batch parsed so
# far, and every few batches an older one. None of it is cyclic garbage: it all goes by reference
# counting. The view pauses the collector while it parses and answers; ``pause_for_batches``, the
# outermost WSGI layer of the served app (``service.wsgi``), holds it until the request is done,
# since the parsed body outlives the view (the request's audit record holds it until then) and a
# collection resumed earlier would walk all of it once more. Pauses are counted, so that
# overlapping requests (gthread) resume the collector once all of them are done, and only if it
# was running before.

_collector_lock = threading.Lock()
_collector_pauses = 0
_collector_was_enabled = False


class CollectorPause:
    """Holds the garbage collector off from construction until ``end`` (idempotent), or for the
    duration of a ``with`` block."""

    __slots__ = ("_ended",)

    def __init__(self) -> None:
        global _collector_pauses, _collector_was_enabled
        self._ended = False
        with _collector_lock:
            if _collector_pauses == 0:
                _collector_was_enabled = gc.isenabled()
                gc.disable()
            _collector_pauses += 1

    def end(self) -> None:
        global _collector_pauses
        with _collector_lock:
            if self._ended:
                return
            self._ended = True
            _collector_pauses -= 1
            if _collector_pauses == 0 and _collector_was_enabled:
                gc.enable()

    def __enter__(self) -> CollectorPause:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.end()


def pause_for_batches(wsgi_app: WSGIApplication) -> WSGIApplication:
    """Wrap the outermost WSGI layer: the collector stays paused for the whole of each batch
    request, until the WSGI call returns (the answer's bytes are all that is left of it then)."""

    def serve(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != BATCH_PATH:
            return wsgi_app(environ, start_response)
        with CollectorPause():
            return wsgi_app(environ, start_response)

    return serve


ENDPOINTS = (
    Endpoint(
        "POST",
        SCORE_PATH,
        SCORE,
        _score_view,
        audit=audit.SCORE,
        shortcut=lambda resources: ScoreShortcut(resources.config.max_body_bytes),
    ),
    Endpoint("POST", BATCH_PATH, BATCH, _batch_view, audit=audit.BATCH),
)
