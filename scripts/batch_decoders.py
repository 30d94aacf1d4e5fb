"""The batch's typed road, measured against the one-parse alternative it was chosen over.

The batch road decodes a body with a typed decoder derived from the schema (``fastpath.batch``):
decoding and checking are one C pass, and the decoded cards are the literals' own strings, so the
table loop's lookups hash nothing. A decoder keeps nothing of a body it refuses, so the schema's
explanation of a refused batch parses it again. The alternative parses every batch once (orjson,
with the key-sorted copy the digest and the repeated-key check need), checks it with the same
typed record (``msgspec.convert``) and scores it, so a refusal is explained on that one parse.
This prints both per 10,000-hand body, compact and ``json.dumps`` layouts, accepted and refused.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any, Final

import msgspec
import orjson
from quart_bezique.api.config import Config
from quart_bezique.api.contract.schemas import request_schemas
from quart_bezique.api.envelope.body import parse
from quart_bezique.api.fastpath import batch
from quart_bezique.game.cards import CARD_BY_SPELLING

HANDS: Final = 10_000


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


def _one_parse(record: type[msgspec.Struct]) -> Callable[[bytes], object]:
    """Parse once, check the parsed object with the typed record, score the records."""

    def run(data: bytes) -> object:
        body, _ = parse(data)
        try:
            found = msgspec.convert(body, record)
        except msgspec.ValidationError:
            return body  # the schema would explain it, on this same object
        return batch._judge_records(found.hands, False, batch.tables())  # type: ignore[attr-defined]

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
    schema = request_schemas(Config(build_tables=False)).batch()
    typed = batch.typed_decoder(schema)
    one_parse = _one_parse(batch.record_type(schema))

    def road(data: bytes) -> object:
        found = typed(data)
        return found if found is not None else parse(data)  # the explanation's parse

    hands = _hands(1)
    refused = [*hands[:-1], {"cards": ["KS", "QS", "JS", "XX"]}]
    bodies = {
        "compact, accepted": orjson.dumps({"hands": hands, "breakdown": False}),
        "json.dumps, accepted": json.dumps({"hands": hands, "breakdown": False}).encode(),
        "compact, last hand refused": orjson.dumps({"hands": refused, "breakdown": False}),
    }
    print("10,000 hands; refused: before the schema's explanation, which both then run")
    print(f"{'body':28} {'typed road ms':>14} {'one parse ms':>13}")
    for name, data in bodies.items():
        print(f"{name:28} {_best(road, data, args.repeat):14.2f} "
              f"{_best(one_parse, data, args.repeat):13.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
