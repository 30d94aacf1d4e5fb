"""How many times one request is read, parsed, validated and judged: every count should be 1.

A request read twice, parsed twice or judged twice has two roads through the service, which must
then be kept giving the same bytes. Counted in-process with ``sys.setprofile``, for answered and
refused requests of each verdict endpoint: passes over the body (stream objects read from), JSON
parses, top-level validator loads (``marshmallow.Schema.load``) and entries into the rules core
(its entry functions called from outside ``game/``, or the batch's table loop). ``--root DIR``
measures another checkout; ``tests/api/test_api_one_road.py`` asserts the same counts. A batch
its typed decoder refuses is parsed again for the schema's explanation: counted, not hidden.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

CASES: Final[tuple[tuple[str, str, object], ...]] = (
    ("score answered", "/v1/hands/score", {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}),
    ("score refused", "/v1/hands/score", {"cards": ["KS", "QS", "JS", "XX"]}),
    (
        "batch answered",
        "/v1/hands/batch-score",
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"]}, {"cards": ["9H", "AH", "9D", "AD"]}]},
    ),
    (
        "batch answered, aliases",
        "/v1/hands/batch-score",
        {"hands": [{"cards": ["ks", "QS", "JS", "JC"], "trump": "♠"}], "breakdown": False},
    ),
    (
        "batch refused",
        "/v1/hands/batch-score",
        {"hands": [{"cards": ["KS", "QS", "JS", "JC"]}, {"cards": ["9H", "AH", "9D", "XX"]}]},
    ),
    (
        "showdown answered",
        "/v1/showdown",
        {
            "hands": [
                {"player": "a", "cards": ["KS", "QS", "JS", "JC"]},
                {"player": "b", "cards": ["KH", "QH", "KD", "10D"]},
            ]
        },
    ),
    (
        "showdown refused",
        "/v1/showdown",
        {"hands": [{"player": "a", "cards": ["KS", "QS", "JS", "JC"]}]},
    ),
    (
        "betting answered",
        "/v1/betting/validate",
        {
            "players": ["ann", "bob"],
            "dealer": "bob",
            "ante": 10,
            "actions": [{"player": "ann", "type": "stake", "amount": 5}],
        },
    ),
    (
        "betting refused (setup)",
        "/v1/betting/validate",
        {"players": ["ann", "bob"], "dealer": "cid", "ante": 10},
    ),
    (
        "betting refused (schema)",
        "/v1/betting/validate",
        {"players": ["ann"], "dealer": "ann", "ante": 10},
    ),
    (
        "settle answered",
        "/v1/rounds/settle",
        {
            "players": ["ann", "bob"],
            "dealer": "bob",
            "ante": 5,
            "actions": [
                {"player": "ann", "type": "stake", "amount": 5},
                {"player": "bob", "type": "fold"},
            ],
        },
    ),
    ("odds answered", "/v1/hands/odds", {"cards": ["KS", "QS", "JS", "JC"]}),
)
KINDS: Final = ("reads", "parses", "loads", "core")

_PROBE: Final = r"""
import json, sys
sys.path[:0] = ["service", "."]
import marshmallow, orjson
try:
    from quart_bezique.api.app import create_app
    from quart_bezique.api.config import Config
except ImportError:  # a checkout from before the package had a name of its own
    from service.api.app import create_app
    from service.api.config import Config

cases = json.loads(sys.argv[1])
app = create_app(Config(build_tables=True))
client = app.test_client()
GAMES = ("/quart_bezique/game/", "/service/game/")
ENTRIES = {"score_hand", "compare_hands", "validate_betting", "settle_round", "hand_odds"}
LOOPS = {"_lookup", "_breakdowns", "_score_results", "_scores", "_judge_records"}
PARSERS = {"loads", "decode"}
LOAD = marshmallow.Schema.load.__code__


def core_code(code):
    return (any(g in code.co_filename for g in GAMES) and code.co_name in ENTRIES) or (
        code.co_filename.endswith(("endpoints/hands.py", "fastpath/batch.py"))
        and code.co_name in LOOPS
    )


def measure(path, data):
    counts = {"reads": 0, "parses": 0, "loads": 0, "core": 0}
    loads_open = [0]
    streams = []
    read_from = []

    def profile(frame, event, arg):
        if event == "c_call":
            owner = getattr(arg, "__self__", None)
            name = getattr(arg, "__name__", "")
            if name in ("read", "readline", "readinto") and owner is not None and (
                owner is environ.get("wsgi.input") or any(owner is s for s in streams)
            ):
                if not any(owner is s for s in read_from):
                    read_from.append(owner)  # one pass over the body per stream object
                    counts["reads"] += 1
            elif name in PARSERS and (
                getattr(arg, "__module__", "") in ("orjson", "json")
                or type(owner).__module__.startswith("msgspec")
            ):
                counts["parses"] += 1
        elif event == "call":
            code = frame.f_code
            if code is LOAD:
                if loads_open[0] == 0:
                    counts["loads"] += 1
                loads_open[0] += 1
            elif core_code(code):
                caller = frame.f_back
                if caller is None or not (
                    any(g in caller.f_code.co_filename for g in GAMES)
                    or core_code(caller.f_code)
                ):
                    counts["core"] += 1
            elif code.co_name == "loads" and code.co_filename.endswith("json/__init__.py"):
                counts["parses"] += 1
        elif event == "return" and frame.f_code is LOAD:
            loads_open[0] -= 1

    import werkzeug.test

    builder = werkzeug.test.EnvironBuilder(
        path=path, method="POST", data=data, content_type="application/json"
    )
    environ = builder.get_environ()
    stream = environ["wsgi.input"]
    streams.append(stream)
    seen = []
    sys.setprofile(profile)
    try:
        chunks = app.wsgi_app(environ, lambda status, headers, exc=None: seen.append(status))
        body = b"".join(chunks)
    finally:
        sys.setprofile(None)
    return seen[0][:3], counts


out = {}
for name, path, body in cases:
    status, counts = measure(path, json.dumps(body).encode())
    out[name] = {"status": status, **counts}
print(json.dumps(out))
"""


def measure(root: Path) -> dict[str, dict[str, Any]]:
    """The counts of every case, measured in a fresh interpreter in ``root``."""
    cases = json.dumps([[name, path, body] for name, path, body in CASES])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, cases],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"},
    )
    found: dict[str, dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    counts = measure(args.root)
    print(f"{'request':28} {'status':>6} " + " ".join(f"{k:>6}" for k in KINDS))
    worst = 0
    for name, found in counts.items():
        worst = max(worst, *(found[k] for k in KINDS))
        row = " ".join(f"{found[k]:>6}" for k in KINDS)
        print(f"{name:28} {found['status']:>6} {row}")
    print(f"largest count: {worst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
