"""The worst request bodies we know of, per endpoint, and what each costs one worker.

Every body is under the default 1 MiB body limit, so none is refused unread: each must be answered
in under ``CPU_TARGET_MS`` of CPU and ``RSS_TARGET_MIB`` of extra peak resident memory (the
per-request work budget of ``service/quart_bezique/api/envelope/budget.py``, docs/operations.md
"Hostile input"). The shapes multiply what used to be per-level slack, flood the parser with tiny
containers, strings and numbers, or ask for as much work as the parameters allow.

Run ``python scripts/worst_shapes.py`` (``--root DIR`` measures another checkout of the service,
e.g. a ``git worktree`` of an older commit; ``--only NAME`` runs the shapes whose name contains
NAME). Each shape runs in a fresh interpreter: the app is built and warmed with one valid request
to the endpoint, the kernel's peak-RSS mark is reset (``/proc/self/clear_refs``), and the request
is timed with ``time.process_time``. ``tests/security/test_worst_shapes.py`` posts the same bodies
and asserts what is deterministic about them (status, code, bounded allocation).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

CPU_TARGET_MS: Final = 100.0
RSS_TARGET_MIB: Final = 16.0
BODY_LIMIT: Final = 1024 * 1024
ROOM: Final = BODY_LIMIT - 1024
"""Bytes each shape fills up to: under the limit with a margin, so none is refused unread."""

HAND: Final = {"cards": ["KS", "QS", "JS", "JC"]}
SETUP: Final[dict[str, Any]] = {"players": ["ann", "bob"], "dealer": "bob", "ante": 1}
WARMUP: Final[dict[str, dict[str, Any]]] = {
    "/v1/hands/score": HAND,
    "/v1/hands/batch-score": {"hands": [HAND, {**HAND, "trump": "H"}]},
    "/v1/hands/odds": {**HAND, "opponents": 2},
    "/v1/showdown": {"hands": [{"player": "a", **HAND}, {"player": "b", **HAND}]},
    "/v1/betting/validate": {**SETUP, "actions": [{"player": "ann", "type": "fold"}]},
    "/v1/rounds/settle": {**SETUP, "actions": [{"player": "ann", "type": "fold"}]},
}


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    path: str
    body: Callable[[], bytes]
    """Built in the measuring process (some are large): the bytes posted."""


def fill(head: bytes, item: bytes, tail: bytes, *, room: int = ROOM) -> bytes:
    """``head item,item,...,item tail`` with as many items as fit in ``room`` bytes."""
    count = max(1, (room - len(head) - len(tail) + 1) // (len(item) + 1))
    return head + b",".join([item] * count) + tail


def repeated(head: bytes, item: bytes, tail: bytes, count: int) -> bytes:
    return head + b",".join([item] * count) + tail


def _keys(count: int, value: bytes = b"0") -> bytes:
    return b",".join(b'"k%d":%s' % (i, value) for i in range(count))


def _actions(count: int, action: bytes) -> bytes:
    return repeated(b'{"players":["ann","bob"],"dealer":"bob","ante":1,"actions":[', action,
                    b"]}", count)  # fmt: skip


def _within(body: bytes) -> bytes:
    if len(body) >= BODY_LIMIT:
        raise ValueError(f"a shape must stay under the body limit: {len(body)} bytes")
    return body


SHAPES: Final[tuple[Shape, ...]] = (
    # The review's shape: 68 bad items per hand (4 allowed + 64 slack), as many hands as fit.
    Shape("batch: hands of 68 bad cards", "/v1/hands/batch-score",
          lambda: fill(b'{"hands":[', b'{"cards":[' + b",".join([b"0"] * 68) + b"]}", b"]}")),
    Shape("batch: hands of 68 good cards", "/v1/hands/batch-score",
          lambda: fill(b'{"hands":[', b'{"cards":[' + b",".join([b'"KS"'] * 68) + b"]}", b"]}")),
    Shape("batch: 10,064 hands of 4 invalid cards", "/v1/hands/batch-score",
          lambda: repeated(b'{"hands":[', b'{"cards":["XX","XX","XX","XX"]}', b"]}", 10_064)),
    Shape("batch: 10,000 hands, last one bad", "/v1/hands/batch-score",
          lambda: repeated(b'{"hands":[', b'{"cards":["KS","QS","JS","JC"]}', b',{"cards":[]}]}',
                           10_000)),
    Shape("batch: hands of 50 unknown keys", "/v1/hands/batch-score",
          lambda: fill(b'{"hands":[', b'{"cards":[],' + _keys(50) + b"}", b"]}")),
    Shape("batch: hands of 4 cards and 50 unknown containers", "/v1/hands/batch-score",
          lambda: fill(b'{"hands":[', b'{"cards":["KS","QS","JS","JC"],' + _keys(50, b"[]")
                       + b"}", b"]}")),
    Shape("batch: hands that are empty lists", "/v1/hands/batch-score",
          lambda: fill(b'{"hands":[', b"[]", b"]}")),
    Shape("batch: hands that are empty objects", "/v1/hands/batch-score",
          lambda: fill(b'{"hands":[', b"{}", b"]}")),
    Shape("batch: 10,000 valid hands with trump, breakdown", "/v1/hands/batch-score",
          lambda: repeated(b'{"hands":[', b'{"cards":["KS","QS","JS","JC"],"trump":"S"}', b"]}",
                           10_000)),
    Shape("score: top-level list of empty lists", "/v1/hands/score",
          lambda: fill(b"[", b"[]", b"]")),
    Shape("score: top-level list of empty objects", "/v1/hands/score",
          lambda: fill(b"[", b"{}", b"]")),
    Shape("score: list of lists of lists", "/v1/hands/score",
          lambda: fill(b"[", b"[[[[0]]]]", b"]")),
    Shape("score: cards of one-char strings", "/v1/hands/score",
          lambda: fill(b'{"cards":[', b'"a"', b"]}")),
    Shape("score: cards of distinct strings", "/v1/hands/score",
          lambda: b'{"cards":[' + b",".join(b'"%x"' % i for i in range(120_000)) + b"]}"),
    Shape("score: cards of large integers", "/v1/hands/score",
          lambda: fill(b'{"cards":[', b"9223372036854775807", b"]}")),
    Shape("score: cards of floats", "/v1/hands/score",
          lambda: fill(b'{"cards":[', b"0.5", b"]}")),
    Shape("score: unknown keys holding empty lists", "/v1/hands/score",
          lambda: b"{" + _keys(80_000, b"[]") + b"}"),
    Shape("score: unknown keys at the budget, escaped colon", "/v1/hands/score",
          lambda: b"{" + _keys(70_000) + b',"x":"\\u003a"}'),
    Shape("score: unknown keys at the budget, the last repeated", "/v1/hands/score",
          lambda: b"{" + _keys(70_000) + b',"k0":1}'),
    Shape("batch: objects at the budget, the last with a repeated key", "/v1/hands/batch-score",
          lambda: repeated(b'{"hands":[', b'{"a":0}', b'],"x":{"a":0,"a":1}}', 35_000)),
    Shape("batch: objects at the budget, escaped colon", "/v1/hands/batch-score",
          lambda: repeated(b'{"hands":[', b'{"a":0}', b'],"x":"\\u003a"}', 35_000)),
    Shape("batch: 10,064 hands at the budget, all bad", "/v1/hands/batch-score",
          lambda: repeated(b'{"hands":[', b'{"cards":[0,0,0,0,0]}', b"]}", 10_064)),
    Shape("score: one long card string", "/v1/hands/score",
          lambda: b'{"cards":["' + b"K" * (ROOM - 14) + b'"]}'),
    Shape("score: one card string of commas", "/v1/hands/score",
          lambda: b'{"cards":["' + b"," * (ROOM - 14) + b'"]}'),
    Shape("score: string of escapes", "/v1/hands/score",
          lambda: b'{"cards":["' + b"\\u00e9" * (ROOM // 6 - 4) + b'"]}'),
    Shape("showdown: 66 hands of 68 bad cards, 50 unknown keys", "/v1/showdown",
          lambda: repeated(b'{"hands":[', b'{"cards":[' + b",".join([b"0"] * 68) + b"],"
                           + _keys(50) + b"}", b"]}", 66)),
    Shape("showdown: hands of empty lists", "/v1/showdown",
          lambda: fill(b'{"hands":[{"player":"a","cards":[', b"[]", b"]}]}")),
    Shape("betting: 1,064 actions, all invalid, 50 unknown keys", "/v1/betting/validate",
          lambda: _actions(1_064, b'{"player":0,"type":0,"amount":0.5,' + _keys(50) + b"}")),
    Shape("betting: 1,000 actions, all illegal", "/v1/betting/validate",
          lambda: _actions(1_000, b'{"player":"ann","type":"stake","amount":9007199254740991}')),
    Shape("betting: actions that are empty objects", "/v1/betting/validate",
          lambda: fill(b'{"players":["a","b"],"dealer":"a","ante":1,"actions":[', b"{}", b"]}")),
    Shape("settle: 68 players, 1,064 bad actions", "/v1/rounds/settle",
          lambda: b'{"players":[' + b",".join(b'"p%d"' % i for i in range(68))
          + b'],"dealer":0,"ante":0,"hands":{"a":[0,0,0,0,0]},"actions":['
          + b",".join([b'{"player":"","type":"x","amount":-1}'] * 1_064) + b"]}"),
    Shape("settle: hands of many players", "/v1/rounds/settle",
          lambda: b'{"players":["a","b"],"dealer":"a","ante":1,"hands":{'
          + b",".join(b'"p%d":[%s]' % (i, b",".join([b"0"] * 68)) for i in range(4_000)) + b"}}"),
    Shape("odds: 3 opponents, most samples", "/v1/hands/odds",
          lambda: b'{"cards":["KS","QS","JS","JC"],"opponents":3,"samples":20000}'),
    Shape("odds: 2 opponents, a new trump and score", "/v1/hands/odds",
          lambda: b'{"cards":["AD","10D","KD","QD"],"trump":"D","opponents":2,'
          b'"seen":["9S","9S","9C","9C","9H","9H"]}'),
    Shape("odds: 1 opponent, 140 seen", "/v1/hands/odds",
          lambda: b'{"cards":["KS","QS","JS","JC"],"seen":['
          + b",".join(b'"%s"' % c.encode() for c in _seen(140)) + b"]}"),
    Shape("odds: 204 bad seen cards, 50 unknown keys", "/v1/hands/odds",
          lambda: b'{"cards":[0,0,0,0,0],"seen":[' + b",".join([b"0"] * 204) + b"],"
          + _keys(50) + b"}"),
    Shape("odds: seen of empty lists", "/v1/hands/odds",
          lambda: fill(b'{"cards":["KS","QS","JS","JC"],"seen":[', b"[]", b"]}")),
)  # fmt: skip


def _seen(count: int) -> list[str]:
    """``count`` cards the shoe can still give after the hand KS QS JS JC (six copies each)."""
    codes = [r + s for s in "SCHD" for r in ("9", "10", "J", "Q", "K", "A")]
    out: list[str] = []
    for code in codes:
        copies = 5 if code in ("KS", "QS", "JS", "JC") else 6
        out.extend([code] * copies)
    return out[:count]


def shape_bodies() -> Iterator[tuple[Shape, bytes]]:
    for shape in SHAPES:
        yield shape, _within(shape.body())


# --- measuring one shape, in a fresh interpreter -----------------------------------------------

_CHILD: Final = r"""
import gc, json, re, resource, sys, time
from pathlib import Path

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import worst_shapes as ws
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config

shape = next(s for s in ws.SHAPES if s.name == sys.argv[3])
body = ws._within(shape.body())
app = create_app(Config(), audit_sink=lambda line: None)
client = app.test_client()
client.post(shape.path, json=ws.WARMUP[shape.path]).close()

def hwm() -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", text).group(1)) * 1024

gc.collect()
try:
    Path("/proc/self/clear_refs").write_text("5")
    before = hwm()
except OSError:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
started = time.process_time()
response = client.post(shape.path, data=body, content_type="application/json")
cpu = time.process_time() - started
peak = hwm() - before
data = response.get_data()
code = ""
if response.status_code >= 400:
    code = json.loads(data).get("code", "")
print(json.dumps({"status": response.status_code, "code": code, "cpu_ms": cpu * 1000,
                  "rss_mib": peak / 1048576, "size": len(body), "answer": len(data)}))
"""


def measure(root: Path, shape: Shape) -> dict[str, Any]:
    """One shape's figures, from a fresh interpreter importing the service from ``root``."""
    here = Path(__file__).resolve().parent
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(here), shape.name],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["?"]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--only", default="")
    parser.add_argument("--json", action="store_true", help="one JSON line per shape")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    print(f"service from {root}; targets: {CPU_TARGET_MS:.0f} ms CPU, {RSS_TARGET_MIB:.0f} MiB")
    print(f"{'shape':<55} {'bytes':>9} {'answer':>14} {'CPU ms':>8} {'+RSS MiB':>9}  verdict")
    misses = 0
    for shape in SHAPES:
        if args.only not in shape.name:
            continue
        got = measure(root, shape)
        if args.json:
            print(orjson.dumps({"shape": shape.name, **got}).decode())
            continue
        if "error" in got:
            misses += 1
            print(f"{shape.name:<55} failed: {got['error']}")
            continue
        ok = got["cpu_ms"] < CPU_TARGET_MS and got["rss_mib"] < RSS_TARGET_MIB
        misses += not ok
        answer = f"{got['status']} {got['code']}"[:14]
        print(f"{shape.name:<55} {got['size']:>9,} {answer:>14} {got['cpu_ms']:>8.1f} "
              f"{got['rss_mib']:>9.1f}  {'ok' if ok else 'MISS'}")  # fmt: skip
    print(f"{misses} shape(s) over a target")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
