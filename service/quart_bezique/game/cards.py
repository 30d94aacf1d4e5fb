"""Cards, suits, ranks and the wire notation of docs/rules.md §1 and §2.

Every card is one of 24 shared, immutable ``Card`` instances, so identity, hashing and ordering are
cheap and a parsed hand never allocates. Parsing goes through one precomputed dictionary of every
accepted spelling (aliases, suit symbols, any letter case) so the hot path is a single lookup; the
slow path runs only to explain *why* a spelling was refused.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from .errors import RulesError
from .messages import N_, NP_, Joined, Message


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


_LATIN_RANKS: Final[Mapping[Rank, tuple[str, ...]]] = {
    Rank.NINE: ("9",),
    Rank.TEN: ("10", "T"),
    Rank.JACK: ("J",),
    Rank.QUEEN: ("Q",),
    Rank.KING: ("K",),
    Rank.ACE: ("A",),
}
_LATIN_SUITS: Final[Mapping[Suit, tuple[str, ...]]] = {suit: (suit.value,) for suit in SUITS}
_RUSSIAN_RANKS: Final[Mapping[Rank, tuple[str, ...]]] = {
    Rank.NINE: ("9",),
    Rank.TEN: ("10",),
    Rank.JACK: ("В",),  # валет
    Rank.QUEEN: ("Д",),  # дама
    Rank.KING: ("К",),  # король
    Rank.ACE: ("Т",),  # туз
}
_RUSSIAN_SUITS: Final[Mapping[Suit, tuple[str, ...]]] = {
    Suit.SPADES: ("П",),  # пики
    Suit.CLUBS: ("Т", "К"),  # трефы, крести
    Suit.HEARTS: ("Ч",),  # черви
    Suit.DIAMONDS: ("Б",),  # бубны
}
_SYMBOLS: Final[Mapping[Suit, tuple[str, ...]]] = {suit: (_SUIT_SYMBOL[suit],) for suit in SUITS}
RUSSIAN_RANKS: Final = _RUSSIAN_RANKS
"""The Russian rank letters of each rank (digits shared), for clients that display them."""
RUSSIAN_SUITS: Final = _RUSSIAN_SUITS
"""The Russian suit letters of each suit (clubs has two: трефы, крести)."""
_TUZ: Final = "Т"
"""The Cyrillic rank letter that reads differently as its Latin twin (``T``, ten): section 2.2
refuses it next to a suit symbol, where nothing else tells the scripts apart."""

_NOTATIONS: Final = (
    (_LATIN_RANKS, _LATIN_SUITS),
    (_LATIN_RANKS, _SYMBOLS),
    (_RUSSIAN_RANKS, _RUSSIAN_SUITS),
    ({r: s for r, s in _RUSSIAN_RANKS.items() if s[0].isalpha() and s[0] != _TUZ}, _SYMBOLS),
)
"""The accepted (rank table, suit table) pairs of section 2.2: one script per code, digits and
suit symbols going with either; never a Latin letter with a Cyrillic one."""


def _case_variants(text: str) -> set[str]:
    """Every upper/lower-case spelling of ``text`` ("any letter case" of section 2)."""
    options = [(ch.lower(), ch.upper()) if ch.isalpha() else (ch,) for ch in text]
    return {"".join(chars) for chars in itertools.product(*options)}


def _build_spellings() -> dict[str, Card]:
    spellings: dict[str, Card] = {}
    for ranks, suits in _NOTATIONS:
        for c in CARDS:
            for rank_text in ranks.get(c.rank, ()):
                for suit_text in suits[c.suit]:
                    for variant in _case_variants(rank_text + suit_text):
                        assert spellings.setdefault(variant, c) is c, variant  # one reading
    return spellings


CARD_BY_SPELLING: Final[dict[str, Card]] = _build_spellings()
"""Every accepted spelling of every card, mapped to its shared instance: the parser's hot path."""

SUIT_BY_SPELLING: Final[dict[str, Suit]] = {
    variant: suit
    for table in (_LATIN_SUITS, _SYMBOLS, _RUSSIAN_SUITS)
    for suit in SUITS
    for spelling in table[suit]
    for variant in _case_variants(spelling)
}
"""Every accepted trump spelling (section 2.5): a suit letter of either script, or a symbol."""


class CardError(RulesError):
    """A card spelling that section 2 does not accept.

    ``position`` is the card's index in the list it came from (None for a lone value); it is also
    the error's ``path`` so an HTTP layer can point at it without re-parsing. ``reason`` is why,
    without the value (a ``Message``: any language renders it).
    """

    code = "INVALID_CARD"

    def __init__(self, value: object, reason: Message, position: int | None = None) -> None:
        self.value = value
        self.reason = reason
        self.position = position
        shown = repr(
            value if isinstance(value, str | int | float | bool | None) else type(value).__name__
        )
        if position is None:
            message = N_("invalid card {value}: {reason}").format(value=shown, reason=reason)
        else:
            message = N_("invalid card {value} at position {position}: {reason}").format(
                value=shown, position=position, reason=reason
            )
        super().__init__(message, path=() if position is None else (position,))


_RANK_NAME: Final = {
    Rank.NINE: N_("nine"),
    Rank.TEN: N_("ten"),
    Rank.JACK: N_("jack"),
    Rank.QUEEN: N_("queen"),
    Rank.KING: N_("king"),
    Rank.ACE: N_("ace"),
}
_SUIT_NAME: Final = {
    Suit.SPADES: N_("spades"),
    Suit.CLUBS: N_("clubs"),
    Suit.HEARTS: N_("hearts"),
    Suit.DIAMONDS: N_("diamonds"),
}
_CARD_NAME: Final = {
    Suit.SPADES: N_("{code} or {russian} for the {rank} of spades"),
    Suit.CLUBS: N_("{code} or {russian} for the {rank} of clubs"),
    Suit.HEARTS: N_("{code} or {russian} for the {rank} of hearts"),
    Suit.DIAMONDS: N_("{code} or {russian} for the {rank} of diamonds"),
}
"""One template per suit: a language that declines the suit's name does so in its own template."""
_RUSSIAN_WORD: Final[Mapping[str, Mapping[str, Rank | Suit]]] = {
    "rank": {"В": Rank.JACK, "Д": Rank.QUEEN, "К": Rank.KING, "Т": Rank.ACE},
    "suit": {
        "П": Suit.SPADES,
        "Т": Suit.CLUBS,
        "К": Suit.CLUBS,
        "Ч": Suit.HEARTS,
        "Б": Suit.DIAMONDS,
    },
}
_CYRILLIC_TWIN: Final = dict(
    zip("АаВСсЕеНһКкМОоРрТтХхЅѕЈјԚԛԁ", "AaBCcEeHhKkMOoPpTtXxSsJjQqd", strict=True)
)
"""Cyrillic letters that look like Latin ones, to name the confusion in a refusal."""
_LATIN_TWIN: Final = {latin: cyrillic for cyrillic, latin in _CYRILLIC_TWIN.items()}
_VARIATION_SELECTORS: Final = {
    "\ufe0f": N_("an invisible emoji-style mark after {before}"),
    "\ufe0e": N_("an invisible text-style mark after {before}"),
}
_RANKS_HINT: Final = N_("9 10 J Q K A, or in Russian 9 10 В Д К Т")
_SUITS_HINT: Final = N_("S C H D ♠ ♣ ♥ ♦, or in Russian П Т К Ч Б")
_OR: Final = N_(", or ")
_WITH: Final = N_(" with ")


def _is_cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_latin(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _lookup(
    rank_text: str,
    suit_text: str,
    ranks: Mapping[Rank, tuple[str, ...]],
    suits: Mapping[Suit, tuple[str, ...]],
) -> Card | None:
    rank = next((r for r, s in ranks.items() if rank_text.upper() in s), None)
    suit = next((u for u, s in suits.items() if suit_text.upper() in s), None)
    return None if rank is None or suit is None else card(rank, suit)


def _twin(text: str, table: dict[str, str], foreign: Callable[[str], bool]) -> str | None:
    """``text`` with every ``foreign`` letter replaced by its look-alike in the other script (None
    if one has no look-alike)."""
    out = []
    for ch in text:
        if foreign(ch):
            if ch not in table:
                return None
            ch = table[ch]
        out.append(ch)
    return "".join(out)


def _readings(text: str) -> list[Card]:
    """Every card a refused 2- or 3-character code could be taken for: each part read in its own
    script, and the whole code read as Latin or as Cyrillic look-alikes."""
    rank_text, suit_text = text[:-1], text[-1]
    latin = (_LATIN_RANKS, {u: _LATIN_SUITS[u] + _SYMBOLS[u] for u in SUITS})
    russian = (_RUSSIAN_RANKS, {u: _RUSSIAN_SUITS[u] + _SYMBOLS[u] for u in SUITS})
    own_rank = latin[0] if any(map(_is_latin, rank_text)) else russian[0]
    own_suit = latin[1] if _is_latin(suit_text) else russian[1]
    found = [_lookup(rank_text, suit_text, own_rank, own_suit)]
    for table, foreign, (ranks, suits) in (
        (_CYRILLIC_TWIN, _is_cyrillic, latin),
        (_LATIN_TWIN, _is_latin, russian),
    ):
        twin = _twin(text, table, foreign)
        if twin is not None:
            found.append(_lookup(twin[:-1], twin[-1], ranks, suits))
    return list(dict.fromkeys(c for c in found if c is not None))


def russian_code(c: Card) -> str:
    """The card in Russian letters (section 2.2), e.g. ``ТП`` for the ace of spades."""
    return _RUSSIAN_RANKS[c.rank][0] + _RUSSIAN_SUITS[c.suit][0]


def _write(cards: Sequence[Card]) -> Joined:
    return Joined(
        (
            _CARD_NAME[c.suit].format(code=c.code, russian=russian_code(c), rank=_RANK_NAME[c.rank])
            for c in cards
        ),
        _OR,
    )


def _name(ch: str, part: str) -> Message:
    """A letter of a code as a person should see it: its script and meaning."""
    if _is_latin(ch):
        rank = _lookup(ch, "S", _LATIN_RANKS, _LATIN_SUITS)
        suit = _lookup("K", ch, _LATIN_RANKS, _LATIN_SUITS)
        meaning = (
            _RANK_NAME[rank.rank] if part == "rank" and rank
            else _SUIT_NAME[suit.suit] if part == "suit" and suit else None
        )  # fmt: skip
        if meaning is None:
            return N_("Latin {letter}").format(letter=ch)
        return N_("Latin {letter} ({meaning})").format(letter=ch, meaning=meaning)
    if not _is_cyrillic(ch):
        return N_("the character {letter}").format(letter=repr(ch))
    word = _RUSSIAN_WORD[part].get(ch.upper())
    if word is None:
        return N_("Cyrillic {letter}").format(letter=ch)
    meaning = _RANK_NAME[word] if isinstance(word, Rank) else _SUIT_NAME[word]
    return N_("Cyrillic {letter} ({meaning})").format(letter=ch, meaning=meaning)


def _explain_letters(text: str) -> Message | None:
    """The script confusions of section 2.2: mixed scripts, Т before a suit symbol, look-alikes."""
    letters = [ch for ch in text if ch.isalpha()]
    readings = _readings(text)
    if not readings:
        return None
    parts = [_name(ch, "suit" if i == len(text) - 1 else "rank") for i, ch in enumerate(text)
             if ch.isalpha()]  # fmt: skip
    if any(map(_is_latin, letters)) and any(map(_is_cyrillic, letters)):
        return N_("mixes Latin and Cyrillic letters ({parts}): write {readings}").format(
            parts=Joined(parts, _WITH), readings=_write(readings)
        )
    if text[:-1].upper() == _TUZ:
        return N_(
            "{name} before a suit symbol looks exactly like the Latin T (ten): write {readings}"
        ).format(name=parts[0], readings=_write(readings))
    twins = [ch for ch in letters if ch in _CYRILLIC_TWIN or ch in _LATIN_TWIN]
    if twins:
        alike = Joined(
            (
                N_("{name} looks like Latin {letter}").format(
                    name=_name(ch, "rank"), letter=_CYRILLIC_TWIN[ch]
                )
                if _is_cyrillic(ch)
                else N_("{name} looks like {other}").format(
                    name=_name(ch, "rank"), other=_name(_LATIN_TWIN[ch], "rank")
                )
                for ch in twins
            ),
            N_(", "),
        )
        return N_("{alike}: write {readings}").format(alike=alike, readings=_write(readings))
    return None  # pragma: no cover - a reading needs a look-alike, a mix or a tuz


_TYPE_NAME: Final = {
    int: N_("a number"),
    float: N_("a number"),
    bool: N_("true or false"),
    list: N_("a list"),
    dict: N_("an object"),
    type(None): N_("null"),
}


def _explain(text: object) -> Message:
    """Why ``text`` is not a card: only called once the fast lookup has failed."""
    if not isinstance(text, str):
        kind = _TYPE_NAME.get(type(text), N_("another kind of value"))
        return N_("a card is written as text in quotes, not as {kind}").format(kind=kind)
    if text == "":
        return N_("no card is written here")
    if len(text) > 4:  # a code and one stray character at most: anything longer is just too long
        return _wrong_length(len(text))
    for i, ch in enumerate(text):
        if ch in _VARIATION_SELECTORS and i > 0:
            mark = _VARIATION_SELECTORS[ch].format(before=text[i - 1])
            rest = text[:i] + text[i + 1 :]
            if rest in CARD_BY_SPELLING:
                return N_("{mark}: write {card}").format(mark=mark, card=rest)
            return N_("{mark}; without it, {reason}").format(mark=mark, reason=_explain(rest))
    folded = unicodedata.normalize("NFKC", text)
    if folded != text and folded in CARD_BY_SPELLING:
        return N_("full-width or compatibility characters: write {card}").format(card=folded)
    if len(text) not in (2, 3):
        return _wrong_length(len(text))
    confused = _explain_letters(text)
    if confused is not None:
        return confused
    rank_text, suit_text = text[:-1], text[-1]
    if not any(rank_text.upper() in s for t in (_LATIN_RANKS, _RUSSIAN_RANKS) for s in t.values()):
        return N_("unknown rank {rank_text}: expected one of {ranks}").format(
            rank_text=repr(rank_text), ranks=_RANKS_HINT
        )
    if suit_text.upper() not in SUIT_BY_SPELLING:
        return N_("unknown suit {suit_text}: expected one of {suits}").format(
            suit_text=repr(suit_text), suits=_SUITS_HINT
        )
    return N_("no card is written so")  # pragma: no cover - every accepted pair is in the table


def _wrong_length(length: int) -> Message:
    return NP_(
        "{length} character is not a card: a card is a rank ({ranks}) then a suit",
        "{length} characters are not a card: a card is a rank ({ranks}) then a suit",
        "length",
        length=length,
        ranks=_RANKS_HINT,
    )


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
        self.reason = _explain_trump(value)
        super().__init__(
            N_("invalid trump {value}: {reason}").format(value=repr(shown), reason=self.reason)
        )


def _explain_trump(value: object) -> Message:
    """Why a trump was refused, naming a look-alike letter or variation selector if there is one."""
    expected = N_("expected one of {suits}, or nothing for a game without trumps").format(
        suits=_SUITS_HINT
    )
    if not isinstance(value, str) or not 1 <= len(value) <= 2:
        return expected
    ch = value[0]
    if len(value) == 2:
        if value[1] not in _VARIATION_SELECTORS:
            return expected
        mark = _VARIATION_SELECTORS[value[1]].format(before=ch)
        if ch in SUIT_BY_SPELLING:
            return N_("{mark}: write {card}").format(mark=mark, card=ch)
        return N_("{mark}; without it, {reason}").format(mark=mark, reason=expected)
    twin = (_CYRILLIC_TWIN if _is_cyrillic(ch) else _LATIN_TWIN).get(ch, "")
    if twin not in SUIT_BY_SPELLING:
        return expected
    suit = SUIT_BY_SPELLING[twin]
    return N_(
        "{name} is not a suit but looks like {other}: write {code}, {symbol} or {russian} for "
        "{suit}"
    ).format(
        name=_name(ch, "suit"),
        other=_name(twin, "suit"),
        code=suit.value,
        symbol=suit.symbol,
        russian=_RUSSIAN_SUITS[suit][0],
        suit=_SUIT_NAME[suit],
    )


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
