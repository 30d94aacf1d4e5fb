"""Human-readable verdicts in one language: small aligned tables, cards with their suit symbols.

Only presentation: every number shown comes from the same core result the JSON carries. Every
label is a message template rendered in the chosen language (the service's catalogs), and cards
are written in that language's notation (``K♠ 10♥``, or ``К♠ 10♥`` with Russian letters). Every
string from the input (player ids, the core's messages quoting them) is shown escaped
(``safe.py``), so no control character of it reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from quart_bezique.game.betting import BettingResult, Phase
from quart_bezique.game.cards import RUSSIAN_RANKS, Card, Suit
from quart_bezique.game.messages import N_, NP_, Message, Translations, render
from quart_bezique.game.odds import Odds
from quart_bezique.game.scoring import CombinationType, HandScore
from quart_bezique.game.settlement import Settlement
from quart_bezique.game.showdown import Showdown

from .safe import shown

ENGLISH: Final = "en"


@dataclass(frozen=True, slots=True)
class Voice:
    """A language to print in: its catalog and whether cards take Russian letters."""

    words: Translations
    cyrillic_cards: bool

    def number(self, text: str) -> str:
        """A decimal as this language writes it (a comma in Russian and Ukrainian)."""
        return text.replace(".", ",") if self.cyrillic_cards else text

    def say(self, message: str, **values: object) -> str:
        """``message`` (a template, with ``values`` bound) in this language."""
        if values and isinstance(message, Message):
            message = message.format(**values)
        return render(message, self.words)


_COMBINATION: Final = {
    CombinationType.THREE_OF_A_KIND: N_("three of a kind"),
    CombinationType.FOUR_OF_A_KIND: N_("four of a kind"),
    CombinationType.MARRIAGE: N_("marriage"),
    CombinationType.BEZIQUE: N_("bezique"),
    CombinationType.DOUBLE_BEZIQUE: N_("double bezique"),
    CombinationType.CORONKA: N_("coronka"),
}
_PHASE: Final = {
    Phase.BETTING: N_("betting goes on"),
    Phase.SHOWDOWN: N_("showdown"),
    Phase.UNCONTESTED: N_("won uncontested"),
}
_SUIT: Final = {
    Suit.SPADES: N_("spades"),
    Suit.CLUBS: N_("clubs"),
    Suit.HEARTS: N_("hearts"),
    Suit.DIAMONDS: N_("diamonds"),
}


def card(c: Card, voice: Voice) -> str:
    rank = RUSSIAN_RANKS[c.rank][0] if voice.cyrillic_cards else c.rank.value
    return rank + c.suit.symbol


def cards(cs: Iterable[Card], voice: Voice) -> str:
    return " ".join(card(c, voice) for c in cs)


def trump(t: Suit | None, voice: Voice) -> str:
    if t is None:
        return voice.say(N_("no trump"))
    return voice.say(N_("trump: {suit} {symbol}").format(suit=_SUIT[t], symbol=t.symbol))


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "."))
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


def breakdown(hand: HandScore, voice: Voice) -> str:
    say = voice.say
    rows: list[Sequence[object]] = [
        (say(_COMBINATION[c.type]), cards(c.cards, voice), c.points) for c in hand.combinations
    ]
    rows += [(say(N_("loose card")), card(lc.card, voice), lc.points) for lc in hand.loose]
    rows.append((say(N_("total")), "", hand.score))
    return table((say(N_("declared")), say(N_("cards")), say(N_("points"))), rows)


def _score(score: int, voice: Voice) -> str:
    return voice.say(NP_("{score} point", "{score} points", "score", score=score))


def scored(hand: HandScore, ruleset: str, voice: Voice) -> str:
    head = voice.say(
        N_("{cards}; {trump}; {score} (rules {ruleset})"),
        cards=cards(hand.cards, voice),
        trump=trump(hand.trump, voice),
        score=_score(hand.score, voice),
        ruleset=ruleset,
    )
    return f"{head}\n{breakdown(hand, voice)}"


def showdown(result: Showdown, players: Sequence[str], ruleset: str, voice: Voice) -> str:
    say = voice.say
    if result.winner is None:
        verdict = say(
            N_("a tie: each hand scores {score}"), score=_score(result.hands[0].score, voice)
        )
    else:
        verdict = say(N_("{player} wins"), player=shown(players[result.winner]))
    parts = [
        say(
            N_("showdown; {trump}; {verdict} (rules {ruleset})"),
            trump=trump(result.trump, voice),
            verdict=verdict,
            ruleset=ruleset,
        )
    ]
    for player, hand in zip(players, result.hands, strict=True):
        line = say(
            N_("{player}: {cards}; {score}"),
            player=shown(player),
            cards=cards(hand.cards, voice),
            score=_score(hand.score, voice),
        )
        parts.append(f"{line}\n{breakdown(hand, voice)}")
    return "\n".join(parts)


def betting(result: BettingResult, ruleset: str, voice: Voice) -> str:
    say = voice.say
    state = result.state
    if result.error is None:
        verdict = say(N_("the betting is valid (rules {ruleset})"), ruleset=ruleset)
    else:
        error = result.error
        verdict = say(
            N_("the betting is invalid at action {number}: {reason} (rules {ruleset})"),
            number=error.index + 1,
            reason=shown(say(error.message)),
            ruleset=ruleset,
        )
    folded = say(N_("folded"))
    rows = [(p.player, p.contributed, folded if p.folded else "") for p in state.players]
    where = "  " + say(
        N_("phase: {phase}; pot: {pot}"), phase=say(_PHASE[state.phase]), pot=state.pot
    )
    if state.to_act is not None:
        where += say(N_("; to act: {player}"), player=shown(state.to_act))
    lines = [verdict, where, table((say(N_("player")), say(N_("put in")), ""), rows)]
    return "\n".join(lines)


def settlement(result: Settlement, ruleset: str, voice: Voice) -> str:
    say = voice.say
    rows = [(p.player, p.payout, f"{p.net:+d}" if p.net else "0") for p in result.players]
    if result.carried:  # a tie under tie=carry (docs/rules.md §13.4): nobody is paid
        head = say(
            N_(
                "settled: a tie; nobody was paid, the pot of {pot} is carried to the next round "
                "(rules {ruleset})"
            ),
            pot=result.carried,
            ruleset=ruleset,
        )
    else:
        head = say(
            N_("settled: pot {pot}; paid to {winners} (rules {ruleset})"),
            pot=result.pot,
            winners=shown(", ".join(result.winners)),
            ruleset=ruleset,
        )
    lines = [
        head,
        table((say(N_("player")), say(N_("payout")), say(N_("net"))), rows),
    ]
    pair = result.betting.state.showdown
    if result.showdown is not None and pair is not None:
        lines.append(showdown(result.showdown, pair, ruleset, voice))
    return "\n".join(lines)


def _percent(value: float) -> str:
    """A percentile as people read it: never rounded up to 100 (or down to 0) unless exact."""
    text = f"{value:.2f}"
    if text == "100.00" and value < 100:
        text = "99.99"
    elif text == "0.00" and value > 0:
        text = "0.01"
    return text


def odds(result: Odds, ruleset: str, voice: Voice) -> str:
    say = voice.say
    if result.exact:
        how = say(N_("exact: every deal of the cards left counted"))
    else:
        how = say(
            N_("estimated from {samples} random deals (standard error {error})"),
            samples=result.samples,
            error=f"{result.standard_error:.4f}",
        )
    outcomes = (
        (say(N_("win")), result.win, result.wins),
        (say(N_("tie")), result.tie, result.ties),
        (say(N_("loss")), result.loss, result.losses),
    )
    if result.exact:
        header: tuple[str, ...] = (say(N_("outcome")), say(N_("probability")), say(N_("deals")))
        rows: list[tuple[object, ...]] = [
            (n, voice.number(f"{p:.6f}"), count) for n, p, count in outcomes
        ]
    else:
        header = (say(N_("outcome")), say(N_("probability")))
        rows = [(n, voice.number(f"{p:.6f}")) for n, p, _ in outcomes]
    return "\n".join(
        [
            say(
                N_("{cards}; {trump}; {score} (rules {ruleset})"),
                cards=cards(result.cards, voice),
                trump=trump(result.trump, voice),
                score=_score(result.score, voice),
                ruleset=ruleset,
            ),
            "  "
            + say(
                NP_(
                    "{count} opponent, {remaining} cards left; {how}",
                    "{count} opponents, {remaining} cards left; {how}",
                    "count",
                    count=result.opponents,
                    remaining=result.remaining,
                    how=how,
                )
            ),
            "  " + say(N_("percentile: {value}"), value=voice.number(_percent(result.percentile))),
            table(header, rows),
        ]
    )


def rulesets(document: Mapping[str, Any], voice: Voice) -> str:
    """``GET /v1/rulesets``'s document as two tables: the presets with their switch values and
    digests, then each switch's values, default and rule (the JSON's own data, nothing more)."""
    say = voice.say
    switches = [switch["name"] for switch in document["switches"]]
    presets = table(
        (say(N_("preset")), *switches, "sha256"),
        [
            (preset["id"], *(preset["switches"][name] for name in switches), preset["sha256"])
            for preset in document["presets"]
        ],
    )
    rows = [
        (s["name"], ", ".join(str(v) for v in s["values"]), s["default"], s["anchor"])
        for s in document["switches"]
    ]
    return "\n".join(
        [
            say(N_("presets (the default is {ruleset})"), ruleset=document["default"]),
            presets,
            say(N_("switches (a ruleset is a preset with some of them changed)")),
            table(
                (say(N_("switch")), say(N_("values")), say(N_("default")), say(N_("rule"))), rows
            ),
        ]
    )
