"""The work one request body may cost, bounded before it is parsed.

A parsed JSON value costs the worker a Python object whatever its size in the text, so a body
under the size limit made of empty lists, empty objects or one-character strings costs far more
memory and CPU to parse than the per-request work budget allows (docs/operations.md, "Hostile
input"), before any schema looks at it. The size limit cannot see this; a count of values can,
in one C-speed pass without parsing (``values_bound``). The budget is what the largest valid body
of the configuration can reach (``value_budget``), so no valid request is ever refused by it, and
raising ``MAX_BATCH_HANDS`` or ``MAX_ACTIONS`` raises it with them.
"""

from __future__ import annotations

from typing import Final

from quart_bezique.api.config import Config
from quart_bezique.api.contract.fields import PLAYER_MAX_LENGTH
from quart_bezique.api.contract.i18n import N_
from quart_bezique.api.contract.problems import BODY_TOO_LARGE, Problem

_COUNTED: Final = b",[{"
PER_HAND: Final = 7
"""Bound of a valid batch hand: ``{`` ``[``, three commas between its cards, one before its trump,
one after the hand (card and suit spellings hold none of the counted characters)."""
PER_ACTION: Final = 4 + PLAYER_MAX_LENGTH
"""Bound of a valid action: ``{``, two commas within, one after it, and a player id that may be
made of 64 commas or brackets."""
FIXED: Final = 1024
"""Room for what does not grow with the limits: the players, dealer, showdown hands and keys of a
settlement (under 800 even when every player id is 64 commas), a batch's ``breakdown``. Also the
smallest budget there is, so a body of at most this many bytes never needs counting."""


def value_budget(config: Config) -> int:
    """Most values (as ``values_bound`` counts them) a body may hold under ``config``."""
    return max(PER_HAND * config.max_batch_hands, PER_ACTION * config.max_actions) + FIXED


def values_bound(data: bytes) -> int:
    """An upper bound on the JSON values ``data`` holds (exact when no string holds , [ or {).

    Each item of an array or object (an element, or a key with its value) follows a comma, or the
    opening bracket when it comes first, so ``commas + brackets + 1`` bounds the values from
    above (a key and its value counting as one). Characters inside strings only add to the
    count; the budget leaves room for the worst a valid body can hold there (``PER_ACTION``).
    One C pass deleting the three characters: cheaper than three counting passes, for a
    transient copy of the rest of the body."""
    return len(data) - len(data.translate(None, _COUNTED)) + 1


def refuse_excess(data: bytes, budget: int) -> None:
    """A 413 problem for a body that may hold more values than the budget, before it is parsed.
    A body shorter than the budget cannot exceed it (each counted character is a byte): nothing is
    counted then, which spares every ordinary request the pass."""
    if len(data) < budget:
        return
    bound = values_bound(data)
    if bound <= budget:
        return
    raise Problem(
        BODY_TOO_LARGE,
        N_(
            "the body holds up to {bound} JSON values (counting its commas and brackets), more "
            "than the {budget} the largest valid request can hold"
        ).format(bound=bound, budget=budget),
    )
