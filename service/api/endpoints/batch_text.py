"""A scores-only batch read straight from its text, when the text is the compact form JSON
libraries write (``json.dumps(..., separators=(",", ":"))``, orjson, ``JSON.stringify``) with
canonical card codes.

Parsing such a batch costs more than scoring it: 10,000 hands are some 70,000 Python objects
(dicts, lists, fresh strings whose hashes the lookups must then compute), built and freed per
request. This reader builds one short byte string per hand instead, with C-speed passes over the
text, and looks each hand up by the two halves of its cards.

It decides only how the text is read, never what is accepted:

- ``read`` takes a text only when byte-level passes prove its exact layout: the top level is
  ``{"breakdown":false,"hands":[…]}`` or ``{"hands":[…],"breakdown":false}`` and every hand is
  ``{"cards":["XX","XX","XX","XX"]}`` or ``{"cards":[…],"trump":"X"}``, each ``XX`` a rank then
  a suit of the canonical codes, each ``X`` one suit letter. Such a text is valid JSON without
  whitespace, escapes or repeated keys, and parses to exactly the body those bytes spell.
- What the schema thinks of it is still asked of the schema's derived check (``top_ok``, with a
  stand-in list of the same length for the hands it leaves to the batch loop) and of the
  canonical spelling tables the loop itself uses (``CompactTables`` is built from them).
- Anything else (whitespace, aliases, a ``null`` trump, breakdowns, any doubt) is ``None``: the
  body then takes the ordinary way and is answered or refused exactly as before.

The value budget (``budget.py``) needs no pass here: it is sized so that no batch the schema
accepts exceeds it, and this reader answers only those.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

_HANDS: Final = b'"hands":['
_OFF: Final = b'"breakdown":false'
_SORTED_HEAD: Final = b"{" + _OFF + b"," + _HANDS
"""The canonical (key-sorted) form's start: the text itself is canonical when it starts so."""
_HANDS_FIRST_HEAD: Final = b"{" + _HANDS
_SORTED_END: Final = b"]}"
_HANDS_FIRST_END: Final = b"]," + _OFF + b"}"

_LONG_RANK: Final = b"10"
_DROPPED: Final = b"0"
"""The one two-character rank, read without its second byte so that every card is two bytes.
The skeleton keeps both its bytes as they are, so a ``1`` or a ``0`` anywhere but in a ``10``
rank leaves a shape no hand has."""
_RANK: Final = ord("#")
_SUIT: Final = ord("%")
_FRAME_BYTES: Final = b'{}[]":,' + b"cardstrump"
"""Everything a compact hand holds but its codes: brackets, quotes, separators, key letters."""
_CARD_SHAPES: Final = (b'"#%"', b'"' + _LONG_RANK + b'%"')
_SHAPES: Final = frozenset(
    b'"cards":[' + b",".join(cards) + b"]" + trump
    for cards in itertools.product(_CARD_SHAPES, repeat=4)
    for trump in (b"", b',"trump":"%"')
)
"""Every hand as the skeleton spells it (braces aside): its codes as ``#`` (rank) or ``10``, then
``%`` (suit); four cards, then a trump letter or nothing."""


@dataclass(frozen=True, slots=True)
class CompactTables:
    skeleton: bytes
    """A ``bytes.translate`` table: rank bytes to ``#`` (but ``1`` and ``0``, kept as they are),
    suit bytes to ``%``, the frame's bytes to themselves, every other byte to ``?`` (which no
    shape holds)."""
    frame: bytes
    """The bytes ``bytes.translate`` deletes to leave each hand's codes and its closing brace:
    the frame's, but ``}``."""
    pair: Mapping[bytes, int]
    """Two cards (four bytes, compact) to the sum of their compact weights: a hand's key is its
    two halves' sum."""
    row_by_key: Mapping[int, int]
    """The batch loop's: compact key to row of ``results``."""
    results: Sequence[Sequence[orjson.Fragment]]
    """The batch loop's: row to the hand's pre-encoded result under each trump setting."""
    setting: Mapping[bytes, int]
    """What follows a hand's cards (nothing, or its trump letter) to its trump setting."""

    @classmethod
    def build(
        cls,
        weights: Mapping[str, int],
        settings: Mapping[str | None, int],
        row_by_key: Mapping[int, int],
        results: Sequence[Sequence[orjson.Fragment]],
    ) -> CompactTables:
        """From the batch loop's canonical tables: ``weights`` (canonical code to compact
        weight), ``settings`` (canonical trump letter, or None, to setting), ``row_by_key``
        (compact key to row) and ``results`` (row to pre-encoded result per setting)."""
        compact = {_compact(code): weight for code, weight in weights.items()}
        ranks = {spelling[:1] for spelling in compact}
        suits = {spelling[1:] for spelling in compact}
        trumps = {letter.encode() for letter in settings if letter is not None}
        table = bytearray(b"?" * 256)
        for byte in _FRAME_BYTES:
            table[byte] = byte
        for rank in ranks - {_LONG_RANK[:1]}:
            table[rank[0]] = _RANK
        for byte in _LONG_RANK:
            table[byte] = byte
        for suit in suits | trumps:
            if len(suit) != 1:
                raise RuntimeError(f"a suit spelled {suit!r}: the compact batch reader needs one")
            table[suit[0]] = _SUIT
        if bytes(table).translate(None, b"?#%") != bytes(sorted(set(_FRAME_BYTES + _LONG_RANK))):
            raise RuntimeError("a card code shares a byte with the JSON frame")
        pair = {a + b: wa + wb for a, wa in compact.items() for b, wb in compact.items()}
        setting = {b"": settings[None]}
        setting.update({letter.encode(): s for letter, s in settings.items() if letter is not None})
        return cls(
            bytes(table),
            _FRAME_BYTES.replace(b"}", b"") + _DROPPED,
            pair,
            row_by_key,
            results,
            setting,
        )


def _compact(code: str) -> bytes:
    spelled = code.encode()
    if spelled.startswith(_LONG_RANK):
        spelled = spelled[: len(_LONG_RANK) - 1] + spelled[len(_LONG_RANK) :]
    elif b"1" in spelled or _DROPPED in spelled or len(spelled) != 2:
        raise RuntimeError(f"card code {code!r}: the compact batch reader needs rank + suit")
    return spelled


@dataclass(frozen=True, slots=True)
class Compact:
    """A batch ``read`` accepted."""

    results: list[orjson.Fragment]
    digest: Callable[[], str]
    """SHA-256 (hex) of the body's canonical form (``audit.canonical_body``), on demand: only an
    audited request wants it."""


def read(data: bytes, tables: CompactTables, top_ok: Callable[[Any], bool]) -> Compact | None:
    """The results of the scores-only batch ``data`` spells, if its text is compact and canonical
    (see the module docstring) and the schema accepts it; otherwise None."""
    if data.startswith(_SORTED_HEAD) and data.endswith(_SORTED_END):
        start, end = len(_SORTED_HEAD), len(data) - len(_SORTED_END)
    elif data.startswith(_HANDS_FIRST_HEAD) and data.endswith(_HANDS_FIRST_END):
        start, end = len(_HANDS_FIRST_HEAD), len(data) - len(_HANDS_FIRST_END)
    else:
        return None
    hands = data[start:end]
    skeleton = hands.translate(tables.skeleton)
    if not (skeleton.startswith(b"{") and skeleton.endswith(b"}")):
        return None  # no hands, or not objects
    shapes = skeleton[1:-1].split(b"},{")
    if not _SHAPES.issuperset(shapes):
        return None
    if not top_ok({"breakdown": False, "hands": [None] * len(shapes)}):
        return None
    # One byte string per hand: its codes, two bytes each, then its trump letter if any.
    cards = hands.translate(None, tables.frame)[:-1].split(b"}")
    pair, row, scored, setting = tables.pair, tables.row_by_key, tables.results, tables.setting
    try:
        results = [scored[row[pair[h[:4]] + pair[h[4:8]]]][setting[h[8:]]] for h in cards]
    except (KeyError, IndexError):
        return None
    return Compact(results, lambda: _digest(data, start, end))


def _digest(data: bytes, start: int, end: int) -> str:
    """The canonical form, sorted keys first, is the text itself or its hands under the sorted
    head: hashed without a copy."""
    if data.startswith(_SORTED_HEAD):
        return hashlib.sha256(data).hexdigest()
    digest = hashlib.sha256(_SORTED_HEAD)
    digest.update(memoryview(data)[start:end])
    digest.update(_SORTED_END)
    return digest.hexdigest()
