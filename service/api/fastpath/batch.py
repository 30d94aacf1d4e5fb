"""The batch's table loop: each hand checked and scored by the same lookups, in one pass.

A batch of thousands of hands cannot afford the schema or the core per hand, so the loop is
derived from both instead: ``HandSchema``'s accepted spellings (read from its fields' fast checks,
refusing to start if the schema changes shape) and the core's compact score table. A lookup that
fails is a hand the schema refuses: ``Unexplained`` hands the body to the schema, which names it.
Every result is a pre-encoded fragment, the bytes orjson writes for the core's rendered answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import orjson
from marshmallow import fields

from service.api.contract.checks import Member, fast_check_of
from service.api.contract.error_codes import CountOf
from service.api.contract.schemas import HandSchema
from service.api.envelope.road import Unexplained
from service.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING, Suit
from service.game.scoring import (
    TRUMP_SETTINGS,
    WEIGHT_BY_SPELLING,
    Combination,
    HandScore,
    LooseCard,
    batch_table,
    table,
)
from service.wire import render

ALIAS: Final = 1 << 24
"""Added to the weight of every card alias and to the setting of every trump alias: a compact key
is below 2**22, so the bits from here up say whether any alias was met, and masking them off
gives the key. The canonical form's digest hashes the sorted text as is when none was."""
_MASK: Final = ALIAS - 1
_SETTING: Final = 7
_REFUSED: Final = (KeyError, TypeError, ValueError)
_CARDS_HEAD: Final = b'{"cards":['
_LOOSE_HEAD: Final = b'],"loose":['
_EMPTY_END: Final = b'"combinations":[' + _LOOSE_HEAD + b"]}"
_TAIL_LIMIT: Final = 4096
"""Breakdown tails kept per trump setting: past it, a tail is spliced from its parts each time."""

_Part = TypeVar("_Part", Combination, LooseCard)


def _hand_spellings() -> tuple[frozenset[str], frozenset[str]]:
    """The card and trump spellings ``HandSchema`` accepts; raises unless the schema is
    ``{"cards": [4 cards], "trump"?: suit or null}``, the one shape the loop reads."""
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
        raise RuntimeError("HandSchema changed shape: the batch loop must follow it")
    return card_rule.values, trump_rule.values


@dataclass(frozen=True, slots=True)
class BatchTables:
    weights: dict[str, int]
    """Card spelling (each one ``HandSchema`` accepts) to compact weight, plus ``ALIAS`` unless
    it is the canonical code: a hand's compact key is the sum, masked."""
    settings: dict[str | None, int]
    """A hand's ``trump`` (each accepted spelling, or null) to its index in ``TRUMP_SETTINGS``,
    plus ``ALIAS`` unless it is the canonical suit letter or null."""
    row_by_key: dict[int, int]
    """Compact key to the hand's row in ``score_json``."""
    score_json: tuple[tuple[orjson.Fragment, ...], ...]
    """Per row, ``{"score":N}`` under each trump setting, pre-encoded."""
    first: dict[str, bytes]
    """Card spelling to ``{"cards":["KS"``: a breakdown's start, its first card canonical."""
    rest: dict[str, bytes]
    """Card spelling to ``,"KS"``: each further card, canonical."""
    tails: tuple[dict[int, bytes], ...]
    """Per trump setting, compact key to the rest of a breakdown (filled on first use)."""
    heads: tuple[tuple[bytes, ...], ...]
    """Per trump setting and score, a tail's start: ``],"trump":…,"score":…,"combinations":[``."""


def build() -> BatchTables:
    core = batch_table()
    card_spellings, trump_spellings = _hand_spellings()
    codes = {card.code for card in CARD_BY_SPELLING.values()}
    letters = {suit.value for suit in SUIT_BY_SPELLING.values()}
    weights = {s: core.weight_by_spelling[s] + (0 if s in codes else ALIAS) for s in card_spellings}
    settings: dict[str | None, int] = {None: 0}
    for s in trump_spellings:
        settings[s] = TRUMP_SETTINGS.index(SUIT_BY_SPELLING[s]) + (0 if s in letters else ALIAS)
    top = max(max(row) for row in core.rows)
    score_json = [orjson.Fragment(_exact(orjson.dumps({"score": s}))) for s in range(top + 1)]
    encoded = {spelling: orjson.dumps(card.code) for spelling, card in CARD_BY_SPELLING.items()}
    return BatchTables(
        weights=weights,
        settings=settings,
        row_by_key=core.row_by_key,
        score_json=tuple(tuple(score_json[score] for score in row) for row in core.rows),
        first={spelling: _CARDS_HEAD + code for spelling, code in encoded.items()},
        rest={spelling: b"," + code for spelling, code in encoded.items()},
        tails=tuple({} for _ in TRUMP_SETTINGS),
        heads=tuple(tuple(_head(t, score) for score in range(top + 1)) for t in TRUMP_SETTINGS),
    )


def _exact(data: bytes) -> bytes:
    """A copy of what orjson wrote, for keeping: its own buffer is often far larger."""
    return memoryview(data).tobytes()


def _head(trump: Suit | None, score: int) -> bytes:
    """The start of a tail, cut from ``render.scored_hand`` of an empty breakdown."""
    text = orjson.dumps(render.scored_hand(HandScore((), trump, score, (), ())))
    if not (text.startswith(_CARDS_HEAD + b"]") and text.endswith(_EMPTY_END)):
        raise RuntimeError("render.scored_hand changed its order: the batch splices its parts")
    return text[len(_CARDS_HEAD) : -len(_LOOSE_HEAD + b"]}")]


_TABLES: list[BatchTables] = []


def tables() -> BatchTables:
    """Built on first use (``create_app`` asks before gunicorn forks) and kept."""
    if not _TABLES:
        _TABLES.append(build())
    return _TABLES[0]


def judge_hands(hands: Sequence[Any], breakdown: bool) -> tuple[list[orjson.Fragment], bool]:
    """Each hand's result, pre-encoded, in order, and whether every card and trump is spelled
    canonically; raises ``Unexplained`` on any hand ``HandSchema`` refuses."""
    try:
        if breakdown:
            return _breakdowns(hands, tables())
        return _scores(hands, tables())
    except _REFUSED:
        raise Unexplained from None


def _scores(hands: Sequence[Any], t: BatchTables) -> tuple[list[orjson.Fragment], bool]:
    w, settings, row, rows = t.weights, t.settings, t.row_by_key, t.score_json
    out: list[orjson.Fragment] = []
    append = out.append
    met = 0
    for hand in hands:
        cards = hand["cards"]  # a TypeError unless a dict, a KeyError without "cards"
        if type(cards) is not list:
            raise TypeError("cards")
        a, b, c, d = cards  # a ValueError unless four
        key = w[a] + w[b] + w[c] + w[d]
        size = len(hand)
        if size == 1:
            setting = 0
        elif size == 2:  # so "cards" and one more, which must be a valid "trump"
            setting = settings[hand["trump"]]
        else:
            raise KeyError("hand")
        met |= key | setting
        append(rows[row[key & _MASK]][setting & _SETTING])
    return out, met < ALIAS


def _breakdowns(hands: Sequence[Any], t: BatchTables) -> tuple[list[orjson.Fragment], bool]:
    w, settings, first, rest, tails = t.weights, t.settings, t.first, t.rest, t.tails
    fragment, join = orjson.Fragment, b"".join
    out: list[orjson.Fragment] = []
    append = out.append
    met = 0
    for hand in hands:
        cards = hand["cards"]
        if type(cards) is not list:
            raise TypeError("cards")
        a, b, c, d = cards
        key = w[a] + w[b] + w[c] + w[d]
        size = len(hand)
        if size == 1:
            setting = 0
        elif size == 2:
            setting = settings[hand["trump"]]
        else:
            raise KeyError("hand")
        met |= key | setting
        key &= _MASK
        setting &= _SETTING
        tail = tails[setting].get(key)
        if tail is None:
            tail = _tail(t, setting, key, (a, b, c, d))
        append(fragment(join((first[a], rest[b], rest[c], rest[d], tail))))
    return out, met < ALIAS


def _tail(t: BatchTables, setting: int, key: int, cards: tuple[str, ...]) -> bytes:
    """Splice (and keep, within the limit) what the cards' order does not change: everything
    after the cards, as ``render.scored_hand`` writes it."""
    found = table(TRUMP_SETTINGS[setting]).breakdowns[
        sum(map(WEIGHT_BY_SPELLING.__getitem__, cards))
    ]
    tail = b"".join(
        (
            t.heads[setting][found.score],
            b",".join([_part(x, render.combinations) for x in found.combinations]),
            _LOOSE_HEAD,
            b",".join([_part(x, render.loose) for x in found.loose]),
            b"]}",
        )
    )
    kept = t.tails[setting]
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
