"""A realistic archive of round records, with faults planted where a test knows them
(docs/reconcile.md, "Checking it").

    python -m scripts.round_archive --records 20000 --out rounds.jsonl [--seed 7]

Each line is a finished round at a table of 2 to 4 seats, with 1 to 12 legal betting actions
(played by the reference's own move generator, ``quart_bezique.vectors.rounds``), every seat's
hand dealt from one shoe, now and then a card or the trump spelled another accepted way, and a
claimed outcome equal to the reference's (computed by the core, not by the reader the
reconciliation uses). Then about 5 % of the lines claim a wrong payout for one seat, and about
1 % are malformed: not JSON (cut in the middle), a required member missing (``ante``), or a hand
of three cards. The planted faults are written next to the archive (``--faults``, by default
``FILE.faults.json``): each one's line, kind, and the report line it must give (the claim's
field, or the refusal's code and pointer). Same seed, same bytes.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import orjson
from quart_bezique.game.cards import SUIT_BY_SPELLING
from quart_bezique.game.ruleset import resolve_ruleset
from quart_bezique.game.scoring import score_hand
from quart_bezique.game.settlement import settle
from quart_bezique.rounds import FORMAT
from quart_bezique.rounds.adjudicate import reference
from quart_bezique.vectors import deal
from quart_bezique.vectors import rounds as play

DEFAULT_SEED: Final = 1
MAX_ACTIONS: Final = 12
WRONG_PAYOUT: Final = 0.05
MALFORMED: Final = 0.01
ANTES: Final = (1, 2, 5, 5, 10, 10, 10, 20, 25, 50, 100)
ODD_SPELLING: Final = 0.03
"""How often a card or the trump is written another accepted way (Russian letters, ...)."""
CLASSIC: Final = resolve_ruleset(None)

Fault = dict[str, Any]


def table(rng: random.Random) -> dict[str, Any]:
    """Seats, a dealer, an ante, and sometimes stake limits, as a platform's tables have them."""
    players = deal.seats(rng, rng.randrange(2, 5))
    ante = rng.choice(ANTES)
    body: dict[str, Any] = {"players": players, "dealer": rng.choice(players), "ante": ante}
    if rng.random() < 0.3:
        body["minimum_stake"] = ante * rng.choice((1, 2))
    if rng.random() < 0.2:
        body["maximum_stake"] = body.get("minimum_stake", ante) * rng.choice((5, 10, 20))
    return body


def betting(rng: random.Random, body: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
    """A finished legal betting of 1 to ``MAX_ACTIONS`` actions (a longer one is drawn again)."""
    while True:
        actions, result = play.play(rng, body, rng.randrange(1, MAX_ACTIONS), finish=True)
        if 1 <= len(actions) <= MAX_ACTIONS and result.valid and result.state.to_act is None:
            return actions, result


def round_record(rng: random.Random, number: int) -> dict[str, Any]:
    """One finished round, its claim the reference's outcome."""
    body = table(rng)
    actions, result = betting(rng, body)
    players: Sequence[str] = body["players"]
    dealt = deal.shoe_hands(rng, len(players))
    cards = dict(zip(players, dealt, strict=True))
    trump_text = deal.trump(rng, ODD_SPELLING)
    trump = None if trump_text is None else SUIT_BY_SPELLING[trump_text]
    shown = result.state.showdown or ()
    settlement = settle(result, {p: cards[p] for p in shown}, trump, CLASSIC)
    hands = [(p, score_hand(cards[p], trump, CLASSIC)) for p in players]
    claimed = reference(settlement, hands)
    assert claimed is not None  # a finished legal betting is always settled
    if claimed["showdown"] is not None:  # a claim names a shown hand's cards and score only
        claimed["showdown"]["hands"] = [
            {k: hand[k] for k in ("player", "cards", "score")}
            for hand in claimed["showdown"]["hands"]
        ]
    record: dict[str, Any] = {"format": FORMAT, **body}
    if trump_text is not None:
        record["trump"] = trump_text
    record["hands"] = {p: deal.spelled(rng, cards[p], ODD_SPELLING) for p in players}
    record["actions"] = actions
    record["claimed"] = claimed
    record["context"] = {"round_id": f"table-{number % 97}/round-{number}", "table": number % 97}
    return record


def planted(rng: random.Random, record: dict[str, Any], line: int) -> tuple[bytes, Fault | None]:
    """The record's line, with a fault now and then, and the fault as the report must show it."""
    draw = rng.random()
    if draw < WRONG_PAYOUT:
        seats = record["claimed"]["players"]
        index = rng.randrange(len(seats))
        delta = rng.randrange(1, record["ante"] + 1)
        seats[index]["payout"] += (
            delta if seats[index]["payout"] < delta or rng.random() < 0.5 else -delta
        )
        field = f"/players/{index}/payout"
        return _line(record), {"line": line, "kind": "wrong_payout", "field": field}
    if draw < WRONG_PAYOUT + MALFORMED:
        kind = rng.choice(("bad_json", "missing_field", "three_card_hand"))
        if kind == "bad_json":
            text = orjson.dumps(record)
            return text[: len(text) // 2] + b"\n", {
                "line": line,
                "kind": kind,
                "code": "MALFORMED_JSON",
                "pointer": "",
            }
        if kind == "missing_field":
            del record["ante"]
            return _line(record), {
                "line": line,
                "kind": kind,
                "code": "MISSING_FIELD",
                "pointer": "/ante",
            }
        player = rng.choice(record["players"])
        record["hands"][player] = record["hands"][player][:3]
        pointer = "/hands/" + player
        return _line(record), {
            "line": line,
            "kind": kind,
            "code": "WRONG_HAND_SIZE",
            "pointer": pointer,
        }
    return _line(record), None


def _line(record: dict[str, Any]) -> bytes:
    return orjson.dumps(record) + b"\n"


def write_archive(out: Path, records: int, seed: int = DEFAULT_SEED) -> list[Fault]:
    """Write ``records`` lines to ``out``; the planted faults, in line order."""
    rng = random.Random(f"round-archive/{seed}")
    faults: list[Fault] = []
    with out.open("wb") as file:
        for line in range(1, records + 1):
            text, fault = planted(rng, round_record(rng, line), line)
            file.write(text)
            if fault is not None:
                faults.append(fault)
    return faults


def faults_path(out: Path) -> Path:
    return out.with_name(out.name + ".faults.json")


Finding = tuple[Any, ...]
"""A report line reduced to what a planted fault fixes: line, kind, then field or code and
pointer."""


def planted_findings(faults: Sequence[Fault]) -> list[Finding]:
    """The report lines the planted ``faults`` must give, in line order."""
    return [
        (f["line"], "difference", f["field"])
        if f["kind"] == "wrong_payout"
        else (f["line"], "unreadable", f["code"], f["pointer"])
        for f in faults
    ]


def reported_findings(report: Path) -> list[Finding]:
    """The difference and unreadable lines of a ``report.jsonl``, in its order."""
    out: list[Finding] = []
    with report.open("rb") as lines:
        for text in lines:
            entry = orjson.loads(text)
            if entry["type"] == "difference":
                out.append((entry["line"], "difference", entry["field"]))
            elif entry["type"] == "unreadable":
                out.append((entry["line"], "unreadable", entry["code"], entry["pointer"]))
    return out


def write_faults(out: Path, records: int, seed: int, faults: list[Fault]) -> Path:
    """``FILE.faults.json`` next to the archive: what it planted, where."""
    document = {"archive": out.name, "records": records, "seed": seed, "faults": faults}
    path = faults_path(out)
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, required=True, metavar="N")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="S")
    parser.add_argument("--faults", type=Path, metavar="FILE", help="default: FILE.faults.json")
    args = parser.parse_args(argv)
    if args.records < 0:
        parser.error("--records must be 0 or more")
    faults = write_archive(args.out, args.records, args.seed)
    written = write_faults(args.out, args.records, args.seed, faults)
    if args.faults is not None:
        written.replace(args.faults)
    print(f"{args.out}: {args.records} records, {len(faults)} faults planted", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
