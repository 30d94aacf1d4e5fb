"""Human-readable verdicts: small aligned tables, cards with their suit symbols (K♠ 10♥).

Only presentation: every number shown comes from the same core result the JSON carries. Every
string from the input (player ids, the core's messages quoting them) is shown escaped
(``safe.py``), so no control character of it reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from quart_bezique.game.betting import BettingResult
from quart_bezique.game.cards import Card, Suit
from quart_bezique.game.odds import Odds
from quart_bezique.game.scoring import HandScore
from quart_bezique.game.settlement import Settlement
from quart_bezique.game.showdown import Showdown

from .safe import shown


def card(c: Card) -> str:
    return c.rank.value + c.suit.symbol


def cards(cs: Iterable[Card]) -> str:
    return " ".join(card(c) for c in cs)


def trump(t: Suit | None) -> str:
    return "no trump" if t is None else f"trump {t.symbol}"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def table(header: Sequence[str], rows: Iterable[Sequence[object]], indent: str = "  ") -> str:
    """Columns padded to their widest cell; numbers right-aligned; every cell escaped."""
    header = [shown(cell) for cell in header]
    body = [[shown(str(cell)) for cell in row] for row in rows]
    numeric = [bool(body) and all(_is_number(r[i]) for r in body) for i in range(len(header))]
    widths = [max(len(r[i]) for r in [list(header), *body]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.rjust(w) if numeric[i] else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return (indent + "  ".join(padded)).rstrip()

    return "\n".join([line(header), *(line(r) for r in body)])


def breakdown(hand: HandScore) -> str:
    rows: list[Sequence[object]] = [
        (c.type.value.replace("_", " "), cards(c.cards), c.points) for c in hand.combinations
    ]
    rows += [("loose", card(lc.card), lc.points) for lc in hand.loose]
    rows.append(("total", "", hand.score))
    return table(("declared", "cards", "points"), rows)


def scored(hand: HandScore, ruleset: str) -> str:
    head = f"{cards(hand.cards)}  {trump(hand.trump)}  score {hand.score}  ({ruleset})"
    return f"{head}\n{breakdown(hand)}"


def showdown(result: Showdown, players: Sequence[str], ruleset: str) -> str:
    if result.winner is None:
        verdict = f"tie at {result.hands[0].score}"
    else:
        verdict = f"{shown(players[result.winner])} wins"
    parts = [f"showdown  {trump(result.trump)}  {verdict}  ({ruleset})"]
    for player, hand in zip(players, result.hands, strict=True):
        parts.append(f"{shown(player)}: {cards(hand.cards)}  score {hand.score}\n{breakdown(hand)}")
    return "\n".join(parts)


def betting(result: BettingResult, ruleset: str) -> str:
    state = result.state
    if result.error is None:
        verdict = "VALID"
    else:
        error = result.error
        verdict = f"INVALID at action {error.index}: {error.code.value} ({shown(error.message)})"
    rows = [(p.player, p.contributed, "folded" if p.folded else "") for p in state.players]
    lines = [
        f"betting {verdict}  ({ruleset})",
        f"  phase {state.phase.value}  pot {state.pot}"
        + ("" if state.to_act is None else f"  to act: {shown(state.to_act)}"),
        table(("player", "contributed", ""), rows),
    ]
    return "\n".join(lines)


def settlement(result: Settlement, ruleset: str) -> str:
    rows = [(p.player, p.payout, p.net) for p in result.players]
    lines = [
        f"settled  pot {result.pot}  winners {shown(', '.join(result.winners))}  ({ruleset})",
        table(("player", "payout", "net"), rows),
    ]
    pair = result.betting.state.showdown
    if result.showdown is not None and pair is not None:
        lines.append(showdown(result.showdown, pair, ruleset))
    return "\n".join(lines)


def odds(result: Odds, ruleset: str) -> str:
    how = (
        "exact"
        if result.exact
        else f"Monte Carlo, {result.samples} samples, seed {result.seed}, "
        f"standard error {result.standard_error:.4f}"
    )
    outcomes = (
        ("win", result.win, result.wins),
        ("tie", result.tie, result.ties),
        ("loss", result.loss, result.losses),
    )
    if result.exact:
        header: tuple[str, ...] = ("outcome", "probability", "deals")
        rows: list[tuple[object, ...]] = [(n, f"{p:.6f}", count) for n, p, count in outcomes]
    else:
        header = ("outcome", "probability")
        rows = [(n, f"{p:.6f}") for n, p, _ in outcomes]
    return "\n".join(
        [
            f"{cards(result.cards)}  {trump(result.trump)}  score {result.score}  ({ruleset})",
            f"  {result.opponents} opponent(s), {result.remaining} cards left; {how}",
            f"  percentile {result.percentile:.2f}",
            table(header, rows),
        ]
    )
