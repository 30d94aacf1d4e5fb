"""``POST /v1/hands/score`` and ``POST /v1/hands/batch-score`` (docs/rules.md sections 3 to 7)."""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

import orjson
from flask import Response, request
from marshmallow import fields

from service.api.config import Config
from service.api.contract import render
from service.api.contract.checks import Check, Member, check_for, derive, fast_check_of
from service.api.contract.error_codes import CountOf
from service.api.contract.operation import BODY_ERRORS, Operation
from service.api.contract.problems import rules_problem
from service.api.contract.schemas import (
    BatchScoreResponseSchema,
    HandSchema,
    ScoreResponseSchema,
    request_schemas,
)
from service.api.endpoints import batch_text
from service.api.endpoints.endpoint import Endpoint, Resources, View
from service.api.envelope import audit, budget
from service.api.envelope.body import json_response, load, read_json, static_json_response
from service.api.envelope.exchange import Exchange, current
from service.api.fastpath.shortcut import JsonShortcut, put_back, take_body
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
    hand_ok = check_for(resources.schemas.hand)

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
    top_ok = derive(batch_schema, items_elsewhere=("hands",))
    max_body = resources.config.max_body_bytes
    if resources.config.build_tables:
        _batch_tables()  # now, so that gunicorn's workers share it (preload), like the tables

    def batch_score() -> Response:
        with CollectorPause():
            exchange = current()
            if exchange is not None:
                environ = request.environ
                data = take_body(environ, exchange, max_body)
                if data is not None:
                    answer = _answer_raw(data, exchange, top_ok)
                    if answer is not None:
                        return static_json_response(answer, no_store=True)
                    put_back(environ, data, exchange)
            body = read_json()
            judged = _judge(body, top_ok)
            if judged is None:
                # The fast path refused the body: the schema explains why (a 422 pointing at
                # each bad field). Whatever it accepts comes back canonical, which the fast path
                # always takes.
                judged = _judge(load(batch_schema, body), top_ok)
                if judged is None:  # pragma: no cover - would be a fast-path bug
                    raise RuntimeError("the batch fast path refused a body the schema accepts")
            return json_response({"results": judged.results, "ruleset": RULESET})

    return batch_score


SCORE_PATH: Final = "/v1/hands/score"


# ------------------------------------------------------------------------------------------------
# The score pre-dispatch
# ------------------------------------------------------------------------------------------------
#
# ``POST /v1/hands/score`` is the hottest request there is, and most of its cost is Flask's own.
# The WSGI wrapper offers it to ``ScoreShortcut`` first (``shortcut.py``): a hand ``HandSchema``'s
# derived check accepts is answered as the view would, with the view's own ``_scored``; anything
# else is Flask's.


def _scored(body: Any) -> dict[str, Any]:
    """The verdict on a hand the derived check (or the schema) accepted: the view's and the
    shortcut's."""
    out = render.scored_hand(score_hand(body["cards"], body.get("trump")))
    out["ruleset"] = RULESET
    return out


class ScoreShortcut(JsonShortcut):
    """``POST /v1/hands/score`` served without entering Flask when nothing can go wrong."""

    __slots__ = ()

    def __init__(self, max_body: int | None) -> None:
        super().__init__(max_body, check_for(HandSchema), _scored)


# ------------------------------------------------------------------------------------------------
# The batch fast path
# ------------------------------------------------------------------------------------------------
#
# One pass over the parsed hands both checks them (exactly what ``HandSchema``'s derived check
# accepts: ``_hand_spellings`` reads the accepted spellings from it, and refuses to start if the
# schema no longer has the shape this loop is written for) and scores them: the weight lookup of
# each card is also the check of its spelling, the trump lookup the check of the trump, and a
# hand's size says whether it holds anything but "cards" and "trump". The rest of the body (the
# hands' list and ``breakdown``) is checked by the batch schema's own derived check. A refusal
# raises one of ``_REFUSED`` and the caller hands the body to the schema, which explains it. Each
# result is a pre-encoded ``orjson.Fragment`` (shared by every hand with the same score, or
# spliced from shared parts for a breakdown), the same bytes orjson writes for the equivalent dict
# (the tests compare them with the slow path); the results stay a list, one item per hand, for
# whoever looks at the verdict (the audit record counts them).
#
# The loop runs first with the canonical spellings only: a body it accepts that way is spelled as
# the canonical form spells it, which the audit digest uses (``audit.batch_body_digest``); a body
# using aliases is refused by that pass and scored by a second one with every spelling.

_REFUSED: Final = (KeyError, TypeError, ValueError)
_CARDS_HEAD: Final = b'{"cards":['
_LOOSE_HEAD: Final = b'],"loose":['
_EMPTY_END: Final = b'"combinations":[' + _LOOSE_HEAD + b"]}"
_TAIL_LIMIT: Final = 4096
"""Breakdown tails kept per trump setting (at most about 4 MiB in all): every hand of a few large
batches; past it, a tail is spliced again from its parts each time it is needed."""

_Row = TypeVar("_Row", int, orjson.Fragment)
_Part = TypeVar("_Part", Combination, LooseCard)


def _hand_spellings() -> tuple[frozenset[str], frozenset[str]]:
    """The card and trump spellings ``HandSchema`` accepts, from its fields' fast checks; raises
    unless the schema is ``{"cards": [4 cards], "trump"?: suit or null}``, the one shape the loop
    reads."""
    loaded = HandSchema().load_fields
    cards, trump = loaded.get("cards"), loaded.get("trump")
    card_rule = fast_check_of(cards.inner) if isinstance(cards, fields.List) else None
    trump_rule = fast_check_of(trump) if trump is not None else None
    if not (
        set(loaded) == {"cards", "trump"}
        and type(cards) is fields.List
        and cards.data_key is None
        and cards.required
        and not cards.allow_none
        and [type(v) for v in cards.validators] == [CountOf]
        and cards.validators[0].equal == 4  # type: ignore[attr-defined]
        and not cards.inner.validators
        and isinstance(card_rule, Member)
        and trump is not None
        and trump.data_key is None
        and not trump.required
        and trump.allow_none
        and not trump.validators
        and isinstance(trump_rule, Member)
    ):
        raise RuntimeError("HandSchema changed shape: the batch loop (hands.py) must follow it")
    return card_rule.values, trump_rule.values


@dataclass(frozen=True, slots=True)
class _BatchTables:
    weights: dict[str, int]
    """Card spelling (each one ``HandSchema`` accepts) to compact weight (``scoring.batch_table``):
    a compact hand key is the sum."""
    settings: dict[str | None, int]
    """A hand's ``trump`` (each spelling ``HandSchema`` accepts, or null) to its index in
    ``TRUMP_SETTINGS``."""
    canonical_weights: dict[str, int]
    """``weights`` of the canonical codes only."""
    canonical_settings: dict[str | None, int]
    """``settings`` of the canonical suit letters (and null) only."""
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
    compact: batch_text.CompactTables
    """The canonical tables again, as the compact-text reader looks hands up."""


def _build_batch_tables() -> _BatchTables:
    core = batch_table()
    card_spellings, trump_spellings = _hand_spellings()
    weights = {spelling: core.weight_by_spelling[spelling] for spelling in card_spellings}
    settings: dict[str | None, int] = {None: 0}
    for spelling in trump_spellings:
        settings[spelling] = TRUMP_SETTINGS.index(SUIT_BY_SPELLING[spelling])
    codes_only = {card.code for card in CARD_BY_SPELLING.values()}
    suits_only = {suit.value for suit in SUIT_BY_SPELLING.values()}
    top = max(max(row) for row in core.rows)
    score_json = [orjson.Fragment(_exact(orjson.dumps({"score": s}))) for s in range(top + 1)]
    codes = {spelling: orjson.dumps(card.code) for spelling, card in CARD_BY_SPELLING.items()}
    heads = tuple(
        tuple(_head(trump, score) for score in range(top + 1)) for trump in TRUMP_SETTINGS
    )
    canonical_weights = {s: w for s, w in weights.items() if s in codes_only}
    canonical_settings = {s: i for s, i in settings.items() if s is None or s in suits_only}
    scores_json = tuple(tuple(score_json[score] for score in row) for row in core.rows)
    return _BatchTables(
        weights=weights,
        settings=settings,
        canonical_weights=canonical_weights,
        canonical_settings=canonical_settings,
        row_by_key=core.row_by_key,
        scores=core.rows,
        score_json=scores_json,
        first={spelling: _CARDS_HEAD + code for spelling, code in codes.items()},
        rest={spelling: b"," + code for spelling, code in codes.items()},
        tails=tuple({} for _ in TRUMP_SETTINGS),
        heads=heads,
        compact=batch_text.CompactTables.build(
            canonical_weights, canonical_settings, core.row_by_key, scores_json
        ),
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


@dataclass(frozen=True, slots=True)
class _Judged:
    """A batch the fast path accepted."""

    results: list[orjson.Fragment]
    trumps: int
    """Hands holding a ``trump`` key: the body's key/value pairs are the hands, these and its
    own keys (the repeated-key test counts them)."""
    canonical: bool
    """Every card and trump is spelled as the canonical form spells it."""


def _lookup(
    hands: Sequence[Any],
    rows: tuple[tuple[_Row, ...], ...],
    w: dict[str, int],
    settings: dict[str | None, int],
) -> tuple[list[_Row], int]:
    """Check every hand and pick its entry of ``rows`` by compact key and trump setting; also
    count the hands with a trump."""
    row = _batch_tables().row_by_key
    out: list[_Row] = []
    append = out.append
    trumps = 0
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
            trumps += 1
        else:
            raise KeyError("hand")
    return out, trumps


def _scores(hands: Sequence[Any]) -> list[int]:
    """The hands' scores, in order; raises one of ``_REFUSED`` on any hand ``HandSchema``
    refuses."""
    tables = _batch_tables()
    return _lookup(hands, tables.scores, tables.weights, tables.settings)[0]


def batch_scores(hands: Sequence[Any]) -> list[int]:
    """The batch loop on its own (for measuring it): the hands' scores, in order."""
    return _scores(hands)


def batch_breakdowns(hands: Sequence[Any]) -> list[orjson.Fragment]:
    """The batch loop with breakdowns on its own (for measuring it), pre-encoded, in order."""
    return _breakdowns(hands)[0]


def _score_results(
    hands: Sequence[Any], w: dict[str, int], settings: dict[str | None, int]
) -> tuple[list[orjson.Fragment], int]:
    """``_scores`` as ``{"score": N}`` objects, pre-encoded; and the hands with a trump."""
    return _lookup(hands, _batch_tables().score_json, w, settings)


def _breakdowns(
    hands: Sequence[Any],
    w: dict[str, int] | None = None,
    settings: dict[str | None, int] | None = None,
) -> tuple[list[orjson.Fragment], int]:
    """Each hand's scored breakdown (``render.scored_hand``), pre-encoded, in order, and the hands
    with a trump; raises one of ``_REFUSED`` on any hand ``HandSchema`` refuses (or spelled
    otherwise than ``w`` and ``settings`` know: every accepted spelling by default)."""
    tables = _batch_tables()
    w = tables.weights if w is None else w
    settings = tables.settings if settings is None else settings
    first, rest, tails = tables.first, tables.rest, tables.tails
    fragment, join = orjson.Fragment, b"".join
    out: list[orjson.Fragment] = []
    append = out.append
    trumps = 0
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
            trumps += 1
        else:
            raise KeyError("hand")
        key = w[a] + w[b] + w[c] + w[d]
        tail = tails[setting].get(key)
        if tail is None:
            tail = _tail(setting, key, a, b, c, d)
        append(fragment(join((first[a], rest[b], rest[c], rest[d], tail))))
    return out, trumps


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


def _judge(body: Any, top_ok: Check) -> _Judged | None:
    """The batch's results, or None if the schema would refuse the body: ``top_ok`` (the batch
    schema's derived check, its hands' items left to the loop) and the loop decide."""
    if not top_ok(body):
        return None
    hands = body["hands"]
    tables = _batch_tables()
    run = _breakdowns if body.get("breakdown", True) else _score_results
    try:
        results, trumps = run(hands, tables.canonical_weights, tables.canonical_settings)
        return _Judged(results, trumps, canonical=True)
    except _REFUSED:
        pass
    try:
        results, trumps = run(hands, tables.weights, tables.settings)
    except _REFUSED:
        return None
    return _Judged(results, trumps, canonical=False)


@functools.cache
def _top_check(max_hands: int) -> Check:
    schema = request_schemas(Config(max_batch_hands=max_hands, build_tables=False)).batch()
    return derive(schema, items_elsewhere=("hands",))


def _batch_results(body: Any, max_hands: int) -> list[orjson.Fragment] | None:
    """The ``results`` of a batch of at most ``max_hands``, or None if the schema would refuse
    the body."""
    judged = _judge(body, _top_check(max_hands))
    return None if judged is None else judged.results


def _answer_raw(data: bytes, exchange: Exchange, top_ok: Check) -> bytes | None:
    """The answer to a batch read as raw bytes (``take_body``), with the exchange's audit facts
    settled, or None: the body then goes the ordinary way (``read_json``), which refuses or
    explains it exactly as before.

    A compact scores-only batch is read as text, without parsing (``batch_text.read``). Any other
    is read by ``_read_raw``."""
    exchange.received = True
    compact = batch_text.read(data, _batch_tables().compact, top_ok)
    read = (compact.results, compact.digest) if compact else _read_raw(data, exchange, top_ok)
    if read is None:
        return None
    results, digest = read
    payload = {"results": results, "ruleset": RULESET}
    answer = orjson.dumps(payload)
    if exchange.audit:
        exchange.body_digest = digest()
    exchange.answered(payload, answer)
    return answer


def _read_raw(
    data: bytes, exchange: Exchange, top_ok: Check
) -> tuple[list[orjson.Fragment], Callable[[], str]] | None:
    """The results of a batch parsed from ``data`` and its canonical digest (on demand), or None.

    This is ``body.parse`` without its key-sorted re-serialisation, which a batch pays for twice
    (once to count colons, once as the text to hash) though it only needs two facts: whether a
    key repeats, and the canonical form's digest. An accepted batch holds no colon inside a
    string and no objects but itself and its hands, so its text has exactly one colon per
    key/value pair it kept -- its keys, its hands and their trumps -- unless a pair was dropped:
    equal counts prove no key repeats. The digest hashes the raw text itself whenever it can be
    shown to be spelled canonically (``audit.batch_body_digest``)."""
    marks = audit.structure(data)
    colons = marks.count(b":")
    # what ``budget.values_bound`` counts (commas and brackets, plus one), from the same pass
    if len(data) > budget.FIXED and len(marks) - colons + 1 > budget.current_budget():
        return None  # refused unparsed by read_json (413)
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    judged = _judge(body, top_ok)
    if judged is None:
        return None
    if colons != len(body) + len(body["hands"]) + judged.trumps:
        return None  # a repeated key, perhaps: read_json names it
    exchange.body = body
    return judged.results, lambda: audit.batch_body_digest(data, marks, body, judged.canonical)


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
