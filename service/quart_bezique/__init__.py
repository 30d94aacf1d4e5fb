"""Quart-Bezique adjudication as a library, for platforms that adjudicate without a web server::

    >>> from quart_bezique import score_hand
    >>> score_hand(["KS", "QS", "JS", "JC"], trump="S").score
    16

Every function takes card codes (any spelling docs/rules.md §2 accepts) or ``Card`` objects and
raises a ``RulesError`` (with a stable ``code`` and a ``path`` into its input) for input the rules
refuse. Betting verdicts are values, not errors.
"""

from .game.betting import Action, ActionType, BettingResult, ReasonCode, validate_betting
from .game.cards import Card, Rank, Suit, parse_card, parse_cards
from .game.errors import RulesError
from .game.odds import Odds, hand_odds
from .game.ruleset import RULESET
from .game.scoring import HandScore, score_hand
from .game.settlement import Settlement, settle_round
from .game.showdown import Showdown, compare_hands

__all__ = [
    "RULESET",
    "Action",
    "ActionType",
    "BettingResult",
    "Card",
    "HandScore",
    "Odds",
    "Rank",
    "ReasonCode",
    "RulesError",
    "Settlement",
    "Showdown",
    "Suit",
    "compare_hands",
    "hand_odds",
    "parse_card",
    "parse_cards",
    "score_hand",
    "settle_round",
    "validate_betting",
]
