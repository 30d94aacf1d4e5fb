"""Cards, suits, ranks and the wire notation of docs/rules.md §1 and §2.

Every card is one of 24 shared, immutable ``Card`` instances, so identity, hashing and ordering are
cheap and a parsed hand never allocates. Parsing goes through one precomputed dictionary of every
accepted spelling (aliases, suit symbols, any letter case) so the hot path is a single lookup; the
slow path runs only to explain *why* a spelling was refused.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from .errors import RulesError


class Suit(Enum):
    """A suit, in the fixed order S, C, H, D (black pair first) used everywhere for tie-breaks."""

    SPADES = "S"
    CLUBS = "C"
    HEARTS = "H"
    DIAMONDS = "D"

    # Members are singletons: identity hashing is correct and, unlike Enum's default, runs in C.
    __hash__ = object.__hash__

    @property
    def code(self) -> str:
        return self.value

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]

    @property
    def is_black(self) -> bool:
        return self in (Suit.SPADES, Suit.CLUBS)

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]


class Rank(Enum):
    """A rank, declared low to high (section 1); ``index`` is the position in that order."""

    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"

    __hash__ = object.__hash__

    @property
    def code(self) -> str:
        return self.value

    @property
    def index(self) -> int:
        return _RANK_INDEX[self]

    @property
    def points(self) -> int:
        """Points of a loose card of this rank (section 3): K Q J 10 score 1, A and 9 are fat."""
        return 0 if self in (Rank.ACE, Rank.NINE) else 1


SUITS: Final[tuple[Suit, ...]] = tuple(Suit)
RANKS: Final[tuple[Rank, ...]] = tuple(Rank)
_SUIT_INDEX: Final = {suit: i for i, suit in enumerate(SUITS)}
_RANK_INDEX: Final = {rank: i for i, rank in enumerate(RANKS)}
_SUIT_SYMBOL: Final = {Suit.SPADES: "♠", Suit.CLUBS: "♣", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦"}

COPIES_IN_SHOE: Final = 6
"""Each of the 24 cards exists this many times in the six-deck shoe (section 1)."""
HAND_SIZE: Final = 4


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One of the 24 distinct cards. Use ``card(rank, suit)`` or ``parse_card``; never build twins.

    Equality is identity and the hash is the index: there is exactly one instance per card, and
    hashing two enums per lookup would dominate the scoring search.
    """

    rank: Rank
    suit: Suit
    index: int
    """Position in ``CARDS``, the card order: suits S C H D, inside a suit ranks high to low
    (A K Q J 10 9), so sorted cards read the way players write them (K♠ Q♠ J♠)."""
    points: int
    """Points of the card when loose (section 3), a plain int because the search reads it often."""
    code: str
    """The canonical wire form: rank then suit, upper case, ``10`` never ``T``."""

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_card_at, (self.index,))


CARDS: Final[tuple[Card, ...]] = tuple(
    Card(rank, suit, s * len(RANKS) + r, rank.points, rank.value + suit.value)
    for s, suit in enumerate(SUITS)
    for r, rank in enumerate(reversed(RANKS))
)


def _card_at(index: int) -> Card:
    """Unpickling goes back to the shared instance, so identity equality survives copies."""
    return CARDS[index]


def card(rank: Rank, suit: Suit) -> Card:
    """The shared instance of the card with this rank and suit."""
    return CARDS[suit.index * len(RANKS) + len(RANKS) - 1 - rank.index]


_RANK_SPELLINGS: Final = {
    Rank.NINE: ("9",),
    Rank.TEN: ("10", "T"),
    Rank.JACK: ("J",),
    Rank.QUEEN: ("Q",),
    Rank.KING: ("K",),
    Rank.ACE: ("A",),
}
_SUIT_SPELLINGS: Final = {suit: (suit.value, _SUIT_SYMBOL[suit]) for suit in SUITS}


def _case_variants(text: str) -> set[str]:
    """Every upper/lower-case spelling of ``text`` ("any letter case" of section 2)."""
    options = [(ch.lower(), ch.upper()) if ch.isalpha() else (ch,) for ch in text]
    return {"".join(chars) for chars in itertools.product(*options)}


def _build_spellings() -> dict[str, Card]:
    spellings: dict[str, Card] = {}
    for c in CARDS:
        for rank_text in _RANK_SPELLINGS[c.rank]:
            for suit_text in _SUIT_SPELLINGS[c.suit]:
                for variant in _case_variants(rank_text + suit_text):
                    spellings[variant] = c
    return spellings


CARD_BY_SPELLING: Final[dict[str, Card]] = _build_spellings()
"""Every accepted spelling of every card, mapped to its shared instance: the parser's hot path."""

SUIT_BY_SPELLING: Final[dict[str, Suit]] = {
    variant: suit
    for suit in SUITS
    for spelling in _SUIT_SPELLINGS[suit]
    for variant in _case_variants(spelling)
}

_RANK_BY_SPELLING: Final[dict[str, Rank]] = {
    variant: rank
    for rank, spellings in _RANK_SPELLINGS.items()
    for spelling in spellings
    for variant in _case_variants(spelling)
}


class CardError(RulesError):
    """A card spelling that section 2 does not accept.

    ``position`` is the card's index in the list it came from (None for a lone value); it is also
    the error's ``path`` so an HTTP layer can point at it without re-parsing.
    """

    code = "INVALID_CARD"

    def __init__(self, value: object, reason: str, position: int | None = None) -> None:
        self.value = value
        self.reason = reason
        self.position = position
        where = f" at position {position}" if position is not None else ""
        shown = (
            value if isinstance(value, str | int | float | bool | None) else type(value).__name__
        )
        super().__init__(
            f"invalid card {shown!r}{where}: {reason}",
            path=() if position is None else (position,),
        )


def _explain(text: object) -> str:
    """Why ``text`` is not a card: only called once the fast lookup has failed."""
    if not isinstance(text, str):
        return f"a card must be a string, not {type(text).__name__}"
    if text == "":
        return "empty string"
    if len(text) not in (2, 3):
        return f"wrong length {len(text)}: a card is a rank (9 10 T J Q K A) then a suit (S C H D)"
    rank_text, suit_text = text[:-1], text[-1]
    if rank_text.upper() not in _RANK_BY_SPELLING:
        return f"unknown rank {rank_text!r}: expected one of 9 10 T J Q K A"
    if suit_text.upper() not in SUIT_BY_SPELLING:
        return f"unknown suit {suit_text!r}: expected one of S C H D ♠ ♣ ♥ ♦"
    return "not a card"  # pragma: no cover - every accepted pair is in the table


def parse_card(text: object, position: int | None = None) -> Card:
    """Parse one card in any accepted spelling; raise ``CardError`` naming value and position."""
    if isinstance(text, str):
        found = CARD_BY_SPELLING.get(text)
        if found is not None:
            return found
    raise CardError(text, _explain(text), position)


def parse_cards(texts: Iterable[object]) -> tuple[Card, ...]:
    """Parse a list of cards, keeping their order; the first bad one raises with its position."""
    return tuple(parse_card(text, i) for i, text in enumerate(texts))


class TrumpError(RulesError):
    """A trump value that is neither a suit letter/symbol nor null."""

    code = "INVALID_TRUMP"

    def __init__(self, value: object) -> None:
        self.value = value
        shown = value if isinstance(value, str | int | float | bool) else type(value).__name__
        super().__init__(f"invalid trump {shown!r}: expected one of S C H D ♠ ♣ ♥ ♦ or null")


def parse_suit(text: object) -> Suit | None:
    """Parse a trump: a suit in any accepted spelling, a ``Suit``, or None for no trumps."""
    if text is None or isinstance(text, Suit):
        return text
    if isinstance(text, str):
        found = SUIT_BY_SPELLING.get(text)
        if found is not None:
            return found
    raise TrumpError(text)


def format_cards(cards: Sequence[Card]) -> list[str]:
    """Canonical wire codes of ``cards``, in the order given."""
    return [c.code for c in cards]
