"""Templates of the messages made outside the HTTP layer's own modules, marked for the catalog.

The rules core (``quart_bezique.game``) must stay free of Babel, marshmallow's defaults are its own,
and a few modules of the HTTP layer are not marked in place: their messages are listed here so that
``pybabel extract`` finds them. Each is the exact English template of a message made elsewhere, with
the placeholder names ``catalog`` expects (``NESTED`` ones hold messages of their own); a test
drives requests that produce them and checks every answer comes back translated. Nothing calls this
module: it exists to be read by the extractor (and by that test).
"""

from __future__ import annotations

from typing import Final

from .marker import N_

MARSHMALLOW: Final = (
    N_("Unknown field."),
    N_("Missing data for required field."),
    N_("Field may not be null."),
    N_("Invalid input type."),
    N_("Invalid type."),
    N_("Invalid value."),
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Number too large."),
    N_("Not a valid string."),
    N_("Not a valid utf-8 string."),
    N_("Not a valid list."),
    N_("Length must be between {min} and {max}."),
    N_("Length must be {equal}."),
    N_("Longer than maximum length {max}."),
    N_("Shorter than minimum length {min}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Must be greater than or equal to {min}."),
    N_("Must be less than or equal to {max}."),
    N_("Must be one of: {choices}."),
    N_("String does not match expected pattern."),
)
"""marshmallow's default messages, as its fields and validators word them."""

SCHEMAS: Final = (
    N_("the two hands must belong to different players"),
    N_("a fold takes no amount"),
    N_("a {kind} needs an amount"),
)
"""The request schemas' own refusals (``schemas.py``)."""

HTTP: Final = (
    N_("the body repeats the key {key} in one object"),
    N_("the body is not valid JSON"),
    N_("shutting down"),
    N_("the scoring tables are not built yet"),
    N_("the audit log is not keeping up"),
    N_("the build manifest cannot be computed"),
    N_("Bad Request"),
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_("Request Header Fields Too Large"),
    N_("One or more header fields exceeds the maximum size."),
)
"""Other refusals of the HTTP layer (``repeats.py``, ``endpoints/health.py``, ``app.py``) and
Werkzeug's wording of the HTTP errors that reach a problem document as they are."""

CARDS: Final = (
    N_("invalid card {value} at position {position}: {reason}"),
    N_("invalid card {value}: {reason}"),
    N_("invalid trump {value}: {reason}"),
    N_("a card must be a string, not {type}"),
    N_("empty string"),
    N_("wrong length {length}: a card is a rank ({ranks}) then a suit"),
    N_("{kind} variation selector U+{code} after {before}: {fix}"),
    N_("write {card}"),
    N_("without it, {reason}"),
    N_("full-width or compatibility characters: write {card}"),
    N_("unknown rank {rank_text}: expected one of {ranks}"),
    N_("unknown suit {suit_text}: expected one of {suits}"),
    N_("expected one of {suits} or null"),
    N_("9 10 T J Q K A, or 9 10 В Д К Т"),
    N_("S C H D ♠ ♣ ♥ ♦, or П Т К Ч Б"),
    N_("mixes Latin and Cyrillic letters ({parts}): write {readings}"),
    N_("{name} before a suit symbol looks exactly like the Latin T (ten): write {readings}"),
    N_("{alike}: write {readings}"),
    N_("{name} looks like Latin {letter}"),
    N_("{name} looks like {other}"),
    N_("Latin {letter} ({meaning})"),
    N_("Latin {letter}"),
    N_("Cyrillic {letter} (U+{code}, {word})"),
    N_("Cyrillic {letter} (U+{code})"),
    N_("{code} or {russian} for the {rank} of spades"),
    N_("{code} or {russian} for the {rank} of clubs"),
    N_("{code} or {russian} for the {rank} of hearts"),
    N_("{code} or {russian} for the {rank} of diamonds"),
    N_(", or "),
    N_(" with "),
    N_("nine"),
    N_("ten"),
    N_("jack"),
    N_("queen"),
    N_("king"),
    N_("ace"),
    N_("spades"),
    N_("clubs"),
    N_("hearts"),
    N_("diamonds"),
    N_("a hand is a list of {count} cards, not {type}"),
    N_("a hand holds exactly {count} cards, got {length}"),
)
"""The card parser's refusals (``cards.py``): the message, its reasons, and the pieces the
look-alike explanations are built of (letter names, card readings), each translated in turn."""

BETTING: Final = (
    N_("{what} must be an integer from 1 to {max}, not {value}"),
    N_("the ante"),
    N_("the minimum stake"),
    N_("the maximum stake"),
    N_("the amount of action {index}"),
    N_("player id {player} is not a string"),
    N_("a table seats at least {min} players, not {count}"),
    N_("a table seats at most {max} players, not {count}"),
    N_("player {player} is seated twice"),
    N_("the dealer {dealer} is not seated"),
    N_("{count} antes of {ante} exceed the pot limit {max}"),
    N_("the maximum stake {maximum} is below the minimum stake {minimum}"),
    N_("actions must be a list"),
    N_("action {index} is not an object"),
    N_("action {index} has an unknown field {key}"),
    N_("action {index} needs a player id string"),
    N_("action {index} has type {value}; expected one of fold, stake, top_up, open"),
    N_("action {index} is a fold and takes no amount"),
    N_("action {index} ({kind}) needs an amount"),
    N_("the pot holds {pot}; {amount} more would exceed the limit {max}"),
    N_("the first stake must be at least the minimum stake {floor}, not {amount}"),
    N_("a stake must be at least the current stake {floor}, not {amount}"),
    N_("{amount} exceeds the maximum stake {cap}"),
    N_("{player} owes no top-up"),
    N_("{player} owes a top-up of exactly {owed}, not {amount}"),
    N_("opening needs two players in and a stake: {why}"),
    N_("no stake has been made yet"),
    N_("{count} players are still in, not 2"),
    N_("opening costs exactly the current stake {stake}, not {amount}"),
    N_("it is {player}'s turn, not {seat}'s ({debtor} owes a top-up of {owed})"),
    N_("it is {player}'s turn, not {seat}'s"),
    N_("{player} owes a top-up of {owed}: top up or fold first"),
    N_("the betting has ended {how}; no action is legal (rule 9.7)"),
    N_("in a showdown between {first} and {second}"),
    N_("with {player} winning uncontested"),
    N_("{player} is not seated at this table"),
)
"""The betting rules' refusals (``betting.py``): the set-up's, and the reasons a settlement
quotes when the betting it is given is invalid."""

SETTLEMENT: Final = (
    N_("the betting is invalid at action {index} ({code}): {message}"),
    N_("the betting has not ended: {player} is to act"),
    N_("hands must map player ids to their cards"),
    N_("a showdown needs the hands of {first} and {second}"),
    N_("the hand of {player} is missing"),
    N_("a hand was given for {player}, but {why}"),
    N_("the round ended uncontested"),
    N_("they are not in the showdown"),
)
"""The settlement's refusals (``settlement.py``)."""

ODDS: Final = (
    N_("seen is a list of cards, not {type}"),
    N_("opponents is an integer from 1 to {max}, not {type}"),
    N_("opponents must be from 1 to {max} (a table seats 2 to 4), got {count}"),
    N_("the hand and the seen cards hold {card} {times} times; one shoe has only {copies}"),
    N_("{remaining} cards left in the shoe cannot deal {count} hands of {size}"),
    N_("samples must be an integer from 1 to {max}, got {value}"),
    N_("seed must be an integer from 0 to {max}, got {value}"),
    N_("the hands hold {card} {times} times together; one shoe has only {copies}"),
)
"""The odds' and the showdown's refusals (``odds.py``, ``showdown.py``)."""
