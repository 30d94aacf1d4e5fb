"""An accepted request body to its call of the rules core, once for the HTTP API and the command
line: which member is which argument, and where in the body a refusal of the core points.

Each function takes a body the endpoint's schema (or its derived check) accepted and returns the
core's result; a ``RulesError`` it raises already has its path rooted in the body, so the caller
only turns it into its own 422. A body's ``ruleset`` (docs/rules.md §13) goes to the core as sent:
the core resolves it and every result names the ruleset it followed. Keeping the mapping here
means an endpoint and the command that mirrors it cannot disagree about a default or a pointer.
"""

from __future__ import annotations

from typing import Any

from quart_bezique.game.betting import BettingResult, validate_betting
from quart_bezique.game.cards import TrumpError
from quart_bezique.game.errors import PathElement, RulesError
from quart_bezique.game.odds import Odds, hand_odds
from quart_bezique.game.ruleset import RulesetError
from quart_bezique.game.scoring import HandScore, score_hand
from quart_bezique.game.settlement import Settlement, settle_round
from quart_bezique.game.showdown import Showdown, compare_hands


def score(body: Any) -> HandScore:
    """``POST /v1/hands/score``: a refusal points at ``/trump`` or into ``/cards``."""
    try:
        return score_hand(body["cards"], body.get("trump"), body.get("ruleset"))
    except RulesetError:
        raise  # rooted at /ruleset already
    except RulesError as error:
        raise error.at("trump" if isinstance(error, TrumpError) else "cards") from None


def showdown(body: Any) -> Showdown:
    """``POST /v1/showdown``: the core names a hand by its index, then a card's."""
    first, second = body["hands"]
    try:
        return compare_hands(
            first["cards"], second["cards"], body.get("trump"), body.get("ruleset")
        )
    except RulesError as error:
        if not isinstance(error, RulesetError):  # rooted at /ruleset already
            error.path = _in_hands(error.path)
        raise


def _in_hands(path: tuple[PathElement, ...]) -> tuple[PathElement, ...]:
    if path and isinstance(path[0], int):
        hand, *rest = path
        return ("hands", hand, "cards", *rest)
    return ("hands", *path)


def betting(body: Any) -> BettingResult:
    """``POST /v1/betting/validate``: a broken setup is refused with its path in the body; an
    illegal sequence is a verdict, not a refusal."""
    return validate_betting(
        body["players"],
        body["dealer"],
        body["ante"],
        body.get("actions", ()),
        body.get("minimum_stake"),
        body.get("maximum_stake"),
        trace=body.get("trace") is True,
        ruleset=body.get("ruleset"),
    )


def settle(body: Any) -> Settlement:
    """``POST /v1/rounds/settle``: the core roots its paths in this very body."""
    return settle_round(
        body["players"],
        body["dealer"],
        body["ante"],
        body.get("actions", ()),
        body.get("hands"),
        trump=body.get("trump"),
        minimum_stake=body.get("minimum_stake"),
        maximum_stake=body.get("maximum_stake"),
        ruleset=body.get("ruleset"),
    )


def odds(body: Any) -> Odds:
    """``POST /v1/hands/odds``: a loaded body (the schema fills in the defaults)."""
    return hand_odds(
        body["cards"],
        body["trump"],
        body["seen"],
        body["opponents"],
        samples=body["samples"],
        seed=body["seed"],
        ruleset=body.get("ruleset"),
    )
