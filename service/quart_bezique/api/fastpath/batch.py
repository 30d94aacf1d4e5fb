"""The batch's road: a typed decoder and a table loop derived from the contract and the core.

A batch of thousands of hands cannot afford the schema or the core per hand. Its decoder is
derived from the batch schema (refusing to start if the schema changes shape) and checks a body as
it decodes it, whatever its layout; the loop scores the decoded hands from the core's compact
table, each result the bytes orjson writes for the core's rendered answer. A body the decoder
refuses goes to the schema, which explains it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, TypeVar

import msgspec
import orjson
from marshmallow import Schema, fields, validate

from quart_bezique.api.contract.checks import Member, fast_check_of
from quart_bezique.api.contract.error_codes import CountOf
from quart_bezique.api.contract.fields import RulesetField, StrictBoolean
from quart_bezique.api.contract.schemas import HandSchema
from quart_bezique.api.envelope.road import Judged, Typed
from quart_bezique.game.cards import CARD_BY_SPELLING, SUIT_BY_SPELLING, Suit
from quart_bezique.game.reading_cache import ReadingCache
from quart_bezique.game.ruleset import CLASSIC, Ruleset, RulesetError, ScoringRules, resolve_ruleset
from quart_bezique.game.scoring import (
    CLASSIC_SCORING,
    TRUMP_SETTINGS,
    WEIGHT_BY_SPELLING,
    Combination,
    HandScore,
    LooseCard,
    batch_table,
    table,
)
from quart_bezique.wire import render
from quart_bezique.wire.canonical import BATCH_PATH, canonical_text, form_of

ALIAS: Final = 1 << 24
"""Added to the weight of every card alias and to the setting of every trump alias: a compact key
is below 2**22, so the bits from here up say whether any alias was met, and masking them off
gives the key. The canonical form's digest hashes the sorted text as is when none was."""
_MASK: Final = ALIAS - 1
_SETTING: Final = 7
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
    rules: ScoringRules
    """The scoring reading these tables answer under (docs/rules.md §13)."""
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


def build(rules: ScoringRules = CLASSIC_SCORING) -> BatchTables:
    core = batch_table(rules)
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
        rules=rules,
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


_TABLES: Final[ReadingCache[BatchTables]] = ReadingCache(
    CLASSIC_SCORING, functools.partial(build, CLASSIC_SCORING), build
)


def tables(rules: ScoringRules = CLASSIC_SCORING) -> BatchTables:
    """``classic/1``'s built on first use (``create_app`` asks before gunicorn forks) and kept;
    another reading's on its first use, kept among the ``BUILT_TABLES_KEPT`` most recent (as the
    core keeps their score tables)."""
    return _TABLES.get(rules)


def _tail(t: BatchTables, setting: int, key: int, cards: tuple[str, ...]) -> bytes:
    """Splice (and keep, within the limit) what the cards' order does not change: everything
    after the cards, as ``render.scored_hand`` writes it."""
    found = table(TRUMP_SETTINGS[setting], t.rules).breakdowns[
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


# --- the typed decoder ---------------------------------------------------------------------------
# msgspec decodes a batch into typed records and checks it in the same C pass, whatever its
# layout; its card and trump fields are literals of exactly the spellings the loop knows (so each
# decoded card is the literal's own string, whose hash is cached), its limits the schema's.


def _batch_limits(schema: Schema) -> tuple[int, int]:
    """The batch schema's hand-count bounds; raises unless the schema is ``{"hands": [1..n hands],
    "breakdown"?: true|false, "ruleset"?: ruleset}``, the one shape the typed decoder is derived
    for."""
    loaded = schema.load_fields
    hands, flag, ruleset = loaded.get("hands"), loaded.get("breakdown"), loaded.get("ruleset")
    lengths = [v for v in getattr(hands, "validators", ()) if isinstance(v, validate.Length)]
    if not (
        set(loaded) == {"hands", "breakdown", "ruleset"}
        and type(ruleset) is RulesetField
        and not ruleset.required
        and not ruleset.allow_none
        and ruleset.data_key is None
        and not ruleset.validators
        and type(hands) is fields.List
        and isinstance(hands.inner, fields.Nested)
        and hands.inner.nested is HandSchema
        and hands.required
        and not hands.allow_none
        and hands.data_key is None
        and len(hands.validators) == 1
        and len(lengths) == 1
        and lengths[0].min is not None
        and lengths[0].max is not None
        and type(flag) is StrictBoolean
        and not flag.required
        and not flag.allow_none
        and flag.data_key is None
        and not flag.validators
    ):
        raise RuntimeError("the batch schema changed shape: its typed decoder must follow it")
    return lengths[0].min, lengths[0].max


def record_type(schema: Schema) -> type[msgspec.Struct]:
    """The typed record of a batch ``schema`` accepts (fields in key order: encoded, a record is
    its canonical text when it holds no alias)."""
    low, high = _batch_limits(schema)
    cards, suits = _hand_spellings()
    if any(":" in s or "\\" in s for s in (*cards, *suits)):
        raise RuntimeError("a spelling holds a colon or a backslash: the key count would not hold")
    card: Any = Literal[tuple(sorted(cards))]
    suit: Any = Literal[tuple(sorted(suits))]
    options: dict[str, Any] = {"forbid_unknown_fields": True, "omit_defaults": True}
    hand = msgspec.defstruct(
        "Hand",
        [
            ("cards", Annotated[list[card], msgspec.Meta(min_length=4, max_length=4)]),
            ("trump", suit | msgspec.UnsetType | None, msgspec.UNSET),
        ],
        **options,
    )
    hands: Any = Annotated[list[hand], msgspec.Meta(min_length=low, max_length=high)]  # type: ignore[valid-type]
    # A ruleset is decoded as any JSON string or object and read by the core's resolver after.
    ruleset: Any = str | dict[str, Any] | msgspec.UnsetType
    return msgspec.defstruct(
        "Batch",
        [
            ("breakdown", bool | msgspec.UnsetType, msgspec.UNSET),
            ("hands", hands),
            ("ruleset", ruleset, msgspec.UNSET),
        ],
        kw_only=True,
        **options,
    )


def typed_decoder(schema: Schema) -> Callable[[bytes], Typed | None]:
    """The batch's typed road for ``schema``: the verdict and canonical text of a body the schema
    accepts, or None for any other body (the schema then explains it)."""
    body = record_type(schema)
    decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(body)
    encode = msgspec.json.Encoder().encode
    form = form_of(BATCH_PATH)
    unset = msgspec.UNSET

    def decode(data: bytes) -> Typed | None:
        try:
            found = decoder.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        records = found.hands
        breakdown = found.breakdown is unset or found.breakdown
        named = found.ruleset is not unset
        rules = _ruleset(found.ruleset) if named else CLASSIC
        if rules is None:
            return None
        results, canonical, trumps = _judge_records(records, breakdown, tables(rules.scoring))
        # A repeated key is dropped silently: then the text has more colons than pairs kept.
        pairs = 1 + (found.breakdown is not unset) + len(records) + trumps
        if data.count(b":") != pairs + (_colons(found.ruleset) if named else 0):
            return None
        if canonical and not isinstance(found.ruleset, dict):  # a dict keeps the sender's order
            text = encode(found)
        else:
            text = canonical_text(form, msgspec.to_builtins(found))
        answer = render.stamped({"results": results}, rules, named)
        return Typed(Judged(answer), text)

    return decode


def _ruleset(value: Any) -> Ruleset | None:
    """The core's reading of a decoded ruleset, or None for one it refuses (the schema explains)."""
    try:
        return resolve_ruleset(value)
    except RulesetError:
        return None


def _colons(value: Any) -> int:
    """The colons a resolved ruleset member holds in the body: its key's, those of the strings
    in it (an id holds one), and one per member of an object (whose keys, switch names and
    ``base``, hold none)."""
    if isinstance(value, str):
        return 1 + value.count(":")
    strings = sum(v.count(":") for v in value.values() if isinstance(v, str))
    return 1 + len(value) + strings


def _judge_records(
    records: Sequence[Any], breakdown: bool, t: BatchTables
) -> tuple[list[orjson.Fragment], bool, int]:
    """Each decoded record's result (the decoder checked them: nothing can fail), whether every
    card and trump is spelled canonically, and how many records name a trump."""
    w, settings, unset = t.weights, t.settings, msgspec.UNSET
    out: list[orjson.Fragment] = []
    append = out.append
    met = trumps = 0
    if not breakdown:
        row, rows = t.row_by_key, t.score_json
        for hand in records:
            a, b, c, d = hand.cards
            key = w[a] + w[b] + w[c] + w[d]
            trump = hand.trump
            if trump is unset:
                setting = 0
            else:
                setting = settings[trump]
                trumps += 1
            met |= key | setting
            append(rows[row[key & _MASK]][setting & _SETTING])
        return out, met < ALIAS, trumps
    first, rest, tails = t.first, t.rest, t.tails
    fragment, join = orjson.Fragment, b"".join
    for hand in records:
        a, b, c, d = hand.cards
        key = w[a] + w[b] + w[c] + w[d]
        trump = hand.trump
        if trump is unset:
            setting = 0
        else:
            setting = settings[trump]
            trumps += 1
        met |= key | setting
        key &= _MASK
        setting &= _SETTING
        tail = tails[setting].get(key)
        if tail is None:
            tail = _tail(t, setting, key, (a, b, c, d))
        append(fragment(join((first[a], rest[b], rest[c], rest[d], tail))))
    return out, met < ALIAS, trumps
