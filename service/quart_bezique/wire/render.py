"""Core results to wire dictionaries (the shapes documented by the response schemas).

Plain functions building plain dicts: orjson serialises them directly. Enum members are rendered
by ``.value`` so the wire strings are the core's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quart_bezique.game.ruleset import Ruleset

if TYPE_CHECKING:  # annotations only: rendering needs no behaviour from these modules
    from quart_bezique.game.betting import BettingResult, BettingState, LegalAction
    from quart_bezique.game.cards import Suit
    from quart_bezique.game.odds import Odds
    from quart_bezique.game.scoring import Combination, HandScore, LooseCard
    from quart_bezique.game.settlement import Settlement
    from quart_bezique.game.showdown import Showdown


def stamped(out: dict[str, Any], ruleset: Ruleset, named: bool) -> dict[str, Any]:
    """``out`` with the ruleset it follows (docs/rules.md §13.6): its canonical id always; its
    digest too when the request ``named`` one (a request without ``ruleset`` gets ``classic/1``'s
    answer exactly as before rulesets existed)."""
    out["ruleset"] = ruleset.id
    if named:
        out["ruleset_sha256"] = ruleset.digest
    return out


def trump_code(trump: Suit | None) -> str | None:
    return None if trump is None else trump.value


def combinations(combos: Sequence[Combination]) -> list[dict[str, Any]]:
    return [
        {"type": c.type.value, "cards": [card.code for card in c.cards], "points": c.points}
        for c in combos
    ]


def loose(cards: Sequence[LooseCard]) -> list[dict[str, Any]]:
    return [{"card": lc.card.code, "points": lc.points} for lc in cards]


def scored_hand(hand: HandScore) -> dict[str, Any]:
    """A hand's score and breakdown (``ScoredHandSchema``)."""
    return {
        "cards": [c.code for c in hand.cards],
        "trump": trump_code(hand.trump),
        "score": hand.score,
        "combinations": combinations(hand.combinations),
        "loose": loose(hand.loose),
    }


def showdown(result: Showdown, players: Sequence[str]) -> dict[str, Any]:
    """``ShowdownResultSchema``: ``players`` names the hands, in the order they were compared."""
    hands = []
    for player, hand in zip(players, result.hands, strict=True):
        hands.append(
            {
                "player": player,
                "cards": [c.code for c in hand.cards],
                "score": hand.score,
                "combinations": combinations(hand.combinations),
                "loose": loose(hand.loose),
            }
        )
    return {
        "winner": None if result.winner is None else players[result.winner],
        "tie": result.winner is None,
        "trump": trump_code(result.trump),
        "hands": hands,
    }


def legal_action(action: LegalAction) -> dict[str, Any]:
    out: dict[str, Any] = {"type": action.type.value}
    if action.amount is not None:
        out["amount"] = action.amount
    if action.min is not None:
        out["min"] = action.min
        out["max"] = action.max
    return out


def betting_state(state: BettingState) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "pot": state.pot,
        "current_stake": state.current_stake,
        "players": [
            {"player": p.player, "contributed": p.contributed, "folded": p.folded}
            for p in state.players
        ],
        "to_act": state.to_act,
        "top_up_pending": state.top_up_pending,
        "legal_actions": [legal_action(a) for a in state.legal_actions],
        "showdown": None if state.showdown is None else list(state.showdown),
        "winner": state.winner,
    }


def betting(result: BettingResult) -> dict[str, Any]:
    error = result.error
    out: dict[str, Any] = {
        "valid": result.valid,
        "error": None
        if error is None
        else {"index": error.index, "code": error.code.value, "message": error.message},
        "state": betting_state(result.state),
    }
    if result.trace is not None:
        out["trace"] = [betting_state(state) for state in result.trace]
    return out


def settlement(result: Settlement, named: bool = False) -> dict[str, Any]:
    """``named``: the request named a ruleset, so the answer also says what was carried over
    (``carried``, docs/rules.md §13.4)."""
    pair = result.betting.state.showdown
    out = {
        "pot": result.pot,
        "players": [{"player": p.player, "payout": p.payout, "net": p.net} for p in result.players],
        "winners": list(result.winners),
        "showdown": None
        if result.showdown is None or pair is None
        else showdown(result.showdown, pair),
    }
    if named:
        out["carried"] = result.carried
    return out


def odds(result: Odds, named: bool = False) -> dict[str, Any]:
    """``POST /v1/hands/odds``'s answer (and the command line's ``--json``), key for key."""
    out = {
        "cards": [c.code for c in result.cards],
        "trump": trump_code(result.trump),
        "score": result.score,
        "opponents": result.opponents,
        "remaining": result.remaining,
        "exact": result.exact,
        "win": result.win,
        "tie": result.tie,
        "loss": result.loss,
        "percentile": result.percentile,
        "wins": result.wins,
        "ties": result.ties,
        "losses": result.losses,
        "total": result.total,
        "samples": result.samples,
        "seed": result.seed,
        "standard_error": result.standard_error,
    }
    return stamped(out, result.ruleset, named)
