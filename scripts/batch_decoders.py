"""The batch's reading, measured against a typed decoder: is one generic parse the right tool?

The batch road parses the body once with orjson, checks and scores the hands in one table loop,
and explains a refusal with the schema on the same parsed object. A typed decoder (msgspec, with
the card and trump spellings as literals derived from ``HandSchema``) checks while it decodes and
is faster on an accepted body, but keeps nothing of a refused one: the schema's explanation then
needs a second parse. This prints both, per 10,000-hand body, in the compact layout and in the
layout ``json.dumps`` writes by default, for accepted and refused bodies (``--repeat N``, best of).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

import msgspec
import orjson

from service.api.envelope.body import parse
from service.api.fastpath import batch
from service.game.cards import CARD_BY_SPELLING

HANDS: Final = 10_000
BUDGET: Final = 1 << 30


def _hands(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    codes = sorted({card.code for card in CARD_BY_SPELLING.values()})
    out: list[dict[str, Any]] = []
    for n in range(HANDS):
        hand: dict[str, Any] = {"cards": rng.sample(codes, 4)}
        if n % 3 == 0:
            hand["trump"] = rng.choice(["S", "C", "H", "D", None])
        out.append(hand)
    return out


def _typed_decoder() -> msgspec.json.Decoder[Any]:
    """Literals of exactly the spellings the table loop accepts (``batch.tables()``); fields in
    sorted order, so the encoded struct is the canonical text."""
    tables = batch.tables()
    card: Any = Literal[tuple(tables.weights)]
    suit: Any = Literal[tuple(s for s in tables.settings if s is not None)]
    options: dict[str, Any] = {"forbid_unknown_fields": True, "omit_defaults": True}
    hand = msgspec.defstruct(
        "Hand",
        [
            ("cards", Annotated[list[card], msgspec.Meta(min_length=4, max_length=4)]),
            ("trump", suit | msgspec.UnsetType | None, msgspec.UNSET),
        ],
        **options,
    )
    body = msgspec.defstruct(
        "Batch",
        [
            ("breakdown", bool | msgspec.UnsetType, msgspec.UNSET),
            ("hands", Annotated[list[hand], msgspec.Meta(min_length=1, max_length=HANDS)]),  # type: ignore[valid-type]
        ],
        kw_only=True,
        **options,
    )
    return msgspec.json.Decoder(body)


def _generic(data: bytes) -> object:
    """The road: one parse (with its sorted copy and repeated-key check), the table loop."""
    body, _ = parse(data, BUDGET)
    try:
        return batch.judge_hands(body["hands"], False)
    except Exception:
        return None  # the schema would explain it, on this same object


def _typed(decoder: msgspec.json.Decoder[Any]) -> Callable[[bytes], object]:
    tables = batch.tables()
    weights, row, rows, settings = (
        tables.weights,
        tables.row_by_key,
        tables.score_json,
        tables.settings,
    )
    unset = msgspec.UNSET

    def run(data: bytes) -> object:
        try:
            decoded = decoder.decode(data)
        except msgspec.ValidationError:
            return orjson.loads(data)  # the second parse the schema's explanation needs
        out = []
        for hand in decoded.hands:
            a, b, c, d = hand.cards
            key = (weights[a] + weights[b] + weights[c] + weights[d]) & (batch.ALIAS - 1)
            setting = 0 if hand.trump is unset else settings[hand.trump] & 7
            out.append(rows[row[key]][setting])
        return out, msgspec.json.encode(decoded)  # the canonical text, keys in order

    return run


def _best(run: Callable[[bytes], object], data: bytes, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        start = time.perf_counter()
        run(data)
        best = min(best, time.perf_counter() - start)
        gc.enable()
    return best * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    hands = _hands(1)
    refused = [*hands[:-1], {"cards": ["KS", "QS", "JS", "XX"]}]
    bodies = {
        "compact, accepted": orjson.dumps({"hands": hands, "breakdown": False}),
        "json.dumps, accepted": json.dumps({"hands": hands, "breakdown": False}).encode(),
        "compact, last hand refused": orjson.dumps({"hands": refused, "breakdown": False}),
    }
    typed = _typed(_typed_decoder())
    print(f"{'10,000 hands':28} {'one parse (road) ms':>20} {'typed decoder ms':>17}")
    for name, data in bodies.items():
        road, other = _best(_generic, data, args.repeat), _best(typed, data, args.repeat)
        print(f"{name:28} {road:20.2f} {other:17.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
